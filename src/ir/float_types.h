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

}  // namespace xffi

#endif  // XFFI_SRC_IR_FLOAT_TYPES_H_
