#include "device_backend/custom_call_relayout.h"

#include <utility>
#include <vector>

#include "compiler/backend_util.h"

namespace xffi::device_backend {
namespace {

using compiler::BufferId;
using compiler::kNoBuffer;

// Element strides of `dims` laid out minor-to-major in `order`.
std::vector<int64_t> StridesIn(const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& order) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= dims[static_cast<size_t>(d)];
  }
  return strides;
}

// Every element of `leaf` from layout `from` to layout `to`, walking its
// logical index.
StridedCopyKernel RelayoutCopy(const Shape& leaf,
                               const std::vector<int64_t>& from,
                               const std::vector<int64_t>& to) {
  StridedCopyKernel copy;
  const std::vector<int64_t>& dims = leaf.dims();
  const std::vector<int64_t> from_strides = StridesIn(dims, from);
  const std::vector<int64_t> to_strides = StridesIn(dims, to);
  copy.rank = static_cast<int32_t>(dims.size());
  copy.element_size =
      static_cast<int32_t>(ElementByteSize(leaf.element_type()));
  copy.n = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    copy.dims[d] = dims[d];
    copy.src_strides[d] = from_strides[d];
    copy.dst_strides[d] = to_strides[d];
    copy.n *= dims[d];
  }
  return copy;
}

}  // namespace

std::optional<CustomCallRelayouts> PlanCustomCallRelayouts(
    const Instruction& op, const compiler::InstructionBuffers& buffers) {
  bool any = false;
  for (BufferId scratch : buffers.temps) any = any || scratch != kNoBuffer;
  if (!any) return std::nullopt;
  const std::vector<std::vector<int64_t>> in_orders =
      compiler::CustomCallLeafOrders(op.custom_call.operand_layouts);
  const std::vector<std::vector<int64_t>> out_orders =
      compiler::CustomCallLeafOrders(op.custom_call.result_layouts);
  CustomCallRelayouts plan;
  plan.target_view = buffers;
  std::vector<StridedCopyKernel> before, after;
  std::vector<std::pair<BufferId, BufferId>> before_ids, after_ids;
  size_t flat = 0;
  // Which operand leaf owns a scratch: an aliased result shares it and,
  // given no result layouts, takes its order.
  std::vector<std::pair<BufferId, size_t>> operand_scratch;
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    const std::vector<const Shape*> leaves = op.operand(i)->shape().Leaves();
    for (size_t j = 0; j < leaves.size(); ++j, ++flat) {
      const BufferId scratch = buffers.temps[flat];
      BufferId& seen = plan.target_view.operands[static_cast<size_t>(i)][j];
      if (scratch == kNoBuffer || seen == kNoBuffer) continue;
      before.push_back(RelayoutCopy(
          *leaves[j], leaves[j]->WithoutLayout().EffectiveMinorToMajor(),
          in_orders[flat]));
      before_ids.emplace_back(seen, scratch);
      operand_scratch.emplace_back(scratch, flat);
      seen = scratch;
    }
  }
  const std::vector<const Shape*> results = op.shape().Leaves();
  for (size_t r = 0; r < results.size(); ++r) {
    const BufferId scratch = buffers.temps[flat + r];
    BufferId& seen = plan.target_view.leaves[r];
    if (scratch == kNoBuffer || seen == kNoBuffer) continue;
    std::vector<int64_t> order;
    if (!out_orders.empty()) {
      order = out_orders[r];
    } else {
      for (const auto& [operand_leaf_scratch, at] : operand_scratch)
        if (operand_leaf_scratch == scratch) order = in_orders[at];
    }
    if (order.empty())
      order = results[r]->WithoutLayout().EffectiveMinorToMajor();
    after.push_back(
        RelayoutCopy(*results[r], order,
                     results[r]->WithoutLayout().EffectiveMinorToMajor()));
    after_ids.emplace_back(scratch, seen);
    seen = scratch;
  }
  plan.before = StridedCopyLauncher(std::move(before), std::move(before_ids));
  plan.after = StridedCopyLauncher(std::move(after), std::move(after_ids));
  return plan;
}

}  // namespace xffi::device_backend
