#include "ir/float_types.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace xffi {
namespace {

enum class Specials {
  kIeee,       // top exponent: inf (mantissa 0) and NaN
  kFn,         // top exponent with all-ones mantissa: NaN; no inf
  kFnuz,       // sign bit alone: NaN; no inf, no negative zero
  kNone,       // every pattern is finite (f4e2m1fn)
  kExponents,  // e8m0: unsigned powers of two, all ones is NaN
};

struct Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_sign;
  Specials specials;

  uint32_t exponent_mask() const { return (1u << exponent_bits) - 1; }
  uint32_t mantissa_mask() const { return (1u << mantissa_bits) - 1; }
  int total_bits() const {
    return (has_sign ? 1 : 0) + exponent_bits + mantissa_bits;
  }
  uint32_t sign_bit() const {
    return has_sign ? 1u << (exponent_bits + mantissa_bits) : 0;
  }
  uint32_t nan_bits() const {
    switch (specials) {
      case Specials::kIeee:
        return (exponent_mask() << mantissa_bits) | (1u << (mantissa_bits - 1));
      case Specials::kFn:
        return (exponent_mask() << mantissa_bits) | mantissa_mask();
      case Specials::kFnuz:
        return sign_bit();
      case Specials::kExponents:
        return exponent_mask();
      case Specials::kNone:
        break;
    }
    return max_finite_bits();  // no NaN: the nearest thing is saturation
  }
  uint32_t max_finite_bits() const {
    switch (specials) {
      case Specials::kIeee:
        return ((exponent_mask() - 1) << mantissa_bits) | mantissa_mask();
      case Specials::kFn:
        return (exponent_mask() << mantissa_bits) | (mantissa_mask() - 1);
      case Specials::kExponents:
        return exponent_mask() - 1;
      case Specials::kFnuz:
      case Specials::kNone:
        break;
    }
    return (exponent_mask() << mantissa_bits) | mantissa_mask();
  }
};

const Format* FormatOf(ElementType type) {
  static const Format kF16{5, 10, 15, true, Specials::kIeee};
  static const Format kBF16{8, 7, 127, true, Specials::kIeee};
  static const Format kE5M2{5, 2, 15, true, Specials::kIeee};
  static const Format kE4M3{4, 3, 7, true, Specials::kIeee};
  static const Format kE3M4{3, 4, 3, true, Specials::kIeee};
  static const Format kE4M3FN{4, 3, 7, true, Specials::kFn};
  static const Format kE4M3FNUZ{4, 3, 8, true, Specials::kFnuz};
  static const Format kE5M2FNUZ{5, 2, 16, true, Specials::kFnuz};
  static const Format kE4M3B11FNUZ{4, 3, 11, true, Specials::kFnuz};
  static const Format kE2M1FN{2, 1, 1, true, Specials::kNone};
  static const Format kE8M0FNU{8, 0, 127, false, Specials::kExponents};
  switch (type) {
    case ElementType::kF16:
      return &kF16;
    case ElementType::kBF16:
      return &kBF16;
    case ElementType::kF8E5M2:
      return &kE5M2;
    case ElementType::kF8E4M3:
      return &kE4M3;
    case ElementType::kF8E3M4:
      return &kE3M4;
    case ElementType::kF8E4M3FN:
      return &kE4M3FN;
    case ElementType::kF8E4M3FNUZ:
      return &kE4M3FNUZ;
    case ElementType::kF8E5M2FNUZ:
      return &kE5M2FNUZ;
    case ElementType::kF8E4M3B11FNUZ:
      return &kE4M3B11FNUZ;
    case ElementType::kF4E2M1FN:
      return &kE2M1FN;
    case ElementType::kF8E8M0FNU:
      return &kE8M0FNU;
    default:
      return nullptr;
  }
}

double Decode(const Format& f, uint32_t bits) {
  bits &= (1u << f.total_bits()) - 1;
  if (f.specials == Specials::kFnuz && bits == f.sign_bit())
    return std::numeric_limits<double>::quiet_NaN();
  const bool negative = (bits & f.sign_bit()) != 0;
  const uint32_t exponent = (bits >> f.mantissa_bits) & f.exponent_mask();
  const uint32_t mantissa = bits & f.mantissa_mask();
  if (f.specials == Specials::kExponents) {
    if (exponent == f.exponent_mask())
      return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(exponent) - f.bias);
  }
  // A NaN with its sign bit set decodes to -NaN, as XLA widens it: a
  // conversion to a format with signed NaNs keeps the sign.
  const double nan = negative ? -std::numeric_limits<double>::quiet_NaN()
                              : std::numeric_limits<double>::quiet_NaN();
  if (exponent == f.exponent_mask()) {
    if (f.specials == Specials::kIeee) {
      if (mantissa != 0) return nan;
      return negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    }
    if (f.specials == Specials::kFn && mantissa == f.mantissa_mask())
      return nan;
  }
  double magnitude =
      exponent == 0
          ? std::ldexp(static_cast<double>(mantissa),
                       1 - f.bias - f.mantissa_bits)
          : std::ldexp(static_cast<double>(mantissa | (1u << f.mantissa_bits)),
                       static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

uint32_t EncodeExponentOnly(const Format& f, double value) {
  if (std::isnan(value) || value < 0 || std::isinf(value)) return f.nan_bits();
  if (value == 0) return 0;  // no zero: the smallest power of two
  int exp;
  double fraction = std::frexp(value, &exp);  // value = fraction * 2^exp
  // Between 2^(exp-1) and 2^exp the midpoint is 0.75 * 2^exp.
  int unbiased = exp - 1;
  if (fraction > 0.75) {
    unbiased = exp;
  } else if (fraction == 0.75) {
    // A tie goes to the even exponent field.
    if (((unbiased + f.bias) & 1) != 0) unbiased = exp;
  }
  int biased = unbiased + f.bias;
  if (biased < 0) return 0;
  if (biased > static_cast<int>(f.max_finite_bits())) return f.nan_bits();
  return static_cast<uint32_t>(biased);
}

uint32_t Encode(const Format& f, double value) {
  if (f.specials == Specials::kExponents) return EncodeExponentOnly(f, value);
  if (std::isnan(value)) return f.nan_bits();
  const bool negative = std::signbit(value);
  const uint32_t sign = negative ? f.sign_bit() : 0;
  const double max_finite = Decode(f, f.max_finite_bits());
  double magnitude = std::fabs(value);
  auto overflow = [&]() -> uint32_t {
    switch (f.specials) {
      case Specials::kIeee:
        return sign | (f.exponent_mask() << f.mantissa_bits);
      case Specials::kNone:
        return sign | f.max_finite_bits();
      default:
        return f.nan_bits();
    }
  };
  if (std::isinf(magnitude)) return overflow();
  if (magnitude == 0) return f.specials == Specials::kFnuz ? 0 : sign;

  const int min_normal_exponent = 1 - f.bias;
  int exp;
  std::frexp(magnitude, &exp);
  int unbiased = std::max(exp - 1, min_normal_exponent);
  double quantum = std::ldexp(1.0, unbiased - f.mantissa_bits);
  // nearbyint rounds ties to even under the default rounding mode; the
  // integer's parity is the mantissa's last bit.
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded > max_finite) return overflow();
  if (rounded == 0) return f.specials == Specials::kFnuz ? 0 : sign;
  std::frexp(rounded, &exp);
  unbiased = exp - 1;
  if (unbiased < min_normal_exponent) {
    uint32_t mantissa = static_cast<uint32_t>(
        std::ldexp(rounded, f.mantissa_bits - min_normal_exponent));
    return sign | mantissa;
  }
  uint32_t exponent = static_cast<uint32_t>(unbiased + f.bias);
  uint32_t mantissa =
      static_cast<uint32_t>(std::ldexp(rounded, f.mantissa_bits - unbiased)) &
      f.mantissa_mask();
  return sign | (exponent << f.mantissa_bits) | mantissa;
}

}  // namespace

bool IsNarrowFloatType(ElementType type) { return FormatOf(type) != nullptr; }

double NarrowFloatToDouble(ElementType type, uint32_t bits) {
  const Format* format = FormatOf(type);
  if (format == nullptr) return std::numeric_limits<double>::quiet_NaN();
  return Decode(*format, bits);
}

float NarrowFloatToFloat(ElementType type, uint32_t bits) {
  if (type == ElementType::kBF16) return BFloat16ToFloat(bits & 0xffff);
  if (type == ElementType::kF16) return HalfToFloat(bits & 0xffff);
  return static_cast<float>(NarrowFloatToDouble(type, bits));
}

uint32_t NarrowFloatFromDouble(ElementType type, double value) {
  const Format* format = FormatOf(type);
  if (format == nullptr) return 0;
  return Encode(*format, value);
}

float HalfToFloat(uint16_t bits) {
#ifdef __FLT16_MAX__
  _Float16 half;
  std::memcpy(&half, &bits, sizeof(half));
  return static_cast<float>(half);
#else
  return static_cast<float>(Decode(*FormatOf(ElementType::kF16), bits));
#endif
}

uint16_t FloatToHalf(float value) {
#ifdef __FLT16_MAX__
  _Float16 half = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &half, sizeof(bits));
  return bits;
#else
  return static_cast<uint16_t>(Encode(*FormatOf(ElementType::kF16), value));
#endif
}

float BFloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToBFloat16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  // Every NaN is the quiet NaN of its sign, as XLA:CPU converts.
  if (std::isnan(value))
    return static_cast<uint16_t>(((bits >> 16) & 0x8000) | 0x7fc0);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

FloatBitLayout FloatBitLayoutOf(ElementType type) {
  if (type == ElementType::kF32)
    return {32, 23, uint64_t{1} << 31, 0x7fc00000u};
  if (type == ElementType::kF64)
    return {64, 52, uint64_t{1} << 63, 0x7ff8000000000000ull};
  const Format* f = FormatOf(type);
  FloatBitLayout layout;
  layout.width = ElementBitWidth(type);
  layout.mantissa_bits = f != nullptr ? f->mantissa_bits : 0;
  layout.sign_mask =
      f != nullptr && f->has_sign ? uint64_t{1} << (layout.width - 1) : 0;
  layout.canonical_nan =
      NarrowFloatFromDouble(type, std::numeric_limits<double>::quiet_NaN());
  return layout;
}

double DecodeFloatBits(ElementType type, uint64_t bits) {
  if (type == ElementType::kF32) {
    float f;
    uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, 4);
    return f;
  }
  if (type == ElementType::kF64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  return NarrowFloatToDouble(type, static_cast<uint32_t>(bits));
}

uint64_t LoadElementBits(ElementType type, const unsigned char* p) {
  switch (ElementByteSize(type)) {
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    default:
      return *p;
  }
}

void StoreElementBits(ElementType type, unsigned char* p, uint64_t bits) {
  switch (ElementByteSize(type)) {
    case 8:
      std::memcpy(p, &bits, 8);
      return;
    case 4: {
      uint32_t v = static_cast<uint32_t>(bits);
      std::memcpy(p, &v, 4);
      return;
    }
    case 2: {
      uint16_t v = static_cast<uint16_t>(bits);
      std::memcpy(p, &v, 2);
      return;
    }
    default:
      *p = static_cast<unsigned char>(bits);
  }
}

}  // namespace xffi
