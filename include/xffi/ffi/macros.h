// Macros that define and register handlers and types. The binding is the
// macro's variadic tail, so `Buffer<F32, 2>` inside it needs no parentheses.
#ifndef XFFI_FFI_MACROS_H_
#define XFFI_FFI_MACROS_H_

#include <cstdio>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "xffi/ffi/api.h"

namespace xffi::ffi::internal {

// `call` invokes the implementation (a lambda the macros wrap around it, so
// the call inlines); `impl` itself is only looked at for its signature.
template <typename Call, typename Impl>
auto MakeHandler(Call call, Impl) {
  using Args = typename FnTraits<std::decay_t<Impl>>::Args;
  return BindToImpl<ExecutionStage::kExecute, Call, Args>::Make(std::move(call),
                                                                0);
}

// The binding may be a temporary or, as XLA's macros allow, a named one.
template <typename Call, typename Impl, typename BindingType>
auto MakeHandler(Call call, Impl, BindingType&& binding,
                 std::initializer_list<Traits> traits = {}) {
  return binding.To(std::move(call), traits);
}

inline bool ReportRegistration(const XLA_FFI_Api* api, XLA_FFI_Error* error,
                               const char* what, std::string_view name,
                               std::string_view platform) {
  if (error == nullptr) return true;
  Error taken = TakeError(api, error);
  std::fprintf(stderr, "xffi: cannot register %s '%.*s'%s%.*s: %s\n", what,
               static_cast<int>(name.size()), name.data(),
               platform.empty() ? "" : " for platform ",
               static_cast<int>(platform.size()), platform.data(),
               taken.message().c_str());
  return false;
}

inline bool RegisterHandlerOrReport(const XLA_FFI_Api* api,
                                    std::string_view name,
                                    std::string_view platform,
                                    XLA_FFI_Handler* execute,
                                    XLA_FFI_Handler_Traits traits = 0) {
  if (api == nullptr) return false;
  return ReportRegistration(
      api, Ffi::RegisterStaticHandler(api, name, platform, execute, traits),
      "handler", name, platform);
}

inline bool RegisterHandlerOrReport(const XLA_FFI_Api* api,
                                    std::string_view name,
                                    std::string_view platform,
                                    XLA_FFI_Handler_Bundle bundle,
                                    XLA_FFI_Handler_Traits traits = 0) {
  if (api == nullptr) return false;
  return ReportRegistration(
      api, Ffi::RegisterStaticHandler(api, name, platform, bundle, traits),
      "handler", name, platform);
}

inline bool RegisterTypeOrReport(const XLA_FFI_Api* api, std::string_view name,
                                 TypeId* type_id,
                                 const XLA_FFI_TypeInfo* type_info = nullptr) {
  if (api == nullptr) return false;
  return ReportRegistration(api, RegisterType(api, name, type_id, type_info),
                            "type", name, "");
}

// The runtime copies what it needs from the type info during registration,
// so a temporary (MakeTypeInfo<T>()) is fine.
inline bool RegisterTypeOrReport(const XLA_FFI_Api* api, std::string_view name,
                                 TypeId* type_id,
                                 const XLA_FFI_TypeInfo& type_info) {
  return RegisterTypeOrReport(api, name, type_id, &type_info);
}

}  // namespace xffi::ffi::internal

#define XFFI_CONCAT_(a, b) a##b
#define XFFI_CONCAT(a, b) XFFI_CONCAT_(a, b)

// A call of `impl` the compiler can inline into the decoder.
#define XFFI_INLINE_CALL_(impl)                                   \
  [](auto&&... xffi_args) -> decltype(auto) {                     \
    return impl(std::forward<decltype(xffi_args)>(xffi_args)...); \
  }

// XFFI_DEFINE_HANDLER(fn, impl[, binding[, {traits...}]]): a static
// `XLA_FFI_Handler* fn`. Without a binding, it is read off impl's signature.
#define XFFI_DEFINE_HANDLER(fn, impl, ...)                                \
  static constexpr XLA_FFI_Handler* fn =                                  \
      +[](XLA_FFI_CallFrame* xffi_call_frame) -> XLA_FFI_Error* {         \
    static const auto* xffi_handler =                                     \
        ::xffi::ffi::internal::MakeHandler(XFFI_INLINE_CALL_(impl), impl, \
                                           ##__VA_ARGS__)                 \
            .release();                                                   \
    return xffi_handler->Call(xffi_call_frame);                           \
  }

// An exported `extern "C"` handler symbol `fn`, plus the marker symbol that
// lets tools list the library's handlers without calling anything.
#define XFFI_DEFINE_HANDLER_SYMBOL(fn, impl, ...)                         \
  extern "C" XFFI_EXPORT XLA_FFI_Error* fn(                               \
      XLA_FFI_CallFrame* xffi_call_frame) {                               \
    static const auto* xffi_handler =                                     \
        ::xffi::ffi::internal::MakeHandler(XFFI_INLINE_CALL_(impl), impl, \
                                           ##__VA_ARGS__)                 \
            .release();                                                   \
    return xffi_handler->Call(xffi_call_frame);                           \
  }                                                                       \
  extern "C" XFFI_EXPORT XLA_FFI_Handler* const xffi_export_##fn = fn

#define XFFI_DECLARE_HANDLER_SYMBOL(fn) \
  extern "C" XLA_FFI_Error* fn(XLA_FFI_CallFrame* call_frame)

// The three forms XFFI_DEFINE_HANDLER chooses between, under their own names
// as XLA has them: explicit binding (with traits), or inferred.
#define XFFI_DEFINE_HANDLER_EXPLICIT_WITH_TRAITS(fn, impl, binding, traits) \
  XFFI_DEFINE_HANDLER(fn, impl, binding, traits)
#define XFFI_DEFINE_HANDLER_EXPLICIT(fn, impl, binding) \
  XFFI_DEFINE_HANDLER(fn, impl, binding)
#define XFFI_DEFINE_HANDLER_AUTO(fn, impl) XFFI_DEFINE_HANDLER(fn, impl)

// Declarations of the C functions a library exports for a type that user
// data or state use (JAX's register_ffi_type takes them as capsules); the
// library defines them, returning &T::id and a static MakeTypeInfo<T>().
#define XFFI_DECLARE_TYPE_ID_SYMBOL(type_id_fn) \
  extern "C" XLA_FFI_TypeId* type_id_fn()
#define XFFI_DECLARE_TYPE_INFO_SYMBOL(type_info_fn) \
  extern "C" const XLA_FFI_TypeInfo* type_info_fn()

// Registers `fn` (a handler or a bundle) with `api` from a static
// initializer; a failure is printed to stderr, naming the handler.
#define XFFI_REGISTER_HANDLER(api, name, platform, ...)                    \
  [[maybe_unused]] static const bool XFFI_CONCAT(xffi_handler_registered_, \
                                                 __COUNTER__) =            \
      ::xffi::ffi::internal::RegisterHandlerOrReport(api, name, platform,  \
                                                     __VA_ARGS__)

// Registers into the xffi runtime when libxffi is in the process; does
// nothing otherwise (for instance inside JAX).
#define XFFI_REGISTER_HANDLER_WITH_RUNTIME(name, platform, ...) \
  XFFI_REGISTER_HANDLER(::xffi::ffi::RuntimeApi(), name, platform, __VA_ARGS__)

// XFFI_REGISTER_TYPE(api, name, &T::id[, &type_info or MakeTypeInfo<T>()])
#define XFFI_REGISTER_TYPE(api, name, ...)                              \
  [[maybe_unused]] static const bool XFFI_CONCAT(xffi_type_registered_, \
                                                 __COUNTER__) =         \
      ::xffi::ffi::internal::RegisterTypeOrReport(api, name, __VA_ARGS__)

#endif  // XFFI_FFI_MACROS_H_
