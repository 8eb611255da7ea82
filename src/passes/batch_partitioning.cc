#include "passes/batch_partitioning.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xffi/runtime/partitioning.h"

namespace xffi::passes {
namespace {

// How the leading dimension of a value with `sharding` is split: its block
// count and the number of devices the sharding spans (1, 0: not split).
struct BatchSplit {
  int64_t blocks = 1;
  int64_t devices = 0;
};

// The sharding of `value`: its own, or that of an operand of the same
// dimensions of the elementwise op that makes it (XLA propagates a sharding
// through such ops; xffi follows them only, `depth` deep).
const std::optional<HloSharding>* ShardingOf(const Instruction* value,
                                             int depth = 16) {
  if (value->sharding.has_value() || depth == 0) return &value->sharding;
  const Opcode opcode = value->opcode();
  if (!IsElementwiseUnary(opcode) && !IsElementwiseBinary(opcode) &&
      opcode != Opcode::kConvert && opcode != Opcode::kCopy &&
      opcode != Opcode::kSelect)
    return &value->sharding;
  for (const Instruction* operand : value->operands()) {
    if (operand->shape().dims() != value->shape().dims()) continue;
    const std::optional<HloSharding>* found = ShardingOf(operand, depth - 1);
    if (found->has_value()) return found;
  }
  return &value->sharding;
}

BatchSplit SplitOf(const Instruction* value) {
  const std::optional<HloSharding>& sharding = *ShardingOf(value);
  if (!sharding.has_value() || sharding->kind != HloSharding::Kind::kTiled ||
      sharding->tile_dims.empty() || !value->shape().IsArray() ||
      value->shape().rank() == 0)
    return {};
  return {sharding->tile_dims[0],
          static_cast<int64_t>(sharding->devices.size())};
}

// The shape of one device's block: the leading dimension divided by
// `blocks` (a rank-0 value is passed whole).
Shape Block(const Shape& shape, int64_t blocks) {
  if (shape.rank() == 0) return shape;
  std::vector<int64_t> dims = shape.dims();
  dims[0] /= blocks;
  return Shape::Array(shape.element_type(), std::move(dims),
                      shape.minor_to_major());
}

bool Divides(const Shape& shape, int64_t blocks) {
  return shape.IsArray() && (shape.rank() == 0 || shape.dim(0) % blocks == 0);
}

TensorSharding BatchSharding(const Shape& shape) {
  TensorSharding sharding;
  sharding.dims.resize(static_cast<size_t>(shape.rank()));
  if (shape.rank() > 0) sharding.dims[0] = {"batch"};
  return sharding;
}

// Rewrites `call` (in `computation`) into a manual computation; false when
// it stays whole.
bool Partition(Module& module, Computation* computation, Instruction* call) {
  BatchSplit split;
  for (const Instruction* operand : call->operands()) {
    split = SplitOf(operand);
    if (split.blocks > 1) break;
  }
  if (split.blocks <= 1 || split.devices % split.blocks != 0) return false;
  std::vector<Shape> results = call->shape().IsTuple()
                                   ? call->shape().tuple_shapes()
                                   : std::vector<Shape>{call->shape()};
  for (const Instruction* operand : call->operands())
    if (!Divides(operand->shape(), split.blocks)) return false;
  for (const Shape& result : results)
    if (!Divides(result, split.blocks)) return false;

  // The body: the call on one device's blocks.
  auto body = std::make_unique<Computation>(call->name() + ".per_device");
  ManualComputationConfig config;
  config.mesh.axis_names = {"batch"};
  config.mesh.axis_sizes = {split.blocks};
  config.manual_axes = {"batch"};
  // Devices that hold the same block each run the call too, as under XLA.
  if (split.devices > split.blocks) {
    config.mesh.axis_names.push_back("replica");
    config.mesh.axis_sizes.push_back(split.devices / split.blocks);
    config.manual_axes.push_back("replica");
  }
  auto local = std::make_unique<Instruction>(*call);
  for (int64_t i = 0; i < call->operand_count(); ++i) {
    const Shape& shape = call->operand(i)->shape();
    Instruction* parameter =
        body->AddInstruction(Opcode::kParameter, Block(shape, split.blocks), {},
                             "block." + std::to_string(i));
    parameter->parameter_number = i;
    local->ReplaceOperand(i, parameter);
    config.in_shardings.push_back(BatchSharding(shape));
  }
  std::vector<Shape> local_results;
  for (const Shape& result : results) {
    local_results.push_back(Block(result, split.blocks));
    config.out_shardings.push_back(BatchSharding(result));
  }
  local->set_shape(call->shape().IsTuple() ? Shape::Tuple(local_results)
                                           : local_results[0]);
  for (Shape& layout : local->custom_call.operand_layouts)
    layout = Block(layout, split.blocks);
  for (Shape& layout : local->custom_call.result_layouts)
    layout = Block(layout, split.blocks);
  local->sharding.reset();
  body->set_root(body->AddInstruction(std::move(local)));
  Computation* added = module.AddComputation(std::move(body));

  auto manual =
      std::make_unique<Instruction>(Opcode::kManualComputation, call->shape());
  manual->set_name(call->name() + ".batch_partitioned");
  manual->set_location(call->location());
  for (Instruction* operand : call->operands()) manual->AppendOperand(operand);
  manual->manual_computation = std::move(config);
  manual->AppendCalledComputation(added);
  Instruction* replacement =
      computation->InsertInstructionBefore(std::move(manual), call);
  for (const auto& user : computation->instructions())
    for (int64_t i = 0; i < user->operand_count(); ++i)
      if (user->operand(i) == call) user->ReplaceOperand(i, replacement);
  if (computation->root() == call) computation->set_root(replacement);
  computation->RemoveInstructionsIf(
      [call](const Instruction* inst) { return inst == call; });
  return true;
}

}  // namespace

StatusOr<bool> BatchPartitioning::Run(Module& module) {
  Computation* entry = module.entry();
  if (entry == nullptr) return false;
  std::vector<Instruction*> calls;
  for (const auto& inst : entry->instructions())
    if (inst->opcode() == Opcode::kCustomCall &&
        !IsGspmdMarker(inst->custom_call.target) &&
        IsBatchPartitionable(inst->custom_call.target))
      calls.push_back(inst.get());
  bool changed = false;
  for (Instruction* call : calls)
    changed = Partition(module, entry, call) || changed;
  return changed;
}

}  // namespace xffi::passes
