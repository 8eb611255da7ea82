#include "device_backend/dot_as_gemm.h"

#include <algorithm>
#include <utility>

#include "runtime/status_macros.h"

namespace xffi::device_backend {
namespace {

using compiler::BufferId;

// Dimensions of one operand taken together, in the order the product pairs
// them. Size-1 dimensions are left out: they move no index.
struct Group {
  int64_t size = 1;
  std::optional<int64_t> stride;  // of its last dimension; none when empty
  bool contiguous = true;         // one block, in order
};

Group MakeGroup(const std::vector<int64_t>& dims,
                const std::vector<int64_t>& strides,
                const std::vector<int64_t>& members) {
  Group group;
  for (int64_t member : members) {
    const size_t d = static_cast<size_t>(member);
    if (dims[d] == 1) continue;
    if (group.stride && *group.stride != strides[d] * dims[d])
      group.contiguous = false;
    group.size *= dims[d];
    group.stride = strides[d];
  }
  return group;
}

std::vector<int64_t> RowMajor(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

// One operand as a batch of `rows` x `cols` matrices: in place when it is a
// matrix view, else a copy into [batch, rows, cols] order.
void PlanOperand(const Shape& shape, const std::vector<int64_t>& batch,
                 const std::vector<int64_t>& rows_dims,
                 const std::vector<int64_t>& cols_dims,
                 device::GemmMatrix& matrix,
                 std::optional<StridedCopyKernel>& copy) {
  const std::vector<int64_t>& dims = shape.dims();
  const std::vector<int64_t> strides = RowMajor(dims);
  const Group b = MakeGroup(dims, strides, batch);
  const Group rows = MakeGroup(dims, strides, rows_dims);
  const Group cols = MakeGroup(dims, strides, cols_dims);
  matrix.batch_stride = b.stride.value_or(0);
  if (b.contiguous && rows.contiguous && cols.contiguous) {
    if (cols.stride.value_or(1) == 1) {
      matrix.transposed = false;
      matrix.ld = rows.stride.value_or(std::max<int64_t>(cols.size, 1));
      return;
    }
    if (rows.stride.value_or(1) == 1) {
      matrix.transposed = true;
      matrix.ld = cols.stride.value_or(std::max<int64_t>(rows.size, 1));
      return;
    }
  }
  // A copy in [batch, rows, cols] order: the operand's dimensions permuted.
  std::vector<int64_t> order = batch;
  order.insert(order.end(), rows_dims.begin(), rows_dims.end());
  order.insert(order.end(), cols_dims.begin(), cols_dims.end());
  StridedCopyKernel kernel;
  kernel.rank = static_cast<int32_t>(order.size());
  kernel.element_size =
      static_cast<int32_t>(ElementByteSize(shape.element_type()));
  kernel.n = shape.num_elements();
  std::vector<int64_t> permuted;
  for (int64_t d : order) permuted.push_back(dims[static_cast<size_t>(d)]);
  const std::vector<int64_t> dst_strides = RowMajor(permuted);
  for (size_t i = 0; i < order.size(); ++i) {
    kernel.dims[i] = permuted[i];
    kernel.src_strides[i] = strides[static_cast<size_t>(order[i])];
    kernel.dst_strides[i] = dst_strides[i];
  }
  copy = kernel;
  matrix.transposed = false;
  matrix.ld = std::max<int64_t>(cols.size, 1);
  matrix.batch_stride = rows.size * cols.size;
}

// The dimensions of a rank-`rank` operand in neither list, in order.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end())
      free.push_back(d);
  return free;
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& members) {
  int64_t product = 1;
  for (int64_t d : members) product *= shape.dim(d);
  return product;
}

Status LaunchCopy(device::Stream& stream, const StridedCopyKernel& copy) {
  constexpr int64_t kThreads = 256;
  if (copy.n == 0) return Status::Ok();
  return device::LaunchFunctor(stream, StridedCopyKernel::kName,
                               {device::BlocksFor(copy.n, kThreads), kThreads},
                               copy);
}

}  // namespace

std::optional<device::GemmType> GemmTypeOf(ElementType type) {
  switch (type) {
    case ElementType::kF16:
      return device::GemmType::kF16;
    case ElementType::kBF16:
      return device::GemmType::kBF16;
    case ElementType::kF32:
      return device::GemmType::kF32;
    case ElementType::kF64:
      return device::GemmType::kF64;
    case ElementType::kC64:
      return device::GemmType::kC64;
    case ElementType::kC128:
      return device::GemmType::kC128;
    default:
      return std::nullopt;
  }
}

std::optional<DotGemmPlan> PlanDotAsGemm(const Instruction& dot,
                                         std::string* why_not) {
  auto refuse = [why_not](std::string why) -> std::optional<DotGemmPlan> {
    if (why_not != nullptr) *why_not = std::move(why);
    return std::nullopt;
  };
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const Shape& out = dot.shape();
  std::optional<device::GemmType> ab = GemmTypeOf(lhs.element_type());
  std::optional<device::GemmType> c = GemmTypeOf(out.element_type());
  if (!ab || !c || rhs.element_type() != lhs.element_type())
    return refuse("operand and result types " + lhs.ToString(false) + ", " +
                  rhs.ToString(false) + " -> " + out.ToString(false) +
                  " are no GEMM cuBLAS runs");
  DotGemmPlan plan;
  device::Gemm& gemm = plan.gemm;
  gemm.ab_type = *ab;
  gemm.c_type = *c;
  if (!device::ValidateGemm(gemm).ok())
    return refuse(std::string(device::GemmTypeName(*ab)) + " operands with a " +
                  device::GemmTypeName(*c) + " result");
  const DotDimensionNumbers& numbers = dot.dot_dimension_numbers;
  if (lhs.rank() > kMaxRank || rhs.rank() > kMaxRank)
    return refuse("rank above 8");
  const std::vector<int64_t> lhs_free =
      FreeDims(lhs.rank(), numbers.lhs_batch, numbers.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      FreeDims(rhs.rank(), numbers.rhs_batch, numbers.rhs_contracting);
  gemm.batch = Product(lhs, numbers.lhs_batch);
  gemm.m = Product(lhs, lhs_free);
  gemm.n = Product(rhs, rhs_free);
  gemm.k = Product(lhs, numbers.lhs_contracting);
  PlanOperand(lhs, numbers.lhs_batch, lhs_free, numbers.lhs_contracting, gemm.a,
              plan.lhs_copy);
  PlanOperand(rhs, numbers.rhs_batch, numbers.rhs_contracting, rhs_free, gemm.b,
              plan.rhs_copy);
  if (gemm.k == 0) {
    // Nothing is read (the launcher zeroes the result), but the matrices
    // still describe a valid product: zero-size dimensions left strides of 0.
    gemm.a = {nullptr, false, 1, 0};
    gemm.b = {nullptr, false, std::max<int64_t>(gemm.n, 1), 0};
    plan.lhs_copy.reset();
    plan.rhs_copy.reset();
  }
  gemm.ldc = std::max<int64_t>(gemm.n, 1);
  gemm.c_batch_stride = gemm.m * gemm.n;
  return plan;
}

std::optional<Launcher> MakeGemmDotLauncher(
    const Instruction& dot, const std::vector<BufferId>& operands,
    BufferId result, const ReserveScratch& scratch) {
  std::optional<DotGemmPlan> plan = PlanDotAsGemm(dot);
  if (!plan) return std::nullopt;
  if ((plan->lhs_copy || plan->rhs_copy) && !scratch) return std::nullopt;
  BufferId lhs_scratch = compiler::kNoBuffer, rhs_scratch = compiler::kNoBuffer;
  if (plan->lhs_copy)
    lhs_scratch = scratch(dot.operand(0)->shape().byte_size());
  if (plan->rhs_copy)
    rhs_scratch = scratch(dot.operand(1)->shape().byte_size());
  const size_t result_bytes = dot.shape().byte_size();
  return Launcher(
      [plan = *plan, operands, result, lhs_scratch, rhs_scratch, result_bytes](
          device::Stream& stream, void* const* addresses) mutable {
        if (result_bytes == 0) return Status::Ok();
        // An empty contraction: every product is an empty sum.
        if (plan.gemm.k == 0)
          return stream.Memset(addresses[result], 0, result_bytes);
        const void* lhs = addresses[operands[0]];
        const void* rhs = addresses[operands[1]];
        if (plan.lhs_copy) {
          plan.lhs_copy->src = static_cast<const uint8_t*>(lhs);
          plan.lhs_copy->dst = static_cast<uint8_t*>(addresses[lhs_scratch]);
          XFFI_RETURN_IF_ERROR(LaunchCopy(stream, *plan.lhs_copy));
          lhs = addresses[lhs_scratch];
        }
        if (plan.rhs_copy) {
          plan.rhs_copy->src = static_cast<const uint8_t*>(rhs);
          plan.rhs_copy->dst = static_cast<uint8_t*>(addresses[rhs_scratch]);
          XFFI_RETURN_IF_ERROR(LaunchCopy(stream, *plan.rhs_copy));
          rhs = addresses[rhs_scratch];
        }
        plan.gemm.a.data = lhs;
        plan.gemm.b.data = rhs;
        plan.gemm.c = addresses[result];
        return stream.MatrixMultiply(plan.gemm);
      });
}

}  // namespace xffi::device_backend
