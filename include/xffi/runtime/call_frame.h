// xffi: call frames, built once and reused.
//
// A CallFrame is an XLA_FFI_CallFrame with the storage behind it: buffer
// descriptors, dimensions and the encoded attributes. An executor builds one
// per call site when it compiles a program and, per run, only repoints the
// buffers' data; CallHandler (runtime/call.h) fills in the API table, the
// context and the stage at each call.
//
//   float x[4] = {...}, y[4];
//   xffi::CallFrame frame = xffi::CallFrameBuilder()
//                               .Arg(x, {4}).Ret(y, {4})
//                               .Attr("eps", 1e-6f).Build();
//   xffi::CallResult result = xffi::CallHandler(handler, frame.get());
#ifndef XFFI_RUNTIME_CALL_FRAME_H_
#define XFFI_RUNTIME_CALL_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/attributes.h"

namespace xffi {

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

  // The buffer descriptors themselves, for a caller that repoints the same
  // buffers on every run and wants no check in its loop. Their addresses
  // never change while the frame lives. `index` must be in range.
  XLA_FFI_Buffer* arg_buffer(size_t index);
  XLA_FFI_Buffer* ret_buffer(size_t index);

  size_t num_args() const;
  size_t num_rets() const;

  // Keeps the storage alive (e.g. until an asynchronous call that reads the
  // frame completes).
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
  // See AttributeMap::Set for why C strings take a template.
  template <typename CString,
            typename = std::enable_if_t<std::is_same_v<CString, const char*> ||
                                        std::is_same_v<CString, char*>>>
  CallFrameBuilder& Attr(std::string name, CString value) {
    attrs_.Set(std::move(name), value);
    return *this;
  }
  // Adds every entry of `attrs`.
  CallFrameBuilder& Attrs(const AttributeMap& attrs);

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
  AttributeMap attrs_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_CALL_FRAME_H_
