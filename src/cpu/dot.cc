// dot (dot_general): both operands are viewed as batches of matrices, lhs
// [batch, m, k] and rhs [batch, k, n], whose product is the result laid out
// [batch, m, n] (the result's row-major order). An operand already in that
// order, or in [batch, k, m] / [batch, n, k] order, is used in place (the
// latter as a transposed map); any other order is packed once per run.
// Floating and complex products go through Eigen (a plain loop for tiny
// ones) in the compute type the result type implies (f32 for f16/bf16 and
// narrower floats, so those accumulate in f32); integer products use a plain
// loop with 64-bit wrapping accumulation.
#include <Eigen/Core>
#include <algorithm>
#include <complex>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/compute_cast.h"
#include "cpu/index_util.h"
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
    // Unit dims do not change the layout, so ignore them.
    int64_t last = -1;
    for (int64_t d : perm) {
      if (shape.dim(d) == 1) continue;
      if (d < last) return false;
      last = d;
    }
    return true;
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

template <typename C>
Status RunFloatDot(const DotPlan& plan, const KernelArgs& args) {
  using Mat = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using MatT =
      Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
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
  for (int64_t i = 0; i < plan.batch; ++i) {
    const C* ai = a + i * m * k;
    const C* bi = b + i * k * n;
    if (m * n * k <= kSmallProduct) {
      SmallProduct(ai, bi, c + i * m * n, m, k, n, plan.lhs.transposed,
                   plan.rhs.transposed);
      continue;
    }
    Eigen::Map<Mat> ci(c + i * m * n, m, n);
    if (k == 0) {
      ci.setZero();
      continue;
    }
    // A transposed operand is a column-major map of the same numbers.
    if (!plan.lhs.transposed && !plan.rhs.transposed)
      ci.noalias() =
          Eigen::Map<const Mat>(ai, m, k) * Eigen::Map<const Mat>(bi, k, n);
    else if (plan.lhs.transposed && !plan.rhs.transposed)
      ci.noalias() =
          Eigen::Map<const MatT>(ai, m, k) * Eigen::Map<const Mat>(bi, k, n);
    else if (!plan.lhs.transposed && plan.rhs.transposed)
      ci.noalias() =
          Eigen::Map<const Mat>(ai, m, k) * Eigen::Map<const MatT>(bi, k, n);
    else
      ci.noalias() =
          Eigen::Map<const MatT>(ai, m, k) * Eigen::Map<const MatT>(bi, k, n);
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
  std::vector<uint64_t> row(static_cast<size_t>(n));
  char* dst = static_cast<char*>(args.results[0].data);
  const int64_t esize = static_cast<int64_t>(ElementByteSize(plan.result_type));
  for (int64_t bi = 0; bi < plan.batch; ++bi) {
    const int64_t* ab = a + bi * m * k;
    const int64_t* bb = b + bi * k * n;
    for (int64_t i = 0; i < m; ++i) {
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
            row[static_cast<size_t>(j)] += av * static_cast<uint64_t>(br[j]);
        }
      }
      for (int64_t j = 0; j < n; ++j)
        StoreFrom<int64_t>(plan.result_type,
                           static_cast<int64_t>(row[static_cast<size_t>(j)]),
                           dst + ((bi * m + i) * n + j) * esize);
    }
  }
  return Status::Ok();
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
  if (IsComplexType(plan.result_type)) {
    kind = plan.result_type == ElementType::kC64 ? ComputeKind::kC64
                                                 : ComputeKind::kC128;
    compute = plan.result_type;
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
  if ((IsComplexType(lhs.element_type()) ||
       IsComplexType(rhs.element_type())) &&
      !IsComplexType(plan.result_type))
    return fail("complex operands need a complex result");
  plan.result_direct = plan.result_type == compute;

  auto cat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
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

}  // namespace xffi::cpu
