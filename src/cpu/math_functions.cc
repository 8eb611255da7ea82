#include "cpu/math_functions.h"

#include <math.h>  // lgamma_r: std::lgamma writes the global signgam

#include <cmath>
#include <limits>
#include <numbers>

namespace xffi::cpu {
namespace {

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011):
// a single-precision starting point that Newton steps then refine.
double ErfInvEstimate(double y) {
  double w = -std::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}

}  // namespace

double ErfInv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0)
    return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  if (y == 0.0) return y;
  const double a = std::fabs(y);
  double x = ErfInvEstimate(a);
  // Newton on erf(x) - a. Near 1 the residual is taken through erfc, where
  // 1 - a is exact, so the steps keep their precision in the tail.
  const double kTwoOverSqrtPi = 2.0 / std::sqrt(std::numbers::pi);
  for (int step = 0; step < 4; ++step) {
    double residual = a > 0.5 ? (1.0 - a) - std::erfc(x) : std::erf(x) - a;
    double slope = kTwoOverSqrtPi * std::exp(-x * x);
    if (slope == 0) break;
    double next = x - residual / slope;
    if (next == x) break;
    x = next;
  }
  return y < 0 ? -x : x;
}

float ErfInv(float y) { return static_cast<float>(ErfInv(double{y})); }

double Lgamma(double x) {
  int sign;
  return ::lgamma_r(x, &sign);
}

float Lgamma(float x) {
  int sign;
  return ::lgammaf_r(x, &sign);
}

double Digamma(double x) {
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity())
    return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  double result = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), with x reduced to
    // (-1, 1) first so pi x stays exact enough for tan.
    double reduced = x - std::trunc(x);
    result = -std::numbers::pi / std::tan(std::numbers::pi * reduced);
    x = 1.0 - x;
  }
  // Recurrence psi(x) = psi(x + 1) - 1/x up to where the asymptotic series
  // converges to double precision.
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double inv2 = 1.0 / (x * x);
  // Bernoulli terms: sum B_2k / (2k x^2k), k = 1..7.
  double series =
      inv2 *
      (1.0 / 12 -
       inv2 *
           (1.0 / 120 -
            inv2 * (1.0 / 252 -
                    inv2 * (1.0 / 240 -
                            inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 -
                                                        inv2 * (1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x - series;
}

float Digamma(float x) { return static_cast<float>(Digamma(double{x})); }

}  // namespace xffi::cpu
