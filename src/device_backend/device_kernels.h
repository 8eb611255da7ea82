// xffi: the device backend's kernels, written once as `__host__ __device__`
// functors (xffi/device/functor_kernel.h).
//
// nvcc compiles this header into ForEachIndexKernel<F> entries
// (device_kernels.cu); the host compiler compiles the same functors for
// SimDevice, which runs their host code. So what the tests check on SimDevice
// is the arithmetic a GPU would do. Nothing here may use the standard library
// beyond <cstdint>/<cmath>/<cstring>-level functions both compilers have.
//
// Device pointers are bytes (uint8_t): the simulator rewrites them by type.
//
// Values are computed in the widest type of their class (double for floats,
// int64_t for signed and uint64_t for unsigned integers and pred) and rounded
// or truncated to the result type when stored: for +, -, *, / and sqrt a
// double result rounded to float is float's own correctly rounded result.
#ifndef XFFI_SRC_DEVICE_BACKEND_DEVICE_KERNELS_H_
#define XFFI_SRC_DEVICE_BACKEND_DEVICE_KERNELS_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "device/special_functions.h"
#include "device_backend/complex_functions.h"
#include "xffi/device/functor_kernel.h"

namespace xffi::device_backend {

// Element types the arithmetic kernels take (copies take any width).
enum class DType : int32_t {
  kPred,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF32,
  kF64,
  // Held as double while computed, rounded to nearest even when stored.
  kF16,
  kBF16,
  // Held as a double pair (Value::f, Value::im).
  kC64,
  kC128,
};

// How a value of a type is held while computed.
enum class ValueClass : int32_t { kFloat, kSigned, kUnsigned, kComplex };

XFFI_HOST_DEVICE inline ValueClass ClassOf(DType type) {
  switch (type) {
    case DType::kF32:
    case DType::kF64:
    case DType::kF16:
    case DType::kBF16:
      return ValueClass::kFloat;
    case DType::kC64:
    case DType::kC128:
      return ValueClass::kComplex;
    case DType::kS8:
    case DType::kS16:
    case DType::kS32:
    case DType::kS64:
      return ValueClass::kSigned;
    default:
      return ValueClass::kUnsigned;
  }
}

XFFI_HOST_DEVICE inline int BitsOf(DType type) {
  switch (type) {
    case DType::kPred:
    case DType::kS8:
    case DType::kU8:
      return 8;
    case DType::kS16:
    case DType::kU16:
    case DType::kF16:
    case DType::kBF16:
      return 16;
    case DType::kS32:
    case DType::kU32:
    case DType::kF32:
      return 32;
    default:
      return 64;
  }
}

// One value in its class: only the member of ClassOf(type) is meaningful.
struct Value {
  double f = 0;
  int64_t s = 0;
  uint64_t u = 0;
  double im = 0;  // complex: the imaginary part (f is the real one)
};

XFFI_HOST_DEVICE inline double DoubleFromBits(uint64_t bits) {
  double x;
  memcpy(&x, &bits, sizeof(x));
  return x;
}

// binary16 (5 exponent, 10 mantissa bits) and bfloat16 (8, 7) from double,
// rounded to nearest even in ONE step: a double result of +, -, *, / or
// sqrt of such values is exact enough that this equals rounding the exact
// result, as computing in f32 and rounding to the narrow type does.
XFFI_HOST_DEVICE inline uint16_t EncodeNarrowFloat(double x, int mantissa_bits,
                                                   int exponent_bits) {
  uint64_t raw;
  memcpy(&raw, &x, sizeof(raw));
  const uint32_t sign = static_cast<uint32_t>(raw >> 63) << 15;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const uint32_t infinity = ((1u << exponent_bits) - 1) << mantissa_bits;
  if (x != x)  // a quiet NaN of the same sign
    return static_cast<uint16_t>(sign | infinity | (1u << (mantissa_bits - 1)));
  const double magnitude = fabs(x);
  if (magnitude == 0) return static_cast<uint16_t>(sign);
  if (magnitude > 1.7976931348623157e308)
    return static_cast<uint16_t>(sign | infinity);
  int binary_exponent = 0;
  frexp(magnitude, &binary_exponent);  // magnitude in [2^(e-1), 2^e)
  int exponent = binary_exponent - 1;
  // Below the smallest normal the quantum stays that of the smallest normal.
  if (exponent < 1 - bias) exponent = 1 - bias;
  double quanta = nearbyint(ldexp(magnitude, mantissa_bits - exponent));
  int biased = exponent + bias;
  const double implicit_one = ldexp(1.0, mantissa_bits);
  if (quanta >= 2 * implicit_one) {  // rounded up into the next binade
    quanta *= 0.5;
    ++biased;
  }
  if (quanta < implicit_one)
    biased = 0;  // subnormal
  else
    quanta -= implicit_one;
  if (biased >= (1 << exponent_bits) - 1)
    return static_cast<uint16_t>(sign | infinity);
  return static_cast<uint16_t>(
      sign | (static_cast<uint32_t>(biased) << mantissa_bits) |
      static_cast<uint32_t>(quanta));
}

XFFI_HOST_DEVICE inline double DecodeNarrowFloat(uint16_t bits,
                                                 int mantissa_bits,
                                                 int exponent_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const uint32_t top = (1u << exponent_bits) - 1;
  const uint32_t biased = (bits >> mantissa_bits) & top;
  const uint32_t mantissa = bits & ((1u << mantissa_bits) - 1);
  const uint64_t sign = static_cast<uint64_t>(bits >> 15) << 63;
  if (biased == top)
    return DoubleFromBits(sign | 0x7ff0000000000000ull |
                          (mantissa != 0 ? 0x0008000000000000ull : 0));
  const double value =
      biased == 0
          ? ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits)
          : ldexp(static_cast<double>(mantissa | (1u << mantissa_bits)),
                  static_cast<int>(biased) - bias - mantissa_bits);
  return sign != 0 ? -value : value;
}

XFFI_HOST_DEVICE inline double RoundToNarrowFloat(double x, DType type) {
  return type == DType::kF16
             ? DecodeNarrowFloat(EncodeNarrowFloat(x, 10, 5), 10, 5)
             : DecodeNarrowFloat(EncodeNarrowFloat(x, 7, 8), 7, 8);
}

XFFI_HOST_DEVICE inline Value Load(const void* data, int64_t i, DType type) {
  Value v;
  switch (type) {
    case DType::kPred:
      v.u = static_cast<const uint8_t*>(data)[i] != 0;
      break;
    case DType::kS8:
      v.s = static_cast<const int8_t*>(data)[i];
      break;
    case DType::kS16:
      v.s = static_cast<const int16_t*>(data)[i];
      break;
    case DType::kS32:
      v.s = static_cast<const int32_t*>(data)[i];
      break;
    case DType::kS64:
      v.s = static_cast<const int64_t*>(data)[i];
      break;
    case DType::kU8:
      v.u = static_cast<const uint8_t*>(data)[i];
      break;
    case DType::kU16:
      v.u = static_cast<const uint16_t*>(data)[i];
      break;
    case DType::kU32:
      v.u = static_cast<const uint32_t*>(data)[i];
      break;
    case DType::kU64:
      v.u = static_cast<const uint64_t*>(data)[i];
      break;
    case DType::kF32:
      v.f = static_cast<const float*>(data)[i];
      break;
    case DType::kF64:
      v.f = static_cast<const double*>(data)[i];
      break;
    case DType::kF16:
      v.f = DecodeNarrowFloat(static_cast<const uint16_t*>(data)[i], 10, 5);
      break;
    case DType::kBF16:
      v.f = DecodeNarrowFloat(static_cast<const uint16_t*>(data)[i], 7, 8);
      break;
    case DType::kC64:
      v.f = static_cast<const float*>(data)[2 * i];
      v.im = static_cast<const float*>(data)[2 * i + 1];
      break;
    case DType::kC128:
      v.f = static_cast<const double*>(data)[2 * i];
      v.im = static_cast<const double*>(data)[2 * i + 1];
      break;
  }
  return v;
}

// Float to integer truncates toward zero and saturates, NaN giving 0 (as the
// CPU backend converts).
XFFI_HOST_DEVICE inline int64_t SaturateToSigned(double x, int bits) {
  if (x != x) return 0;
  const double high = bits == 64
                          ? 9223372036854775807.0
                          : static_cast<double>((int64_t{1} << (bits - 1)) - 1);
  const double low = bits == 64
                         ? -9223372036854775808.0
                         : -static_cast<double>(int64_t{1} << (bits - 1));
  if (x >= high) return bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  if (x <= low) return bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  return static_cast<int64_t>(x);
}

XFFI_HOST_DEVICE inline uint64_t SaturateToUnsigned(double x, int bits) {
  if (x != x || x <= 0) return 0;
  const double high = bits == 64
                          ? 18446744073709551615.0
                          : static_cast<double>((uint64_t{1} << bits) - 1);
  if (x >= high) return bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(x);
}

// `v` of class `from` as a value of type `to` (convert's semantics; any to
// pred is `!= 0`).
XFFI_HOST_DEVICE inline Value Convert(Value v, ValueClass from, DType to) {
  Value out;
  if (from == ValueClass::kComplex) {
    if (ClassOf(to) == ValueClass::kComplex) return v;
    if (to == DType::kPred) {  // either part nonzero
      out.u = v.f != 0 || v.im != 0;
      return out;
    }
    from = ValueClass::kFloat;  // to another real type: the real part
  }
  if (to == DType::kPred) {
    out.u = from == ValueClass::kFloat    ? (v.f != 0)
            : from == ValueClass::kSigned ? (v.s != 0)
                                          : (v.u != 0);
    return out;
  }
  switch (ClassOf(to)) {
    case ValueClass::kComplex:  // the imaginary part stays 0
    case ValueClass::kFloat:
      out.f = from == ValueClass::kFloat    ? v.f
              : from == ValueClass::kSigned ? static_cast<double>(v.s)
                                            : static_cast<double>(v.u);
      // u64/s64 to f32 must round once, from the integer.
      if ((to == DType::kF32 || to == DType::kC64) &&
          from != ValueClass::kFloat)
        out.f = from == ValueClass::kSigned ? static_cast<float>(v.s)
                                            : static_cast<float>(v.u);
      break;
    case ValueClass::kSigned:
      out.s = from == ValueClass::kFloat    ? SaturateToSigned(v.f, BitsOf(to))
              : from == ValueClass::kSigned ? v.s
                                            : static_cast<int64_t>(v.u);
      break;
    case ValueClass::kUnsigned:
      out.u = from == ValueClass::kFloat ? SaturateToUnsigned(v.f, BitsOf(to))
              : from == ValueClass::kSigned ? static_cast<uint64_t>(v.s)
                                            : v.u;
      break;
  }
  return out;
}

XFFI_HOST_DEVICE inline void Store(void* data, int64_t i, DType type, Value v) {
  switch (type) {
    case DType::kPred:
      static_cast<uint8_t*>(data)[i] = v.u != 0;
      break;
    case DType::kS8:
      static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v.s);
      break;
    case DType::kS16:
      static_cast<int16_t*>(data)[i] = static_cast<int16_t>(v.s);
      break;
    case DType::kS32:
      static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v.s);
      break;
    case DType::kS64:
      static_cast<int64_t*>(data)[i] = v.s;
      break;
    case DType::kU8:
      static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v.u);
      break;
    case DType::kU16:
      static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(v.u);
      break;
    case DType::kU32:
      static_cast<uint32_t*>(data)[i] = static_cast<uint32_t>(v.u);
      break;
    case DType::kU64:
      static_cast<uint64_t*>(data)[i] = v.u;
      break;
    case DType::kF32:
      static_cast<float*>(data)[i] = static_cast<float>(v.f);
      break;
    case DType::kF64:
      static_cast<double*>(data)[i] = v.f;
      break;
    case DType::kF16:
      static_cast<uint16_t*>(data)[i] = EncodeNarrowFloat(v.f, 10, 5);
      break;
    case DType::kBF16:
      static_cast<uint16_t*>(data)[i] = EncodeNarrowFloat(v.f, 7, 8);
      break;
    case DType::kC64:
      static_cast<float*>(data)[2 * i] = static_cast<float>(v.f);
      static_cast<float*>(data)[2 * i + 1] = static_cast<float>(v.im);
      break;
    case DType::kC128:
      static_cast<double*>(data)[2 * i] = v.f;
      static_cast<double*>(data)[2 * i + 1] = v.im;
      break;
  }
}

// The elementwise operations the device runs.
enum class ElementOp : int32_t {
  // unary
  kNegate,
  kAbs,
  kSign,
  kNot,
  kFloor,
  kCeil,
  kRoundNearestAfz,
  kRoundNearestEven,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLogistic,
  kSqrt,
  kRsqrt,
  kCbrt,
  kTanh,
  kSin,
  kCos,
  kTan,
  kIsFinite,
  kConvert,
  // binary
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kRemainder,
  kPower,
  kMaximum,
  kMinimum,
  kAnd,
  kOr,
  kXor,
  kShiftLeft,
  kShiftRightArithmetic,
  kShiftRightLogical,
  kAtan2,
  kCompareEq,
  kCompareNe,
  kCompareGe,
  kCompareGt,
  kCompareLe,
  kCompareLt,
  // ternary
  kSelect,
  kClamp,
  // complex parts: real(x), imag(x), complex(re, im)
  kReal,
  kImag,
  kComplex,
  // compares with type=TOTALORDER: floats ordered -NaN < -inf < ... < -0 <
  // +0 < ... < inf < NaN by their bits (other types compare as usual)
  kCompareTotalEq,
  kCompareTotalNe,
  kCompareTotalGe,
  kCompareTotalGt,
  kCompareTotalLe,
  kCompareTotalLt,
  // unary, appended
  kErf,
  kPopulationCount,
  kClz,
  // chlo functions, appended
  kAsin,
  kAcos,
  kAtan,
  kAsinh,
  kAcosh,
  kAtanh,
  kSinh,
  kCosh,
  kErfc,
  kErfInv,
  kLgamma,
  kNextAfter,  // binary
  kDigamma,
  kBesselI1e,
  kZeta,       // binary: zeta(x, q)
  kPolygamma,  // binary: polygamma(n, x)
};

XFFI_HOST_DEVICE inline double Sign(double x) {
  return x > 0 ? 1.0 : x < 0 ? -1.0 : x;  // keeps -0 and NaN
}

// Float arithmetic of one op, in double: an f32 result is rounded when
// stored (its transcendental functions then differ from the CPU's own
// polynomials by a few ulps at most). The chlo special functions are
// SpecialFunction's, in the element type's precision.
XFFI_HOST_DEVICE inline double FloatOp(ElementOp op, double a, double b) {
  switch (op) {
    case ElementOp::kNegate:
      return -a;
    case ElementOp::kAbs:
      return fabs(a);
    case ElementOp::kSign:
      return Sign(a);
    case ElementOp::kFloor:
      return floor(a);
    case ElementOp::kCeil:
      return ceil(a);
    case ElementOp::kRoundNearestAfz:
      return round(a);
    case ElementOp::kRoundNearestEven:
      return nearbyint(a);
    case ElementOp::kExp:
      return exp(a);
    case ElementOp::kExpm1:
      return expm1(a);
    case ElementOp::kLog:
      return log(a);
    case ElementOp::kLog1p:
      return log1p(a);
    case ElementOp::kLogistic:
      return 1.0 / (1.0 + exp(-a));
    case ElementOp::kSqrt:
      return sqrt(a);
    case ElementOp::kRsqrt:
      return 1.0 / sqrt(a);
    case ElementOp::kCbrt:
      return cbrt(a);
    case ElementOp::kTanh:
      return tanh(a);
    case ElementOp::kSin:
      return sin(a);
    case ElementOp::kCos:
      return cos(a);
    case ElementOp::kTan:
      return tan(a);
    case ElementOp::kAdd:
      return a + b;
    case ElementOp::kSubtract:
      return a - b;
    case ElementOp::kMultiply:
      return a * b;
    case ElementOp::kDivide:
      return a / b;
    case ElementOp::kRemainder:
      return fmod(a, b);
    case ElementOp::kPower:
      return pow(a, b);
    // XLA's rule (cpu/float_max_min.h): a NaN first operand as it is; a NaN
    // second operand negative only when both operands are (max) / either
    // is (min), as the sign of two equal zeros (-0 orders below +0).
    case ElementOp::kMaximum:
      if (a != a) return a;
      if (b != b || a == b)
        return copysign(b, signbit(a) && signbit(b) ? -1.0 : 1.0);
      return a > b ? a : b;
    case ElementOp::kMinimum:
      if (a != a) return a;
      if (b != b || a == b)
        return copysign(b, signbit(a) || signbit(b) ? -1.0 : 1.0);
      return a < b ? a : b;
    case ElementOp::kAtan2:
      return atan2(a, b);
    case ElementOp::kErf:
      return erf(a);
    case ElementOp::kAsin:
      return asin(a);
    case ElementOp::kAcos:
      return acos(a);
    case ElementOp::kAtan:
      return atan(a);
    case ElementOp::kAsinh:
      return asinh(a);
    case ElementOp::kAcosh:
      return acosh(a);
    case ElementOp::kAtanh:
      return atanh(a);
    case ElementOp::kSinh:
      return sinh(a);
    case ElementOp::kCosh:
      return cosh(a);
    case ElementOp::kErfc:
      return erfc(a);
    default:
      return 0;
  }
}

template <typename I>
XFFI_HOST_DEVICE inline I IntegerOp(ElementOp op, I a, I b, int bits,
                                    bool is_signed) {
  switch (op) {
    case ElementOp::kNegate:
      return static_cast<I>(0 - static_cast<uint64_t>(a));
    case ElementOp::kAbs:
      return is_signed && static_cast<int64_t>(a) < 0
                 ? static_cast<I>(0 - static_cast<uint64_t>(a))
                 : a;
    case ElementOp::kSign:
      if (a == 0) return I(0);
      return is_signed && static_cast<int64_t>(a) < 0 ? static_cast<I>(-1)
                                                      : I(1);
    case ElementOp::kNot:
      return static_cast<I>(~a);
    case ElementOp::kAdd:
      return static_cast<I>(static_cast<uint64_t>(a) +
                            static_cast<uint64_t>(b));
    case ElementOp::kSubtract:
      return static_cast<I>(static_cast<uint64_t>(a) -
                            static_cast<uint64_t>(b));
    case ElementOp::kMultiply:
      return static_cast<I>(static_cast<uint64_t>(a) *
                            static_cast<uint64_t>(b));
    case ElementOp::kDivide:
      // HLO: x / 0 is -1 (all ones), INT_MIN / -1 is INT_MIN.
      if (b == 0) return static_cast<I>(-1);
      if (is_signed && b == static_cast<I>(-1))
        return static_cast<I>(0 - static_cast<uint64_t>(a));
      return a / b;
    case ElementOp::kRemainder:
      if (b == 0) return a;
      if (is_signed && b == static_cast<I>(-1)) return 0;
      return a % b;
    case ElementOp::kMaximum:
      return a > b ? a : b;
    case ElementOp::kMinimum:
      return a < b ? a : b;
    case ElementOp::kAnd:
      return a & b;
    case ElementOp::kOr:
      return a | b;
    case ElementOp::kXor:
      return a ^ b;
    case ElementOp::kShiftLeft: {
      const uint64_t shift = static_cast<uint64_t>(b);
      if (shift >= static_cast<uint64_t>(bits)) return 0;
      return static_cast<I>(static_cast<uint64_t>(a) << shift);
    }
    case ElementOp::kShiftRightLogical: {
      const uint64_t shift = static_cast<uint64_t>(b);
      if (shift >= static_cast<uint64_t>(bits)) return 0;
      const uint64_t mask =
          bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      return static_cast<I>((static_cast<uint64_t>(a) & mask) >> shift);
    }
    case ElementOp::kPopulationCount:
    case ElementOp::kClz: {
      // Of the type's own `bits` (a signed value is sign-extended here).
      const uint64_t x =
          static_cast<uint64_t>(a) &
          (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
      int count = 0;
      if (op == ElementOp::kPopulationCount) {
        for (uint64_t rest = x; rest != 0; rest &= rest - 1) ++count;
      } else {
        for (int bit = bits - 1; bit >= 0 && ((x >> bit) & 1) == 0; --bit)
          ++count;
      }
      return static_cast<I>(count);
    }
    case ElementOp::kShiftRightArithmetic: {
      const uint64_t shift = static_cast<uint64_t>(b);
      // Sign-extended to 64 bits already for signed types; an unsigned one
      // shifts in its top bit.
      int64_t wide = static_cast<int64_t>(a);
      if (!is_signed && bits < 64)
        wide = static_cast<int64_t>(static_cast<uint64_t>(a) << (64 - bits)) >>
               (64 - bits);
      if (shift >= static_cast<uint64_t>(bits))
        return static_cast<I>(wide < 0 ? -1 : 0);
      return static_cast<I>(wide >> shift);
    }
    default:
      return 0;
  }
}

XFFI_HOST_DEVICE inline bool CompareOp(ElementOp op, Value a, Value b,
                                       ValueClass c) {
  // Float comparisons are IEEE (NaN unordered: only NE holds).
#define XFFI_DEVICE_COMPARE(OP)              \
  (c == ValueClass::kFloat    ? (a.f OP b.f) \
   : c == ValueClass::kSigned ? (a.s OP b.s) \
                              : (a.u OP b.u))
  switch (op) {
    case ElementOp::kCompareEq:
      return XFFI_DEVICE_COMPARE(==);
    case ElementOp::kCompareNe:
      return XFFI_DEVICE_COMPARE(!=);
    case ElementOp::kCompareGe:
      return XFFI_DEVICE_COMPARE(>=);
    case ElementOp::kCompareGt:
      return XFFI_DEVICE_COMPARE(>);
    case ElementOp::kCompareLe:
      return XFFI_DEVICE_COMPARE(<=);
    default:
      return XFFI_DEVICE_COMPARE(<);
  }
#undef XFFI_DEVICE_COMPARE
}

// `v` as a value of `type` holds it in memory: floats rounded to f32,
// integers wrapped to their width. What a Store then Load would give, for
// values that stay in registers (the fused loop's steps).
XFFI_HOST_DEVICE inline Value Normalize(Value v, DType type) {
  switch (type) {
    case DType::kPred:
      v.u = v.u != 0;
      break;
    case DType::kS8:
      v.s = static_cast<int8_t>(v.s);
      break;
    case DType::kS16:
      v.s = static_cast<int16_t>(v.s);
      break;
    case DType::kS32:
      v.s = static_cast<int32_t>(v.s);
      break;
    case DType::kU8:
      v.u = static_cast<uint8_t>(v.u);
      break;
    case DType::kU16:
      v.u = static_cast<uint16_t>(v.u);
      break;
    case DType::kU32:
      v.u = static_cast<uint32_t>(v.u);
      break;
    case DType::kF32:
      v.f = static_cast<float>(v.f);
      break;
    case DType::kF16:
    case DType::kBF16:
      v.f = RoundToNarrowFloat(v.f, type);
      break;
    case DType::kC64:
      v.f = static_cast<float>(v.f);
      v.im = static_cast<float>(v.im);
      break;
    default:
      break;
  }
  return v;
}

// Complex arithmetic on (f, im) pairs (complex_functions.h); abs gives a
// real f.
XFFI_HOST_DEVICE inline Value ComplexOp(ElementOp op, Value a, Value b) {
  const ComplexPair x{a.f, a.im}, y{b.f, b.im};
  ComplexPair z;
  switch (op) {
    case ElementOp::kNegate:
      z = {-x.re, -x.im};
      break;
    case ElementOp::kAdd:
      z = CAdd(x, y);
      break;
    case ElementOp::kSubtract:
      z = CSub(x, y);
      break;
    case ElementOp::kMultiply:
      z = CMul(x, y);
      break;
    case ElementOp::kDivide:
      z = CDiv(x, y);
      break;
    case ElementOp::kAbs:
      z = {hypot(x.re, x.im), 0};
      break;
    case ElementOp::kSign:
      z = CSign(x);
      break;
    case ElementOp::kExp:
      z = CExp(x);
      break;
    case ElementOp::kExpm1:
      z = CExpm1(x);
      break;
    case ElementOp::kLog:
      z = CLog(x);
      break;
    case ElementOp::kLog1p:
      z = CLog1p(x);
      break;
    case ElementOp::kSqrt:
      z = CSqrt(x);
      break;
    case ElementOp::kRsqrt:
      z = CDiv({1, 0}, CSqrt(x));
      break;
    case ElementOp::kLogistic:
      z = CDiv({1, 0}, CAdd({1, 0}, CExp({-x.re, -x.im})));
      break;
    case ElementOp::kPower:
      z = CPow(x, y);
      break;
    case ElementOp::kSin:
      z = CSin(x);
      break;
    case ElementOp::kCos:
      z = CCos(x);
      break;
    case ElementOp::kTan:
      z = CTan(x);
      break;
    case ElementOp::kTanh:
      z = CTanh(x);
      break;
    case ElementOp::kSinh:
      z = CSinh(x);
      break;
    case ElementOp::kCosh:
      z = CCosh(x);
      break;
    case ElementOp::kAsin:
      z = CAsin(x);
      break;
    case ElementOp::kAcos:
      z = CAcos(x);
      break;
    case ElementOp::kAtan:
      z = CAtan(x);
      break;
    case ElementOp::kAsinh:
      z = CAsinh(x);
      break;
    case ElementOp::kAcosh:
      z = CAcosh(x);
      break;
    case ElementOp::kAtanh:
      z = CAtanh(x);
      break;
    default:
      break;
  }
  Value r;
  r.f = z.re;
  r.im = z.im;
  return r;
}

// A float's place in the total order, as a signed integer.
XFFI_HOST_DEVICE inline int64_t TotalOrderKey(double x) {
  int64_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

// The next value of `type` after `from` towards `to` (from's neighbour in
// the type's own grid: f32's through float, f16's and bf16's by their bits).
XFFI_HOST_DEVICE inline double NextAfter(double from, double to, DType type) {
  if (type == DType::kF64) return nextafter(from, to);
  if (type == DType::kF32)
    return nextafterf(static_cast<float>(from), static_cast<float>(to));
  if (from != from || to != to) return from + to;
  if (from == to) return to;
  const int mantissa_bits = type == DType::kF16 ? 10 : 7;
  const int exponent_bits = type == DType::kF16 ? 5 : 8;
  // Sign and magnitude: away from zero is one up in magnitude.
  const uint16_t bits =
      from == 0 ? static_cast<uint16_t>(to < 0 ? 0x8000u : 0u)
                : EncodeNarrowFloat(from, mantissa_bits, exponent_bits);
  const bool away = from == 0 || (from < to) == (from > 0);
  return DecodeNarrowFloat(static_cast<uint16_t>(away ? bits + 1 : bits - 1),
                           mantissa_bits, exponent_bits);
}

// The chlo special functions (device/special_functions.h, the CPU's own
// code) in T.
template <typename T>
XFFI_HOST_DEVICE inline T SpecialFunction(ElementOp op, T a, T b) {
  switch (op) {
    case ElementOp::kErfInv:
      return special::ErfInv(a);
    case ElementOp::kLgamma:
      return special::Lgamma(a);
    case ElementOp::kDigamma:
      return special::Digamma(a);
    case ElementOp::kBesselI1e:
      return special::BesselI1e(a);
    case ElementOp::kZeta:
      return special::Zeta(a, b);
    default:
      return special::Polygamma(a, b);
  }
}

// One elementwise op on values already loaded: `a`, `b`, `c` of type
// `in_type` (select: `a` is the pred), the result of type `out_type`.
XFFI_HOST_DEVICE inline Value ApplyElementOp(ElementOp op, DType in_type,
                                             DType out_type, Value a, Value b,
                                             Value c) {
  const ValueClass value_class = ClassOf(in_type);
  Value r;
  switch (op) {
    case ElementOp::kSelect:
      return a.u != 0 ? b : c;
    case ElementOp::kReal:
      r.f = a.f;
      return r;
    case ElementOp::kImag:
      r.f = value_class == ValueClass::kComplex ? a.im : 0.0;
      return r;
    case ElementOp::kComplex:
      r.f = a.f;
      r.im = b.f;
      return r;
    case ElementOp::kConvert:
      return Convert(a, value_class, out_type);
    case ElementOp::kIsFinite:
      r.u = isfinite(a.f) ? 1 : 0;
      return r;
    case ElementOp::kErfInv:
    case ElementOp::kLgamma:
    case ElementOp::kDigamma:
    case ElementOp::kBesselI1e:
    case ElementOp::kZeta:
    case ElementOp::kPolygamma:
      // In the element type's precision, as the CPU computes them (several
      // f32 forms are XLA's and not the f64 ones rounded); f16 and bf16
      // through f32, as the CPU's kernels take them.
      r.f = in_type == DType::kF64
                ? SpecialFunction<double>(op, a.f, b.f)
                : static_cast<double>(SpecialFunction<float>(
                      op, static_cast<float>(a.f), static_cast<float>(b.f)));
      return r;
    case ElementOp::kNextAfter:
      r.f = NextAfter(a.f, b.f, in_type);
      return r;
    case ElementOp::kClamp:  // clamp(min, x, max)
      r.f = FloatOp(ElementOp::kMinimum, FloatOp(ElementOp::kMaximum, b.f, a.f),
                    c.f);
      r.s = IntegerOp<int64_t>(
          ElementOp::kMinimum,
          IntegerOp<int64_t>(ElementOp::kMaximum, b.s, a.s, 64, true), c.s, 64,
          true);
      r.u = IntegerOp<uint64_t>(
          ElementOp::kMinimum,
          IntegerOp<uint64_t>(ElementOp::kMaximum, b.u, a.u, 64, false), c.u,
          64, false);
      return r;
    default:
      break;
  }
  if (op >= ElementOp::kCompareTotalEq && op <= ElementOp::kCompareTotalLt) {
    const ElementOp plain = static_cast<ElementOp>(
        static_cast<int32_t>(ElementOp::kCompareEq) +
        (static_cast<int32_t>(op) -
         static_cast<int32_t>(ElementOp::kCompareTotalEq)));
    if (value_class == ValueClass::kFloat) {
      a.s = TotalOrderKey(a.f);
      b.s = TotalOrderKey(b.f);
      r.u = CompareOp(plain, a, b, ValueClass::kSigned) ? 1 : 0;
    } else {
      r.u = CompareOp(plain, a, b, value_class) ? 1 : 0;
    }
  } else if (value_class == ValueClass::kComplex) {
    if (op == ElementOp::kCompareEq || op == ElementOp::kCompareNe) {
      const bool equal = a.f == b.f && a.im == b.im;
      r.u = (op == ElementOp::kCompareEq) == equal ? 1 : 0;
    } else {
      r = ComplexOp(op, a, b);
    }
  } else if (op >= ElementOp::kCompareEq && op <= ElementOp::kCompareLt) {
    r.u = CompareOp(op, a, b, value_class) ? 1 : 0;
  } else if (in_type == DType::kPred) {
    // pred's logic ops on 0/1 (not flips the bit).
    r.u = op == ElementOp::kNot ? (a.u ^ 1)
                                : IntegerOp<uint64_t>(op, a.u, b.u, 8, false);
  } else if (value_class == ValueClass::kFloat) {
    r.f = FloatOp(op, a.f, b.f);
  } else if (value_class == ValueClass::kSigned) {
    r.s = IntegerOp<int64_t>(op, a.s, b.s, BitsOf(in_type), true);
  } else {
    r.u = IntegerOp<uint64_t>(op, a.u, b.u, BitsOf(in_type), false);
  }
  return r;
}

// out[i] = op(in0[i], in1[i], in2[i]) over `n` elements. Operand k is read
// at index 0 for every i when in_scalar[k] (a broadcast scalar).
struct ElementwiseKernel {
  static constexpr const char* kName = "xffi.device.elementwise";
  ElementOp op = ElementOp::kAdd;
  DType in_type = DType::kF32;  // of the arithmetic operands (select: 1, 2)
  DType out_type = DType::kF32;
  int32_t operands = 1;
  const uint8_t* in[3] = {nullptr, nullptr, nullptr};
  int32_t in_scalar[3] = {0, 0, 0};
  uint8_t* out = nullptr;
  int64_t n = 0;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    Value v[3];
    for (int32_t k = 0; k < operands; ++k) {
      const DType type =
          k == 0 && op == ElementOp::kSelect ? DType::kPred : in_type;
      v[k] = Load(in[k], in_scalar[k] ? 0 : i, type);
    }
    Store(out, i, out_type,
          ApplyElementOp(op, in_type, out_type, v[0], v[1], v[2]));
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    for (int k = 0; k < 3; ++k) visit(in[k]);
    visit(out);
  }
};

inline constexpr int kMaxRank = 8;

// Row-major position `i` of a shape of `rank` dims as an offset under
// per-dimension strides (in elements; any sign).
XFFI_HOST_DEVICE inline int64_t StridedOffset(int64_t i, int32_t rank,
                                              const int64_t* dims,
                                              const int64_t* strides) {
  int64_t offset = 0;
  for (int32_t d = rank - 1; d >= 0; --d) {
    const int64_t size = dims[d];
    offset += (i % size) * strides[d];
    i /= size;
  }
  return offset;
}

// dst[dst_offset + Σ idx·dst_strides] = src[src_offset + Σ idx·src_strides]
// for every index idx of `dims`: broadcast (a zero source stride),
// transpose, slice, reverse (a negative stride), concatenate and pad (a
// destination offset and stride) are each one such copy.
struct StridedCopyKernel {
  static constexpr const char* kName = "xffi.device.strided_copy";
  const uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  int64_t n = 0;
  int32_t rank = 0;
  int32_t element_size = 4;
  int64_t src_offset = 0, dst_offset = 0;
  int64_t dims[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t from = src_offset + StridedOffset(i, rank, dims, src_strides);
    const int64_t to = dst_offset + StridedOffset(i, rank, dims, dst_strides);
    const uint8_t* s = src + from * element_size;
    uint8_t* d = dst + to * element_size;
    for (int32_t b = 0; b < element_size; ++b) d[b] = s[b];
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(src);
    visit(dst);
  }
};

// out[i] = the index of element i along dimension `dimension`.
struct IotaKernel {
  static constexpr const char* kName = "xffi.device.iota";
  uint8_t* out = nullptr;
  DType type = DType::kS32;
  int64_t n = 0;
  int64_t inner = 1;  // elements per step along the dimension
  int64_t size = 1;   // the dimension's size

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    Value v;
    v.u = static_cast<uint64_t>((i / inner) % size);
    Store(out, i, type, Convert(v, ValueClass::kUnsigned, type));
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(out);
  }
};

// A reduction each output element folds alone: reduce (combine the input
// into the accumulator with `op`) and dot (`op` kMultiply of lhs and rhs,
// summed). Output element i starts at Σ idx·out_strides in each input (its
// kept dimensions) and walks the contracted dimensions.
struct ContractionKernel {
  static constexpr const char* kName = "xffi.device.contraction";
  const uint8_t* lhs = nullptr;
  const uint8_t* rhs = nullptr;   // dot only
  const uint8_t* init = nullptr;  // reduce only: a scalar
  uint8_t* out = nullptr;
  bool is_dot = false;
  ElementOp op = ElementOp::kAdd;  // reduce's combiner
  DType lhs_type = DType::kF32, rhs_type = DType::kF32, out_type = DType::kF32;
  int64_t n = 0;
  int32_t out_rank = 0;
  int64_t out_dims[kMaxRank] = {};
  int64_t lhs_out_strides[kMaxRank] = {}, rhs_out_strides[kMaxRank] = {};
  int32_t k_rank = 0;
  int64_t k_count = 1;
  int64_t k_dims[kMaxRank] = {};
  int64_t lhs_k_strides[kMaxRank] = {}, rhs_k_strides[kMaxRank] = {};

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t lhs_base =
        StridedOffset(i, out_rank, out_dims, lhs_out_strides);
    const int64_t rhs_base =
        StridedOffset(i, out_rank, out_dims, rhs_out_strides);
    const ValueClass c = ClassOf(out_type);
    Value acc = is_dot ? Value() : Load(init, 0, out_type);
    for (int64_t k = 0; k < k_count; ++k) {
      const Value a =
          Load(lhs, lhs_base + StridedOffset(k, k_rank, k_dims, lhs_k_strides),
               lhs_type);
      if (is_dot) {
        const Value b = Load(
            rhs, rhs_base + StridedOffset(k, k_rank, k_dims, rhs_k_strides),
            rhs_type);
        const Value x = Convert(a, ClassOf(lhs_type), out_type);
        const Value y = Convert(b, ClassOf(rhs_type), out_type);
        if (c == ValueClass::kFloat)
          acc.f += x.f * y.f;
        else if (c == ValueClass::kSigned)
          acc.s = static_cast<int64_t>(static_cast<uint64_t>(acc.s) +
                                       static_cast<uint64_t>(x.s) *
                                           static_cast<uint64_t>(y.s));
        else
          acc.u += x.u * y.u;
      } else if (c == ValueClass::kComplex) {
        acc = ComplexOp(op, acc, a);
      } else if (out_type == DType::kPred) {
        acc.u = IntegerOp<uint64_t>(op, acc.u, a.u, 8, false);
      } else if (c == ValueClass::kFloat) {
        acc.f = FloatOp(op, acc.f, a.f);
      } else if (c == ValueClass::kSigned) {
        acc.s = IntegerOp<int64_t>(op, acc.s, a.s, 64, true);
      } else {
        acc.u = IntegerOp<uint64_t>(op, acc.u, a.u, 64, false);
      }
    }
    Store(out, i, out_type, acc);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(lhs);
    visit(rhs);
    visit(init);
    visit(out);
  }
};

// dynamic-slice (src: the operand, dims: the slice) and the update half of
// dynamic-update-slice (src: the update, dims: the update, written into
// dst at the start). Each start index is a device scalar of `index_type`,
// clamped so the window fits, as HLO defines it.
struct DynamicWindowKernel {
  static constexpr const char* kName = "xffi.device.dynamic_window";
  const uint8_t* src = nullptr;
  uint8_t* dst = nullptr;
  const uint8_t* starts[kMaxRank] = {};
  DType index_type = DType::kS32;
  bool update = false;  // dynamic-update-slice: the window is in dst
  int64_t n = 0;
  int32_t rank = 0;
  int32_t element_size = 4;
  int64_t dims[kMaxRank] = {};       // the window (slice or update)
  int64_t full_dims[kMaxRank] = {};  // the operand's

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    int64_t window = 0, full = 0, window_stride = 1, full_stride = 1;
    int64_t rest = i;
    for (int32_t d = rank - 1; d >= 0; --d) {
      const int64_t index = rest % dims[d];
      rest /= dims[d];
      const Value raw = Load(starts[d], 0, index_type);
      int64_t start = ClassOf(index_type) == ValueClass::kSigned
                          ? raw.s
                          : static_cast<int64_t>(raw.u);
      const int64_t last = full_dims[d] - dims[d];
      start = start < 0 ? 0 : start > last ? last : start;
      window += index * window_stride;
      full += (index + start) * full_stride;
      window_stride *= dims[d];
      full_stride *= full_dims[d];
    }
    const uint8_t* s = src + (update ? window : full) * element_size;
    uint8_t* t = dst + (update ? full : window) * element_size;
    for (int32_t b = 0; b < element_size; ++b) t[b] = s[b];
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(src);
    visit(dst);
    for (int d = 0; d < kMaxRank; ++d) visit(starts[d]);
  }
};

// Where gather's output element i reads its operand: the start of its
// batch position (each start read from the indices, clamped so the slice
// fits) plus its offset within the slice, plus its batching position.
struct GatherGeometry {
  DType index_type = DType::kS32;
  int32_t out_rank = 0, operand_rank = 0, indices_rank = 0;
  int32_t index_vector_dim = 0, starts = 0;
  int64_t out_dims[kMaxRank] = {};
  int64_t operand_dims[kMaxRank] = {};
  int64_t slice_sizes[kMaxRank] = {};
  int64_t indices_dims[kMaxRank] = {};
  // Per output dimension: the operand dimension an offset dimension walks,
  // or -1; the indices dimension a batch dimension walks, or -1.
  int32_t out_to_operand[kMaxRank] = {};
  int32_t out_to_indices[kMaxRank] = {};
  int32_t start_index_map[kMaxRank] = {};
  // Batching dimensions: operand dimension operand_batching_dims[b] is at
  // the position along indices dimension indices_batching_dims[b].
  int32_t batching = 0;
  int32_t operand_batching_dims[kMaxRank] = {};
  int32_t indices_batching_dims[kMaxRank] = {};

  // The operand element (row-major offset) output element i reads. Starts
  // come from `indices` in memory, or (a single start whose indices hold
  // one element per output element, at i) from `start` already computed.
  XFFI_HOST_DEVICE int64_t Source(int64_t i, const uint8_t* indices,
                                  const Value* start_value) const {
    int64_t out_index[kMaxRank] = {};
    int64_t rest = i;
    for (int32_t d = out_rank - 1; d >= 0; --d) {
      out_index[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    int64_t operand_index[kMaxRank] = {};
    int64_t index_of_start[kMaxRank] = {};
    for (int32_t o = 0; o < out_rank; ++o) {
      if (out_to_operand[o] >= 0)
        operand_index[out_to_operand[o]] += out_index[o];
      if (out_to_indices[o] >= 0)
        index_of_start[out_to_indices[o]] = out_index[o];
    }
    for (int32_t b = 0; b < batching; ++b)
      operand_index[operand_batching_dims[b]] +=
          index_of_start[indices_batching_dims[b]];
    for (int32_t k = 0; k < starts; ++k) {
      Value raw;
      if (start_value != nullptr) {
        raw = *start_value;
      } else {
        if (index_vector_dim < indices_rank)
          index_of_start[index_vector_dim] = k;
        int64_t at = 0;
        for (int32_t d = 0; d < indices_rank; ++d)
          at = at * indices_dims[d] + index_of_start[d];
        raw = Load(indices, at, index_type);
      }
      int64_t start = ClassOf(index_type) == ValueClass::kSigned
                          ? raw.s
                          : static_cast<int64_t>(raw.u);
      const int32_t d = start_index_map[k];
      const int64_t last = operand_dims[d] - slice_sizes[d];
      start = start < 0 ? 0 : start > last ? last : start;
      operand_index[d] += start;
    }
    int64_t from = 0;
    for (int32_t d = 0; d < operand_rank; ++d)
      from = from * operand_dims[d] + operand_index[d];
    return from;
  }
};

// gather: output element i copies the operand element its geometry picks.
struct GatherKernel {
  static constexpr const char* kName = "xffi.device.gather";
  const uint8_t* operand = nullptr;
  const uint8_t* indices = nullptr;
  uint8_t* out = nullptr;
  int32_t element_size = 4;
  int64_t n = 0;
  GatherGeometry geometry;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t from = geometry.Source(i, indices, nullptr);
    const uint8_t* s = operand + from * element_size;
    uint8_t* t = out + i * element_size;
    for (int32_t b = 0; b < element_size; ++b) t[b] = s[b];
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(operand);
    visit(indices);
    visit(out);
  }
};

// A loop fusion of elementwise ops, interpreted per element: each step reads
// a fusion input, holds a constant, applies an op to earlier steps' values,
// or gathers one element of an input; the last step is the result. Inputs
// and intermediates have the result's element count (read at i) or one
// element (read at 0); a gather's operand (and indices read from memory)
// may have any shape.
inline constexpr int kMaxFusedSteps = 40;
inline constexpr int kMaxFusedInputs = 8;
inline constexpr int kMaxFusedGathers = 2;

enum class StepKind : int16_t { kInput, kConstant, kOp, kGather };

struct FusedStep {
  StepKind kind = StepKind::kOp;
  ElementOp op = ElementOp::kAdd;
  DType in_type = DType::kF32, out_type = DType::kF32;
  // kInput: args[0] is the input's number. kGather: args[0] the gather's
  // number, args[1] the step holding its one start (or -1: indices in
  // memory).
  int16_t args[3] = {0, 0, 0};
  Value constant;
};

// A gather of one-element slices inside a loop fusion (take_along_axis):
// its operand, and its indices when they are not computed in the loop, are
// fusion inputs read where the geometry says. The result's linear index is
// the gather's own: a loop fusion's values share the result's index space.
struct FusedGather {
  int16_t operand_input = 0;
  int16_t indices_input = -1;  // -1: the start is a step's value
  GatherGeometry geometry;
};

struct FusedLoopKernel {
  static constexpr const char* kName = "xffi.device.fused_loop";
  FusedStep steps[kMaxFusedSteps];
  int32_t count = 0;
  const uint8_t* inputs[kMaxFusedInputs] = {};
  int32_t input_scalar[kMaxFusedInputs] = {};
  FusedGather gathers[kMaxFusedGathers];
  uint8_t* out = nullptr;
  int64_t n = 0;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    Value values[kMaxFusedSteps];
    for (int32_t s = 0; s < count; ++s) {
      const FusedStep& step = steps[s];
      if (step.kind == StepKind::kInput) {
        const int k = step.args[0];
        values[s] = Load(inputs[k], input_scalar[k] ? 0 : i, step.out_type);
      } else if (step.kind == StepKind::kConstant) {
        values[s] = step.constant;
      } else if (step.kind == StepKind::kGather) {
        const FusedGather& gather = gathers[step.args[0]];
        const int64_t from = gather.geometry.Source(
            i,
            gather.indices_input >= 0 ? inputs[gather.indices_input] : nullptr,
            gather.indices_input >= 0 ? nullptr : &values[step.args[1]]);
        values[s] = Load(inputs[gather.operand_input], from, step.out_type);
      } else {
        values[s] =
            Normalize(ApplyElementOp(step.op, step.in_type, step.out_type,
                                     values[step.args[0]], values[step.args[1]],
                                     values[step.args[2]]),
                      step.out_type);
      }
    }
    Store(out, i, steps[count - 1].out_type, values[count - 1]);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    for (int k = 0; k < kMaxFusedInputs; ++k) visit(inputs[k]);
    visit(out);
  }
};

// A scalar region (scatter's, reduce's and reduce-window's combiner, sort's
// comparator) as steps over its parameters' values, interpreted as the
// fused loop interprets its steps: kInput steps read params[args[0]]. Its
// value is the last step's, or (a region returning a tuple) those of the
// steps `results` lists. 64 steps hold jnp.sort's NaN-aware comparators
// of several keys and argmax-style tuple regions; the step table travels in
// the functor, so two regions (select-and-scatter) still fit CUDA's
// parameter space (device_kernels.cu checks).
inline constexpr int kMaxRegionSteps = 64;
inline constexpr int kMaxRegionParameters = 8;
inline constexpr int kMaxRegionResults = kMaxRegionParameters / 2;

struct RegionProgram {
  FusedStep steps[kMaxRegionSteps];
  int32_t count = 0;
  int16_t results[kMaxRegionResults] = {};
  int32_t result_count = 0;

  XFFI_HOST_DEVICE Value Run(const Value* params) const {
    Value values[kMaxRegionSteps];
    Evaluate(params, values);
    return values[count - 1];
  }

  // The tuple root's elements into out[0, result_count).
  XFFI_HOST_DEVICE void RunAll(const Value* params, Value* out) const {
    Value values[kMaxRegionSteps];
    Evaluate(params, values);
    for (int32_t r = 0; r < result_count; ++r) out[r] = values[results[r]];
  }

  XFFI_HOST_DEVICE void Evaluate(const Value* params, Value* values) const {
    for (int32_t s = 0; s < count; ++s) {
      const FusedStep& step = steps[s];
      if (step.kind == StepKind::kInput)
        values[s] = params[step.args[0]];
      else if (step.kind == StepKind::kConstant)
        values[s] = step.constant;
      else
        values[s] =
            Normalize(ApplyElementOp(step.op, step.in_type, step.out_type,
                                     values[step.args[0]], values[step.args[1]],
                                     values[step.args[2]]),
                      step.out_type);
    }
  }
};

// How a combiner merges an old value with a new one: a byte copy (a region
// returning its second parameter), one elementwise op, or the region.
enum class CombineKind : int32_t { kSet, kOp, kRegion };

struct Combiner {
  CombineKind kind = CombineKind::kOp;
  ElementOp op = ElementOp::kAdd;
  RegionProgram region;

  XFFI_HOST_DEVICE Value Apply(DType type, Value old_value,
                               Value new_value) const {
    if (kind == CombineKind::kSet) return new_value;
    if (kind == CombineKind::kOp)
      return Normalize(
          ApplyElementOp(op, type, type, old_value, new_value, Value()), type);
    const Value params[2] = {old_value, new_value};
    return region.Run(params);
  }

  // `count` accumulators of `types` fold in one value each: Apply for one,
  // the region (params: the accumulators, then the values; a tuple root)
  // for several, as variadic reduce, reduce-window and scatter combine.
  XFFI_HOST_DEVICE void Fold(int32_t count, const DType* types, Value* acc,
                             const Value* values) const {
    if (count == 1) {
      acc[0] = Apply(types[0], acc[0], values[0]);
      return;
    }
    Value params[kMaxRegionParameters];
    for (int32_t k = 0; k < count; ++k) {
      params[k] = acc[k];
      params[count + k] = values[k];
    }
    region.RunAll(params, acc);
  }
};

XFFI_HOST_DEVICE inline int64_t IndexValue(const uint8_t* data, int64_t i,
                                           DType type) {
  const Value raw = Load(data, i, type);
  return ClassOf(type) == ValueClass::kSigned ? raw.s
                                              : static_cast<int64_t>(raw.u);
}

// scatter of one operand or several together (each result already holds
// its operand's copy), deterministic: thread i owns the window positions along
// the operand dimensions no start index moves (`free`), which no other thread
// writes, and applies every scatter position's update to them in order of the
// scatter position, then of the window along the moved dimensions — the
// order the CPU backend applies them in, so colliding indices combine in
// the same order on both. A window that does not fit is skipped whole.
struct ScatterKernel {
  static constexpr const char* kName = "xffi.device.scatter";
  // A variadic scatter's operands (results) and updates, combined together.
  int32_t operands = 1;
  uint8_t* out[kMaxRegionResults] = {};
  const uint8_t* indices = nullptr;
  const uint8_t* updates[kMaxRegionResults] = {};
  DType types[kMaxRegionResults] = {};
  DType index_type = DType::kS32;
  Combiner combiner;
  int64_t n = 0;  // threads: the free window positions
  int32_t free_rank = 0;
  int64_t free_dims[kMaxRank] = {};
  int64_t free_update_strides[kMaxRank] = {}, free_out_strides[kMaxRank] = {};
  int64_t positions = 0;  // scatter positions (update dims walking indices)
  int32_t position_rank = 0;
  int64_t position_dims[kMaxRank] = {};
  int64_t position_update_strides[kMaxRank] = {};
  int64_t position_index_strides[kMaxRank] = {};
  // Along batching dimensions a scatter position is also an operand place.
  int64_t position_out_strides[kMaxRank] = {};
  int64_t moved = 1;  // window positions along the moved dimensions
  int32_t moved_rank = 0;
  int64_t moved_dims[kMaxRank] = {};
  int64_t moved_update_strides[kMaxRank] = {};
  int64_t moved_out_strides[kMaxRank] = {};
  int32_t starts = 0;  // entries of an index vector
  int64_t index_vector_stride = 0;
  int64_t start_out_strides[kMaxRank] = {};
  int64_t start_max[kMaxRank] = {};

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t free_update =
        StridedOffset(i, free_rank, free_dims, free_update_strides);
    const int64_t free_out =
        StridedOffset(i, free_rank, free_dims, free_out_strides);
    for (int64_t p = 0; p < positions; ++p) {
      const int64_t index_base = StridedOffset(p, position_rank, position_dims,
                                               position_index_strides);
      int64_t window_out =
          StridedOffset(p, position_rank, position_dims, position_out_strides);
      bool fits = true;
      for (int32_t k = 0; k < starts && fits; ++k) {
        const int64_t start = IndexValue(
            indices, index_base + k * index_vector_stride, index_type);
        fits = start >= 0 && start <= start_max[k];
        window_out += start * start_out_strides[k];
      }
      if (!fits) continue;
      const int64_t update_base =
          free_update + StridedOffset(p, position_rank, position_dims,
                                      position_update_strides);
      for (int64_t w = 0; w < moved; ++w) {
        const int64_t to =
            free_out + window_out +
            StridedOffset(w, moved_rank, moved_dims, moved_out_strides);
        const int64_t from =
            update_base +
            StridedOffset(w, moved_rank, moved_dims, moved_update_strides);
        Value acc[kMaxRegionResults], values[kMaxRegionResults];
        for (int32_t k = 0; k < operands; ++k) {
          acc[k] = Load(out[k], to, types[k]);
          values[k] = Load(updates[k], from, types[k]);
        }
        combiner.Fold(operands, types, acc, values);
        for (int32_t k = 0; k < operands; ++k)
          Store(out[k], to, types[k], acc[k]);
      }
    }
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(indices);
    for (int k = 0; k < kMaxRegionResults; ++k) {
      visit(out[k]);
      visit(updates[k]);
    }
  }
};

// sort along one dimension: thread i sorts row i (the elements along the
// dimension at one position of the others) of every operand together, in
// place in the results (which already hold the operands' copies), stable
// whatever the sort's is_stable. With `scratch` (one array per operand,
// laid out as its result) by a bottom-up merge sort, O(length log length)
// comparator runs and moves; without, by a binary insertion sort needing no
// memory but O(length^2) moves.
inline constexpr int kMaxSortOperands = kMaxRegionParameters / 2;
inline constexpr int kMaxSortElementSize = 16;  // c128

struct SortKernel {
  static constexpr const char* kName = "xffi.device.sort";
  uint8_t* out[kMaxSortOperands] = {};
  DType types[kMaxSortOperands] = {};
  int32_t element_sizes[kMaxSortOperands] = {};
  int32_t operands = 1;
  RegionProgram less;  // params: lhs 0, rhs 0, lhs 1, rhs 1, ...
  int64_t n = 0;       // rows
  int64_t length = 0;  // elements per row
  int64_t inner = 1;   // the dimension's stride (elements)
  uint8_t* scratch[kMaxSortOperands] = {};  // all null: insertion sort

  XFFI_HOST_DEVICE bool Less(const Value* lhs, const Value* rhs) const {
    Value params[kMaxRegionParameters];
    for (int32_t k = 0; k < operands; ++k) {
      params[2 * k] = lhs[k];
      params[2 * k + 1] = rhs[k];
    }
    return less.Run(params).u != 0;
  }

  // Element `from` of every operand in `src` to element `to` in `dst`.
  XFFI_HOST_DEVICE void Move(uint8_t* const* src, int64_t from,
                             uint8_t* const* dst, int64_t to) const {
    for (int32_t k = 0; k < operands; ++k) {
      const int32_t size = element_sizes[k];
      for (int32_t b = 0; b < size; ++b)
        dst[k][to * size + b] = src[k][from * size + b];
    }
  }

  XFFI_HOST_DEVICE void MergeSort(int64_t base) const {
    uint8_t* const* src = out;
    uint8_t* const* dst = scratch;
    Value left[kMaxSortOperands], right[kMaxSortOperands];
    for (int64_t width = 1; width < length; width *= 2) {
      for (int64_t low = 0; low < length; low += 2 * width) {
        const int64_t mid = low + width < length ? low + width : length;
        const int64_t high = mid + width < length ? mid + width : length;
        int64_t a = low, b = mid;
        for (int64_t t = low; t < high; ++t) {
          bool take_right = a >= mid;
          if (!take_right && b < high) {
            for (int32_t k = 0; k < operands; ++k) {
              left[k] = Load(src[k], base + a * inner, types[k]);
              right[k] = Load(src[k], base + b * inner, types[k]);
            }
            // Equal keys keep the left run's first: stable.
            take_right = Less(right, left);
          }
          const int64_t from = take_right ? b++ : a++;
          Move(src, base + from * inner, dst, base + t * inner);
        }
      }
      uint8_t* const* swap = src;
      src = dst;
      dst = swap;
    }
    if (src != out)
      for (int64_t t = 0; t < length; ++t)
        Move(src, base + t * inner, out, base + t * inner);
  }

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t base = (i / inner) * length * inner + i % inner;
    if (scratch[0] != nullptr) {
      MergeSort(base);
      return;
    }
    for (int64_t j = 1; j < length; ++j) {
      Value key[kMaxSortOperands], probe[kMaxSortOperands];
      for (int32_t k = 0; k < operands; ++k)
        key[k] = Load(out[k], base + j * inner, types[k]);
      // After every element not greater than the key: stable.
      int64_t low = 0, high = j;
      while (low < high) {
        const int64_t mid = low + (high - low) / 2;
        for (int32_t k = 0; k < operands; ++k)
          probe[k] = Load(out[k], base + mid * inner, types[k]);
        if (Less(key, probe))
          high = mid;
        else
          low = mid + 1;
      }
      if (low == j) continue;
      for (int32_t k = 0; k < operands; ++k) {
        const int32_t size = element_sizes[k];
        uint8_t saved[kMaxSortElementSize];
        uint8_t* row = out[k];
        for (int32_t b = 0; b < size; ++b)
          saved[b] = row[(base + j * inner) * size + b];
        for (int64_t t = j; t > low; --t)
          for (int32_t b = 0; b < size; ++b)
            row[(base + t * inner) * size + b] =
                row[(base + (t - 1) * inner) * size + b];
        for (int32_t b = 0; b < size; ++b)
          row[(base + low * inner) * size + b] = saved[b];
      }
    }
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    for (int k = 0; k < kMaxSortOperands; ++k) {
      visit(out[k]);
      visit(scratch[k]);
    }
  }
};

// reduce-window of one operand or several together: output element i
// folds, from the init values, the operand elements its window covers, in
// row-major window order (padding and the holes of base dilation contribute
// nothing).
struct ReduceWindowKernel {
  static constexpr const char* kName = "xffi.device.reduce_window";
  // A variadic reduce-window's inputs, inits (scalars) and results.
  int32_t operands = 1;
  const uint8_t* in[kMaxRegionResults] = {};
  const uint8_t* init[kMaxRegionResults] = {};
  uint8_t* out[kMaxRegionResults] = {};
  DType types[kMaxRegionResults] = {};
  Combiner combiner;
  int64_t n = 0;
  int32_t rank = 0;
  int64_t window_count = 1;
  int64_t in_dims[kMaxRank] = {}, out_dims[kMaxRank] = {};
  int64_t window_sizes[kMaxRank] = {}, strides[kMaxRank] = {};
  int64_t padding_low[kMaxRank] = {};
  int64_t window_dilations[kMaxRank] = {}, base_dilations[kMaxRank] = {};

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    int64_t out_index[kMaxRank] = {};
    int64_t rest = i;
    for (int32_t d = rank - 1; d >= 0; --d) {
      out_index[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    Value acc[kMaxRegionResults], values[kMaxRegionResults];
    for (int32_t k = 0; k < operands; ++k) acc[k] = Load(init[k], 0, types[k]);
    for (int64_t w = 0; w < window_count; ++w) {
      int64_t rest_w = w, from = 0, stride = 1;
      bool inside = true;
      for (int32_t d = rank - 1; d >= 0 && inside; --d) {
        const int64_t offset = rest_w % window_sizes[d];
        rest_w /= window_sizes[d];
        // The position in the padded, base-dilated operand.
        const int64_t dilated = out_index[d] * strides[d] +
                                offset * window_dilations[d] - padding_low[d];
        if (dilated < 0 || dilated % base_dilations[d] != 0) {
          inside = false;
          break;
        }
        const int64_t position = dilated / base_dilations[d];
        if (position >= in_dims[d]) inside = false;
        from += position * stride;
        stride *= in_dims[d];
      }
      if (!inside) continue;
      for (int32_t k = 0; k < operands; ++k)
        values[k] = Load(in[k], from, types[k]);
      combiner.Fold(operands, types, acc, values);
    }
    for (int32_t k = 0; k < operands; ++k) Store(out[k], i, types[k], acc[k]);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    for (int k = 0; k < kMaxRegionResults; ++k) {
      visit(in[k]);
      visit(init[k]);
      visit(out[k]);
    }
  }
};

// select-and-scatter (max-pooling's gradient), deterministic without
// atomics: thread i owns operand element i and, from the init value,
// combines into it the source element of every window that picks it, in
// row-major order of the windows, the CPU backend's order. A window's pick
// is its first element inside the operand, replaced by each next one that
// `select`(picked, next) does not keep; padding is never picked.
struct SelectAndScatterKernel {
  static constexpr const char* kName = "xffi.device.select_and_scatter";
  const uint8_t* operand = nullptr;
  const uint8_t* source = nullptr;
  const uint8_t* init = nullptr;  // a scalar
  uint8_t* out = nullptr;
  DType type = DType::kF32;
  RegionProgram select;  // (picked, next) -> keep picked
  Combiner scatter;
  int64_t n = 0;  // operand elements
  int32_t rank = 0;
  int64_t operand_dims[kMaxRank] = {}, source_dims[kMaxRank] = {};
  int64_t window_sizes[kMaxRank] = {}, strides[kMaxRank] = {};
  int64_t padding_low[kMaxRank] = {};

  // The operand element window `position` picks, or -1 (all padding).
  XFFI_HOST_DEVICE int64_t Pick(const int64_t* position) const {
    int64_t window_count = 1;
    for (int32_t d = 0; d < rank; ++d) window_count *= window_sizes[d];
    int64_t picked = -1;
    Value picked_value;
    for (int64_t w = 0; w < window_count; ++w) {
      int64_t rest = w, at = 0, stride = 1;
      bool inside = true;
      for (int32_t d = rank - 1; d >= 0; --d) {
        const int64_t k = rest % window_sizes[d];
        rest /= window_sizes[d];
        const int64_t index = position[d] * strides[d] + k - padding_low[d];
        if (index < 0 || index >= operand_dims[d]) {
          inside = false;
          break;
        }
        at += index * stride;
        stride *= operand_dims[d];
      }
      if (!inside) continue;
      const Value candidate = Load(operand, at, type);
      if (picked >= 0) {
        const Value params[2] = {picked_value, candidate};
        if (select.Run(params).u != 0) continue;
      }
      picked = at;
      picked_value = candidate;
    }
    return picked;
  }

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    // Per dimension, the window positions whose window covers element i.
    int64_t index[kMaxRank] = {}, first[kMaxRank] = {}, last[kMaxRank] = {};
    int64_t rest = i;
    for (int32_t d = rank - 1; d >= 0; --d) {
      index[d] = rest % operand_dims[d];
      rest /= operand_dims[d];
    }
    Value acc = Load(init, 0, type);
    for (int32_t d = 0; d < rank; ++d) {
      const int64_t reach = index[d] + padding_low[d];  // p·stride + k
      const int64_t low = reach - (window_sizes[d] - 1);
      first[d] = low <= 0 ? 0 : (low + strides[d] - 1) / strides[d];
      last[d] = reach < 0 ? -1 : reach / strides[d];
      if (last[d] >= source_dims[d]) last[d] = source_dims[d] - 1;
      if (first[d] > last[d]) {
        Store(out, i, type, acc);
        return;
      }
    }
    int64_t position[kMaxRank] = {};
    for (int32_t d = 0; d < rank; ++d) position[d] = first[d];
    while (true) {
      if (Pick(position) == i) {
        int64_t at = 0;
        for (int32_t d = 0; d < rank; ++d)
          at = at * source_dims[d] + position[d];
        acc = scatter.Apply(type, acc, Load(source, at, type));
      }
      int32_t d = rank - 1;
      while (d >= 0 && position[d] == last[d]) {
        position[d] = first[d];
        --d;
      }
      if (d < 0) break;
      ++position[d];
    }
    Store(out, i, type, acc);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(operand);
    visit(source);
    visit(init);
    visit(out);
  }
};

// reduce of several inputs together (argmax: values and indices): output
// element i folds, from the inits, its reduced elements in row-major order
// through the combiner (params: the accumulators, then the elements); a
// reduce of one input whose region is not one op runs here too.
struct VariadicReduceKernel {
  static constexpr const char* kName = "xffi.device.variadic_reduce";
  const uint8_t* in[kMaxRegionResults] = {};
  const uint8_t* init[kMaxRegionResults] = {};  // scalars
  uint8_t* out[kMaxRegionResults] = {};
  DType types[kMaxRegionResults] = {};
  int32_t operands = 0;
  Combiner combiner;
  int64_t n = 0;
  int32_t out_rank = 0;
  int64_t out_dims[kMaxRank] = {}, out_strides[kMaxRank] = {};
  int32_t k_rank = 0;
  int64_t k_count = 1;
  int64_t k_dims[kMaxRank] = {}, k_strides[kMaxRank] = {};

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t base = StridedOffset(i, out_rank, out_dims, out_strides);
    Value acc[kMaxRegionResults], values[kMaxRegionResults];
    for (int32_t k = 0; k < operands; ++k) acc[k] = Load(init[k], 0, types[k]);
    for (int64_t j = 0; j < k_count; ++j) {
      const int64_t at = base + StridedOffset(j, k_rank, k_dims, k_strides);
      for (int32_t k = 0; k < operands; ++k)
        values[k] = Load(in[k], at, types[k]);
      combiner.Fold(operands, types, acc, values);
    }
    for (int32_t k = 0; k < operands; ++k) Store(out[k], i, types[k], acc[k]);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    for (int k = 0; k < kMaxRegionResults; ++k) {
      visit(in[k]);
      visit(init[k]);
      visit(out[k]);
    }
  }
};

// topk along the last dimension: thread i keeps row i's best k so far,
// ordered, in the results themselves (values and s32 indices), inserting
// each element after the ones that rank with it: XLA's order, a stable
// sort by GT (LT for the smallest) in the total order (NaN largest, +0
// above -0, equal values by index). O(length * k) per row.
struct TopKKernel {
  static constexpr const char* kName = "xffi.device.top_k";
  const uint8_t* in = nullptr;
  uint8_t* values = nullptr;
  uint8_t* indices = nullptr;  // s32
  DType type = DType::kF32;
  int32_t element_size = 4;
  int32_t largest = 1;
  int64_t n = 0;  // rows
  int64_t length = 0;
  int64_t k = 0;

  // Whether `a` ranks strictly before `b`.
  XFFI_HOST_DEVICE bool Before(Value a, Value b) const {
    const ValueClass c = ClassOf(type);
    if (c == ValueClass::kFloat) {
      a.s = TotalOrderKey(a.f);
      b.s = TotalOrderKey(b.f);
    }
    if (c == ValueClass::kUnsigned) return largest ? a.u > b.u : a.u < b.u;
    return largest ? a.s > b.s : a.s < b.s;
  }

  XFFI_HOST_DEVICE void Put(int64_t slot, const uint8_t* element,
                            int32_t index) const {
    for (int32_t b = 0; b < element_size; ++b)
      values[slot * element_size + b] = element[b];
    memcpy(indices + slot * 4, &index, 4);
  }

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n || k == 0) return;
    const int64_t row = i * length, out = i * k;
    int64_t filled = 0;
    for (int64_t j = 0; j < length; ++j) {
      const Value v = Load(in, row + j, type);
      if (filled == k && !Before(v, Load(values, out + k - 1, type))) continue;
      int64_t slot = filled < k ? filled++ : k - 1;
      for (; slot > 0 && Before(v, Load(values, out + slot - 1, type));
           --slot) {
        int32_t moved_index;
        memcpy(&moved_index, indices + (out + slot - 1) * 4, 4);
        Put(out + slot, values + (out + slot - 1) * element_size, moved_index);
      }
      Put(out + slot, in + (row + j) * element_size, static_cast<int32_t>(j));
    }
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(in);
    visit(values);
    visit(indices);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_DEVICE_KERNELS_H_
