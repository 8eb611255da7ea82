// xffi: the order in which XLA:CPU visits a long reduction, for the byte
// floats (the pass "reduction-tree").
//
// XLA:CPU rewrites every reduce one of whose reduced dimensions is longer
// than 32 (its TreeReductionRewriter, window 32) into a reduce-window and a
// reduce of what that leaves: along each reduced dimension longer than 32 a
// window of 32 with stride 32, the dimension padded to a multiple of 32 with
// the smaller half of the padding low; along a shorter reduced dimension one
// window of its whole length. Each window folds its elements in order from
// the init value (padding is skipped), and the rewrite repeats until no
// reduced dimension is longer than 32. The byte floats (the f8 family,
// f4e2m1fn, f8e8m0fnu) round every step of a reduction to the byte type, so
// this order decides most long sums' bytes: matched here for them, checked
// bit for bit against jax.jit by tests/programs/byte_float_parity.py.
// f32 and f64 sums over one dimension of fewer than
// kXlaOrderedReduceElements input elements follow it too (so do f16 and
// bf16 sums that small: JAX converts them to f32 first): XLA:CPU folds
// those itself, in these windows, each in order, so xffi's evaluators fold
// reductions that small in order (ReducesInXlaOrder) and this pass gives
// them the windows. Larger f32/f64 reductions XLA hands to YNNPACK, whose
// order is its own: there xffi keeps its faster one (results differ in the
// last bits of a sum). Probed with jax.jit (jax 0.10.2) on rows of 20 to
// 4095 elements and on columns. Variadic reduces are left alone, as XLA
// leaves them.
#ifndef XFFI_SRC_PASSES_REDUCTION_TREE_H_
#define XFFI_SRC_PASSES_REDUCTION_TREE_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// XLA:CPU's window length.
inline constexpr int64_t kReductionTreeWindow = 32;

// XLA:CPU (jax 0.10.2) gives f32 and f64 reductions of this many input
// elements or more to YNNPACK.
inline constexpr int64_t kXlaOrderedReduceElements = 4096;

// Whether XLA:CPU folds a reduction of `input_elements` elements of `type`
// in order (within the windows above): then xffi's evaluators fold it in
// order too, rather than in independent vector lanes.
inline bool ReducesInXlaOrder(ElementType type, int64_t input_elements) {
  return (type == ElementType::kF32 || type == ElementType::kF64) &&
         input_elements < kXlaOrderedReduceElements;
}

// Returns how many reduce-windows were inserted.
int64_t RewriteReductionTrees(Module& module);

class ReductionTree : public Pass {
 public:
  std::string_view name() const override { return "reduction-tree"; }
  StatusOr<bool> Run(Module& module) override {
    return RewriteReductionTrees(module) > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_REDUCTION_TREE_H_
