/* xffi: registration macros for legacy custom-call targets.
 *
 *   XFFI_REGISTER_CUSTOM_CALL_TARGET(fn, "Host")        registers fn as "fn"
 *   XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("name", fn, "CUDA")
 *   XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(fn)            platform "Host"
 *   XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("name", fn)
 * and the same macros under XLA's XLA_ spellings (unless XLA's own header
 * defined them first), so targets written for XLA port by changing the
 * include.
 *
 * Why a weak reference: a handler library must load into XLA as well as into
 * xffi, so it cannot link libxffi. Each macro runs a constructor that calls
 * XFFI_RegisterCustomCallTarget through a weak reference: when libxffi is in
 * the process's global scope (a program linked with it, or a library opened
 * RTLD_GLOBAL) the reference binds to it at load time and the target is
 * registered; elsewhere (inside JAX) it stays null and the constructor does
 * nothing, and XLA users register the exported function themselves
 * (jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(lib.fn),
 * api_version=0)). This is the same choice ffi.h makes for typed handlers
 * (a weak XLA_FFI_GetApi); XLA's API table has no legacy registration slot
 * that a weak XLA_FFI_GetApi could reach instead.
 *
 * In C++ the macros also record the target's calling convention, read from
 * the function's parameter count (see xffi/runtime/legacy.h), so a call site
 * with a different api_version is refused instead of crashing. In C the
 * convention is left to the call site.
 *
 * Works from C and C++ (GCC or Clang). A failed registration (a conflicting
 * target) is reported by the plugin loader when it happens while a plugin is
 * opened, and printed to stderr otherwise. */
#ifndef XFFI_CUSTOM_CALL_TARGET_H_
#define XFFI_CUSTOM_CALL_TARGET_H_

#include "xffi/custom_call_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libxffi. api_version 0 infers the version from num_params (the
 * function's parameter count; 0 when unknown). Returns an
 * XLA_FFI_Error_Code (0 on success). */
__attribute__((weak)) int XFFI_RegisterCustomCallTarget(const char* name,
                                                        void* function,
                                                        const char* platform,
                                                        int api_version,
                                                        int num_params);

#ifdef __cplusplus
}

namespace xffi::legacy_internal {

template <typename R, typename... Params>
constexpr int Arity(R (*)(Params...)) {
  return static_cast<int>(sizeof...(Params));
}
template <typename R, typename... Params>
constexpr int Arity(R (*)(Params...) noexcept) {
  return static_cast<int>(sizeof...(Params));
}

template <typename R, typename... Params>
void* Address(R (*function)(Params...)) {
  return reinterpret_cast<void*>(function);
}
template <typename R, typename... Params>
void* Address(R (*function)(Params...) noexcept) {
  return reinterpret_cast<void*>(function);
}

}  // namespace xffi::legacy_internal

#define XFFI_LEGACY_ARITY_(function) ::xffi::legacy_internal::Arity(&(function))
#define XFFI_LEGACY_ADDRESS_(function) \
  ::xffi::legacy_internal::Address(&(function))
#else
#define XFFI_LEGACY_ARITY_(function) 0
#define XFFI_LEGACY_ADDRESS_(function) ((void*)(function))
#endif

#define XFFI_LEGACY_CONCAT_(a, b) a##b
#define XFFI_LEGACY_NAME_(n) \
  XFFI_LEGACY_CONCAT_(xffi_register_legacy_target_, n)

#define XFFI_LEGACY_REGISTER_(n, symbol, function, platform)                \
  __attribute__((constructor)) static void XFFI_LEGACY_NAME_(n)(void) {     \
    if (XFFI_RegisterCustomCallTarget) {                                    \
      XFFI_RegisterCustomCallTarget(symbol, XFFI_LEGACY_ADDRESS_(function), \
                                    platform, 0,                            \
                                    XFFI_LEGACY_ARITY_(function));          \
    }                                                                       \
  }

#define XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM(symbol, function, platform) \
  XFFI_LEGACY_REGISTER_(__COUNTER__, symbol, function, platform)
#define XFFI_REGISTER_CUSTOM_CALL_TARGET(function, platform) \
  XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM(#function, function, platform)
#define XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM(symbol, function) \
  XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM(symbol, function, "Host")
#define XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(function) \
  XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM(#function, function)

#ifndef XLA_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM
#define XLA_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM \
  XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM
#endif
#ifndef XLA_REGISTER_CUSTOM_CALL_TARGET
#define XLA_REGISTER_CUSTOM_CALL_TARGET XFFI_REGISTER_CUSTOM_CALL_TARGET
#endif
#ifndef XLA_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM
#define XLA_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM \
  XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM
#endif
#ifndef XLA_CPU_REGISTER_CUSTOM_CALL_TARGET
#define XLA_CPU_REGISTER_CUSTOM_CALL_TARGET XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET
#endif

#endif /* XFFI_CUSTOM_CALL_TARGET_H_ */
