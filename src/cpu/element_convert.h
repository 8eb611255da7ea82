// xffi: one element converted between element types with XLA's semantics.
//
//  - float to integer truncates toward zero and saturates: NaN gives 0, out
//    of range values give the type's minimum or maximum (LLVM's fptosi.sat,
//    which XLA:CPU emits);
//  - integer to integer wraps (keeps the low bits, sign-extending first);
//  - anything to pred is `!= 0` (a NaN is true); complex to pred tests both
//    parts;
//  - complex to a real type takes the real part; real to complex has a zero
//    imaginary part;
//  - float to float rounds once, to nearest even, except that bf16 is
//    reached through f32 as XLA:CPU does.
#ifndef XFFI_SRC_CPU_ELEMENT_CONVERT_H_
#define XFFI_SRC_CPU_ELEMENT_CONVERT_H_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/byte_float_format.h"
#include "cpu/element_traits.h"

namespace xffi::cpu {

// A float (or double) into integer type To, truncated and saturated.
template <typename To, typename F>
typename To::Value SaturatingCast(F x) {
  using TV = typename To::Value;
  constexpr int kBits = To::kBits;
  if (x != x) return TV{0};
  if constexpr (To::kIsSigned) {
    constexpr int64_t kLow = kBits == 64 ? std::numeric_limits<int64_t>::min()
                                         : -(int64_t{1} << (kBits - 1));
    constexpr int64_t kHigh = kBits == 64 ? std::numeric_limits<int64_t>::max()
                                          : (int64_t{1} << (kBits - 1)) - 1;
    // kHigh may round up to a power of two in F; anything below that
    // truncates into range.
    if (x <= static_cast<F>(kLow)) return static_cast<TV>(kLow);
    if (x >= static_cast<F>(kHigh)) return static_cast<TV>(kHigh);
    return static_cast<TV>(static_cast<int64_t>(x));
  } else {
    constexpr uint64_t kHigh = kBits == 64
                                   ? std::numeric_limits<uint64_t>::max()
                                   : (uint64_t{1} << kBits) - 1;
    if (x <= F{0}) return TV{0};
    if (x >= static_cast<F>(kHigh)) return static_cast<TV>(kHigh);
    return static_cast<TV>(static_cast<uint64_t>(x));
  }
}

// XLA:CPU's special values in the byte-float formats, which the plain
// encoder does not give: NaN, and negative values past the largest finite
// one, keep their sign where the format has a signed NaN (f8e4m3fn's -NaN
// is 0xff); f4e2m1fn has no NaN and takes NaN to -0; f8e8m0fnu has no sign
// and takes every negative value, -0 included, to its NaN.
template <typename X>
uint8_t XlaByteFloatSpecials(const ByteFloatFormat& to, uint8_t bits, X x) {
  if (to.type == ElementType::kF4E2M1FN) {
    if (x != x) return 0x8;
  } else if constexpr (std::is_floating_point_v<X> || std::is_signed_v<X>) {
    const bool negative = std::signbit(x);
    if (to.type == ElementType::kF8E8M0FNU) {
      if (negative) return 0xff;
    } else if (to.type == ElementType::kF8E5M2 ||
               to.type == ElementType::kF8E4M3FN ||
               to.type == ElementType::kF8E4M3 ||
               to.type == ElementType::kF8E3M4) {
      const float decoded = to.Load(bits);
      if (negative && decoded != decoded) return bits | 0x80;
    }
  }
  return bits;
}

// What a conversion to a real type starts from: the value, or a complex
// value's real part.
template <typename From>
auto RealPart(typename From::Value v) {
  if constexpr (From::kIsComplex)
    return v.real();
  else
    return v;
}

// Whether a value of From (its real part of type X) narrows to a float
// type from double: through float it would round twice.
template <typename From, typename X>
inline constexpr bool kNarrowsFromDouble = std::is_same_v<X, double> ||
                                           (From::kIsInteger &&
                                            From::kBits > 24);

// XLA:CPU's conversion to f8e8m0fnu works on f32's bits: the exponent
// field, plus one when the mantissa's top bit is set (so a value halfway
// between two powers rounds up); an f32 subnormal gives 2^-127, or 2^-126
// when its mantissa is above one half; zero, negative values, infinities,
// NaN and overflow give the format's NaN, 0xff (as ml_dtypes converts). `x` is
// already narrowed to f32. On the bits only: kernels run with
// denormals-are-zero, under which a subnormal compares equal to zero.
inline uint8_t XlaE8M0FromFloat(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if (bits == 0 || (bits >> 31) != 0 || (bits >> 23) == 0xff) return 0xff;
  if ((bits >> 23) == 0) return (bits & 0x7fffff) > 0x400000 ? 1 : 0;
  const uint32_t exponent = (bits >> 23) + ((bits >> 22) & 1);
  return exponent > 0xfe ? 0xff : static_cast<uint8_t>(exponent);
}

// Whether XLA:CPU holds values of From in f16 or bf16 (the 16-bit floats,
// and the byte floats its float normalisation widens): its conversion from
// those to f8e5m2 (f16's upper byte) gives every NaN as 0x7f, where one from
// f32, f64 or an integer keeps the NaN's sign (0x7e, 0xfe).
template <typename From>
inline constexpr bool kHeldAsHalf =
    From::kType == ElementType::kF16 || From::kType == ElementType::kBF16 ||
    kIsByteFloat<From>;

// A value of From converted to the byte-float format `to` (the format at
// run time: the template kernels share one loop for all nine). A byte-float
// source reaches here as f32 traits: `held_as_half` says where it came from.
template <typename From>
uint8_t ConvertToByteFloat(typename From::Value v, const ByteFloatFormat& to,
                           bool held_as_half = kHeldAsHalf<From>) {
  auto x = RealPart<From>(v);
  if (to.type == ElementType::kF8E8M0FNU) {
    float narrowed = static_cast<float>(x);
    // f64 narrows to f32 first, where XLA:CPU's flush-to-zero takes a
    // subnormal result to zero (so to NaN).
    if (std::is_same_v<decltype(x), double> &&
        (std::bit_cast<uint32_t>(narrowed) & 0x7f800000u) == 0)
      narrowed = 0.0f;
    return XlaE8M0FromFloat(narrowed);
  }
  if constexpr (std::is_floating_point_v<decltype(x)>)
    if (held_as_half && to.type == ElementType::kF8E5M2 && x != x) return 0x7f;
  uint8_t bits;
  if constexpr (kNarrowsFromDouble<From, decltype(x)>) {
    bits = to.StoreDouble(static_cast<double>(x));
  } else {
    bits = to.Store(static_cast<float>(x));
  }
  return XlaByteFloatSpecials(to, bits, x);
}

template <typename From, typename To>
typename To::Storage ConvertElement(typename From::Value v) {
  using TV = typename To::Value;
  if constexpr (To::kIsPred) {
    if constexpr (From::kIsComplex)
      return To::Store(v.real() != 0 || v.imag() != 0);
    else
      return To::Store(v != 0);
  } else if constexpr (To::kIsComplex) {
    using C = typename TV::value_type;
    if constexpr (From::kIsComplex)
      return TV(static_cast<C>(v.real()), static_cast<C>(v.imag()));
    else
      return TV(static_cast<C>(v), C{0});
  } else {
    auto x = RealPart<From>(v);
    using X = decltype(x);
    if constexpr (To::kIsFloat) {
      if constexpr (To::kNative) {
        return static_cast<TV>(x);
      } else if constexpr (To::kType == ElementType::kBF16) {
        // XLA:CPU narrows to f32 first, so f64 and wide integers round
        // twice on their way to bf16 (1 + 2^-8 + 2^-40 gives 1.0).
        return To::Store(static_cast<float>(x));
      } else if constexpr (kIsByteFloat<To>) {
        return ConvertToByteFloat<From>(v, ByteFloatFormat::Of<To>());
      } else if constexpr (kNarrowsFromDouble<From, X>) {
        return To::StoreDouble(static_cast<double>(x));
      } else {
        return To::Store(static_cast<float>(x));
      }
    } else if constexpr (std::is_floating_point_v<X>) {
      return To::Store(SaturatingCast<To>(x));
    } else {
      return To::Store(static_cast<TV>(x));
    }
  }
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_ELEMENT_CONVERT_H_
