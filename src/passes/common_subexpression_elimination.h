// xffi: common subexpression elimination (the pass "cse").
//
// JAX lowers each use of a value separately: the clamped index of a
// dynamic_slice and of the dynamic_update_slice beside it, the broadcast of
// one scalar for two ops, the same constant once per use. Within every
// computation, an op that computes exactly what an earlier op computes
// (same opcode, shape, operands, fields and called computations) is
// replaced by that earlier op and removed. Only ops without effects whose
// every field is compared are merged: elementwise ops, convert, select,
// clamp, iota, constants, data movement (broadcast, reshape, transpose,
// slice, dynamic-slice, concatenate, reverse, pad), get-tuple-element,
// tuple, reduce, dot. Custom calls, collectives, control flow and ops with
// a sharding annotation are never merged. Results are bit-identical: the
// merged ops compute the same values.
#ifndef XFFI_SRC_PASSES_COMMON_SUBEXPRESSION_ELIMINATION_H_
#define XFFI_SRC_PASSES_COMMON_SUBEXPRESSION_ELIMINATION_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// Returns how many ops were merged into an earlier one.
int64_t EliminateCommonSubexpressions(Module& module);

class CommonSubexpressionElimination : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  StatusOr<bool> Run(Module& module) override {
    return EliminateCommonSubexpressions(module) > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_COMMON_SUBEXPRESSION_ELIMINATION_H_
