// xffi: how the result of arithmetic on a byte float is stored, as XLA:CPU
// stores it.
//
// XLA:CPU computes nothing in the byte floats (the f8 family, f4e2m1fn,
// f8e8m0fnu). Its float normalisation widens every op on them to f16 (to f32
// for f8e8m0fnu, whose exponent range f16 lacks) and converts the result
// back with its ordinary conversion. So a result first rounds to f16, then
// takes the f16-source conversion's special values: f8e5m2's NaN is 0x7f, a
// negative NaN or overflow in f8e4m3fn keeps its sign (0xff); an f8e8m0fnu
// result that underflows to zero is its NaN. The template kernels compute
// the op in f32 (byte_float_format.h) and store through here, so every path
// that runs them (elementwise ops, fused loops, the regions of reduce,
// scatter, sort, ...) narrows alike. A plain conversion does not come here:
// it rounds once, from its own source type (element_convert.h).
#ifndef XFFI_SRC_CPU_BYTE_FLOAT_ARITHMETIC_H_
#define XFFI_SRC_CPU_BYTE_FLOAT_ARITHMETIC_H_

#include <bit>
#include <cstdint>

#include "cpu/byte_float_format.h"

namespace xffi::cpu {

// The byte `format` stores for `value`, an op's result computed in f32 from
// operands of that format: rounded to f16 (not for f8e8m0fnu), then
// converted as XLA:CPU converts from the widened type.
uint8_t StoreByteFloatResult(const ByteFloatFormat& format, float value);

// A maximum or minimum (or clamp) as XLA:CPU's widened one gives it: a
// NaN result is the positive quiet NaN, whichever operand's NaN it was (its
// f16 max/min selects a constant NaN); a subnormal result is a zero of its
// sign, as its vector max/min give it under denormals-are-zero (the
// kernels' compare-and-select keeps the subnormal's bits). Only f8e8m0fnu
// holds a value below f32's normal range, 2^-127, which then becomes zero
// and so NaN.
inline float XlaMaxMinResult(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (value != value) return std::bit_cast<float>(0x7fc00000u);
  return (bits & 0x7f800000u) == 0 ? std::bit_cast<float>(bits & 0x80000000u)
                                   : value;
}

// An add or multiply of two byte floats as XLA:CPU's gives it when an
// operand is NaN: x86 returns its first operand's NaN, sign included, when
// both are NaN. The compiler may swap the operands of a commutative op, so
// the kernels put a's NaN first themselves.
inline float XlaCommutativeResult(float a, float result) {
  return a != a ? a : result;
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_BYTE_FLOAT_ARITHMETIC_H_
