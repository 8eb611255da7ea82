// xffi: the special functions behind chlo's erf_inv, lgamma and digamma, and
// a vectorisable single-precision exponential.
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

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_MATH_FUNCTIONS_H_
