#include "xffi/program/shape.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>

namespace xffi {
namespace {

struct TypeInfo {
  ElementType type;
  const char* hlo_name;
  const char* mlir_name;
  int bits;
};

// One row per type: the HLO and MLIR spellings and the value's bit width.
constexpr TypeInfo kTypes[] = {
    {ElementType::kPred, "pred", "i1", 1},
    {ElementType::kS1, "s1", "si1", 1},
    {ElementType::kS2, "s2", "i2", 2},
    {ElementType::kS4, "s4", "i4", 4},
    {ElementType::kS8, "s8", "i8", 8},
    {ElementType::kS16, "s16", "i16", 16},
    {ElementType::kS32, "s32", "i32", 32},
    {ElementType::kS64, "s64", "i64", 64},
    {ElementType::kU1, "u1", "ui1", 1},
    {ElementType::kU2, "u2", "ui2", 2},
    {ElementType::kU4, "u4", "ui4", 4},
    {ElementType::kU8, "u8", "ui8", 8},
    {ElementType::kU16, "u16", "ui16", 16},
    {ElementType::kU32, "u32", "ui32", 32},
    {ElementType::kU64, "u64", "ui64", 64},
    {ElementType::kF16, "f16", "f16", 16},
    {ElementType::kBF16, "bf16", "bf16", 16},
    {ElementType::kF32, "f32", "f32", 32},
    {ElementType::kF64, "f64", "f64", 64},
    {ElementType::kC64, "c64", "complex<f32>", 64},
    {ElementType::kC128, "c128", "complex<f64>", 128},
    {ElementType::kF8E5M2, "f8e5m2", "f8E5M2", 8},
    {ElementType::kF8E4M3FN, "f8e4m3fn", "f8E4M3FN", 8},
    {ElementType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", "f8E4M3B11FNUZ", 8},
    {ElementType::kF8E5M2FNUZ, "f8e5m2fnuz", "f8E5M2FNUZ", 8},
    {ElementType::kF8E4M3FNUZ, "f8e4m3fnuz", "f8E4M3FNUZ", 8},
    {ElementType::kF8E4M3, "f8e4m3", "f8E4M3", 8},
    {ElementType::kF8E3M4, "f8e3m4", "f8E3M4", 8},
    {ElementType::kF4E2M1FN, "f4e2m1fn", "f4E2M1FN", 4},
    {ElementType::kF8E8M0FNU, "f8e8m0fnu", "f8E8M0FNU", 8},
};

// Row of kTypes by type number, -1 for none: Find runs on every IsArray
// and num_elements, which kernels and the executor call per run.
constexpr int kTypeNumbers = 64;
struct TypeRows {
  int8_t row[kTypeNumbers];
};
constexpr TypeRows MakeTypeRows() {
  TypeRows rows{};
  for (int8_t& row : rows.row) row = -1;
  for (size_t i = 0; i < std::size(kTypes); ++i)
    rows.row[static_cast<int>(kTypes[i].type)] = static_cast<int8_t>(i);
  return rows;
}
constexpr TypeRows kTypeRows = MakeTypeRows();

const TypeInfo* Find(ElementType type) {
  int number = static_cast<int>(type);
  if (number < 0 || number >= kTypeNumbers) return nullptr;
  int row = kTypeRows.row[number];
  return row < 0 ? nullptr : &kTypes[row];
}

}  // namespace

const std::vector<ElementType>& AllArrayElementTypes() {
  static const std::vector<ElementType> all = [] {
    std::vector<ElementType> types;
    for (const TypeInfo& info : kTypes) types.push_back(info.type);
    return types;
  }();
  return all;
}

std::string_view ElementTypeName(ElementType type) {
  if (type == ElementType::kTuple) return "tuple";
  if (type == ElementType::kToken) return "token";
  const TypeInfo* info = Find(type);
  return info ? info->hlo_name : "invalid";
}

std::optional<ElementType> ElementTypeFromName(std::string_view name) {
  if (name == "token") return ElementType::kToken;
  if (name == "tuple") return ElementType::kTuple;
  for (const TypeInfo& info : kTypes)
    if (name == info.hlo_name) return info.type;
  return std::nullopt;
}

std::string MlirElementTypeName(ElementType type) {
  if (type == ElementType::kToken) return "!stablehlo.token";
  const TypeInfo* info = Find(type);
  return info ? info->mlir_name : "invalid";
}

std::optional<ElementType> ElementTypeFromMlirName(std::string_view name) {
  if (name == "!stablehlo.token") return ElementType::kToken;
  // MLIR spells signless and signed integers alike for our purposes.
  if (name == "si8") return ElementType::kS8;
  if (name == "si16") return ElementType::kS16;
  if (name == "si32") return ElementType::kS32;
  if (name == "si64") return ElementType::kS64;
  for (const TypeInfo& info : kTypes)
    if (name == info.mlir_name) return info.type;
  return std::nullopt;
}

int ElementBitWidth(ElementType type) {
  const TypeInfo* info = Find(type);
  return info ? info->bits : 0;
}

size_t ElementByteSize(ElementType type) {
  const TypeInfo* info = Find(type);
  if (info == nullptr) return 0;
  return static_cast<size_t>(std::max(1, info->bits / 8));
}

bool IsArrayElementType(ElementType type) { return Find(type) != nullptr; }

bool IsFloatingType(ElementType type) {
  switch (type) {
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E4M3:
    case ElementType::kF8E3M4:
    case ElementType::kF4E2M1FN:
    case ElementType::kF8E8M0FNU:
      return true;
    default:
      return false;
  }
}

bool IsComplexType(ElementType type) {
  return type == ElementType::kC64 || type == ElementType::kC128;
}

bool IsSignedIntegralType(ElementType type) {
  switch (type) {
    case ElementType::kS1:
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kS8:
    case ElementType::kS16:
    case ElementType::kS32:
    case ElementType::kS64:
      return true;
    default:
      return false;
  }
}

bool IsUnsignedIntegralType(ElementType type) {
  switch (type) {
    case ElementType::kU1:
    case ElementType::kU2:
    case ElementType::kU4:
    case ElementType::kU8:
    case ElementType::kU16:
    case ElementType::kU32:
    case ElementType::kU64:
      return true;
    default:
      return false;
  }
}

Shape Shape::Array(ElementType type, std::vector<int64_t> dims,
                   std::vector<int64_t> minor_to_major) {
  Shape shape;
  shape.element_type_ = type;
  shape.dims_ = std::move(dims);
  shape.minor_to_major_ = std::move(minor_to_major);
  return shape;
}

Shape Shape::Token() {
  Shape shape;
  shape.element_type_ = ElementType::kToken;
  return shape;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = ElementType::kTuple;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

std::vector<int64_t> Shape::EffectiveMinorToMajor() const {
  if (has_layout()) return minor_to_major_;
  std::vector<int64_t> m2m(dims_.size());
  for (size_t i = 0; i < m2m.size(); ++i)
    m2m[i] = static_cast<int64_t>(m2m.size() - 1 - i);
  return m2m;
}

bool Shape::HasDefaultLayout() const {
  if (!has_layout()) return true;
  for (size_t i = 0; i < minor_to_major_.size(); ++i)
    if (minor_to_major_[i] !=
        static_cast<int64_t>(minor_to_major_.size() - 1 - i))
      return false;
  return true;
}

Shape Shape::WithoutLayout() const {
  Shape copy = *this;
  copy.minor_to_major_.clear();
  for (Shape& element : copy.tuple_shapes_) element = element.WithoutLayout();
  return copy;
}

int64_t Shape::num_elements() const {
  if (!IsArray()) return 0;
  return std::accumulate(dims_.begin(), dims_.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

size_t Shape::byte_size() const {
  if (!IsArray()) return 0;
  return static_cast<size_t>(num_elements()) * ElementByteSize(element_type_);
}

std::vector<const Shape*> Shape::Leaves() const {
  std::vector<const Shape*> leaves;
  if (!IsTuple()) {
    leaves.push_back(this);
    return leaves;
  }
  for (const Shape& element : tuple_shapes_) {
    std::vector<const Shape*> sub = element.Leaves();
    leaves.insert(leaves.end(), sub.begin(), sub.end());
  }
  return leaves;
}

const Shape* Shape::Subshape(const std::vector<int64_t>& index) const {
  const Shape* shape = this;
  for (int64_t i : index) {
    if (!shape->IsTuple() || i < 0 || i >= shape->tuple_size()) return nullptr;
    shape = &shape->tuple_shape(i);
  }
  return shape;
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i > 0) out += ", ";
      out += tuple_shapes_[i].ToString(print_layout);
    }
    return out + ")";
  }
  if (IsToken()) return "token[]";
  std::string out(ElementTypeName(element_type_));
  out += "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0) out += ",";
    // -1 is a dynamic dimension (an unrefined shape-polymorphic program's
    // `?`: kDynamicDimension in xffi/program/text.h).
    out += dims_[i] == -1 ? std::string("?") : std::to_string(dims_[i]);
  }
  out += "]";
  if (print_layout && has_layout()) {
    out += "{";
    for (size_t i = 0; i < minor_to_major_.size(); ++i) {
      if (i > 0) out += ",";
      out += std::to_string(minor_to_major_[i]);
    }
    out += "}";
  }
  return out;
}

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i)
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    return true;
  }
  if (dims_ != other.dims_) return false;
  if (!HasDefaultLayout() && !other.HasDefaultLayout())
    return minor_to_major_ == other.minor_to_major_;
  return true;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ || dims_ != other.dims_)
    return false;
  if (EffectiveMinorToMajor() != other.EffectiveMinorToMajor()) return false;
  return tuple_shapes_ == other.tuple_shapes_;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

}  // namespace xffi
