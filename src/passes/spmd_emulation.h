// xffi: the pass "spmd-emulation": a program written for N devices runs on
// one, each device's copy of a shard_map body side by side.
//
// Each manual computation (Shardy's sdy.manual_computation, what JAX lowers
// a shard_map to; in HLO the xla.sdy custom calls around a call of the
// body, which the reader makes the same op) becomes, for every device of
// its mesh, slices of its operands (per the in_shardings), a copy of the
// body, and concatenations of the devices' results (per the
// out_shardings). Each collective in the body becomes plain ops over the
// devices' copies of its operands (all-reduce: the reduction folded in
// group order; all-gather: a concatenation; reduce-scatter, all-to-all:
// slices and both; collective-permute: the source's value, zeros where no
// source sends); partition-id and replica-id become constants. Functions
// the body calls that hold collectives are inlined per device; while loops
// that hold them run all devices' states in one loop, each device's state
// advancing only while its own condition holds. A manual computation nested
// in a body (one over the axes the outer one left free) splits each
// device's values along its own axes and gathers its results from the
// devices that differ only along them.
//
// GSPMD's form (JAX with Shardy off) is recognised here too: a call of the
// body whose operands come through Sharding and SPMDFullToShardShape custom
// calls and whose results go through Sharding and SPMDShardToFullShape runs
// as a manual computation over one axis of all the devices the shardings
// name (or the module's num_partitions when all are replicated). A
// Sharding elsewhere only says where a value lives and is dropped.
//
// The program's parameters and results stay global (unsharded) arrays, as
// jax.jit's caller sees them, so a program JAX compiled for N devices runs
// here on one and gives the same values. A collective outside any manual
// computation, or one inside a region other than a call or a loop, is an
// error naming the op and where it is; so is a reduction xffi cannot fold
// and a replica group that names a replica other than 0 (xffi runs one).
#ifndef XFFI_SRC_PASSES_SPMD_EMULATION_H_
#define XFFI_SRC_PASSES_SPMD_EMULATION_H_

#include "passes/pass_manager.h"

namespace xffi::passes {

class SpmdEmulation : public Pass {
 public:
  std::string_view name() const override { return "spmd-emulation"; }
  // False (the module untouched) when it holds no manual computation,
  // collective or GSPMD marker.
  StatusOr<bool> Run(Module& module) override;
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_SPMD_EMULATION_H_
