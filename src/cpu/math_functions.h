// xffi: the special functions behind chlo's erf_inv, lgamma, digamma,
// bessel_i1e, zeta and polygamma.
#ifndef XFFI_SRC_CPU_MATH_FUNCTIONS_H_
#define XFFI_SRC_CPU_MATH_FUNCTIONS_H_

namespace xffi::cpu {

// The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside.
double ErfInv(double y);
float ErfInv(float y);

// log|Gamma(x)|: +inf at the poles (0 and the negative integers).
double Lgamma(double x);
float Lgamma(float x);

// The logarithmic derivative of Gamma: NaN at the poles, as XLA's lowering
// of chlo.digamma gives.
double Digamma(double x);
float Digamma(float x);

// exp(-|x|) I1(x), the exponentially scaled modified Bessel function of
// order one (odd in x).
double BesselI1e(double x);
float BesselI1e(float x);

// The Hurwitz zeta function sum_k (k + q)^-x, computed as XLA computes it
// (ten direct terms and an Euler-Maclaurin tail, the same work for any q):
// +inf at x = 1; at a non-positive integer q, +inf for even integer x and
// NaN otherwise; NaN for x < 1 and for q <= 0 with non-integer x.
double Zeta(double x, double q);
float Zeta(float x, float q);

// The n-th derivative of digamma (n a non-negative integer, else NaN).
double Polygamma(double n, double x);
float Polygamma(float n, float x);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_MATH_FUNCTIONS_H_
