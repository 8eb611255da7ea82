// The functions generated kernels call by name: libm for what has no
// vector approximation, and xffi's own special functions. Bound by address,
// so the JIT never depends on which libraries the process happened to load.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>

#include "cpu/codegen/jit.h"
#include "device/special_functions.h"

namespace xffi::cpu::codegen {
namespace {

using F1 = float (*)(float);
using D1 = double (*)(double);
using F2 = float (*)(float, float);
using D2 = double (*)(double, double);

template <typename Fn>
void* Address(Fn fn) {
  return reinterpret_cast<void*>(fn);
}

// What the template kernels leave to the C library for complex values,
// for kernels that call it per element: exp (cexp) and c64 division
// (__divsc3, as std::complex's operator/ compiles). A c64 result comes back
// as its 8 bytes in an integer register: a call returning a scalar is one
// the loop vectoriser can predicate, one returning <2 x float> is not.
uint64_t PackC64(std::complex<float> z) {
  uint64_t bits;
  static_assert(sizeof z == sizeof bits);
  std::memcpy(&bits, &z, sizeof bits);
  return bits;
}
uint64_t ExpC64(float re, float im) {
  return PackC64(std::exp(std::complex<float>(re, im)));
}
uint64_t DivideC64(float a, float b, float c, float d) {
  return PackC64(std::complex<float>(a, b) / std::complex<float>(c, d));
}
std::complex<double> ExpC128(double re, double im) {
  return std::exp(std::complex<double>(re, im));
}

}  // namespace

const std::vector<std::pair<std::string, void*>>& Jit::RuntimeSymbols() {
  static const std::vector<std::pair<std::string, void*>> symbols = {
#define XFFI_LIBM1(name)                             \
  {#name "f", Address(static_cast<F1>(&::name##f))}, \
      {#name, Address(static_cast<D1>(&::name))}
#define XFFI_LIBM2(name)                               \
  {#name "f", Address(static_cast<F2>(&::name##f))}, { \
#name, Address(static_cast <D2>(&::name))          \
  }
      XFFI_LIBM1(exp),
      XFFI_LIBM1(expm1),
      XFFI_LIBM1(log),
      XFFI_LIBM1(log1p),
      XFFI_LIBM1(sin),
      XFFI_LIBM1(cos),
      XFFI_LIBM1(tan),
      XFFI_LIBM1(tanh),
      XFFI_LIBM1(cbrt),
      XFFI_LIBM1(erf),
      XFFI_LIBM2(pow),
      XFFI_LIBM2(atan2),
      XFFI_LIBM2(fmod),
#undef XFFI_LIBM1
#undef XFFI_LIBM2
      {"xffi_erf_inv_f32", Address(static_cast<F1>(&special::ErfInv<float>))},
      {"xffi_erf_inv_f64", Address(static_cast<D1>(&special::ErfInv<double>))},
      {"xffi_lgamma_f32", Address(static_cast<F1>(&special::Lgamma<float>))},
      {"xffi_lgamma_f64", Address(static_cast<D1>(&special::Lgamma<double>))},
      {"xffi_digamma_f32", Address(static_cast<F1>(&special::Digamma<float>))},
      {"xffi_digamma_f64", Address(static_cast<D1>(&special::Digamma<double>))},
      {"xffi_exp_c64", Address(&ExpC64)},
      {"xffi_divide_c64", Address(&DivideC64)},
      {"xffi_exp_c128", Address(&ExpC128)},
      // sin and cos of the arguments the emitted reduction does not cover,
      // under names LLVM does not know: it turns a pure call of "sinf"
      // into llvm.sin, which it may then run on every lane of a vector
      // (speculated out of the branch that guarded it), and the whole
      // loop ends up calling libm once per element.
      {"xffi_sin_f32", Address(static_cast<F1>(&::sinf))},
      {"xffi_cos_f32", Address(static_cast<F1>(&::cosf))},
      {"xffi_sin_f64", Address(static_cast<D1>(&::sin))},
      {"xffi_cos_f64", Address(static_cast<D1>(&::cos))},
  };
  return symbols;
}

}  // namespace xffi::cpu::codegen
