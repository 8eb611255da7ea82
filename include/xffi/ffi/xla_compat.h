// XLA's macro spellings, mapped onto xffi's, so code ported from XLA keeps
// its macro calls. They are macros, so a program may also contain
// translation units built with XLA's own header; one translation unit cannot
// include both, and this header refuses to.
#ifndef XFFI_FFI_XLA_COMPAT_H_
#define XFFI_FFI_XLA_COMPAT_H_

#include "xffi/ffi/macros.h"

#if defined(XLA_FFI_API_API_H_) || defined(XLA_FFI_API_FFI_H_)
#error "xffi/ffi.h and XLA's xla/ffi/api/ffi.h cannot share a translation unit"
#endif

#ifndef XFFI_NO_XLA_MACROS
#define XLA_FFI_DEFINE_HANDLER(fn, impl, ...) \
  XFFI_DEFINE_HANDLER(fn, impl, ##__VA_ARGS__)
#define XLA_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, ...) \
  XFFI_DEFINE_HANDLER_SYMBOL(fn, impl, ##__VA_ARGS__)
#define XLA_FFI_DECLARE_HANDLER_SYMBOL(fn) XFFI_DECLARE_HANDLER_SYMBOL(fn)
#define XLA_FFI_REGISTER_HANDLER(api, name, platform, ...) \
  XFFI_REGISTER_HANDLER(api, name, platform, __VA_ARGS__)
#define XLA_FFI_REGISTER_TYPE(api, name, ...) \
  XFFI_REGISTER_TYPE(api, name, __VA_ARGS__)
#define XLA_FFI_REGISTER_ENUM_ATTR_DECODING(T) \
  XFFI_REGISTER_ENUM_ATTR_DECODING(T)
#define XLA_FFI_REGISTER_STRUCT_ATTR_DECODING(T, ...) \
  XFFI_REGISTER_STRUCT_ATTR_DECODING(T, __VA_ARGS__)
#endif

#endif  // XFFI_FFI_XLA_COMPAT_H_
