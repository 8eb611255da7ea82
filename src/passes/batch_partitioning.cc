#include "passes/batch_partitioning.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passes/call_inlining.h"
#include "passes/common_batch_sharding.h"
#include "xffi/runtime/partitioning.h"

namespace xffi::passes {
namespace {

// How a value is split across devices, as far as xffi can trace it: the
// block count of each dimension, and the devices holding each block (as an
// HloSharding lists them: blocks row-major, the devices sharing a block
// consecutive). No devices: the value is whole on every device.
struct Tiling {
  std::vector<int64_t> tiles;
  std::vector<int64_t> devices;
  bool split() const {
    for (int64_t t : tiles)
      if (t > 1) return true;
    return false;
  }
};

// Where a region's parameter comes from: the op that calls the region and
// the operand it passes (a while's state for its body and condition, a
// conditional's operand i + 1 for branch i).
struct RegionCaller {
  const Instruction* op = nullptr;
  int64_t operand = 0;
};
using RegionCallers = std::unordered_map<const Computation*, RegionCaller>;

// The loops' and conditionals' regions of the module and who calls each (a
// region called from two places has no single caller and is left out).
RegionCallers FindRegionCallers(const Module& module) {
  RegionCallers callers;
  std::set<const Computation*> shared;
  auto add = [&](const Computation* region, const Instruction* op,
                 int64_t operand) {
    if (!callers.emplace(region, RegionCaller{op, operand}).second)
      shared.insert(region);
  };
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions()) {
      const auto& called = inst->called_computations();
      if (inst->opcode() == Opcode::kWhile)
        for (const Computation* region : called) add(region, inst.get(), 0);
      if (inst->opcode() == Opcode::kConditional)
        for (size_t i = 0; i < called.size(); ++i)
          add(called[i], inst.get(), static_cast<int64_t>(i) + 1);
    }
  for (const Computation* region : shared) callers.erase(region);
  return callers;
}

std::optional<Tiling> TilingOf(const Instruction* value,
                               const RegionCallers& callers, int depth = 16);

// The while loop whose state `tuple` is (its result, or its body's or
// condition's parameter); null for any other value.
const Instruction* LoopOfState(const Instruction* tuple,
                               const RegionCallers& callers) {
  if (tuple->opcode() == Opcode::kWhile) return tuple;
  if (tuple->opcode() != Opcode::kParameter || tuple->parameter_number != 0)
    return nullptr;
  auto it = callers.find(tuple->parent());
  if (it == callers.end() || it->second.op->opcode() != Opcode::kWhile)
    return nullptr;
  return it->second.op;
}

// What the loop's body makes of element `index` of its state for the next
// trip; null when its root is not a tuple xffi can read.
const Instruction* LoopUpdate(const Instruction* loop, int64_t index) {
  const Instruction* root = loop->called_computations()[1]->root();
  if (root == nullptr || root->opcode() != Opcode::kTuple ||
      index >= root->operand_count())
    return nullptr;
  return root->operand(index);
}

// The value that element `index` of the tuple `value` is, where xffi can
// tell: a tuple's operand; through a region's parameter, the element of
// what the caller passes; through a loop's result, the element of its
// initial state (XLA's propagation gives the loop state one sharding).
const Instruction* TupleElement(const Instruction* value, int64_t index,
                                const RegionCallers& callers, int depth) {
  if (depth == 0) return nullptr;
  switch (value->opcode()) {
    case Opcode::kTuple:
      return index < value->operand_count() ? value->operand(index) : nullptr;
    case Opcode::kWhile:
      return TupleElement(value->operand(0), index, callers, depth - 1);
    case Opcode::kParameter: {
      auto it = callers.find(value->parent());
      if (it == callers.end() || value->parameter_number != 0) return nullptr;
      return TupleElement(it->second.op->operand(it->second.operand), index,
                          callers, depth - 1);
    }
    default:
      return nullptr;
  }
}

// `value`'s own sharding as a tiling: whole on every device when it is
// replicated or on one device; nullopt when manual (a shard_map's value,
// whose calls run as written) or unreadable.
std::optional<Tiling> OwnTiling(const Instruction* value) {
  const HloSharding& sharding = *value->sharding;
  const int64_t rank = value->shape().rank();
  const Tiling whole{std::vector<int64_t>(static_cast<size_t>(rank), 1), {}};
  switch (sharding.kind) {
    case HloSharding::Kind::kReplicated:
    case HloSharding::Kind::kMaximal:
      return whole;
    case HloSharding::Kind::kManual:
      return std::nullopt;
    case HloSharding::Kind::kTiled:
      break;
  }
  if (static_cast<int64_t>(sharding.tile_dims.size()) < rank)
    return std::nullopt;
  Tiling tiling{std::vector<int64_t>(sharding.tile_dims.begin(),
                                     sharding.tile_dims.begin() + rank),
                sharding.devices};
  if (!tiling.split()) return whole;
  return tiling;
}

// The tiling a value gets from an operand tiled as `from`, with the
// operand's dimension `source[d]` (or none, -1: not split) becoming its
// dimension d; its blocks are the operand's, reordered as the dimensions
// are (a transpose's devices move with their blocks). Nullopt when a split
// operand dimension has no place in the value.
std::optional<Tiling> Remap(const Tiling& from,
                            const std::vector<int64_t>& source) {
  Tiling to{std::vector<int64_t>(source.size(), 1), {}};
  std::vector<int64_t> placed(from.tiles.size(), -1);
  for (size_t d = 0; d < source.size(); ++d)
    if (source[d] >= 0) {
      to.tiles[d] = from.tiles[static_cast<size_t>(source[d])];
      placed[static_cast<size_t>(source[d])] = static_cast<int64_t>(d);
    }
  if (!from.split()) return to;
  int64_t blocks = 1;
  for (size_t k = 0; k < from.tiles.size(); ++k) {
    if (placed[k] < 0 && from.tiles[k] > 1) return std::nullopt;
    blocks *= from.tiles[k];
  }
  const auto per_block = static_cast<int64_t>(from.devices.size()) / blocks;
  // Block by block of the value, row-major: the operand block it is.
  std::vector<int64_t> index(to.tiles.size(), 0);
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t operand_block = 0;
    for (size_t k = 0; k < from.tiles.size(); ++k)
      operand_block =
          operand_block * from.tiles[k] +
          (placed[k] < 0 ? 0 : index[static_cast<size_t>(placed[k])]);
    for (int64_t r = 0; r < per_block; ++r)
      to.devices.push_back(
          from.devices[static_cast<size_t>(operand_block * per_block + r)]);
    for (size_t d = to.tiles.size(); d-- > 0;) {
      if (++index[d] < to.tiles[d]) break;
      index[d] = 0;
    }
  }
  return to;
}

// Which operand dimension each dimension of `value` comes from, for the ops
// that move or cut dimensions without mixing them (XLA's sharding
// propagation follows these; so does xffi; a slice keeps the split of a
// dimension it shortens, as XLA's does): -1 for a new dimension. Empty for
// other ops (reshapes: ReshapeTiles).
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
    default:
      return {};
  }
}

// The tiles of a reshape's result whose operand, of `from` dimensions, is
// tiled `from_tiles`; nullopt where the blocks do not stay blocks. Each run
// of operand dimensions whose product is that of a run of result
// dimensions is one group; a group's blocks are whole rows of its flattened
// elements when only its first operand dimension is split, evenly, and then
// the result's dimensions take the split major first, each as far as it
// divides (jax with 2 CPU devices: [24,3] split on rows reaches a call as
// [8,3,3] split on rows; [4,18] as [8,3,3]; [4,2,9] split on its second
// dimension is gathered).
std::optional<std::vector<int64_t>> ReshapeTiles(
    const std::vector<int64_t>& from, const std::vector<int64_t>& from_tiles,
    const std::vector<int64_t>& to) {
  for (int64_t d : from)
    if (d == 0) return std::nullopt;
  std::vector<int64_t> tiles(to.size(), 1);
  size_t i = 0, j = 0;
  while (true) {
    while (i < from.size() && from[i] == 1) {
      if (from_tiles[i] != 1) return std::nullopt;
      ++i;
    }
    while (j < to.size() && to[j] == 1) ++j;
    if (i == from.size() || j == to.size())
      return i == from.size() && j == to.size() ? std::optional(tiles)
                                                : std::nullopt;
    size_t from_end = i + 1, to_end = j + 1;
    int64_t from_size = from[i], to_size = to[j];
    while (from_size != to_size) {
      if (from_size < to_size) {
        if (from_end == from.size()) return std::nullopt;
        from_size *= from[from_end++];
      } else {
        if (to_end == to.size()) return std::nullopt;
        to_size *= to[to_end++];
      }
    }
    int64_t split = from_tiles[i];
    for (size_t k = i + 1; k < from_end; ++k)
      if (from_tiles[k] != 1) return std::nullopt;
    if (from_end - i == 1 && to_end - j == 1) {  // the dimension stays
      tiles[j] = split;
      i = from_end;
      j = to_end;
      continue;
    }
    if (from_end - i > 1 && from[i] % split != 0) return std::nullopt;
    for (size_t k = j; k < to_end && split > 1; ++k) {
      if (to[k] % split == 0) {
        tiles[k] = split;
        split = 1;
      } else if (split % to[k] == 0) {
        tiles[k] = to[k];
        split /= to[k];
      } else {
        return std::nullopt;
      }
    }
    if (split != 1) return std::nullopt;
    i = from_end;
    j = to_end;
  }
}

std::optional<Tiling> TilingOf(const Instruction* value,
                               const RegionCallers& callers, int depth) {
  if (!value->shape().IsArray()) return std::nullopt;
  if (value->sharding.has_value()) return OwnTiling(value);
  if (depth == 0) return std::nullopt;
  const Opcode opcode = value->opcode();
  // Into loop bodies and branches: a region's values are the caller's
  // (XLA partitions the regions with the shardings it propagates there).
  if (opcode == Opcode::kGetTupleElement) {
    const Instruction* element =
        TupleElement(value->operand(0), value->tuple_index, callers, depth);
    std::optional<Tiling> initial;
    if (element != nullptr) initial = TilingOf(element, callers, depth - 1);
    if (initial.has_value() && initial->split()) return initial;
    // A loop-carried value: XLA's propagation gives the loop's state one
    // sharding, the more specific of its initial value's and of what the
    // body computes for the next trip (jax 0.10.2, 2 CPU devices: a carry
    // that starts as zeros and takes a split argument's rows in the body
    // reaches a call in the body split).
    const Instruction* loop = LoopOfState(value->operand(0), callers);
    const Instruction* update =
        loop == nullptr ? nullptr : LoopUpdate(loop, value->tuple_index);
    if (update == nullptr || update == value) return initial;
    std::optional<Tiling> updated = TilingOf(update, callers, depth / 2);
    if (updated.has_value() && updated->split()) return updated;
    return initial.has_value() ? initial : updated;
  }
  if (opcode == Opcode::kParameter) {
    auto it = callers.find(value->parent());
    if (it == callers.end() || value->parameter_number != 0)
      return std::nullopt;
    return TilingOf(it->second.op->operand(it->second.operand), callers,
                    depth - 1);
  }
  if (value->operand_count() == 0) return std::nullopt;
  if (opcode == Opcode::kReshape) {
    std::optional<Tiling> from =
        TilingOf(value->operand(0), callers, depth - 1);
    if (!from.has_value()) return std::nullopt;
    std::optional<std::vector<int64_t>> tiles = ReshapeTiles(
        value->operand(0)->shape().dims(), from->tiles, value->shape().dims());
    if (!tiles.has_value()) return std::nullopt;
    // Each block stays one block, in the same row-major order: the devices
    // stay as they are.
    return Tiling{std::move(*tiles), from->devices};
  }
  if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
      opcode == Opcode::kConvert || opcode == Opcode::kCopy ||
      opcode == Opcode::kSelect) {
    // A split operand's split (XLA's propagation prefers it to a whole
    // operand's), else whole if an operand is known to be whole.
    std::optional<Tiling> whole;
    for (const Instruction* operand : value->operands()) {
      if (operand->shape().dims() != value->shape().dims()) continue;
      std::optional<Tiling> found = TilingOf(operand, callers, depth - 1);
      if (found.has_value() && found->split()) return found;
      if (found.has_value()) whole = found;
    }
    return whole;
  }
  const std::vector<int64_t> source = SourceDims(value);
  if (source.empty()) return std::nullopt;
  std::optional<Tiling> from = TilingOf(value->operand(0), callers, depth - 1);
  if (!from.has_value()) return std::nullopt;
  return Remap(*from, source);
}

// How the call is split: the block count of each batch dimension (some
// above 1), and the devices holding each block.
struct BatchSplit {
  std::vector<int64_t> tiles;
  int64_t replicas = 1;
};

// The split of `tilings` merged (common_batch_sharding.h); nullopt when
// there are none or they merge into no split.
std::optional<BatchSplit> MergedSplit(const std::vector<BatchTiling>& tilings) {
  if (tilings.empty()) return std::nullopt;
  const BatchTiling common = FindCommonBatchTiling(tilings);
  if (common.replicated()) return std::nullopt;
  BatchSplit split;
  split.tiles = common.tiles;
  split.replicas = common.num_devices / common.blocks();
  return split;
}

// The operands' batch shardings merged as XLA merges them
// (common_batch_sharding.h); operands whose sharding xffi cannot trace take
// no part, as in XLA an operand with no sharding takes none.
std::optional<BatchSplit> FindSplit(const Instruction* call,
                                    int64_t num_batch_dims,
                                    const RegionCallers& callers) {
  std::vector<BatchTiling> operands;
  for (const Instruction* operand : call->operands()) {
    std::optional<Tiling> tiling = TilingOf(operand, callers);
    if (tiling.has_value())
      operands.push_back(
          BatchTilingOf(tiling->tiles, tiling->devices, num_batch_dims));
  }
  return MergedSplit(operands);
}

// --- Shardy's backward step --------------------------------------------------
//
// Shardy propagates a sharding from a value's users as well as from its
// operands: a batch-partitionable call whose operands are whole takes the
// split of an out_sharding its results reach (jax 0.10.2, 4 CPU devices,
// jnp.linalg.cholesky of f32[4,3,3] in P(), out P("x"): lapack_spotrf_ffi
// runs on f32[1,3,3]), where GSPMD runs it whole. JAX marks such a call
// with Shardy's rule for it (sdy.sharding_rule; the parser keeps it as
// XLA's HLO does, the xla.sdy.sharding_rule frontend attribute), and xffi
// takes that step for such calls in the entry: back from the entry's
// result shardings, through elementwise ops, converts, copies, selects,
// transposes, broadcasts and reshapes that keep blocks whole, to the
// call's results.

bool IsShardyCall(const Instruction* call) {
  return call->frontend_attributes.count("xla.sdy.sharding_rule") > 0;
}

// A declared sharding as the tiling of a value of `rank` dimensions.
std::optional<Tiling> TilingOfSharding(const HloSharding& sharding,
                                       int64_t rank) {
  Instruction probe(
      Opcode::kParameter,
      Shape::Array(ElementType::kF32,
                   std::vector<int64_t>(static_cast<size_t>(rank), 1)));
  probe.sharding = sharding;
  return OwnTiling(&probe);
}

using Users =
    std::unordered_map<const Instruction*, std::vector<const Instruction*>>;

// Each value's UsersTiling once: values reached along many paths (a value
// with several users each used several times) are not walked again.
using UsersTilings =
    std::unordered_map<const Instruction*, std::optional<Tiling>>;

std::optional<Tiling> UsersTilingOnce(const Instruction* value,
                                      const Computation& entry,
                                      const Users& users, UsersTilings& memo,
                                      int depth);

// The tiling the entry's result shardings give `value` through its users:
// a split one if some user's leads to one, else whole if one leads to a
// whole result; nullopt where none is known (or the chain is longer than
// `depth`).
std::optional<Tiling> UsersTiling(const Instruction* value,
                                  const Computation& entry, const Users& users,
                                  UsersTilings& memo, int depth = 256) {
  if (auto known = memo.find(value); known != memo.end()) return known->second;
  std::optional<Tiling> tiling =
      UsersTilingOnce(value, entry, users, memo, depth);
  memo[value] = tiling;
  return tiling;
}

std::optional<Tiling> UsersTilingOnce(const Instruction* value,
                                      const Computation& entry,
                                      const Users& users, UsersTilings& memo,
                                      int depth) {
  if (depth == 0 || !value->shape().IsArray()) return std::nullopt;
  const auto& results = entry.result_shardings();
  std::optional<Tiling> whole;
  auto consider = [&](std::optional<Tiling> found) {
    if (found.has_value() && found->split()) return true;
    if (found.has_value()) whole = found;
    return false;
  };
  const int64_t rank = value->shape().rank();
  if (value == entry.root() && !results.empty() && results[0].has_value() &&
      consider(TilingOfSharding(*results[0], rank)))
    return TilingOfSharding(*results[0], rank);
  auto found = users.find(value);
  if (found == users.end()) return whole;
  for (const Instruction* user : found->second) {
    const Opcode opcode = user->opcode();
    std::optional<Tiling> tiling;
    if (user == entry.root() && opcode == Opcode::kTuple) {
      for (int64_t i = 0; i < user->operand_count(); ++i)
        if (user->operand(i) == value &&
            static_cast<size_t>(i) < results.size() &&
            results[static_cast<size_t>(i)].has_value()) {
          tiling = TilingOfSharding(*results[static_cast<size_t>(i)], rank);
          if (tiling.has_value() && tiling->split()) break;
        }
    } else if (opcode == Opcode::kTuple) {
      // Through a tuple to its get-tuple-elements (XLA's HLO under Shardy
      // returns tuple(result) and a ROOT get-tuple-element of it).
      auto elements = users.find(user);
      for (int64_t i = 0; i < user->operand_count() && elements != users.end();
           ++i) {
        if (user->operand(i) != value) continue;
        for (const Instruction* element : elements->second) {
          if (element->opcode() != Opcode::kGetTupleElement ||
              element->tuple_index != i)
            continue;
          std::optional<Tiling> t =
              UsersTiling(element, entry, users, memo, depth - 1);
          if (t.has_value() && (!tiling.has_value() || t->split())) tiling = t;
        }
      }
    } else if (IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
               opcode == Opcode::kConvert || opcode == Opcode::kCopy ||
               opcode == Opcode::kSelect) {
      if (user->shape().dims() == value->shape().dims())
        tiling = UsersTiling(user, entry, users, memo, depth - 1);
    } else if (opcode == Opcode::kTranspose || opcode == Opcode::kBroadcast) {
      std::optional<Tiling> from =
          UsersTiling(user, entry, users, memo, depth - 1);
      // Each of the value's dimensions is the user's dimension it moves to.
      std::vector<int64_t> source(static_cast<size_t>(rank), -1);
      if (opcode == Opcode::kBroadcast) {
        for (size_t s = 0; s < user->dimensions.size(); ++s)
          source[s] = user->dimensions[s];
      } else {
        for (size_t d = 0; d < user->dimensions.size(); ++d)
          source[static_cast<size_t>(user->dimensions[d])] =
              static_cast<int64_t>(d);
      }
      if (from.has_value()) tiling = Remap(*from, source);
    } else if (opcode == Opcode::kReshape) {
      std::optional<Tiling> from =
          UsersTiling(user, entry, users, memo, depth - 1);
      if (from.has_value()) {
        std::optional<std::vector<int64_t>> tiles = ReshapeTiles(
            user->shape().dims(), from->tiles, value->shape().dims());
        if (tiles.has_value())
          tiling = Tiling{std::move(*tiles), from->devices};
      }
    }
    if (consider(tiling)) return tiling;
  }
  return whole;
}

// The split Shardy gives a call in the entry from its results' users: the
// results' batch tilings merged as the operands' are; nullopt when none is
// split.
std::optional<BatchSplit> FindSplitFromUsers(const Instruction* call,
                                             int64_t num_batch_dims,
                                             const Computation& entry) {
  if (entry.result_shardings().empty()) return std::nullopt;
  Users users;
  for (const auto& inst : entry.instructions())
    for (const Instruction* operand : inst->operands())
      users[operand].push_back(inst.get());
  std::vector<const Instruction*> results;
  if (!call->shape().IsTuple()) {
    results.push_back(call);
  } else if (auto found = users.find(call); found != users.end()) {
    for (const Instruction* user : found->second)
      if (user->opcode() == Opcode::kGetTupleElement) results.push_back(user);
  }
  std::vector<BatchTiling> tilings;
  UsersTilings memo;
  for (const Instruction* result : results) {
    std::optional<Tiling> tiling = UsersTiling(result, entry, users, memo);
    if (!tiling.has_value()) continue;
    // Shardy's rule maps the batch factors of a result with only batch
    // dimensions too (the cholesky's info, s32[4] with factor i), which
    // BatchTilingOf, made for XLA's reading of operands, calls whole: a
    // trailing unsplit dimension makes it read its batch dimensions.
    tiling->tiles.push_back(1);
    tilings.push_back(
        BatchTilingOf(tiling->tiles, tiling->devices, num_batch_dims));
  }
  return MergedSplit(tilings);
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
               int64_t num_batch_dims, const RegionCallers& callers) {
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
  std::optional<BatchSplit> found = FindSplit(call, num_batch_dims, callers);
  if (!found.has_value() && IsShardyCall(call) && computation == module.entry())
    found = FindSplitFromUsers(call, num_batch_dims, *computation);
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

// The call's num_batch_dims frontend attribute read as XLA reads it
// (absl::SimpleAtoi: a decimal integer with an optional sign, ASCII
// whitespace around it); 0 when it is absent or not such a number, which
// XLA treats as it treats a number below 1: the call runs whole.
int64_t NumBatchDims(const Instruction* call) {
  auto it = call->frontend_attributes.find("num_batch_dims");
  if (it == call->frontend_attributes.end()) return 0;
  std::string_view text = it->second;
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return 0;
  return std::max<int64_t>(value, 0);
}

// Registered, and given a number of batch dimensions: XLA partitions such a
// call by its batch dimensions (a call without the attribute it runs
// whole).
bool IsPartitionable(const Instruction* inst) {
  return inst->opcode() == Opcode::kCustomCall &&
         !IsGspmdMarker(inst->custom_call.target) &&
         IsBatchPartitionable(inst->custom_call.target) &&
         NumBatchDims(inst) > 0;
}

// Whether `callee` makes a batch-partitionable call, itself or through the
// functions, loop bodies and branches it calls (all of which the pass
// splits once the functions are inlined).
bool ReachesPartitionableCall(const Computation* callee, int depth = 64) {
  for (const auto& inst : callee->instructions()) {
    if (IsPartitionable(inst.get())) return true;
    const Opcode opcode = inst->opcode();
    if ((opcode == Opcode::kCall || opcode == Opcode::kWhile ||
         opcode == Opcode::kConditional) &&
        depth > 0)
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
  // The entry and the loop bodies, conditions and branches it reaches (XLA
  // partitions those too); not shard_map bodies, whose calls run on each
  // device's values as written, nor reductions' regions.
  // Their calls of functions that lead to such a call are inlined first, as
  // in the entry.
  std::vector<Computation*> partitioned = {entry};
  std::set<const Computation*> seen = {entry};
  for (size_t next = 0; next < partitioned.size(); ++next) {
    if (next > 0)
      changed =
          InlineCalls(module, *partitioned[next], LeadsToPartitionableCall) ||
          changed;
    for (const auto& inst : partitioned[next]->instructions())
      if (inst->opcode() == Opcode::kWhile ||
          inst->opcode() == Opcode::kConditional)
        for (Computation* region : inst->called_computations())
          if (seen.insert(region).second) partitioned.push_back(region);
  }
  const RegionCallers callers = FindRegionCallers(module);
  std::vector<std::tuple<Computation*, Instruction*, int64_t>> calls;
  for (Computation* computation : partitioned)
    for (const auto& inst : computation->instructions())
      if (IsPartitionable(inst.get()))
        calls.emplace_back(computation, inst.get(), NumBatchDims(inst.get()));
  for (const auto& [computation, call, num_batch_dims] : calls)
    changed = Partition(module, computation, call, num_batch_dims, callers) ||
              changed;
  return changed;
}

}  // namespace xffi::passes
