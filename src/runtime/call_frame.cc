// Call frames: the storage behind an XLA_FFI_CallFrame, laid out once.
#include "xffi/runtime/call_frame.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <string>

namespace xffi {

// Deques never move their elements, so every pointer the frame holds into
// them stays valid as the storage grows during Build.
struct CallFrame::Storage {
  XLA_FFI_CallFrame frame{};

  std::deque<std::vector<int64_t>> dims;
  std::vector<XLA_FFI_Buffer> args;
  std::vector<XLA_FFI_Buffer> rets;
  std::vector<XLA_FFI_ArgType> arg_types;
  std::vector<XLA_FFI_RetType> ret_types;
  std::vector<void*> arg_pointers;
  std::vector<void*> ret_pointers;

  struct Dict {
    XLA_FFI_Attrs attrs{};
    std::vector<XLA_FFI_AttrType> types;
    std::vector<XLA_FFI_ByteSpan*> names;
    std::vector<void*> values;
  };
  std::deque<Dict> dicts;
  std::deque<std::string> strings;
  std::deque<XLA_FFI_ByteSpan> spans;
  std::deque<AttrValue> values;  // copies the scalars and arrays point into
  std::deque<XLA_FFI_Scalar> scalars;
  std::deque<XLA_FFI_Array> arrays;

  XLA_FFI_ByteSpan* Span(const std::string& text) {
    const std::string& kept = strings.emplace_back(text);
    return &spans.emplace_back(XLA_FFI_ByteSpan{kept.data(), kept.size()});
  }

  // Returns the type and the pointer the frame lists for one value.
  std::pair<XLA_FFI_AttrType, void*> Encode(const AttrValue& value) {
    if (const auto* dict = std::get_if<AttributeMap>(&value)) {
      return {XLA_FFI_AttrType_DICTIONARY, Encode(*dict)};
    }
    if (const auto* text = std::get_if<std::string>(&value)) {
      return {XLA_FFI_AttrType_STRING, Span(*text)};
    }
    const AttrValue& kept = values.emplace_back(value);
    return std::visit(
        [this](const auto& v) -> std::pair<XLA_FFI_AttrType, void*> {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, AttributeMap> ||
                        std::is_same_v<T, std::string>) {
            return {XLA_FFI_AttrType_STRING, nullptr};  // handled above
          } else if constexpr (IsVector<T>::value) {
            using E = typename T::value_type;
            return {XLA_FFI_AttrType_ARRAY,
                    &arrays.emplace_back(XLA_FFI_Array{
                        DataTypeOf<E>(), v.size(), const_cast<E*>(v.data())})};
          } else {
            return {XLA_FFI_AttrType_SCALAR,
                    &scalars.emplace_back(
                        XLA_FFI_Scalar{DataTypeOf<T>(), const_cast<T*>(&v)})};
          }
        },
        kept);
  }

  // Entries sorted bytewise by name.
  XLA_FFI_Attrs* Encode(const AttributeMap& dict) {
    std::vector<size_t> order(dict.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&dict](size_t a, size_t b) {
      return dict.names()[a] < dict.names()[b];
    });
    Dict& node = dicts.emplace_back();
    for (size_t i : order) {
      auto [type, pointer] = Encode(dict.values()[i]);
      node.types.push_back(type);
      node.names.push_back(Span(dict.names()[i]));
      node.values.push_back(pointer);
    }
    node.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
    node.attrs.size = static_cast<int64_t>(order.size());
    node.attrs.types = node.types.data();
    node.attrs.names = node.names.data();
    node.attrs.attrs = node.values.data();
    return &node.attrs;
  }

  template <typename T>
  struct IsVector : std::false_type {};
  template <typename E>
  struct IsVector<std::vector<E>> : std::true_type {};
};

CallFrame::CallFrame(std::shared_ptr<Storage> storage)
    : storage_(std::move(storage)) {}

XLA_FFI_CallFrame* CallFrame::get() { return &storage_->frame; }
const XLA_FFI_CallFrame* CallFrame::get() const { return &storage_->frame; }

size_t CallFrame::num_args() const { return storage_->args.size(); }
size_t CallFrame::num_rets() const { return storage_->rets.size(); }

XLA_FFI_Buffer* CallFrame::arg_buffer(size_t index) {
  return &storage_->args[index];
}
XLA_FFI_Buffer* CallFrame::ret_buffer(size_t index) {
  return &storage_->rets[index];
}

void CallFrame::SetArgData(size_t index, void* data) {
  if (index >= storage_->args.size()) {
    throw std::out_of_range("CallFrame::SetArgData: argument index " +
                            std::to_string(index) + " is out of range (" +
                            std::to_string(storage_->args.size()) +
                            " arguments)");
  }
  storage_->args[index].data = data;
}

void CallFrame::SetRetData(size_t index, void* data) {
  if (index >= storage_->rets.size()) {
    throw std::out_of_range("CallFrame::SetRetData: result index " +
                            std::to_string(index) + " is out of range (" +
                            std::to_string(storage_->rets.size()) +
                            " results)");
  }
  storage_->rets[index].data = data;
}

CallFrameBuilder& CallFrameBuilder::Arg(void* data, XLA_FFI_DataType dtype,
                                        std::vector<int64_t> dims) {
  args_.push_back({data, dtype, std::move(dims)});
  return *this;
}

CallFrameBuilder& CallFrameBuilder::TokenArg() {
  return Arg(nullptr, XLA_FFI_DataType_TOKEN, {});
}

CallFrameBuilder& CallFrameBuilder::Ret(void* data, XLA_FFI_DataType dtype,
                                        std::vector<int64_t> dims) {
  rets_.push_back({data, dtype, std::move(dims)});
  return *this;
}

CallFrameBuilder& CallFrameBuilder::TokenRet() {
  return Ret(nullptr, XLA_FFI_DataType_TOKEN, {});
}

CallFrameBuilder& CallFrameBuilder::Attr(std::string name, AttrValue value) {
  attrs_.Set(std::move(name), std::move(value));
  return *this;
}

CallFrameBuilder& CallFrameBuilder::Attrs(const AttributeMap& attrs) {
  for (size_t i = 0; i < attrs.size(); ++i) {
    attrs_.Set(attrs.names()[i], attrs.values()[i]);
  }
  return *this;
}

CallFrame CallFrameBuilder::Build() const {
  auto storage = std::make_shared<CallFrame::Storage>();
  auto fill = [&storage](const std::vector<BufferSpec>& specs,
                         std::vector<XLA_FFI_Buffer>& buffers,
                         std::vector<void*>& pointers) {
    buffers.resize(specs.size());
    pointers.resize(specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      std::vector<int64_t>& dims = storage->dims.emplace_back(specs[i].dims);
      XLA_FFI_Buffer& buffer = buffers[i];
      buffer.struct_size = XLA_FFI_Buffer_STRUCT_SIZE;
      buffer.extension_start = nullptr;
      buffer.dtype = specs[i].dtype;
      buffer.data = specs[i].data;
      buffer.rank = static_cast<int64_t>(dims.size());
      buffer.dims = dims.data();
      pointers[i] = &buffer;
    }
  };
  fill(args_, storage->args, storage->arg_pointers);
  fill(rets_, storage->rets, storage->ret_pointers);
  storage->arg_types.assign(args_.size(), XLA_FFI_ArgType_BUFFER);
  storage->ret_types.assign(rets_.size(), XLA_FFI_RetType_BUFFER);

  XLA_FFI_CallFrame& frame = storage->frame;
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  frame.extension_start = nullptr;
  frame.api = nullptr;  // Invoke fills api, ctx and stage
  frame.ctx = nullptr;
  frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
  frame.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
  frame.args.size = static_cast<int64_t>(args_.size());
  frame.args.types = storage->arg_types.data();
  frame.args.args = storage->arg_pointers.data();
  frame.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
  frame.rets.size = static_cast<int64_t>(rets_.size());
  frame.rets.types = storage->ret_types.data();
  frame.rets.rets = storage->ret_pointers.data();
  frame.attrs = *storage->Encode(attrs_);
  frame.future = nullptr;
  return CallFrame(std::move(storage));
}

}  // namespace xffi
