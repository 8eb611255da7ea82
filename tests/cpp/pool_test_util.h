// Helpers for the pooling kernel tests (reduce-window, select-and-scatter):
// inputs full of the values pooling must treat exactly as the general path
// does, short window descriptions, and regions no fast path matches.
#ifndef XFFI_TESTS_CPP_POOL_TEST_UTIL_H_
#define XFFI_TESTS_CPP_POOL_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"
#include "xffi/program/ir.h"
#include "xffi/program/literal.h"

namespace xffi::cpu::testing_util {

// Values with the specials the folds must keep: NaN, infinities, signed
// zeros, many ties; integers span their type's extremes.
template <typename T>
std::vector<T> PoolInput(int64_t n, uint32_t seed) {
  std::vector<T> v(static_cast<size_t>(n));
  uint32_t state = seed;
  for (T& x : v) {
    state = state * 1664525u + 1013904223u;
    const uint32_t r = state >> 8;
    if constexpr (std::is_floating_point_v<T>) {
      switch (r % 16) {
        case 0:
          x = std::numeric_limits<T>::quiet_NaN();
          break;
        case 1:
          x = -std::numeric_limits<T>::infinity();
          break;
        case 2:
          x = std::numeric_limits<T>::infinity();
          break;
        case 3:
          x = T(-0.0);
          break;
        case 4:
          x = T(0);
          break;
        default:
          x = static_cast<T>(static_cast<int>(r % 7) - 3) +
              static_cast<T>((r >> 4) % 3) / T(3);
      }
    } else {
      switch (r % 8) {
        case 0:
          x = std::numeric_limits<T>::max();
          break;
        case 1:
          x = std::numeric_limits<T>::lowest();
          break;
        default:
          x = static_cast<T>(r % 5);
      }
    }
  }
  return v;
}

// A region computing `opcode` of its parameters and then an identity
// convert: the general path evaluates it (no fast path matches the root).
inline std::unique_ptr<Computation> WrappedRegion(Opcode opcode,
                                                  ElementType type) {
  auto c = BinaryRegion(opcode, type);
  const Shape s = Shape::Scalar(c->root()->shape().element_type());
  c->set_root(c->AddInstruction(Opcode::kConvert, s, {c->root()}, "same"));
  return c;
}

inline WindowDimension Win(int64_t size, int64_t stride = 1,
                           int64_t pad_low = 0, int64_t pad_high = 0,
                           int64_t dilation = 1, int64_t base_dilation = 1) {
  return {size, stride, pad_low, pad_high, dilation, base_dilation, false};
}

// Empty when `got` and `want` (arrays of T) hold the same bits, else where
// they first differ. With `any_nan`, two NaNs count as equal whatever their
// sign and payload: an add or multiply of two NaNs returns either operand's
// NaN depending on which operand order the compiler emits (vectorised code
// may commute them), and neither XLA nor IEEE fixes which.
template <typename T>
std::string FirstDifference(const Literal& got, const Literal& want,
                            bool any_nan) {
  if (got.size_bytes() != want.size_bytes())
    return "sizes differ: " + std::to_string(got.size_bytes()) + " vs " +
           std::to_string(want.size_bytes());
  const size_t n = want.size_bytes() / sizeof(T);
  const T* a = static_cast<const T*>(got.data());
  const T* b = static_cast<const T*>(want.data());
  for (size_t i = 0; i < n; ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) == 0) continue;
    if constexpr (std::is_floating_point_v<T>)
      if (any_nan && std::isnan(a[i]) && std::isnan(b[i])) continue;
    std::ostringstream out;
    out.precision(std::numeric_limits<T>::max_digits10);
    out << "element " << i << ": " << +a[i] << " vs " << +b[i];
    return out.str();
  }
  return "";
}

}  // namespace xffi::cpu::testing_util

#endif  // XFFI_TESTS_CPP_POOL_TEST_UTIL_H_
