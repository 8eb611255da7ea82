// xffi: how the CPU kernels read and write each element type.
//
// Every element type has a storage type (its bytes as the executor holds
// them) and a value type (what arithmetic runs on). Sub-byte integers are
// stored one per byte and wrapped to their width on every store; the narrow
// floats (f16, bf16, the f8 family, f4e2m1fn, f8e8m0fnu) compute in float and
// round back on store, as XLA:CPU does. Load and Store are identities for the
// native types, so loops over them vectorise.
#ifndef XFFI_SRC_CPU_ELEMENT_TRAITS_H_
#define XFFI_SRC_CPU_ELEMENT_TRAITS_H_

#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ir/float_types.h"
#include "xffi/program/shape.h"
#include "xffi/runtime/status.h"

namespace xffi::cpu {

enum class Category { kPred, kSigned, kUnsigned, kFloat, kComplex };

template <ElementType E, typename S, typename V, Category C, int B>
struct TraitsBase {
  static constexpr ElementType kType = E;
  using Storage = S;
  using Value = V;
  static constexpr Category kCategory = C;
  static constexpr int kBits = B;  // bits of the value proper
  static constexpr bool kIsPred = C == Category::kPred;
  static constexpr bool kIsSigned = C == Category::kSigned;
  static constexpr bool kIsUnsigned = C == Category::kUnsigned;
  static constexpr bool kIsInteger = kIsSigned || kIsUnsigned;
  static constexpr bool kIsFloat = C == Category::kFloat;
  static constexpr bool kIsComplex = C == Category::kComplex;
  // True when Value and Storage are the same type with no conversion.
  static constexpr bool kNative = std::is_same_v<S, V>;
};

template <ElementType E>
struct ElementTraits;

template <ElementType E, typename T, Category C>
struct NativeTraits : TraitsBase<E, T, T, C, static_cast<int>(sizeof(T) * 8)> {
  static T Load(T s) { return s; }
  static T Store(T v) { return v; }
};

template <>
struct ElementTraits<ElementType::kPred>
    : TraitsBase<ElementType::kPred, uint8_t, bool, Category::kPred, 1> {
  static bool Load(uint8_t s) { return s != 0; }
  static uint8_t Store(bool v) { return v ? 1 : 0; }
};

// Sub-byte signed integers: the low kBits bits, sign-extended.
template <ElementType E, int B>
struct SignedSubByteTraits
    : TraitsBase<E, int8_t, int8_t, Category::kSigned, B> {
  static int8_t Wrap(int8_t v) {
    return static_cast<int8_t>(
        static_cast<int8_t>(static_cast<uint8_t>(v) << (8 - B)) >> (8 - B));
  }
  static int8_t Load(int8_t s) { return Wrap(s); }
  static int8_t Store(int8_t v) { return Wrap(v); }
};

template <ElementType E, int B>
struct UnsignedSubByteTraits
    : TraitsBase<E, uint8_t, uint8_t, Category::kUnsigned, B> {
  static uint8_t Wrap(uint8_t v) {
    return static_cast<uint8_t>(v & ((1u << B) - 1));
  }
  static uint8_t Load(uint8_t s) { return Wrap(s); }
  static uint8_t Store(uint8_t v) { return Wrap(v); }
};

template <>
struct ElementTraits<ElementType::kS1>
    : SignedSubByteTraits<ElementType::kS1, 1> {};
template <>
struct ElementTraits<ElementType::kS2>
    : SignedSubByteTraits<ElementType::kS2, 2> {};
template <>
struct ElementTraits<ElementType::kS4>
    : SignedSubByteTraits<ElementType::kS4, 4> {};
template <>
struct ElementTraits<ElementType::kU1>
    : UnsignedSubByteTraits<ElementType::kU1, 1> {};
template <>
struct ElementTraits<ElementType::kU2>
    : UnsignedSubByteTraits<ElementType::kU2, 2> {};
template <>
struct ElementTraits<ElementType::kU4>
    : UnsignedSubByteTraits<ElementType::kU4, 4> {};

template <>
struct ElementTraits<ElementType::kS8>
    : NativeTraits<ElementType::kS8, int8_t, Category::kSigned> {};
template <>
struct ElementTraits<ElementType::kS16>
    : NativeTraits<ElementType::kS16, int16_t, Category::kSigned> {};
template <>
struct ElementTraits<ElementType::kS32>
    : NativeTraits<ElementType::kS32, int32_t, Category::kSigned> {};
template <>
struct ElementTraits<ElementType::kS64>
    : NativeTraits<ElementType::kS64, int64_t, Category::kSigned> {};
template <>
struct ElementTraits<ElementType::kU8>
    : NativeTraits<ElementType::kU8, uint8_t, Category::kUnsigned> {};
template <>
struct ElementTraits<ElementType::kU16>
    : NativeTraits<ElementType::kU16, uint16_t, Category::kUnsigned> {};
template <>
struct ElementTraits<ElementType::kU32>
    : NativeTraits<ElementType::kU32, uint32_t, Category::kUnsigned> {};
template <>
struct ElementTraits<ElementType::kU64>
    : NativeTraits<ElementType::kU64, uint64_t, Category::kUnsigned> {};
template <>
struct ElementTraits<ElementType::kF32>
    : NativeTraits<ElementType::kF32, float, Category::kFloat> {};
template <>
struct ElementTraits<ElementType::kF64>
    : NativeTraits<ElementType::kF64, double, Category::kFloat> {};
template <>
struct ElementTraits<ElementType::kC64>
    : NativeTraits<ElementType::kC64, std::complex<float>, Category::kComplex> {
};
template <>
struct ElementTraits<ElementType::kC128>
    : NativeTraits<ElementType::kC128, std::complex<double>,
                   Category::kComplex> {};

template <>
struct ElementTraits<ElementType::kF16>
    : TraitsBase<ElementType::kF16, uint16_t, float, Category::kFloat, 16> {
  // Inline here (the compiler's _Float16 where it has one) rather than the
  // out-of-line codecs, so the loops around them stay call-free.
  static float Load(uint16_t s) {
#ifdef __FLT16_MAX__
    return static_cast<float>(std::bit_cast<_Float16>(s));
#else
    return HalfToFloat(s);
#endif
  }
  static uint16_t Store(float v) {
#ifdef __FLT16_MAX__
    return std::bit_cast<uint16_t>(static_cast<_Float16>(v));
#else
    return FloatToHalf(v);
#endif
  }
  // A NaN becomes the quiet NaN of its sign (sign | 0x7e00), as XLA:CPU
  // converts from f64; from f32 it keeps the payload's top bits.
  static uint16_t StoreDouble(double v) {
    if (v != v) return std::signbit(v) ? 0xfe00 : 0x7e00;
    return static_cast<uint16_t>(NarrowFloatFromDouble(kType, v));
  }
};

template <>
struct ElementTraits<ElementType::kBF16>
    : TraitsBase<ElementType::kBF16, uint16_t, float, Category::kFloat, 16> {
  // The same rounding as FloatToBFloat16, inline and branch-free so the
  // loops vectorise: nearest even; a NaN becomes the quiet NaN of its sign
  // (sign | 0x7fc0, payload dropped), as XLA:CPU's conversion gives it.
  static float Load(uint16_t s) {
    return std::bit_cast<float>(static_cast<uint32_t>(s) << 16);
  }
  static uint16_t Store(float v) {
    const uint32_t bits = std::bit_cast<uint32_t>(v);
    const uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
    const uint32_t nan = (bits & 0x80000000u) | 0x7fc00000u;
    return static_cast<uint16_t>((v != v ? nan : rounded) >> 16);
  }
  static uint16_t StoreDouble(double v) {
    return static_cast<uint16_t>(NarrowFloatFromDouble(kType, v));
  }
};

// The one-byte float formats decode through a table (every pattern is
// exact in float); encoding rounds once, to nearest even.
template <ElementType E, int B>
struct ByteFloatTraits : TraitsBase<E, uint8_t, float, Category::kFloat, B> {
  static const std::array<float, 256>& Table() {
    static const std::array<float, 256> table = [] {
      std::array<float, 256> t{};
      for (uint32_t bits = 0; bits < 256; ++bits)
        t[bits] = NarrowFloatToFloat(E, bits);
      return t;
    }();
    return table;
  }
  static float Load(uint8_t s) { return Table()[s]; }
  static uint8_t Store(float v) {
    return static_cast<uint8_t>(NarrowFloatFromDouble(E, v));
  }
  static uint8_t StoreDouble(double v) {
    return static_cast<uint8_t>(NarrowFloatFromDouble(E, v));
  }
};

#define XFFI_BYTE_FLOAT(E, B)                                                 \
  template <>                                                                 \
  struct ElementTraits<ElementType::E> : ByteFloatTraits<ElementType::E, B> { \
  };
XFFI_BYTE_FLOAT(kF8E5M2, 8)
XFFI_BYTE_FLOAT(kF8E4M3FN, 8)
XFFI_BYTE_FLOAT(kF8E4M3B11FNUZ, 8)
XFFI_BYTE_FLOAT(kF8E5M2FNUZ, 8)
XFFI_BYTE_FLOAT(kF8E4M3FNUZ, 8)
XFFI_BYTE_FLOAT(kF8E4M3, 8)
XFFI_BYTE_FLOAT(kF8E3M4, 8)
XFFI_BYTE_FLOAT(kF4E2M1FN, 4)
XFFI_BYTE_FLOAT(kF8E8M0FNU, 8)
#undef XFFI_BYTE_FLOAT

// Stores a double with a single rounding (f64 sources would otherwise round
// twice, through float, on the way to a narrow type).
template <typename Tr>
typename Tr::Storage StoreFromDouble(double v) {
  if constexpr (Tr::kNative)
    return static_cast<typename Tr::Storage>(v);
  else
    return Tr::StoreDouble(v);
}

// The real type of a complex type (c64 -> f32), and back.
template <typename Tr>
using RealTraits = std::conditional_t<Tr::kType == ElementType::kC64,
                                      ElementTraits<ElementType::kF32>,
                                      ElementTraits<ElementType::kF64>>;

// Calls f(ElementTraits<type>{}) with the traits of a runtime element type;
// UNIMPLEMENTED for tuple, token and invalid.
template <typename F>
auto VisitElementType(ElementType type, F&& f)
    -> decltype(f(ElementTraits<ElementType::kF32>{})) {
#define XFFI_VISIT(E)  \
  case ElementType::E: \
    return f(ElementTraits<ElementType::E>{});
  switch (type) {
    XFFI_VISIT(kPred)
    XFFI_VISIT(kS1)
    XFFI_VISIT(kS2)
    XFFI_VISIT(kS4)
    XFFI_VISIT(kS8)
    XFFI_VISIT(kS16)
    XFFI_VISIT(kS32)
    XFFI_VISIT(kS64)
    XFFI_VISIT(kU1)
    XFFI_VISIT(kU2)
    XFFI_VISIT(kU4)
    XFFI_VISIT(kU8)
    XFFI_VISIT(kU16)
    XFFI_VISIT(kU32)
    XFFI_VISIT(kU64)
    XFFI_VISIT(kF16)
    XFFI_VISIT(kBF16)
    XFFI_VISIT(kF32)
    XFFI_VISIT(kF64)
    XFFI_VISIT(kC64)
    XFFI_VISIT(kC128)
    XFFI_VISIT(kF8E5M2)
    XFFI_VISIT(kF8E4M3FN)
    XFFI_VISIT(kF8E4M3B11FNUZ)
    XFFI_VISIT(kF8E5M2FNUZ)
    XFFI_VISIT(kF8E4M3FNUZ)
    XFFI_VISIT(kF8E4M3)
    XFFI_VISIT(kF8E3M4)
    XFFI_VISIT(kF4E2M1FN)
    XFFI_VISIT(kF8E8M0FNU)
    default:
      break;
  }
#undef XFFI_VISIT
  return Unimplemented("element type " + std::string(ElementTypeName(type)) +
                       " is not an array element type");
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_ELEMENT_TRAITS_H_
