// xffi: convolution as one `__host__ __device__` functor, a thread per
// output element (device_kernels.h explains how functors are built and run).
//
// Two routes (convolution.h chooses): the direct functor takes every layout
// of the dimension numbers, stride, padding (negative too), lhs and rhs
// dilation, window reversal and feature or batch groups with no scratch,
// in the widest type of the result's class; the im2col functor lays the
// input out as the matrix whose product with the kernel is the result,
// for the device's GEMM (cuBLAS on CudaDevice).
#ifndef XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_KERNEL_H_
#define XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_KERNEL_H_

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

// At most this many spatial dimensions (the rank limit less batch, feature).
inline constexpr int kMaxConvSpatial = kMaxRank - 2;

// out[b, o, pos] = Σ over the group's input features c and the kernel
// positions k inside the (padded, lhs-dilated) input of
// lhs[batch, feature, in(pos, k)] * rhs[c, o, k]. With feature groups,
// output feature o reads input features [g·cg, (g+1)·cg) where g = o /
// group_out; with batch groups, it reads input batch element g·out_batch + b
// and every feature.
struct ConvolutionKernel {
  static constexpr const char* kName = "xffi.device.convolution";
  const uint8_t* lhs = nullptr;
  const uint8_t* rhs = nullptr;
  uint8_t* out = nullptr;
  DType lhs_type = DType::kF32, rhs_type = DType::kF32, out_type = DType::kF32;
  int64_t n = 0;
  // The result, row-major: its dims, and which of them is batch, feature,
  // and spatial dimension s.
  int32_t out_rank = 0;
  int64_t out_dims[kMaxRank] = {};
  int32_t out_batch_dim = 0, out_feature_dim = 0;
  int32_t out_spatial_dims[kMaxConvSpatial] = {};
  int32_t spatial = 0;
  // Element strides of the input and kernel, per role.
  int64_t lhs_batch_stride = 0, lhs_feature_stride = 0;
  int64_t lhs_spatial_strides[kMaxConvSpatial] = {};
  int64_t lhs_spatial_sizes[kMaxConvSpatial] = {};
  int64_t rhs_in_feature_stride = 0, rhs_out_feature_stride = 0;
  int64_t rhs_spatial_strides[kMaxConvSpatial] = {};
  int64_t rhs_spatial_sizes[kMaxConvSpatial] = {};
  int64_t taps = 1;  // the product of rhs_spatial_sizes
  // The window, per spatial dimension.
  int64_t strides[kMaxConvSpatial] = {};
  int64_t padding_low[kMaxConvSpatial] = {};
  int64_t lhs_dilations[kMaxConvSpatial] = {};
  int64_t rhs_dilations[kMaxConvSpatial] = {};
  bool reversed[kMaxConvSpatial] = {};
  // Groups.
  int64_t group_features = 0;  // the kernel's input features (cg)
  int64_t group_out = 1;       // output features per group
  int64_t out_batch = 1;
  bool batch_grouped = false;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    int64_t index[kMaxRank] = {};
    int64_t rest = i;
    for (int32_t d = out_rank - 1; d >= 0; --d) {
      index[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    const int64_t b = index[out_batch_dim];
    const int64_t o = index[out_feature_dim];
    const int64_t group = o / group_out;
    const int64_t batch = batch_grouped ? group * out_batch + b : b;
    const int64_t first_feature = batch_grouped ? 0 : group * group_features;
    const int64_t lhs_base =
        batch * lhs_batch_stride + first_feature * lhs_feature_stride;
    const int64_t rhs_base = o * rhs_out_feature_stride;
    const ValueClass c = ClassOf(out_type);
    Value acc;
    for (int64_t t = 0; t < taps; ++t) {
      int64_t rest_t = t, lhs_at = lhs_base, rhs_at = rhs_base;
      bool inside = true;
      for (int32_t s = spatial - 1; s >= 0; --s) {
        const int64_t k = rest_t % rhs_spatial_sizes[s];
        rest_t /= rhs_spatial_sizes[s];
        // The position in the padded, lhs-dilated input.
        const int64_t dilated = index[out_spatial_dims[s]] * strides[s] +
                                k * rhs_dilations[s] - padding_low[s];
        const int64_t position = dilated / lhs_dilations[s];
        if (dilated < 0 || dilated % lhs_dilations[s] != 0 ||
            position >= lhs_spatial_sizes[s]) {
          inside = false;
          break;
        }
        lhs_at += position * lhs_spatial_strides[s];
        rhs_at += (reversed[s] ? rhs_spatial_sizes[s] - 1 - k : k) *
                  rhs_spatial_strides[s];
      }
      if (!inside) continue;
      for (int64_t f = 0; f < group_features; ++f) {
        const Value x =
            Convert(Load(lhs, lhs_at + f * lhs_feature_stride, lhs_type),
                    ClassOf(lhs_type), out_type);
        const Value y =
            Convert(Load(rhs, rhs_at + f * rhs_in_feature_stride, rhs_type),
                    ClassOf(rhs_type), out_type);
        if (c == ValueClass::kComplex) {
          acc.f += x.f * y.f - x.im * y.im;
          acc.im += x.f * y.im + x.im * y.f;
        } else if (c == ValueClass::kFloat) {
          acc.f += x.f * y.f;
        } else if (c == ValueClass::kSigned) {
          // Wraps as the stored integer would.
          acc.s = static_cast<int64_t>(static_cast<uint64_t>(acc.s) +
                                       static_cast<uint64_t>(x.s) *
                                           static_cast<uint64_t>(y.s));
        } else {
          acc.u += x.u * y.u;
        }
      }
    }
    Store(out, i, out_type, acc);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(lhs);
    visit(rhs);
    visit(out);
  }
};

// The im2col matrices of a convolution, one per group: row r = (batch b, output
// position q in row-major order), column c = (kernel position t, input
// feature f); the input element that kernel position meets at that output
// position, or zero where it meets padding or a hole of lhs dilation. Only
// the geometry of ConvolutionKernel is used (its types, pointers and group
// fields are not); elements are copied as bytes.
struct Im2colKernel {
  static constexpr const char* kName = "xffi.device.im2col";
  ConvolutionKernel geometry;
  const uint8_t* lhs = nullptr;
  uint8_t* cols = nullptr;
  int32_t element_size = 4;
  int64_t n = 0;          // rows x columns
  int64_t features = 1;   // C (of a group)
  int64_t positions = 1;  // output positions per batch element
  // Groups follow one another, each group_rows x columns, group g reading
  // the input from g x group_offset elements on.
  int64_t group_rows = 1;
  int64_t group_offset = 0;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t columns = geometry.taps * features;
    const int64_t group = i / (group_rows * columns);
    const int64_t r = i / columns % group_rows, c = i % columns;
    const int64_t b = r / positions;
    int64_t q = r % positions;
    int64_t t = c / features;
    const int64_t f = c % features;
    int64_t at = group * group_offset + b * geometry.lhs_batch_stride +
                 f * geometry.lhs_feature_stride;
    bool inside = true;
    for (int32_t s = geometry.spatial - 1; s >= 0; --s) {
      const int64_t out_size = geometry.out_dims[geometry.out_spatial_dims[s]];
      const int64_t o = q % out_size;
      q /= out_size;
      const int64_t k = t % geometry.rhs_spatial_sizes[s];
      t /= geometry.rhs_spatial_sizes[s];
      const int64_t dilated = o * geometry.strides[s] +
                              k * geometry.rhs_dilations[s] -
                              geometry.padding_low[s];
      const int64_t position = dilated / geometry.lhs_dilations[s];
      if (dilated < 0 || dilated % geometry.lhs_dilations[s] != 0 ||
          position >= geometry.lhs_spatial_sizes[s])
        inside = false;
      at += position * geometry.lhs_spatial_strides[s];
    }
    uint8_t* to = cols + i * element_size;
    if (!inside) {
      for (int32_t byte = 0; byte < element_size; ++byte) to[byte] = 0;
      return;
    }
    const uint8_t* from = lhs + at * element_size;
    for (int32_t byte = 0; byte < element_size; ++byte) to[byte] = from[byte];
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(lhs);
    visit(cols);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_CONVOLUTION_KERNEL_H_
