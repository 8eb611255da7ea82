// Fuzz target: call-frame decoding by handlers bound with the C++ DSL
// (include/xffi/ffi.h). The input describes an XLA_FFI_CallFrame — which of
// four bindings to call, the frame's struct size, stage and extension,
// argument and result buffers (kinds, dtypes, ranks, dims, struct sizes),
// and an attribute dictionary of every attribute kind, nested, sorted or not,
// with out-of-contract types and dtypes — which the target builds with valid
// storage behind every pointer, as any runtime would, and calls.
//
// Properties, beyond no crash, leak or undefined behaviour:
// - a model of each binding (written here independently of the DSL) says
//   whether a frame with sorted, unique attribute names decodes; the handler
//   runs exactly when it says so;
// - a handler that runs sees exactly the frame's values (dims, data pointers,
//   attribute values, dictionary entries through get<T>/isa<T>);
// - a refused frame's error is INVALID_ARGUMENT and names the first
//   parameter the model finds wrong ("argument 1: ", "attribute 'eps': ").
//
// Out of scope: pointers that do not point at valid storage, negative ranks
// and dims (every runtime builds these from shapes; nothing can check them).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <sanitizer/asan_interface.h>

#include "fuzz_targets.h"
#include "xffi/ffi.h"
#include "xffi/runtime/api.h"

namespace ffi = xffi::ffi;

// Not in an anonymous namespace: clang then warns that the decoders'
// kAttrType/kDType members are unused (-Wunused-const-variable).
namespace fuzz_call_frame_types {

struct Params {
  float eps;
  int32_t n;
  ffi::Span<const int64_t> dims;
};

enum class Mode : int32_t { kA = 0, kB = 1 };

}  // namespace fuzz_call_frame_types

using fuzz_call_frame_types::Mode;
using fuzz_call_frame_types::Params;

XFFI_REGISTER_STRUCT_ATTR_DECODING(
    Params, ffi::StructMember<float>("eps"), ffi::StructMember<int32_t>("n"),
    ffi::StructMember<ffi::Span<const int64_t>>("dims"));
XFFI_REGISTER_ENUM_ATTR_DECODING(Mode);

namespace xffi::fuzz {
namespace {

// ---- reading the input

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int32_t Int32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | Byte();
    return static_cast<int32_t>(v);
  }
  std::string Bytes(size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(Byte()));
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

constexpr int32_t kDTypes[] = {
    XLA_FFI_DataType_PRED,  XLA_FFI_DataType_S8,  XLA_FFI_DataType_S16,
    XLA_FFI_DataType_S32,   XLA_FFI_DataType_S64, XLA_FFI_DataType_U8,
    XLA_FFI_DataType_U16,   XLA_FFI_DataType_U32, XLA_FFI_DataType_U64,
    XLA_FFI_DataType_F16,   XLA_FFI_DataType_F32, XLA_FFI_DataType_F64,
    XLA_FFI_DataType_BF16,  XLA_FFI_DataType_C64, XLA_FFI_DataType_C128,
    XLA_FFI_DataType_TOKEN, XLA_FFI_DataType_S4,  XLA_FFI_DataType_INVALID};

// Mostly a valid dtype; sometimes any 32-bit value (a newer runtime's, or
// garbage), which a decoder must compare without loading it as the C enum.
int32_t ReadDType(Reader& in) {
  uint8_t b = in.Byte();
  if (b < 0xf0) return kDTypes[b % std::size(kDTypes)];
  return in.Int32();
}

size_t Width(int32_t dtype) {
  switch (dtype) {
    case XLA_FFI_DataType_PRED:
    case XLA_FFI_DataType_S8:
    case XLA_FFI_DataType_U8:
    case XLA_FFI_DataType_S4:
      return 1;
    case XLA_FFI_DataType_S16:
    case XLA_FFI_DataType_U16:
    case XLA_FFI_DataType_F16:
    case XLA_FFI_DataType_BF16:
      return 2;
    case XLA_FFI_DataType_S32:
    case XLA_FFI_DataType_U32:
    case XLA_FFI_DataType_F32:
      return 4;
    case XLA_FFI_DataType_S64:
    case XLA_FFI_DataType_U64:
    case XLA_FFI_DataType_F64:
    case XLA_FFI_DataType_C64:
      return 8;
    case XLA_FFI_DataType_C128:
      return 16;
    default:
      return 0;
  }
}

// The contract says a kind field holds 1 (BUFFER); anything else must be
// refused without being loaded as the C enum.
int32_t ReadKind(Reader& in) {
  uint8_t b = in.Byte();
  return b < 0xf8 ? 1 : static_cast<int32_t>(b & 7);
}

size_t ReadStructSize(Reader& in, size_t good) {
  uint8_t b = in.Byte();
  return b < 0xf0 ? good : static_cast<size_t>(b & 0x7f);
}

// ---- the frame the input describes, and the storage behind it

struct BufferSpec {
  int32_t kind;
  int32_t dtype;
  std::vector<int64_t> dims;
  char* data = nullptr;  // a slot of the arena below, or none
  size_t bytes = 0;
  XLA_FFI_Buffer c;
};

// The storage behind buffers' data pointers: a slot per buffer of a frame
// (at most 4 arguments and 4 results of up to 4096 elements of 16 bytes),
// reused by every input. Allocating and zeroing up to 64 KiB per buffer for
// each input cost more than the decoding under test. Under ASan only the
// bytes a buffer has are addressable, as with an allocation of its size;
// each buffer's pointer is distinct, so a handler given the wrong buffer
// still sees the wrong pointer.
constexpr size_t kMaxBuffers = 4;
constexpr int64_t kMaxElements = 4096;
constexpr size_t kSlotBytes = size_t{kMaxElements} * 16;
alignas(64) char arena[2 * kMaxBuffers * kSlotBytes];

char* LeaseSlot(size_t slot, size_t bytes) {
  static const bool poisoned = [] {
    ASAN_POISON_MEMORY_REGION(arena, sizeof(arena));
    return true;
  }();
  (void)poisoned;
  char* data = arena + slot * kSlotBytes;
  ASAN_UNPOISON_MEMORY_REGION(data, bytes);
  return data;
}

void ReturnSlot(const BufferSpec& b) {
  if (b.data != nullptr) ASAN_POISON_MEMORY_REGION(b.data, b.bytes);
}

struct AttrSpec {
  std::string name;
  int32_t type;
  int32_t dtype = 0;              // scalar and array element type
  size_t count = 0;               // array elements
  std::string bytes;              // scalar value, array data or string
  std::vector<AttrSpec> members;  // dictionary
};

constexpr const char* kNames[] = {"eps",  "n",    "name", "dims",
                                  "flag", "mode", "c",    "nested",
                                  "kind", "x",    "",     "epsilon"};

AttrSpec ReadAttr(Reader& in, int depth);

std::vector<AttrSpec> ReadDict(Reader& in, int depth, bool sort) {
  std::vector<AttrSpec> attrs(in.Byte() % (depth == 0 ? 8 : 4));
  for (AttrSpec& a : attrs) a = ReadAttr(in, depth);
  if (sort) {
    std::stable_sort(
        attrs.begin(), attrs.end(),
        [](const AttrSpec& a, const AttrSpec& b) { return a.name < b.name; });
  }
  return attrs;
}

AttrSpec ReadAttr(Reader& in, int depth) {
  AttrSpec a;
  uint8_t n = in.Byte();
  a.name = n < 0xf0 ? kNames[n % std::size(kNames)] : in.Bytes(n & 7);
  uint8_t t = in.Byte();
  a.type = t < 0xf8 ? 1 + t % 4 : (t & 1 ? 0 : in.Int32());
  switch (a.type) {
    case XLA_FFI_AttrType_SCALAR:
      a.dtype = ReadDType(in);
      a.bytes = in.Bytes(Width(a.dtype));
      break;
    case XLA_FFI_AttrType_ARRAY:
      a.dtype = ReadDType(in);
      a.count = in.Byte() % 5;
      a.bytes = in.Bytes(Width(a.dtype) * a.count);
      break;
    case XLA_FFI_AttrType_STRING:
      a.bytes = in.Bytes(in.Byte() % 9);
      break;
    case XLA_FFI_AttrType_DICTIONARY:
      if (depth < 3) a.members = ReadDict(in, depth + 1, true);
      break;
    default:
      break;
  }
  return a;
}

// C structures over the specs. Every pointer points into storage owned here.
struct CAttrs {
  XLA_FFI_Attrs c{};
  std::vector<int32_t> types;  // raw, as the kinds above
  std::vector<XLA_FFI_ByteSpan> names;
  std::vector<XLA_FFI_ByteSpan*> name_ptrs;
  std::vector<void*> values;
  std::vector<XLA_FFI_Scalar> scalars;
  std::vector<XLA_FFI_Array> arrays;
  std::vector<XLA_FFI_ByteSpan> strings;
  std::vector<std::unique_ptr<CAttrs>> dicts;
};

void BuildAttrs(const std::vector<AttrSpec>& specs, size_t struct_size,
                CAttrs& out) {
  size_t n = specs.size();
  out.types.resize(n);
  out.names.resize(n);
  out.name_ptrs.resize(n);
  out.values.resize(n);
  out.scalars.resize(n);
  out.arrays.resize(n);
  out.strings.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const AttrSpec& a = specs[i];
    out.types[i] = a.type;
    out.names[i] = {a.name.data(), a.name.size()};
    out.name_ptrs[i] = &out.names[i];
    switch (a.type) {
      case XLA_FFI_AttrType_SCALAR:
        std::memcpy(&out.scalars[i].dtype, &a.dtype, sizeof(int32_t));
        out.scalars[i].value = const_cast<char*>(a.bytes.data());
        out.values[i] = &out.scalars[i];
        break;
      case XLA_FFI_AttrType_ARRAY:
        std::memcpy(&out.arrays[i].dtype, &a.dtype, sizeof(int32_t));
        out.arrays[i].size = a.count;
        out.arrays[i].data = const_cast<char*>(a.bytes.data());
        out.values[i] = &out.arrays[i];
        break;
      case XLA_FFI_AttrType_STRING:
        out.strings[i] = {a.bytes.data(), a.bytes.size()};
        out.values[i] = &out.strings[i];
        break;
      case XLA_FFI_AttrType_DICTIONARY: {
        auto dict = std::make_unique<CAttrs>();
        BuildAttrs(a.members, XLA_FFI_Attrs_STRUCT_SIZE, *dict);
        out.values[i] = &dict->c;
        out.dicts.push_back(std::move(dict));
        break;
      }
      default:
        // An unknown kind: the pointer leads to an empty string span, so a
        // decoder that reads it anyway reads valid memory (ASan still sees
        // a read past it).
        out.strings[i] = {nullptr, 0};
        out.values[i] = &out.strings[i];
        break;
    }
  }
  out.c.struct_size = struct_size;
  out.c.extension_start = nullptr;
  out.c.size = static_cast<int64_t>(n);
  out.c.types = reinterpret_cast<XLA_FFI_AttrType*>(out.types.data());
  out.c.names = out.name_ptrs.data();
  out.c.attrs = out.values.data();
}

struct Frame {
  int binding = 0;
  bool bad_frame_size = false;
  int32_t stage = XLA_FFI_ExecutionStage_EXECUTE;
  int extension = 0;  // 0 none, 1 metadata, 2 metadata too small, 3 other
  bool sorted = true;
  std::vector<BufferSpec> args, rets;
  size_t args_struct_size = 0, rets_struct_size = 0, attrs_struct_size = 0;
  std::vector<AttrSpec> attrs;

  // C storage.
  // Raw kinds: values outside the C enums' ranges must never be loaded
  // through the enum type, by the decoders or here.
  std::vector<int32_t> arg_types, ret_types;
  std::vector<void*> arg_ptrs, ret_ptrs;
  CAttrs c_attrs;
  XLA_FFI_Metadata metadata{};
  XLA_FFI_Metadata_Extension metadata_extension{};
  XLA_FFI_InternalExtension other_extension{};
  XLA_FFI_CallFrame c{};

  Frame() = default;
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  ~Frame() {
    for (const BufferSpec& b : args) ReturnSlot(b);
    for (const BufferSpec& b : rets) ReturnSlot(b);
  }
};

void ReadBuffers(Reader& in, size_t first_slot, std::vector<BufferSpec>& out) {
  out.resize(in.Byte() % (kMaxBuffers + 1));
  size_t slot = first_slot;
  for (BufferSpec& b : out) {
    b.kind = ReadKind(in);
    b.dtype = ReadDType(in);
    b.dims.resize(in.Byte() % 5);
    int64_t count = 1;
    for (int64_t& d : b.dims) {
      uint8_t v = in.Byte();
      d = v < 0xf0 ? v % 6 : (int64_t{1} << (v % 63)) - 1;
      count = d > kMaxElements || count * d > kMaxElements ? kMaxElements + 1
                                                           : count * d;
    }
    if (count <= kMaxElements) {
      b.bytes =
          std::max<size_t>(1, static_cast<size_t>(count) * Width(b.dtype));
      b.data = LeaseSlot(slot, b.bytes);
    }
    ++slot;
    b.c.struct_size = ReadStructSize(in, XLA_FFI_Buffer_STRUCT_SIZE);
    b.c.extension_start = nullptr;
    std::memcpy(&b.c.dtype, &b.dtype, sizeof(int32_t));
    b.c.data = b.data;
    b.c.rank = static_cast<int64_t>(b.dims.size());
    b.c.dims = b.dims.data();
  }
}

void ReadFrame(Reader& in, Frame& f) {
  f.binding = in.Byte() % 4;
  uint8_t flags = in.Byte();
  f.bad_frame_size = (flags & 0xf) == 1;
  if ((flags & 0xf) == 2) {
    uint8_t b = in.Byte();
    f.stage = b < 0xf0 ? b % 6 : in.Int32();
  }
  f.extension = (flags >> 4) & 3;
  f.sorted = (flags & 0xc0) != 0xc0;
  ReadBuffers(in, 0, f.args);
  ReadBuffers(in, kMaxBuffers, f.rets);
  f.args_struct_size = ReadStructSize(in, XLA_FFI_Args_STRUCT_SIZE);
  f.rets_struct_size = ReadStructSize(in, XLA_FFI_Rets_STRUCT_SIZE);
  f.attrs_struct_size = ReadStructSize(in, XLA_FFI_Attrs_STRUCT_SIZE);
  f.attrs = ReadDict(in, 0, f.sorted);
}

void BuildFrame(Frame& f) {
  static_assert(sizeof(XLA_FFI_ArgType) == sizeof(int32_t) &&
                    sizeof(XLA_FFI_RetType) == sizeof(int32_t),
                "kinds are C enums of int size");
  for (BufferSpec& b : f.args) {
    f.arg_types.push_back(b.kind);
    f.arg_ptrs.push_back(&b.c);
  }
  for (BufferSpec& b : f.rets) {
    f.ret_types.push_back(b.kind);
    f.ret_ptrs.push_back(&b.c);
  }
  BuildAttrs(f.attrs, f.attrs_struct_size, f.c_attrs);
  XLA_FFI_CallFrame& c = f.c;
  c.struct_size = f.bad_frame_size ? XLA_FFI_CallFrame_STRUCT_SIZE - 8
                                   : XLA_FFI_CallFrame_STRUCT_SIZE;
  c.api = xffi::GetApi();
  c.ctx = nullptr;
  std::memcpy(&c.stage, &f.stage, sizeof(int32_t));
  c.args = {f.args_struct_size, nullptr, static_cast<int64_t>(f.args.size()),
            reinterpret_cast<XLA_FFI_ArgType*>(f.arg_types.data()),
            f.arg_ptrs.data()};
  c.rets = {f.rets_struct_size, nullptr, static_cast<int64_t>(f.rets.size()),
            reinterpret_cast<XLA_FFI_RetType*>(f.ret_types.data()),
            f.ret_ptrs.data()};
  c.attrs = f.c_attrs.c;
  c.future = nullptr;
  if (f.extension == 1 || f.extension == 2) {
    f.metadata.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
    f.metadata_extension.extension_base.struct_size =
        f.extension == 1 ? XLA_FFI_Metadata_Extension_STRUCT_SIZE : 8;
    f.metadata_extension.extension_base.type = XLA_FFI_Extension_Metadata;
    f.metadata_extension.metadata = &f.metadata;
    c.extension_start = &f.metadata_extension.extension_base;
  } else if (f.extension == 3) {
    // An extension this header does not know: ignored, as XLA ignores it.
    f.other_extension.struct_size = sizeof(XLA_FFI_InternalExtension);
    int32_t unknown = 7;
    std::memcpy(&f.other_extension.type, &unknown, sizeof(int32_t));
    c.extension_start = &f.other_extension;
  }
}

// ---- the model: what each binding accepts, independently of the DSL

// One parameter of a binding, in declaration order.
struct ParamModel {
  enum Kind { kArg, kOptArg, kRemArgs, kRet, kOptRet, kRemRets, kAttr, kDict };
  Kind kind;
  int32_t dtype = -1;  // -1: any
  int64_t rank = -1;   // -1: any
  std::string name;    // attributes
  // Attribute check: accepts the attribute spec.
  bool (*attr_ok)(const AttrSpec&) = nullptr;
};

bool IsScalar(const AttrSpec& a, int32_t dtype) {
  return a.type == XLA_FFI_AttrType_SCALAR && a.dtype == dtype;
}
bool IsArray(const AttrSpec& a, int32_t dtype) {
  return a.type == XLA_FFI_AttrType_ARRAY && a.dtype == dtype;
}

bool IsParamsStruct(const AttrSpec& dict) {
  // Exactly dims, eps, n (sorted) with the members' types.
  const std::vector<AttrSpec>& m = dict.members;
  return m.size() == 3 && m[0].name == "dims" &&
         IsArray(m[0], XLA_FFI_DataType_S64) && m[1].name == "eps" &&
         IsScalar(m[1], XLA_FFI_DataType_F32) && m[2].name == "n" &&
         IsScalar(m[2], XLA_FFI_DataType_S32);
}

ParamModel Buf(ParamModel::Kind kind, int32_t dtype = -1, int64_t rank = -1) {
  ParamModel p;
  p.kind = kind;
  p.dtype = dtype;
  p.rank = rank;
  return p;
}

ParamModel Named(std::string name, bool (*ok)(const AttrSpec&)) {
  ParamModel p;
  p.kind = ParamModel::kAttr;
  p.name = std::move(name);
  p.attr_ok = ok;
  return p;
}

ParamModel Whole(bool (*ok)(const AttrSpec&)) {
  ParamModel p;
  p.kind = ParamModel::kDict;
  p.attr_ok = ok;
  return p;
}

std::vector<ParamModel> Model(int binding) {
  using P = ParamModel;
  switch (binding) {
    case 0:
      return {Buf(P::kArg, XLA_FFI_DataType_F32, 2),
              Buf(P::kArg),
              Buf(P::kRet, XLA_FFI_DataType_S32),
              Named("eps",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_F32);
                    }),
              Named("n",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_S64);
                    }),
              Named("name",
                    [](const AttrSpec& a) {
                      return a.type == XLA_FFI_AttrType_STRING;
                    }),
              Named("dims", [](const AttrSpec& a) {
                return IsArray(a, XLA_FFI_DataType_S32);
              })};
    case 1:
      return {Buf(P::kArg), Buf(P::kRemArgs), Buf(P::kRet), Buf(P::kRemRets),
              Whole(nullptr)};
    case 2:
      return {Buf(P::kArg, XLA_FFI_DataType_U8, 1),
              Buf(P::kOptArg, XLA_FFI_DataType_F64),
              Buf(P::kOptRet),
              Named("flag",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_PRED);
                    }),
              Named("mode",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_S32) ||
                             IsScalar(a, XLA_FFI_DataType_F32) ||
                             a.type == XLA_FFI_AttrType_STRING;
                    }),
              Named("c",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_C128);
                    }),
              Named("kind",
                    [](const AttrSpec& a) {
                      return IsScalar(a, XLA_FFI_DataType_S32);
                    }),
              Named("nested", [](const AttrSpec& a) {
                return a.type == XLA_FFI_AttrType_DICTIONARY;
              })};
    default:
      return {Buf(P::kArg, XLA_FFI_DataType_TOKEN, 0),
              Whole([](const AttrSpec& a) { return IsParamsStruct(a); })};
  }
}

bool BufferOk(const ParamModel& p, const BufferSpec& b) {
  return b.kind == 1 && (p.dtype < 0 || b.dtype == p.dtype) &&
         (p.rank < 0 || static_cast<int64_t>(b.dims.size()) == p.rank);
}

// The error prefix the model expects, or "" when the frame decodes.
// `exact` is false when the frame breaks the sorted-names contract, where
// only the absence of a crash and correct values are required.
std::string Expected(const Frame& f, bool& exact) {
  exact = true;
  if (f.bad_frame_size) return "XLA_FFI_CallFrame has struct_size";
  if (f.extension == 2) return "XLA_FFI_Metadata_Extension has struct_size";
  if (f.extension == 1) return "";  // the handshake, answered by every member
  if (f.stage != XLA_FFI_ExecutionStage_EXECUTE) return "wrong execution stage";
  // Built once per binding: the model does not depend on the frame.
  static const std::vector<ParamModel> models[] = {Model(0), Model(1), Model(2),
                                                   Model(3)};
  const std::vector<ParamModel>& model = models[f.binding];
  size_t args = 0, opt_args = 0, rets = 0, opt_rets = 0, attrs = 0;
  bool rem_args = false, rem_rets = false;
  for (const ParamModel& p : model) {
    args += p.kind == ParamModel::kArg;
    opt_args += p.kind == ParamModel::kOptArg;
    rem_args |= p.kind == ParamModel::kRemArgs;
    rets += p.kind == ParamModel::kRet;
    opt_rets += p.kind == ParamModel::kOptRet;
    rem_rets |= p.kind == ParamModel::kRemRets;
    attrs += p.kind == ParamModel::kAttr;
  }
  auto count_ok = [](size_t got, size_t need, size_t opt, bool rem) {
    if (rem) return got >= need;
    if (need + opt == 0) return true;  // a binding without any ignores them
    return got >= need && got <= need + opt;
  };
  if (!count_ok(f.args.size(), args, opt_args, rem_args))
    return "[EXECUTE] wrong number of arguments";
  if (!count_ok(f.rets.size(), rets, opt_rets, rem_rets))
    return "[EXECUTE] wrong number of results";
  if (attrs > 0 && f.attrs.size() != attrs)
    return "[EXECUTE] wrong number of attributes";
  bool unique = true;
  for (size_t i = 1; i < f.attrs.size(); ++i)
    unique &= f.attrs[i - 1].name < f.attrs[i].name;
  exact = unique;
  // A binding finds each named attribute where the sorted names put it, so
  // when the frame's names are not the bound ones the error names the first
  // bound attribute out of place, whichever that is.
  std::vector<std::string> bound, given;
  for (const ParamModel& p : model)
    if (p.kind == ParamModel::kAttr) bound.push_back(p.name);
  for (const AttrSpec& a : f.attrs) given.push_back(a.name);
  std::sort(bound.begin(), bound.end());
  bool names_differ = !bound.empty() && bound != given;
  size_t arg = 0, ret = 0;
  for (const ParamModel& p : model) {
    switch (p.kind) {
      case ParamModel::kArg:
      case ParamModel::kOptArg:
        if (arg < f.args.size() && !BufferOk(p, f.args[arg]))
          return "argument " + std::to_string(arg) + ": ";
        ++arg;
        break;
      case ParamModel::kRet:
      case ParamModel::kOptRet:
        if (ret < f.rets.size() && !BufferOk(p, f.rets[ret]))
          return "result " + std::to_string(ret) + ": ";
        ++ret;
        break;
      case ParamModel::kAttr: {
        if (names_differ) return "attribute '";
        auto it =
            std::find_if(f.attrs.begin(), f.attrs.end(),
                         [&](const AttrSpec& a) { return a.name == p.name; });
        if (it == f.attrs.end() || !p.attr_ok(*it))
          return "attribute '" + p.name + "': ";
        break;
      }
      case ParamModel::kDict:
        if (p.attr_ok != nullptr) {
          AttrSpec whole;
          whole.type = XLA_FFI_AttrType_DICTIONARY;
          whole.members = f.attrs;
          if (!p.attr_ok(whole)) return "attributes (";
        }
        break;
      default:
        break;
    }
  }
  return "";
}

// ---- what handlers see, checked against the frame

const Frame* current = nullptr;
bool called = false;

[[noreturn]] void Wrong(const char* what) {
  Fail("a handler saw a value that is not the frame's", "", what);
}

void SameBuffer(const ffi::AnyBuffer& seen, const BufferSpec& b) {
  if (seen.untyped_data() != b.c.data || seen.rank() != b.c.rank ||
      seen.element_type() !=
          static_cast<ffi::DataType>(static_cast<uint8_t>(b.dtype)))
    Wrong("buffer");
  for (size_t i = 0; i < b.dims.size(); ++i)
    if (seen.dimensions()[i] != b.dims[i]) Wrong("buffer dims");
}

template <typename B>
void SameTypedBuffer(const B& seen, const BufferSpec& b) {
  if (seen.untyped_data() != b.c.data) Wrong("typed buffer data");
  for (size_t i = 0; i < b.dims.size(); ++i)
    if (seen.dimensions()[i] != b.dims[i]) Wrong("typed buffer dims");
}

const AttrSpec& Find(const std::vector<AttrSpec>& attrs,
                     std::string_view name) {
  for (const AttrSpec& a : attrs)
    if (a.name == name) return a;
  Wrong("an attribute not in the frame");
}

template <typename T>
void SameScalar(const T& seen, const AttrSpec& a) {
  if constexpr (std::is_same_v<T, bool>) {
    if (seen != (a.bytes[0] != 0)) Wrong("bool attribute");
  } else {
    if (a.bytes.size() != sizeof(T) ||
        std::memcmp(&seen, a.bytes.data(), sizeof(T)) != 0)
      Wrong("scalar attribute");
  }
}

template <typename T>
void SameArray(ffi::Span<const T> seen, const AttrSpec& a) {
  if (seen.size() != a.count ||
      (a.count > 0 &&
       std::memcmp(seen.data(), a.bytes.data(), a.count * sizeof(T)) != 0))
    Wrong("array attribute");
}

// Walks a dictionary with every accessor: names in order, isa<T> and get<T>
// for each kind, nested dictionaries recursively.
void SameDictionary(const ffi::Dictionary& dict,
                    const std::vector<AttrSpec>& specs, bool sorted) {
  if (dict.size() != specs.size()) Wrong("dictionary size");
  size_t i = 0;
  for (auto it = dict.begin(); it != dict.end(); ++it, ++i) {
    const AttrSpec& a = specs[i];
    if (*it != a.name) Wrong("dictionary name");
    bool is_f32 = IsScalar(a, XLA_FFI_DataType_F32);
    if (dict.isa<float>(it) != is_f32) Wrong("isa<float>");
    ffi::ErrorOr<float> f = dict.get<float>(it);
    if (f.has_value() != is_f32) Wrong("get<float>");
    if (is_f32) SameScalar(*f, a);
    bool is_i64s = IsArray(a, XLA_FFI_DataType_S64);
    auto span = dict.get<ffi::Span<const int64_t>>(it);
    if (span.has_value() != is_i64s) Wrong("get<Span<const int64_t>>");
    if (is_i64s) SameArray(*span, a);
    bool is_string = a.type == XLA_FFI_AttrType_STRING;
    auto text = dict.get<std::string_view>(it);
    if (text.has_value() != is_string) Wrong("get<std::string_view>");
    if (is_string && *text != a.bytes) Wrong("string attribute");
    auto inner = dict.get<ffi::Dictionary>(it);
    bool is_dict = a.type == XLA_FFI_AttrType_DICTIONARY;
    if (inner.has_value() != is_dict) Wrong("get<Dictionary>");
    if (is_dict) SameDictionary(*inner, a.members, true);
    if (!f.has_value() && f.error().message().find(a.name) == std::string::npos)
      Wrong("a get error that does not name the attribute");
    // By name: only meaningful in a sorted dictionary, for a unique name.
    bool unique = sorted && std::count_if(specs.begin(), specs.end(),
                                          [&](const AttrSpec& s) {
                                            return s.name == a.name;
                                          }) == 1;
    if (unique && dict.contains(a.name) != true) Wrong("contains");
  }
}

// ---- the bindings

const ffi::Ffi& Binding(int index) {
  static const auto typed =
      ffi::Ffi::Bind()
          .Arg<ffi::Buffer<ffi::DataType::F32, 2>>()
          .Arg<ffi::AnyBuffer>()
          .Ret<ffi::Buffer<ffi::DataType::S32>>()
          .Attr<float>("eps")
          .Attr<int64_t>("n")
          .Attr<std::string_view>("name")
          .Attr<ffi::Span<const int32_t>>("dims")
          .To([](ffi::Buffer<ffi::DataType::F32, 2> x, ffi::AnyBuffer y,
                 ffi::Result<ffi::Buffer<ffi::DataType::S32>> out, float eps,
                 int64_t n, std::string_view name,
                 ffi::Span<const int32_t> dims) {
            called = true;
            const Frame& f = *current;
            SameTypedBuffer(x, f.args[0]);
            SameBuffer(y, f.args[1]);
            SameTypedBuffer(*out, f.rets[0]);
            SameScalar(eps, Find(f.attrs, "eps"));
            SameScalar(n, Find(f.attrs, "n"));
            if (name != Find(f.attrs, "name").bytes) Wrong("string");
            SameArray(dims, Find(f.attrs, "dims"));
            return ffi::Error::Success();
          });
  static const auto remaining =
      ffi::Ffi::Bind()
          .Arg<ffi::AnyBuffer>()
          .RemainingArgs()
          .Ret<ffi::AnyBuffer>()
          .RemainingRets()
          .Attrs()
          .To([](ffi::AnyBuffer first, ffi::RemainingArgs args,
                 ffi::Result<ffi::AnyBuffer> out, ffi::RemainingRets rets,
                 ffi::Dictionary attrs) {
            called = true;
            const Frame& f = *current;
            SameBuffer(first, f.args[0]);
            SameBuffer(*out, f.rets[0]);
            if (args.size() != f.args.size() - 1) Wrong("remaining args");
            for (size_t i = 0; i <= args.size(); ++i) {
              auto got = args.get<ffi::AnyBuffer>(i);
              if (i == args.size()) {
                if (got.has_value()) Wrong("remaining arg past the end");
                continue;
              }
              const BufferSpec& b = f.args[i + 1];
              if (got.has_value() != (b.kind == 1)) Wrong("remaining arg");
              if (got.has_value()) SameBuffer(*got, b);
              auto f32 = args.get<ffi::Buffer<ffi::DataType::F32>>(i);
              bool is_f32 = b.kind == 1 && b.dtype == XLA_FFI_DataType_F32;
              if (f32.has_value() != is_f32) Wrong("remaining F32 arg");
              if (args.isa<ffi::Buffer<ffi::DataType::F32>>(i) != is_f32)
                Wrong("remaining isa");
            }
            if (rets.size() != f.rets.size() - 1) Wrong("remaining rets");
            for (size_t i = 0; i < rets.size(); ++i) {
              auto got = rets.get<ffi::AnyBuffer>(i);
              const BufferSpec& b = f.rets[i + 1];
              if (got.has_value() != (b.kind == 1)) Wrong("remaining ret");
              if (got.has_value()) SameBuffer(**got, b);
            }
            SameDictionary(attrs, f.attrs, f.sorted);
            return ffi::Error::Success();
          });
  static const auto optional =
      ffi::Ffi::Bind()
          .Arg<ffi::Buffer<ffi::DataType::U8, 1>>()
          .OptionalArg<ffi::Buffer<ffi::DataType::F64>>()
          .OptionalRet<ffi::AnyBuffer>()
          .Attr<bool>("flag")
          .Attr<std::variant<int32_t, float, std::string_view>>("mode")
          .Attr<std::complex<double>>("c")
          .Attr<Mode>("kind")
          .Attr<ffi::Dictionary>("nested")
          .To([](ffi::Buffer<ffi::DataType::U8, 1> bytes,
                 std::optional<ffi::Buffer<ffi::DataType::F64>> extra,
                 std::optional<ffi::Result<ffi::AnyBuffer>> out, bool flag,
                 std::variant<int32_t, float, std::string_view> mode,
                 std::complex<double> c, Mode kind, ffi::Dictionary nested) {
            called = true;
            const Frame& f = *current;
            SameTypedBuffer(bytes, f.args[0]);
            if (extra.has_value() != (f.args.size() > 1)) Wrong("optional");
            if (extra) SameTypedBuffer(*extra, f.args[1]);
            if (out.has_value() != !f.rets.empty()) Wrong("optional ret");
            if (out) SameBuffer(**out, f.rets[0]);
            SameScalar(flag, Find(f.attrs, "flag"));
            const AttrSpec& m = Find(f.attrs, "mode");
            if (auto* i = std::get_if<int32_t>(&mode)) {
              if (!IsScalar(m, XLA_FFI_DataType_S32)) Wrong("variant int");
              SameScalar(*i, m);
            } else if (auto* x = std::get_if<float>(&mode)) {
              if (!IsScalar(m, XLA_FFI_DataType_F32)) Wrong("variant float");
              SameScalar(*x, m);
            } else if (std::get<std::string_view>(mode) != m.bytes) {
              Wrong("variant string");
            }
            SameScalar(c, Find(f.attrs, "c"));
            SameScalar(static_cast<int32_t>(kind), Find(f.attrs, "kind"));
            SameDictionary(nested, Find(f.attrs, "nested").members, true);
            return ffi::Error::Success();
          });
  static const auto structured =
      ffi::Ffi::Bind().Arg<ffi::Token>().Attrs<Params>().To(
          [](ffi::Token token, Params params) {
            called = true;
            const Frame& f = *current;
            SameTypedBuffer(token, f.args[0]);
            SameScalar(params.eps, Find(f.attrs, "eps"));
            SameScalar(params.n, Find(f.attrs, "n"));
            SameArray(params.dims, Find(f.attrs, "dims"));
            return ffi::Error::Success();
          });
  switch (index) {
    case 0:
      return *typed;
    case 1:
      return *remaining;
    case 2:
      return *optional;
    default:
      return *structured;
  }
}

}  // namespace

int FuzzCallFrame(const uint8_t* data, size_t size) {
  Reader in(data, size);
  Frame frame;
  ReadFrame(in, frame);
  BuildFrame(frame);
  bool exact = true;
  std::string expected = Expected(frame, exact);

  current = &frame;
  called = false;
  XLA_FFI_Error* raw = Binding(frame.binding).Call(&frame.c);
  current = nullptr;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // To see what a seed does: XFFI_FUZZ_VERBOSE=1 fuzz_replay call_frame F.
  static const bool verbose = std::getenv("XFFI_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::string outcome =
        raw == nullptr
            ? (called ? "ran" : "handshake")
            : std::string(
                  ffi::internal::GetErrorDetails(frame.c.api, raw).message);
    std::fprintf(stderr, "binding %d: %s\n", frame.binding, outcome.c_str());
  }
  if (raw == nullptr) {
    bool handshake = frame.extension == 1;
    if (called == handshake)
      Fail(handshake ? "the handler ran during the handshake"
                     : "the handler returned without running",
           input, "");
    if (exact && !expected.empty())
      Fail("a frame the model refuses decoded", input, expected);
    return 0;
  }
  ffi::Error error = ffi::internal::TakeError(frame.c.api, raw);
  if (called)
    Fail("the handler ran and the call failed", input, error.message());
  if (error.code() != ffi::ErrorCode::kInvalidArgument)
    Fail("a refused frame is not INVALID_ARGUMENT", input, error.message());
  if (exact && expected.empty())
    Fail("a frame the model accepts was refused", input, error.message());
  if (exact && error.message().rfind(expected, 0) != 0)
    Fail("the error does not name what the model finds wrong", input,
         "expected prefix '" + expected + "', got '" + error.message() + "'");
  return 0;
}

}  // namespace xffi::fuzz

#ifndef XFFI_FUZZ_REPLAY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return xffi::fuzz::FuzzCallFrame(data, size);
}
#endif
