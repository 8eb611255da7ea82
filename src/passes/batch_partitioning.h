// xffi: the pass "batch-partition": a batch-partitionable custom call in a
// sharded program runs once per device, on that device's block.
//
// XLA's SPMD partitioner gives a custom call registered as batch
// partitionable (xla_client.register_custom_call_as_batch_partitionable;
// xffi/runtime/partitioning.h) the sharding of its operands' batch
// dimensions and runs it on every device with that device's block of each
// operand and result, where another custom call would have its operands
// gathered and run whole on each device. This pass does the same in the
// one process xffi runs: such a call in the entry computation whose operand
// carries a sharding that splits its batch dimensions into blocks becomes a
// manual computation over the sharding's devices (blocks of the batch
// dimensions of every operand and result, replicated over the devices that
// share a block) holding the call with the block shapes; the
// spmd-emulation pass after it runs one copy per device and concatenates
// the results. Each copy's call frame has its block's shape. Devices that
// share a block compute the same values: of a call without side effects
// dead-code elimination leaves one copy per block.
//
// How many leading dimensions are batch dimensions is the call's
// num_batch_dims frontend attribute, as in XLA (JAX's linalg lowerings
// write it; a call without it, or with a number below 1, runs whole, as
// XLA runs it). As XLA does
// (custom_call_batch_partitioner.cc): the split is the operands' batch
// shardings merged (common_batch_sharding.h: an operand with no more
// dimensions than batch dimensions counts as whole; differently split
// operands merge into blocks split as both are where their devices allow,
// else the first operand's split is taken); other dimensions of every
// operand are gathered (whole in each block), and an operand with fewer
// dimensions than batch dimensions is passed whole; a batch dimension the
// block count does not
// divide is padded with zeros to whole blocks (every device's block has
// the same shape, the last holds the padding) and the results are cut back.
// The sharding is an operand's own (an entry parameter's mhlo.sharding,
// sdy.sharding or HLO sharding=, a Sharding annotation's) or that of the
// value it is computed from through elementwise ops, converts, copies,
// selects, transposes, broadcasts, slices, reshapes that keep each block
// whole rows (merging or splitting dimensions whose major one is split),
// and into loops and branches (below); xffi propagates shardings through
// no other ops. A
// call is left whole (as XLA leaves one with no sharding) when no operand's
// batch dimensions are split or an operand or result is not an array; and
// when a result has fewer dimensions than batch dimensions (XLA calls it
// replicated though each device computes it from its own block). Calls in
// the entry computation are split, those in functions it calls (JAX's
// nested jax.jit), which the pass inlines into the entry first (XLA inlines
// before it partitions), and those in the loop bodies, loop conditions and
// conditional branches the entry reaches, as XLA splits them (JAX 0.10.2
// with 2 CPU devices, GSPMD and Shardy alike): a value there has the
// sharding of what the loop's initial state or the conditional's operand
// holds in its place, and a loop-carried value whose initial value is not
// split takes the split of what the body computes for the next trip (XLA's
// propagation gives the loop state the more specific of the two; xffi
// follows the body's root tuple only, not a state the body rebuilds in
// another way). One in a shard_map runs on each device's values as
// written, as in XLA; one in a function a loop body calls runs whole.
// Under GSPMD shardings flow forward only: a result sharding (the entry's
// result_shardings) splits no call, as in XLA. Under Shardy (jax 0.10.2, 4
// CPU devices) XLA splits a call whose operands are whole when its results
// reach a split out_sharding (jnp.linalg.cholesky of f32[4,3,3], in P(),
// out P("x"): lapack_spotrf_ffi on f32[1,3,3]); xffi does the same for a
// call in the entry that carries Shardy's rule (JAX writes
// sdy.sharding_rule on such a call under Shardy only; the parser keeps it
// as XLA's HLO does, the xla.sdy.sharding_rule frontend attribute),
// following the results back through elementwise ops, converts, copies,
// selects, transposes, broadcasts, reshapes that keep blocks whole and
// tuples to the entry's result shardings (a result with only batch
// dimensions counts, as the rule maps it). A split forward from the
// operands wins; Shardy's conflict rules and other ops are not followed.
#ifndef XFFI_SRC_PASSES_BATCH_PARTITIONING_H_
#define XFFI_SRC_PASSES_BATCH_PARTITIONING_H_

#include "passes/pass_manager.h"

namespace xffi::passes {

class BatchPartitioning : public Pass {
 public:
  std::string_view name() const override { return "batch-partition"; }
  StatusOr<bool> Run(Module& module) override;
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_BATCH_PARTITIONING_H_
