// reduce-precision: a float rounded to a format with fewer exponent and
// mantissa bits and stored back in its own type, as XLA does it on the bit
// pattern: the mantissa rounded to nearest even, then values beyond the
// smaller exponent range flushed to signed infinity or signed zero (so no
// subnormals of the small format), NaN kept as it is.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "cpu/element_traits.h"
#include "cpu/elementwise_loops.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

template <typename F, typename U>
F ReducePrecision(F value, int exponent_bits, int mantissa_bits) {
  constexpr int kBits = sizeof(F) * 8;
  constexpr int kMantissa = std::numeric_limits<F>::digits - 1;
  constexpr int kExponent = kBits - 1 - kMantissa;
  U bits = std::bit_cast<U>(value);
  if (mantissa_bits < kMantissa) {
    const int shift = kMantissa - mantissa_bits;
    const U last_bit = U{1} << shift;
    const U bias = (last_bit >> 1) - 1 + ((bits & last_bit) >> shift);
    bits = (bits + bias) & ~(last_bit - 1);
  }
  if (exponent_bits < kExponent) {
    const U sign = U{1} << (kBits - 1);
    const U exponent_mask = ((U{1} << kExponent) - 1) << kMantissa;
    const U bias = (U{1} << (kExponent - 1)) - 1;
    const U reduced_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U exponent = bits & exponent_mask;
    if (exponent > ((bias + reduced_bias) << kMantissa))
      bits = (bits & sign) | exponent_mask;
    else if (exponent <= ((bias - reduced_bias) << kMantissa))
      bits &= sign;
  }
  return std::isnan(value) ? value : std::bit_cast<F>(bits);
}

template <typename F, typename U>
Kernel TypedKernel(int64_t n, int exponent_bits, int mantissa_bits) {
  return [=](const KernelArgs& args) -> Status {
    const F* in = static_cast<const F*>(args.operands[0].data);
    F* out = static_cast<F*>(args.results[0].data);
    ParallelFor(args.pool, n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = ReducePrecision<F, U>(in[i], exponent_bits, mantissa_bits);
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
  if (type == ElementType::kF32)
    return TypedKernel<float, uint32_t>(n, std::min(e, 8), std::min(m, 23));
  if (type == ElementType::kF64)
    return TypedKernel<double, uint64_t>(n, std::min(e, 11), std::min(m, 52));
  return Unimplemented("reduce-precision of " +
                       std::string(ElementTypeName(type)) +
                       " is not supported on CPU");
}

}  // namespace xffi::cpu
