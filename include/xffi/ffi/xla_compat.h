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
#define XLA_FFI_HAS_BUILTIN(x) XFFI_HAS_BUILTIN(x)
#define XLA_FFI_ATTRIBUTE_ALWAYS_INLINE XFFI_ATTRIBUTE_ALWAYS_INLINE
#define XLA_FFI_ATTRIBUTE_NEVER_INLINE XFFI_ATTRIBUTE_NEVER_INLINE
#define XLA_FFI_PREDICT_TRUE(x) XFFI_LIKELY(x)
#define XLA_FFI_PREDICT_FALSE(x) XFFI_UNLIKELY(x)

#define XLA_FFI_DEFINE_HANDLER(fn, impl, ...) \
  XFFI_DEFINE_HANDLER(fn, impl, ##__VA_ARGS__)
#define XLA_FFI_DEFINE_HANDLER_EXPLICIT_WITH_TRAITS(fn, impl, binding, traits) \
  XFFI_DEFINE_HANDLER_EXPLICIT_WITH_TRAITS(fn, impl, binding, traits)
#define XLA_FFI_DEFINE_HANDLER_EXPLICIT(fn, impl, binding) \
  XFFI_DEFINE_HANDLER_EXPLICIT(fn, impl, binding)
#define XLA_FFI_DEFINE_HANDLER_AUTO(fn, impl) XFFI_DEFINE_HANDLER_AUTO(fn, impl)
#define XLA_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, ...) \
  XFFI_DEFINE_HANDLER_SYMBOL(fn, impl, ##__VA_ARGS__)
#define XLA_FFI_DECLARE_HANDLER_SYMBOL(fn) XFFI_DECLARE_HANDLER_SYMBOL(fn)
#define XLA_FFI_DECLARE_TYPE_ID_SYMBOL(type_id_fn) \
  XFFI_DECLARE_TYPE_ID_SYMBOL(type_id_fn)
#define XLA_FFI_DECLARE_TYPE_INFO_SYMBOL(type_info_fn) \
  XFFI_DECLARE_TYPE_INFO_SYMBOL(type_info_fn)
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
