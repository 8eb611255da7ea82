// xffi: XLA's maximum and minimum of two floats, for every evaluator that
// computes them (elementwise kernels, the reduction fast paths, the scalar
// region interpreter), so a reduce gives one answer whichever runs it.
//
// XLA:CPU's rule for f32 and f64, probed with jax.jit (jax 0.10.2) over every
// pair of +-1, +-0, +-inf and quiet, signalling and payload NaNs of either
// sign, elementwise (short and vectorised), in row and column reductions
// below YNNPACK's 4096 elements (tests/cpp/test_float_max_min.cc):
// - a NaN first operand is returned as it is (payload and sign kept);
// - a NaN second operand (the first not NaN) keeps its payload, and is
//   negative only when both operands are (maximum) / either is (minimum):
//   the NaN's sign goes through the same sign logic as two equal zeros;
// - -0 orders below +0: max(+0, -0) is +0 in either operand order.
// A signalling NaN stays signalling (nothing is quieted).
//
// Written as one select of a bit-masked second operand, so loops stay
// vectorisable: when b is picked, max gives b's sign bit AND a's, min b's OR
// a's. For ordered values that is b's own sign whenever b is picked (a
// picked b of the other sign is only possible for zeros, where it is the
// zero rule), and for a NaN b it is the rule above.
#ifndef XFFI_SRC_CPU_FLOAT_MAX_MIN_H_
#define XFFI_SRC_CPU_FLOAT_MAX_MIN_H_

#include <bit>
#include <cstdint>
#include <type_traits>

namespace xffi::cpu {

template <typename F>
using FloatBitsOf =
    std::conditional_t<sizeof(F) == sizeof(uint32_t), uint32_t, uint64_t>;

template <typename F>
inline constexpr FloatBitsOf<F> kFloatSignBit =
    FloatBitsOf<F>{1} << (8 * sizeof(F) - 1);

template <typename F>
inline F XlaFloatMax(F a, F b) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using Bits = FloatBitsOf<F>;
  const Bits picked =
      std::bit_cast<Bits>(b) & (std::bit_cast<Bits>(a) | ~kFloatSignBit<F>);
  return (a > b || a != a) ? a : std::bit_cast<F>(picked);
}

template <typename F>
inline F XlaFloatMin(F a, F b) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using Bits = FloatBitsOf<F>;
  const Bits picked =
      std::bit_cast<Bits>(b) | (std::bit_cast<Bits>(a) & kFloatSignBit<F>);
  return (a < b || a != a) ? a : std::bit_cast<F>(picked);
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_FLOAT_MAX_MIN_H_
