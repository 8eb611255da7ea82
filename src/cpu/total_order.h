// xffi: the total order of floats that TOTALORDER compares use.
#ifndef XFFI_SRC_CPU_TOTAL_ORDER_H_
#define XFFI_SRC_CPU_TOTAL_ORDER_H_

#include <bit>
#include <cstdint>
#include <type_traits>

namespace xffi::cpu {

// An integer whose signed order is the float's total order:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. Negative floats order
// backwards as integers, so their magnitude bits are flipped (branch-free,
// so elementwise loops over it vectorise).
template <typename F>
auto TotalOrderKey(F value) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  using I = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  using U = std::make_unsigned_t<I>;
  I bits = std::bit_cast<I>(value);
  return static_cast<I>(
      bits ^ static_cast<I>(static_cast<U>(bits >> (sizeof(I) * 8 - 1)) >> 1));
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_TOTAL_ORDER_H_
