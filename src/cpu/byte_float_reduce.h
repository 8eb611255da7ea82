// xffi: one step of a reduction over byte floats (reduce, reduce-window,
// scatter, ... whose region is one add, multiply, maximum or minimum), as
// XLA:CPU computes it.
//
// XLA:CPU widens the region to f16 (f32 for f8e8m0fnu) and narrows its
// result back to the byte type at every step, like an elementwise op
// (byte_float_arithmetic.h). But a reduction's steps are scalar code, where
// maximum and minimum keep a NaN operand's payload and give it a sign by
// XLA's rule for scalars (float_max_min.h: a maximum's NaN from the second
// operand is negative only when both operands are), while the vectorised
// elementwise ops return the positive quiet NaN. The reduction paths run
// their byte-float steps here instead of through the region runner, which
// would run the elementwise kernels.
#ifndef XFFI_SRC_CPU_BYTE_FLOAT_REDUCE_H_
#define XFFI_SRC_CPU_BYTE_FLOAT_REDUCE_H_

#include <cstdint>
#include <optional>

#include "cpu/byte_float_format.h"
#include "xffi/program/ir.h"

namespace xffi::cpu {

// Which NaN a step gives, which differs between XLA:CPU's loops (probed
// with jax 0.10.2: rows of f8e4m3fn holding NaNs of either sign at chosen
// places, reduced and scanned by add, max and min):
//  - kScalar: a reduce no longer than 32 per reduced dimension, which XLA
//    keeps as it is, and every reduce-window (its windows of 32 for longer
//    reduces, the cumulative scans): add and multiply return the region's
//    first operand's NaN when both are NaN, max and min follow XLA's scalar
//    rule (XlaFloatMax/XlaFloatMin, float_max_min.h);
//  - kMap, kNestedMap: the maps that end XLA's rewritten scans
//    (cumulative_window.cc), where the scan of the blocks' totals is not
//    rewritten again: a NaN maximum or minimum is the positive quiet NaN;
//    add and multiply return the first operand's NaN in the scan's own map
//    (kMap), the second's in the map of a totals' scan (kNestedMap). The
//    map of a scan whose totals' scan is rewritten again (longer than 256)
//    takes kScalar's rule, or kTreeTop's for a totals' scan. Emulated
//    against jax.jit for cumsum, cumprod, cummax and cummin of rows of 17
//    to 600 random f8e4m3fn bytes, both directions: no difference;
//  - kTreeTop: the reduce of what XLA's windows of 32 leave, when each
//    result folds at most 4 of them: add and multiply return the second
//    operand's NaN, so of two NaNs in different windows the later one's
//    sign wins (a fold of 5 or more keeps kScalar's first NaN: XLA unrolls
//    the short loop, and its operands swap). Max and min keep kScalar's
//    rule there, which XLA follows for one row; for some row counts (2, 4,
//    8, ... rows of 2 windows, not 6 or 10) its vectorised loop returns the
//    positive NaN instead, which is not modelled.
enum class ByteFloatNanRule { kScalar, kMap, kNestedMap, kTreeTop };

struct ByteFloatReduceStep {
  ByteFloatFormat format{};
  Opcode op = Opcode::kAdd;
  // Whether the region's op reads (value, accumulator) rather than
  // (accumulator, value): max and min are not symmetric in a NaN's sign.
  bool swapped = false;
  ByteFloatNanRule nan_rule = ByteFloatNanRule::kScalar;

  uint8_t operator()(uint8_t acc, uint8_t value) const;
};

// The step when `region` takes two scalars of byte-float type `type` and
// returns add, multiply, maximum or minimum of them; nullopt otherwise.
std::optional<ByteFloatReduceStep> MatchByteFloatReduceStep(
    const Computation* region, ElementType type);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_BYTE_FLOAT_REDUCE_H_
