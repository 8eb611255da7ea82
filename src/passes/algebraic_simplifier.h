// xffi: algebraic simplification (the pass "simplify").
//
// Rewrites that make a program cheaper without changing one bit of its
// results (but two, below), in every computation:
//  - ops that return their operand: reshape, transpose, broadcast, slice,
//    pad, reverse, convert and concatenate that change nothing;
//    negate(negate x) and not(not x); select with a constant predicate or
//    twice the same value;
//  - identities of arithmetic, only where they are exact: for integers
//    x + 0, x - 0, x * 1, x / 1, x * 0 (to the zero operand), x | 0, x ^ 0,
//    x & ~0; for pred x & true, x | false; for floats x + (-0.0),
//    x - (+0.0), x * 1, x / 1 (x + (+0.0) is not x when x is -0.0, and x * 0
//    is not 0 for NaN, infinities or negative x, so neither is touched);
//  - chains folded into one op: transpose of transpose, reshape of
//    reshape, broadcast of broadcast;
//  - a reduce over dims of size 1 whose reducer is one of those ops with
//    init its exact identity: a reshape of its input;
//  - a broadcast that only inserts dims of size 1: a reshape;
//  - two rules that may change the last bits: XLA's f32/f64
//    x / broadcast(b) becomes x * broadcast(1 / b) (a division per element
//    of b, not of x); transpose(dot(a, b)) that swaps the dot's free dims,
//    and is the dot's only reader, becomes dot(b, a) (the same products,
//    which a GEMM may sum in another order for the swapped shape);
//  - constant folding (passes/constant_folding.h says what is folded): an
//    op whose operands are all constants of at most kMaxFoldedElements
//    becomes a constant, get-tuple-element of a tuple its element, and an
//    elementwise op of broadcast scalar constants the broadcast of one
//    folded scalar; a broadcast of a scalar stays a broadcast (the code
//    generator emits its value as an immediate).
// No rule reassociates. Ops left unread are dce's to remove.
#ifndef XFFI_SRC_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define XFFI_SRC_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// Returns how many ops were replaced or folded.
int64_t SimplifyAlgebra(Module& module);

class AlgebraicSimplifier : public Pass {
 public:
  std::string_view name() const override { return "simplify"; }
  StatusOr<bool> Run(Module& module) override {
    return SimplifyAlgebra(module) > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_ALGEBRAIC_SIMPLIFIER_H_
