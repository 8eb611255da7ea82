// Scalar subtraction, out = in[0] - in[1] over f32 scalars: the first custom
// call people write (the "custom calls in XLA" blog post's test_subtract_f32),
// in the legacy API version 1 CPU convention. It links no xffi library: in an
// xffi process the macro registers it as "subtract_f32" on Host; in JAX,
// register the exported symbol yourself:
//
//   jax.ffi.register_ffi_target("subtract_f32",
//       jax.ffi.pycapsule(ctypes.cdll.LoadLibrary(path).subtract_f32),
//       platform="cpu", api_version=0)
#include "xffi/custom_call_target.h"

extern "C" __attribute__((visibility("default"))) void subtract_f32(
    void* out, const void** in) {
  const float a = *static_cast<const float*>(in[0]);
  const float b = *static_cast<const float*>(in[1]);
  *static_cast<float*>(out) = a - b;
}

XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(subtract_f32);
