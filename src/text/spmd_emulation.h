// xffi: runs the body of an `sdy.manual_computation` (what JAX lowers a
// shard_map to) once per device of its mesh, side by side in one program.
//
// The StableHLO parser leaves a placeholder instruction for the manual
// computation and for each collective or partition_id in its body, with the
// details in an SpmdOps table. EmulateManualComputations then rewrites the
// parsed computations: each manual computation becomes, for every device,
// slices of its operands (per the in_shardings), a copy of the body, and
// concatenations of the devices' results (per the out_shardings); each
// collective becomes plain ops over the devices' copies of its operands
// (all_reduce: the reduction folded in group order; all_gather: a
// concatenation; reduce_scatter, all_to_all: slices and both;
// collective_permute: the source's value, zeros where no source sends);
// partition_id and replica_id become constants. Functions the body calls
// that hold collectives are inlined per device; while loops that hold them
// run all devices' states in one loop, each device's state advancing only
// while its own condition holds. A manual computation nested in a body (one
// over the axes the outer one left free) splits each device's values along
// its own axes and gathers its results from the devices that differ only
// along them.
//
// The program's parameters and results stay global (unsharded) arrays, as
// jax.jit's caller sees them, so a program JAX compiled for N devices runs
// here on one and gives the same values.
#ifndef XFFI_SRC_TEXT_SPMD_EMULATION_H_
#define XFFI_SRC_TEXT_SPMD_EMULATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/hlo_sharding.h"
#include "text/sdy_sharding.h"
#include "xffi/program/ir.h"

namespace xffi::text {

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

struct SpmdOp {
  SpmdOpKind kind = SpmdOpKind::kPartitionId;
  std::string op_name;  // "stablehlo.all_reduce", for messages

  // manual computation
  SdyMesh mesh;
  // GSPMD's form (JAX with Shardy off): a call of the body between
  // SPMDFullToShardShape and SPMDShardToFullShape markers. The mesh is one
  // axis of all devices; each operand's and result's blocks come from its
  // sharding string, and the results' global shapes from the markers.
  std::vector<hlo::HloSharding> gspmd_in, gspmd_out;
  std::vector<Shape> global_results;
  std::vector<SdyTensorSharding> in_shardings, out_shardings;
  std::vector<std::string> manual_axes;
  Computation* body = nullptr;

  // collectives: replica_groups (device ids; empty: one group of all), and
  // whether the ids name partitions (a channel handle or
  // use_global_device_ids) rather than replicas.
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

// GSPMD's markers around a shard_map body (JAX with Shardy off):
// "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape". The parsers
// keep each one's sharding string in custom_call.opaque.
bool IsGspmdMarker(std::string_view target);

// Sets op->groups and op->cross_partition from a collective's
// replica_groups, as the StableHLO spec derives its process groups: without
// a channel (or with handle 0) the ids are replicas, and xffi runs one
// replica, so each device is alone; with a channel they are all partitions
// of each replica group, or partition ids themselves with
// use_global_device_ids and for all_to_all and collective_permute.
// Returns what is wrong ("" when nothing is), for the caller to place.
std::string SetProcessGroups(SpmdOp* op, bool has_channel,
                             bool use_global_device_ids,
                             std::vector<std::vector<int64_t>> groups);

// The op a reduction region applies when its `result` is one elementwise
// op (add, multiply, maximum, minimum, and, or, xor) of `lhs` and `rhs`:
// the only regions xffi folds across devices.
std::optional<Opcode> FoldableReduction(const Instruction* result,
                                        const Instruction* lhs,
                                        const Instruction* rhs);
extern const char kFoldableReductionRule[];

struct SpmdNaming {
  std::function<std::string(Opcode)> instruction;
  std::function<std::string(const std::string&)> computation;
};

// Rewrites `computations` (whose entry is `*entry`) as described above;
// `*entry` and every called computation are redirected to the rewritten
// ones, and computations only the manual computations used are dropped. A
// collective or partition_id outside any manual computation, or one inside a
// region other than a call or a loop, is an error naming the op and where it
// is. GSPMD's markers (IsGspmdMarker) are found here, not by the parsers;
// a Sharding outside a shard_map is dropped (it only says where a value
// lives). `num_partitions` (0: unknown) is the device count when every
// sharding of a GSPMD shard_map is replicated. Returns whether there was
// anything to rewrite (the computations are untouched when not).
StatusOr<bool> EmulateManualComputations(
    std::vector<std::unique_ptr<Computation>>* computations,
    Computation** entry, const SpmdOps& ops, const SpmdNaming& naming,
    int64_t num_partitions = 0);

}  // namespace xffi::text

#endif  // XFFI_SRC_TEXT_SPMD_EMULATION_H_
