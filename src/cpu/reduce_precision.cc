// reduce-precision: a float rounded to a format with fewer exponent and
// mantissa bits and stored back in its own type, as XLA does it on the bit
// pattern of the type itself (f16, bf16, f32, f64): the mantissa rounded to
// nearest even, then values beyond the smaller exponent range flushed to signed
// infinity or signed zero (so no subnormals of the small format), NaN kept as
// it is. The one-byte floats are computed as XLA:CPU computes them: widened
// to f16 (bf16 for f8e8m0fnu, whose exponent f16 cannot hold), reduced
// there, and converted back.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "cpu/byte_float_format.h"
#include "cpu/element_convert.h"
#include "cpu/element_traits.h"
#include "cpu/elementwise_loops.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

// On the bits of an IEEE format with kExponent exponent and kMantissa
// mantissa bits held in U (f16 and bf16 in their own 16 bits, as XLA does
// it, not through float).
template <typename U, int kExponent, int kMantissa>
U ReducePrecisionBits(U bits, int exponent_bits, int mantissa_bits) {
  constexpr int kBits = sizeof(U) * 8;
  const U sign = U{1} << (kBits - 1);
  const U exponent_mask = ((U{1} << kExponent) - 1) << kMantissa;
  if ((bits & ~sign) > exponent_mask) return bits;  // NaN, kept as it is
  if (mantissa_bits < kMantissa) {
    const int shift = kMantissa - mantissa_bits;
    const U last_bit = U{1} << shift;
    const U bias = (last_bit >> 1) - 1 + ((bits & last_bit) >> shift);
    bits = static_cast<U>((bits + bias) & ~(last_bit - 1));
  }
  if (exponent_bits < kExponent) {
    const U bias = (U{1} << (kExponent - 1)) - 1;
    const U reduced_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U exponent = bits & exponent_mask;
    if (exponent > ((bias + reduced_bias) << kMantissa))
      bits = (bits & sign) | exponent_mask;
    else if (exponent <= ((bias - reduced_bias) << kMantissa))
      bits &= sign;
  }
  return bits;
}

template <typename U, int kExponent, int kMantissa>
Kernel TypedKernel(int64_t n, int exponent_bits, int mantissa_bits) {
  exponent_bits = std::min(exponent_bits, kExponent);
  mantissa_bits = std::min(mantissa_bits, kMantissa);
  return [=](const KernelArgs& args) -> Status {
    const U* in = static_cast<const U*>(args.operands[0].data);
    U* out = static_cast<U*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = ReducePrecisionBits<U, kExponent, kMantissa>(
            in[i], exponent_bits, mantissa_bits);
    });
    return Status::Ok();
  };
}

// XLA:CPU has no arithmetic in the one-byte formats: its float
// normalisation widens them to the narrowest type holding every value
// exactly, f16 (Wide) for the f8 formats with at most five exponent bits and
// f4e2m1fn, bf16 for f8e8m0fnu. The reduction runs on Wide's bits with the
// bit counts capped at Wide's, so subnormals that Wide represents survive
// where the requested exponent range is Wide's own, as in XLA; the result
// converts back as a convert op does (XLA's special values included).
template <ElementType kWide>
Kernel ByteFloatKernel(ByteFloatFormat format, int64_t n, int exponent_bits,
                       int mantissa_bits) {
  using Wide = ElementTraits<kWide>;
  constexpr int kExponent = kWide == ElementType::kF16 ? 5 : 8;
  constexpr int kMantissa = kWide == ElementType::kF16 ? 10 : 7;
  exponent_bits = std::min(exponent_bits, kExponent);
  mantissa_bits = std::min(mantissa_bits, kMantissa);
  return [=](const KernelArgs& args) -> Status {
    const uint8_t* in = static_cast<const uint8_t*>(args.operands[0].data);
    uint8_t* out = static_cast<uint8_t*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const uint16_t wide =
            ReducePrecisionBits<uint16_t, kExponent, kMantissa>(
                Wide::Store(format.Load(in[i])), exponent_bits, mantissa_bits);
        out[i] = ConvertToByteFloat<Wide>(Wide::Load(wide), format);
      }
    });
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeReducePrecisionKernel(const Instruction& instruction) {
  const ElementType type = instruction.shape().element_type();
  const int64_t n = instruction.shape().num_elements();
  const int e = static_cast<int>(instruction.exponent_bits);
  const int m = static_cast<int>(instruction.mantissa_bits);
  switch (type) {
    case ElementType::kF16:
      return TypedKernel<uint16_t, 5, 10>(n, e, m);
    case ElementType::kBF16:
      return TypedKernel<uint16_t, 8, 7>(n, e, m);
    case ElementType::kF32:
      return TypedKernel<uint32_t, 8, 23>(n, e, m);
    case ElementType::kF64:
      return TypedKernel<uint64_t, 11, 52>(n, e, m);
    case ElementType::kF8E8M0FNU:
      return ByteFloatKernel<ElementType::kBF16>(
          ByteFloatFormat::Of<ElementTraits<ElementType::kF8E8M0FNU>>(), n, e,
          m);
    default:
      break;
  }
  return VisitFoldingByteFloats(type, [&](auto codec) -> StatusOr<Kernel> {
    if constexpr (std::is_same_v<decltype(codec), ByteFloatFormat>) {
      return ByteFloatKernel<ElementType::kF16>(codec, n, e, m);
    } else {
      return Unimplemented("op " + instruction.Describe() +
                           ": reduce-precision of " +
                           std::string(ElementTypeName(type)) +
                           " is not supported on CPU (floating-point types "
                           "are)");
    }
  });
}

}  // namespace xffi::cpu
