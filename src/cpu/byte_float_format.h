// xffi: the one-byte float formats as a run-time value, for the template
// kernels.
//
// The nine one-byte float formats (the f8 family, f4e2m1fn, f8e8m0fnu) all
// compute in float (element_traits.h): they differ only in how a byte
// decodes (a table) and how a float encodes (NarrowFloatFromDouble, which
// takes the format at run time anyway). An elementwise op on one of them
// computes what it computes on f32, and its result is stored as XLA:CPU
// stores it (byte_float_arithmetic.h). So their template kernels share one
// compiled loop per op, reading the format from a ByteFloatFormat, instead
// of one loop per (op, format): those loops were nearly half of the
// elementwise sources' instantiations and of the build's time, for types
// whose per-element cost is the out-of-line encoder either way.
#ifndef XFFI_SRC_CPU_BYTE_FLOAT_FORMAT_H_
#define XFFI_SRC_CPU_BYTE_FLOAT_FORMAT_H_

#include <array>
#include <cstdint>
#include <type_traits>

#include "cpu/element_traits.h"

namespace xffi::cpu {

// Whether traits Tr are one of the byte floats (stored in a byte, computed
// in float).
template <typename Tr>
inline constexpr bool kIsByteFloat = Tr::kIsFloat &&
                                     sizeof(typename Tr::Storage) == 1;

// The traits the byte floats compute with: their values are floats, and
// every op treats a float value alike whatever format it came from.
using ByteFloatComputeTraits = ElementTraits<ElementType::kF32>;

// Load and Store of one byte-float format, chosen at run time. Same
// results as ElementTraits<type>'s (it reads the same table and encoder).
struct ByteFloatFormat {
  using Storage = uint8_t;
  using Value = float;

  ElementType type;
  const std::array<float, 256>* table;

  template <typename Tr>
  static ByteFloatFormat Of() {
    static_assert(kIsByteFloat<Tr>);
    return {Tr::kType, &Tr::Table()};
  }

  float Load(uint8_t s) const { return (*table)[s]; }
  uint8_t Store(float v) const {
    return static_cast<uint8_t>(NarrowFloatFromDouble(type, v));
  }
  uint8_t StoreDouble(double v) const {
    return static_cast<uint8_t>(NarrowFloatFromDouble(type, v));
  }
};

// The traits a value loaded through `Codec` (element traits, whose Load and
// Store are static, or a ByteFloatFormat) computes with.
template <typename Codec>
using ComputeTraits = std::conditional_t<std::is_same_v<Codec, ByteFloatFormat>,
                                         ByteFloatComputeTraits, Codec>;

// Calls f(ByteFloatFormat) when `type` is a byte float, f(traits) with the
// element type's traits otherwise: VisitElementType with the byte floats
// folded into one instantiation.
template <typename F>
auto VisitFoldingByteFloats(ElementType type, F&& f)
    -> decltype(f(ElementTraits<ElementType::kF32>{})) {
  return VisitElementType(type, [&](auto traits) {
    using Tr = decltype(traits);
    if constexpr (kIsByteFloat<Tr>)
      return f(ByteFloatFormat::Of<Tr>());
    else
      return f(traits);
  });
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_BYTE_FLOAT_FORMAT_H_
