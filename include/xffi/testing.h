// xffi: a harness for calling a handler without a program.
//
// Build a call frame (buffers, tokens, attributes of every kind), then
// Invoke any handler: an XLA_FFI_Handler* built with xffi's or XLA's header,
// or a handler object with `XLA_FFI_Error* Call(XLA_FFI_CallFrame*) const`.
//
//   float x[4] = {...}, y[4];
//   auto frame = xffi::testing::CallFrameBuilder()
//                    .Arg(x, {4}).Ret(y, {4}).Attr("eps", 1e-6f).Build();
//   xffi::testing::InvokeResult result = xffi::testing::Invoke(handler, frame);
//   EXPECT_TRUE(result.ok()) << result.message();
//
// Custom options (CustomOptions_Get) are an attribute dictionary too: build
// a frame holding them and point the context at its attributes:
//   auto options = CallFrameBuilder().Attr("mode", "fast").Build();
//   context.set_custom_options(&options.get()->attrs);
//
// Does not include ffi.h: handlers built with XLA's header are tested too.
#ifndef XFFI_TESTING_H_
#define XFFI_TESTING_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/future.h"
#include "xffi/runtime/status.h"

namespace xffi::testing {

class Dictionary;

// One attribute value. Integer literals pick their exact type (5 is
// int32_t, int64_t{5} is int64_t); a string literal is a string.
using AttrValue = std::variant<
    bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
    uint64_t, float, double, std::complex<float>, std::complex<double>,
    std::string, std::vector<int8_t>, std::vector<int16_t>,
    std::vector<int32_t>, std::vector<int64_t>, std::vector<uint8_t>,
    std::vector<uint16_t>, std::vector<uint32_t>, std::vector<uint64_t>,
    std::vector<float>, std::vector<double>, Dictionary>;

// Attributes by name. Setting a name again replaces its value. The call
// frame lists entries sorted by name, as XLA does, whatever the order here.
class Dictionary {
 public:
  Dictionary& Set(std::string name, AttrValue value);
  // C strings become string attributes rather than bools. A template, not a
  // `const char*` overload, because GCC takes an integer constant 0 (such as
  // int64_t{0}) for a null pointer and would pick that overload.
  template <typename CString,
            typename = std::enable_if_t<std::is_same_v<CString, const char*> ||
                                        std::is_same_v<CString, char*>>>
  Dictionary& Set(std::string name, CString value) {
    return SetCString(std::move(name), value);
  }

  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  bool contains(std::string_view name) const;
  const AttrValue* Find(std::string_view name) const;  // null when absent

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<AttrValue>& values() const { return values_; }

 private:
  Dictionary& SetCString(std::string name, const char* value);

  std::vector<std::string> names_;
  std::vector<AttrValue> values_;
};

// The XLA_FFI_DataType of a C++ element type.
template <typename T>
constexpr XLA_FFI_DataType DataTypeOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return XLA_FFI_DataType_PRED;
  else if constexpr (std::is_same_v<U, int8_t>)
    return XLA_FFI_DataType_S8;
  else if constexpr (std::is_same_v<U, int16_t>)
    return XLA_FFI_DataType_S16;
  else if constexpr (std::is_same_v<U, int32_t>)
    return XLA_FFI_DataType_S32;
  else if constexpr (std::is_same_v<U, int64_t>)
    return XLA_FFI_DataType_S64;
  else if constexpr (std::is_same_v<U, uint8_t>)
    return XLA_FFI_DataType_U8;
  else if constexpr (std::is_same_v<U, uint16_t>)
    return XLA_FFI_DataType_U16;
  else if constexpr (std::is_same_v<U, uint32_t>)
    return XLA_FFI_DataType_U32;
  else if constexpr (std::is_same_v<U, uint64_t>)
    return XLA_FFI_DataType_U64;
  else if constexpr (std::is_same_v<U, float>)
    return XLA_FFI_DataType_F32;
  else if constexpr (std::is_same_v<U, double>)
    return XLA_FFI_DataType_F64;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return XLA_FFI_DataType_C64;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return XLA_FFI_DataType_C128;
  else {
    static_assert(sizeof(U) == 0,
                  "no XLA_FFI_DataType for this element type; pass the dtype "
                  "explicitly with Arg(void*, dtype, dims)");
    return XLA_FFI_DataType_INVALID;
  }
}

// A built call frame. Owns all its storage; moving it keeps every address
// the frame holds valid. Copies share the storage.
class CallFrame {
 public:
  struct Storage;
  explicit CallFrame(std::shared_ptr<Storage> storage);

  XLA_FFI_CallFrame* get();
  const XLA_FFI_CallFrame* get() const;

  // Repoint a buffer, as an executor does between runs. An index out of
  // range throws std::out_of_range.
  void SetArgData(size_t index, void* data);
  void SetRetData(size_t index, void* data);

  size_t num_args() const;
  size_t num_rets() const;

  // Keeps the storage alive (the harness holds it until an asynchronous
  // call completes).
  std::shared_ptr<const void> keep_alive() const { return storage_; }

 private:
  std::shared_ptr<Storage> storage_;
};

class CallFrameBuilder {
 public:
  CallFrameBuilder& Arg(void* data, XLA_FFI_DataType dtype,
                        std::vector<int64_t> dims);
  template <typename T>
  CallFrameBuilder& Arg(T* data, std::vector<int64_t> dims) {
    return Arg(const_cast<std::remove_cv_t<T>*>(data), DataTypeOf<T>(),
               std::move(dims));
  }
  // dtype TOKEN, no data, rank 0.
  CallFrameBuilder& TokenArg();

  CallFrameBuilder& Ret(void* data, XLA_FFI_DataType dtype,
                        std::vector<int64_t> dims);
  template <typename T>
  CallFrameBuilder& Ret(T* data, std::vector<int64_t> dims) {
    return Ret(static_cast<void*>(data), DataTypeOf<T>(), std::move(dims));
  }
  CallFrameBuilder& TokenRet();

  CallFrameBuilder& Attr(std::string name, AttrValue value);
  // See Dictionary::Set for why C strings take a template.
  template <typename CString,
            typename = std::enable_if_t<std::is_same_v<CString, const char*> ||
                                        std::is_same_v<CString, char*>>>
  CallFrameBuilder& Attr(std::string name, CString value) {
    attrs_.Set(std::move(name), value);
    return *this;
  }
  // Adds every entry of `attrs`.
  CallFrameBuilder& Attrs(const Dictionary& attrs);

  // Sorts attributes by name, as XLA does. The builder can be reused.
  CallFrame Build() const;

 private:
  struct BufferSpec {
    void* data;
    XLA_FFI_DataType dtype;
    std::vector<int64_t> dims;
  };
  std::vector<BufferSpec> args_;
  std::vector<BufferSpec> rets_;
  Dictionary attrs_;
};

struct InvokeOptions {
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_EXECUTE;
  ExecutionContext* context = nullptr;  // null: a default Host context
  CallSiteState* state = nullptr;       // reuse across Invokes to keep state
  const XLA_FFI_Api* api = nullptr;     // null: xffi::GetApi()
  // The version the handler reports (decides how State_* calls are read);
  // InvokeRegistered takes it from the registry.
  int handler_api_minor = XLA_FFI_API_MINOR;
  std::string target_name;  // for error messages
};

// The outcome of one call. For an asynchronous call, ok()/code()/message()
// wait for completion first.
class InvokeResult {
 public:
  InvokeResult(Status status, std::shared_ptr<AsyncValue> future);

  bool ok() const { return status().ok(); }
  XLA_FFI_Error_Code code() const { return status().code(); }
  const std::string& message() const { return status().message(); }
  const Status& status() const;

  bool is_async() const { return future_ != nullptr; }
  bool is_ready() const;  // true for a synchronous result
  InvokeResult& Wait();   // blocks until an async result completes
  const std::shared_ptr<AsyncValue>& future() const { return future_; }

 private:
  mutable Status status_;
  std::shared_ptr<AsyncValue> future_;
  mutable bool resolved_;
};

// Calls `handler` with the frame. The frame's storage is kept alive until
// an asynchronous call completes, even if `frame` is destroyed earlier.
InvokeResult Invoke(XLA_FFI_Handler* handler, CallFrame& frame,
                    const InvokeOptions& options = {});

// For handler objects (xffi::ffi / xla::ffi handlers).
InvokeResult InvokeWithThunk(HandlerThunk thunk, const void* object,
                             CallFrame& frame, const InvokeOptions& options);

template <typename H, typename = decltype(std::declval<const H&>().Call(
                          std::declval<XLA_FFI_CallFrame*>()))>
InvokeResult Invoke(const H& handler, CallFrame& frame,
                    const InvokeOptions& options = {}) {
  return InvokeWithThunk(
      [](const void* object, XLA_FFI_CallFrame* call_frame) {
        return static_cast<const H*>(object)->Call(call_frame);
      },
      &handler, frame, options);
}

template <typename H, typename = decltype(std::declval<const H&>().Call(
                          std::declval<XLA_FFI_CallFrame*>()))>
InvokeResult Invoke(const std::unique_ptr<H>& handler, CallFrame& frame,
                    const InvokeOptions& options = {}) {
  if (handler == nullptr) {
    return InvokeResult(InvalidArgument("Invoke: the handler is null"),
                        nullptr);
  }
  return Invoke(*handler, frame, options);
}

// Calls the handler registered as (name, platform): the bundle member for
// options.stage, with the API version the handler reported. A missing
// handler or stage is an error result.
InvokeResult InvokeRegistered(std::string_view name, std::string_view platform,
                              CallFrame& frame, InvokeOptions options = {});

}  // namespace xffi::testing

#endif  // XFFI_TESTING_H_
