// Compiler attributes and build-time knobs shared by every ffi/*.h piece.
#ifndef XFFI_FFI_CONFIG_H_
#define XFFI_FFI_CONFIG_H_

#include "xffi/c_api.h"

// The FFI API minor version a handler built with this header reports at the
// registration handshake. 3 is the newest version that jaxlib 0.10 accepts, so
// the default lets one binary load into every JAX from 0.10 on and into xffi.
#ifndef XFFI_TARGET_API_MINOR
#define XFFI_TARGET_API_MINOR 3
#endif

#if XFFI_TARGET_API_MINOR < XFFI_API_MINOR_OLDEST || \
    XFFI_TARGET_API_MINOR > XLA_FFI_API_MINOR
#error "XFFI_TARGET_API_MINOR must lie between 1 and XLA_FFI_API_MINOR"
#endif

#ifdef __has_builtin
#define XFFI_HAS_BUILTIN(x) __has_builtin(x)
#else
#define XFFI_HAS_BUILTIN(x) 0
#endif

#if defined(__GNUC__) || defined(__clang__)
// The bare attributes, placed where XLA's spellings go (before a function's
// declaration, `inline` or not); XFFI_ALWAYS_INLINE adds `inline` itself.
#define XFFI_ATTRIBUTE_ALWAYS_INLINE __attribute__((always_inline))
#define XFFI_ATTRIBUTE_NEVER_INLINE __attribute__((noinline))
#define XFFI_ALWAYS_INLINE inline __attribute__((always_inline))
#define XFFI_NOINLINE __attribute__((noinline))
#define XFFI_COLD __attribute__((noinline, cold))
#define XFFI_LIKELY(x) __builtin_expect(!!(x), 1)
#define XFFI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define XFFI_EXPORT __attribute__((visibility("default")))
#else
#define XFFI_ATTRIBUTE_ALWAYS_INLINE
#define XFFI_ATTRIBUTE_NEVER_INLINE
#define XFFI_ALWAYS_INLINE inline
#define XFFI_NOINLINE
#define XFFI_COLD
#define XFFI_LIKELY(x) (x)
#define XFFI_UNLIKELY(x) (x)
#define XFFI_EXPORT
#endif

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define XFFI_HAS_EXCEPTIONS 1
#else
#define XFFI_HAS_EXCEPTIONS 0
#endif

#endif  // XFFI_FFI_CONFIG_H_
