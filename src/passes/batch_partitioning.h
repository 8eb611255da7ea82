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
// carries a sharding that splits its leading dimension over n blocks
// becomes a manual computation over the sharding's devices (blocks of the
// leading dimension of every operand and result, replicated over the
// devices that share a block) holding the call with the block shapes; the
// spmd-emulation pass after it runs one copy per device and concatenates
// the results. Each copy's call frame has its block's shape. Devices that
// share a block compute the same values: of a call without side effects
// dead-code elimination leaves one copy per block.
//
// XLA reads the number of batch dimensions from the call's num_batch_dims
// frontend attribute; xffi's IR keeps no frontend attributes, so the batch
// is the leading dimension (what JAX's batch-partitionable lowerings write).
// The sharding is an operand's own (an entry parameter's mhlo.sharding,
// sdy.sharding or HLO sharding=, a Sharding annotation's) or, through
// elementwise ops, converts, copies and selects of the same dimensions,
// that of the value it is computed from; xffi propagates shardings through
// no other ops. A call is left whole (as XLA
// leaves one with no sharding) when no operand's leading dimension is
// split, an operand or result is not an array, or a leading dimension does
// not divide into the blocks (XLA would pad it).
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
