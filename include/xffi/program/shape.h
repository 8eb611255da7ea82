// xffi: element types and shapes of programs.
//
// Element types carry XLA's PrimitiveType numbers, which XLA_FFI_DataType
// reuses, so a shape's element type goes into a call frame unchanged. A shape
// is an array (element type, dimensions, optional minor-to-major layout), a
// token or a tuple of shapes, as in XLA.
#ifndef XFFI_PROGRAM_SHAPE_H_
#define XFFI_PROGRAM_SHAPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/status.h"

namespace xffi {

enum class ElementType : int32_t {
  kInvalid = 0,
  kPred = 1,
  kS1 = 30,
  kS2 = 26,
  kS4 = 21,
  kS8 = 2,
  kS16 = 3,
  kS32 = 4,
  kS64 = 5,
  kU1 = 31,
  kU2 = 27,
  kU4 = 22,
  kU8 = 6,
  kU16 = 7,
  kU32 = 8,
  kU64 = 9,
  kF16 = 10,
  kF32 = 11,
  kF64 = 12,
  kBF16 = 16,
  kC64 = 15,
  kC128 = 18,
  kTuple = 13,
  kToken = 17,
  kF8E5M2 = 19,
  kF8E4M3FN = 20,
  kF8E4M3B11FNUZ = 23,
  kF8E5M2FNUZ = 24,
  kF8E4M3FNUZ = 25,
  kF8E4M3 = 28,
  kF8E3M4 = 29,
  kF4E2M1FN = 32,
  kF8E8M0FNU = 33,
};

// Every array element type, in a fixed order (tests iterate over it).
const std::vector<ElementType>& AllArrayElementTypes();

inline XLA_FFI_DataType ToFfiDataType(ElementType type) {
  return static_cast<XLA_FFI_DataType>(type);
}

// HLO spelling: "pred", "s32", "bf16", "f8e4m3fn", "c64", "token", "tuple".
std::string_view ElementTypeName(ElementType type);
// Accepts the HLO spelling; nullopt for anything else.
std::optional<ElementType> ElementTypeFromName(std::string_view name);
// MLIR spelling: "i1", "i32", "ui8", "bf16", "f8E4M3FN", "complex<f32>".
std::string MlirElementTypeName(ElementType type);
std::optional<ElementType> ElementTypeFromMlirName(std::string_view name);

// Bytes one element takes in memory. Sub-byte types (s1/s2/s4, u1/u2/u4,
// f4e2m1fn) take one byte each: xffi stores them unpacked, as XLA:CPU does
// without an element_size_in_bits layout. 0 for tuple, token and invalid.
size_t ElementByteSize(ElementType type);
// Bits of the value proper (4 for s4, 8 for u8, 1 for pred).
int ElementBitWidth(ElementType type);

bool IsArrayElementType(ElementType type);
bool IsFloatingType(ElementType type);  // f16, bf16, f32, f64 and every f8/f4
bool IsComplexType(ElementType type);
bool IsSignedIntegralType(ElementType type);
bool IsUnsignedIntegralType(ElementType type);
inline bool IsIntegralType(ElementType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

class Shape {
 public:
  Shape() = default;  // invalid

  // Dimensions are >= 0. A layout is minor-to-major: a permutation of the
  // dimension numbers; empty means the default (rank-1, ..., 0: row-major).
  static Shape Array(ElementType type, std::vector<int64_t> dims,
                     std::vector<int64_t> minor_to_major = {});
  static Shape Scalar(ElementType type) { return Array(type, {}); }
  static Shape Token();
  static Shape Tuple(std::vector<Shape> elements);

  bool valid() const { return element_type_ != ElementType::kInvalid; }
  bool IsArray() const { return IsArrayElementType(element_type_); }
  bool IsTuple() const { return element_type_ == ElementType::kTuple; }
  bool IsToken() const { return element_type_ == ElementType::kToken; }

  ElementType element_type() const { return element_type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t dim(int64_t i) const { return dims_[static_cast<size_t>(i)]; }

  // As given; empty when the shape has no explicit layout.
  const std::vector<int64_t>& minor_to_major() const { return minor_to_major_; }
  bool has_layout() const { return !minor_to_major_.empty(); }
  // True when the layout is absent or equal to the default one.
  bool HasDefaultLayout() const;
  // The explicit layout, or the default (rank-1, ..., 0).
  std::vector<int64_t> EffectiveMinorToMajor() const;
  void set_minor_to_major(std::vector<int64_t> m2m) {
    minor_to_major_ = std::move(m2m);
  }
  Shape WithoutLayout() const;  // recursively

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shape(int64_t i) const {
    return tuple_shapes_[static_cast<size_t>(i)];
  }
  int64_t tuple_size() const {
    return static_cast<int64_t>(tuple_shapes_.size());
  }

  // Arrays: product of dims (1 for a scalar). Others: 0.
  int64_t num_elements() const;
  // Arrays: num_elements * ElementByteSize. Tokens and tuples: 0.
  size_t byte_size() const;

  // Arrays and tokens, depth first (the leaves of a tuple).
  std::vector<const Shape*> Leaves() const;
  // The subshape at a tuple index path ({} is the shape itself); null when
  // the path leaves the tuple.
  const Shape* Subshape(const std::vector<int64_t>& index) const;

  // HLO text: "f32[2,3]", with "{1,0}" when a layout is present; "token[]",
  // "(f32[2], s32[])".
  std::string ToString(bool print_layout = true) const;

  // Compares type, dims and tuple structure; layouts only when both shapes
  // have one that is not the default.
  bool Compatible(const Shape& other) const;
  // Everything, layouts included (absent equals default).
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  ElementType element_type_ = ElementType::kInvalid;
  std::vector<int64_t> dims_;
  std::vector<int64_t> minor_to_major_;
  std::vector<Shape> tuple_shapes_;
};

// Row-major strides in elements for dims.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace xffi

#endif  // XFFI_PROGRAM_SHAPE_H_
