// The binding machinery: Ffi::Bind()...To(fn) builds a Handler whose Call()
// answers the registration handshake, checks the stage and the counts,
// decodes every parameter into straight-line code, calls the function and
// encodes its result. A failure is explained by decoding again on a cold path,
// so the hot path carries no message building at all.
#ifndef XFFI_FFI_API_H_
#define XFFI_FFI_API_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "xffi/ffi/attrs.h"
#include "xffi/ffi/buffer.h"
#include "xffi/ffi/c_operators.h"
#include "xffi/ffi/context.h"
#include "xffi/ffi/diagnostic.h"
#include "xffi/ffi/error.h"
#include "xffi/ffi/future.h"
#include "xffi/ffi/remaining.h"
#include "xffi/ffi/types.h"

namespace xffi::ffi {

namespace internal {

// ---- binding parameters: what each `.Arg<T>()` etc. appends

template <typename T>
struct ArgTag {};
template <typename T>
struct RetTag {};
template <typename T>
struct OptionalArgTag {};
template <typename T>
struct OptionalRetTag {};
struct RemainingArgsTag {};
struct RemainingRetsTag {};
template <typename T>
struct AttrTag {};
template <typename T>
struct AttrsTag {};
template <typename T>
struct CtxTag {};

template <typename P>
struct IsOptionalArgTag : std::false_type {};
template <typename T>
struct IsOptionalArgTag<OptionalArgTag<T>> : std::true_type {};
template <typename P>
struct IsOptionalRetTag : std::false_type {};
template <typename T>
struct IsOptionalRetTag<OptionalRetTag<T>> : std::true_type {};
template <typename P>
struct IsAttrTag : std::false_type {};
template <typename T>
struct IsAttrTag<AttrTag<T>> : std::true_type {};
template <typename P>
struct IsAttrsTag : std::false_type {};
template <typename T>
struct IsAttrsTag<AttrsTag<T>> : std::true_type {};

// Which index space a parameter counts in.
enum class Group { kArg, kRet, kAttr, kNone };

// What a decoder sees besides the frame: the binding's attribute names and
// where each sits in the (sorted) frame dictionary.
struct DecodeState {
  const std::string_view* attr_names;
  const int64_t* attr_index;
};

XFFI_ALWAYS_INLINE const XLA_FFI_Buffer* ArgAt(const XLA_FFI_CallFrame* f,
                                               size_t i) {
  return static_cast<const XLA_FFI_Buffer*>(f->args.args[i]);
}

XFFI_ALWAYS_INLINE const XLA_FFI_Buffer* RetAt(const XLA_FFI_CallFrame* f,
                                               size_t i) {
  return static_cast<const XLA_FFI_Buffer*>(f->rets.rets[i]);
}

template <typename T, typename = void>
struct HasAttrGet : std::false_type {};
template <typename T>
struct HasAttrGet<
    T, std::void_t<decltype(AttrDecoding<T>::Get(XLA_FFI_AttrType{}, nullptr))>>
    : std::true_type {};

// Every Param<Tag> has Decode (checks, returns optional; with a Diagnostic it
// also says why). A "fast" one also has Get, which builds the value without
// checks: the handler first runs every check (the optionals it discards are
// optimised away), then builds the arguments straight into the call, so
// decoded values never round-trip through memory.

template <typename Tag>
struct Param;

template <typename T, typename = void>
struct IsComplete : std::false_type {};
template <typename T>
struct IsComplete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

// Buffer types (xffi's, or BufferDecoding specialisations) decode on the
// fast path; other types through their ArgDecoding/RetDecoding, as in XLA.
template <typename T>
void DescribeBuffer(XFFI_Param& p, std::string& type_name) {
  if constexpr (IsBufferType<T>::value) {
    p.dtype = BufferDecoding<T>::kDType;
    p.rank = BufferDecoding<T>::kRank;
    type_name = BufferDecoding<T>::TypeName();
  } else {
    type_name = DecodingTypeName<ArgDecoding<T>, T>::Get();
  }
}

template <typename T>
struct Param<ArgTag<T>> {
  static_assert(IsBufferType<T>::value || IsComplete<ArgDecoding<T>>::value,
                ".Arg<T>(): T must be AnyBuffer, Buffer<dtype, rank>, Token, "
                "or a type with an ArgDecoding<T> specialisation");
  static constexpr XFFI_ParamKind kKind = XFFI_Param_ARG;
  static constexpr Group kGroup = Group::kArg;
  static constexpr bool kFast = IsBufferType<T>::value;
  using Type = T;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState&, D& diag) {
    return DecodeArg<T>(&f->args, i, diag);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t i,
                                     const DecodeState&) {
    return BufferDecoding<T>::Get(ArgAt(f, i));
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    DescribeBuffer<T>(p, type_name);
  }
};

template <typename T>
struct Param<OptionalArgTag<T>> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_OPTIONAL_ARG;
  static constexpr Group kGroup = Group::kArg;
  static constexpr bool kFast = false;
  using Type = std::optional<T>;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState& s, D& diag) {
    if (static_cast<int64_t>(i) >= f->args.size) return Type(std::nullopt);
    std::optional<T> value = Param<ArgTag<T>>::Decode(f, i, s, diag);
    if (XFFI_UNLIKELY(!value.has_value())) return std::nullopt;
    return Type(std::move(value));
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    Param<ArgTag<T>>::Describe(p, type_name);
  }
};

template <typename T>
struct Param<RetTag<T>> {
  static_assert(IsBufferType<T>::value || IsComplete<RetDecoding<T>>::value,
                ".Ret<T>(): T must be AnyBuffer, Buffer<dtype, rank>, Token, "
                "or a type with a RetDecoding<T> specialisation");
  static constexpr XFFI_ParamKind kKind = XFFI_Param_RET;
  static constexpr Group kGroup = Group::kRet;
  static constexpr bool kFast = IsBufferType<T>::value;
  using Type = Result<T>;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState&, D& diag) {
    return DecodeRet<T>(&f->rets, i, diag);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t i,
                                     const DecodeState&) {
    return Type(BufferDecoding<T>::Get(RetAt(f, i)));
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    if constexpr (IsBufferType<T>::value) {
      DescribeBuffer<T>(p, type_name);
    } else {
      type_name = DecodingTypeName<RetDecoding<T>, T>::Get();
    }
  }
};

template <typename T>
struct Param<OptionalRetTag<T>> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_OPTIONAL_RET;
  static constexpr Group kGroup = Group::kRet;
  static constexpr bool kFast = false;
  using Type = std::optional<Result<T>>;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState& s, D& diag) {
    if (static_cast<int64_t>(i) >= f->rets.size) return Type(std::nullopt);
    std::optional<Result<T>> value = Param<RetTag<T>>::Decode(f, i, s, diag);
    if (XFFI_UNLIKELY(!value.has_value())) return std::nullopt;
    return Type(std::move(value));
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    Param<RetTag<T>>::Describe(p, type_name);
  }
};

template <>
struct Param<RemainingArgsTag> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_REMAINING_ARGS;
  static constexpr Group kGroup = Group::kArg;
  static constexpr bool kFast = true;
  using Type = RemainingArgs;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState&, D&) {
    return RemainingArgs(&f->args, i);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t i,
                                     const DecodeState&) {
    return RemainingArgs(&f->args, i);
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    p.rank = -1;
    type_name = "RemainingArgs";
  }
};

template <>
struct Param<RemainingRetsTag> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_REMAINING_RETS;
  static constexpr Group kGroup = Group::kRet;
  static constexpr bool kFast = true;
  using Type = RemainingRets;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t i, const DecodeState&, D&) {
    return RemainingRets(&f->rets, i);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t i,
                                     const DecodeState&) {
    return RemainingRets(&f->rets, i);
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    p.rank = -1;
    type_name = "RemainingRets";
  }
};

template <typename Word>
XFFI_ALWAYS_INLINE Word LoadWord(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof(Word));
  return w;
}

// Attribute names are short, and a call to memcmp would be most of the cost
// of an attribute: compare with two overlapping word loads instead.
XFFI_ALWAYS_INLINE bool SameName(const XLA_FFI_ByteSpan* name,
                                 std::string_view expected) {
  size_t n = name->len;
  if (n != expected.size()) return false;
  const char* a = name->ptr;
  const char* b = expected.data();
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return LoadWord<uint64_t>(a) == LoadWord<uint64_t>(b) &&
           LoadWord<uint64_t>(a + n - 8) == LoadWord<uint64_t>(b + n - 8);
  }
  if (n >= 4) {
    return LoadWord<uint32_t>(a) == LoadWord<uint32_t>(b) &&
           LoadWord<uint32_t>(a + n - 4) == LoadWord<uint32_t>(b + n - 4);
  }
  if (n == 0) return true;
  return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

// An attribute at a precomputed index of the sorted dictionary: confirming
// the name is the only lookup, no search.
template <typename T, typename D>
XFFI_ALWAYS_INLINE std::optional<DecodedAttr<T>> DecodeAttrAt(
    const XLA_FFI_CallFrame* f, size_t slot, const DecodeState& s, D& diag) {
  int64_t i = s.attr_index[slot];
  std::string_view expected = s.attr_names[slot];
  const XLA_FFI_ByteSpan* name = f->attrs.names[i];
  if (XFFI_UNLIKELY(!SameName(name, expected))) {
    if constexpr (D::kExplain) {
      diag.Fail("missing (the call has attributes: ", AttrNames(&f->attrs),
                ")");
    }
    return std::nullopt;
  }
  return DecodeAttr<T>(AttrTypeAt(&f->attrs, i), f->attrs.attrs[i], diag);
}

template <typename T>
void DescribeAttr(XFFI_Param& p, std::string& type_name) {
  p.attr_type = AttrDescription<T>::kAttrType;
  p.dtype = AttrDescription<T>::kDType;
  type_name = AttrTypeName<T>();
}

template <typename T>
struct Param<AttrTag<T>> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_ATTR;
  static constexpr Group kGroup = Group::kAttr;
  static constexpr bool kFast = HasAttrGet<T>::value;
  using Type = DecodedAttr<T>;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t slot, const DecodeState& s, D& diag) {
    return DecodeAttrAt<T>(f, slot, s, diag);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t slot,
                                     const DecodeState& s) {
    int64_t i = s.attr_index[slot];
    return AttrDecoding<T>::Get(internal::AttrTypeAt(&f->attrs, i),
                                f->attrs.attrs[i]);
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    DescribeAttr<T>(p, type_name);
  }
};

template <typename T>
struct Param<AttrsTag<T>> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_ATTRS;
  static constexpr Group kGroup = Group::kNone;
  static constexpr bool kFast = HasAttrGet<T>::value;
  using Type = T;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t, const DecodeState&, D& diag) {
    return DecodeAttr<T>(XLA_FFI_AttrType_DICTIONARY,
                         const_cast<XLA_FFI_Attrs*>(&f->attrs), diag);
  }
  XFFI_ALWAYS_INLINE static Type Get(const XLA_FFI_CallFrame* f, size_t,
                                     const DecodeState&) {
    return AttrDecoding<T>::Get(XLA_FFI_AttrType_DICTIONARY,
                                const_cast<XLA_FFI_Attrs*>(&f->attrs));
  }
  static void Describe(XFFI_Param& p, std::string& type_name) {
    p.attr_type = XLA_FFI_AttrType_DICTIONARY;
    type_name = AttrTypeName<T>();
  }
};

template <typename T>
struct Param<CtxTag<T>> {
  static constexpr XFFI_ParamKind kKind = XFFI_Param_CTX;
  static constexpr Group kGroup = Group::kNone;
  static constexpr bool kFast = false;
  using Type = typename CtxDecoding<T>::Type;
  template <typename D>
  XFFI_ALWAYS_INLINE static std::optional<Type> Decode(
      const XLA_FFI_CallFrame* f, size_t, const DecodeState&, D& diag) {
    return CallDecode<CtxDecoding<T>>(diag, f->api, f->ctx);
  }
  static void Describe(XFFI_Param&, std::string& type_name) {
    type_name = DecodingTypeName<CtxDecoding<T>, T>::Get();
  }
};

// ---- result encoding

template <typename T>
struct IsStateResult : std::false_type {};
template <typename T>
struct IsStateResult<ErrorOr<std::unique_ptr<T>>> : std::true_type {
  using State = T;
};

XFFI_COLD inline void SignalFutureFailure(const XLA_FFI_Api* api,
                                          XLA_FFI_Error* error) {
  // The future can no longer be reached: the runtime would wait forever.
  Error taken = TakeError(api, error);
  std::fprintf(stderr, "xffi: cannot complete an XLA_FFI_Future: %s\n",
               taken.message().c_str());
  std::abort();
}

}  // namespace internal

// Extension point, declared as XLA declares it: how a handler's return value
// of type T becomes the call's outcome. A specialisation provides
//   static R Encode(const XLA_FFI_Api*, XLA_FFI_ExecutionContext*, T value);
// where R is XLA_FFI_Error* (null for success), XLA_FFI_Future* (the call
// completes with the future) or std::variant of the two; a state constructor
// also provides `static XLA_FFI_TypeId state_type_id(const XLA_FFI_Api*)`.
template <ExecutionStage stage, typename T>
struct ResultEncoding {
  static_assert(sizeof(T) == 0,
                "a handler returns Error, void, Future, (from a stage before "
                "execute) ErrorOr<std::unique_ptr<State>>, or a type with a "
                "ResultEncoding specialisation");
};

template <ExecutionStage stage>
struct ResultEncoding<stage, Error> {
  XFFI_ALWAYS_INLINE static XLA_FFI_Error* Encode(const XLA_FFI_Api* api,
                                                  XLA_FFI_InvokeContext*,
                                                  Error error) {
    if (XFFI_LIKELY(error.success())) return nullptr;
    return internal::CreateError(api, error);
  }
};

template <ExecutionStage stage, typename T>
struct ResultEncoding<stage, ErrorOr<std::unique_ptr<T>>> {
  static_assert(stage != ExecutionStage::kExecute,
                "execute cannot create state: return it from instantiate");
  static_assert(internal::HasTypeId<T>::value,
                "state types need `static TypeId id;`");
  static XLA_FFI_TypeId state_type_id(const XLA_FFI_Api*) { return T::id; }
  XFFI_ALWAYS_INLINE static XLA_FFI_Error* Encode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext* ctx,
      ErrorOr<std::unique_ptr<T>> result) {
    if (XFFI_UNLIKELY(!result.has_value())) {
      return internal::CreateError(api, result.error());
    }
    T* state = result.value().release();
    XLA_FFI_Error* error = internal::SetState(
        api, ctx, static_cast<XLA_FFI_ExecutionStage>(stage), &T::id, state);
    // The runtime took no ownership, so the state is ours to drop.
    if (XFFI_UNLIKELY(error != nullptr)) delete state;
    return error;
  }
};

template <ExecutionStage stage>
struct ResultEncoding<stage, Future> {
  static std::variant<XLA_FFI_Error*, XLA_FFI_Future*> Encode(
      const XLA_FFI_Api* api, XLA_FFI_InvokeContext*, Future future) {
    XLA_FFI_Future_Create_Args args;
    args.struct_size = XLA_FFI_Future_Create_Args_STRUCT_SIZE;
    args.extension_start = nullptr;
    args.future = nullptr;
    if (XLA_FFI_Error* error = api->XLA_FFI_Future_Create(&args)) return error;
    XLA_FFI_Future* handle = args.future;
    future.OnReady([api, handle](const std::optional<Error>& error) {
      if (XFFI_UNLIKELY(error.has_value())) {
        XLA_FFI_Future_SetError_Args set;
        set.struct_size = XLA_FFI_Future_SetError_Args_STRUCT_SIZE;
        set.extension_start = nullptr;
        set.future = handle;
        set.error = internal::CreateError(api, *error);
        if (XLA_FFI_Error* e = api->XLA_FFI_Future_SetError(&set)) {
          internal::SignalFutureFailure(api, e);
        }
      } else {
        XLA_FFI_Future_SetAvailable_Args set;
        set.struct_size = XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE;
        set.extension_start = nullptr;
        set.future = handle;
        if (XLA_FFI_Error* e = api->XLA_FFI_Future_SetAvailable(&set)) {
          internal::SignalFutureFailure(api, e);
        }
      }
    });
    return handle;
  }
};

namespace internal {

// A result encoding that creates state reports the state's type at the
// registration handshake.
template <typename E, typename = void>
struct IsStateConstructor : std::false_type {};
template <typename E>
struct IsStateConstructor<
    E, std::enable_if_t<std::is_same_v<decltype(E::state_type_id(
                                           std::declval<const XLA_FFI_Api*>())),
                                       XLA_FFI_TypeId>>> : std::true_type {};

// Stores an encoded result in the frame: an error is returned, a future is
// left in call_frame->future for the runtime (with a null error).
XFFI_ALWAYS_INLINE XLA_FFI_Error* Finish(XLA_FFI_CallFrame*,
                                         XLA_FFI_Error* error) {
  return error;
}
XFFI_ALWAYS_INLINE XLA_FFI_Error* Finish(XLA_FFI_CallFrame* f,
                                         XLA_FFI_Future* future) {
  f->future = future;
  return nullptr;
}
XFFI_ALWAYS_INLINE XLA_FFI_Error* Finish(
    XLA_FFI_CallFrame* f,
    const std::variant<XLA_FFI_Error*, XLA_FFI_Future*>& encoded) {
  if (encoded.index() == 0) return std::get<0>(encoded);
  f->future = std::get<1>(encoded);
  return nullptr;
}

// ---- compile-time layout of a parameter list

template <typename... Ps>
struct Layout {
  static constexpr size_t kSize = sizeof...(Ps);
  static constexpr std::array<Group, kSize> kGroups = {Param<Ps>::kGroup...};
  static constexpr std::array<XFFI_ParamKind, kSize> kKinds = {
      Param<Ps>::kKind...};

  static constexpr size_t Count(XFFI_ParamKind kind) {
    size_t n = 0;
    for (size_t i = 0; i < kSize; ++i) n += kKinds[i] == kind;
    return n;
  }
  // Position of parameter `i` within its group (argument index, result
  // index, attribute slot).
  static constexpr size_t IndexInGroup(size_t i) {
    size_t n = 0;
    for (size_t j = 0; j < i; ++j) n += kGroups[j] == kGroups[i];
    return n;
  }

  static constexpr size_t kNumArgs = Count(XFFI_Param_ARG);
  static constexpr size_t kNumOptionalArgs = Count(XFFI_Param_OPTIONAL_ARG);
  static constexpr bool kRemainingArgs = Count(XFFI_Param_REMAINING_ARGS) > 0;
  static constexpr size_t kNumRets = Count(XFFI_Param_RET);
  static constexpr size_t kNumOptionalRets = Count(XFFI_Param_OPTIONAL_RET);
  static constexpr bool kRemainingRets = Count(XFFI_Param_REMAINING_RETS) > 0;
  static constexpr size_t kNumAttrs = Count(XFFI_Param_ATTR);
  static constexpr size_t kNumDictAttrs = Count(XFFI_Param_ATTRS);

  static_assert(kNumAttrs == 0 || kNumDictAttrs == 0,
                "a binding takes attributes by name (.Attr) or as a whole "
                "(.Attrs), not both");
  static_assert(Count(XFFI_Param_REMAINING_ARGS) <= 1 &&
                    Count(XFFI_Param_REMAINING_RETS) <= 1,
                "RemainingArgs/RemainingRets may appear once");
};

// An extension node's type, read as the integer it is: xffi's own types lie
// outside the C enum's enumerators, and loading such a value through the
// enum type is undefined behaviour in C++.
XFFI_ALWAYS_INLINE int64_t
ExtensionType(const XLA_FFI_InternalExtension* node) {
  std::underlying_type_t<XLA_FFI_InternalExtension_Type> raw;
  static_assert(sizeof(raw) == sizeof(node->type), "enum storage");
  std::memcpy(&raw, &node->type, sizeof(raw));
  return static_cast<int64_t>(raw);
}

XFFI_COLD inline XLA_FFI_Error* InvalidArgument(const XLA_FFI_CallFrame* f,
                                                const std::string& message) {
  return CreateError(f->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, message);
}

XFFI_COLD inline XLA_FFI_Error* CountError(const XLA_FFI_CallFrame* f,
                                           const char* what, size_t min,
                                           size_t max, bool unbounded,
                                           int64_t got) {
  std::string expected =
      unbounded ? StrCat("at least ", min)
                : (min == max ? StrCat(min) : StrCat(min, " to ", max));
  return InvalidArgument(
      f, StrCat("[", ExecutionStageName(f->stage), "] wrong number of ", what,
                ": expected ", expected, ", got ", got));
}

}  // namespace internal

// ---- the handler

class Ffi;

template <ExecutionStage stage, typename Fn, typename... Ps>
class Handler;

template <ExecutionStage stage, typename... Ps>
class Binding;

// A bound handler. Call() is virtual so handlers of different bindings share
// one type; the concrete Handler is final, so a direct call is not virtual.
class Ffi {
 public:
  virtual ~Ffi() = default;
  virtual XLA_FFI_Error* Call(XLA_FFI_CallFrame* call_frame) const = 0;

  template <ExecutionStage stage = ExecutionStage::kExecute>
  static Binding<stage> Bind();
  static Binding<ExecutionStage::kInstantiate> BindInstantiate();
  static Binding<ExecutionStage::kPrepare> BindPrepare();
  static Binding<ExecutionStage::kInitialize> BindInitialize();
  static Binding<ExecutionStage::kExecute> BindExecute();
  // Needs a runtime of API 0.4 or later (RegisterStaticHandler refuses a
  // record stage otherwise).
  static Binding<ExecutionStage::kRecord> BindRecord();

  // The binding read off fn's parameter types, with XLA's template order
  // (BindTo<decltype(fn), ExecutionStage::kPrepare>(fn)): buffers are
  // arguments, Result<T> results, Attr<T, name> (or any type with an
  // AttrBinding) named attributes, Dictionary (or a registered struct) the
  // attributes as a whole, types with an ArgBinding/RetBinding/CtxBinding
  // what those say, and context types that decode to themselves
  // (ThreadPool, ScratchAllocator, RunId, Context) context.
  template <typename Fn, ExecutionStage stage = ExecutionStage::kExecute>
  static auto BindTo(Fn fn, std::initializer_list<Traits> traits = {});
  // The same with the stage first, xffi's older order:
  // BindTo<ExecutionStage::kPrepare>(fn).
  template <ExecutionStage stage, typename Fn>
  static auto BindTo(Fn fn, std::initializer_list<Traits> traits = {}) {
    return BindTo<Fn, stage>(std::move(fn), traits);
  }

  static XLA_FFI_Error* RegisterStaticHandler(
      const XLA_FFI_Api* api, std::string_view name, std::string_view platform,
      XLA_FFI_Handler_Bundle bundle, XLA_FFI_Handler_Traits traits = 0);
  static XLA_FFI_Error* RegisterStaticHandler(
      const XLA_FFI_Api* api, std::string_view name, std::string_view platform,
      XLA_FFI_Handler* execute, XLA_FFI_Handler_Traits traits = 0);

  static XLA_FFI_Error* RegisterTypeId(const XLA_FFI_Api* api,
                                       std::string_view name, TypeId* type_id,
                                       const XLA_FFI_TypeInfo& type_info) {
    return internal::RegisterType(api, name, type_id, &type_info);
  }
  static XLA_FFI_Error* RegisterTypeId(
      const XLA_FFI_Api* api, std::string_view name, TypeId* type_id,
      const XLA_FFI_TypeInfo* type_info = nullptr) {
    return internal::RegisterType(api, name, type_id, type_info);
  }

  // Turns a function pointer into a type, so that a binding calls it
  // directly (inlinable) instead of through a pointer held at run time:
  //   Ffi::Bind().Arg<AnyBuffer>().To(Ffi::Wrapper<MyImpl>())
  template <auto fn>
  struct Wrapper;
  template <typename R, typename... Args, R (*fn)(Args...)>
  struct Wrapper<fn> {
    XFFI_ALWAYS_INLINE R operator()(Args... args) const {
      return fn(std::forward<Args>(args)...);
    }
  };
#if !defined(__CUDACC__)
  // nvcc's front end does not tell a noexcept function pointer from a plain
  // one here and would see a redefinition; there the one above takes both.
  template <typename R, typename... Args, R (*fn)(Args...) noexcept>
  struct Wrapper<fn> {
    XFFI_ALWAYS_INLINE R operator()(Args... args) const noexcept {
      return fn(std::forward<Args>(args)...);
    }
  };
#endif

 protected:
  // For handlers written by hand as subclasses of Ffi; XLA's names, messages
  // and codes.
  static XLA_FFI_Error* Success() { return nullptr; }
  static XLA_FFI_Error* MakeError(const XLA_FFI_Api* api,
                                  XLA_FFI_Error_Code errc,
                                  std::string message) {
    return internal::CreateError(api, errc, message);
  }
  static XLA_FFI_Error* InvalidArgument(const XLA_FFI_Api* api,
                                        std::string message) {
    return MakeError(api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     std::move(message));
  }
  static XLA_FFI_Error* FailedPrecondition(const XLA_FFI_Api* api,
                                           std::string message) {
    return MakeError(api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
                     std::move(message));
  }
  // INVALID_ARGUMENT unless actual == expected.
  static XLA_FFI_Error* CheckStructSize(const XLA_FFI_Api* api,
                                        std::string_view struct_name,
                                        size_t expected, size_t actual) {
    if (XFFI_LIKELY(actual == expected)) return nullptr;
    return InvalidArgument(
        api, internal::StrCat("Unexpected ", struct_name, " size: expected ",
                              expected, " got ", actual,
                              ". Check installed software versions."));
  }
  // INVALID_ARGUMENT when actual < expected.
  static XLA_FFI_Error* StructSizeIsGreaterOrEqual(const XLA_FFI_Api* api,
                                                   std::string_view struct_name,
                                                   size_t expected,
                                                   size_t actual) {
    if (XFFI_LIKELY(actual >= expected)) return nullptr;
    return InvalidArgument(
        api, internal::StrCat("Unexpected ", struct_name,
                              " size: expected at least ", expected, " got ",
                              actual, ". Check installed software versions."));
  }
};

template <ExecutionStage stage, typename Fn, typename... Ps>
class Handler final : public Ffi {
  using L = internal::Layout<Ps...>;
  using ResultType =
      std::invoke_result_t<Fn&, typename internal::Param<Ps>::Type...>;
  static constexpr bool kReturnsVoid = std::is_void_v<ResultType>;
  static constexpr XLA_FFI_ExecutionStage kStage =
      static_cast<XLA_FFI_ExecutionStage>(stage);

 public:
  Handler(Fn fn, std::vector<std::string> attr_names,
          XLA_FFI_Handler_Traits traits)
      : fn_(std::move(fn)),
        attr_names_(std::move(attr_names)),
        traits_(traits) {
    for (size_t j = 0; j < L::kNumAttrs; ++j) {
      attr_views_[j] = attr_names_[j];
    }
    // Sorted position of each bound name: with exactly kNumAttrs attributes
    // in the frame, sorted by name, that is where each one must be.
    for (size_t j = 0; j < L::kNumAttrs; ++j) {
      int64_t rank = 0;
      for (size_t k = 0; k < L::kNumAttrs; ++k) {
        rank += attr_views_[k] < attr_views_[j];
      }
      attr_index_[j] = rank;
    }
    BuildSignature(std::index_sequence_for<Ps...>{});
  }
  Handler(const Handler&) = delete;
  Handler& operator=(const Handler&) = delete;

  XLA_FFI_Error* Call(XLA_FFI_CallFrame* f) const override {
    if (XFFI_UNLIKELY(f->struct_size != XLA_FFI_CallFrame_STRUCT_SIZE)) {
      return BadFrameSize(f);
    }
    // The handshake is answered before the stage is looked at: the runtime
    // asks every bundle member, whatever stage it was bound to.
    if (XFFI_UNLIKELY(f->extension_start != nullptr &&
                      internal::ExtensionType(f->extension_start) ==
                          XLA_FFI_Extension_Metadata)) {
      return PopulateMetadata(f);
    }
    if (XFFI_UNLIKELY(internal::RawEnum(&f->stage) != kStage)) {
      return WrongStage(f);
    }

    if constexpr (L::kRemainingArgs) {
      if (XFFI_UNLIKELY(f->args.size < static_cast<int64_t>(L::kNumArgs))) {
        return internal::CountError(f, "arguments", L::kNumArgs, 0, true,
                                    f->args.size);
      }
    } else if constexpr (L::kNumOptionalArgs > 0) {
      if (XFFI_UNLIKELY(
              f->args.size < static_cast<int64_t>(L::kNumArgs) ||
              f->args.size >
                  static_cast<int64_t>(L::kNumArgs + L::kNumOptionalArgs))) {
        return internal::CountError(f, "arguments", L::kNumArgs,
                                    L::kNumArgs + L::kNumOptionalArgs, false,
                                    f->args.size);
      }
    } else if constexpr (L::kNumArgs > 0) {
      // A binding with no arguments (typically a prepare or initialize
      // stage) does not care how many the call site has.
      if (XFFI_UNLIKELY(f->args.size != static_cast<int64_t>(L::kNumArgs))) {
        return internal::CountError(f, "arguments", L::kNumArgs, L::kNumArgs,
                                    false, f->args.size);
      }
    }

    if constexpr (L::kRemainingRets) {
      if (XFFI_UNLIKELY(f->rets.size < static_cast<int64_t>(L::kNumRets))) {
        return internal::CountError(f, "results", L::kNumRets, 0, true,
                                    f->rets.size);
      }
    } else if constexpr (L::kNumOptionalRets > 0) {
      if (XFFI_UNLIKELY(
              f->rets.size < static_cast<int64_t>(L::kNumRets) ||
              f->rets.size >
                  static_cast<int64_t>(L::kNumRets + L::kNumOptionalRets))) {
        return internal::CountError(f, "results", L::kNumRets,
                                    L::kNumRets + L::kNumOptionalRets, false,
                                    f->rets.size);
      }
    } else if constexpr (L::kNumRets > 0) {
      if (XFFI_UNLIKELY(f->rets.size != static_cast<int64_t>(L::kNumRets))) {
        return internal::CountError(f, "results", L::kNumRets, L::kNumRets,
                                    false, f->rets.size);
      }
    }

    if constexpr (L::kNumAttrs > 0) {
      if (XFFI_UNLIKELY(f->attrs.size != static_cast<int64_t>(L::kNumAttrs))) {
        return WrongAttrCount(f);
      }
    }

#if XFFI_HAS_EXCEPTIONS
    try {
      return Decode(f, std::index_sequence_for<Ps...>{});
    } catch (const std::exception& e) {
      return ExceptionError(f, e.what());
    } catch (...) {
      return ExceptionError(f, nullptr);
    }
#else
    return Decode(f, std::index_sequence_for<Ps...>{});
#endif
  }

  const XFFI_Signature& signature() const { return signature_; }
  XLA_FFI_Handler_Traits traits() const { return traits_; }

 private:
  template <typename P>
  using Pre =
      std::conditional_t<internal::Param<P>::kFast, bool,
                         std::optional<typename internal::Param<P>::Type>>;

  // Fast parameters are only checked here; the rest are decoded.
  template <typename P>
  XFFI_ALWAYS_INLINE static Pre<P> Prepare(const XLA_FFI_CallFrame* f,
                                           size_t index,
                                           const internal::DecodeState& s) {
    internal::NoDiagnostic quiet;
    if constexpr (internal::Param<P>::kFast) {
      return internal::Param<P>::Decode(f, index, s, quiet).has_value();
    } else {
      return internal::Param<P>::Decode(f, index, s, quiet);
    }
  }

  XFFI_ALWAYS_INLINE static bool Ok(bool checked) { return checked; }
  template <typename T>
  XFFI_ALWAYS_INLINE static bool Ok(const std::optional<T>& decoded) {
    return decoded.has_value();
  }

  template <typename P>
  XFFI_ALWAYS_INLINE static typename internal::Param<P>::Type Take(
      const XLA_FFI_CallFrame* f, size_t index, const internal::DecodeState& s,
      Pre<P>& pre) {
    if constexpr (internal::Param<P>::kFast) {
      (void)pre;
      return internal::Param<P>::Get(f, index, s);
    } else {
      return std::move(*pre);
    }
  }

  template <size_t... Is>
  XFFI_ALWAYS_INLINE XLA_FFI_Error* Decode(XLA_FFI_CallFrame* f,
                                           std::index_sequence<Is...>) const {
    internal::DecodeState state{attr_views_.data(), attr_index_.data()};
    (void)state;
    // Braced initialisation runs left to right.
    std::tuple<Pre<Ps>...> pre{Prepare<Ps>(f, L::IndexInGroup(Is), state)...};
    if (XFFI_UNLIKELY(!(Ok(std::get<Is>(pre)) && ...))) return Explain(f);
    if constexpr (kReturnsVoid) {
      std::invoke(
          fn_, Take<Ps>(f, L::IndexInGroup(Is), state, std::get<Is>(pre))...);
      return nullptr;
    } else {
      return internal::Finish(
          f, ResultEncoding<stage, ResultType>::Encode(
                 f->api, f->ctx,
                 std::invoke(fn_, Take<Ps>(f, L::IndexInGroup(Is), state,
                                           std::get<Is>(pre))...)));
    }
  }

  // Decodes again, this time keeping the reason, and reports the first
  // parameter that fails.
  XFFI_COLD XLA_FFI_Error* Explain(XLA_FFI_CallFrame* f) const {
    return ExplainImpl(f, std::index_sequence_for<Ps...>{});
  }

  template <size_t... Is>
  XLA_FFI_Error* ExplainImpl(XLA_FFI_CallFrame* f,
                             std::index_sequence<Is...>) const {
    internal::DecodeState state{attr_views_.data(), attr_index_.data()};
    std::string message;
    (void)state;
    (void)((ExplainOne<Is, Ps>(f, state, message)) || ...);
    if (message.empty()) message = "failed to decode the call's parameters";
    return internal::InvalidArgument(f, message);
  }

  template <size_t I, typename P>
  bool ExplainOne(XLA_FFI_CallFrame* f, const internal::DecodeState& state,
                  std::string& message) const {
    internal::Diagnostic diag;
    size_t index = L::IndexInGroup(I);
    if (internal::Param<P>::Decode(f, index, state, diag).has_value()) {
      return false;
    }
    switch (internal::Param<P>::kKind) {
      case XFFI_Param_ARG:
      case XFFI_Param_OPTIONAL_ARG:
        message = internal::StrCat("argument ", index, ": ");
        break;
      case XFFI_Param_RET:
      case XFFI_Param_OPTIONAL_RET:
        message = internal::StrCat("result ", index, ": ");
        break;
      case XFFI_Param_ATTR:
        message = internal::StrCat("attribute '", attr_views_[index], "': ");
        break;
      case XFFI_Param_ATTRS:
        message = internal::StrCat("attributes (", type_names_[I], "): ");
        break;
      default:
        message = internal::StrCat("context ", type_names_[I], ": ");
        break;
    }
    message += diag.message;
    return true;
  }

  XFFI_COLD XLA_FFI_Error* BadFrameSize(XLA_FFI_CallFrame* f) const {
    return internal::InvalidArgument(
        f, internal::StrCat("XLA_FFI_CallFrame has struct_size ",
                            f->struct_size, ", expected ",
                            static_cast<size_t>(XLA_FFI_CallFrame_STRUCT_SIZE),
                            " (the caller and handler disagree on the ABI)"));
  }

  static std::string StageNameOf(int64_t raw) {
    if (raw >= XLA_FFI_ExecutionStage_INSTANTIATE &&
        raw <= XLA_FFI_ExecutionStage_RECORD) {
      return ExecutionStageName(static_cast<XLA_FFI_ExecutionStage>(raw));
    }
    return internal::StrCat("UNKNOWN_STAGE(", raw, ")");
  }

  XFFI_COLD XLA_FFI_Error* WrongStage(XLA_FFI_CallFrame* f) const {
    return internal::InvalidArgument(
        f, internal::StrCat("wrong execution stage: the handler is bound to ",
                            ExecutionStageName(kStage), ", called in ",
                            StageNameOf(internal::RawEnum(&f->stage))));
  }

  XFFI_COLD XLA_FFI_Error* WrongAttrCount(XLA_FFI_CallFrame* f) const {
    std::string expected;
    for (size_t j = 0; j < L::kNumAttrs; ++j) {
      if (j > 0) expected += ", ";
      expected += attr_views_[j];
    }
    return internal::InvalidArgument(
        f,
        internal::StrCat("[", ExecutionStageName(f->stage),
                         "] wrong number of attributes: expected ",
                         L::kNumAttrs, " (", expected, "), got ", f->attrs.size,
                         " (", internal::AttrNames(&f->attrs), ")"));
  }

  XFFI_COLD XLA_FFI_Error* ExceptionError(XLA_FFI_CallFrame* f,
                                          const char* what) const {
    return internal::CreateError(
        f->api, XLA_FFI_Error_Code_INTERNAL,
        what != nullptr
            ? internal::StrCat("C++ exception escaped the handler: ", what)
            : std::string("C++ exception of unknown type escaped the handler"));
  }

  XFFI_COLD XLA_FFI_Error* PopulateMetadata(XLA_FFI_CallFrame* f) const {
    auto* extension =
        reinterpret_cast<XLA_FFI_Metadata_Extension*>(f->extension_start);
    if (extension->extension_base.struct_size <
        XLA_FFI_Metadata_Extension_STRUCT_SIZE) {
      return internal::InvalidArgument(
          f, internal::StrCat(
                 "XLA_FFI_Metadata_Extension has struct_size ",
                 extension->extension_base.struct_size, ", expected at least ",
                 static_cast<size_t>(XLA_FFI_Metadata_Extension_STRUCT_SIZE)));
    }
    XLA_FFI_Metadata* metadata = extension->metadata;
    if (metadata == nullptr ||
        metadata->struct_size < XLA_FFI_Metadata_STRUCT_SIZE) {
      return internal::InvalidArgument(
          f, internal::StrCat(
                 "XLA_FFI_Metadata is missing or has struct_size ",
                 metadata ? metadata->struct_size : 0, ", expected at least ",
                 static_cast<size_t>(XLA_FFI_Metadata_STRUCT_SIZE)));
    }
    metadata->api_version =
        XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr,
                            XLA_FFI_API_MAJOR, XFFI_TARGET_API_MINOR};
    metadata->traits = traits_;

    if constexpr (!kReturnsVoid) {
      using Encoding = ResultEncoding<stage, ResultType>;
      if constexpr (internal::IsStateConstructor<Encoding>::value) {
        TypeId id = Encoding::state_type_id(f->api);
        if (id.type_id == 0) {
          return internal::CreateError(
              f->api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
              internal::StrCat(
                  "the state type of this handler (",
                  internal::CppTypeName<
                      typename internal::IsStateResult<ResultType>::State>(),
                  ") must be registered before the handler"));
        }
        metadata->state_type_id = id;
      } else {
        metadata->state_type_id = TypeId{0};
      }
    } else {
      metadata->state_type_id = TypeId{0};
    }

    // xffi's runtime chains a signature request after the metadata; XLA's
    // never does, and a handler built with XLA's header never looks.
    for (XLA_FFI_InternalExtension* node = extension->extension_base.next;
         node != nullptr; node = node->next) {
      if (internal::ExtensionType(node) == XFFI_EXTENSION_SIGNATURE &&
          node->struct_size >= XFFI_Signature_Extension_STRUCT_SIZE) {
        reinterpret_cast<XFFI_Signature_Extension*>(node)->signature =
            &signature_;
      }
    }
    return nullptr;
  }

  template <size_t... Is>
  void BuildSignature(std::index_sequence<Is...>) {
    type_names_.resize(L::kSize);
    params_.resize(L::kSize);
    (DescribeParam<Is, Ps>(), ...);
    signature_.struct_size = XFFI_Signature_STRUCT_SIZE;
    signature_.stage = kStage;
    signature_.num_params = static_cast<int64_t>(L::kSize);
    signature_.params = params_.empty() ? nullptr : params_.data();
  }

  template <size_t I, typename P>
  void DescribeParam() {
    XFFI_Param& p = params_[I];
    p.kind = internal::Param<P>::kKind;
    p.dtype = XLA_FFI_DataType_INVALID;
    p.rank = -1;
    p.attr_type = static_cast<XLA_FFI_AttrType>(0);
    p.name = nullptr;
    internal::Param<P>::Describe(p, type_names_[I]);
    if (p.kind == XFFI_Param_ATTR) {
      p.name = attr_names_[L::IndexInGroup(I)].c_str();
    }
    p.type_name = type_names_[I].c_str();
  }

  // Mutable so that mutable lambdas bind; calling one from several threads
  // at once is then the handler author's business, as with any functor.
  mutable Fn fn_;
  std::vector<std::string> attr_names_;
  std::array<std::string_view, L::kNumAttrs> attr_views_{};
  std::array<int64_t, L::kNumAttrs> attr_index_{};
  XLA_FFI_Handler_Traits traits_;
  std::vector<std::string> type_names_;
  std::vector<XFFI_Param> params_;
  XFFI_Signature signature_{};
};

// ---- the builder

template <ExecutionStage stage, typename... Ps>
class Binding {
  template <typename... Qs>
  using HasOptionalArg = std::disjunction<internal::IsOptionalArgTag<Qs>...>;
  template <typename... Qs>
  using HasOptionalRet = std::disjunction<internal::IsOptionalRetTag<Qs>...>;
  static constexpr bool kHasRemainingArgs =
      (std::is_same_v<Ps, internal::RemainingArgsTag> || ...);
  static constexpr bool kHasRemainingRets =
      (std::is_same_v<Ps, internal::RemainingRetsTag> || ...);
  static constexpr bool kHasAttr = (internal::IsAttrTag<Ps>::value || ...);
  static constexpr bool kHasAttrs = (internal::IsAttrsTag<Ps>::value || ...);

 public:
  template <typename T>
  Binding<stage, Ps..., internal::ArgTag<T>> Arg() && {
    static_assert(!HasOptionalArg<Ps...>::value,
                  "argument can't be passed after optional argument");
    static_assert(!kHasRemainingArgs,
                  "argument can't be passed after remaining arguments");
    return {std::move(*this)};
  }
  template <typename T>
  Binding<stage, Ps..., internal::RetTag<T>> Ret() && {
    static_assert(!HasOptionalRet<Ps...>::value,
                  "result can't be passed after optional result");
    static_assert(!kHasRemainingRets,
                  "result can't be passed after remaining results");
    return {std::move(*this)};
  }
  template <typename T>
  Binding<stage, Ps..., internal::OptionalArgTag<T>> OptionalArg() && {
    static_assert(
        !kHasRemainingArgs,
        "optional argument can't be passed after remaining arguments");
    return {std::move(*this)};
  }
  template <typename T>
  Binding<stage, Ps..., internal::OptionalRetTag<T>> OptionalRet() && {
    static_assert(!kHasRemainingRets,
                  "optional result can't be passed after remaining results");
    return {std::move(*this)};
  }
  Binding<stage, Ps..., internal::RemainingArgsTag> RemainingArgs() && {
    static_assert(!kHasRemainingArgs,
                  "remaining arguments can be passed just once");
    return {std::move(*this)};
  }
  Binding<stage, Ps..., internal::RemainingRetsTag> RemainingRets() && {
    static_assert(!kHasRemainingRets,
                  "remaining results can be passed just once");
    return {std::move(*this)};
  }
  template <typename T>
  Binding<stage, Ps..., internal::AttrTag<T>> Attr(std::string name) && {
    static_assert(!kHasAttrs,
                  "dictionary attributes can't be mixed with regular ones");
    attr_names_.push_back(std::move(name));
    return {std::move(*this)};
  }
  template <typename T = Dictionary>
  Binding<stage, Ps..., internal::AttrsTag<T>> Attrs() && {
    static_assert(!kHasAttr,
                  "dictionary attributes can't be mixed with regular ones");
    static_assert(std::is_same_v<typename AttrsBinding<T>::Attrs, T> ||
                      internal::IsComplete<AttrDecoding<T>>::value,
                  ".Attrs<T>(): T must be Dictionary, a struct registered "
                  "with XFFI_REGISTER_STRUCT_ATTR_DECODING, or a type with an "
                  "AttrDecoding<T> specialisation");
    return {std::move(*this)};
  }
  template <typename T>
  Binding<stage, Ps..., internal::CtxTag<T>> Ctx() && {
    return {std::move(*this)};
  }
  // The whole context, looked up at run time (Context::get<T>()).
  Binding<stage, Ps..., internal::CtxTag<Context>> Ctx() && {
    return {std::move(*this)};
  }

  // Callable on a named binding too, as in XLA: the binding is not consumed.
  template <typename Fn>
  std::unique_ptr<Handler<stage, Fn, Ps...>> To(
      Fn fn, std::initializer_list<Traits> traits = {}) {
    XLA_FFI_Handler_Traits bits = 0;
    for (Traits t : traits) bits |= static_cast<XLA_FFI_Handler_Traits>(t);
    return std::make_unique<Handler<stage, Fn, Ps...>>(std::move(fn),
                                                       attr_names_, bits);
  }

 private:
  template <ExecutionStage, typename...>
  friend class Binding;
  friend class Ffi;

  Binding() = default;
  template <typename... Qs>
  Binding(Binding<stage, Qs...>&& other)  // NOLINT: the builder's own step
      : attr_names_(std::move(other.attr_names_)) {}

  std::vector<std::string> attr_names_;
};

template <ExecutionStage stage>
Binding<stage> Ffi::Bind() {
  return Binding<stage>();
}
inline Binding<ExecutionStage::kInstantiate> Ffi::BindInstantiate() {
  return Bind<ExecutionStage::kInstantiate>();
}
inline Binding<ExecutionStage::kPrepare> Ffi::BindPrepare() {
  return Bind<ExecutionStage::kPrepare>();
}
inline Binding<ExecutionStage::kInitialize> Ffi::BindInitialize() {
  return Bind<ExecutionStage::kInitialize>();
}
inline Binding<ExecutionStage::kExecute> Ffi::BindExecute() {
  return Bind<ExecutionStage::kExecute>();
}
inline Binding<ExecutionStage::kRecord> Ffi::BindRecord() {
  return Bind<ExecutionStage::kRecord>();
}

// ---- binding inferred from a signature

namespace internal {

template <typename T>
struct FnTraits : FnTraits<decltype(&T::operator())> {};
template <typename R, typename... As>
struct FnTraits<R(As...)> {
  using Args = std::tuple<As...>;
};
template <typename R, typename... As>
struct FnTraits<R (*)(As...)> : FnTraits<R(As...)> {};
template <typename R, typename... As>
struct FnTraits<R (*)(As...) noexcept> : FnTraits<R(As...)> {};
template <typename C, typename R, typename... As>
struct FnTraits<R (C::*)(As...)> : FnTraits<R(As...)> {};
template <typename C, typename R, typename... As>
struct FnTraits<R (C::*)(As...) const> : FnTraits<R(As...)> {};
template <typename C, typename R, typename... As>
struct FnTraits<R (C::*)(As...) noexcept> : FnTraits<R(As...)> {};
template <typename C, typename R, typename... As>
struct FnTraits<R (C::*)(As...) const noexcept> : FnTraits<R(As...)> {};

template <typename T, typename = void>
struct BindsAs : std::false_type {};
template <typename T>
struct BindsAs<T, std::enable_if_t<!std::is_void_v<T>>> : std::true_type {};

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {
  using Inner = T;
};

template <typename T, typename = void>
struct IsSelfCtx : std::false_type {};
template <typename T>
struct IsSelfCtx<
    T, std::enable_if_t<std::is_same_v<typename CtxDecoding<T>::Type, T>>>
    : std::true_type {};

template <typename A>
struct always_false : std::false_type {};

// XLA's rules first, in XLA's order (ArgBinding, RetBinding, AttrBinding,
// AttrsBinding, CtxBinding), then what xffi also infers.
template <typename Raw>
auto InferTag() {
  using A = std::remove_cv_t<std::remove_reference_t<Raw>>;
  if constexpr (BindsAs<typename ArgBinding<A>::Arg>::value) {
    return ArgTag<typename ArgBinding<A>::Arg>{};
  } else if constexpr (BindsAs<typename RetBinding<A>::Ret>::value) {
    return RetTag<typename RetBinding<A>::Ret>{};
  } else if constexpr (BindsAs<typename AttrBinding<A>::Attr>::value) {
    return AttrTag<typename AttrBinding<A>::Attr>{};
  } else if constexpr (BindsAs<typename AttrsBinding<A>::Attrs>::value) {
    return AttrsTag<typename AttrsBinding<A>::Attrs>{};
  } else if constexpr (BindsAs<typename CtxBinding<A>::Ctx>::value) {
    return CtxTag<typename CtxBinding<A>::Ctx>{};
  } else if constexpr (IsBufferType<A>::value) {
    return ArgTag<A>{};
  } else if constexpr (IsResult<A>::value) {
    return RetTag<typename IsResult<A>::Inner>{};
  } else if constexpr (IsOptional<A>::value) {
    using Inner = typename IsOptional<A>::Inner;
    if constexpr (IsResult<Inner>::value) {
      return OptionalRetTag<typename IsResult<Inner>::Inner>{};
    } else {
      return OptionalArgTag<Inner>{};
    }
  } else if constexpr (std::is_same_v<A, RemainingArgs>) {
    return RemainingArgsTag{};
  } else if constexpr (std::is_same_v<A, RemainingRets>) {
    return RemainingRetsTag{};
  } else if constexpr (IsSelfCtx<A>::value) {
    return CtxTag<A>{};
  } else {
    static_assert(always_false<A>::value,
                  "Ffi::BindTo cannot tell what this parameter is; bind it "
                  "explicitly with Ffi::Bind()");
    return ArgTag<A>{};
  }
}

template <typename Raw>
using InferredTag = decltype(InferTag<Raw>());

// The attribute name a parameter binds, from its AttrBinding.
template <typename Raw>
void AddAttrName(std::vector<std::string>& names) {
  using A = std::remove_cv_t<std::remove_reference_t<Raw>>;
  if constexpr (IsAttrTag<InferredTag<Raw>>::value) {
    names.emplace_back(AttrBinding<A>::name());
  }
}

template <ExecutionStage stage, typename Fn, typename Args>
struct BindToImpl;
template <ExecutionStage stage, typename Fn, typename... As>
struct BindToImpl<stage, Fn, std::tuple<As...>> {
  using HandlerType = Handler<stage, Fn, InferredTag<As>...>;
  static std::unique_ptr<HandlerType> Make(Fn fn, XLA_FFI_Handler_Traits bits) {
    std::vector<std::string> names;
    (AddAttrName<As>(names), ...);
    return std::make_unique<HandlerType>(std::move(fn), std::move(names), bits);
  }
};

}  // namespace internal

template <typename Fn, ExecutionStage stage>
auto Ffi::BindTo(Fn fn, std::initializer_list<Traits> traits) {
  XLA_FFI_Handler_Traits bits = 0;
  for (Traits t : traits) bits |= static_cast<XLA_FFI_Handler_Traits>(t);
  using Args = typename internal::FnTraits<std::decay_t<Fn>>::Args;
  return internal::BindToImpl<stage, Fn, Args>::Make(std::move(fn), bits);
}

// ---- registration

namespace internal {

// Handler_Register_Args as API 0.1-0.3 laid it out: the bundle had no
// `record`, so traits sit at offset 80 and the size is 84.
struct RegisterArgsV3 {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
  XLA_FFI_Handler_Traits traits;
};
static_assert(offsetof(RegisterArgsV3, traits) == 80, "0.3 layout");

}  // namespace internal

inline XLA_FFI_Error* Ffi::RegisterStaticHandler(
    const XLA_FFI_Api* api, std::string_view name, std::string_view platform,
    XLA_FFI_Handler_Bundle bundle, XLA_FFI_Handler_Traits traits) {
  XLA_FFI_ByteSpan name_span{name.data(), name.size()};
  XLA_FFI_ByteSpan platform_span{platform.data(), platform.size()};
  if (api->api_version.minor_version <= 3) {
    if (bundle.record != nullptr) {
      return internal::CreateError(
          api, XLA_FFI_Error_Code_UNIMPLEMENTED,
          internal::StrCat("handler '", name,
                           "' has a record stage, which "
                           "needs XLA FFI API 0.4; the runtime has 0.",
                           api->api_version.minor_version));
    }
    internal::RegisterArgsV3 args;
    args.struct_size = offsetof(internal::RegisterArgsV3, traits) +
                       sizeof(XLA_FFI_Handler_Traits);
    args.extension_start = nullptr;
    args.name = name_span;
    args.platform = platform_span;
    args.instantiate = bundle.instantiate;
    args.prepare = bundle.prepare;
    args.initialize = bundle.initialize;
    args.execute = bundle.execute;
    args.traits = traits;
    return api->XLA_FFI_Handler_Register(
        reinterpret_cast<XLA_FFI_Handler_Register_Args*>(&args));
  }
  XLA_FFI_Handler_Register_Args args;
  args.struct_size = XLA_FFI_Handler_Register_Args_STRUCT_SIZE;
  args.extension_start = nullptr;
  args.name = name_span;
  args.platform = platform_span;
  args.bundle = bundle;
  args.traits = traits;
  return api->XLA_FFI_Handler_Register(&args);
}

inline XLA_FFI_Error* Ffi::RegisterStaticHandler(
    const XLA_FFI_Api* api, std::string_view name, std::string_view platform,
    XLA_FFI_Handler* execute, XLA_FFI_Handler_Traits traits) {
  XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, execute, nullptr};
  return RegisterStaticHandler(api, name, platform, bundle, traits);
}

namespace internal {

// Weak: null when no xffi runtime (nothing exporting XLA_FFI_GetApi) is in
// the process, so a handler library never needs libxffi to link or load.
static const XLA_FFI_Api* WeakGetApi(void)
    __attribute__((weakref("XLA_FFI_GetApi")));

}  // namespace internal

// The xffi runtime's API table when libxffi is loaded, else null.
inline const XLA_FFI_Api* RuntimeApi() {
  return internal::WeakGetApi ? internal::WeakGetApi() : nullptr;
}

// XLA's name for the API of the runtime in this process (XLA links its own
// definition into its binaries): here xffi's, when libxffi is loaded.
inline const XLA_FFI_Api* GetXlaFfiApi() { return RuntimeApi(); }

}  // namespace xffi::ffi

#endif  // XFFI_FFI_API_H_
