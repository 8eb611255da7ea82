#include "cpu/math_functions.h"

#include <math.h>  // lgamma_r: std::lgamma writes the global signgam

#include <cmath>
#include <limits>
#include <numbers>

namespace xffi::cpu {
namespace {

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011):
// erfinv(y) = y * p(w) for w = -log(1 - y^2), a single-precision
// approximation (the double path refines it with Newton steps).
template <typename T>
T GilesPolynomial(T w) {
  T p;
  if (w < T(5)) {
    w -= T(2.5);
    p = T(2.81022636e-08);
    p = T(3.43273939e-07) + p * w;
    p = T(-3.5233877e-06) + p * w;
    p = T(-4.39150654e-06) + p * w;
    p = T(0.00021858087) + p * w;
    p = T(-0.00125372503) + p * w;
    p = T(-0.00417768164) + p * w;
    p = T(0.246640727) + p * w;
    p = T(1.50140941) + p * w;
  } else {
    w = std::sqrt(w) - T(3);
    p = T(-0.000200214257);
    p = T(0.000100950558) + p * w;
    p = T(0.00134934322) + p * w;
    p = T(-0.00367342844) + p * w;
    p = T(0.00573950773) + p * w;
    p = T(-0.0076224613) + p * w;
    p = T(0.00943887047) + p * w;
    p = T(1.00167406) + p * w;
    p = T(2.83297682) + p * w;
  }
  return p;
}

double ErfInvEstimate(double y) {
  return GilesPolynomial(-std::log((1.0 - y) * (1.0 + y))) * y;
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

// The f32 form is XLA's (and JAX's erf_inv expansion): Giles' polynomial
// in w = -log1p(-y^2), evaluated in float with no Newton refinement. It is
// what jax.random.normal computes through, and a few times cheaper than
// the refined double path; +-1 give +-inf, |y| > 1 and NaN give NaN.
float ErfInv(float y) {
  const float a = std::fabs(y);
  if (!(a <= 1.0f)) return std::numeric_limits<float>::quiet_NaN();
  if (a == 1.0f) return y * std::numeric_limits<float>::infinity();
  return GilesPolynomial(-std::log1p(-y * y)) * y;
}

// libm's lgamma classifies its argument by its bits, which the DAZ mode
// does not touch: adding zero is arithmetic, so a subnormal reads as zero
// (lgamma(+-0) = inf) when an execution flushes subnormals, as under XLA.
double Lgamma(double x) {
  int sign;
  return ::lgamma_r(x + 0.0, &sign);
}

float Lgamma(float x) {
  int sign;
  return ::lgammaf_r(x + 0.0f, &sign);
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

double BesselI1e(double x) {
  if (std::isnan(x)) return x;
  const double a = std::fabs(x);
  double value;
  if (a < 700.0) {
    value = std::cyl_bessel_i(1.0, a) * std::exp(-a);
  } else {
    // The asymptotic series; I1 itself would overflow.
    const double t = 1.0 / (8.0 * a);
    value =
        (1.0 - 3.0 * t - 7.5 * t * t) / std::sqrt(2.0 * std::numbers::pi * a);
  }
  return x < 0 ? -value : value;
}

float BesselI1e(float x) { return static_cast<float>(BesselI1e(double{x})); }

namespace {

// chlo.zeta as JAX lowers it (StableHLO's chlo decomposition, which XLA's
// own builder library shares): q^-x plus nine more direct terms, then an
// Euler-Maclaurin tail from a = q + 10 with twelve Bernoulli corrections in
// Horner form. The term count is fixed, so the cost is the same for every
// q, and a negative q is summed across zero exactly as XLA sums it. The
// arithmetic runs in T itself, in XLA's order, so f32 rounds as XLA's f32.
template <typename T>
T ZetaInType(T x, T q) {
  // (2k)! / B_2k for k = 12 down to 1 (the Bernoulli numbers B_2k).
  constexpr double kFactorialOverBernoulli[] = {-7.1661652561756670113e18,
                                                1.8152105401943546773e17,
                                                -4.5979787224074726105e15,
                                                1.1646782814350067249e14,
                                                -2.950130727918164224e12,
                                                7.47242496e10,
                                                -1.8924375803183791606e9,
                                                47900160.0,
                                                -1209600.0,
                                                30240.0,
                                                -720.0,
                                                12.0};
  constexpr int kDirectTerms = 9;
  constexpr T kInf = std::numeric_limits<T>::infinity();
  constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();
  const T one = T(1);
  // XLA selects these over the series value, x == 1 over a pole.
  if (x == one) return kInf;
  const bool q_non_positive = q <= T(0);
  if (q_non_positive && q == std::floor(q)) {
    // At a pole the terms diverge to +inf only when every (k + q)^-x is
    // positive, i.e. for an even integer x.
    const bool x_even_integer =
        x == std::floor(x) && std::fmod(x, T(2)) == T(0);
    return x_even_integer ? kInf : kNaN;
  }
  // (k + q)^-x of a negative base is real only for an integer x.
  if (q_non_positive && x != std::floor(x)) return kNaN;
  if (x < one) return kNaN;
  const T minus_x = -x;
  T a = q;
  T direct_sum = std::pow(q, minus_x);
  for (int i = 0; i < kDirectTerms; ++i) {
    a += one;
    direct_sum += std::pow(a, minus_x);
  }
  a += one;
  const T tail_term = std::pow(a, minus_x);
  const T inverse_square = one / (a * a);
  T horner = T(0);
  constexpr int kHornerTerms = 11;
  for (int i = 0; i < kHornerTerms; ++i) {
    const T rising = (x + T(22 - 2 * i)) * (x + T(21 - 2 * i));
    horner = rising *
             (inverse_square * (horner + T(1.0 / kFactorialOverBernoulli[i])));
  }
  // XLA would keep the bare direct sum when the tail is below |sum| times
  // the smallest subnormal; under the flushed subnormals JAX runs with,
  // that product is zero and the test never passes, so the Euler-Maclaurin
  // value is always the result (even where it is NaN for a huge x).
  return (direct_sum + tail_term * a / (x - one)) +
         tail_term *
             (x / a *
                  (horner + T(1.0 / kFactorialOverBernoulli[kHornerTerms])) +
              T(0.5));
}

// chlo.polygamma's decomposition: digamma for n == 0, otherwise
// (-1)^(n+1) n! zeta(n + 1, x) with n! as exp(lgamma(n + 1)), NaN unless n
// is a non-negative integer.
template <typename T>
T PolygammaInType(T n, T x) {
  if (n != std::floor(n) || n < T(0))
    return std::numeric_limits<T>::quiet_NaN();
  if (n == T(0)) return Digamma(x);
  const T n_plus_one = n + T(1);
  const T sign = T(2) * std::fmod(n, T(2)) - T(1);
  return sign * std::exp(Lgamma(n_plus_one)) * ZetaInType(n_plus_one, x);
}

}  // namespace

double Zeta(double x, double q) { return ZetaInType(x, q); }
float Zeta(float x, float q) { return ZetaInType(x, q); }

double Polygamma(double n, double x) { return PolygammaInType(n, x); }
float Polygamma(float n, float x) { return PolygammaInType(n, x); }

}  // namespace xffi::cpu
