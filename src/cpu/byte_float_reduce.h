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

struct ByteFloatReduceStep {
  ByteFloatFormat format{};
  Opcode op = Opcode::kAdd;
  // Whether the region's op reads (value, accumulator) rather than
  // (accumulator, value): max and min are not symmetric in a NaN's sign.
  bool swapped = false;

  uint8_t operator()(uint8_t acc, uint8_t value) const;
};

// The step when `region` takes two scalars of byte-float type `type` and
// returns add, multiply, maximum or minimum of them; nullopt otherwise.
std::optional<ByteFloatReduceStep> MatchByteFloatReduceStep(
    const Computation* region, ElementType type);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_BYTE_FLOAT_REDUCE_H_
