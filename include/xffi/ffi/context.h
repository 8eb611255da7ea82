// Values a handler takes from its invoke context (`.Ctx<T>()`): stream,
// scratch memory, thread pool, user data, state, run id, device ordinal; and
// the type registration user data and state need.
#ifndef XFFI_FFI_CONTEXT_H_
#define XFFI_FFI_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "xffi/ffi/attrs.h"
#include "xffi/ffi/c_operators.h"
#include "xffi/ffi/diagnostic.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/signature.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

// Extension point, declared as XLA declares it. A specialisation provides
// `using Type` (what the handler receives) and
//   static std::optional<Type> Decode(const XLA_FFI_Api*,
//                                     XLA_FFI_ExecutionContext*,
//                                     DiagnosticEngine&);
// xffi's own take the diagnostic as a template parameter D instead (see
// AttrDecoding) and add TypeName() for signatures.
template <typename T>
struct CtxDecoding;

// For Ffi::BindTo: a parameter of type T binds as `.Ctx<Ctx>()` when a
// specialisation names a type, e.g.
//   template <> struct CtxBinding<cudaStream_t> {
//     using Ctx = PlatformStream<cudaStream_t>;
//   };
template <typename T>
struct CtxBinding {
  using Ctx = void;
};

namespace internal {

// Reports a failed API call through the diagnostic and frees its error.
template <typename D>
XFFI_COLD void FailCall(D& diag, const XLA_FFI_Api* api, XLA_FFI_Error* error,
                        const char* what) {
  Error taken = TakeError(api, error);
  diag.Fail(what, ": ", taken.message());
}

// The two State_Get/State_Set layouts: API 0.3 added the stage; before it
// there was only the instantiate state.
struct StateArgsV1 {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
};
static_assert(sizeof(StateArgsV1) == 40, "pre-0.3 state args are 40 bytes");

inline XLA_FFI_Error* GetState(const XLA_FFI_Api* api,
                               XLA_FFI_InvokeContext* ctx,
                               XLA_FFI_ExecutionStage stage, TypeId* type_id,
                               void** state) {
  if (api->api_version.minor_version >= 3) {
    XLA_FFI_State_Get_Args args;
    args.struct_size = XLA_FFI_State_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.stage = stage;
    args.type_id = type_id;
    args.state = nullptr;
    XLA_FFI_Error* error = api->XLA_FFI_State_Get(&args);
    *state = args.state;
    return error;
  }
  StateArgsV1 args{sizeof(StateArgsV1), nullptr, ctx, type_id, nullptr};
  XLA_FFI_Error* error =
      api->XLA_FFI_State_Get(reinterpret_cast<XLA_FFI_State_Get_Args*>(&args));
  *state = args.state;
  return error;
}

inline XLA_FFI_Error* SetState(const XLA_FFI_Api* api,
                               XLA_FFI_InvokeContext* ctx,
                               XLA_FFI_ExecutionStage stage, TypeId* type_id,
                               void* state) {
  if (api->api_version.minor_version >= 3) {
    XLA_FFI_State_Set_Args args;
    args.struct_size = XLA_FFI_State_Set_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.stage = stage;
    args.type_id = type_id;
    args.state = state;
    return api->XLA_FFI_State_Set(&args);
  }
  StateArgsV1 args{sizeof(StateArgsV1), nullptr, ctx, type_id, state};
  return api->XLA_FFI_State_Set(
      reinterpret_cast<XLA_FFI_State_Set_Args*>(&args));
}

}  // namespace internal

// ---- platform stream

template <typename T>
struct PlatformStream {};

template <typename T>
struct CtxDecoding<PlatformStream<T>> {
  static_assert(std::is_pointer_v<T>, "a stream type is a pointer");
  using Type = T;
  static std::string TypeName() {
    return internal::StrCat("PlatformStream<", internal::CppTypeName<T>(), ">");
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<T> Decode(const XLA_FFI_Api* api,
                                                    XLA_FFI_InvokeContext* ctx,
                                                    D& diag) {
    XLA_FFI_Stream_Get_Args args;
    args.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.stream = nullptr;
    if (XLA_FFI_Error* error = api->XLA_FFI_Stream_Get(&args)) {
      internal::FailCall(diag, api, error, "cannot get the platform stream");
      return std::nullopt;
    }
    return reinterpret_cast<T>(args.stream);
  }
};

// ---- scratch memory

// Device memory for the duration of one call; freed when the allocator dies.
class ScratchAllocator {
 public:
  ScratchAllocator(const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx)
      : api_(api), ctx_(ctx) {}
  ScratchAllocator(ScratchAllocator&& other) noexcept
      : api_(other.api_),
        ctx_(other.ctx_),
        allocations_(std::move(other.allocations_)) {
    other.allocations_.clear();
  }
  ScratchAllocator& operator=(ScratchAllocator&&) = delete;
  ~ScratchAllocator() {
    for (const Allocation& allocation : allocations_) {
      XLA_FFI_DeviceMemory_Free_Args args;
      args.struct_size = XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE;
      args.extension_start = nullptr;
      args.ctx = ctx_;
      args.size = allocation.size;
      args.data = allocation.data;
      if (XLA_FFI_Error* error = api_->XLA_FFI_DeviceMemory_Free(&args)) {
        internal::TakeError(api_, error);
      }
    }
  }

  // nullopt when the runtime refuses; last_error() says why.
  std::optional<void*> Allocate(size_t size, size_t alignment = 1) {
    XLA_FFI_DeviceMemory_Allocate_Args args;
    args.struct_size = XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx_;
    args.size = size;
    args.alignment = alignment;
    args.data = nullptr;
    if (XLA_FFI_Error* error = api_->XLA_FFI_DeviceMemory_Allocate(&args)) {
      last_error_ = internal::TakeError(api_, error);
      return std::nullopt;
    }
    allocations_.push_back({size, args.data});
    return args.data;
  }

  const Error& last_error() const { return last_error_; }

 private:
  struct Allocation {
    size_t size;
    void* data;
  };
  const XLA_FFI_Api* api_;
  XLA_FFI_InvokeContext* ctx_;
  std::vector<Allocation> allocations_;
  Error last_error_;
};

template <>
struct CtxDecoding<ScratchAllocator> {
  using Type = ScratchAllocator;
  static std::string TypeName() { return "ScratchAllocator"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D&) {
    return ScratchAllocator(api, ctx);
  }
};

// ---- thread pool

class ThreadPool {
 public:
  ThreadPool(const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx)
      : api_(api), ctx_(ctx) {}

  // Runs `f()` on the runtime's pool, or inline when the runtime has none.
  template <typename F>
  void Schedule(F&& f) {
    using Task = std::decay_t<F>;
    XLA_FFI_Task* task = +[](void* data) {
      auto* fn = static_cast<Task*>(data);
      (*fn)();
      delete fn;
    };
    auto* data = new Task(std::forward<F>(f));
    XLA_FFI_ThreadPool_Schedule_Args args;
    args.struct_size = XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx_;
    args.task = task;
    args.data = data;
    if (XLA_FFI_Error* error = api_->XLA_FFI_ThreadPool_Schedule(&args)) {
      internal::TakeError(api_, error);
      task(data);
    }
  }

  // 0 when the runtime has no pool.
  int64_t num_threads() const {
    int64_t num_threads = 0;
    XLA_FFI_ThreadPool_NumThreads_Args args;
    args.struct_size = XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx_;
    args.num_threads = &num_threads;
    if (XLA_FFI_Error* error = api_->XLA_FFI_ThreadPool_NumThreads(&args)) {
      internal::TakeError(api_, error);
      return 0;
    }
    return num_threads;
  }

 private:
  const XLA_FFI_Api* api_;
  XLA_FFI_InvokeContext* ctx_;
};

template <>
struct CtxDecoding<ThreadPool> {
  using Type = ThreadPool;
  static std::string TypeName() { return "ThreadPool"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D&) {
    return ThreadPool(api, ctx);
  }
};

// ---- user data and state

namespace internal {
template <typename T, typename = void>
struct HasTypeId : std::false_type {};
template <typename T>
struct HasTypeId<
    T,
    std::enable_if_t<std::is_same_v<std::remove_cv_t<decltype(T::id)>, TypeId>>>
    : std::true_type {};
}  // namespace internal

template <typename T>
struct UserData {};

template <typename T>
struct CtxDecoding<UserData<T>> {
  static_assert(internal::HasTypeId<T>::value,
                "UserData<T>: T needs a `static TypeId id;`");
  using Type = T*;
  static std::string TypeName() {
    return internal::StrCat("UserData<", internal::CppTypeName<T>(), ">");
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D& diag) {
    if (XFFI_UNLIKELY(T::id.type_id == 0)) {
      diag.Fail("user data type ", internal::CppTypeName<T>(),
                " was never registered (its TypeId is 0)");
      return std::nullopt;
    }
    XLA_FFI_InvokeContext_Get_Args args;
    args.struct_size = XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.type_id = &T::id;
    args.data = nullptr;
    if (XLA_FFI_Error* error = api->XLA_FFI_InvokeContext_Get(&args)) {
      internal::FailCall(diag, api, error, "cannot get user data");
      return std::nullopt;
    }
    return static_cast<T*>(args.data);
  }
};

template <typename T, ExecutionStage stage = ExecutionStage::kInstantiate>
struct State {};

template <typename T>
using Prepared = State<T, ExecutionStage::kPrepare>;
template <typename T>
using Initialized = State<T, ExecutionStage::kInitialize>;

template <typename T, ExecutionStage stage>
struct CtxDecoding<State<T, stage>> {
  static_assert(internal::HasTypeId<T>::value,
                "State<T>: T needs a `static TypeId id;`");
  using Type = T*;
  static std::string TypeName() {
    return internal::StrCat("State<", internal::CppTypeName<T>(), ">");
  }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D& diag) {
    if (XFFI_UNLIKELY(T::id.type_id == 0)) {
      diag.Fail("state type ", internal::CppTypeName<T>(),
                " was never registered (its TypeId is 0)");
      return std::nullopt;
    }
    void* state = nullptr;
    if (XLA_FFI_Error* error = internal::GetState(
            api, ctx, static_cast<XLA_FFI_ExecutionStage>(stage), &T::id,
            &state)) {
      internal::FailCall(diag, api, error, "cannot get state");
      return std::nullopt;
    }
    return static_cast<T*>(state);
  }
};

// ---- run id and device ordinal

struct RunId {
  int64_t run_id;
};

template <>
struct CtxDecoding<RunId> {
  using Type = RunId;
  static std::string TypeName() { return "RunId"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D& diag) {
    XLA_FFI_RunId_Get_Args args;
    args.struct_size = XLA_FFI_RunId_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.run_id = 0;
    if (XLA_FFI_Error* error = api->XLA_FFI_RunId_Get(&args)) {
      internal::FailCall(diag, api, error, "cannot get the run id");
      return std::nullopt;
    }
    return RunId{args.run_id};
  }
};

struct DeviceOrdinal {};

template <>
struct CtxDecoding<DeviceOrdinal> {
  using Type = int32_t;
  static std::string TypeName() { return "DeviceOrdinal"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D& diag) {
    XLA_FFI_DeviceOrdinal_Get_Args args;
    args.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.device_ordinal = 0;
    if (XLA_FFI_Error* error = api->XLA_FFI_DeviceOrdinal_Get(&args)) {
      internal::FailCall(diag, api, error, "cannot get the device ordinal");
      return std::nullopt;
    }
    return args.device_ordinal;
  }
};

// ---- backend extensions (API 0.4+)

// `.Ctx<Extension<E>>()` finds the backend extension E describes:
//   struct E {
//     using CExtension = ...;  // the C struct, starting with XLA_FFI_Extension
//     using Type = ...;        // what the handler receives
//     static constexpr const char* kName = "...";
//     static constexpr int64_t kExtensionType = ...;
//     static constexpr int32_t kMajorVersion = ..., kMinorVersion = ...;
//     static Type Create(const XLA_FFI_Api*, const CExtension*);
//     // optional: static bool Support(int32_t major, int32_t minor);
//   };
// Without Support, the versions must match exactly.
template <typename E>
struct Extension {};

namespace internal {
template <typename E, typename = void>
struct HasSupport : std::false_type {};
template <typename E>
struct HasSupport<E, std::enable_if_t<std::is_same_v<
                         decltype(&E::Support), bool (*)(int32_t, int32_t)>>>
    : std::true_type {};
}  // namespace internal

template <typename E>
struct CtxDecoding<Extension<E>> {
  using Type = typename E::Type;
  static std::string TypeName() {
    return internal::StrCat("Extension<", E::kName, ">");
  }
  template <typename D>
  static std::optional<Type> Decode(const XLA_FFI_Api* api,
                                    XLA_FFI_InvokeContext* ctx, D& diag) {
    if (api->api_version.minor_version < 4 ||
        !XFFI_API_HAS(api, XLA_FFI_InvokeContext_FindExtension) ||
        api->XLA_FFI_InvokeContext_FindExtension == nullptr) {
      diag.Fail("extension ", E::kName, " needs XLA FFI API 0.4; the runtime ",
                "has 0.", api->api_version.minor_version);
      return std::nullopt;
    }
    XLA_FFI_InvokeContext_FindExtension_Args args;
    args.struct_size = XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.extension_type = E::kExtensionType;
    args.extension = nullptr;
    if (XLA_FFI_Error* error =
            api->XLA_FFI_InvokeContext_FindExtension(&args)) {
      internal::FailCall(diag, api, error, "cannot look up the extension");
      return std::nullopt;
    }
    const XLA_FFI_Extension* found = args.extension;
    if (found == nullptr) {
      diag.Fail("extension ", E::kName, " (type ", E::kExtensionType,
                ") is not in the context");
      return std::nullopt;
    }
    bool supported;
    if constexpr (internal::HasSupport<E>::value) {
      supported = E::Support(found->id.major_version, found->id.minor_version);
    } else {
      supported = found->id.major_version == E::kMajorVersion &&
                  found->id.minor_version == E::kMinorVersion;
    }
    if (!supported) {
      diag.Fail("extension ", E::kName, " has version ",
                found->id.major_version, ".", found->id.minor_version,
                "; this handler was built for ", E::kMajorVersion, ".",
                E::kMinorVersion);
      return std::nullopt;
    }
    return E::Create(api,
                     reinterpret_cast<const typename E::CExtension*>(found));
  }
};

// The header an extension struct starts with, for code that provides one.
template <typename E>
XLA_FFI_Extension MakeExtensionHeader() {
  return XLA_FFI_Extension{
      sizeof(typename E::CExtension),
      XLA_FFI_ExtensionId{E::kExtensionType, E::kMajorVersion,
                          E::kMinorVersion},
      nullptr};
}

// ---- call-site options (API 0.5)

// `.Ctx<CustomOptions>()`: the options attached to the call site (API 0.5),
// as a Dictionary.
struct CustomOptions {};

template <>
struct CtxDecoding<CustomOptions> {
  using Type = Dictionary;
  static std::string TypeName() { return "CustomOptions"; }
  template <typename D>
  static std::optional<Type> Decode(const XLA_FFI_Api* api,
                                    XLA_FFI_InvokeContext* ctx, D& diag) {
    if (api->api_version.minor_version < 5 ||
        !XFFI_API_HAS(api, XLA_FFI_CustomOptions_Get) ||
        api->XLA_FFI_CustomOptions_Get == nullptr) {
      diag.Fail("custom options need XLA FFI API 0.5; the runtime has 0.",
                api->api_version.minor_version);
      return std::nullopt;
    }
    XLA_FFI_CustomOptions_Get_Args args;
    args.struct_size = XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.ctx = ctx;
    args.attrs = nullptr;
    if (XLA_FFI_Error* error = api->XLA_FFI_CustomOptions_Get(&args)) {
      Error taken = internal::TakeError(api, error);
      diag.Fail("cannot get custom options: ", taken.message());
      return std::nullopt;
    }
    static const XLA_FFI_Attrs kEmpty = {
        XLA_FFI_Attrs_STRUCT_SIZE, nullptr, 0, nullptr, nullptr, nullptr};
    return Dictionary(args.attrs != nullptr ? args.attrs : &kEmpty);
  }
};

// ---- the whole context, for lookups decided at run time

class Context {
 public:
  Context(const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx)
      : api_(api), ctx_(ctx) {}

  // A failure carries XLA's code, INTERNAL; the message is xffi's.
  template <typename T>
  ErrorOr<typename CtxDecoding<T>::Type> get() const {
    internal::NoDiagnostic quiet;
    auto value = internal::CallDecode<CtxDecoding<T>>(quiet, api_, ctx_);
    if (XFFI_LIKELY(value.has_value())) return std::move(*value);
    internal::Diagnostic diag;
    internal::CallDecode<CtxDecoding<T>>(diag, api_, ctx_);
    return Error::Internal(diag.message);
  }

  const XLA_FFI_Api* api() const { return api_; }
  XLA_FFI_InvokeContext* ctx() const { return ctx_; }

 private:
  const XLA_FFI_Api* api_;
  XLA_FFI_InvokeContext* ctx_;
};

template <>
struct CtxDecoding<Context> {
  using Type = Context;
  static std::string TypeName() { return "Context"; }
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx, D&) {
    return Context(api, ctx);
  }
};

// ---- type registration

// Lets the runtime delete objects of T it owns (user data, state).
template <typename T>
constexpr XLA_FFI_TypeInfo MakeTypeInfo() {
  return XLA_FFI_TypeInfo{XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr,
                          [](void* object) { delete static_cast<T*>(object); }};
}

namespace internal {

inline XLA_FFI_Error* RegisterType(const XLA_FFI_Api* api,
                                   std::string_view name, TypeId* type_id,
                                   const XLA_FFI_TypeInfo* type_info) {
  XLA_FFI_Type_Register_Args args;
  args.struct_size = XLA_FFI_Type_Register_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.name = XLA_FFI_ByteSpan{name.data(), name.size()};
  args.type_id = type_id;
  args.type_info = type_info;
  return api->XLA_FFI_Type_Register(&args);
}

}  // namespace internal
}  // namespace xffi::ffi

#endif  // XFFI_FFI_CONTEXT_H_
