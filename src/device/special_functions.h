// xffi: the special functions behind chlo's erf_inv, lgamma, digamma,
// bessel_i1e, zeta and polygamma, written once for both backends.
//
// The CPU backend's kernels (cpu/elementwise_ops.h, and by address the
// generated code's calls, cpu/codegen/runtime_symbols.cc) and the device
// backend's functors (device_backend/device_kernels.h, which nvcc compiles
// in device_kernels.cu and SimDevice runs by their host code) call these
// same templates, so the two backends cannot drift apart: on SimDevice an
// op gives the CPU's bits. They sit in the device layer because it is the
// lowest one both backends (peers, which never include each other) may
// include and the one that defines XFFI_HOST_DEVICE; they depend on nothing
// else of it.
//
// T is float or double. Each function computes in T's own precision the way
// the CPU backend has always computed it, and the f16/bf16 kernels of both
// backends call the float form: erf_inv, zeta and polygamma of float are
// XLA's single-precision formulas, digamma and bessel_i1e of float are the
// double result rounded. Only <math.h> functions both compilers provide are
// called (never std::, whose functions are host-only for nvcc), through the
// overloads below so that a float form calls the C library's float function
// (powf, not pow), as std::'s float overloads do.
#ifndef XFFI_SRC_DEVICE_SPECIAL_FUNCTIONS_H_
#define XFFI_SRC_DEVICE_SPECIAL_FUNCTIONS_H_

#include <math.h>  // lgamma_r: std::lgamma writes the global signgam

#include "xffi/device/functor_kernel.h"

namespace xffi::special {
namespace internal {

// <math.h> by precision.
#define XFFI_SPECIAL_MATH1(Name, f32, f64)                       \
  XFFI_HOST_DEVICE inline float Name(float x) { return f32(x); } \
  XFFI_HOST_DEVICE inline double Name(double x) { return f64(x); }
#define XFFI_SPECIAL_MATH2(Name, f32, f64)                                   \
  XFFI_HOST_DEVICE inline float Name(float x, float y) { return f32(x, y); } \
  XFFI_HOST_DEVICE inline double Name(double x, double y) { return f64(x, y); }
XFFI_SPECIAL_MATH1(Floor, floorf, floor)
XFFI_SPECIAL_MATH1(Sqrt, sqrtf, sqrt)
XFFI_SPECIAL_MATH1(Exp, expf, exp)
XFFI_SPECIAL_MATH2(Pow, powf, pow)
XFFI_SPECIAL_MATH2(Fmod, fmodf, fmod)
#undef XFFI_SPECIAL_MATH1
#undef XFFI_SPECIAL_MATH2

template <typename T>
XFFI_HOST_DEVICE inline T Infinity() {
  return static_cast<T>(HUGE_VAL);
}

// The positive quiet NaN (std::numeric_limits' quiet_NaN on the host).
template <typename T>
XFFI_HOST_DEVICE inline T QuietNaN() {
  if constexpr (sizeof(T) == sizeof(float))
    return nanf("");
  else
    return nan("");
}

// M. Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011):
// erfinv(y) ~= y p(w) for w = -log(1 - y^2), in the precision of T.
template <typename T>
XFFI_HOST_DEVICE inline T ErfInvPolynomial(T w) {
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
    w = Sqrt(w) - T(3);
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

XFFI_HOST_DEVICE inline double DigammaDouble(double x) {
  if (x != x || x == -HUGE_VAL) return nan("");
  if (x == HUGE_VAL) return x;
  double result = 0;
  if (x <= 0) {
    if (x == floor(x)) return nan("");
    // Reflection, psi(x) = psi(1 - x) - pi / tan(pi x), with x's integer
    // part taken off first so that pi x keeps its precision.
    const double pi = 3.141592653589793;
    result = -pi / tan(pi * (x - trunc(x)));
    x = 1 - x;
  }
  // psi(x) = psi(x + 1) - 1/x until the asymptotic series is exact.
  for (; x < 10; x += 1) result -= 1 / x;
  // psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k), k = 1..7.
  const double w = 1 / (x * x);
  const double series =
      w *
      (1.0 / 12 -
       w * (1.0 / 120 -
            w * (1.0 / 252 -
                 w * (1.0 / 240 - w * (1.0 / 132 - w * (691.0 / 32760 -
                                                        w * (1.0 / 12)))))));
  return result + log(x) - 0.5 / x - series;
}

XFFI_HOST_DEVICE inline double BesselI1eDouble(double x) {
  if (x != x) return x;
  const double a = fabs(x);
  double value;
  // Below 22 I1's power series; above, Hankel's expansion, whose smallest
  // term (near k = 2a) is about e^-2a of the sum, below double's last bit
  // from there on. Both within 7 ulp of exp(-a) I1(a) (a fine sweep of
  // [0, 22] against 40-digit values), as XLA's Chebyshev fits are.
  if (a <= 22) {
    // exp(-a) I1(a) = exp(-a) sum_k (a/2)^(2k+1) / (k! (k+1)!): every term
    // is positive, so nothing cancels; exp(-a) goes into the first term and
    // the sum stops when a term no longer changes it.
    const double half = 0.5 * a;
    double term = half * exp(-a), sum = term;
    for (double k = 1; term > sum * 0x1p-54; k += 1) {
      term = term * half * half / (k * (k + 1));
      sum += term;
    }
    value = sum;
  } else {
    // exp(-a) I1(a) ~ (2 pi a)^-1/2 sum_k t_k, t_0 = 1,
    // t_k = t_(k-1) ((2k - 1)^2 - 4) / (8 k a).
    const double eighth = 1 / (8 * a);
    double term = 1, sum = 1;
    for (double k = 1; k < 64; k += 1) {
      term *= ((2 * k - 1) * (2 * k - 1) - 4) * eighth / k;
      sum += term;
      if (fabs(term) <= sum * 0x1p-54) break;
    }
    value = sum / sqrt(2 * 3.141592653589793 * a);
  }
  return x < 0 ? -value : value;
}

}  // namespace internal

// The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside and for NaN.
// float is XLA's form (and JAX's erf_inv expansion, what jax.random.normal
// computes through): Giles' polynomial in w = -log1p(-y^2), in float, no
// refinement. double refines that estimate with Newton steps on erf.
template <typename T>
XFFI_HOST_DEVICE inline T ErfInv(T y) {
  using namespace internal;
  if constexpr (sizeof(T) == sizeof(float)) {
    const float a = fabsf(y);
    if (!(a <= 1.0f)) return nanf("");
    if (a == 1.0f) return y * HUGE_VALF;
    return ErfInvPolynomial<float>(-log1pf(-y * y)) * y;
  } else {
    if (y != y || y < -1.0 || y > 1.0) return nan("");
    if (y == 1.0) return HUGE_VAL;
    if (y == -1.0) return -HUGE_VAL;
    if (y == 0.0) return y;
    const double a = fabs(y);
    const double w = -log((1.0 - a) * (1.0 + a));
    double x = ErfInvPolynomial<double>(w) * a;
    const double two_over_sqrt_pi = 1.1283791670955126;
    // Beyond float's range of 1 - a (w > 16, 1 - a < 6e-8) the estimate,
    // a single-precision fit, is too rough for the Newton steps below:
    // where erfc falls like exp(-x^2) they gain little each, and four left
    // erf_inv(1 - 1e-15) 1% short. Newton on log(erfc(x)) = log(1 - a),
    // nearly quadratic in x there, first brings it within 2^-20.
    if (w > 16) {
      const double target = log(1.0 - a);
      for (int step = 0; step < 8; ++step) {
        const double tail = erfc(x);
        if (tail == 0) break;
        const double residual = log(tail) - target;
        if (fabs(residual) < 0x1p-20) break;
        x += residual * tail / (two_over_sqrt_pi * exp(-x * x));
      }
    }
    // Newton on erf(x) = a; above 0.5 the residual goes through erfc, where
    // 1 - a is exact, so the tail keeps its precision.
    for (int step = 0; step < 4; ++step) {
      const double residual = a > 0.5 ? (1.0 - a) - erfc(x) : erf(x) - a;
      const double slope = two_over_sqrt_pi * exp(-x * x);
      if (slope == 0) break;
      const double next = x - residual / slope;
      if (next == x) break;
      x = next;
    }
    return y < 0 ? -x : x;
  }
}

// log|Gamma(x)|: +inf at the poles (0 and the negative integers). The C
// library's (the GPU's on the device), never the lgamma that writes the
// global signgam, a data race between the pool's threads. Adding zero is
// arithmetic, so where an execution flushes subnormals (as XLA:CPU does) a
// subnormal reads as zero (lgamma(+-0) = inf); the library classifies its
// argument by its bits, which the flush mode does not touch.
template <typename T>
XFFI_HOST_DEVICE inline T Lgamma(T x) {
  x = x + T(0);
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float))
    return lgammaf(x);
  else
    return lgamma(x);
#else
  int sign;
  if constexpr (sizeof(T) == sizeof(float))
    return lgammaf_r(x, &sign);
  else
    return lgamma_r(x, &sign);
#endif
}

// psi(x), the logarithmic derivative of Gamma: NaN at the poles (zero and
// the negative integers) and at -inf, as XLA's lowering of chlo.digamma
// gives. Computed in double for both types.
template <typename T>
XFFI_HOST_DEVICE inline T Digamma(T x) {
  return static_cast<T>(internal::DigammaDouble(static_cast<double>(x)));
}

// exp(-|x|) I1(x), the exponentially scaled modified Bessel function of
// order one (odd in x; +0 at both zeros, +-0 at +-inf). Computed in double
// for both types.
template <typename T>
XFFI_HOST_DEVICE inline T BesselI1e(T x) {
  return static_cast<T>(internal::BesselI1eDouble(static_cast<double>(x)));
}

// The Hurwitz zeta function sum_k (k + q)^-x as JAX lowers chlo.zeta
// (StableHLO's chlo decomposition, which XLA's own builder library shares):
// q^-x plus nine more direct terms, then an Euler-Maclaurin tail from
// a = q + 10 with twelve Bernoulli corrections in Horner form. The term
// count is fixed, so the cost is the same for every q, and a negative q is
// summed across zero exactly as XLA sums it. The arithmetic runs in T, in
// XLA's order, so float rounds as XLA's f32. +inf at x = 1; at a
// non-positive integer q, +inf for an even integer x and NaN otherwise; NaN
// for x < 1 and for q <= 0 with a non-integer x.
template <typename T>
XFFI_HOST_DEVICE inline T Zeta(T x, T q) {
  using namespace internal;
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
  const T one = T(1);
  // XLA selects these over the series value, x == 1 over a pole.
  if (x == one) return Infinity<T>();
  const bool q_non_positive = q <= T(0);
  if (q_non_positive && q == Floor(q)) {
    // At a pole the terms diverge to +inf only when every (k + q)^-x is
    // positive, i.e. for an even integer x.
    const bool x_even_integer = x == Floor(x) && Fmod(x, T(2)) == T(0);
    return x_even_integer ? Infinity<T>() : QuietNaN<T>();
  }
  // (k + q)^-x of a negative base is real only for an integer x.
  if (q_non_positive && x != Floor(x)) return QuietNaN<T>();
  if (x < one) return QuietNaN<T>();
  const T minus_x = -x;
  T a = q;
  T direct_sum = Pow(q, minus_x);
  for (int i = 0; i < kDirectTerms; ++i) {
    a += one;
    direct_sum += Pow(a, minus_x);
  }
  a += one;
  const T tail_term = Pow(a, minus_x);
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

// The n-th derivative of digamma as chlo.polygamma decomposes: digamma for
// n == 0, otherwise (-1)^(n+1) n! zeta(n + 1, x) with n! as
// exp(lgamma(n + 1)), in T; NaN unless n is a non-negative integer.
template <typename T>
XFFI_HOST_DEVICE inline T Polygamma(T n, T x) {
  using namespace internal;
  if (n != Floor(n) || n < T(0)) return QuietNaN<T>();
  if (n == T(0)) return Digamma(x);
  const T n_plus_one = n + T(1);
  const T sign = T(2) * Fmod(n, T(2)) - T(1);
  return sign * Exp(Lgamma(n_plus_one)) * Zeta(n_plus_one, x);
}

}  // namespace xffi::special

#endif  // XFFI_SRC_DEVICE_SPECIAL_FUNCTIONS_H_
