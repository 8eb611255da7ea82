// convolution: every layout, group count, stride, padding, dilation and
// reversal goes through one path, im2col + GEMM, in the compute type the
// result type implies (compute_cast.h).
//
// The input is packed channels-last, [batch][input positions][features], and
// the kernel [kernel positions][input features][output features] (flipped
// where the window is reversed), so one row of the im2col matrix (an output
// position of one batch element) is, per kernel position, a contiguous run
// of the group's input features or zeros (padding, or a hole between
// lhs-dilated elements). Per spatial dimension a table made at compile time
// maps (output index, kernel index) to the input index or -1, as
// reduce-window's does. The result [batch][output positions][features] is
// then one GEMM per feature or batch group and block of rows, with the
// group's slice of the kernel's columns; blocks bound the im2col buffer.
// Channels-first input and result (lax.conv's default NCHW) skip both
// repackings: per batch element and group, the kernel packed
// [out features][features x taps] times the transposed im2col matrix
// [features x taps][positions] gives the result's rows in place.
// Two shapes skip the im2col matrix: a 1x1 convolution without groups (the
// packed input is that matrix already) and a depthwise one (one feature per
// group would make GEMMs of one column: a direct loop along the features
// instead).
//
// The GEMM is oneDNN's for f32 when the build has it (dnnl_gemm.h), else
// OpenBLAS's (BSD-3) for float and complex types when the build found it,
// else Eigen's; integers use a plain loop whose 64-bit arithmetic wraps as
// XLA's does once stored. The im2col packing runs on the intra-op pool.
#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/blas_threads.h"
#include "cpu/byte_float_arithmetic.h"
#include "cpu/compute_cast.h"
#include "cpu/dnnl_convolution.h"
#include "cpu/dnnl_gemm.h"
#include "cpu/elementwise_loops.h"
#include "cpu/gemm_blocking.h"
#include "cpu/index_util.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"

#if XFFI_HAVE_CBLAS
#include <cblas.h>
#else
#include <Eigen/Core>
#endif

namespace xffi::cpu {
namespace {

// At most this many compute-type elements in one block of im2col rows.
constexpr int64_t kBlockElements = int64_t{1} << 21;

struct ConvPlan {
  ElementType lhs_type, rhs_type, result_type, compute;
  int64_t lhs_count = 0, rhs_count = 0, out_count = 0;
  int64_t features = 0;        // C: input features
  int64_t out_batch = 0;       // the result's batch (input batch / groups)
  int64_t out_features = 0;    // O
  int64_t groups = 1;          // feature_group_count * batch_group_count
  bool batch_grouped = false;  // groups split the batch, not the features
  int64_t group_features = 0;  // the kernel's input features
  int64_t group_out = 0;       // output features per group
  int64_t in_positions = 1, out_positions = 1;
  std::vector<int64_t> out_spatial, kernel_spatial, in_position_strides;
  std::vector<std::vector<int64_t>> tables;  // [out index * kernel + k]
  bool lhs_pack = false;
  CopyPlan lhs_plan, rhs_plan, out_plan;  // into/out of the packed forms
  int64_t rhs_offset = 0;                 // elements: reversed dims start last
  bool out_direct = false;  // the GEMM writes the result buffer itself
  bool depthwise = false;   // one input feature per feature group
  bool pointwise = false;   // 1x1, no groups: the input is its own im2col
  // Channels-first input and result: per batch element, the kernel
  // [out features][features x taps] times a transposed im2col matrix
  // [features x taps][positions], which `tap_table` ([tap][position] ->
  // input position or -1) fills.
  bool channels_first = false;
  std::vector<int64_t> tap_table;
  bool out_identity = false;
};

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// C[m, n] (ldc) = A[m, k] (lda) * B[k, n] (ldb), row-major.
template <typename T>
void GemmRows(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < m; ++i) {
      uint64_t* row = reinterpret_cast<uint64_t*>(c + i * ldc);
      std::fill(row, row + n, 0);
      for (int64_t p = 0; p < k; ++p) {
        const uint64_t av = static_cast<uint64_t>(a[i * lda + p]);
        if (av == 0) continue;
        const T* brow = b + p * ldb;
        for (int64_t j = 0; j < n; ++j)
          row[j] += av * static_cast<uint64_t>(brow[j]);
      }
    }
  } else {
    if constexpr (std::is_same_v<T, float>)
      if (DnnlSgemm(false, false, m, n, k, a, lda, b, ldb, c, ldc)) return;
#if XFFI_HAVE_CBLAS
    const int M = static_cast<int>(m), N = static_cast<int>(n),
              K = static_cast<int>(k), LDA = static_cast<int>(lda),
              LDB = static_cast<int>(ldb), LDC = static_cast<int>(ldc);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a,
                  LDA, b, LDB, 0.0f, c, LDC);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, a,
                  LDA, b, LDB, 0.0, c, LDC);
    } else {
      const T one(1), zero(0);
      if constexpr (std::is_same_v<T, std::complex<float>>)
        cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, &one, a,
                    LDA, b, LDB, &zero, c, LDC);
      else
        cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, &one, a,
                    LDA, b, LDB, &zero, c, LDC);
    }
#else
    using Mat =
        Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    Eigen::Map<Mat, 0, Stride> cm(c, m, n, Stride(ldc));
    cm.noalias() = Eigen::Map<const Mat, 0, Stride>(a, m, k, Stride(lda)) *
                   Eigen::Map<const Mat, 0, Stride>(b, k, n, Stride(ldb));
#endif
  }
}

// The product in fixed blocks of the result (cpu/gemm_blocking.h), one
// library call each. Blocks of the pool's choosing would not do: a
// library's sums can depend on the rows a call is given (oneDNN's differ
// between 64-row and larger calls), and the pool merged fixed 64-row blocks
// into one call per chunk, so four threads gave other bits than one.
// BLAS itself stays single-threaded (blas_threads.h).
template <typename T>
void Gemm(ThreadPool* pool, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  KeepBlasSingleThreaded();
  if (!ChosenGemmBlocksEnabled()) {
    // XFFI_GEMM_BLOCKS=rows, for A/B runs: the blocks before, whose bits
    // depend on the thread count.
    constexpr int64_t kRowBlock = 64;
    const int64_t blocks = (m + kRowBlock - 1) / kRowBlock;
    ParallelFor(pool, blocks,
                0.1 * static_cast<double>(std::min(m, kRowBlock) * n * k),
                [&](int64_t begin, int64_t end) {
                  const int64_t r0 = begin * kRowBlock;
                  const int64_t r1 = std::min(m, end * kRowBlock);
                  GemmRows<T>(r1 - r0, n, k, a + r0 * lda, lda, b, ldb,
                              c + r0 * ldc, ldc);
                });
    return;
  }
  const GemmBlocks cut = ChooseGemmBlocks(1, m, k, n);
  // About a tenth of a nanosecond per multiply-add on one core.
  const double block_nanos = 0.1 * static_cast<double>(cut.rows * cut.cols * k);
  ParallelFor(pool, cut.row_blocks * cut.col_blocks, block_nanos,
              [&](int64_t begin, int64_t end) {
                for (int64_t t = begin; t < end; ++t) {
                  const int64_t r0 = t / cut.col_blocks * cut.rows;
                  const int64_t c0 = t % cut.col_blocks * cut.cols;
                  GemmRows<T>(std::min(m, r0 + cut.rows) - r0,
                              std::min(n, c0 + cut.cols) - c0, k, a + r0 * lda,
                              lda, b + c0, ldb, c + r0 * ldc + c0, ldc);
                }
              });
}

// `data` in the compute type: in place when it already is, else converted
// into `buffer`.
template <typename T>
const T* AsCompute(ElementType type, ElementType compute, const void* data,
                   int64_t count, std::vector<T>& buffer) {
  if (type == compute) return static_cast<const T*>(data);
  buffer.resize(static_cast<size_t>(count));
  const char* src = static_cast<const char*>(data);
  const int64_t size = static_cast<int64_t>(ElementByteSize(type));
  for (int64_t i = 0; i < count; ++i)
    buffer[static_cast<size_t>(i)] = LoadAs<T>(type, src + i * size);
  return buffer.data();
}

// For each row in [row_begin, row_end) (a batch element and output
// position), row(r) and then, for each kernel position in order,
// tap(r, input position or -1 on padding and holes).
template <typename Row, typename Tap>
void ForEachTap(const ConvPlan& p, int64_t row_begin, int64_t row_end,
                Row&& row, Tap&& tap) {
  const size_t spatial = p.out_spatial.size();
  std::vector<int64_t> out_index(spatial), k_index(spatial);
  for (int64_t r = row_begin; r < row_end; ++r) {
    int64_t position = r % p.out_positions;
    for (size_t d = spatial; d-- > 0;) {
      out_index[d] = position % p.out_spatial[d];
      position /= p.out_spatial[d];
    }
    row(r);
    std::fill(k_index.begin(), k_index.end(), 0);
    do {
      int64_t in_position = 0;
      bool inside = true;
      for (size_t d = 0; d < spatial && inside; ++d) {
        const int64_t i = p.tables[d][static_cast<size_t>(
            out_index[d] * p.kernel_spatial[d] + k_index[d])];
        inside = i >= 0;
        in_position += i * p.in_position_strides[d];
      }
      tap(r, inside ? in_position : -1);
    } while (NextIndex(k_index, p.kernel_spatial));
  }
}

// Rows [row_begin, row_end) of group `group`'s im2col matrix into `cols`
// (row first_row first).
template <typename T>
void Im2col(const ConvPlan& p, const T* x, int64_t group, int64_t row_begin,
            int64_t row_end, int64_t first_row, T* cols) {
  const int64_t cg = p.group_features;
  const int64_t kcols = cg * Product(p.kernel_spatial);
  const int64_t batch_offset = p.batch_grouped ? group * p.out_batch : 0;
  const int64_t feature_offset = p.batch_grouped ? 0 : group * cg;
  const T* base = nullptr;
  T* dst = nullptr;
  ForEachTap(
      p, row_begin, row_end,
      [&](int64_t r) {
        base =
            x +
            (batch_offset + r / p.out_positions) * p.in_positions * p.features +
            feature_offset;
        dst = cols + (r - first_row) * kcols;
      },
      [&](int64_t, int64_t in_position) {
        if (in_position >= 0)
          std::copy(base + in_position * p.features,
                    base + in_position * p.features + cg, dst);
        else
          std::fill(dst, dst + cg, T(0));
        dst += cg;
      });
}

// Depthwise (one input feature per group; `multiplier` outputs per feature):
// per output row, a multiply-add of each tap's features by the kernel's row
// for that tap, along the contiguous feature dimension.
template <typename T>
void Depthwise(const ConvPlan& p, const T* x, const T* w, T* y,
               int64_t row_begin, int64_t row_end) {
  const int64_t features = p.features, outs = p.out_features;
  const int64_t multiplier = p.group_out;
  T* out = nullptr;
  int64_t tap_index = 0;
  const T* base = nullptr;
  ForEachTap(
      p, row_begin, row_end,
      [&](int64_t r) {
        out = y + r * outs;
        std::fill(out, out + outs, T(0));
        base = x + r / p.out_positions * p.in_positions * features;
        tap_index = 0;
      },
      [&](int64_t, int64_t in_position) {
        const T* wk = w + tap_index++ * outs;
        if (in_position < 0) return;
        const T* in = base + in_position * features;
        if (multiplier == 1) {
          for (int64_t c = 0; c < features; ++c) out[c] += in[c] * wk[c];
          return;
        }
        for (int64_t c = 0; c < features; ++c)
          for (int64_t m = 0; m < multiplier; ++m)
            out[c * multiplier + m] += in[c] * wk[c * multiplier + m];
      });
}

template <typename T>
Status RunConvolution(const ConvPlan& p, const KernelArgs& args) {
  if (p.out_count == 0) return Status::Ok();
  std::vector<T> lhs_converted, lhs_packed, rhs_converted, y_buffer;
  const T* x = AsCompute<T>(p.lhs_type, p.compute, args.operands[0].data,
                            p.lhs_count, lhs_converted);
  if (p.lhs_pack && p.lhs_count > 0) {
    lhs_packed.resize(static_cast<size_t>(p.lhs_count));
    p.lhs_plan.Run(lhs_packed.data(), x);
    x = lhs_packed.data();
  }
  const T* k = AsCompute<T>(p.rhs_type, p.compute, args.operands[1].data,
                            p.rhs_count, rhs_converted);
  std::vector<T> w(static_cast<size_t>(p.rhs_count));
  if (p.rhs_count > 0) p.rhs_plan.Run(w.data(), k + p.rhs_offset);

  T* y = static_cast<T*>(args.results[0].data);
  if (!p.out_direct) {
    y_buffer.resize(static_cast<size_t>(p.out_count));
    y = y_buffer.data();
  }
  const int64_t rows = p.out_batch * p.out_positions;
  const int64_t kcols = p.group_features * Product(p.kernel_spatial);
  if (kcols == 0) {
    std::fill(y, y + p.out_count, T(0));
  } else if (p.channels_first) {
    const int64_t taps = Product(p.kernel_spatial);
    const int64_t positions = p.out_positions;
    std::vector<T> cols(static_cast<size_t>(kcols * positions));
    for (int64_t n = 0; n < p.out_batch; ++n)
      for (int64_t g = 0; g < p.groups; ++g) {
        const int64_t batch = n + (p.batch_grouped ? g * p.out_batch : 0);
        const int64_t first = p.batch_grouped ? 0 : g * p.group_features;
        const T* xb = x + (batch * p.features + first) * p.in_positions;
        ParallelFor(args.pool, kcols * positions,
                    [&](int64_t begin, int64_t end) {
                      for (int64_t row = Ceil(begin, positions);
                           row < Ceil(end, positions); ++row) {
                        const T* xc = xb + row / taps * p.in_positions;
                        const int64_t* map =
                            p.tap_table.data() + row % taps * positions;
                        T* dst = cols.data() + row * positions;
                        for (int64_t q = 0; q < positions; ++q)
                          dst[q] = map[q] >= 0 ? xc[map[q]] : T(0);
                      }
                    });
        Gemm<T>(
            args.pool, p.group_out, positions, kcols,
            w.data() + g * p.group_out * kcols, kcols, cols.data(), positions,
            y + (n * p.out_features + g * p.group_out) * positions, positions);
      }
  } else if (p.depthwise) {
    ParallelFor(args.pool, rows * p.out_features,
                [&](int64_t begin, int64_t end) {
                  Depthwise(p, x, w.data(), y, Ceil(begin, p.out_features),
                            Ceil(end, p.out_features));
                });
  } else {
    const int64_t block = std::clamp<int64_t>(kBlockElements / kcols, 1, rows);
    std::vector<T> cols(p.pointwise ? 0 : static_cast<size_t>(block * kcols));
    for (int64_t g = 0; g < p.groups; ++g)
      for (int64_t r0 = 0; r0 < rows; r0 += block) {
        const int64_t n = std::min(block, rows - r0);
        const T* a = x + r0 * kcols;
        if (!p.pointwise) {
          // Each chunk of elements packs the rows that start in it.
          ParallelFor(args.pool, n * kcols, [&](int64_t begin, int64_t end) {
            Im2col(p, x, g, r0 + Ceil(begin, kcols), r0 + Ceil(end, kcols), r0,
                   cols.data());
          });
          a = cols.data();
        }
        Gemm<T>(args.pool, n, p.group_out, kcols, a, kcols,
                w.data() + g * p.group_out, p.out_features,
                y + r0 * p.out_features + g * p.group_out, p.out_features);
      }
  }
  if (p.out_direct) return Status::Ok();
  const void* src = y;
  std::vector<char> converted;
  void* result = args.results[0].data;
  if (p.result_type != p.compute) {
    const int64_t size = static_cast<int64_t>(ElementByteSize(p.result_type));
    char* dst = static_cast<char*>(result);
    if (!p.out_identity) {
      converted.resize(static_cast<size_t>(p.out_count * size));
      dst = converted.data();
      src = dst;
    }
    if (std::is_same_v<T, float> && IsByteFloatType(p.result_type))
      StoreByteFloatProducts(p.result_type, reinterpret_cast<const float*>(y),
                             p.out_count, reinterpret_cast<uint8_t*>(dst));
    else
      for (int64_t i = 0; i < p.out_count; ++i)
        StoreFrom<T>(p.result_type, y[i], dst + i * size);
    if (p.out_identity) return Status::Ok();
  }
  p.out_plan.Run(result, src);
  return Status::Ok();
}

// The copy of an array of `shape` whose dimensions, taken in `order`, become
// a row-major array (dimensions in `reversed` read backwards; *offset is
// where in the source that copy starts, in elements). *identity: the copy
// changes nothing.
CopyPlan PackPlan(const Shape& shape, const std::vector<int64_t>& order,
                  const std::vector<bool>& reversed, size_t element_size,
                  int64_t* offset, bool* identity) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dims());
  std::vector<int64_t> dims, src;
  *offset = 0;
  *identity = true;
  int64_t last = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t d = order[i];
    int64_t stride = strides[static_cast<size_t>(d)];
    if (!reversed.empty() && reversed[i] && shape.dim(d) > 1) {
      *offset += (shape.dim(d) - 1) * stride;
      stride = -stride;
      *identity = false;
    }
    dims.push_back(shape.dim(d));
    src.push_back(stride);
    if (shape.dim(d) != 1) {
      if (d < last) *identity = false;
      last = d;
    }
  }
  return CopyPlan(dims, src, RowMajorStrides(dims), element_size);
}

// The convolution in oneDNN's terms when oneDNN can compute it in place of
// the im2col path: f32 throughout, at least one spatial dimension, no lhs
// dilation, batch groups, reversal or negative padding (oneDNN's forward
// convolution has none of them), not depthwise (the direct loop above is
// faster), nothing empty.
std::shared_ptr<const DnnlConvolution> MakeDnnlConvolution(
    const Instruction& inst, const ConvPlan& p) {
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& out = inst.shape();
  const ConvolutionDimensionNumbers& dn = inst.convolution_dimension_numbers;
  if (p.lhs_type != ElementType::kF32 || p.rhs_type != ElementType::kF32 ||
      p.result_type != ElementType::kF32 || p.batch_grouped || p.depthwise ||
      p.out_spatial.empty() || p.lhs_count == 0 || p.rhs_count == 0 ||
      p.out_count == 0)
    return nullptr;
  DnnlConvolutionShape shape;
  for (const WindowDimension& w : inst.window) {
    if (w.base_dilation != 1 || w.window_reversal || w.padding_low < 0 ||
        w.padding_high < 0)
      return nullptr;
    shape.window_strides.push_back(w.stride);
    shape.dilations.push_back(w.window_dilation);
    shape.padding_low.push_back(w.padding_low);
    shape.padding_high.push_back(w.padding_high);
  }
  // Dims of `s` in `order` and their row-major strides.
  auto take = [](const Shape& s, std::vector<int64_t> order,
                 std::vector<int64_t>& dims, std::vector<int64_t>& strides) {
    const std::vector<int64_t> row_major = RowMajorStrides(s.dims());
    for (int64_t d : order) {
      dims.push_back(s.dim(d));
      strides.push_back(row_major[static_cast<size_t>(d)]);
    }
  };
  auto with_spatial = [](std::vector<int64_t> order,
                         const std::vector<int64_t>& spatial) {
    order.insert(order.end(), spatial.begin(), spatial.end());
    return order;
  };
  take(lhs,
       with_spatial({dn.input_batch_dimension, dn.input_feature_dimension},
                    dn.input_spatial_dimensions),
       shape.src_dims, shape.src_strides);
  take(rhs,
       with_spatial({dn.kernel_output_feature_dimension,
                     dn.kernel_input_feature_dimension},
                    dn.kernel_spatial_dimensions),
       shape.weight_dims, shape.weight_strides);
  take(out,
       with_spatial({dn.output_batch_dimension, dn.output_feature_dimension},
                    dn.output_spatial_dimensions),
       shape.dst_dims, shape.dst_strides);
  shape.groups = inst.feature_group_count;
  return DnnlConvolution::Make(shape);
}

}  // namespace

StatusOr<Kernel> MakeConvolutionKernel(const Instruction& inst) {
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& out = inst.shape();
  const ConvolutionDimensionNumbers& dn = inst.convolution_dimension_numbers;
  ConvPlan p;
  p.lhs_type = lhs.element_type();
  p.rhs_type = rhs.element_type();
  p.result_type = out.element_type();
  if (IsComplexType(p.result_type))
    p.compute = p.result_type;
  else if (p.result_type == ElementType::kF64)
    p.compute = ElementType::kF64;
  else if (IsFloatingType(p.result_type))
    p.compute = ElementType::kF32;
  else if (IsIntegralType(p.result_type))
    p.compute = ElementType::kS64;
  else
    p.compute = ElementType::kInvalid;
  if (p.compute == ElementType::kInvalid ||
      ((IsComplexType(p.lhs_type) || IsComplexType(p.rhs_type)) &&
       !IsComplexType(p.result_type)))
    return Unimplemented("op " + inst.Describe() + ": convolution of " +
                         lhs.ToString(false) + " and " + rhs.ToString(false) +
                         " into " + out.ToString(false) +
                         " is not supported on CPU");
  const size_t compute_size = ElementByteSize(p.compute);
  p.lhs_count = Product(lhs.dims());
  p.rhs_count = Product(rhs.dims());
  p.out_count = Product(out.dims());

  p.features = lhs.dim(dn.input_feature_dimension);
  p.out_batch = out.dim(dn.output_batch_dimension);
  p.out_features = out.dim(dn.output_feature_dimension);
  p.batch_grouped = inst.batch_group_count > 1;
  p.groups = inst.feature_group_count * inst.batch_group_count;
  p.group_features = rhs.dim(dn.kernel_input_feature_dimension);
  p.group_out = p.out_features / p.groups;
  // Many groups of one feature make GEMMs of one column: direct instead.
  p.depthwise =
      !p.batch_grouped && p.groups > 1 && p.group_features == 1 &&
      (p.compute == ElementType::kF32 || p.compute == ElementType::kF64);

  const size_t spatial = dn.input_spatial_dimensions.size();
  std::vector<int64_t> in_spatial;
  for (size_t s = 0; s < spatial; ++s) {
    in_spatial.push_back(lhs.dim(dn.input_spatial_dimensions[s]));
    p.out_spatial.push_back(out.dim(dn.output_spatial_dimensions[s]));
    p.kernel_spatial.push_back(rhs.dim(dn.kernel_spatial_dimensions[s]));
  }
  p.in_positions = Product(in_spatial);
  p.out_positions = Product(p.out_spatial);
  p.in_position_strides = RowMajorStrides(in_spatial);
  for (size_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = inst.window[s];
    std::vector<int64_t> table;
    for (int64_t o = 0; o < p.out_spatial[s]; ++o)
      for (int64_t k = 0; k < p.kernel_spatial[s]; ++k) {
        const int64_t at = o * w.stride + k * w.window_dilation - w.padding_low;
        const int64_t i = at / w.base_dilation;
        table.push_back(
            at < 0 || at % w.base_dilation != 0 || i >= in_spatial[s] ? -1 : i);
      }
    p.tables.push_back(std::move(table));
  }

  p.pointwise = p.groups == 1 && p.in_positions == p.out_positions;
  for (const WindowDimension& w : inst.window)
    p.pointwise &= w.size == 1 && w.stride == 1 && w.padding_low == 0 &&
                   w.padding_high == 0 && w.base_dilation == 1;

  int64_t offset = 0;
  std::vector<int64_t> order = {dn.input_batch_dimension};
  order.insert(order.end(), dn.input_spatial_dimensions.begin(),
               dn.input_spatial_dimensions.end());
  order.push_back(dn.input_feature_dimension);
  bool identity = false;
  p.lhs_plan = PackPlan(lhs, order, {}, compute_size, &offset, &identity);
  p.lhs_pack = !identity;

  order = dn.kernel_spatial_dimensions;
  order.push_back(dn.kernel_input_feature_dimension);
  order.push_back(dn.kernel_output_feature_dimension);
  std::vector<bool> reversed;
  for (const WindowDimension& w : inst.window)
    reversed.push_back(w.window_reversal);
  reversed.resize(order.size(), false);
  p.rhs_plan =
      PackPlan(rhs, order, reversed, compute_size, &p.rhs_offset, &identity);

  // The packed result's dimensions, in the result's order of strides.
  order = {dn.output_batch_dimension};
  order.insert(order.end(), dn.output_spatial_dimensions.begin(),
               dn.output_spatial_dimensions.end());
  order.push_back(dn.output_feature_dimension);
  const std::vector<int64_t> out_strides = RowMajorStrides(out.dims());
  std::vector<int64_t> packed_dims, dst_strides;
  p.out_identity = true;
  int64_t last = -1;
  for (int64_t d : order) {
    packed_dims.push_back(out.dim(d));
    dst_strides.push_back(out_strides[static_cast<size_t>(d)]);
    if (out.dim(d) != 1) {
      if (d < last) p.out_identity = false;
      last = d;
    }
  }
  p.out_plan = CopyPlan(packed_dims, RowMajorStrides(packed_dims), dst_strides,
                        ElementByteSize(p.result_type));
  p.out_direct = p.out_identity && p.result_type == p.compute;

  // lax.conv's default NCHW/OIHW/NCHW: the channels-first form needs no
  // repacking of the input or the result.
  std::vector<int64_t> input_order = {dn.input_batch_dimension,
                                      dn.input_feature_dimension};
  input_order.insert(input_order.end(), dn.input_spatial_dimensions.begin(),
                     dn.input_spatial_dimensions.end());
  bool input_first = false;
  PackPlan(lhs, input_order, {}, compute_size, &offset, &input_first);
  std::vector<int64_t> output_order = {dn.output_batch_dimension,
                                       dn.output_feature_dimension};
  output_order.insert(output_order.end(), dn.output_spatial_dimensions.begin(),
                      dn.output_spatial_dimensions.end());
  bool output_first = false;
  PackPlan(out, output_order, {}, compute_size, &offset, &output_first);
  const int64_t taps = Product(p.kernel_spatial);
  if (input_first && output_first && !p.depthwise && !p.pointwise &&
      taps * p.out_positions <= kBlockElements) {
    p.channels_first = true;
    p.lhs_pack = false;
    order = {dn.kernel_output_feature_dimension,
             dn.kernel_input_feature_dimension};
    order.insert(order.end(), dn.kernel_spatial_dimensions.begin(),
                 dn.kernel_spatial_dimensions.end());
    reversed.assign(2, false);
    for (const WindowDimension& w : inst.window)
      reversed.push_back(w.window_reversal);
    p.rhs_plan =
        PackPlan(rhs, order, reversed, compute_size, &p.rhs_offset, &identity);
    p.out_identity = true;
    p.out_direct = p.result_type == p.compute;
    p.tap_table.reserve(static_cast<size_t>(taps * p.out_positions));
    ForEachTap(
        p, 0, p.out_positions, [](int64_t) {},
        [&](int64_t, int64_t in_position) {
          p.tap_table.push_back(in_position);
        });
    // ForEachTap visits [position][tap]; the GEMM reads [tap][position].
    std::vector<int64_t> by_tap(p.tap_table.size());
    for (int64_t q = 0; q < p.out_positions; ++q)
      for (int64_t t = 0; t < taps; ++t)
        by_tap[static_cast<size_t>(t * p.out_positions + q)] =
            p.tap_table[static_cast<size_t>(q * taps + t)];
    p.tap_table = std::move(by_tap);
  }

  switch (p.compute) {
    case ElementType::kF32:
      if (auto dnnl = MakeDnnlConvolution(inst, p))
        return Kernel([p = std::move(p), dnnl](const KernelArgs& args) {
          if (dnnl->Run(static_cast<const float*>(args.operands[0].data),
                        static_cast<const float*>(args.operands[1].data),
                        static_cast<float*>(args.results[0].data), args.pool))
            return Status::Ok();
          return RunConvolution<float>(p, args);
        });
      return Kernel([p = std::move(p)](const KernelArgs& args) {
        return RunConvolution<float>(p, args);
      });
    case ElementType::kF64:
      return Kernel([p = std::move(p)](const KernelArgs& args) {
        return RunConvolution<double>(p, args);
      });
    case ElementType::kC64:
      return Kernel([p = std::move(p)](const KernelArgs& args) {
        return RunConvolution<std::complex<float>>(p, args);
      });
    case ElementType::kC128:
      return Kernel([p = std::move(p)](const KernelArgs& args) {
        return RunConvolution<std::complex<double>>(p, args);
      });
    default:
      return Kernel([p = std::move(p)](const KernelArgs& args) {
        return RunConvolution<int64_t>(p, args);
      });
  }
}

}  // namespace xffi::cpu
