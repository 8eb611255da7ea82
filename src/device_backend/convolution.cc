#include "device_backend/convolution.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "device_backend/convolution_kernel.h"
#include "device_backend/dot_as_gemm.h"
#include "runtime/status_macros.h"

namespace xffi::device_backend {
namespace {

// At most this many bytes of im2col matrix; larger ones run the direct
// functor rather than take that much scratch.
constexpr size_t kMaxIm2colBytes = size_t{256} << 20;

// Output features per group below which a grouped convolution runs the
// direct functor (see GemmConvolutionLauncher).
constexpr int64_t kMinGroupOutputsForGemm = 2;

// A convolution of one GEMM type as im2col (scratch) times the kernel
// relaid out [groups, kernel positions, input features, output features]
// (scratch), one batch member of the GEMM per group, into the result when
// it is laid out [groups, batch, positions, features] (one group: [batch,
// positions, features]), else into scratch and then copied into the
// result's order. Feature group g reads input features [g·cg, (g+1)·cg);
// batch group g reads input batch elements [g·B, (g+1)·B) and every
// feature (convolution_kernel.h). nullopt where that does not apply: types
// cuBLAS lacks, no scratch, too many dimensions to relay out, or an im2col
// matrix above kMaxIm2colBytes.
std::optional<Launcher> GemmConvolutionLauncher(
    const Instruction& op, const ConvolutionKernel& geometry,
    const std::vector<compiler::BufferId>& operands, compiler::BufferId result,
    const ReserveScratch& scratch) {
  const Shape& lhs = op.operand(0)->shape();
  const Shape& rhs = op.operand(1)->shape();
  const Shape& out = op.shape();
  const ConvolutionDimensionNumbers& dn = op.convolution_dimension_numbers;
  if (!scratch) return std::nullopt;
  std::optional<device::GemmType> ab = GemmTypeOf(lhs.element_type());
  std::optional<device::GemmType> c = GemmTypeOf(out.element_type());
  if (!ab || !c || rhs.element_type() != lhs.element_type())
    return std::nullopt;
  device::Gemm gemm;
  gemm.ab_type = *ab;
  gemm.c_type = *c;
  if (!device::ValidateGemm(gemm).ok()) return std::nullopt;
  const int64_t groups = op.feature_group_count * op.batch_group_count;
  // Groups of one output feature (depthwise convolutions and their weight
  // gradients) would copy every input element into im2col for a product of
  // one column: the direct functor does the same multiplications without
  // the copy (5x faster on SimDevice for conv_depthwise).
  if (groups > 1 && geometry.group_out < kMinGroupOutputsForGemm)
    return std::nullopt;
  // A leading group dimension in the relaid kernel and the product.
  const size_t group_dims = groups > 1 ? 1 : 0;
  if (geometry.spatial + 2 + static_cast<int32_t>(group_dims) > kMaxRank)
    return std::nullopt;
  const int64_t features = geometry.group_features;
  const int64_t out_features = out.dim(dn.output_feature_dimension);
  const int64_t group_out = geometry.group_out;
  const int64_t batch = out.dim(dn.output_batch_dimension);
  const int64_t positions = batch == 0 || out_features == 0
                                ? 0
                                : out.num_elements() / (batch * out_features);
  gemm.m = batch * positions;
  gemm.n = group_out;
  gemm.k = geometry.taps * features;
  gemm.batch = groups;
  const size_t element_size = ElementByteSize(lhs.element_type());
  const size_t cols_bytes =
      static_cast<size_t>(groups * gemm.m * gemm.k) * element_size;
  if (cols_bytes > kMaxIm2colBytes) return std::nullopt;

  Im2colKernel im2col;
  im2col.geometry = geometry;
  im2col.element_size = static_cast<int32_t>(element_size);
  im2col.n = groups * gemm.m * gemm.k;
  im2col.features = features;
  im2col.positions = positions;
  im2col.group_rows = gemm.m;
  im2col.group_offset = geometry.batch_grouped
                            ? batch * geometry.lhs_batch_stride
                            : features * geometry.lhs_feature_stride;

  // The kernel as [groups, kernel positions..., input features, output
  // features of the group]: a reversed spatial dimension is read backwards.
  StridedCopyKernel weights;
  weights.element_size = static_cast<int32_t>(element_size);
  weights.n = rhs.num_elements();
  const std::vector<int64_t> rhs_strides = RowMajorStrides(rhs.dims());
  const int64_t rhs_out_stride =
      rhs_strides[static_cast<size_t>(dn.kernel_output_feature_dimension)];
  std::vector<int64_t> packed, sources;
  if (group_dims) {
    packed.push_back(groups);
    sources.push_back(group_out * rhs_out_stride);
  }
  for (size_t s = 0; s < dn.kernel_spatial_dimensions.size(); ++s) {
    const int64_t d = dn.kernel_spatial_dimensions[s];
    const int64_t stride = rhs_strides[static_cast<size_t>(d)];
    const bool reversed = op.window[s].window_reversal;
    packed.push_back(rhs.dim(d));
    sources.push_back(reversed ? -stride : stride);
    if (reversed && rhs.dim(d) > 0)
      weights.src_offset += (rhs.dim(d) - 1) * stride;
  }
  packed.push_back(features);
  sources.push_back(
      rhs_strides[static_cast<size_t>(dn.kernel_input_feature_dimension)]);
  packed.push_back(group_out);
  sources.push_back(rhs_out_stride);
  std::vector<int64_t> packed_strides = RowMajorStrides(packed);
  weights.rank = static_cast<int32_t>(packed.size());
  for (size_t i = 0; i < packed.size(); ++i) {
    weights.dims[i] = packed[i];
    weights.src_strides[i] = sources[i];
    weights.dst_strides[i] = packed_strides[i];
  }

  // The product [groups, batch, positions..., features] into the result's
  // order: output feature g·group_out + f.
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dims());
  const int64_t feature_stride =
      out_strides[static_cast<size_t>(dn.output_feature_dimension)];
  packed.clear();
  std::vector<int64_t> destinations;
  if (group_dims) {
    packed.push_back(groups);
    destinations.push_back(group_out * feature_stride);
  }
  packed.push_back(batch);
  destinations.push_back(
      out_strides[static_cast<size_t>(dn.output_batch_dimension)]);
  for (int64_t d : dn.output_spatial_dimensions) {
    packed.push_back(out.dim(d));
    destinations.push_back(out_strides[static_cast<size_t>(d)]);
  }
  packed.push_back(group_out);
  destinations.push_back(feature_stride);
  const std::vector<int64_t> product_strides = RowMajorStrides(packed);
  StridedCopyKernel relayout;
  relayout.element_size =
      static_cast<int32_t>(ElementByteSize(out.element_type()));
  relayout.n = out.num_elements();
  relayout.rank = static_cast<int32_t>(packed.size());
  bool in_place = true;
  for (size_t i = 0; i < packed.size(); ++i) {
    relayout.dims[i] = packed[i];
    relayout.src_strides[i] = product_strides[i];
    relayout.dst_strides[i] = destinations[i];
    if (packed[i] != 1 && relayout.src_strides[i] != relayout.dst_strides[i])
      in_place = false;
  }

  const compiler::BufferId cols = scratch(cols_bytes);
  const compiler::BufferId packed_weights = scratch(rhs.byte_size());
  const compiler::BufferId product =
      in_place ? result : scratch(out.byte_size());
  gemm.a = {nullptr, false, std::max<int64_t>(gemm.k, 1), gemm.m * gemm.k};
  gemm.b = {nullptr, false, std::max<int64_t>(gemm.n, 1), gemm.k * gemm.n};
  gemm.ldc = std::max<int64_t>(gemm.n, 1);
  gemm.c_batch_stride = gemm.m * gemm.n;
  const size_t result_bytes = out.byte_size();
  const compiler::BufferId lhs_id = operands[0], rhs_id = operands[1];
  return Launcher([gemm, im2col, weights, relayout, in_place, cols,
                   packed_weights, product, lhs_id, rhs_id, result,
                   result_bytes](device::Stream& stream,
                                 void* const* addresses) mutable {
    if (result_bytes == 0) return Status::Ok();
    // An empty contraction: every output is an empty sum.
    if (gemm.k == 0) return stream.Memset(addresses[result], 0, result_bytes);
    im2col.lhs = static_cast<const uint8_t*>(addresses[lhs_id]);
    im2col.cols = static_cast<uint8_t*>(addresses[cols]);
    XFFI_RETURN_IF_ERROR(
        LaunchKernel(stream, Im2colKernel::kName, im2col.n, im2col));
    weights.src = static_cast<const uint8_t*>(addresses[rhs_id]);
    weights.dst = static_cast<uint8_t*>(addresses[packed_weights]);
    XFFI_RETURN_IF_ERROR(
        LaunchKernel(stream, StridedCopyKernel::kName, weights.n, weights));
    gemm.a.data = addresses[cols];
    gemm.b.data = addresses[packed_weights];
    gemm.c = addresses[product];
    XFFI_RETURN_IF_ERROR(stream.MatrixMultiply(gemm));
    if (in_place) return Status::Ok();
    relayout.src = static_cast<const uint8_t*>(addresses[product]);
    relayout.dst = static_cast<uint8_t*>(addresses[result]);
    return LaunchKernel(stream, StridedCopyKernel::kName, relayout.n, relayout);
  });
}

}  // namespace
StatusOr<Launcher> ConvolutionLauncher(
    const Instruction& op, const std::vector<compiler::BufferId>& operands,
    compiler::BufferId result, const ReserveScratch& scratch) {
  const Shape& lhs = op.operand(0)->shape();
  const Shape& rhs = op.operand(1)->shape();
  const Shape& out = op.shape();
  const ConvolutionDimensionNumbers& dn = op.convolution_dimension_numbers;
  ConvolutionKernel kernel;
  StatusOr<DType> lhs_type = TypeOf(op, lhs);
  if (!lhs_type.ok()) return lhs_type.status();
  StatusOr<DType> rhs_type = TypeOf(op, rhs);
  if (!rhs_type.ok()) return rhs_type.status();
  StatusOr<DType> out_type = TypeOf(op, out);
  if (!out_type.ok()) return out_type.status();
  const ValueClass out_class = ClassOf(*out_type);
  if (*out_type == DType::kPred ||
      (out_class != ValueClass::kComplex &&
       (ClassOf(*lhs_type) == ValueClass::kComplex ||
        ClassOf(*rhs_type) == ValueClass::kComplex)))
    return Unsupported(op, "a convolution of " + lhs.ToString(false) + " and " +
                               rhs.ToString(false) + " into " +
                               out.ToString(false));
  kernel.lhs_type = *lhs_type;
  kernel.rhs_type = *rhs_type;
  kernel.out_type = *out_type;
  const size_t spatial = dn.input_spatial_dimensions.size();
  if (spatial > static_cast<size_t>(kMaxConvSpatial) || out.rank() > kMaxRank ||
      op.window.size() != spatial ||
      dn.kernel_spatial_dimensions.size() != spatial ||
      dn.output_spatial_dimensions.size() != spatial)
    return Unsupported(op, "more than 6 spatial dimensions");
  if (op.feature_group_count < 1 || op.batch_group_count < 1)
    return Unsupported(op, "a group count below 1");
  const int64_t groups = op.feature_group_count * op.batch_group_count;
  const int64_t out_features = out.dim(dn.output_feature_dimension);
  if (out_features % groups != 0)
    return Unsupported(op, "output features not a multiple of the groups");
  kernel.n = out.num_elements();
  kernel.out_rank = static_cast<int32_t>(out.rank());
  for (int64_t d = 0; d < out.rank(); ++d) kernel.out_dims[d] = out.dim(d);
  kernel.out_batch_dim = static_cast<int32_t>(dn.output_batch_dimension);
  kernel.out_feature_dim = static_cast<int32_t>(dn.output_feature_dimension);
  kernel.spatial = static_cast<int32_t>(spatial);
  const std::vector<int64_t> lhs_strides = RowMajorStrides(lhs.dims());
  const std::vector<int64_t> rhs_strides = RowMajorStrides(rhs.dims());
  auto at = [](const std::vector<int64_t>& v, int64_t d) {
    return v[static_cast<size_t>(d)];
  };
  kernel.lhs_batch_stride = at(lhs_strides, dn.input_batch_dimension);
  kernel.lhs_feature_stride = at(lhs_strides, dn.input_feature_dimension);
  kernel.rhs_in_feature_stride =
      at(rhs_strides, dn.kernel_input_feature_dimension);
  kernel.rhs_out_feature_stride =
      at(rhs_strides, dn.kernel_output_feature_dimension);
  for (size_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = op.window[s];
    if (w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1)
      return Unsupported(op, "a window stride or dilation below 1");
    kernel.out_spatial_dims[s] =
        static_cast<int32_t>(dn.output_spatial_dimensions[s]);
    kernel.lhs_spatial_strides[s] =
        at(lhs_strides, dn.input_spatial_dimensions[s]);
    kernel.lhs_spatial_sizes[s] = lhs.dim(dn.input_spatial_dimensions[s]);
    kernel.rhs_spatial_strides[s] =
        at(rhs_strides, dn.kernel_spatial_dimensions[s]);
    kernel.rhs_spatial_sizes[s] = rhs.dim(dn.kernel_spatial_dimensions[s]);
    kernel.taps *= kernel.rhs_spatial_sizes[s];
    kernel.strides[s] = w.stride;
    kernel.padding_low[s] = w.padding_low;
    kernel.lhs_dilations[s] = w.base_dilation;
    kernel.rhs_dilations[s] = w.window_dilation;
    kernel.reversed[s] = w.window_reversal;
  }
  kernel.group_features = rhs.dim(dn.kernel_input_feature_dimension);
  kernel.group_out = out_features / groups;
  kernel.out_batch = out.dim(dn.output_batch_dimension);
  kernel.batch_grouped = op.batch_group_count > 1;
  if (std::optional<Launcher> gemm =
          GemmConvolutionLauncher(op, kernel, operands, result, scratch))
    return std::move(*gemm);
  const compiler::BufferId lhs_id = operands[0], rhs_id = operands[1];
  return Launcher([kernel, lhs_id, rhs_id, result](
                      device::Stream& stream, void* const* addresses) mutable {
    kernel.lhs = static_cast<const uint8_t*>(addresses[lhs_id]);
    kernel.rhs = static_cast<const uint8_t*>(addresses[rhs_id]);
    kernel.out = static_cast<uint8_t*>(addresses[result]);
    return LaunchKernel(stream, ConvolutionKernel::kName, kernel.n, kernel);
  });
}

}  // namespace xffi::device_backend
