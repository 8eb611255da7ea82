#include "passes/spmd_emulation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "runtime/status_macros.h"

namespace xffi::passes {
namespace {

enum class SpmdOpKind {
  kManualComputation,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kCollectivePermute,
  kPartitionId,
  kReplicaId,
};

// A manual computation or collective as the emulation reads it: the op's
// fields with the device groups resolved.
struct SpmdOp {
  SpmdOpKind kind = SpmdOpKind::kPartitionId;
  std::string op_name;  // "stablehlo.all_reduce", for messages

  // manual computation
  Mesh mesh;
  // GSPMD's form (JAX with Shardy off): a call of the body between
  // SPMDFullToShardShape and SPMDShardToFullShape markers. The mesh is one
  // axis of all devices; each operand's and result's blocks come from its
  // sharding, and the results' global shapes from the markers.
  std::vector<HloSharding> gspmd_in, gspmd_out;
  std::vector<Shape> global_results;
  std::vector<TensorSharding> in_shardings, out_shardings;
  std::vector<std::string> manual_axes;
  const Computation* body = nullptr;

  // collectives: the groups of device ids (empty: one group of all), and
  // whether the ids name partitions (a channel) rather than replicas.
  std::vector<std::vector<int64_t>> groups;
  bool cross_partition = false;
  // all_reduce, reduce_scatter: the elementwise op the region applies, per
  // operand.
  std::vector<Opcode> reductions;
  int64_t dimension = 0;  // all_gather_dim, scatter_dimension
  // split_count 0: the size of each group (HLO does not print it).
  int64_t split_dimension = 0, concat_dimension = 0, split_count = 0;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
};

using SpmdOps = std::unordered_map<const Instruction*, SpmdOp>;

// Fresh names for what the emulation makes: "add.spmd.3" for instructions,
// "body.devices" for computations, none already in the module.
class Naming {
 public:
  explicit Naming(
      const std::vector<std::unique_ptr<Computation>>& computations) {
    for (const auto& c : computations) {
      used_.insert(c->name());
      for (const auto& inst : c->instructions()) used_.insert(inst->name());
    }
  }
  std::string Instruction(Opcode opcode) {
    return Fresh(std::string(OpcodeName(opcode)) + ".spmd");
  }
  std::string Computation(const std::string& base) {
    if (used_.insert(base).second) return base;
    return Fresh(base);
  }

 private:
  std::string Fresh(const std::string& base) {
    std::string name;
    do {
      name = base + "." + std::to_string(next_++);
    } while (!used_.insert(name).second);
    return name;
  }
  std::unordered_set<std::string> used_;
  int64_t next_ = 0;
};

// The op a reduction region applies when its `result` is one elementwise
// op (add, multiply, maximum, minimum, and, or, xor) of `lhs` and `rhs`:
// the only regions xffi folds across devices.
std::optional<Opcode> FoldableReduction(const Instruction* result,
                                        const Instruction* lhs,
                                        const Instruction* rhs);
extern const char kFoldableReductionRule[];

// "file:4:7: stablehlo.all_reduce: <message>": the op as the text spelled
// it, where it is.
Status ErrorAt(const Instruction* inst, const std::string& what,
               const std::string& message) {
  std::string where = inst->location().known()
                          ? inst->location().ToString() + ": "
                          : std::string();
  return InvalidArgument(where + what + ": " + message);
}

// A value of the manual computation's body on each device, by mesh position.
using PerDevice = std::vector<Instruction*>;
using ValueMap = std::unordered_map<const Instruction*, PerDevice>;

std::string ShapeText(const Shape& shape) { return shape.ToString(false); }

class Emulator {
 public:
  Emulator(const SpmdOps& ops, Naming& naming, int64_t num_partitions)
      : ops_(ops), naming_(naming), num_partitions_(num_partitions) {}

  Status Run(std::vector<std::unique_ptr<Computation>>* computations,
             Computation** entry);

 private:
  struct Devices {
    const SpmdOp* manual = nullptr;  // the innermost manual computation
    int64_t count = 1;
    std::vector<int64_t> position_of_id;
    std::vector<std::string> manual_axes;  // of it and those around it
  };

  bool Dependent(const Computation* computation);
  const SpmdOp* SpmdOf(const Instruction* inst) const {
    auto it = ops_.find(inst);
    return it == ops_.end() ? nullptr : &it->second;
  }

  Instruction* Emit(Computation* target, const Instruction* origin,
                    Opcode opcode, Shape shape,
                    std::vector<Instruction*> operands);
  Instruction* Clone(const Instruction* inst, Computation* target,
                     const std::vector<Instruction*>& operands, bool rename);
  Instruction* Slice(Computation* target, const Instruction* origin,
                     Instruction* value, int64_t dim, int64_t start,
                     int64_t size);
  Instruction* Concat(Computation* target, const Instruction* origin,
                      const std::vector<Instruction*>& pieces, int64_t dim);
  Instruction* Element(Computation* target, const Instruction* origin,
                       Instruction* tuple, int64_t index);

  Status ClonePlain(const Computation* from, Computation* to);
  Status FindGspmdShardMaps(
      const std::vector<std::unique_ptr<Computation>>& computations);
  // `operands`: each operand's value on every device (one entry: the same
  // on all). `outer`: the devices of the manual computation this one is
  // nested in, or null at the top level, where the result is the global
  // value (entry 0).
  StatusOr<PerDevice> ExpandManual(const Instruction* inst, const SpmdOp& op,
                                   Computation* target,
                                   const std::vector<PerDevice>& operands,
                                   const Devices* outer);
  Status ExpandBody(const Computation* body,
                    const std::vector<PerDevice>& arguments,
                    Computation* target, const Devices& devices,
                    ValueMap* values);
  StatusOr<PerDevice> ExpandCollective(const Instruction* inst,
                                       const SpmdOp& op, Computation* target,
                                       const Devices& devices,
                                       const ValueMap& values);
  StatusOr<PerDevice> ExpandWhile(const Instruction* inst, Computation* target,
                                  const Devices& devices,
                                  const ValueMap& values);
  StatusOr<std::vector<std::vector<int64_t>>> Groups(const Instruction* inst,
                                                     const SpmdOp& op,
                                                     const Devices& devices);

  const SpmdOps& ops_;
  Naming& naming_;
  int64_t num_partitions_;  // 0: not known
  // GSPMD shard_maps, by the call of their body: the manual computation it
  // stands for and the global operands. The markers around the call are
  // skipped; each SPMDShardToFullShape reads result r of the expansion.
  struct GspmdShardMap {
    SpmdOp op;
    std::vector<const Instruction*> globals;
    std::vector<bool> read;
  };
  std::unordered_map<const Instruction*, GspmdShardMap> gspmd_calls_;
  std::set<const Instruction*> gspmd_glue_;
  std::unordered_map<const Instruction*, std::pair<const Instruction*, int64_t>>
      gspmd_results_;
  std::unordered_map<const Instruction*, Instruction*> gspmd_values_;
  std::unordered_map<const Computation*, Computation*> plain_;
  std::unordered_map<const Computation*, bool> dependent_;
  std::vector<std::unique_ptr<Computation>> created_;
  // Collectives copied as they are (a collective outside any manual
  // computation), in case the computation holding one is reachable.
  std::unordered_map<const Instruction*, const Instruction*> leftovers_;
};

bool Emulator::Dependent(const Computation* computation) {
  auto it = dependent_.find(computation);
  if (it != dependent_.end()) return it->second;
  dependent_[computation] = false;  // a recursive call cannot add to it
  bool dependent = false;
  for (const auto& inst : computation->instructions()) {
    // A nested manual computation depends on the device too: its operands
    // are the device's own values.
    if (SpmdOf(inst.get()) != nullptr) dependent = true;
    for (const Computation* called : inst->called_computations())
      if (Dependent(called)) dependent = true;
  }
  dependent_[computation] = dependent;
  return dependent;
}

Instruction* Emulator::Emit(Computation* target, const Instruction* origin,
                            Opcode opcode, Shape shape,
                            std::vector<Instruction*> operands) {
  Instruction* inst =
      target->AddInstruction(opcode, std::move(shape), std::move(operands),
                             naming_.Instruction(opcode));
  inst->set_location(origin->location());
  return inst;
}

Instruction* Emulator::Clone(const Instruction* inst, Computation* target,
                             const std::vector<Instruction*>& operands,
                             bool rename) {
  auto copy = std::make_unique<Instruction>(*inst);
  for (int64_t i = 0; i < copy->operand_count(); ++i)
    copy->ReplaceOperand(i, operands[static_cast<size_t>(i)]);
  for (size_t i = 0; i < copy->called_computations().size(); ++i)
    copy->ReplaceCalledComputation(i,
                                   plain_.at(copy->called_computations()[i]));
  if (rename) copy->set_name(naming_.Instruction(inst->opcode()));
  return target->AddInstruction(std::move(copy));
}

Instruction* Emulator::Slice(Computation* target, const Instruction* origin,
                             Instruction* value, int64_t dim, int64_t start,
                             int64_t size) {
  const Shape& shape = value->shape();
  if (start == 0 && size == shape.dim(dim)) return value;
  std::vector<int64_t> dims = shape.dims();
  dims[static_cast<size_t>(dim)] = size;
  Instruction* slice = Emit(target, origin, Opcode::kSlice,
                            Shape::Array(shape.element_type(), dims), {value});
  slice->slice_starts.assign(dims.size(), 0);
  slice->slice_limits = shape.dims();
  slice->slice_strides.assign(dims.size(), 1);
  slice->slice_starts[static_cast<size_t>(dim)] = start;
  slice->slice_limits[static_cast<size_t>(dim)] = start + size;
  return slice;
}

Instruction* Emulator::Concat(Computation* target, const Instruction* origin,
                              const std::vector<Instruction*>& pieces,
                              int64_t dim) {
  if (pieces.size() == 1) return pieces[0];
  std::vector<int64_t> dims = pieces[0]->shape().dims();
  dims[static_cast<size_t>(dim)] = 0;
  for (Instruction* piece : pieces)
    dims[static_cast<size_t>(dim)] += piece->shape().dim(dim);
  Instruction* concat =
      Emit(target, origin, Opcode::kConcatenate,
           Shape::Array(pieces[0]->shape().element_type(), dims), pieces);
  concat->dimensions = {dim};
  return concat;
}

Instruction* Emulator::Element(Computation* target, const Instruction* origin,
                               Instruction* tuple, int64_t index) {
  if (tuple->opcode() == Opcode::kTuple) return tuple->operand(index);
  Instruction* element = Emit(target, origin, Opcode::kGetTupleElement,
                              tuple->shape().tuple_shape(index), {tuple});
  element->tuple_index = index;
  return element;
}

Status Emulator::Run(std::vector<std::unique_ptr<Computation>>* computations,
                     Computation** entry) {
  XFFI_RETURN_IF_ERROR(FindGspmdShardMaps(*computations));
  for (const auto& c : *computations) {
    created_.push_back(std::make_unique<Computation>(c->name()));
    plain_[c.get()] = created_.back().get();
  }
  for (const auto& c : *computations)
    XFFI_RETURN_IF_ERROR(ClonePlain(c.get(), plain_.at(c.get())));

  // Only what the entry reaches stays: the bodies and the functions the
  // emulation inlined are no longer called, and a kept copy of one would
  // still hold the collectives.
  Computation* new_entry = plain_.at(*entry);
  std::set<const Computation*> reachable;
  std::vector<const Computation*> stack = {new_entry};
  while (!stack.empty()) {
    const Computation* c = stack.back();
    stack.pop_back();
    if (!reachable.insert(c).second) continue;
    for (const auto& inst : c->instructions())
      for (const Computation* called : inst->called_computations())
        stack.push_back(called);
  }
  for (const auto& [copy, original] : leftovers_)
    if (reachable.count(copy->parent()))
      return ErrorAt(original, SpmdOf(original)->op_name,
                     "only supported inside an sdy.manual_computation "
                     "(a shard_map body), where xffi runs each device");
  computations->clear();
  for (auto& c : created_)
    if (reachable.count(c.get())) computations->push_back(std::move(c));
  *entry = new_entry;
  return Status::Ok();
}

Status Emulator::FindGspmdShardMaps(
    const std::vector<std::unique_ptr<Computation>>& computations) {
  auto marker = [](const Instruction* inst, std::string_view target) {
    return inst->opcode() == Opcode::kCustomCall &&
           inst->custom_call.target == target && inst->operand_count() == 1;
  };
  auto sharding_of = [&](const Instruction* inst) -> StatusOr<HloSharding> {
    if (!inst->sharding.has_value())
      return ErrorAt(inst, inst->custom_call.target, "has no sharding");
    return *inst->sharding;
  };
  const std::string what = "SPMDShardToFullShape";
  for (const auto& c : computations) {
    for (const auto& holder : c->instructions()) {
      const Instruction* full = holder.get();
      if (!marker(full, "SPMDShardToFullShape")) continue;
      const Instruction* value = full->operand(0);
      if (marker(value, "Sharding")) {
        gspmd_glue_.insert(value);
        value = value->operand(0);
      }
      int64_t r = 0;
      if (value->opcode() == Opcode::kGetTupleElement) {
        gspmd_glue_.insert(value);
        r = value->tuple_index;
        value = value->operand(0);
      }
      if (value->opcode() != Opcode::kCall)
        return ErrorAt(full, what,
                       "expected a result of the call of a shard_map body "
                       "(through a Sharding), as JAX prints it");
      auto [it, fresh] = gspmd_calls_.try_emplace(value);
      GspmdShardMap& shard_map = it->second;
      SpmdOp& op = shard_map.op;
      if (fresh) {
        op.kind = SpmdOpKind::kManualComputation;
        op.op_name = "shard_map";
        op.body = value->called_computations()[0];
        for (const Instruction* local : value->operands()) {
          if (!marker(local, "SPMDFullToShardShape"))
            return ErrorAt(value, "shard_map",
                           "each operand of the body's call must come from "
                           "an SPMDFullToShardShape");
          gspmd_glue_.insert(local);
          const Instruction* annotated = local->operand(0);
          if (!marker(annotated, "Sharding"))
            return ErrorAt(local, "SPMDFullToShardShape",
                           "its operand must be a Sharding that says how "
                           "the value is split");
          gspmd_glue_.insert(annotated);
          XFFI_ASSIGN_OR_RETURN(HloSharding sharding, sharding_of(annotated));
          op.gspmd_in.push_back(std::move(sharding));
          shard_map.globals.push_back(annotated->operand(0));
        }
        size_t results = value->shape().IsTuple()
                             ? static_cast<size_t>(value->shape().tuple_size())
                             : 1;
        op.gspmd_out.resize(results);
        op.global_results.resize(results);
        shard_map.read.assign(results, false);
      }
      if (r < 0 || static_cast<size_t>(r) >= shard_map.read.size() ||
          shard_map.read[static_cast<size_t>(r)])
        return ErrorAt(full, what,
                       "reads result " + std::to_string(r) +
                           " of the shard_map body's call, which does not "
                           "exist or another one reads");
      XFFI_ASSIGN_OR_RETURN(op.gspmd_out[static_cast<size_t>(r)],
                            sharding_of(full));
      op.global_results[static_cast<size_t>(r)] = full->shape();
      shard_map.read[static_cast<size_t>(r)] = true;
      gspmd_results_[full] = {value, r};
    }
  }
  for (auto& [call, shard_map] : gspmd_calls_) {
    for (size_t r = 0; r < shard_map.read.size(); ++r)
      if (!shard_map.read[r])
        return ErrorAt(call, "shard_map",
                       "result " + std::to_string(r) +
                           " of the body's call is not read through "
                           "SPMDShardToFullShape");
    // One mesh axis of all the devices the tile assignments name.
    int64_t devices = num_partitions_;
    for (const auto* list : {&shard_map.op.gspmd_in, &shard_map.op.gspmd_out})
      for (const HloSharding& sharding : *list)
        if (sharding.kind == HloSharding::Kind::kTiled) {
          int64_t n = static_cast<int64_t>(sharding.devices.size());
          if (devices != 0 && n != devices)
            return ErrorAt(call, "shard_map",
                           "its shardings tile over " + std::to_string(n) +
                               " and " + std::to_string(devices) + " devices");
          devices = n;
        }
    if (devices == 0)
      return ErrorAt(call, "shard_map",
                     "every sharding is replicated, and the program does "
                     "not say how many devices it runs on "
                     "(mhlo.num_partitions)");
    shard_map.op.mesh.axis_names = {"devices"};
    shard_map.op.mesh.axis_sizes = {devices};
    shard_map.op.manual_axes = {"devices"};
  }
  // The markers and calls go; nothing else may read them.
  for (const auto& c : computations) {
    for (const auto& holder : c->instructions()) {
      const Instruction* inst = holder.get();
      bool member = gspmd_glue_.count(inst) || gspmd_calls_.count(inst) ||
                    gspmd_results_.count(inst);
      for (const Instruction* operand : inst->operands())
        if (!member &&
            (gspmd_glue_.count(operand) || gspmd_calls_.count(operand)))
          return ErrorAt(inst, std::string(OpcodeName(inst->opcode())),
                         "reads a value inside a shard_map's markers, "
                         "which xffi replaces");
      if (c->root() == inst &&
          (gspmd_glue_.count(inst) || gspmd_calls_.count(inst)))
        return ErrorAt(inst, "shard_map",
                       "a marker of a shard_map is a computation's result");
    }
  }
  return Status::Ok();
}

Status Emulator::ClonePlain(const Computation* from, Computation* to) {
  std::unordered_map<const Instruction*, Instruction*> map;
  for (const auto& holder : from->instructions()) {
    const Instruction* inst = holder.get();
    if (gspmd_glue_.count(inst)) continue;
    if (auto call = gspmd_calls_.find(inst); call != gspmd_calls_.end()) {
      std::vector<PerDevice> global;
      for (const Instruction* x : call->second.globals)
        global.push_back({map.at(x)});
      XFFI_ASSIGN_OR_RETURN(
          PerDevice expanded,
          ExpandManual(inst, call->second.op, to, global, nullptr));
      gspmd_values_[inst] = expanded[0];
      continue;
    }
    if (auto result = gspmd_results_.find(inst);
        result != gspmd_results_.end()) {
      Instruction* value = gspmd_values_.at(result->second.first);
      map[inst] = value->shape().IsTuple()
                      ? Element(to, inst, value, result->second.second)
                      : value;
      continue;
    }
    if (inst->opcode() == Opcode::kCustomCall &&
        IsGspmdMarker(inst->custom_call.target)) {
      // A sharding annotation outside a shard_map does not change values.
      if (inst->custom_call.target == "Sharding" &&
          inst->operand_count() == 1) {
        map[inst] = map.at(inst->operand(0));
        continue;
      }
      return ErrorAt(inst, inst->custom_call.target,
                     "not part of a shard_map xffi recognizes (Sharding and "
                     "SPMDFullToShardShape on each operand, a call of the "
                     "body, Sharding and SPMDShardToFullShape on each "
                     "result)");
    }
    std::vector<Instruction*> operands;
    for (const Instruction* operand : inst->operands())
      operands.push_back(map.at(operand));
    const SpmdOp* op = SpmdOf(inst);
    if (op != nullptr && op->kind == SpmdOpKind::kManualComputation) {
      std::vector<PerDevice> global;
      for (Instruction* operand : operands) global.push_back({operand});
      XFFI_ASSIGN_OR_RETURN(PerDevice expanded,
                            ExpandManual(inst, *op, to, global, nullptr));
      map[inst] = expanded[0];
      continue;
    }
    map[inst] = Clone(inst, to, operands, /*rename=*/false);
    if (op != nullptr) leftovers_[map[inst]] = inst;
  }
  if (from->root() != nullptr) to->set_root(map.at(from->root()));
  return Status::Ok();
}

StatusOr<PerDevice> Emulator::ExpandManual(
    const Instruction* inst, const SpmdOp& op, Computation* target,
    const std::vector<PerDevice>& operands, const Devices* outer) {
  const std::string what = op.op_name;
  const Mesh& mesh = op.mesh;
  Devices devices;
  if (outer != nullptr) {
    // Nested: the same devices, now also manual along more axes.
    const Mesh& outer_mesh = outer->manual->mesh;
    if (!mesh.SameDevices(outer_mesh))
      return ErrorAt(inst, what,
                     "a manual computation nested in one over another mesh "
                     "is not supported");
    devices = *outer;
  } else {
    devices.count = mesh.device_count();
    devices.position_of_id.assign(static_cast<size_t>(devices.count), 0);
    for (int64_t p = 0; p < devices.count; ++p)
      devices.position_of_id[static_cast<size_t>(mesh.DeviceId(p))] = p;
  }
  devices.manual = &op;
  std::vector<bool> manual(mesh.axis_names.size(), false);
  for (const std::string& axis : op.manual_axes) {
    int64_t index = mesh.AxisIndex(axis);
    if (index < 0)
      return ErrorAt(inst, what,
                     "manual axis \"" + axis + "\" is not an axis of the mesh");
    if (outer != nullptr && std::count(outer->manual_axes.begin(),
                                       outer->manual_axes.end(), axis) != 0)
      return ErrorAt(inst, what,
                     "manual axis \"" + axis +
                         "\" is already manual in the enclosing manual "
                         "computation");
    manual[static_cast<size_t>(index)] = true;
  }
  for (const std::string& axis : op.manual_axes)
    devices.manual_axes.push_back(axis);
  // The coordinate of each device along each axis (the last axis fastest).
  auto coordinate = [&](int64_t position, size_t axis) {
    int64_t stride = 1;
    for (size_t a = axis + 1; a < mesh.axis_sizes.size(); ++a)
      stride *= mesh.axis_sizes[a];
    return position / stride % mesh.axis_sizes[axis];
  };
  // For a sharding and a rank: each dimension's block count, and each
  // device's block index along each dimension.
  struct Tiling {
    std::vector<int64_t> blocks;
    std::vector<std::vector<int64_t>> index;  // [device][dim]
  };
  auto tiling = [&](const TensorSharding& sharding, int64_t rank,
                    const std::string& value) -> StatusOr<Tiling> {
    if (static_cast<int64_t>(sharding.dims.size()) != rank)
      return ErrorAt(inst, what,
                     "the sharding of " + value + " names " +
                         std::to_string(sharding.dims.size()) +
                         " dimension(s), the value has " +
                         std::to_string(rank));
    Tiling t;
    t.blocks.assign(static_cast<size_t>(rank), 1);
    t.index.assign(static_cast<size_t>(devices.count),
                   std::vector<int64_t>(static_cast<size_t>(rank), 0));
    std::set<std::string> used;
    for (int64_t d = 0; d < rank; ++d) {
      for (const std::string& axis : sharding.dims[static_cast<size_t>(d)]) {
        int64_t a = mesh.AxisIndex(axis);
        if (a < 0)
          return ErrorAt(inst, what,
                         "the sharding of " + value + " names axis \"" + axis +
                             "\", which the mesh does not have");
        if (!used.insert(axis).second)
          return ErrorAt(
              inst, what,
              "the sharding of " + value + " uses axis \"" + axis + "\" twice");
        // Free (non-manual) axes leave the body's view of the value whole.
        if (!manual[static_cast<size_t>(a)]) continue;
        int64_t size = mesh.axis_sizes[static_cast<size_t>(a)];
        t.blocks[static_cast<size_t>(d)] *= size;
        for (int64_t p = 0; p < devices.count; ++p) {
          int64_t& index =
              t.index[static_cast<size_t>(p)][static_cast<size_t>(d)];
          index = index * size + coordinate(p, static_cast<size_t>(a));
        }
      }
    }
    return t;
  };

  // GSPMD: the tile of each device, read from the tile assignment.
  auto GspmdTiling = [&](const HloSharding& sharding, int64_t rank,
                         const std::string& value) -> StatusOr<Tiling> {
    Tiling t;
    t.blocks.assign(static_cast<size_t>(rank), 1);
    t.index.assign(static_cast<size_t>(devices.count),
                   std::vector<int64_t>(static_cast<size_t>(rank), 0));
    if (sharding.kind == HloSharding::Kind::kReplicated) return t;
    if (sharding.kind != HloSharding::Kind::kTiled)
      return ErrorAt(
          inst, what,
          "the sharding of " + value + " is neither replicated nor tiled");
    const std::vector<int64_t>& tiles = sharding.tile_dims;
    int64_t dims =
        static_cast<int64_t>(tiles.size()) - (sharding.replicated_last ? 1 : 0);
    if (dims != rank ||
        static_cast<int64_t>(sharding.devices.size()) != devices.count)
      return ErrorAt(inst, what,
                     "the sharding of " + value + " tiles " +
                         std::to_string(dims) + " dimension(s) over " +
                         std::to_string(sharding.devices.size()) +
                         " devices; the value has " + std::to_string(rank) +
                         " and the program " + std::to_string(devices.count));
    for (int64_t d = 0; d < rank; ++d)
      t.blocks[static_cast<size_t>(d)] = tiles[static_cast<size_t>(d)];
    for (size_t q = 0; q < sharding.devices.size(); ++q) {
      // Tile q's coordinates, the last tile dimension fastest.
      int64_t rest = static_cast<int64_t>(q);
      std::vector<int64_t> coords(tiles.size());
      for (size_t k = tiles.size(); k-- > 0;) {
        coords[k] = rest % tiles[k];
        rest /= tiles[k];
      }
      size_t p = static_cast<size_t>(
          devices.position_of_id[static_cast<size_t>(sharding.devices[q])]);
      for (int64_t d = 0; d < rank; ++d)
        t.index[p][static_cast<size_t>(d)] = coords[static_cast<size_t>(d)];
    }
    return t;
  };

  const Computation* body = op.body;
  std::vector<Instruction*> params = body->parameters();
  const bool gspmd = !op.global_results.empty();
  const size_t in_count = gspmd ? op.gspmd_in.size() : op.in_shardings.size();
  const size_t out_count =
      gspmd ? op.gspmd_out.size() : op.out_shardings.size();
  // Input i's (or result r's) blocks, from either kind of sharding.
  auto tiling_of = [&](bool input, size_t i, int64_t rank,
                       const std::string& value) -> StatusOr<Tiling> {
    if (gspmd)
      return GspmdTiling(input ? op.gspmd_in[i] : op.gspmd_out[i], rank, value);
    return tiling(input ? op.in_shardings[i] : op.out_shardings[i], rank,
                  value);
  };
  if (operands.size() != in_count || params.size() != operands.size())
    return ErrorAt(inst, what,
                   std::to_string(operands.size()) + " operand(s), " +
                       std::to_string(in_count) + " in_sharding(s) and " +
                       std::to_string(params.size()) +
                       " body argument(s); they must agree");
  std::vector<PerDevice> arguments;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& shape = operands[i][0]->shape();
    std::string value = "operand " + std::to_string(i);
    if (!shape.IsArray())
      return ErrorAt(inst, what, value + " is not an array");
    XFFI_ASSIGN_OR_RETURN(Tiling t, tiling_of(true, i, shape.rank(), value));
    std::vector<int64_t> local = shape.dims();
    for (size_t d = 0; d < local.size(); ++d) {
      if (local[d] % t.blocks[d] != 0)
        return ErrorAt(inst, what,
                       value + " (" + ShapeText(shape) + "): dimension " +
                           std::to_string(d) + " does not split into " +
                           std::to_string(t.blocks[d]) + " equal blocks");
      local[d] /= t.blocks[d];
    }
    if (params[i]->shape().dims() != local ||
        params[i]->shape().element_type() != shape.element_type())
      return ErrorAt(inst, what,
                     value + " (" + ShapeText(shape) +
                         ") splits into blocks of " +
                         ShapeText(Shape::Array(shape.element_type(), local)) +
                         ", the body takes " + ShapeText(params[i]->shape()));
    std::map<std::pair<Instruction*, std::vector<int64_t>>, Instruction*>
        blocks;
    PerDevice per_device;
    for (int64_t p = 0; p < devices.count; ++p) {
      const std::vector<int64_t>& index = t.index[static_cast<size_t>(p)];
      Instruction* whole = operands[i].size() == 1
                               ? operands[i][0]
                               : operands[i][static_cast<size_t>(p)];
      Instruction*& block = blocks[{whole, index}];
      if (block == nullptr) {
        block = whole;
        for (size_t d = 0; d < local.size(); ++d)
          block = Slice(target, inst, block, static_cast<int64_t>(d),
                        index[d] * local[d], local[d]);
      }
      per_device.push_back(block);
    }
    arguments.push_back(std::move(per_device));
  }

  ValueMap values;
  XFFI_RETURN_IF_ERROR(ExpandBody(body, arguments, target, devices, &values));

  // The global result shapes: the manual computation's, or for GSPMD's
  // pattern (whose call has the local shapes) those of its
  // SPMDShardToFullShape.
  const Shape result_shape =
      op.global_results.empty()
          ? inst->shape()
          : (op.global_results.size() == 1 ? op.global_results[0]
                                           : Shape::Tuple(op.global_results));
  std::vector<Shape> result_shapes;
  std::vector<PerDevice> body_results;
  const Instruction* root = body->root();
  if (result_shape.IsTuple()) {
    result_shapes = result_shape.tuple_shapes();
    if (!root->shape().IsTuple() ||
        root->shape().tuple_size() != result_shape.tuple_size())
      return ErrorAt(inst, what,
                     "the body returns " + ShapeText(root->shape()) + " for " +
                         std::to_string(result_shapes.size()) + " results");
    for (int64_t r = 0; r < result_shape.tuple_size(); ++r) {
      PerDevice per_device;
      for (Instruction* value : values.at(root))
        per_device.push_back(Element(target, inst, value, r));
      body_results.push_back(std::move(per_device));
    }
  } else {
    result_shapes = {result_shape};
    body_results = {values.at(root)};
  }
  if (result_shapes.size() != out_count)
    return ErrorAt(inst, what,
                   std::to_string(result_shapes.size()) + " result(s) and " +
                       std::to_string(out_count) + " out_sharding(s)");
  // Devices that differ only along this computation's manual axes hold
  // the blocks of one value; devices that differ along others (the free
  // axes, and the enclosing computation's manual axes) have values of
  // their own. At the top level the free axes see the same whole values, so
  // device 0's group gives the global result.
  auto group_of = [&](int64_t p) {
    std::vector<int64_t> key;
    for (size_t a = 0; a < mesh.axis_sizes.size(); ++a)
      if (!manual[a]) key.push_back(coordinate(p, a));
    return key;
  };
  std::map<std::vector<int64_t>, std::vector<Instruction*>> results;
  for (size_t r = 0; r < result_shapes.size(); ++r) {
    const Shape& shape = result_shapes[r];
    std::string value = "result " + std::to_string(r);
    if (!shape.IsArray())
      return ErrorAt(inst, what, value + " is not an array");
    XFFI_ASSIGN_OR_RETURN(Tiling t, tiling_of(false, r, shape.rank(), value));
    const PerDevice& per_device = body_results[r];
    std::vector<int64_t> local = shape.dims();
    for (size_t d = 0; d < local.size(); ++d) local[d] /= t.blocks[d];
    const Shape& produced = per_device[0]->shape();
    int64_t block_count = 1;
    for (int64_t b : t.blocks) block_count *= b;
    if (produced.dims() != local ||
        produced.element_type() != shape.element_type() ||
        shape.num_elements() != produced.num_elements() * block_count)
      return ErrorAt(inst, what,
                     "the body returns " + ShapeText(produced) + " for " +
                         value + "; its out_sharding makes " +
                         ShapeText(shape) + " of blocks of " +
                         ShapeText(Shape::Array(shape.element_type(), local)));
    // In each group, the device that holds each block (the first, where
    // the block is replicated over other axes).
    std::map<std::vector<int64_t>, std::map<std::vector<int64_t>, Instruction*>>
        holders;
    for (int64_t p = devices.count - 1; p >= 0; --p) {
      std::vector<int64_t> group = group_of(p);
      if (outer == nullptr && group != group_of(0)) continue;
      holders[group][t.index[static_cast<size_t>(p)]] =
          per_device[static_cast<size_t>(p)];
    }
    for (const auto& entry : holders) {
      // A named reference: lambdas may not capture structured bindings
      // before C++20, and clang 14 refuses them.
      const auto& holder = entry.second;
      std::vector<int64_t> prefix;
      std::function<Instruction*(size_t)> assemble = [&](size_t dim) {
        if (dim == local.size()) return holder.at(prefix);
        std::vector<Instruction*> pieces;
        for (int64_t b = 0; b < t.blocks[dim]; ++b) {
          prefix.push_back(b);
          pieces.push_back(assemble(dim + 1));
          prefix.pop_back();
        }
        return Concat(target, inst, pieces, static_cast<int64_t>(dim));
      };
      results[entry.first].push_back(assemble(0));
    }
  }
  std::map<std::vector<int64_t>, Instruction*> packed;
  for (const auto& [group, values] : results)
    packed[group] = result_shape.IsTuple() ? Emit(target, inst, Opcode::kTuple,
                                                  result_shape, values)
                                           : values[0];
  PerDevice out;
  for (int64_t p = 0; p < devices.count; ++p) {
    auto it = packed.find(group_of(p));
    out.push_back(it != packed.end() ? it->second : packed.begin()->second);
  }
  return out;
}

Status Emulator::ExpandBody(const Computation* body,
                            const std::vector<PerDevice>& arguments,
                            Computation* target, const Devices& devices,
                            ValueMap* values) {
  const size_t count = static_cast<size_t>(devices.count);
  for (const auto& holder : body->instructions()) {
    const Instruction* inst = holder.get();
    if (inst->opcode() == Opcode::kParameter) {
      size_t number = static_cast<size_t>(inst->parameter_number);
      if (number >= arguments.size())
        return ErrorAt(inst, "parameter", "has no argument");
      (*values)[inst] = arguments[number];
      continue;
    }
    if (inst->opcode() == Opcode::kCustomCall &&
        IsGspmdMarker(inst->custom_call.target)) {
      if (inst->custom_call.target == "Sharding" &&
          inst->operand_count() == 1) {
        (*values)[inst] = values->at(inst->operand(0));
        continue;
      }
      return ErrorAt(inst, inst->custom_call.target,
                     "a GSPMD shard_map inside a manual computation is not "
                     "supported");
    }
    if (const SpmdOp* op = SpmdOf(inst)) {
      if (op->kind == SpmdOpKind::kManualComputation) {
        std::vector<PerDevice> operands;
        for (const Instruction* operand : inst->operands())
          operands.push_back(values->at(operand));
        XFFI_ASSIGN_OR_RETURN(
            (*values)[inst],
            ExpandManual(inst, *op, target, operands, &devices));
        continue;
      }
      XFFI_ASSIGN_OR_RETURN(
          (*values)[inst],
          ExpandCollective(inst, *op, target, devices, *values));
      continue;
    }
    bool dependent = false;
    for (const Computation* called : inst->called_computations())
      dependent = dependent || Dependent(called);
    if (dependent) {
      if (inst->opcode() == Opcode::kCall) {
        std::vector<PerDevice> call_arguments;
        for (const Instruction* operand : inst->operands())
          call_arguments.push_back(values->at(operand));
        const Computation* callee = inst->called_computations()[0];
        XFFI_RETURN_IF_ERROR(
            ExpandBody(callee, call_arguments, target, devices, values));
        (*values)[inst] = values->at(callee->root());
        continue;
      }
      if (inst->opcode() == Opcode::kWhile) {
        XFFI_ASSIGN_OR_RETURN((*values)[inst],
                              ExpandWhile(inst, target, devices, *values));
        continue;
      }
      return ErrorAt(inst, std::string(OpcodeName(inst->opcode())),
                     "a collective or partition_id inside its region is not "
                     "supported (only inside calls and while loops)");
    }
    // Ops with no operands and no effects (constants, iotas) and ops whose
    // operands are one value on every device compute one value for all; a
    // custom call still runs once per device, as each device would run it.
    bool shared = inst->opcode() != Opcode::kCustomCall;
    for (const Instruction* operand : inst->operands()) {
      const PerDevice& v = values->at(operand);
      shared = shared && std::all_of(v.begin(), v.end(),
                                     [&](Instruction* x) { return x == v[0]; });
    }
    PerDevice per_device;
    for (size_t d = 0; d < count; ++d) {
      if (shared && d > 0) {
        per_device.push_back(per_device[0]);
        continue;
      }
      std::vector<Instruction*> operands;
      for (const Instruction* operand : inst->operands())
        operands.push_back(values->at(operand)[d]);
      per_device.push_back(Clone(inst, target, operands, /*rename=*/true));
    }
    (*values)[inst] = std::move(per_device);
  }
  return Status::Ok();
}

StatusOr<std::vector<std::vector<int64_t>>> Emulator::Groups(
    const Instruction* inst, const SpmdOp& op, const Devices& devices) {
  std::vector<std::vector<int64_t>> groups;
  if (!op.cross_partition) {
    // Cross-replica: with one replica, every device is alone.
    for (int64_t p = 0; p < devices.count; ++p) groups.push_back({p});
    return groups;
  }
  if (op.groups.empty()) {
    groups.emplace_back();
    for (int64_t id = 0; id < devices.count; ++id)
      groups.back().push_back(devices.position_of_id[static_cast<size_t>(id)]);
    return groups;
  }
  std::vector<bool> seen(static_cast<size_t>(devices.count), false);
  for (const std::vector<int64_t>& ids : op.groups) {
    groups.emplace_back();
    for (int64_t id : ids) {
      if (id == -1) continue;  // padding of uneven groups
      if (id < 0 || id >= devices.count)
        return ErrorAt(inst, op.op_name,
                       "replica_groups names device " + std::to_string(id) +
                           "; the mesh has " + std::to_string(devices.count));
      if (seen[static_cast<size_t>(id)])
        return ErrorAt(
            inst, op.op_name,
            "device " + std::to_string(id) + " is in two replica groups");
      seen[static_cast<size_t>(id)] = true;
      groups.back().push_back(devices.position_of_id[static_cast<size_t>(id)]);
    }
  }
  for (int64_t id = 0; id < devices.count; ++id)
    if (!seen[static_cast<size_t>(id)])
      return ErrorAt(
          inst, op.op_name,
          "device " + std::to_string(id) + " is in no replica group");
  return groups;
}

StatusOr<PerDevice> Emulator::ExpandCollective(const Instruction* inst,
                                               const SpmdOp& op,
                                               Computation* target,
                                               const Devices& devices,
                                               const ValueMap& values) {
  const size_t count = static_cast<size_t>(devices.count);
  PerDevice result(count, nullptr);
  if (op.kind == SpmdOpKind::kPartitionId ||
      op.kind == SpmdOpKind::kReplicaId) {
    for (size_t p = 0; p < count; ++p) {
      uint32_t id = op.kind == SpmdOpKind::kReplicaId
                        ? 0
                        : static_cast<uint32_t>(devices.manual->mesh.DeviceId(
                              static_cast<int64_t>(p)));
      Instruction* c = Emit(target, inst, Opcode::kConstant,
                            Shape::Scalar(ElementType::kU32), {});
      c->literal = Literal::Scalar<uint32_t>(id);
      if (inst->shape() != c->shape())
        return ErrorAt(inst, op.op_name, "the result type must be ui32");
      result[p] = c;
    }
    return result;
  }
  const int64_t n = inst->operand_count();
  auto operand = [&](int64_t j, int64_t p) {
    return values.at(inst->operand(j))[static_cast<size_t>(p)];
  };
  auto result_shape = [&](int64_t j) -> const Shape& {
    return inst->shape().IsTuple() ? inst->shape().tuple_shape(j)
                                   : inst->shape();
  };
  auto pack = [&](const std::vector<Instruction*>& parts) {
    if (!inst->shape().IsTuple()) return parts[0];
    return Emit(target, inst, Opcode::kTuple, inst->shape(), parts);
  };
  auto check = [&](Instruction* made, int64_t j) -> Status {
    if (made->shape().WithoutLayout() != result_shape(j).WithoutLayout())
      return ErrorAt(inst, op.op_name,
                     "result " + std::to_string(j) + " is " +
                         ShapeText(result_shape(j)) + ", the operands make " +
                         ShapeText(made->shape()));
    return Status::Ok();
  };
  for (int64_t j = 0; j < n; ++j)
    if (!inst->operand(j)->shape().IsArray())
      return ErrorAt(inst, op.op_name,
                     "operand " + std::to_string(j) + " is not an array");

  if (op.kind == SpmdOpKind::kCollectivePermute) {
    if (n != 1) return ErrorAt(inst, op.op_name, "expected one operand");
    std::vector<bool> targeted(count, false);
    for (auto [source, destination] : op.source_target_pairs) {
      if (source < 0 || source >= devices.count || destination < 0 ||
          destination >= devices.count)
        return ErrorAt(inst, op.op_name,
                       "source_target_pairs names a device outside 0.." +
                           std::to_string(devices.count - 1));
      size_t to = static_cast<size_t>(
          devices.position_of_id[static_cast<size_t>(destination)]);
      if (targeted[to])
        return ErrorAt(inst, op.op_name,
                       "device " + std::to_string(destination) +
                           " receives from two sources");
      targeted[to] = true;
      result[to] =
          operand(0, devices.position_of_id[static_cast<size_t>(source)]);
    }
    Instruction* zeros = nullptr;
    for (size_t p = 0; p < count; ++p) {
      if (result[p] != nullptr) continue;
      if (zeros == nullptr) {
        const Shape& shape = inst->operand(0)->shape();
        Instruction* zero = Emit(target, inst, Opcode::kConstant,
                                 Shape::Scalar(shape.element_type()), {});
        zero->literal = Literal(zero->shape());
        zeros = Emit(target, inst, Opcode::kBroadcast, shape.WithoutLayout(),
                     {zero});
      }
      result[p] = zeros;
    }
    for (size_t p = 0; p < count; ++p)
      XFFI_RETURN_IF_ERROR(check(result[p], 0));
    return result;
  }

  XFFI_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                        Groups(inst, op, devices));
  auto fold = [&](const std::vector<int64_t>& group,
                  int64_t j) -> StatusOr<Instruction*> {
    if (static_cast<size_t>(j) >= op.reductions.size())
      return ErrorAt(inst, op.op_name,
                     "the region's reduction of operand " + std::to_string(j) +
                         " is unknown");
    Instruction* acc = operand(j, group[0]);
    for (size_t m = 1; m < group.size(); ++m)
      acc = Emit(target, inst, op.reductions[static_cast<size_t>(j)],
                 acc->shape().WithoutLayout(), {acc, operand(j, group[m])});
    return acc;
  };
  for (const std::vector<int64_t>& group : groups) {
    if (group.empty()) continue;
    const int64_t size = static_cast<int64_t>(group.size());
    switch (op.kind) {
      case SpmdOpKind::kAllReduce: {
        std::vector<Instruction*> parts;
        for (int64_t j = 0; j < n; ++j) {
          XFFI_ASSIGN_OR_RETURN(Instruction * reduced, fold(group, j));
          XFFI_RETURN_IF_ERROR(check(reduced, j));
          parts.push_back(reduced);
        }
        Instruction* packed = pack(parts);
        for (int64_t p : group) result[static_cast<size_t>(p)] = packed;
        break;
      }
      case SpmdOpKind::kAllGather: {
        std::vector<Instruction*> parts;
        for (int64_t j = 0; j < n; ++j) {
          if (op.dimension < 0 ||
              op.dimension >= inst->operand(j)->shape().rank())
            return ErrorAt(inst, op.op_name, "all_gather_dim out of range");
          std::vector<Instruction*> pieces;
          for (int64_t p : group) pieces.push_back(operand(j, p));
          parts.push_back(Concat(target, inst, pieces, op.dimension));
          XFFI_RETURN_IF_ERROR(check(parts.back(), j));
        }
        Instruction* packed = pack(parts);
        for (int64_t p : group) result[static_cast<size_t>(p)] = packed;
        break;
      }
      case SpmdOpKind::kReduceScatter: {
        std::vector<std::vector<Instruction*>> parts(group.size());
        for (int64_t j = 0; j < n; ++j) {
          const Shape& shape = inst->operand(j)->shape();
          if (op.dimension < 0 || op.dimension >= shape.rank() ||
              shape.dim(op.dimension) % size != 0)
            return ErrorAt(inst, op.op_name,
                           "scatter_dimension " + std::to_string(op.dimension) +
                               " of " + ShapeText(shape) +
                               " does not split into " + std::to_string(size) +
                               " blocks");
          XFFI_ASSIGN_OR_RETURN(Instruction * reduced, fold(group, j));
          int64_t block = shape.dim(op.dimension) / size;
          for (int64_t m = 0; m < size; ++m) {
            parts[static_cast<size_t>(m)].push_back(
                Slice(target, inst, reduced, op.dimension, m * block, block));
            XFFI_RETURN_IF_ERROR(
                check(parts[static_cast<size_t>(m)].back(), j));
          }
        }
        for (int64_t m = 0; m < size; ++m)
          result[static_cast<size_t>(group[static_cast<size_t>(m)])] =
              pack(parts[static_cast<size_t>(m)]);
        break;
      }
      case SpmdOpKind::kAllToAll: {
        if (op.split_count != 0 && op.split_count != size)
          return ErrorAt(inst, op.op_name,
                         "split_count is " + std::to_string(op.split_count) +
                             ", the replica group has " + std::to_string(size) +
                             " devices");
        std::vector<std::vector<Instruction*>> parts(group.size());
        for (int64_t j = 0; j < n; ++j) {
          const Shape& shape = inst->operand(j)->shape();
          if (op.split_dimension < 0 || op.split_dimension >= shape.rank() ||
              op.concat_dimension < 0 || op.concat_dimension >= shape.rank() ||
              shape.dim(op.split_dimension) % size != 0)
            return ErrorAt(inst, op.op_name,
                           "split_dimension " +
                               std::to_string(op.split_dimension) + " of " +
                               ShapeText(shape) + " does not split into " +
                               std::to_string(size) +
                               " blocks, or concat_dimension is out of range");
          int64_t block = shape.dim(op.split_dimension) / size;
          for (int64_t i = 0; i < size; ++i) {
            std::vector<Instruction*> pieces;
            for (int64_t p : group)
              pieces.push_back(Slice(target, inst, operand(j, p),
                                     op.split_dimension, i * block, block));
            parts[static_cast<size_t>(i)].push_back(
                Concat(target, inst, pieces, op.concat_dimension));
            XFFI_RETURN_IF_ERROR(
                check(parts[static_cast<size_t>(i)].back(), j));
          }
        }
        for (int64_t i = 0; i < size; ++i)
          result[static_cast<size_t>(group[static_cast<size_t>(i)])] =
              pack(parts[static_cast<size_t>(i)]);
        break;
      }
      default:
        return ErrorAt(inst, op.op_name, "unexpected collective");
    }
  }
  return result;
}

StatusOr<PerDevice> Emulator::ExpandWhile(const Instruction* inst,
                                          Computation* target,
                                          const Devices& devices,
                                          const ValueMap& values) {
  const size_t count = static_cast<size_t>(devices.count);
  const Shape& state = inst->shape();
  const int64_t m = state.tuple_size();
  const Computation* cond = inst->called_computations()[0];
  const Computation* body = inst->called_computations()[1];
  // Every device's loop state, one after another, in a single tuple.
  std::vector<Shape> wide_shapes;
  for (size_t p = 0; p < count; ++p)
    for (int64_t i = 0; i < m; ++i) wide_shapes.push_back(state.tuple_shape(i));
  Shape wide = Shape::Tuple(wide_shapes);

  std::vector<Instruction*> init;
  for (size_t p = 0; p < count; ++p)
    for (int64_t i = 0; i < m; ++i)
      init.push_back(Element(target, inst, values.at(inst->operand(0))[p], i));
  Instruction* wide_init = Emit(target, inst, Opcode::kTuple, wide, init);

  // In a computation whose parameter is the wide state: each device's state
  // and whether its condition holds.
  auto unpack = [&](Computation* c, PerDevice* states,
                    PerDevice* running) -> Status {
    Instruction* param =
        c->AddInstruction(Opcode::kParameter, wide, {}, "wide_state");
    param->parameter_number = 0;
    param->set_location(inst->location());
    for (size_t p = 0; p < count; ++p) {
      std::vector<Instruction*> elements;
      for (int64_t i = 0; i < m; ++i)
        elements.push_back(
            Element(c, inst, param, static_cast<int64_t>(p) * m + i));
      states->push_back(Emit(c, inst, Opcode::kTuple, state, elements));
    }
    ValueMap cond_values;
    XFFI_RETURN_IF_ERROR(ExpandBody(cond, {*states}, c, devices, &cond_values));
    *running = cond_values.at(cond->root());
    return Status::Ok();
  };

  created_.push_back(std::make_unique<Computation>(
      naming_.Computation(cond->name() + ".devices")));
  Computation* wide_cond = created_.back().get();
  PerDevice states, running;
  XFFI_RETURN_IF_ERROR(unpack(wide_cond, &states, &running));
  Instruction* any = running[0];
  for (size_t p = 1; p < count; ++p)
    any = Emit(wide_cond, inst, Opcode::kOr, any->shape().WithoutLayout(),
               {any, running[p]});
  wide_cond->set_root(any);

  created_.push_back(std::make_unique<Computation>(
      naming_.Computation(body->name() + ".devices")));
  Computation* wide_body = created_.back().get();
  states.clear();
  running.clear();
  XFFI_RETURN_IF_ERROR(unpack(wide_body, &states, &running));
  ValueMap body_values;
  XFFI_RETURN_IF_ERROR(
      ExpandBody(body, {states}, wide_body, devices, &body_values));
  const PerDevice& next = body_values.at(body->root());
  // A device whose condition no longer holds keeps its state while the
  // others go on.
  std::vector<Instruction*> next_elements;
  for (size_t p = 0; p < count; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      Instruction* updated = Element(wide_body, inst, next[p], i);
      Instruction* kept = Element(wide_body, inst, states[p], i);
      const Shape& shape = state.tuple_shape(i);
      if (count == 1 || !shape.IsArray()) {
        next_elements.push_back(updated);
        continue;
      }
      Instruction* predicate = running[p];
      if (shape.rank() > 0) {
        predicate =
            Emit(wide_body, inst, Opcode::kBroadcast,
                 Shape::Array(ElementType::kPred, shape.dims()), {predicate});
      }
      next_elements.push_back(Emit(wide_body, inst, Opcode::kSelect,
                                   shape.WithoutLayout(),
                                   {predicate, updated, kept}));
    }
  }
  wide_body->set_root(
      Emit(wide_body, inst, Opcode::kTuple, wide, next_elements));

  Instruction* loop = Emit(target, inst, Opcode::kWhile, wide, {wide_init});
  loop->AppendCalledComputation(wide_cond);
  loop->AppendCalledComputation(wide_body);
  PerDevice result;
  for (size_t p = 0; p < count; ++p) {
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < m; ++i)
      elements.push_back(
          Element(target, inst, loop, static_cast<int64_t>(p) * m + i));
    result.push_back(Emit(target, inst, Opcode::kTuple, state, elements));
  }
  return result;
}

const char kFoldableReductionRule[] =
    "the reduction region must return, for each operand, add, multiply, "
    "maximum, minimum, and, or or xor of its two arguments; xffi folds only "
    "those across devices";

std::optional<Opcode> FoldableReduction(const Instruction* result,
                                        const Instruction* lhs,
                                        const Instruction* rhs) {
  static const Opcode kFoldable[] = {
      Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
      Opcode::kAnd, Opcode::kOr,       Opcode::kXor};
  // A sharding annotation on the result (a Sharding custom call, or the
  // copy HLO's xla.sdy.Sharding becomes) does not change what the region
  // computes.
  while ((result->opcode() == Opcode::kCopy ||
          (result->opcode() == Opcode::kCustomCall &&
           result->custom_call.target == "Sharding")) &&
         result->operand_count() == 1)
    result = result->operand(0);
  if (std::find(std::begin(kFoldable), std::end(kFoldable), result->opcode()) ==
          std::end(kFoldable) ||
      result->operand_count() != 2)
    return std::nullopt;
  if ((result->operand(0) == lhs && result->operand(1) == rhs) ||
      (result->operand(0) == rhs && result->operand(1) == lhs))
    return result->opcode();
  return std::nullopt;
}

// Sets op->groups and op->cross_partition from a collective's
// replica_groups, as the StableHLO spec derives its process groups: without
// a channel the ids are replicas, and xffi runs one replica, so each device
// is alone; with a channel they are all partitions of each replica group,
// or partition ids themselves with use_global_device_ids and for
// all_to_all and collective_permute. Returns what is wrong ("" when
// nothing is).
std::string SetProcessGroups(SpmdOp* op, bool has_channel,
                             bool use_global_device_ids,
                             std::vector<std::vector<int64_t>> groups) {
  if (use_global_device_ids && !has_channel)
    return "use_global_device_ids needs a channel with a positive handle";
  const bool partition_ids =
      has_channel &&
      (use_global_device_ids || op->kind == SpmdOpKind::kAllToAll ||
       op->kind == SpmdOpKind::kCollectivePermute);
  if (!partition_ids) {
    // The ids are replica ids, and xffi runs one replica.
    for (const auto& group : groups)
      for (int64_t id : group)
        if (id != 0 && id != -1)
          return "replica_groups names replica " + std::to_string(id) +
                 "; xffi runs programs with one replica";
    groups.clear();
  }
  op->cross_partition = has_channel;
  op->groups = std::move(groups);
  return "";
}

// The emulation's view of each manual computation and collective.
StatusOr<SpmdOps> ReadSpmdOps(const Module& module) {
  SpmdOps ops;
  for (const auto& c : module.computations()) {
    for (const auto& holder : c->instructions()) {
      const Instruction* inst = holder.get();
      if (!IsCollective(inst->opcode()) &&
          inst->opcode() != Opcode::kManualComputation)
        continue;
      SpmdOp& op = ops[inst];
      op.op_name =
          std::string(OpcodeName(inst->opcode(), module.op_spelling()));
      switch (inst->opcode()) {
        case Opcode::kManualComputation: {
          const ManualComputationConfig& config = inst->manual_computation;
          op.kind = SpmdOpKind::kManualComputation;
          op.mesh = config.mesh;
          op.in_shardings = config.in_shardings;
          op.out_shardings = config.out_shardings;
          op.manual_axes = config.manual_axes;
          op.body = inst->called_computations()[0];
          continue;
        }
        case Opcode::kPartitionId:
          op.kind = SpmdOpKind::kPartitionId;
          continue;
        case Opcode::kReplicaId:
          op.kind = SpmdOpKind::kReplicaId;
          continue;
        case Opcode::kAllReduce:
          op.kind = SpmdOpKind::kAllReduce;
          break;
        case Opcode::kAllGather:
          op.kind = SpmdOpKind::kAllGather;
          op.dimension = inst->dimensions[0];
          break;
        case Opcode::kReduceScatter:
          op.kind = SpmdOpKind::kReduceScatter;
          op.dimension = inst->dimensions[0];
          break;
        case Opcode::kAllToAll:
          op.kind = SpmdOpKind::kAllToAll;
          op.split_dimension = inst->split_dimension;
          op.concat_dimension = inst->concat_dimension;
          op.split_count = inst->split_count;
          break;
        default:  // collective-permute
          op.kind = SpmdOpKind::kCollectivePermute;
          op.source_target_pairs = inst->source_target_pairs;
          break;
      }
      const CollectiveDevices& devices = inst->collective_devices;
      std::string problem = SetProcessGroups(&op, devices.channel_id > 0,
                                             devices.use_global_device_ids,
                                             devices.replica_groups);
      if (!problem.empty()) return ErrorAt(inst, op.op_name, problem);
      if (op.kind == SpmdOpKind::kAllReduce ||
          op.kind == SpmdOpKind::kReduceScatter) {
        // The region must combine two values with one elementwise op; that
        // op folds the devices' values in group order.
        const Computation* region = inst->called_computations()[0];
        std::optional<Opcode> fold = FoldableReduction(
            region->root(), region->parameter(0), region->parameter(1));
        if (!fold) return ErrorAt(inst, op.op_name, kFoldableReductionRule);
        op.reductions.assign(static_cast<size_t>(inst->operand_count()), *fold);
      }
    }
  }
  return ops;
}

}  // namespace

StatusOr<bool> SpmdEmulation::Run(Module& module) {
  bool gspmd = false;
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions())
      gspmd = gspmd || (inst->opcode() == Opcode::kCustomCall &&
                        IsGspmdMarker(inst->custom_call.target));
  XFFI_ASSIGN_OR_RETURN(SpmdOps ops, ReadSpmdOps(module));
  if (ops.empty() && !gspmd) return false;
  Computation* entry = module.entry();
  std::vector<std::unique_ptr<Computation>> computations =
      module.ReleaseComputations();
  Naming naming(computations);
  Emulator emulator(ops, naming, module.num_partitions());
  Status emulated = emulator.Run(&computations, &entry);
  if (!emulated.ok()) {
    // The emulation only reads the computations it was given until it
    // succeeds: the module goes back as it was.
    for (auto& c : computations) module.AddComputation(std::move(c));
    module.set_entry(entry);
    return emulated;
  }
  // Callees before callers, in the module's order otherwise.
  std::map<const Computation*, std::unique_ptr<Computation>*> holder;
  for (auto& c : computations) holder[c.get()] = &c;
  std::set<const Computation*> placed;
  std::function<void(const Computation*)> place = [&](const Computation* c) {
    if (!placed.insert(c).second) return;
    for (const auto& inst : c->instructions())
      for (const Computation* callee : inst->called_computations())
        place(callee);
    module.AddComputation(std::move(*holder.at(c)));
  };
  for (auto& c : computations)
    if (c) place(c.get());
  module.set_entry(entry);
  return true;
}

}  // namespace xffi::passes
