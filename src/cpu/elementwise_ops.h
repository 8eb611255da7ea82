// xffi: the scalar semantics of XLA's elementwise ops, one functor per op.
//
// Each functor is a template over the operand's ElementTraits and says
// whether it supports that type (kSupported) and what type it produces
// (Out). The integer rules are XLA's, which never trap:
//   x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN,
//   x % 0 = x, INT_MIN % -1 = 0,
//   shifts by >= the bit width give 0 (or the sign fill for arithmetic),
//   integer power with a negative exponent is 0 except for bases 1 and -1,
//   arithmetic wraps (two's complement).
// Floating max/min propagate NaN and order -0 below +0.
#ifndef XFFI_SRC_CPU_ELEMENTWISE_OPS_H_
#define XFFI_SRC_CPU_ELEMENTWISE_OPS_H_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/element_traits.h"
#include "cpu/float_max_min.h"
#include "device/special_functions.h"

namespace xffi::cpu::ops {

// Unsigned arithmetic at least as wide as int, so no promotion to a signed
// int can overflow.
template <typename V>
using Wide = std::conditional_t<(sizeof(V) < sizeof(unsigned)), unsigned,
                                std::make_unsigned_t<V>>;

template <typename V>
V WrapAdd(V a, V b) {
  return static_cast<V>(static_cast<Wide<V>>(a) + static_cast<Wide<V>>(b));
}
template <typename V>
V WrapSub(V a, V b) {
  return static_cast<V>(static_cast<Wide<V>>(a) - static_cast<Wide<V>>(b));
}
template <typename V>
V WrapMul(V a, V b) {
  return static_cast<V>(static_cast<Wide<V>>(a) * static_cast<Wide<V>>(b));
}

// The low kBits of an integer value, as an unsigned 64-bit pattern.
template <typename Tr>
uint64_t Bits(typename Tr::Value v) {
  constexpr uint64_t mask =
      Tr::kBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << Tr::kBits) - 1;
  return static_cast<uint64_t>(v) & mask;
}

template <typename V>
std::complex<V> ComplexMultiply(std::complex<V> a, std::complex<V> b) {
  return {a.real() * b.real() - a.imag() * b.imag(),
          a.real() * b.imag() + a.imag() * b.real()};
}

#define XFFI_UNARY_PROLOGUE     \
  using V = typename Tr::Value; \
  using Out = Tr;               \
  using R = typename Out::Value;

// --- unary -----------------------------------------------------------------

template <typename Tr>
struct Abs {
  static constexpr bool kSupported = !Tr::kIsPred;
  using V = typename Tr::Value;
  using Out = std::conditional_t<Tr::kIsComplex, RealTraits<Tr>, Tr>;
  typename Out::Value operator()(V x) const {
    if constexpr (Tr::kIsComplex)
      return std::abs(x);
    else if constexpr (Tr::kIsFloat)
      return std::fabs(x);
    else if constexpr (Tr::kIsSigned)
      return x < 0 ? WrapSub(V{0}, x) : x;
    else
      return x;
  }
};

template <typename Tr>
struct Negate {
  static constexpr bool kSupported = !Tr::kIsPred;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsInteger)
      return WrapSub(V{0}, x);
    else
      return -x;
  }
};

template <typename Tr>
struct Sign {
  static constexpr bool kSupported = !Tr::kIsPred;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsComplex) {
      auto magnitude = std::abs(x);
      return magnitude == 0 ? V{} : x / magnitude;
    } else if constexpr (Tr::kIsFloat) {
      // NaN and both zeros are their own sign.
      return (std::isnan(x) || x == 0) ? x : std::copysign(V{1}, x);
    } else if constexpr (Tr::kIsSigned) {
      return static_cast<V>((x > 0) - (x < 0));
    } else {
      return static_cast<V>(x != 0);
    }
  }
};

template <typename Tr>
struct Not {
  static constexpr bool kSupported = Tr::kIsPred || Tr::kIsInteger;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsPred)
      return !x;
    else
      return static_cast<V>(~x);
  }
};

// Float-only functions on a float or double value.
#define XFFI_FLOAT_UNARY(Name, expr)                 \
  template <typename Tr>                             \
  struct Name {                                      \
    static constexpr bool kSupported = Tr::kIsFloat; \
    XFFI_UNARY_PROLOGUE                              \
    R operator()(V x) const { return expr; }         \
  };

XFFI_FLOAT_UNARY(Floor, std::floor(x))
XFFI_FLOAT_UNARY(Ceil, std::ceil(x))
XFFI_FLOAT_UNARY(RoundNearestAfz, std::round(x))
XFFI_FLOAT_UNARY(RoundNearestEven, std::nearbyint(x))
XFFI_FLOAT_UNARY(Cbrt, std::cbrt(x))
XFFI_FLOAT_UNARY(Erf, std::erf(x))
XFFI_FLOAT_UNARY(ErfInv, special::ErfInv(x))
XFFI_FLOAT_UNARY(Lgamma, special::Lgamma(x))
XFFI_FLOAT_UNARY(Digamma, special::Digamma(x))
XFFI_FLOAT_UNARY(Erfc, std::erfc(x))
XFFI_FLOAT_UNARY(BesselI1e, special::BesselI1e(x))
#undef XFFI_FLOAT_UNARY

// Functions of float and complex values alike.
#define XFFI_ANALYTIC_UNARY(Name, expr)                                \
  template <typename Tr>                                               \
  struct Name {                                                        \
    static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex; \
    XFFI_UNARY_PROLOGUE                                                \
    R operator()(V x) const { return expr; }                           \
  };

XFFI_ANALYTIC_UNARY(Exp, std::exp(x))
XFFI_ANALYTIC_UNARY(Log, std::log(x))
XFFI_ANALYTIC_UNARY(Sqrt, std::sqrt(x))
XFFI_ANALYTIC_UNARY(Rsqrt, V{1} / std::sqrt(x))
XFFI_ANALYTIC_UNARY(Tanh, std::tanh(x))
XFFI_ANALYTIC_UNARY(Sin, std::sin(x))
XFFI_ANALYTIC_UNARY(Cos, std::cos(x))
XFFI_ANALYTIC_UNARY(Tan, std::tan(x))
XFFI_ANALYTIC_UNARY(Logistic, V{1} / (V{1} + std::exp(-x)))
XFFI_ANALYTIC_UNARY(Asin, std::asin(x))
XFFI_ANALYTIC_UNARY(Acos, std::acos(x))
XFFI_ANALYTIC_UNARY(Atan, std::atan(x))
XFFI_ANALYTIC_UNARY(Asinh, std::asinh(x))
XFFI_ANALYTIC_UNARY(Acosh, std::acosh(x))
XFFI_ANALYTIC_UNARY(Atanh, std::atanh(x))
XFFI_ANALYTIC_UNARY(Sinh, std::sinh(x))
XFFI_ANALYTIC_UNARY(Cosh, std::cosh(x))
#undef XFFI_ANALYTIC_UNARY

template <typename Tr>
struct Expm1 {
  static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsComplex) {
      // exp(a + bi) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i exp(a) sin b,
      // exact near zero where exp(z) - 1 would cancel.
      using F = typename V::value_type;
      F half_sin = std::sin(x.imag() / 2);
      return {
          std::expm1(x.real()) * std::cos(x.imag()) - 2 * half_sin * half_sin,
          std::exp(x.real()) * std::sin(x.imag())};
    } else {
      return std::expm1(x);
    }
  }
};

template <typename Tr>
struct Log1p {
  static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsComplex) {
      // log|1 + z| = log1p(2a + a^2 + b^2) / 2 keeps precision near zero.
      using F = typename V::value_type;
      F a = x.real(), b = x.imag();
      return {std::log1p(a * (2 + a) + b * b) / 2, std::atan2(b, 1 + a)};
    } else {
      return std::log1p(x);
    }
  }
};

template <typename Tr>
struct IsFinite {
  static constexpr bool kSupported = Tr::kIsFloat;
  using V = typename Tr::Value;
  using Out = ElementTraits<ElementType::kPred>;
  bool operator()(V x) const { return std::isfinite(x); }
};

// chlo.is_inf and its signed forms.
#define XFFI_FLOAT_PREDICATE(Name, expr)             \
  template <typename Tr>                             \
  struct Name {                                      \
    static constexpr bool kSupported = Tr::kIsFloat; \
    using V = typename Tr::Value;                    \
    using Out = ElementTraits<ElementType::kPred>;   \
    bool operator()(V x) const { return expr; }      \
  };
XFFI_FLOAT_PREDICATE(IsInf, std::isinf(x))
XFFI_FLOAT_PREDICATE(IsPosInf, std::isinf(x) && x > 0)
XFFI_FLOAT_PREDICATE(IsNegInf, std::isinf(x) && x < 0)
#undef XFFI_FLOAT_PREDICATE

template <typename Tr>
struct Conj {
  static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    if constexpr (Tr::kIsComplex)
      return std::conj(x);
    else
      return x;
  }
};

template <typename Tr>
struct PopulationCount {
  static constexpr bool kSupported = Tr::kIsInteger;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const { return static_cast<V>(std::popcount(Bits<Tr>(x))); }
};

template <typename Tr>
struct CountLeadingZeros {
  static constexpr bool kSupported = Tr::kIsInteger;
  XFFI_UNARY_PROLOGUE
  R operator()(V x) const {
    return static_cast<V>(std::countl_zero(Bits<Tr>(x)) - (64 - Tr::kBits));
  }
};

template <typename Tr>
struct Real {
  static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex;
  using V = typename Tr::Value;
  using Out = std::conditional_t<Tr::kIsComplex, RealTraits<Tr>, Tr>;
  typename Out::Value operator()(V x) const {
    if constexpr (Tr::kIsComplex)
      return x.real();
    else
      return x;
  }
};

template <typename Tr>
struct Imag {
  static constexpr bool kSupported = Tr::kIsFloat || Tr::kIsComplex;
  using V = typename Tr::Value;
  using Out = std::conditional_t<Tr::kIsComplex, RealTraits<Tr>, Tr>;
  typename Out::Value operator()(V x) const {
    if constexpr (Tr::kIsComplex)
      return x.imag();
    else
      return static_cast<void>(x), V{0};
  }
};

#undef XFFI_UNARY_PROLOGUE

// --- binary ----------------------------------------------------------------

#define XFFI_BINARY_PROLOGUE    \
  using V = typename Tr::Value; \
  using Out = Tr;

template <typename Tr>
struct Add {
  // pred + pred is or, as in NumPy.
  static constexpr bool kSupported = true;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kIsPred)
      return a || b;
    else if constexpr (Tr::kIsInteger)
      return WrapAdd(a, b);
    else
      return a + b;
  }
};

template <typename Tr>
struct Subtract {
  static constexpr bool kSupported = !Tr::kIsPred;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kIsInteger)
      return WrapSub(a, b);
    else
      return a - b;
  }
};

template <typename Tr>
struct Multiply {
  // pred * pred is and.
  static constexpr bool kSupported = true;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kIsPred)
      return a && b;
    else if constexpr (Tr::kIsInteger)
      return WrapMul(a, b);
    else if constexpr (Tr::kIsComplex)
      return ComplexMultiply(a, b);
    else
      return a * b;
  }
};

template <typename Tr>
struct Divide {
  static constexpr bool kSupported = !Tr::kIsPred;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kIsInteger) {
      if (b == 0) return static_cast<V>(-1);
      if constexpr (Tr::kIsSigned) {
        if (b == -1) return WrapSub(V{0}, a);  // INT_MIN / -1 wraps to INT_MIN
      }
      return static_cast<V>(a / b);
    } else {
      return a / b;
    }
  }
};

template <typename Tr>
struct Remainder {
  static constexpr bool kSupported = Tr::kIsInteger || Tr::kIsFloat;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kIsInteger) {
      if (b == 0) return a;
      if constexpr (Tr::kIsSigned) {
        if (b == -1) return 0;
      }
      return static_cast<V>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

template <typename Tr>
struct Power {
  static constexpr bool kSupported = !Tr::kIsPred;
  XFFI_BINARY_PROLOGUE
  V operator()(V base, V exponent) const {
    if constexpr (Tr::kIsInteger) {
      // XLA squares six times (a larger exponent overflows every base but
      // 0, 1 and -1), so only the exponent's low six bits count. An exponent
      // whose top bit is set, unsigned types included, reads as negative:
      // 1 for base 1, +-1 by the exponent's parity for base -1 (all ones,
      // unsigned types included), and 0 for every other base.
      if ((Bits<Tr>(exponent) >> (Tr::kBits - 1)) != 0) {
        if (base == 1) return V{1};
        if (Bits<Tr>(base) == Bits<Tr>(static_cast<V>(~V{0})))
          return (exponent & 1) ? base : V{1};
        return V{0};
      }
      uint64_t e = Bits<Tr>(exponent) & 63;
      V result = 1;
      for (int bit = 0; bit < 6; ++bit) {
        if (e & 1) result = WrapMul(result, base);
        base = WrapMul(base, base);
        e >>= 1;
      }
      return result;
    } else if constexpr (Tr::kIsComplex) {
      // XLA: 0^0 = 1 and 0^y = 0 for Re(y) > 0; std::pow would give NaN.
      using F = typename V::value_type;
      if (base == V{}) {
        if (exponent == V{}) return V{1};
        if (exponent.real() > F{0}) return V{};
      }
      return std::pow(base, exponent);
    } else {
      return std::pow(base, exponent);
    }
  }
};

// An elementwise f16 maximum or minimum as XLA:CPU gives it: its f16
// max/min select a constant NaN, so every NaN result is the positive quiet
// NaN 0x7e00 (0x7fc00000 widened), whichever operand's NaN it was (probe,
// jax 0.10.2: tests/cpp/xla_half_nan_table.h). Its reductions do not: their
// steps keep the f32 rule (region_util.h's ScalarCombiner).
inline float XlaHalfMaxMinResult(float value) {
  return value != value ? std::bit_cast<float>(0x7fc00000u) : value;
}

// Floating max/min follow XLA:CPU's rule (float_max_min.h): a NaN operand
// gives NaN and -0 orders below +0; f16 NaNs as above. Written as selects
// so the loops stay vectorisable.
template <typename Tr>
struct Maximum {
  static constexpr bool kSupported = !Tr::kIsComplex;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kType == ElementType::kF16)
      return XlaHalfMaxMinResult(XlaFloatMax(a, b));
    else if constexpr (Tr::kIsFloat)
      return XlaFloatMax(a, b);
    else
      return a > b ? a : b;
  }
};

template <typename Tr>
struct Minimum {
  static constexpr bool kSupported = !Tr::kIsComplex;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kType == ElementType::kF16)
      return XlaHalfMaxMinResult(XlaFloatMin(a, b));
    else if constexpr (Tr::kIsFloat)
      return XlaFloatMin(a, b);
    else
      return a < b ? a : b;
  }
};

#define XFFI_BITWISE_BINARY(Name, op)                                 \
  template <typename Tr>                                              \
  struct Name {                                                       \
    static constexpr bool kSupported = Tr::kIsPred || Tr::kIsInteger; \
    XFFI_BINARY_PROLOGUE                                              \
    V operator()(V a, V b) const { return static_cast<V>(a op b); }   \
  };
XFFI_BITWISE_BINARY(And, &)
XFFI_BITWISE_BINARY(Or, |)
XFFI_BITWISE_BINARY(Xor, ^)
#undef XFFI_BITWISE_BINARY

// The shift amount is read as unsigned: a negative amount is a huge one.
template <typename Tr>
bool ShiftOutOfRange(typename Tr::Value amount) {
  return Bits<Tr>(amount) >= static_cast<uint64_t>(Tr::kBits);
}

template <typename Tr>
struct ShiftLeft {
  static constexpr bool kSupported = Tr::kIsInteger;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if (ShiftOutOfRange<Tr>(b)) return 0;
    return static_cast<V>(static_cast<Wide<V>>(a) << Bits<Tr>(b));
  }
};

template <typename Tr>
struct ShiftRightLogical {
  static constexpr bool kSupported = Tr::kIsInteger;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if (ShiftOutOfRange<Tr>(b)) return 0;
    return static_cast<V>(Bits<Tr>(a) >> Bits<Tr>(b));
  }
};

template <typename Tr>
struct ShiftRightArithmetic {
  static constexpr bool kSupported = Tr::kIsInteger;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    // The value's top bit (bit kBits - 1) is the sign, for unsigned types
    // too: sign-extend the pattern, shift, and let the store wrap it.
    constexpr int kPad = 64 - Tr::kBits;
    int64_t extended = static_cast<int64_t>(Bits<Tr>(a) << kPad) >> kPad;
    if (ShiftOutOfRange<Tr>(b)) return static_cast<V>(extended < 0 ? -1 : 0);
    return static_cast<V>(extended >> Bits<Tr>(b));
  }
};

template <typename Tr>
struct Atan2 {
  static constexpr bool kSupported = Tr::kIsFloat;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const { return std::atan2(a, b); }
};

// nextafter in the type's own precision: f32 and f64 by the library, f16
// and bf16 (whose values widen to float) by a step of their bit pattern.
template <typename Tr>
struct NextAfter {
  static constexpr bool kSupported =
      Tr::kType == ElementType::kF32 || Tr::kType == ElementType::kF64 ||
      Tr::kType == ElementType::kF16 || Tr::kType == ElementType::kBF16;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kNative) {
      return std::nextafter(a, b);
    } else {
      if (std::isnan(a) || std::isnan(b)) return a + b;
      if (a == b) return b;
      using S = typename Tr::Storage;
      constexpr S kSign = static_cast<S>(S{1} << (Tr::kBits - 1));
      if (a == 0) return Tr::Load(static_cast<S>(b < 0 ? kSign | 1 : 1));
      const S bits = Tr::Store(a);
      // Sign and magnitude: away from zero is one up in magnitude.
      const bool away = (a < b) == (a > 0);
      return Tr::Load(static_cast<S>(away ? bits + 1 : bits - 1));
    }
  }
};

// chlo.mulhi: the high half of the double-width product.
template <typename Tr>
struct Mulhi {
  static constexpr bool kSupported = Tr::kIsInteger && Tr::kBits >= 8;
  XFFI_BINARY_PROLOGUE
  V operator()(V a, V b) const {
    if constexpr (Tr::kBits == 64) {
      if constexpr (Tr::kIsSigned) {
        __extension__ using Wide = __int128;
        return static_cast<V>((Wide{a} * Wide{b}) >> 64);
      } else {
        __extension__ using Wide = unsigned __int128;
        return static_cast<V>((Wide{a} * Wide{b}) >> 64);
      }
    } else {
      using Wide = std::conditional_t<Tr::kIsSigned, int64_t, uint64_t>;
      return static_cast<V>((static_cast<Wide>(a) * static_cast<Wide>(b)) >>
                            Tr::kBits);
    }
  }
};

template <typename Tr>
struct Polygamma {
  static constexpr bool kSupported = Tr::kIsFloat;
  XFFI_BINARY_PROLOGUE
  V operator()(V n, V x) const { return special::Polygamma(n, x); }
};

template <typename Tr>
struct Zeta {
  static constexpr bool kSupported = Tr::kIsFloat;
  XFFI_BINARY_PROLOGUE
  V operator()(V x, V q) const { return special::Zeta(x, q); }
};

#undef XFFI_BINARY_PROLOGUE

}  // namespace xffi::cpu::ops

#endif  // XFFI_SRC_CPU_ELEMENTWISE_OPS_H_
