// xffi: comparing results with expected values (`xffi run --expect`, the
// corpus test).
//
// Integers, booleans and raw types must match exactly. Floats (and each
// half of a complex) match when |got - want| <= tolerance * (1 + |want|);
// NaN must meet NaN and an infinity the same infinity. The default
// tolerance is about 100 ulp of the type at 1.0 for f32 and f64 (1e-5,
// 1e-12) and two ulp for the 16-bit types (f16 2e-3, bf16 1.6e-2; one
// rounding of an intermediate already costs one): enough for another
// summation order or a libm that differs from XLA's polynomial
// approximations by a few ulp, far too little to hide a wrong op, index or
// rounding mode.
#ifndef XFFI_CLI_COMPARE_H_
#define XFFI_CLI_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "xffi/program/literal.h"

namespace xffi {

double DefaultTolerance(ElementType type);

struct Comparison {
  bool ok = true;
  int64_t mismatches = 0;
  double max_error = 0;  // largest |got - want| over the float elements
  // Empty when ok; else the shape difference or the first mismatches:
  // "3 of 16 elements differ: [2] 1.5 vs 1.25; ...".
  std::string detail;
};

Comparison CompareLiterals(const Literal& got, const Literal& want,
                           std::optional<double> tolerance = std::nullopt);

}  // namespace xffi

#endif  // XFFI_CLI_COMPARE_H_
