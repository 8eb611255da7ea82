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

#include <array>
#include <bit>
#include <cstdint>

#include "cpu/byte_float_format.h"
#include "xffi/program/ir.h"

namespace xffi::cpu {

// The byte `format` stores for `value`, an op's result computed in f32 from
// operands of that format: rounded to f16 (not for f8e8m0fnu), then
// converted as XLA:CPU converts from the widened type.
uint8_t StoreByteFloatResult(const ByteFloatFormat& format, float value);

// A unary op's result for each of a format's 256 bytes.
using ByteFloatUnaryTable = std::array<uint8_t, 256>;

// Corrects `table`, the results of unary op `opcode` computed in f32 and
// stored by StoreByteFloatResult, where XLA:CPU's widened op gives other
// bytes (probed against jax 0.10.2's jax.jit for every byte of every
// format):
//  - expm1 of |x| > 0.5 (not f8e8m0fnu): XLA's expansion is exp(x) - 1
//    there, evaluated in the widened f16, so exp rounds to f16 before the
//    subtraction: f8e3m4 expm1(2.125) is f16 8.375 - 1 = 7.375, a tie the
//    byte takes to 7.5, where the f32 value 7.3728 gives 7.25;
//  - f8e8m0fnu's byte 0, 2^-127, is an f32 subnormal, which XLA's f32 ops
//    read each their own way: sign and ceil give 1, tanh and expm1 return
//    the input (tiny arguments pass through), log1p gives NaN (its result
//    flushed to zero, which the conversion makes NaN).
void ApplyXlaUnaryExceptions(Opcode opcode, const ByteFloatFormat& format,
                             ByteFloatUnaryTable& table);

// Whether `type` is one of the byte floats.
bool IsByteFloatType(ElementType type);

// Stores `count` results of a product (dot, convolution) of byte-float
// type `type` (IsByteFloatType) computed in f32. XLA:CPU widens such a
// product's operands to f32 (through f16) and narrows its f32 result
// through f16 too (f32 straight to the byte for f8e8m0fnu), so a result
// rounds twice, where a plain conversion from f32 rounds once: e.g. f32
// 0.59375 + 2^-20 rounds to f16 0.59375, a tie that f8e4m3fn takes to 0.5625,
// while the f32 value itself rounds up to 0.625.
void StoreByteFloatProducts(ElementType type, const float* values,
                            int64_t count, uint8_t* out);

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
