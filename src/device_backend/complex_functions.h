// xffi: complex elementary functions for the device kernels, written as
// `__host__ __device__` functions on (re, im) double pairs, so nvcc and the
// host compiler build the same arithmetic (std::complex is host-only).
//
// A c64 value is computed in double and rounded when stored, so these are at
// least as accurate as the CPU backend's std::complex<float> results. The
// inverse functions are their principal branches through log and sqrt
// (C99 Annex G's definitions); the signs of zeros on the branch cuts
// themselves may differ from glibc's.
#ifndef XFFI_SRC_DEVICE_BACKEND_COMPLEX_FUNCTIONS_H_
#define XFFI_SRC_DEVICE_BACKEND_COMPLEX_FUNCTIONS_H_

#include <math.h>

#include "xffi/device/functor_kernel.h"

namespace xffi::device_backend {

struct ComplexPair {
  double re = 0;
  double im = 0;
};

XFFI_HOST_DEVICE inline ComplexPair CAdd(ComplexPair a, ComplexPair b) {
  return {a.re + b.re, a.im + b.im};
}

XFFI_HOST_DEVICE inline ComplexPair CSub(ComplexPair a, ComplexPair b) {
  return {a.re - b.re, a.im - b.im};
}

XFFI_HOST_DEVICE inline ComplexPair CMul(ComplexPair a, ComplexPair b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// Smith's method: scaling by the larger part of b avoids overflow. By zero,
// C99 Annex G's recovery (as the CPU's std::complex divides): a times an
// infinity of b's real sign, so 1 / 0 is (inf, nan).
XFFI_HOST_DEVICE inline ComplexPair CDiv(ComplexPair a, ComplexPair b) {
  if (b.re == 0 && b.im == 0 && (a.re == a.re || a.im == a.im)) {
    const double infinity = copysign(HUGE_VAL, b.re);
    return {infinity * a.re, infinity * a.im};
  }
  if (fabs(b.re) >= fabs(b.im)) {
    const double ratio = b.im / b.re, scale = b.re + b.im * ratio;
    return {(a.re + a.im * ratio) / scale, (a.im - a.re * ratio) / scale};
  }
  const double ratio = b.re / b.im, scale = b.re * ratio + b.im;
  return {(a.re * ratio + a.im) / scale, (a.im * ratio - a.re) / scale};
}

// i·z and -i·z: the rotations that turn trig into hyperbolic functions.
XFFI_HOST_DEVICE inline ComplexPair TimesI(ComplexPair z) {
  return {-z.im, z.re};
}
XFFI_HOST_DEVICE inline ComplexPair TimesMinusI(ComplexPair z) {
  return {z.im, -z.re};
}

XFFI_HOST_DEVICE inline ComplexPair CExp(ComplexPair z) {
  const double magnitude = exp(z.re);
  // A real argument stays real (no 0 * inf NaN in the imaginary part).
  if (z.im == 0) return {magnitude, z.im};
  return {magnitude * cos(z.im), magnitude * sin(z.im)};
}

XFFI_HOST_DEVICE inline ComplexPair CLog(ComplexPair z) {
  return {log(hypot(z.re, z.im)), atan2(z.im, z.re)};
}

XFFI_HOST_DEVICE inline ComplexPair CSqrt(ComplexPair z) {
  const double modulus = hypot(z.re, z.im);
  if (modulus == 0) return {0, z.im};
  const double t = sqrt((fabs(z.re) + modulus) * 0.5);
  if (z.re >= 0) return {t, z.im / (2 * t)};
  return {fabs(z.im) / (2 * t), z.im < 0 ? -t : t};
}

// exp(a + bi) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i exp(a) sin b: no
// cancellation near zero.
XFFI_HOST_DEVICE inline ComplexPair CExpm1(ComplexPair z) {
  const double half_sin = sin(z.im / 2);
  return {expm1(z.re) * cos(z.im) - 2 * half_sin * half_sin,
          exp(z.re) * sin(z.im)};
}

// log|1 + z| = log1p(2a + a^2 + b^2) / 2 keeps its precision near zero.
XFFI_HOST_DEVICE inline ComplexPair CLog1p(ComplexPair z) {
  return {log1p(z.re * (2 + z.re) + z.im * z.im) / 2, atan2(z.im, 1 + z.re)};
}

XFFI_HOST_DEVICE inline ComplexPair CSinh(ComplexPair z) {
  return {sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)};
}

XFFI_HOST_DEVICE inline ComplexPair CCosh(ComplexPair z) {
  return {cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)};
}

// Kahan's form, stable where sinh and cosh would overflow: with t = tan b,
// s = sinh a, beta = 1 + t^2, tanh z = (beta s sqrt(1 + s^2) + i t) /
// (1 + beta s^2).
XFFI_HOST_DEVICE inline ComplexPair CTanh(ComplexPair z) {
  if (fabs(z.re) > 22) {  // tanh(a) is +-1 in double; the rest underflows
    const double tiny = 4 * sin(z.im) * cos(z.im) * exp(-2 * fabs(z.re));
    return {z.re > 0 ? 1.0 : -1.0, tiny};
  }
  const double t = tan(z.im), s = sinh(z.re);
  const double beta = 1 + t * t, rho = sqrt(1 + s * s);
  const double denominator = 1 + beta * s * s;
  return {beta * rho * s / denominator, t / denominator};
}

XFFI_HOST_DEVICE inline ComplexPair CSin(ComplexPair z) {
  return TimesMinusI(CSinh(TimesI(z)));
}

XFFI_HOST_DEVICE inline ComplexPair CCos(ComplexPair z) {
  return CCosh(TimesI(z));
}

XFFI_HOST_DEVICE inline ComplexPair CTan(ComplexPair z) {
  return TimesMinusI(CTanh(TimesI(z)));
}

// asinh z = log(z + sqrt(z^2 + 1)), taken on the right half-plane (where
// the sum does not cancel) and reflected: asinh(-z) = -asinh(z).
XFFI_HOST_DEVICE inline ComplexPair CAsinh(ComplexPair z) {
  const bool negative = z.re < 0;
  const ComplexPair w = negative ? ComplexPair{-z.re, -z.im} : z;
  const ComplexPair r =
      CLog(CAdd(w, CSqrt(CAdd(CMul(w, w), ComplexPair{1, 0}))));
  return negative ? ComplexPair{-r.re, -r.im} : r;
}

XFFI_HOST_DEVICE inline ComplexPair CAsin(ComplexPair z) {
  return TimesMinusI(CAsinh(TimesI(z)));
}

// acos z = pi/2 - asin z.
XFFI_HOST_DEVICE inline ComplexPair CAcos(ComplexPair z) {
  const ComplexPair s = CAsin(z);
  return {1.5707963267948966 - s.re, -s.im};
}

// acosh z = log(z + sqrt(z + 1) sqrt(z - 1)) (Kahan's principal branch).
XFFI_HOST_DEVICE inline ComplexPair CAcosh(ComplexPair z) {
  const ComplexPair product = CMul(CSqrt(CAdd(z, ComplexPair{1, 0})),
                                   CSqrt(CSub(z, ComplexPair{1, 0})));
  return CLog(CAdd(z, product));
}

// atanh z = (log1p(z) - log1p(-z)) / 2.
XFFI_HOST_DEVICE inline ComplexPair CAtanh(ComplexPair z) {
  const ComplexPair up = CLog1p(z), down = CLog1p({-z.re, -z.im});
  return {(up.re - down.re) / 2, (up.im - down.im) / 2};
}

XFFI_HOST_DEVICE inline ComplexPair CAtan(ComplexPair z) {
  return TimesMinusI(CAtanh(TimesI(z)));
}

// base^exponent = exp(exponent log base), with XLA's zero base: 0^0 = 1 and
// 0^y = 0 for Re(y) > 0 (the logarithm would give NaN).
XFFI_HOST_DEVICE inline ComplexPair CPow(ComplexPair base,
                                         ComplexPair exponent) {
  if (base.re == 0 && base.im == 0) {
    if (exponent.re == 0 && exponent.im == 0) return {1, 0};
    if (exponent.re > 0) return {0, 0};
  }
  return CExp(CMul(exponent, CLog(base)));
}

// z / |z|, and 0 for 0.
XFFI_HOST_DEVICE inline ComplexPair CSign(ComplexPair z) {
  const double magnitude = hypot(z.re, z.im);
  if (magnitude == 0) return {0, 0};
  return {z.re / magnitude, z.im / magnitude};
}

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_COMPLEX_FUNCTIONS_H_
