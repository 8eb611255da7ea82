// xffi: the narrow floating-point formats XLA supports (f16, bf16, the f8
// family, f4e2m1fn, f8e8m0fnu), converted to and from double.
//
// Each format is described by its bit layout and by how it spends the top
// exponent: IEEE-like formats keep inf and NaN there, "FN" formats keep only
// NaN (all ones), "FNUZ" formats have no negative zero and use its pattern
// (sign bit alone) as their one NaN. Encoding rounds to nearest, ties to even.
#ifndef XFFI_SRC_IR_FLOAT_TYPES_H_
#define XFFI_SRC_IR_FLOAT_TYPES_H_

#include <cstdint>

#include "xffi/program/shape.h"

namespace xffi {

// True for the types these functions handle (not f32/f64: use the native
// types for those).
bool IsNarrowFloatType(ElementType type);

// `bits` holds the value in its low bits (one or two bytes as stored).
double NarrowFloatToDouble(ElementType type, uint32_t bits);
float NarrowFloatToFloat(ElementType type, uint32_t bits);
uint32_t NarrowFloatFromDouble(ElementType type, double value);

// Fast paths for the two 16-bit formats.
float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);

// The bit layout of a floating type (f32, f64 or a narrow one), as far as
// writing and reading NaNs bit for bit needs it.
struct FloatBitLayout {
  int width = 0;
  int mantissa_bits = 0;
  uint64_t sign_mask = 0;      // 0 for the unsigned e8m0
  uint64_t canonical_nan = 0;  // the quiet NaN a plain "nan" stands for
  uint64_t mantissa_mask() const { return (uint64_t{1} << mantissa_bits) - 1; }
};
FloatBitLayout FloatBitLayoutOf(ElementType type);
// The value of a floating type's `bits` (its low bits, as stored).
double DecodeFloatBits(ElementType type, uint64_t bits);

// An element's bits, as many bytes as the type stores (8, 4, 2 or 1).
uint64_t LoadElementBits(ElementType type, const unsigned char* p);
void StoreElementBits(ElementType type, unsigned char* p, uint64_t bits);

}  // namespace xffi

#endif  // XFFI_SRC_IR_FLOAT_TYPES_H_
