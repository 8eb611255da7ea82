// dot (dot_general): both operands are viewed as batches of matrices, lhs
// [batch, m, k] and rhs [batch, k, n], whose product is the result laid out
// [batch, m, n] (the result's row-major order). An operand already in that
// order, or in [batch, k, m] / [batch, n, k] order, is used in place (the
// latter as a transposed map); any other order is packed once per run.
// f32 products go through oneDNN's GEMM when the build has oneDNN
// (cpu/dnnl_gemm.h), f64 ones (and f32 without oneDNN) through OpenBLAS's
// when the build links OpenBLAS (measured 2.6x faster than Eigen on one core
// of this machine's build flags), other floating and complex products
// through Eigen (a plain loop for tiny ones) in the compute type the result
// type implies (f32 for f16/bf16 and narrower floats, so those accumulate in
// f32), split across the intra-op pool by batch and by fixed blocks of
// the result (the library GEMMs' blocks: cpu/gemm_blocking.h); products of
// 8-bit integers use oneDNN's s8 GEMM where it is exact (s8/u8 x s8 on VNNI
// CPUs), else int16 multiply-adds (cpu/int8_dot.h); other integer products a
// plain loop with 64-bit wrapping accumulation.
#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <complex>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/blas_threads.h"
#include "cpu/byte_float_arithmetic.h"
#include "cpu/compute_cast.h"
#include "cpu/dnnl_gemm.h"
#include "cpu/gemm_blocking.h"
#include "cpu/index_util.h"
#include "cpu/int8_dot.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"
#include "ir/float_types.h"

namespace xffi::cpu {
namespace {

enum class ComputeKind { kF32, kF64, kC64, kC128, kInt };

// How one operand becomes a [batch, rows, cols] matrix stack.
struct OperandView {
  ElementType type;
  size_t element_size;
  bool convert;     // its type differs from the compute type
  bool pack;        // not in a usable order: permute into [batch, rows, cols]
  bool transposed;  // in [batch, cols, rows] order (no pack needed)
  CopyPlan plan;    // the packing permutation, in compute-type elements
};

// Whether the row-major array of `shape`, its dims taken in `order`, is
// already laid out in that order (unit dims do not change the layout, so
// they are ignored).
bool InRowMajorOrder(const Shape& shape, const std::vector<int64_t>& order) {
  int64_t last = -1;
  for (int64_t d : order) {
    if (shape.dim(d) == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

// `order`: the operand dims in [batch, rows, cols] order; `alt`: in [batch,
// cols, rows] order.
OperandView MakeView(const Shape& shape, const std::vector<int64_t>& order,
                     const std::vector<int64_t>& alt, ElementType compute,
                     size_t compute_size) {
  OperandView view;
  view.type = shape.element_type();
  view.element_size = ElementByteSize(view.type);
  view.convert = view.type != compute;
  auto is_identity = [&](const std::vector<int64_t>& perm) {
    return InRowMajorOrder(shape, perm);
  };
  view.transposed = false;
  view.pack = false;
  if (is_identity(order)) return view;
  if (is_identity(alt)) {
    view.transposed = true;
    return view;
  }
  view.pack = true;
  const std::vector<int64_t> strides = RowMajorStrides(shape.dims());
  std::vector<int64_t> dims, src;
  for (int64_t d : order) {
    dims.push_back(shape.dim(d));
    src.push_back(strides[static_cast<size_t>(d)]);
  }
  view.plan = CopyPlan(dims, src, RowMajorStrides(dims), compute_size);
  return view;
}

template <typename C>
const C* Prepare(const OperandView& view, const void* data, int64_t count,
                 std::vector<C>& converted, std::vector<C>& packed) {
  const C* p = static_cast<const C*>(data);
  if (view.convert) {
    converted.resize(static_cast<size_t>(count));
    const char* src = static_cast<const char*>(data);
    for (int64_t i = 0; i < count; ++i)
      converted[static_cast<size_t>(i)] = LoadAs<C>(
          view.type, src + i * static_cast<int64_t>(view.element_size));
    p = converted.data();
  }
  if (view.pack) {
    packed.resize(static_cast<size_t>(count));
    view.plan.Run(packed.data(), p);
    p = packed.data();
  }
  return p;
}

struct DotPlan {
  int64_t batch, m, k, n;
  OperandView lhs, rhs;
  ElementType result_type;
  bool result_direct;  // the result type is the compute type
};

// Below this many multiply-adds a plain loop beats Eigen's product, whose
// dispatch and GEMM blocking cost more than the arithmetic.
constexpr int64_t kSmallProduct = 4096;

// c[m, n] = a[m, k] * b[k, n]; a transposed is stored [k, m], b transposed
// [n, k]. The innermost loop runs along c's rows, so it vectorises.
template <typename C>
void SmallProduct(const C* a, const C* b, C* c, int64_t m, int64_t k, int64_t n,
                  bool a_transposed, bool b_transposed) {
  const int64_t a_row = a_transposed ? 1 : k, a_col = a_transposed ? m : 1;
  for (int64_t i = 0; i < m; ++i) {
    C* row = c + i * n;
    if (b_transposed) {  // b's rows are c's columns: dot products
      for (int64_t j = 0; j < n; ++j) {
        C sum(0);
        for (int64_t p = 0; p < k; ++p)
          sum += a[i * a_row + p * a_col] * b[j * k + p];
        row[j] = sum;
      }
      continue;
    }
    for (int64_t j = 0; j < n; ++j) row[j] = C(0);
    for (int64_t p = 0; p < k; ++p) {
      const C av = a[i * a_row + p * a_col];
      const C* b_row = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += av * b_row[j];
    }
  }
}

// Result blocks one task computes, and about what one multiply-add costs
// in Eigen's product (nanoseconds).
constexpr int64_t kRowBlock = 128, kColBlock = 1024;
constexpr double kMultiplyAddNanos = 0.1;

// c[r0 : r0 + rows, c0 : c0 + cols] of c[m, n] = a[m, k] * b[k, n] (a
// transposed stored [k, m], b transposed [n, k]), through Eigen: a
// transposed operand is a column-major map of the same numbers.
template <typename C>
void ProductBlock(const C* a, const C* b, C* c, int64_t m, int64_t k, int64_t n,
                  int64_t r0, int64_t rows, int64_t c0, int64_t cols,
                  bool a_transposed, bool b_transposed) {
  using Stride = Eigen::OuterStride<>;
  using Mat = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using MatT =
      Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  using Out = Eigen::Map<Mat, 0, Stride>;
  using In = Eigen::Map<const Mat, 0, Stride>;
  using InT = Eigen::Map<const MatT, 0, Stride>;
  Out out(c + r0 * n + c0, rows, cols, Stride(n));
  if (k == 0) {
    out.setZero();
    return;
  }
  if (!a_transposed) {
    In lhs(a + r0 * k, rows, k, Stride(k));
    if (!b_transposed)
      out.noalias() = lhs * In(b + c0, k, cols, Stride(n));
    else
      out.noalias() = lhs * InT(b + c0 * k, k, cols, Stride(k));
  } else {
    InT lhs(a + r0, rows, k, Stride(m));
    if (!b_transposed)
      out.noalias() = lhs * In(b + c0, k, cols, Stride(n));
    else
      out.noalias() = lhs * InT(b + c0 * k, k, cols, Stride(k));
  }
}

#ifdef XFFI_HAVE_OPENBLAS
}  // namespace
}  // namespace xffi::cpu

// OpenBLAS (BSD-3-Clause), already linked for LAPACK: its Fortran GEMM entry
// points and its thread count.
extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
            const int* k, const float* alpha, const float* a, const int* lda,
            const float* b, const int* ldb, const float* beta, float* c,
            const int* ldc);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
            const int* k, const double* alpha, const double* a, const int* lda,
            const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
void openblas_set_num_threads(int threads);
}

namespace xffi::cpu {
namespace {
#endif  // XFFI_HAVE_OPENBLAS

// The GEMM libraries this build can use for products of C: oneDNN for f32
// (its AVX-512 kernels whatever core type OpenBLAS is told to use; about
// twice OpenBLAS's Haswell kernels on this project's Zen 4), OpenBLAS for
// f32 without oneDNN and for f64.
template <typename C>
bool HaveLibraryGemm() {
  if constexpr (std::is_same_v<C, float>)
    if (HaveDnnl()) return true;
#ifdef XFFI_HAVE_OPENBLAS
  return std::is_same_v<C, float> || std::is_same_v<C, double>;
#else
  return false;
#endif
}

// Rows [r0, r1) and columns [c0, c1) of c[m, n] = a[m, k] * b[k, n],
// row-major (a transposed stored [k, m], b transposed [n, k]), through the
// library HaveLibraryGemm<C> names, or Eigen should that refuse the call.
template <typename C>
void LibraryProduct(const C* a, const C* b, C* c, int64_t m, int64_t k,
                    int64_t n, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                    bool a_transposed, bool b_transposed) {
  const int64_t ldb = b_transposed ? k : n, lda = a_transposed ? m : k;
  const int64_t rows = r1 - r0, cols = c1 - c0;
  const C* a_rows = a_transposed ? a + r0 : a + r0 * k;
  const C* b_cols = b_transposed ? b + c0 * k : b + c0;
  C* c_block = c + r0 * n + c0;
  if constexpr (std::is_same_v<C, float>)
    if (DnnlSgemm(a_transposed, b_transposed, rows, cols, k, a_rows, lda,
                  b_cols, ldb, c_block, n))
      return;
#ifdef XFFI_HAVE_OPENBLAS
  // In BLAS's column-major terms c^T = b^T a^T, the rows of c being columns
  // of c^T.
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  if (m <= kMaxInt && k <= kMaxInt && n <= kMaxInt) {
    const char op_b = b_transposed ? 'T' : 'N', op_a = a_transposed ? 'T' : 'N';
    const int lda_i = static_cast<int>(lda), ldb_i = static_cast<int>(ldb),
              n_i = static_cast<int>(n), k_i = static_cast<int>(k),
              rows_i = static_cast<int>(rows), cols_i = static_cast<int>(cols);
    const C one = 1, zero = 0;
    if constexpr (std::is_same_v<C, float>) {
      sgemm_(&op_b, &op_a, &cols_i, &rows_i, &k_i, &one, b_cols, &ldb_i, a_rows,
             &lda_i, &zero, c_block, &n_i);
      return;
    } else if constexpr (std::is_same_v<C, double>) {
      dgemm_(&op_b, &op_a, &cols_i, &rows_i, &k_i, &one, b_cols, &ldb_i, a_rows,
             &lda_i, &zero, c_block, &n_i);
      return;
    }
  }
#endif
  ProductBlock(a, b, c, m, k, n, r0, rows, c0, cols, a_transposed,
               b_transposed);
}

// About what one multiply-add costs in the library's GEMM (nanoseconds, one
// core), for splitting: oneDNN's f32 kernels measured 15.5 us for a [32,
// 256] x [256, 256] product on the project's Zen 5, 0.0074 ns each, and
// with Eigen's cost that RNN cell's product was split across the pool,
// where it took 19-22 us per product instead of 15.5. OpenBLAS keeps
// Eigen's figure.
template <typename C>
double LibraryMultiplyAddNanos() {
  if constexpr (std::is_same_v<C, float>)
    if (HaveDnnl()) return 0.0075;
  return kMultiplyAddNanos;
}

// The products of a batch through a single-threaded GEMM library, in tasks
// of (batch, block of result rows, block of result columns) on the pool;
// false when this build has no library for C.
template <typename C>
bool LibraryProducts(const DotPlan& plan, const C* a, const C* b, C* c,
                     ThreadPool* pool) {
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  if (!HaveLibraryGemm<C>() || k == 0) return false;
  KeepBlasSingleThreaded();
  // Fixed by the shapes (cpu/gemm_blocking.h), so each result element is
  // summed the same way whatever the number of threads.
  const GemmBlocks cut = ChosenGemmBlocksEnabled()
                             ? ChooseGemmBlocks(plan.batch, m, k, n)
                             : RowGemmBlocks(plan.batch, m, n);
  const int64_t col_blocks = cut.col_blocks;
  const int64_t blocks = cut.row_blocks * col_blocks;
  const double task_nanos = LibraryMultiplyAddNanos<C>() *
                            static_cast<double>(cut.rows) *
                            static_cast<double>(cut.cols * k);
  ParallelFor(pool, plan.batch * blocks, task_nanos,
              [&](int64_t begin, int64_t end) {
                for (int64_t t = begin; t < end; ++t) {
                  const int64_t i = t / blocks;
                  const int64_t r0 = t % blocks / col_blocks * cut.rows;
                  const int64_t c0 = t % col_blocks * cut.cols;
                  LibraryProduct(a + i * m * k, b + i * k * n, c + i * m * n, m,
                                 k, n, r0, std::min(m, r0 + cut.rows), c0,
                                 std::min(n, c0 + cut.cols),
                                 plan.lhs.transposed, plan.rhs.transposed);
                }
              });
  return true;
}

template <typename C>
Status RunFloatDot(const DotPlan& plan, const KernelArgs& args) {
  std::vector<C> lc, lp, rc, rp, out;
  const int64_t lhs_count = plan.batch * plan.m * plan.k;
  const int64_t rhs_count = plan.batch * plan.k * plan.n;
  const int64_t out_count = plan.batch * plan.m * plan.n;
  const C* a = Prepare<C>(plan.lhs, args.operands[0].data, lhs_count, lc, lp);
  const C* b = Prepare<C>(plan.rhs, args.operands[1].data, rhs_count, rc, rp);
  C* c = static_cast<C*>(args.results[0].data);
  if (!plan.result_direct) {
    out.resize(static_cast<size_t>(out_count));
    c = out.data();
  }
  const Eigen::Index m = plan.m, k = plan.k, n = plan.n;
  if (m * n * k > kSmallProduct && LibraryProducts(plan, a, b, c, args.pool)) {
  } else if (m * n * k <= kSmallProduct) {
    ParallelFor(args.pool, plan.batch, 0.5 * static_cast<double>(m * n * k),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i)
                    SmallProduct(a + i * m * k, b + i * k * n, c + i * m * n, m,
                                 k, n, plan.lhs.transposed,
                                 plan.rhs.transposed);
                });
  } else {
    // Tasks: (batch, block of result rows, block of result columns). The
    // blocks are fixed, so each result element is summed the same way
    // whatever the number of threads.
    const int64_t row_blocks = (m + kRowBlock - 1) / kRowBlock;
    const int64_t col_blocks = (n + kColBlock - 1) / kColBlock;
    const int64_t tasks = plan.batch * row_blocks * col_blocks;
    const double task_nanos =
        kMultiplyAddNanos * static_cast<double>(std::min(m, kRowBlock)) *
        static_cast<double>(std::min(n, kColBlock)) * static_cast<double>(k);
    ParallelFor(args.pool, tasks, task_nanos, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t i = t / (row_blocks * col_blocks);
        const int64_t r0 = (t / col_blocks) % row_blocks * kRowBlock;
        const int64_t c0 = t % col_blocks * kColBlock;
        ProductBlock(a + i * m * k, b + i * k * n, c + i * m * n, m, k, n, r0,
                     std::min(m, r0 + kRowBlock) - r0, c0,
                     std::min(n, c0 + kColBlock) - c0, plan.lhs.transposed,
                     plan.rhs.transposed);
      }
    });
  }
  if constexpr (std::is_same_v<C, float>) {
    if (IsByteFloatType(plan.result_type)) {
      StoreByteFloatProducts(plan.result_type, out.data(), out_count,
                             static_cast<uint8_t*>(args.results[0].data));
      return Status::Ok();
    }
  }
  if (!plan.result_direct) {
    char* dst = static_cast<char*>(args.results[0].data);
    const int64_t esize =
        static_cast<int64_t>(ElementByteSize(plan.result_type));
    for (int64_t i = 0; i < out_count; ++i)
      StoreFrom<C>(plan.result_type, out[static_cast<size_t>(i)],
                   dst + i * esize);
  }
  return Status::Ok();
}

Status RunIntegerDot(const DotPlan& plan, const KernelArgs& args) {
  std::vector<int64_t> lc, lp, rc, rp;
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const int64_t* a = Prepare<int64_t>(plan.lhs, args.operands[0].data,
                                      plan.batch * m * k, lc, lp);
  const int64_t* b = Prepare<int64_t>(plan.rhs, args.operands[1].data,
                                      plan.batch * k * n, rc, rp);
  // Unsigned arithmetic: products and sums wrap as XLA's integer dot does.
  char* dst = static_cast<char*>(args.results[0].data);
  const int64_t esize = static_cast<int64_t>(ElementByteSize(plan.result_type));
  // One task per result row (batch * m of them).
  ParallelFor(args.pool, plan.batch * m, 0.5 * static_cast<double>(k * n),
              [&](int64_t begin, int64_t end) {
                std::vector<uint64_t> row(static_cast<size_t>(n));
                for (int64_t t = begin; t < end; ++t) {
                  const int64_t bi = t / m, i = t % m;
                  const int64_t* ab = a + bi * m * k;
                  const int64_t* bb = b + bi * k * n;
                  std::fill(row.begin(), row.end(), 0);
                  for (int64_t p = 0; p < k; ++p) {
                    const uint64_t av = static_cast<uint64_t>(
                        plan.lhs.transposed ? ab[p * m + i] : ab[i * k + p]);
                    if (plan.rhs.transposed) {
                      for (int64_t j = 0; j < n; ++j)
                        row[static_cast<size_t>(j)] +=
                            av * static_cast<uint64_t>(bb[j * k + p]);
                    } else {
                      const int64_t* br = bb + p * n;
                      for (int64_t j = 0; j < n; ++j)
                        row[static_cast<size_t>(j)] +=
                            av * static_cast<uint64_t>(br[j]);
                    }
                  }
                  for (int64_t j = 0; j < n; ++j)
                    StoreFrom<int64_t>(
                        plan.result_type,
                        static_cast<int64_t>(row[static_cast<size_t>(j)]),
                        dst + ((bi * m + i) * n + j) * esize);
                }
              });
  return Status::Ok();
}

// 8-bit integer operands: each permuted (bytes as they are) to [batch, m, k]
// and [batch, n, k], then widened to int16 rows of padded depth.
struct Int8DotPlan {
  int64_t batch, m, k, n;
  bool lhs_signed, rhs_signed;
  CopyPlan lhs_plan, rhs_plan;
  ElementType result_type;
  // oneDNN's s8 GEMM instead of the int16 path: the operands as they are
  // where already [batch, m, k] (lhs) and [batch, k, n] or [batch, n, k]
  // (rhs, then `rhs_nk`), else the byte copies above.
  bool dnnl = false;
  bool lhs_direct = false, rhs_direct = false, rhs_nk = true;
};

// Widens [rows, k] bytes into [rows, kp] int16 rows, zero padded.
void WidenRows(const uint8_t* src, int64_t rows, int64_t k, int64_t kp,
               bool is_signed, int16_t* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* in = src + r * k;
    int16_t* out = dst + r * kp;
    if (is_signed)
      for (int64_t p = 0; p < k; ++p) out[p] = static_cast<int8_t>(in[p]);
    else
      for (int64_t p = 0; p < k; ++p) out[p] = in[p];
    std::fill(out + k, out + kp, int16_t{0});
  }
}

// Buffers one int8 dot kernel reuses from run to run (the widened operands
// cost page faults and zeroing when allocated afresh each time).
struct Int8DotScratch {
  std::mutex mutex;  // an executable runs one execution at a time; still
  std::vector<uint8_t> lhs_bytes, rhs_bytes;
  std::vector<int16_t> a, bt;
  std::vector<uint32_t> sums;
};

// The 32-bit sums into a result of another width: narrower results keep
// the low bits; a 64-bit one is only planned when the sums cannot
// overflow, so they sign-extend exactly.
void StoreInt8DotSums(const Int8DotPlan& plan, const uint32_t* sums,
                      const KernelArgs& args) {
  char* dst = static_cast<char*>(args.results[0].data);
  const int64_t esize = static_cast<int64_t>(ElementByteSize(plan.result_type));
  for (int64_t i = 0; i < plan.batch * plan.m * plan.n; ++i)
    StoreFrom<int64_t>(plan.result_type, static_cast<int32_t>(sums[i]),
                       dst + i * esize);
}

// Result rows per oneDNN call, and columns when the rows alone make fewer
// than kInt8FewTasks tasks. Each call packs all of its b again: 256-row
// blocks took 9% less CPU than 64-row ones on [1024, 1024] x [1024, 512]
// (bench/README.md "GEMM blocks"); XFFI_GEMM_BLOCKS=rows keeps 64. The sums
// are exact, so any blocks give the same bits.
constexpr int64_t kInt8RowBlock = 256, kInt8RowBlockBefore = 64;
constexpr int64_t kInt8ColBlock = 128;
constexpr int64_t kInt8FewTasks = 4;

// Through oneDNN's s8 GEMM (dnnl_gemm.h): 32-bit sums that wrap, as the
// int16 path's; tasks of (batch, block of rows, block of columns). False
// when oneDNN refused (switched off since the kernel was made).
bool RunInt8DotDnnl(const Int8DotPlan& plan, Int8DotScratch& scratch,
                    const KernelArgs& args, uint32_t* c) {
  const int64_t batch = plan.batch, m = plan.m, n = plan.n, k = plan.k;
  const uint8_t* a = static_cast<const uint8_t*>(args.operands[0].data);
  const uint8_t* b = static_cast<const uint8_t*>(args.operands[1].data);
  if (!plan.lhs_direct) {
    scratch.lhs_bytes.resize(static_cast<size_t>(batch * m * k));
    plan.lhs_plan.Run(scratch.lhs_bytes.data(), a);
    a = scratch.lhs_bytes.data();
  }
  if (!plan.rhs_direct) {
    scratch.rhs_bytes.resize(static_cast<size_t>(batch * n * k));
    plan.rhs_plan.Run(scratch.rhs_bytes.data(), b);
    b = scratch.rhs_bytes.data();
  }
  const int64_t row_block =
      ChosenGemmBlocksEnabled() ? kInt8RowBlock : kInt8RowBlockBefore;
  const int64_t row_blocks = (m + row_block - 1) / row_block;
  const int64_t col_blocks = batch * row_blocks < kInt8FewTasks
                                 ? (n + kInt8ColBlock - 1) / kInt8ColBlock
                                 : 1;
  const int64_t col_block = (n + col_blocks - 1) / col_blocks;
  const int64_t blocks = row_blocks * col_blocks;
  // About 0.01 ns per multiply-add (VNNI: 64 per instruction).
  const double task_nanos = 0.01 * static_cast<double>(std::min(m, row_block)) *
                            static_cast<double>(col_block * k);
  std::atomic<bool> refused{false};
  ParallelFor(
      args.pool, batch * blocks, task_nanos, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t i = t / blocks;
          const int64_t r0 = t % blocks / col_blocks * row_block;
          const int64_t c0 = t % col_blocks * col_block;
          const int64_t rows = std::min(m, r0 + row_block) - r0;
          const int64_t cols = std::min(n, c0 + col_block) - c0;
          const uint8_t* bi = b + i * k * n;
          if (!DnnlGemmS8(
                  plan.lhs_signed, plan.rhs_nk, rows, cols, k,
                  a + (i * m + r0) * k, k,
                  reinterpret_cast<const int8_t*>(plan.rhs_nk ? bi + c0 * k
                                                              : bi + c0),
                  plan.rhs_nk ? k : n,
                  reinterpret_cast<int32_t*>(c + (i * m + r0) * n + c0), n))
            refused = true;
        }
      });
  return !refused;
}

Status RunInt8Dot(const Int8DotPlan& plan, Int8DotScratch& scratch,
                  const KernelArgs& args) {
  std::lock_guard<std::mutex> lock(scratch.mutex);
  const int64_t batch = plan.batch, m = plan.m, n = plan.n, k = plan.k;
  const bool direct = ElementByteSize(plan.result_type) == 4;
  uint32_t* c = static_cast<uint32_t*>(args.results[0].data);
  if (!direct) {
    scratch.sums.resize(static_cast<size_t>(batch * m * n));
    c = scratch.sums.data();
  }
  if (plan.dnnl && RunInt8DotDnnl(plan, scratch, args, c)) {
    if (!direct) StoreInt8DotSums(plan, c, args);
    return Status::Ok();
  }
  const int64_t kp = Int8DotPaddedDepth(k);
  scratch.lhs_bytes.resize(static_cast<size_t>(batch * m * k));
  scratch.rhs_bytes.resize(static_cast<size_t>(batch * n * k));
  plan.lhs_plan.Run(scratch.lhs_bytes.data(), args.operands[0].data);
  plan.rhs_plan.Run(scratch.rhs_bytes.data(), args.operands[1].data);
  scratch.a.resize(static_cast<size_t>(batch * m * kp));
  scratch.bt.resize(static_cast<size_t>(batch * n * kp));
  // Rows of both operands, widened side by side.
  const int64_t lhs_rows = batch * m, rows = batch * (m + n);
  ParallelFor(args.pool, rows, 0.3 * static_cast<double>(kp),
              [&](int64_t begin, int64_t end) {
                const int64_t split = std::clamp(lhs_rows, begin, end);
                if (split > begin)
                  WidenRows(scratch.lhs_bytes.data() + begin * k, split - begin,
                            k, kp, plan.lhs_signed,
                            scratch.a.data() + begin * kp);
                if (end > split)
                  WidenRows(scratch.rhs_bytes.data() + (split - lhs_rows) * k,
                            end - split, k, kp, plan.rhs_signed,
                            scratch.bt.data() + (split - lhs_rows) * kp);
              });
  const int16_t* a = scratch.a.data();
  const int16_t* bt = scratch.bt.data();
  for (int64_t b = 0; b < batch; ++b)
    Int16RowDots(a + b * m * kp, bt + b * n * kp, m, n, kp, c + b * m * n,
                 args.pool);
  if (!direct) StoreInt8DotSums(plan, c, args);
  return Status::Ok();
}

// A [batch, rows, cols] byte copy of an 8-bit operand whose dims in that
// order are `order`.
CopyPlan BytePermutation(const Shape& shape,
                         const std::vector<int64_t>& order) {
  const std::vector<int64_t> strides = RowMajorStrides(shape.dims());
  std::vector<int64_t> dims, src;
  for (int64_t d : order) {
    dims.push_back(shape.dim(d));
    src.push_back(strides[static_cast<size_t>(d)]);
  }
  return CopyPlan(dims, src, RowMajorStrides(dims), 1);
}

bool IsByteInteger(ElementType type) {
  return type == ElementType::kS8 || type == ElementType::kU8;
}

}  // namespace

StatusOr<Kernel> MakeDotKernel(const Instruction& inst) {
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("op " + inst.Describe() + ": " + what);
  };
  if (inst.operand_count() != 2) return fail("expects 2 operands");
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& out = inst.shape();
  if (!lhs.IsArray() || !rhs.IsArray() || !out.IsArray())
    return fail("operands and result must be arrays");
  const DotDimensionNumbers& dn = inst.dot_dimension_numbers;
  if (dn.lhs_batch.size() != dn.rhs_batch.size() ||
      dn.lhs_contracting.size() != dn.rhs_contracting.size())
    return fail("batch or contracting dimension counts differ");

  // Classifies an operand's dims; false on a repeated or out-of-range dim.
  auto split = [](const Shape& s, const std::vector<int64_t>& batch,
                  const std::vector<int64_t>& contracting,
                  std::vector<int64_t>& free) {
    std::vector<bool> used(static_cast<size_t>(s.rank()), false);
    for (const auto* list : {&batch, &contracting})
      for (int64_t d : *list) {
        if (d < 0 || d >= s.rank() || used[static_cast<size_t>(d)])
          return false;
        used[static_cast<size_t>(d)] = true;
      }
    for (int64_t d = 0; d < s.rank(); ++d)
      if (!used[static_cast<size_t>(d)]) free.push_back(d);
    return true;
  };
  std::vector<int64_t> lhs_free, rhs_free;
  if (!split(lhs, dn.lhs_batch, dn.lhs_contracting, lhs_free))
    return fail("bad lhs batch/contracting dimensions");
  if (!split(rhs, dn.rhs_batch, dn.rhs_contracting, rhs_free))
    return fail("bad rhs batch/contracting dimensions");

  DotPlan plan;
  plan.batch = plan.m = plan.k = plan.n = 1;
  std::vector<int64_t> expected;
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
    int64_t size = lhs.dim(dn.lhs_batch[i]);
    if (rhs.dim(dn.rhs_batch[i]) != size)
      return fail("batch dimension " + std::to_string(i) + " sizes differ");
    plan.batch *= size;
    expected.push_back(size);
  }
  for (size_t i = 0; i < dn.lhs_contracting.size(); ++i) {
    int64_t size = lhs.dim(dn.lhs_contracting[i]);
    if (rhs.dim(dn.rhs_contracting[i]) != size)
      return fail("contracting dimension " + std::to_string(i) +
                  " sizes differ");
    plan.k *= size;
  }
  for (int64_t d : lhs_free) {
    plan.m *= lhs.dim(d);
    expected.push_back(lhs.dim(d));
  }
  for (int64_t d : rhs_free) {
    plan.n *= rhs.dim(d);
    expected.push_back(rhs.dim(d));
  }
  if (out.dims() != expected)
    return fail("result shape " + out.ToString() + " does not match");

  plan.result_type = out.element_type();
  ComputeKind kind;
  ElementType compute;
  size_t compute_size;
  const bool complex_operands =
      IsComplexType(lhs.element_type()) || IsComplexType(rhs.element_type());
  if (IsComplexType(plan.result_type)) {
    kind = plan.result_type == ElementType::kC64 ? ComputeKind::kC64
                                                 : ComputeKind::kC128;
    compute = plan.result_type;
    compute_size = ElementByteSize(compute);
  } else if (complex_operands) {
    // A real result (preferred_element_type) of complex operands: XLA
    // computes the complex product and keeps its real part.
    const bool wide = lhs.element_type() == ElementType::kC128 ||
                      rhs.element_type() == ElementType::kC128 ||
                      plan.result_type == ElementType::kF64;
    kind = wide ? ComputeKind::kC128 : ComputeKind::kC64;
    compute = wide ? ElementType::kC128 : ElementType::kC64;
    compute_size = ElementByteSize(compute);
  } else if (plan.result_type == ElementType::kF64) {
    kind = ComputeKind::kF64;
    compute = ElementType::kF64;
    compute_size = 8;
  } else if (IsFloatingType(plan.result_type)) {
    kind = ComputeKind::kF32;
    compute = ElementType::kF32;
    compute_size = 4;
  } else if (IsIntegralType(plan.result_type) ||
             plan.result_type == ElementType::kPred) {
    kind = ComputeKind::kInt;
    compute = ElementType::kS64;
    compute_size = 8;
  } else {
    return Unimplemented("op " + inst.Describe() + ": result type " +
                         std::string(ElementTypeName(plan.result_type)) +
                         " is not supported");
  }
  plan.result_direct = plan.result_type == compute;

  auto cat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  // 8-bit operands into a result of at most 32 bits (sums wrap there), or
  // into a wider one when k is short enough that no 32-bit sum overflows
  // (|product| <= 2^16, so k < 2^15 keeps sums inside int32).
  if (kind == ComputeKind::kInt && plan.result_type != ElementType::kPred &&
      IsByteInteger(lhs.element_type()) && IsByteInteger(rhs.element_type()) &&
      (ElementByteSize(plan.result_type) <= 4 || plan.k < (int64_t{1} << 15))) {
    Int8DotPlan int8;
    int8.batch = plan.batch;
    int8.m = plan.m;
    int8.k = plan.k;
    int8.n = plan.n;
    int8.lhs_signed = lhs.element_type() == ElementType::kS8;
    int8.rhs_signed = rhs.element_type() == ElementType::kS8;
    int8.lhs_plan = BytePermutation(
        lhs, cat({&dn.lhs_batch, &lhs_free, &dn.lhs_contracting}));
    int8.rhs_plan = BytePermutation(
        rhs, cat({&dn.rhs_batch, &rhs_free, &dn.rhs_contracting}));
    int8.result_type = plan.result_type;
    // oneDNN takes s8 or u8 times s8 (its u8 x u8 and s8 x u8 do not exist).
    if (int8.rhs_signed && DnnlGemmS8Exact() &&
        plan.m * plan.n * plan.k > kSmallProduct) {
      int8.dnnl = true;
      int8.lhs_direct = InRowMajorOrder(
          lhs, cat({&dn.lhs_batch, &lhs_free, &dn.lhs_contracting}));
      const bool rhs_kn = InRowMajorOrder(
          rhs, cat({&dn.rhs_batch, &dn.rhs_contracting, &rhs_free}));
      int8.rhs_nk = !rhs_kn;
      int8.rhs_direct =
          rhs_kn ||
          InRowMajorOrder(rhs,
                          cat({&dn.rhs_batch, &rhs_free, &dn.rhs_contracting}));
    }
    auto scratch = std::make_shared<Int8DotScratch>();
    return Kernel([int8 = std::move(int8), scratch](const KernelArgs& args) {
      return RunInt8Dot(int8, *scratch, args);
    });
  }
  plan.lhs = MakeView(lhs, cat({&dn.lhs_batch, &lhs_free, &dn.lhs_contracting}),
                      cat({&dn.lhs_batch, &dn.lhs_contracting, &lhs_free}),
                      compute, compute_size);
  plan.rhs = MakeView(rhs, cat({&dn.rhs_batch, &dn.rhs_contracting, &rhs_free}),
                      cat({&dn.rhs_batch, &rhs_free, &dn.rhs_contracting}),
                      compute, compute_size);
  switch (kind) {
    case ComputeKind::kF32:
      return Kernel([plan = std::move(plan)](const KernelArgs& args) {
        return RunFloatDot<float>(plan, args);
      });
    case ComputeKind::kF64:
      return Kernel([plan = std::move(plan)](const KernelArgs& args) {
        return RunFloatDot<double>(plan, args);
      });
    case ComputeKind::kC64:
      return Kernel([plan = std::move(plan)](const KernelArgs& args) {
        return RunFloatDot<std::complex<float>>(plan, args);
      });
    case ComputeKind::kC128:
      return Kernel([plan = std::move(plan)](const KernelArgs& args) {
        return RunFloatDot<std::complex<double>>(plan, args);
      });
    case ComputeKind::kInt:
      break;
  }
  return Kernel([plan = std::move(plan)](const KernelArgs& args) {
    return RunIntegerDot(plan, args);
  });
}

void KeepBlasSingleThreaded() {
#ifdef XFFI_HAVE_OPENBLAS
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
#endif
}

}  // namespace xffi::cpu
