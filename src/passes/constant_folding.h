// xffi: evaluating an op whose operands are all constants, for the
// simplifier's constant folding.
//
// Only what the host computes bit for bit as every backend does is folded:
// integer arithmetic with XLA's rules (wrapping add/subtract/multiply/
// negate/abs, division by zero giving -1 and remainder the dividend, shifts
// past the width giving 0 or the sign), bitwise ops, comparisons, select,
// integer and pred conversions, the correctly rounded float operations
// (add, subtract, multiply, divide, negate, abs, min, max, compare,
// int<->float and f32<->f64 conversion) and data movement (reshape, copy,
// broadcast, transpose, slice, reverse) of any array type. Floats are
// folded only when no operand and no result is a NaN or a subnormal:
// executions run with flush-to-zero, and NaN payloads depend on the
// instruction that makes them. Transcendental functions are never folded:
// a backend's approximation may round differently from the host's libm.
#ifndef XFFI_SRC_PASSES_CONSTANT_FOLDING_H_
#define XFFI_SRC_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::passes {

// Folds only results of at most this many elements: constants stay small
// (and a broadcast of a scalar is not made an array constant: the code
// generator emits the scalar as an immediate).
inline constexpr int64_t kMaxFoldedElements = 256;

// The value of `op` with operand i's value `operands[i]`, computed into
// `result_shape` (op's own shape, or a 1-element shape of its element type
// when folding the scalars a broadcast spreads; elementwise ops then take
// each operand's only element). nullopt when the op, its types or one of
// its values is not folded.
std::optional<Literal> FoldConstantOp(
    const Instruction& op, const std::vector<const Literal*>& operands,
    const Shape& result_shape);

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_CONSTANT_FOLDING_H_
