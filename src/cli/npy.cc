#include "cli/npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace xffi {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

// The header is a Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// Only the three keys NumPy writes are read; values are strings, booleans,
// tuples of integers (and, for structured dtypes, lists, which are refused).
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source)
      : text_(text), source_(source) {}

  StatusOr<NpyHeader> Parse() {
    NpyHeader header;
    bool have_descr = false, have_order = false, have_shape = false;
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      if (!ReadString(&key)) return Error("expected a quoted key");
      if (!Consume(':')) return Error("expected ':' after '" + key + "'");
      if (key == "descr") {
        SkipSpace();
        if (Peek() == '[') {
          return InvalidArgument(std::string(source_) +
                                 ": structured (record) dtypes are not "
                                 "supported; save a plain array");
        }
        if (!ReadString(&header.descr)) return Error("expected descr string");
        have_descr = true;
      } else if (key == "fortran_order") {
        SkipSpace();
        if (ReadWord("True")) {
          header.fortran_order = true;
        } else if (ReadWord("False")) {
          header.fortran_order = false;
        } else {
          return Error("expected True or False for 'fortran_order'");
        }
        have_order = true;
      } else if (key == "shape") {
        if (!ReadShape(&header.shape)) return Error("expected a shape tuple");
        have_shape = true;
      } else {
        return Error("unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' or '}'");
    }
    if (!have_descr || !have_order || !have_shape) {
      return Error("the header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return header;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgument(std::string(source_) + ": bad .npy header at byte " +
                           std::to_string(pos_) + ": " + what + " in \"" +
                           std::string(text_) + "\"");
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(Uc(text_[pos_]))) ++pos_;
  }
  static unsigned char Uc(char c) { return static_cast<unsigned char>(c); }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool ReadWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool ReadString(std::string* out) {
    SkipSpace();
    char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool ReadShape(std::vector<int64_t>* dims) {
    if (!Consume('(')) return false;
    while (true) {
      SkipSpace();
      if (Consume(')')) return true;
      if (!std::isdigit(Uc(Peek()))) return false;
      int64_t value = 0;
      while (std::isdigit(Uc(Peek()))) {
        if (value > (int64_t{1} << 50)) return false;
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (Peek() == 'L') ++pos_;  // Python 2 longs
      dims->push_back(value);
      SkipSpace();
      if (Consume(')')) return true;
      if (!Consume(',')) return false;
    }
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
};

struct DescrInfo {
  ElementType type = ElementType::kInvalid;
  bool raw = false;  // a void or '<f1' descr: its type is a guess
  bool big_endian = false;
};

std::optional<ElementType> StandardType(char kind, int size) {
  switch (kind) {
    case 'b':
      if (size == 1) return ElementType::kPred;
      break;
    case 'i':
      if (size == 1) return ElementType::kS8;
      if (size == 2) return ElementType::kS16;
      if (size == 4) return ElementType::kS32;
      if (size == 8) return ElementType::kS64;
      break;
    case 'u':
      if (size == 1) return ElementType::kU8;
      if (size == 2) return ElementType::kU16;
      if (size == 4) return ElementType::kU32;
      if (size == 8) return ElementType::kU64;
      break;
    case 'f':
      if (size == 2) return ElementType::kF16;
      if (size == 4) return ElementType::kF32;
      if (size == 8) return ElementType::kF64;
      break;
    case 'c':
      if (size == 8) return ElementType::kC64;
      if (size == 16) return ElementType::kC128;
      break;
  }
  return std::nullopt;
}

StatusOr<DescrInfo> ResolveDescr(const std::string& descr,
                                 std::optional<ElementType> expected,
                                 std::string_view source) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(std::string(source) + ": dtype '" + descr +
                           "' is not supported: " + why);
  };
  if (descr.size() < 3) return bad("expected byte order, kind and size");
  DescrInfo info;
  char order = descr[0];
  if (order == '>') {
    info.big_endian = true;
  } else if (order != '<' && order != '|' && order != '=') {
    return bad("unknown byte order '" + std::string(1, order) + "'");
  }
  char kind = descr[1];
  int size = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(descr[i])) || size > 1000) {
      return bad("expected a byte size after the kind");
    }
    size = size * 10 + (descr[i] - '0');
  }
  if (auto type = StandardType(kind, size)) {
    info.type = *type;
    return info;
  }
  bool raw = kind == 'V' || (kind == 'f' && size == 1);
  if (!raw) return bad("no xffi element type has this kind and size");
  info.raw = true;
  if (expected && IsArrayElementType(*expected) &&
      ElementByteSize(*expected) == static_cast<size_t>(size)) {
    info.type = *expected;
  } else if (kind == 'V' && size == 2) {
    info.type = ElementType::kBF16;
  } else if (kind == 'f' && size == 1) {
    info.type = ElementType::kF8E5M2;
  } else {
    return bad("raw " + std::to_string(size) +
               "-byte values (as NumPy saves ml_dtypes types such as float8 or "
               "int4) need the expected element type"
               " to be read, and none of that size was expected");
  }
  return info;
}

// Reverses the bytes of each element (of each half, for complex types).
void SwapBytes(unsigned char* data, size_t count, size_t element_size,
               bool complex) {
  size_t unit = complex ? element_size / 2 : element_size;
  if (unit <= 1) return;
  size_t units = count * (element_size / unit);
  for (size_t i = 0; i < units; ++i)
    std::reverse(data + i * unit, data + (i + 1) * unit);
}

// Column-major bytes to row-major bytes.
std::vector<unsigned char> FortranToC(const unsigned char* data,
                                      const std::vector<int64_t>& dims,
                                      size_t element_size) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<unsigned char> out(static_cast<size_t>(count) * element_size);
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> column_strides(rank, 1);
  for (size_t i = 1; i < rank; ++i) {
    column_strides[i] = column_strides[i - 1] * dims[i - 1];
  }
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i) source += index[i] * column_strides[i];
    std::memcpy(out.data() + static_cast<size_t>(linear) * element_size,
                data + static_cast<size_t>(source) * element_size,
                element_size);
    for (size_t i = rank; i-- > 0;) {  // row-major increment
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

std::string ShapeTuple(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  if (dims.size() == 1) text += ",";
  return text + ")";
}

}  // namespace

std::string NpyDescr(ElementType type) {
  switch (type) {
    case ElementType::kPred:
      return "|b1";
    case ElementType::kS8:
      return "|i1";
    case ElementType::kS16:
      return "<i2";
    case ElementType::kS32:
      return "<i4";
    case ElementType::kS64:
      return "<i8";
    case ElementType::kU8:
      return "|u1";
    case ElementType::kU16:
      return "<u2";
    case ElementType::kU32:
      return "<u4";
    case ElementType::kU64:
      return "<u8";
    case ElementType::kF16:
      return "<f2";
    case ElementType::kF32:
      return "<f4";
    case ElementType::kF64:
      return "<f8";
    case ElementType::kC64:
      return "<c8";
    case ElementType::kC128:
      return "<c16";
    default:
      break;
  }
  if (!IsArrayElementType(type)) return "";
  // bf16, the float8/float4 types and the sub-byte integers: raw bytes, as
  // np.save writes ml_dtypes arrays.
  return "<V" + std::to_string(ElementByteSize(type));
}

StatusOr<Literal> DecodeNpy(std::string_view bytes, std::string_view source,
                            std::optional<ElementType> expected) {
  const std::string name(source);
  if (bytes.size() < kMagicSize + 4 ||
      bytes.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return InvalidArgument(name +
                           ": not a .npy file (no \\x93NUMPY magic at the "
                           "start)");
  }
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  int major = raw[kMagicSize];
  size_t header_size = 0, header_start = 0;
  if (major == 1) {
    header_size = raw[8] | (size_t{raw[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return InvalidArgument(name + ": truncated header");
    header_size = raw[8] | (size_t{raw[9]} << 8) | (size_t{raw[10]} << 16) |
                  (size_t{raw[11]} << 24);
    header_start = 12;
  } else {
    return InvalidArgument(name + ": .npy format version " +
                           std::to_string(major) + "." +
                           std::to_string(raw[kMagicSize + 1]) +
                           " is not supported (1.0, 2.0 and 3.0 are)");
  }
  if (header_start + header_size > bytes.size()) {
    return InvalidArgument(name + ": the header says it takes " +
                           std::to_string(header_size) +
                           " bytes but the file ends before");
  }
  HeaderParser parser(bytes.substr(header_start, header_size), name);
  StatusOr<NpyHeader> header = parser.Parse();
  if (!header.ok()) return header.status();
  StatusOr<DescrInfo> info = ResolveDescr(header->descr, expected, name);
  if (!info.ok()) return info.status();

  // Counted here, overflow checked, before Shape multiplies the dims out:
  // fuzz_npy_reader found a header whose dims overflow int64.
  int64_t elements = 1;
  for (int64_t dim : header->shape) {
    if (dim < 0 || __builtin_mul_overflow(elements, dim, &elements) ||
        elements > (int64_t{1} << 56)) {
      return InvalidArgument(name + ": shape " + ShapeTuple(header->shape) +
                             " has more elements than any file can hold");
    }
  }
  Shape shape = Shape::Array(info->type, header->shape);
  size_t element_size = ElementByteSize(info->type);
  size_t need = shape.byte_size();
  std::string_view data = bytes.substr(header_start + header_size);
  if (data.size() < need) {
    return InvalidArgument(name + ": the data holds " +
                           std::to_string(data.size()) + " bytes, but shape " +
                           ShapeTuple(header->shape) + " of '" + header->descr +
                           "' needs " + std::to_string(need));
  }
  // NumPy writes nothing after the data: more bytes mean a file that was
  // damaged or is not what its header says.
  if (data.size() > need) {
    return InvalidArgument(name + ": " + std::to_string(data.size() - need) +
                           " bytes after the data (shape " +
                           ShapeTuple(header->shape) + " of '" + header->descr +
                           "' needs " + std::to_string(need) +
                           ", the file holds " + std::to_string(data.size()) +
                           " after its header)");
  }
  std::vector<unsigned char> values(data.begin(), data.begin() + need);
  if (info->big_endian) {
    SwapBytes(values.data(), static_cast<size_t>(shape.num_elements()),
              element_size, IsComplexType(info->type));
  }
  if (header->fortran_order && header->shape.size() > 1) {
    values = FortranToC(values.data(), header->shape, element_size);
  }
  if (info->type == ElementType::kPred) {
    for (unsigned char& v : values) v = v != 0;
  }
  return Literal::FromBytes(shape, values.data(), values.size());
}

StatusOr<Literal> ReadNpyFile(const std::string& path,
                              std::optional<ElementType> expected) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return NotFound(path + ": cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (file.bad()) return Internal(path + ": read error");
  return DecodeNpy(bytes, path, expected);
}

StatusOr<std::string> EncodeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  std::string descr = NpyDescr(shape.element_type());
  if (!shape.IsArray() || descr.empty()) {
    return InvalidArgument("only arrays can be saved as .npy, not " +
                           shape.ToString());
  }
  std::string dict =
      "{'descr': '" + descr +
      "', 'fortran_order': False, 'shape': " + ShapeTuple(shape.dims()) + ", }";
  // Magic, version, length, dict, padding, '\n': a multiple of 64 bytes.
  size_t prefix = kMagicSize + 2 + 2;
  bool v2 = false;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  if (total - prefix > 0xFFFF) {
    v2 = true;
    prefix += 2;
    total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  }
  size_t header_size = total - prefix;
  dict.append(header_size - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  out += static_cast<char>(header_size & 0xFF);
  out += static_cast<char>((header_size >> 8) & 0xFF);
  if (v2) {
    out += static_cast<char>((header_size >> 16) & 0xFF);
    out += static_cast<char>((header_size >> 24) & 0xFF);
  }
  out += dict;
  out.append(static_cast<const char*>(literal.data()), literal.size_bytes());
  return out;
}

Status WriteNpyFile(const std::string& path, const Literal& literal) {
  StatusOr<std::string> bytes = EncodeNpy(literal);
  if (!bytes.ok())
    return InvalidArgument(path + ": " + bytes.status().message());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return NotFound(path + ": cannot create the file");
  file.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  file.close();
  if (!file) return Internal(path + ": write error");
  return Status::Ok();
}

}  // namespace xffi
