// xffi: the chlo special functions libm lacks (or spells differently on the
// host and the GPU), as `__host__ __device__` functions for the device
// kernels (erf_inv, lgamma, digamma). Each gives the CPU backend's result
// within rounding: erf_inv of f32 is XLA's
// single-precision form (Giles' polynomial, no refinement), of f64 that
// estimate refined by Newton steps on erf.
#ifndef XFFI_SRC_DEVICE_BACKEND_SPECIAL_FUNCTIONS_H_
#define XFFI_SRC_DEVICE_BACKEND_SPECIAL_FUNCTIONS_H_

#include <math.h>

#include "xffi/device/functor_kernel.h"

namespace xffi::device_backend {

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
    w = sqrt(w) - T(3);
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

// f32 (and the narrow floats, computed through f32): +-1 give +-inf, NaN
// and |y| > 1 give NaN.
XFFI_HOST_DEVICE inline float ErfInvSingle(float y) {
  const float a = fabsf(y);
  if (!(a <= 1.0f)) return nanf("");
  if (a == 1.0f) return y * HUGE_VALF;
  return ErfInvPolynomial<float>(-log1pf(-y * y)) * y;
}

XFFI_HOST_DEVICE inline double ErfInvDouble(double y) {
  if (y != y || y < -1.0 || y > 1.0) return nan("");
  if (y == 1.0) return HUGE_VAL;
  if (y == -1.0) return -HUGE_VAL;
  if (y == 0.0) return y;
  const double a = fabs(y);
  double x = ErfInvPolynomial<double>(-log((1.0 - a) * (1.0 + a))) * a;
  // Newton on erf(x) = a; above 0.5 the residual goes through erfc, where
  // 1 - a is exact, so the tail keeps its precision.
  const double two_over_sqrt_pi = 1.1283791670955126;
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

// lgamma without the global signgam the host's lgamma writes (a data race
// between SimDevice's threads).
XFFI_HOST_DEVICE inline double LogGamma(double x) {
#if defined(__CUDA_ARCH__)
  return lgamma(x);
#else
  int sign;
  return lgamma_r(x, &sign);
#endif
}

// psi(x), the logarithmic derivative of gamma: NaN at the poles (zero and
// the negative integers) and at -inf.
XFFI_HOST_DEVICE inline double Digamma(double x) {
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

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_SPECIAL_FUNCTIONS_H_
