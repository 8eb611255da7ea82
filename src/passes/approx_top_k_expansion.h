// xffi: JAX's ApproxTopK custom call as the exact top-k XLA makes of it off
// TPUs (the pass "approx-top-k").
//
// lax.approx_max_k / approx_min_k lower to custom_call @ApproxTopK(operands,
// init values) with a comparator and the attributes top_k, reduction_dim,
// recall_target, aggregate_to_topk, reduction_input_size_override and
// is_fallback. XLA's importer expands it (xla/hlo/builder/lib/approx_topk.cc,
// ApproxTopKFallback) into ops every backend has, and so does this pass,
// with the same results:
//  - when the result keeps one element along reduction_dim, a variadic
//    reduce whose body selects (lhs or rhs) by the comparator, from the
//    init values (so of equal values the last wins, as in XLA);
//  - otherwise a stable sort of the operands along reduction_dim by the
//    comparator, each sliced to the result's size there (top_k, or the
//    larger size XLA gives when aggregate_to_topk is false: the result
//    shape says which).
// Exact results meet every recall target. A call whose operands, results,
// attributes or comparator do not fit is INVALID_ARGUMENT naming it.
#ifndef XFFI_SRC_PASSES_APPROX_TOP_K_EXPANSION_H_
#define XFFI_SRC_PASSES_APPROX_TOP_K_EXPANSION_H_

#include <cstdint>
#include <string_view>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// The custom-call target this pass replaces by ops.
inline constexpr std::string_view kApproxTopKTarget = "ApproxTopK";

// Returns how many calls were expanded.
StatusOr<int64_t> ExpandApproxTopK(Module& module);

class ApproxTopKExpansion : public Pass {
 public:
  std::string_view name() const override { return "approx-top-k"; }
  StatusOr<bool> Run(Module& module) override {
    StatusOr<int64_t> expanded = ExpandApproxTopK(module);
    if (!expanded.ok()) return expanded.status();
    return *expanded > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_APPROX_TOP_K_EXPANSION_H_
