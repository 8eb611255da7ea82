#include "passes/batch_partitioning.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "passes/call_inlining.h"
#include "xffi/runtime/partitioning.h"

namespace xffi::passes {
namespace {

// How a value is split across devices, as far as xffi can trace it: the
// block count of each dimension and the number of devices the sharding
// spans.
struct Tiling {
  std::vector<int64_t> tiles;
  int64_t devices = 0;
};

std::optional<Tiling> TilingOf(const Instruction* value, int depth = 16);

// `value`'s own sharding as a tiling; nullopt when it has none or is not
// split (replicated, manual, on one device).
std::optional<Tiling> OwnTiling(const Instruction* value) {
  const HloSharding& sharding = *value->sharding;
  const int64_t rank = value->shape().rank();
  if (sharding.kind != HloSharding::Kind::kTiled ||
      static_cast<int64_t>(sharding.tile_dims.size()) < rank)
    return std::nullopt;
  return Tiling{std::vector<int64_t>(sharding.tile_dims.begin(),
                                     sharding.tile_dims.begin() + rank),
                static_cast<int64_t>(sharding.devices.size())};
}

// The tiling a value gets from an operand tiled as `from`, with the
// operand's dimension `source[d]` (or none, -1: not split) becoming its
// dimension d.
Tiling Remap(const Tiling& from, const std::vector<int64_t>& source) {
  Tiling to{std::vector<int64_t>(source.size(), 1), from.devices};
  for (size_t d = 0; d < source.size(); ++d)
    if (source[d] >= 0)
      to.tiles[d] = from.tiles[static_cast<size_t>(source[d])];
  return to;
}

// Which operand dimension each dimension of `value` comes from, for the ops
// that move or cut dimensions without mixing them (XLA's sharding
// propagation follows these; so does xffi; a slice keeps the split of a
// dimension it shortens, as XLA's does): -1 for a new or reshaped
// dimension. Empty for other ops.
std::vector<int64_t> SourceDims(const Instruction* value) {
  const Shape& shape = value->shape();
  std::vector<int64_t> source(static_cast<size_t>(shape.rank()), -1);
  switch (value->opcode()) {
    case Opcode::kTranspose:
      return value->dimensions;  // result dimension d is operand's perm[d]
    case Opcode::kBroadcast:
      for (size_t s = 0; s < value->dimensions.size(); ++s)
        source[static_cast<size_t>(value->dimensions[s])] =
            static_cast<int64_t>(s);
      return source;
    case Opcode::kSlice:
      for (int64_t d = 0; d < shape.rank(); ++d)
        source[static_cast<size_t>(d)] = d;
      return source;
    case Opcode::kReshape: {
      // The leading dimensions the reshape leaves as they are: batch
      // dimensions in front of a flattened or split remainder.
      const Shape& operand = value->operand(0)->shape();
      for (int64_t d = 0; d < shape.rank() && d < operand.rank() &&
                          operand.dim(d) == shape.dim(d);
           ++d)
        source[static_cast<size_t>(d)] = d;
      return source;
    }
    default:
      return {};
  }
}

std::optional<Tiling> TilingOf(const Instruction* value, int depth) {
  if (!value->shape().IsArray()) return std::nullopt;
  if (value->sharding.has_value()) return OwnTiling(value);
  if (depth == 0 || value->operand_count() == 0) return std::nullopt;
  const Opcode opcode = value->opcode();
  if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
      opcode == Opcode::kConvert || opcode == Opcode::kCopy ||
      opcode == Opcode::kSelect) {
    for (const Instruction* operand : value->operands()) {
      if (operand->shape().dims() != value->shape().dims()) continue;
      std::optional<Tiling> found = TilingOf(operand, depth - 1);
      if (found.has_value()) return found;
    }
    return std::nullopt;
  }
  const std::vector<int64_t> source = SourceDims(value);
  if (source.empty()) return std::nullopt;
  std::optional<Tiling> from = TilingOf(value->operand(0), depth - 1);
  if (!from.has_value()) return std::nullopt;
  return Remap(*from, source);
}

// How the call is split: the block count of each batch dimension (some
// above 1), and the devices holding each block.
struct BatchSplit {
  std::vector<int64_t> tiles;
  int64_t replicas = 1;
};

// XLA (custom_call_batch_partitioner.cc) takes the batch sharding from the
// operands with more dimensions than batch dimensions only, and gathers the
// others; the first such operand that splits a batch dimension decides.
std::optional<BatchSplit> FindSplit(const Instruction* call,
                                    int64_t num_batch_dims) {
  for (const Instruction* operand : call->operands()) {
    if (!operand->shape().IsArray() ||
        operand->shape().rank() <= num_batch_dims)
      continue;
    std::optional<Tiling> tiling = TilingOf(operand);
    if (!tiling.has_value()) continue;
    BatchSplit split;
    int64_t blocks = 1;
    for (int64_t d = 0; d < num_batch_dims; ++d) {
      split.tiles.push_back(tiling->tiles[static_cast<size_t>(d)]);
      blocks *= split.tiles.back();
    }
    if (blocks <= 1) continue;
    if (tiling->devices % blocks != 0) return std::nullopt;
    split.replicas = tiling->devices / blocks;
    return split;
  }
  return std::nullopt;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// `shape` with its batch dimensions rounded up to a whole number of blocks
// (XLA pads an uneven split so that every device's block has one shape), or
// divided into one block when `block`.
Shape BatchShape(const Shape& shape, const BatchSplit& split, bool block) {
  if (shape.rank() < static_cast<int64_t>(split.tiles.size())) return shape;
  std::vector<int64_t> dims = shape.dims();
  for (size_t d = 0; d < split.tiles.size(); ++d) {
    const int64_t per_block = CeilDiv(dims[d], split.tiles[d]);
    dims[d] = block ? per_block : per_block * split.tiles[d];
  }
  return Shape::Array(shape.element_type(), std::move(dims),
                      shape.minor_to_major());
}

// Each batch dimension split into blocks over its own mesh axis; the other
// dimensions (and an operand with fewer dimensions than batch dimensions)
// are whole on every device.
TensorSharding BatchSharding(const Shape& shape, const BatchSplit& split) {
  TensorSharding sharding;
  sharding.dims.resize(static_cast<size_t>(shape.rank()));
  if (shape.rank() < static_cast<int64_t>(split.tiles.size())) return sharding;
  for (size_t d = 0; d < split.tiles.size(); ++d)
    if (split.tiles[d] > 1) sharding.dims[d] = {"batch" + std::to_string(d)};
  return sharding;
}

// Pads `value` with zeros to `padded` (its batch dimensions grown at the
// end), before `before`.
Instruction* PadTo(Computation* computation, Instruction* value,
                   const Shape& padded, const Instruction* before) {
  if (padded.dims() == value->shape().dims()) return value;
  const Shape scalar = Shape::Scalar(value->shape().element_type());
  auto zero = std::make_unique<Instruction>(Opcode::kConstant, scalar);
  zero->set_name(value->name() + ".batch_pad_value");
  zero->literal = Literal(scalar);
  Instruction* zero_value =
      computation->InsertInstructionBefore(std::move(zero), before);
  auto pad = std::make_unique<Instruction>(Opcode::kPad, padded);
  pad->set_name(value->name() + ".batch_padded");
  pad->set_location(before->location());
  pad->AppendOperand(value);
  pad->AppendOperand(zero_value);
  for (int64_t d = 0; d < padded.rank(); ++d)
    pad->padding.push_back({0, padded.dim(d) - value->shape().dim(d), 0});
  return computation->InsertInstructionBefore(std::move(pad), before);
}

// `value` cut back to `shape` (its leading part), before `before`.
Instruction* SliceTo(Computation* computation, Instruction* value,
                     const Shape& shape, const Instruction* before) {
  if (shape.dims() == value->shape().dims()) return value;
  auto slice = std::make_unique<Instruction>(Opcode::kSlice, shape);
  slice->set_name(value->name() + ".unpadded");
  slice->set_location(before->location());
  slice->AppendOperand(value);
  slice->slice_starts.assign(static_cast<size_t>(shape.rank()), 0);
  slice->slice_limits = shape.dims();
  slice->slice_strides.assign(static_cast<size_t>(shape.rank()), 1);
  return computation->InsertInstructionBefore(std::move(slice), before);
}

Instruction* Insert(Computation* computation, const Instruction* before,
                    Opcode opcode, Shape shape,
                    std::vector<Instruction*> operands, std::string name) {
  auto inst = std::make_unique<Instruction>(opcode, std::move(shape));
  inst->set_name(std::move(name));
  inst->set_location(before->location());
  for (Instruction* operand : operands) inst->AppendOperand(operand);
  return computation->InsertInstructionBefore(std::move(inst), before);
}

// Rewrites `call` (in `computation`) into a manual computation; false when
// it stays whole.
bool Partition(Module& module, Computation* computation, Instruction* call,
               int64_t num_batch_dims) {
  for (const Instruction* operand : call->operands())
    if (!operand->shape().IsArray()) return false;
  std::vector<Shape> results = call->shape().IsTuple()
                                   ? call->shape().tuple_shapes()
                                   : std::vector<Shape>{call->shape()};
  // XLA gives a result with fewer dimensions than batch dimensions a
  // replicated sharding while each device computes it from its own blocks;
  // xffi leaves such a call whole rather than pick one device's values.
  for (const Shape& result : results)
    if (!result.IsArray() || result.rank() < num_batch_dims) return false;
  std::optional<BatchSplit> found = FindSplit(call, num_batch_dims);
  if (!found.has_value()) return false;
  const BatchSplit& split = *found;

  // The body: the call on one device's blocks.
  auto body = std::make_unique<Computation>(call->name() + ".per_device");
  ManualComputationConfig config;
  for (size_t d = 0; d < split.tiles.size(); ++d) {
    if (split.tiles[d] == 1) continue;
    config.mesh.axis_names.push_back("batch" + std::to_string(d));
    config.mesh.axis_sizes.push_back(split.tiles[d]);
  }
  // Devices that hold the same block each run the call too, as under XLA.
  if (split.replicas > 1) {
    config.mesh.axis_names.push_back("replica");
    config.mesh.axis_sizes.push_back(split.replicas);
  }
  config.manual_axes = config.mesh.axis_names;
  auto local = std::make_unique<Instruction>(*call);
  std::vector<Instruction*> operands;
  for (int64_t i = 0; i < call->operand_count(); ++i) {
    Instruction* operand = call->operand(i);
    const Shape& shape = operand->shape();
    operands.push_back(
        PadTo(computation, operand, BatchShape(shape, split, false), call));
    Instruction* parameter =
        body->AddInstruction(Opcode::kParameter, BatchShape(shape, split, true),
                             {}, "block." + std::to_string(i));
    parameter->parameter_number = i;
    local->ReplaceOperand(i, parameter);
    config.in_shardings.push_back(BatchSharding(shape, split));
  }
  std::vector<Shape> local_results, padded_results;
  for (const Shape& result : results) {
    local_results.push_back(BatchShape(result, split, true));
    padded_results.push_back(BatchShape(result, split, false));
    config.out_shardings.push_back(BatchSharding(result, split));
  }
  local->set_shape(call->shape().IsTuple() ? Shape::Tuple(local_results)
                                           : local_results[0]);
  for (Shape& layout : local->custom_call.operand_layouts)
    layout = BatchShape(layout, split, true);
  for (Shape& layout : local->custom_call.result_layouts)
    layout = BatchShape(layout, split, true);
  local->sharding.reset();
  body->set_root(body->AddInstruction(std::move(local)));
  Computation* added = module.AddComputation(std::move(body));

  const bool tuple = call->shape().IsTuple();
  Instruction* manual =
      Insert(computation, call, Opcode::kManualComputation,
             tuple ? Shape::Tuple(padded_results) : padded_results[0], operands,
             call->name() + ".batch_partitioned");
  manual->manual_computation = std::move(config);
  manual->AppendCalledComputation(added);
  // Each result back to its own shape, where padding grew it.
  Instruction* replacement = manual;
  if (!tuple) {
    replacement = SliceTo(computation, manual, results[0], call);
  } else if (padded_results != results) {
    std::vector<Instruction*> elements;
    for (size_t i = 0; i < results.size(); ++i) {
      Instruction* element =
          Insert(computation, call, Opcode::kGetTupleElement, padded_results[i],
                 {manual}, manual->name() + ".element" + std::to_string(i));
      element->tuple_index = static_cast<int64_t>(i);
      elements.push_back(SliceTo(computation, element, results[i], call));
    }
    replacement = Insert(computation, call, Opcode::kTuple, call->shape(),
                         elements, manual->name() + ".unpadded");
  }
  for (const auto& user : computation->instructions())
    for (int64_t i = 0; i < user->operand_count(); ++i)
      if (user->operand(i) == call) user->ReplaceOperand(i, replacement);
  if (computation->root() == call) computation->set_root(replacement);
  computation->RemoveInstructionsIf(
      [call](const Instruction* inst) { return inst == call; });
  return true;
}

bool IsPartitionable(const Instruction* inst) {
  return inst->opcode() == Opcode::kCustomCall &&
         !IsGspmdMarker(inst->custom_call.target) &&
         IsBatchPartitionable(inst->custom_call.target);
}

// Whether `callee` makes a batch-partitionable call, itself or through the
// functions it calls.
bool ReachesPartitionableCall(const Computation* callee, int depth = 64) {
  for (const auto& inst : callee->instructions()) {
    if (IsPartitionable(inst.get())) return true;
    if (inst->opcode() == Opcode::kCall && depth > 0)
      for (const Computation* called : inst->called_computations())
        if (ReachesPartitionableCall(called, depth - 1)) return true;
  }
  return false;
}

// A call of a private function (JAX makes one of a nested jax.jit) that
// leads to a batch-partitionable call: inlined into the entry, the call
// meets its operands' shardings, as in XLA, which inlines first. Not the
// body of a GSPMD shard_map (its operands come from SPMDFullToShardShape),
// where calls run on the device's own values.
bool LeadsToPartitionableCall(const Instruction* call) {
  for (const Instruction* operand : call->operands())
    if (operand->opcode() == Opcode::kCustomCall &&
        operand->custom_call.target == "SPMDFullToShardShape")
      return false;
  return ReachesPartitionableCall(call->called_computations()[0]);
}

}  // namespace

StatusOr<bool> BatchPartitioning::Run(Module& module) {
  Computation* entry = module.entry();
  if (entry == nullptr) return false;
  bool changed = InlineEntryCalls(module, LeadsToPartitionableCall);
  std::vector<std::pair<Instruction*, int64_t>> calls;
  for (const auto& inst : entry->instructions())
    if (IsPartitionable(inst.get()))
      calls.emplace_back(inst.get(),
                         BatchPartitionableDims(inst->custom_call.target));
  for (const auto& [call, num_batch_dims] : calls)
    changed = Partition(module, entry, call, num_batch_dims) || changed;
  return changed;
}

}  // namespace xffi::passes
