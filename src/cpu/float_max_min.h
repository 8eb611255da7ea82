// xffi: XLA's maximum and minimum of two floats, for every evaluator that
// computes them (elementwise kernels, the reduction fast paths, the scalar
// region interpreter), so a reduce gives one answer whichever runs it.
//
// A NaN operand propagates (the first one when both are NaN), and -0 orders
// below +0: max(+0, -0) is +0 in either operand order, as XLA:CPU's own
// emitter gives it. A plain `a > b ? a : b` would return whichever zero came
// second, so a reduction would end with its last zero.
#ifndef XFFI_SRC_CPU_FLOAT_MAX_MIN_H_
#define XFFI_SRC_CPU_FLOAT_MAX_MIN_H_

#include <cmath>

namespace xffi::cpu {

template <typename F>
inline F XlaFloatMax(F a, F b) {
  return (a > b || a != a || (a == b && !std::signbit(a))) ? a : b;
}

template <typename F>
inline F XlaFloatMin(F a, F b) {
  return (a < b || a != a || (a == b && std::signbit(a))) ? a : b;
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_FLOAT_MAX_MIN_H_
