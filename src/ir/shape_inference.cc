#include "ir/shape_inference.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/collective_shape_inference.h"
#include "ir/conv_net_shape_inference.h"
#include "ir/fusion.h"
#include "ir/inference_failure.h"
#include "ir/numeric_shape_inference.h"
#include "runtime/status_macros.h"

namespace xffi {
namespace {

using inference::Fail;

std::string List(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(values[i]);
  }
  return out + "}";
}

bool Contains(const std::vector<int64_t>& values, int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// Element type classes, as bits, for the ops that accept only some types.
enum TypeClass : unsigned {
  kPredClass = 1,
  kSignedClass = 2,
  kUnsignedClass = 4,
  kFloatClass = 8,
  kComplexClass = 16,
  kIntegerClasses = kSignedClass | kUnsignedClass,
  kNumericClasses = kIntegerClasses | kFloatClass | kComplexClass,
  kAllClasses = kPredClass | kNumericClasses,
};

unsigned ClassOf(ElementType type) {
  if (type == ElementType::kPred) return kPredClass;
  if (IsSignedIntegralType(type)) return kSignedClass;
  if (IsUnsignedIntegralType(type)) return kUnsignedClass;
  if (IsFloatingType(type)) return kFloatClass;
  if (IsComplexType(type)) return kComplexClass;
  return 0;
}

std::string ClassNames(unsigned classes) {
  static constexpr std::pair<unsigned, std::string_view> kNames[] = {
      {kPredClass, "pred"},
      {kSignedClass, "signed integer"},
      {kUnsignedClass, "unsigned integer"},
      {kFloatClass, "floating-point"},
      {kComplexClass, "complex"},
  };
  std::vector<std::string_view> names;
  for (const auto& [bit, name] : kNames)
    if (classes & bit) names.push_back(name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

ElementType ComplexComponentType(ElementType type) {
  if (type == ElementType::kC64) return ElementType::kF32;
  if (type == ElementType::kC128) return ElementType::kF64;
  return type;
}

Shape WithElementType(const Shape& shape, ElementType type) {
  return Shape::Array(type, shape.dims());
}

// Reads an instruction's operands and called computations with messages
// that name them.
class OpView {
 public:
  explicit OpView(const Instruction& instruction) : in_(instruction) {}

  const Instruction& in() const { return in_; }
  int64_t count() const { return in_.operand_count(); }
  const Shape& shape(int64_t i) const { return in_.operand(i)->shape(); }

  Status ExpectOperands(int64_t n) const {
    if (count() != n)
      return Fail("takes ", n, n == 1 ? " operand" : " operands", ", got ",
                  count());
    return Status::Ok();
  }
  Status ExpectAtLeast(int64_t n) const {
    if (count() < n)
      return Fail("takes at least ", n, " operands, got ", count());
    return Status::Ok();
  }
  Status ExpectArray(int64_t i) const {
    if (!shape(i).IsArray())
      return Fail("operand ", i, " must be an array, got ",
                  shape(i).ToString());
    return Status::Ok();
  }
  Status ExpectArrays(int64_t begin, int64_t end) const {
    for (int64_t i = begin; i < end; ++i) XFFI_RETURN_IF_ERROR(ExpectArray(i));
    return Status::Ok();
  }
  Status ExpectScalar(int64_t i, std::string_view role) const {
    if (!shape(i).IsArray() || shape(i).rank() != 0)
      return Fail(role, " (operand ", i, ") must be a scalar, got ",
                  shape(i).ToString());
    return Status::Ok();
  }
  Status ExpectClass(int64_t i, unsigned classes) const {
    if (!(ClassOf(shape(i).element_type()) & classes))
      return Fail("operand ", i, " must be ", ClassNames(classes), ", got ",
                  shape(i).ToString());
    return Status::Ok();
  }
  Status ExpectSameShape(int64_t a, int64_t b) const {
    if (!SameArray(shape(a), shape(b)))
      return Fail("operands ", a, " and ", b, " must have the same shape, got ",
                  shape(a).ToString(false), " and ", shape(b).ToString(false));
    return Status::Ok();
  }
  Status ExpectCalled(size_t n) const {
    if (in_.called_computations().size() != n)
      return Fail("calls ", n, n == 1 ? " computation" : " computations",
                  ", got ", in_.called_computations().size());
    return Status::Ok();
  }
  Status ExpectStartIndices(int64_t begin, int64_t end) const {
    for (int64_t i = begin; i < end; ++i) {
      if (!shape(i).IsArray() || shape(i).rank() != 0 ||
          !IsIntegralType(shape(i).element_type()))
        return Fail("start index (operand ", i,
                    ") must be an integer scalar, got ", shape(i).ToString());
      if (shape(i).element_type() != shape(begin).element_type())
        return Fail("start indices must share one element type, got ",
                    shape(begin).ToString(), " and ", shape(i).ToString());
    }
    return Status::Ok();
  }

  static bool SameArray(const Shape& a, const Shape& b) {
    return a.element_type() == b.element_type() && a.dims() == b.dims();
  }

 private:
  const Instruction& in_;
};

// Dimension numbers of a rank-`rank` array: each in range, none repeated,
// ascending when `sorted`.
Status CheckDimensions(const std::vector<int64_t>& dims, int64_t rank,
                       std::string_view what, bool sorted = false) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank)
      return Fail(what, " ", List(dims), ": dimension ", dims[i],
                  " is out of range for rank ", rank);
    for (size_t j = 0; j < i; ++j)
      if (dims[j] == dims[i])
        return Fail(what, " ", List(dims), " repeat dimension ", dims[i]);
    if (sorted && i > 0 && dims[i] < dims[i - 1])
      return Fail(what, " ", List(dims), " must be sorted");
  }
  return Status::Ok();
}

// A region's signature: its parameters, numbered 0..n-1 with the expected
// shapes, and a root.
Status CheckRegionParameters(const Computation* region, std::string_view role,
                             const std::vector<Shape>& expected) {
  if (region == nullptr) return Fail(role, " is null");
  if (region->root() == nullptr)
    return Fail(role, " '", region->name(), "' has no root");
  int64_t n = static_cast<int64_t>(expected.size());
  if (region->num_parameters() != n)
    return Fail(role, " '", region->name(), "' takes ",
                region->num_parameters(), " parameters, expected ", n);
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* param = region->parameter(i);
    if (param == nullptr)
      return Fail(role, " '", region->name(), "' has no parameter ", i);
    if (!param->shape().Compatible(expected[static_cast<size_t>(i)]))
      return Fail(role, " '", region->name(), "' parameter ", i, " is ",
                  param->shape().ToString(), ", expected ",
                  expected[static_cast<size_t>(i)].ToString());
  }
  return Status::Ok();
}

Status CheckRegionRoot(const Computation* region, std::string_view role,
                       const Shape& expected) {
  if (!region->root()->shape().Compatible(expected))
    return Fail(role, " '", region->name(), "' returns ",
                region->root()->shape().ToString(), ", expected ",
                expected.ToString());
  return Status::Ok();
}

Shape MaybeTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

// A reduction combiner (reduce, reduce-window, scatter): parameters are N
// accumulators typed like the inits, then N elements typed like the inputs;
// it returns N accumulators.
Status CheckCombiner(const Computation* region, std::string_view role,
                     const std::vector<ElementType>& accumulator_types,
                     const std::vector<ElementType>& element_types) {
  std::vector<Shape> params;
  for (ElementType t : accumulator_types) params.push_back(Shape::Scalar(t));
  for (ElementType t : element_types) params.push_back(Shape::Scalar(t));
  XFFI_RETURN_IF_ERROR(CheckRegionParameters(region, role, params));
  std::vector<Shape> results;
  for (ElementType t : accumulator_types) results.push_back(Shape::Scalar(t));
  return CheckRegionRoot(region, role, MaybeTuple(std::move(results)));
}

// --- elementwise ------------------------------------------------------------

struct UnaryRule {
  unsigned classes;
  enum Result { kSame, kComponent, kPred } result;
};

UnaryRule UnaryRuleFor(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAbs:
      return {kSignedClass | kFloatClass | kComplexClass,
              UnaryRule::kComponent};
    case Opcode::kNegate:
      return {kNumericClasses, UnaryRule::kSame};
    case Opcode::kSign:
      return {kSignedClass | kFloatClass | kComplexClass, UnaryRule::kSame};
    case Opcode::kNot:
      return {kPredClass | kIntegerClasses, UnaryRule::kSame};
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kErf:
    case Opcode::kErfInv:
    case Opcode::kLgamma:
    case Opcode::kDigamma:
    case Opcode::kErfc:
    case Opcode::kBesselI1e:
    case Opcode::kReducePrecision:
      return {kFloatClass, UnaryRule::kSame};
    case Opcode::kIsFinite:
    case Opcode::kIsInf:
    case Opcode::kIsPosInf:
    case Opcode::kIsNegInf:
      return {kFloatClass, UnaryRule::kPred};
    case Opcode::kPopulationCount:
    case Opcode::kClz:
      return {kIntegerClasses, UnaryRule::kSame};
    case Opcode::kReal:
    case Opcode::kImag:
      return {kFloatClass | kComplexClass, UnaryRule::kComponent};
    default:  // exp, log, sqrt, tanh, sin, ...: transcendental
      return {kFloatClass | kComplexClass, UnaryRule::kSame};
  }
}

Status InferUnary(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  UnaryRule rule = UnaryRuleFor(op.in().opcode());
  XFFI_RETURN_IF_ERROR(op.ExpectClass(0, rule.classes));
  ElementType type = op.shape(0).element_type();
  if (op.in().opcode() == Opcode::kReducePrecision &&
      (op.in().exponent_bits < 1 || op.in().mantissa_bits < 0))
    return Fail("keeps ", op.in().exponent_bits, " exponent and ",
                op.in().mantissa_bits,
                " mantissa bits; it needs at least 1 and 0");
  if (rule.result == UnaryRule::kComponent) type = ComplexComponentType(type);
  if (rule.result == UnaryRule::kPred) type = ElementType::kPred;
  *out = WithElementType(op.shape(0), type);
  return Status::Ok();
}

unsigned BinaryClasses(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAdd:
    case Opcode::kMultiply:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kCompare:
      return kAllClasses;
    case Opcode::kSubtract:
    case Opcode::kDivide:
    case Opcode::kPower:
      return kNumericClasses;
    case Opcode::kRemainder:
      return kIntegerClasses | kFloatClass;
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      return kPredClass | kIntegerClasses;
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
      return kIntegerClasses;
    case Opcode::kAtan2:
      return kFloatClass | kComplexClass;
    case Opcode::kComplex:
    case Opcode::kNextAfter:
    case Opcode::kPolygamma:
    case Opcode::kZeta:
      return kFloatClass;
    case Opcode::kMulhi:
      return kIntegerClasses;
    default:
      return kAllClasses;
  }
}

Status CheckComparisonType(ComparisonType type, ElementType element) {
  unsigned classes = kAllClasses;
  switch (type) {
    case ComparisonType::kDefault:
      return Status::Ok();
    case ComparisonType::kFloat:
    case ComparisonType::kTotalOrder:
      classes = kFloatClass | kComplexClass;
      break;
    case ComparisonType::kSigned:
      classes = kSignedClass;
      break;
    case ComparisonType::kUnsigned:
      classes = kUnsignedClass | kPredClass;
      break;
  }
  if (!(ClassOf(element) & classes))
    return Fail("comparison type ", ComparisonTypeName(type),
                " does not apply to ", ElementTypeName(element), " operands");
  return Status::Ok();
}

Status InferBinary(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(2));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 2));
  XFFI_RETURN_IF_ERROR(op.ExpectSameShape(0, 1));
  Opcode opcode = op.in().opcode();
  XFFI_RETURN_IF_ERROR(op.ExpectClass(0, BinaryClasses(opcode)));
  ElementType type = op.shape(0).element_type();
  if (opcode == Opcode::kCompare) {
    XFFI_RETURN_IF_ERROR(CheckComparisonType(op.in().comparison_type, type));
    type = ElementType::kPred;
  } else if (opcode == Opcode::kComplex) {
    if (type != ElementType::kF32 && type != ElementType::kF64)
      return Fail("parts must be f32 or f64, got ", ElementTypeName(type));
    type = type == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
  }
  *out = WithElementType(op.shape(0), type);
  return Status::Ok();
}

Status InferSelect(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(3));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 3));
  XFFI_RETURN_IF_ERROR(op.ExpectSameShape(1, 2));
  const Shape& pred = op.shape(0);
  if (pred.element_type() != ElementType::kPred)
    return Fail("predicate (operand 0) must be pred, got ", pred.ToString());
  // A scalar predicate picks whole arrays (StableHLO allows it).
  if (pred.rank() != 0 && pred.dims() != op.shape(1).dims())
    return Fail("predicate ", pred.ToString(false),
                " must be a scalar or match the selected values' shape ",
                op.shape(1).ToString(false));
  *out = op.shape(1).WithoutLayout();
  return Status::Ok();
}

Status InferClamp(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(3));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 3));
  const Shape& operand = op.shape(1);
  for (int64_t i : {int64_t{0}, int64_t{2}}) {
    const Shape& bound = op.shape(i);
    if (bound.element_type() != operand.element_type() ||
        (bound.rank() != 0 && bound.dims() != operand.dims()))
      return Fail(i == 0 ? "min " : "max ", bound.ToString(false),
                  " must be a scalar or the operand's shape ",
                  operand.ToString(false));
  }
  *out = operand.WithoutLayout();
  return Status::Ok();
}

Status InferConvert(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  ElementType target = op.in().shape().element_type();
  if (!IsArrayElementType(target))
    return Fail("the result element type must be an array type, got ",
                op.in().shape().ToString());
  *out = WithElementType(op.shape(0), target);
  return Status::Ok();
}

Status InferBitcastConvert(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& operand = op.shape(0);
  ElementType target = op.in().shape().element_type();
  if (!IsArrayElementType(target))
    return Fail("the result element type must be an array type, got ",
                op.in().shape().ToString());
  int from_bits = ElementBitWidth(operand.element_type());
  int to_bits = ElementBitWidth(target);
  std::vector<int64_t> dims = operand.dims();
  if (from_bits > to_bits) {
    if (from_bits % to_bits != 0)
      return Fail("cannot split ", ElementTypeName(operand.element_type()),
                  " into ", ElementTypeName(target));
    dims.push_back(from_bits / to_bits);  // one new minor dimension
  } else if (from_bits < to_bits) {
    int64_t ratio = to_bits % from_bits == 0 ? to_bits / from_bits : 0;
    if (ratio == 0 || dims.empty() || dims.back() != ratio)
      return Fail("converting ", operand.ToString(false), " to ",
                  ElementTypeName(target), " needs a last dimension of size ",
                  to_bits / from_bits,
                  to_bits % from_bits == 0 ? "" : " (widths do not divide)");
    dims.pop_back();
  }
  *out = Shape::Array(target, std::move(dims));
  return Status::Ok();
}

// --- data movement ----------------------------------------------------------

Status InferIota(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(0));
  const Shape& shape = op.in().shape();
  if (!shape.IsArray() || shape.rank() == 0)
    return Fail("the result must be an array of rank >= 1, got ",
                shape.ToString());
  if (!(ClassOf(shape.element_type()) & kNumericClasses))
    return Fail("the result must be numeric, got ", shape.ToString());
  if (op.in().dimensions.size() != 1)
    return Fail("takes one iota dimension, got ", List(op.in().dimensions));
  int64_t dim = op.in().dimensions[0];
  if (dim < 0 || dim >= shape.rank())
    return Fail("iota dimension ", dim, " is out of range for rank ",
                shape.rank());
  *out = shape;
  return Status::Ok();
}

Status InferBroadcast(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& operand = op.shape(0);
  const Shape& result = op.in().shape();
  if (!result.IsArray())
    return Fail("the result must be an array, got ", result.ToString());
  const std::vector<int64_t>& dims = op.in().dimensions;
  if (static_cast<int64_t>(dims.size()) != operand.rank())
    return Fail("has ", dims.size(), " broadcast dimensions for operand ",
                operand.ToString(false), " of rank ", operand.rank());
  XFFI_RETURN_IF_ERROR(
      CheckDimensions(dims, result.rank(), "broadcast dimensions"));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t to = dims[static_cast<size_t>(i)];
    if (operand.dim(i) != 1 && operand.dim(i) != result.dim(to))
      return Fail("operand dimension ", i, " has size ", operand.dim(i),
                  ", result dimension ", to, " has size ", result.dim(to),
                  " (sizes must match or the operand's be 1)");
  }
  *out = Shape::Array(operand.element_type(), result.dims());
  return Status::Ok();
}

Status InferReshape(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& result = op.in().shape();
  if (!result.IsArray())
    return Fail("the result must be an array, got ", result.ToString());
  Shape reshaped = Shape::Array(op.shape(0).element_type(), result.dims());
  if (reshaped.num_elements() != op.shape(0).num_elements())
    return Fail("operand ", op.shape(0).ToString(false), " has ",
                op.shape(0).num_elements(), " elements, result ",
                reshaped.ToString(false), " has ", reshaped.num_elements());
  *out = std::move(reshaped);
  return Status::Ok();
}

Status InferTranspose(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& operand = op.shape(0);
  const std::vector<int64_t>& perm = op.in().dimensions;
  if (static_cast<int64_t>(perm.size()) != operand.rank())
    return Fail("permutation ", List(perm), " does not have rank ",
                operand.rank(), " of operand ", operand.ToString(false));
  XFFI_RETURN_IF_ERROR(CheckDimensions(perm, operand.rank(), "permutation"));
  std::vector<int64_t> dims;
  for (int64_t d : perm) dims.push_back(operand.dim(d));
  *out = Shape::Array(operand.element_type(), std::move(dims));
  return Status::Ok();
}

Status InferSlice(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& operand = op.shape(0);
  const Instruction& in = op.in();
  size_t rank = static_cast<size_t>(operand.rank());
  if (in.slice_starts.size() != rank || in.slice_limits.size() != rank ||
      in.slice_strides.size() != rank)
    return Fail("starts ", List(in.slice_starts), ", limits ",
                List(in.slice_limits), " and strides ", List(in.slice_strides),
                " must each have rank ", rank, " of operand ",
                operand.ToString(false));
  std::vector<int64_t> dims;
  for (size_t i = 0; i < rank; ++i) {
    int64_t start = in.slice_starts[i], limit = in.slice_limits[i],
            stride = in.slice_strides[i], size = operand.dims()[i];
    if (stride <= 0)
      return Fail("stride ", stride, " in dimension ", i, " must be positive");
    if (start < 0 || start > limit || limit > size)
      return Fail("dimension ", i, " of size ", size, " cannot be sliced [",
                  start, ", ", limit, ")");
    dims.push_back((limit - start + stride - 1) / stride);
  }
  *out = Shape::Array(operand.element_type(), std::move(dims));
  return Status::Ok();
}

Status InferDynamicSlice(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectAtLeast(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  const Shape& operand = op.shape(0);
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1 + operand.rank()));
  XFFI_RETURN_IF_ERROR(op.ExpectStartIndices(1, op.count()));
  const std::vector<int64_t>& sizes = op.in().dynamic_slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != operand.rank())
    return Fail("slice sizes ", List(sizes), " do not have rank ",
                operand.rank(), " of operand ", operand.ToString(false));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t size = sizes[static_cast<size_t>(i)];
    if (size < 0 || size > operand.dim(i))
      return Fail("slice size ", size, " in dimension ", i, " is outside [0, ",
                  operand.dim(i), "]");
  }
  *out = Shape::Array(operand.element_type(), sizes);
  return Status::Ok();
}

Status InferDynamicUpdateSlice(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectAtLeast(2));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 2));
  const Shape& operand = op.shape(0);
  const Shape& update = op.shape(1);
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(2 + operand.rank()));
  XFFI_RETURN_IF_ERROR(op.ExpectStartIndices(2, op.count()));
  if (update.element_type() != operand.element_type() ||
      update.rank() != operand.rank())
    return Fail("update ", update.ToString(false),
                " must have the element type and rank of operand ",
                operand.ToString(false));
  for (int64_t i = 0; i < operand.rank(); ++i)
    if (update.dim(i) > operand.dim(i))
      return Fail("update dimension ", i, " has size ", update.dim(i),
                  ", larger than the operand's ", operand.dim(i));
  *out = operand.WithoutLayout();
  return Status::Ok();
}

Status InferConcatenate(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectAtLeast(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, op.count()));
  const Shape& first = op.shape(0);
  if (op.in().dimensions.size() != 1)
    return Fail("takes one concatenation dimension, got ",
                List(op.in().dimensions));
  int64_t dim = op.in().dimensions[0];
  if (dim < 0 || dim >= first.rank())
    return Fail("dimension ", dim, " is out of range for rank ", first.rank());
  std::vector<int64_t> dims = first.dims();
  for (int64_t i = 1; i < op.count(); ++i) {
    const Shape& next = op.shape(i);
    bool fits = next.element_type() == first.element_type() &&
                next.rank() == first.rank();
    for (int64_t d = 0; fits && d < first.rank(); ++d)
      fits = d == dim || next.dim(d) == first.dim(d);
    if (!fits)
      return Fail("operand ", i, " ", next.ToString(false),
                  " does not match operand 0 ", first.ToString(false),
                  " outside dimension ", dim);
    dims[static_cast<size_t>(dim)] += next.dim(dim);
  }
  *out = Shape::Array(first.element_type(), std::move(dims));
  return Status::Ok();
}

Status InferPad(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(2));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  XFFI_RETURN_IF_ERROR(op.ExpectScalar(1, "padding value"));
  const Shape& operand = op.shape(0);
  if (op.shape(1).element_type() != operand.element_type())
    return Fail("padding value ", op.shape(1).ToString(false),
                " must have the element type of operand ",
                operand.ToString(false));
  const std::vector<PadDimension>& padding = op.in().padding;
  if (static_cast<int64_t>(padding.size()) != operand.rank())
    return Fail("has ", padding.size(), " padding dimensions for operand ",
                operand.ToString(false), " of rank ", operand.rank());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PadDimension& p = padding[static_cast<size_t>(i)];
    if (p.interior < 0)
      return Fail("interior padding ", p.interior, " in dimension ", i,
                  " is negative");
    int64_t size = operand.dim(i);
    int64_t padded =
        p.low + p.high + size + std::max<int64_t>(size - 1, 0) * p.interior;
    if (padded < 0)
      return Fail("padding ", p.low, "_", p.high, "_", p.interior,
                  " leaves dimension ", i, " of size ", size,
                  " with negative size ", padded);
    dims.push_back(padded);
  }
  *out = Shape::Array(operand.element_type(), std::move(dims));
  return Status::Ok();
}

Status InferReverse(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArray(0));
  XFFI_RETURN_IF_ERROR(
      CheckDimensions(op.in().dimensions, op.shape(0).rank(), "dimensions"));
  *out = op.shape(0).WithoutLayout();
  return Status::Ok();
}

// The index vector's length of start/scatter indices, and their batch
// dimensions (every dimension but index_vector_dim).
struct IndicesLayout {
  int64_t vector_size = 1;
  std::vector<int64_t> batch_dims;
};

StatusOr<IndicesLayout> ReadIndices(const Shape& indices,
                                    int64_t index_vector_dim,
                                    std::string_view what) {
  if (!IsIntegralType(indices.element_type()))
    return Fail(what, " must be integers, got ", indices.ToString(false));
  if (index_vector_dim < 0 || index_vector_dim > indices.rank())
    return Fail("index_vector_dim ", index_vector_dim, " is out of range for ",
                what, " ", indices.ToString(false));
  IndicesLayout layout;
  // index_vector_dim == rank: a trailing index vector of size 1.
  if (index_vector_dim < indices.rank())
    layout.vector_size = indices.dim(index_vector_dim);
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != index_vector_dim) layout.batch_dims.push_back(d);
  return layout;
}

// Batching dimensions of the operand and of the indices pair up with equal
// sizes; index batching dimensions are not the index vector dimension.
Status CheckBatchingPairs(const Shape& operand,
                          const std::vector<int64_t>& operand_batching,
                          std::string_view operand_name, const Shape& indices,
                          const std::vector<int64_t>& indices_batching,
                          std::string_view indices_name,
                          int64_t index_vector_dim) {
  XFFI_RETURN_IF_ERROR(
      CheckDimensions(indices_batching, indices.rank(), indices_name));
  if (Contains(indices_batching, index_vector_dim))
    return Fail(indices_name, " ", List(indices_batching),
                " include index_vector_dim ", index_vector_dim);
  if (operand_batching.size() != indices_batching.size())
    return Fail(operand_name, " ", List(operand_batching), " and ",
                indices_name, " ", List(indices_batching),
                " must have the same length");
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (operand.dim(operand_batching[i]) != indices.dim(indices_batching[i]))
      return Fail(operand_name, " dimension ", operand_batching[i],
                  " has size ", operand.dim(operand_batching[i]), ", ",
                  indices_name, " dimension ", indices_batching[i],
                  " has size ", indices.dim(indices_batching[i]));
  return Status::Ok();
}

// start_index_map / scatter_dims_to_operand_dims: one operand dimension per
// index vector element, none of them a batching dimension.
Status CheckIndexMap(const std::vector<int64_t>& map, std::string_view name,
                     int64_t operand_rank, int64_t vector_size,
                     const std::vector<int64_t>& operand_batching) {
  if (static_cast<int64_t>(map.size()) != vector_size)
    return Fail(name, " ", List(map), " has ", map.size(),
                " entries, the index vector has ", vector_size);
  XFFI_RETURN_IF_ERROR(CheckDimensions(map, operand_rank, name));
  for (int64_t d : map)
    if (Contains(operand_batching, d))
      return Fail(name, " ", List(map), " names batching dimension ", d);
  return Status::Ok();
}

Status InferGather(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(2));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 2));
  const Shape& operand = op.shape(0);
  const Shape& indices = op.shape(1);
  const GatherDimensionNumbers& dn = op.in().gather_dimension_numbers;
  const std::vector<int64_t>& slice_sizes = op.in().gather_slice_sizes;
  StatusOr<IndicesLayout> layout =
      ReadIndices(indices, dn.index_vector_dim, "start indices");
  if (!layout.ok()) return layout.status();

  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank())
    return Fail("slice sizes ", List(slice_sizes), " do not have rank ",
                operand.rank(), " of operand ", operand.ToString(false));
  for (int64_t i = 0; i < operand.rank(); ++i) {
    int64_t size = slice_sizes[static_cast<size_t>(i)];
    if (size < 0 || size > operand.dim(i))
      return Fail("slice size ", size, " in dimension ", i, " is outside [0, ",
                  operand.dim(i), "]");
  }
  XFFI_RETURN_IF_ERROR(CheckDimensions(dn.collapsed_slice_dims, operand.rank(),
                                       "collapsed_slice_dims", true));
  XFFI_RETURN_IF_ERROR(CheckDimensions(dn.operand_batching_dims, operand.rank(),
                                       "operand_batching_dims", true));
  for (int64_t d : dn.collapsed_slice_dims) {
    if (slice_sizes[static_cast<size_t>(d)] > 1)
      return Fail("collapsed slice dimension ", d, " has slice size ",
                  slice_sizes[static_cast<size_t>(d)], ", not 1");
    if (Contains(dn.operand_batching_dims, d))
      return Fail("dimension ", d,
                  " is both collapsed and an operand batching dimension");
  }
  for (int64_t d : dn.operand_batching_dims)
    if (slice_sizes[static_cast<size_t>(d)] > 1)
      return Fail("operand batching dimension ", d, " has slice size ",
                  slice_sizes[static_cast<size_t>(d)], ", not 1");
  XFFI_RETURN_IF_ERROR(CheckBatchingPairs(
      operand, dn.operand_batching_dims, "operand_batching_dims", indices,
      dn.start_indices_batching_dims, "start_indices_batching_dims",
      dn.index_vector_dim));
  XFFI_RETURN_IF_ERROR(CheckIndexMap(dn.start_index_map, "start_index_map",
                                     operand.rank(), layout->vector_size,
                                     dn.operand_batching_dims));

  // Slice dimensions that survive into the result, in operand order.
  std::vector<int64_t> offset_sizes;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!Contains(dn.collapsed_slice_dims, d) &&
        !Contains(dn.operand_batching_dims, d))
      offset_sizes.push_back(slice_sizes[static_cast<size_t>(d)]);
  if (dn.offset_dims.size() != offset_sizes.size())
    return Fail("offset_dims ", List(dn.offset_dims), " has ",
                dn.offset_dims.size(), " entries, the slice keeps ",
                offset_sizes.size(), " dimensions");
  int64_t rank =
      static_cast<int64_t>(offset_sizes.size() + layout->batch_dims.size());
  XFFI_RETURN_IF_ERROR(
      CheckDimensions(dn.offset_dims, rank, "offset_dims", true));
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (Contains(dn.offset_dims, d))
      dims.push_back(offset_sizes[next_offset++]);
    else
      dims.push_back(indices.dim(layout->batch_dims[next_batch++]));
  }
  *out = Shape::Array(operand.element_type(), std::move(dims));
  return Status::Ok();
}

Status InferScatter(const OpView& op, Shape* out) {
  int64_t count = op.count();
  if (count < 3 || count % 2 == 0)
    return Fail("takes N operands, the indices and N updates (N >= 1), got ",
                count, " operands");
  int64_t n = (count - 1) / 2;
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, count));
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(1));
  const Shape& operand = op.shape(0);
  const Shape& indices = op.shape(n);
  const Shape& updates = op.shape(n + 1);
  for (int64_t i = 1; i < n; ++i)
    if (op.shape(i).dims() != operand.dims())
      return Fail("operand ", i, " ", op.shape(i).ToString(false),
                  " does not have the dimensions of operand 0 ",
                  operand.ToString(false));
  for (int64_t i = 0; i < n; ++i) {
    const Shape& u = op.shape(n + 1 + i);
    if (u.dims() != updates.dims())
      return Fail("update ", i, " ", u.ToString(false),
                  " does not have the dimensions of update 0 ",
                  updates.ToString(false));
    if (u.element_type() != op.shape(i).element_type())
      return Fail("update ", i, " ", u.ToString(false),
                  " does not have the element type of operand ", i, " ",
                  op.shape(i).ToString(false));
  }
  const ScatterDimensionNumbers& dn = op.in().scatter_dimension_numbers;
  StatusOr<IndicesLayout> layout =
      ReadIndices(indices, dn.index_vector_dim, "scatter indices");
  if (!layout.ok()) return layout.status();

  XFFI_RETURN_IF_ERROR(CheckDimensions(dn.update_window_dims, updates.rank(),
                                       "update_window_dims", true));
  XFFI_RETURN_IF_ERROR(CheckDimensions(dn.inserted_window_dims, operand.rank(),
                                       "inserted_window_dims", true));
  XFFI_RETURN_IF_ERROR(CheckDimensions(dn.input_batching_dims, operand.rank(),
                                       "input_batching_dims", true));
  for (int64_t d : dn.inserted_window_dims)
    if (Contains(dn.input_batching_dims, d))
      return Fail("dimension ", d,
                  " is both an inserted window and an input batching "
                  "dimension");
  XFFI_RETURN_IF_ERROR(
      CheckBatchingPairs(operand, dn.input_batching_dims, "input_batching_dims",
                         indices, dn.scatter_indices_batching_dims,
                         "scatter_indices_batching_dims", dn.index_vector_dim));
  XFFI_RETURN_IF_ERROR(CheckIndexMap(
      dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims",
      operand.rank(), layout->vector_size, dn.input_batching_dims));

  int64_t window_rank = static_cast<int64_t>(dn.update_window_dims.size());
  int64_t expected_operand_rank =
      window_rank + static_cast<int64_t>(dn.inserted_window_dims.size() +
                                         dn.input_batching_dims.size());
  if (operand.rank() != expected_operand_rank)
    return Fail("operand rank ", operand.rank(),
                " must equal update_window_dims + inserted_window_dims + "
                "input_batching_dims = ",
                expected_operand_rank);
  int64_t scatter_rank = static_cast<int64_t>(layout->batch_dims.size());
  if (updates.rank() != window_rank + scatter_rank)
    return Fail("updates ", updates.ToString(false), " must have rank ",
                window_rank + scatter_rank, " (", window_rank,
                " window dimensions and ", scatter_rank,
                " scatter dimensions)");
  // Window dimensions fit in the operand's dimensions they update.
  size_t next_window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (Contains(dn.inserted_window_dims, d) ||
        Contains(dn.input_batching_dims, d))
      continue;
    int64_t update_dim = dn.update_window_dims[next_window++];
    if (updates.dim(update_dim) > operand.dim(d))
      return Fail("update window dimension ", update_dim, " has size ",
                  updates.dim(update_dim), ", larger than operand dimension ",
                  d, " of size ", operand.dim(d));
  }
  // Scatter dimensions of the updates match the indices' batch dimensions.
  size_t next_batch = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (Contains(dn.update_window_dims, d)) continue;
    int64_t index_dim = layout->batch_dims[next_batch++];
    if (updates.dim(d) != indices.dim(index_dim))
      return Fail("update scatter dimension ", d, " has size ", updates.dim(d),
                  ", scatter indices dimension ", index_dim, " has size ",
                  indices.dim(index_dim));
  }

  std::vector<ElementType> types;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    types.push_back(op.shape(i).element_type());
    results.push_back(op.shape(i).WithoutLayout());
  }
  XFFI_RETURN_IF_ERROR(CheckCombiner(op.in().called_computations()[0],
                                     "update computation", types, types));
  *out = MaybeTuple(std::move(results));
  return Status::Ok();
}

// --- computation ------------------------------------------------------------

Status InferDot(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(2));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 2));
  const Shape& lhs = op.shape(0);
  const Shape& rhs = op.shape(1);
  if (!(ClassOf(lhs.element_type()) & kNumericClasses) ||
      !(ClassOf(rhs.element_type()) & kNumericClasses))
    return Fail("operands must be numeric, got ", lhs.ToString(false), " and ",
                rhs.ToString(false));
  const DotDimensionNumbers& dn = op.in().dot_dimension_numbers;
  if (dn.lhs_batch.size() != dn.rhs_batch.size())
    return Fail("lhs batch dimensions ", List(dn.lhs_batch),
                " and rhs batch dimensions ", List(dn.rhs_batch),
                " differ in number");
  if (dn.lhs_contracting.size() != dn.rhs_contracting.size())
    return Fail("lhs contracting dimensions ", List(dn.lhs_contracting),
                " and rhs contracting dimensions ", List(dn.rhs_contracting),
                " differ in number");
  auto check_side = [](const Shape& side, std::string_view name,
                       const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contracting) -> Status {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contracting.begin(), contracting.end());
    return CheckDimensions(
        all, side.rank(),
        std::string(name) + " batch and contracting dimensions");
  };
  XFFI_RETURN_IF_ERROR(
      check_side(lhs, "lhs", dn.lhs_batch, dn.lhs_contracting));
  XFFI_RETURN_IF_ERROR(
      check_side(rhs, "rhs", dn.rhs_batch, dn.rhs_contracting));
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i)
    if (lhs.dim(dn.lhs_batch[i]) != rhs.dim(dn.rhs_batch[i]))
      return Fail("lhs batch dimension ", dn.lhs_batch[i], " has size ",
                  lhs.dim(dn.lhs_batch[i]), ", rhs batch dimension ",
                  dn.rhs_batch[i], " has size ", rhs.dim(dn.rhs_batch[i]));
  for (size_t i = 0; i < dn.lhs_contracting.size(); ++i)
    if (lhs.dim(dn.lhs_contracting[i]) != rhs.dim(dn.rhs_contracting[i]))
      return Fail("lhs contracting dimension ", dn.lhs_contracting[i],
                  " has size ", lhs.dim(dn.lhs_contracting[i]),
                  ", rhs contracting dimension ", dn.rhs_contracting[i],
                  " has size ", rhs.dim(dn.rhs_contracting[i]));
  std::vector<int64_t> dims;
  for (int64_t d : dn.lhs_batch) dims.push_back(lhs.dim(d));
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!Contains(dn.lhs_batch, d) && !Contains(dn.lhs_contracting, d))
      dims.push_back(lhs.dim(d));
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!Contains(dn.rhs_batch, d) && !Contains(dn.rhs_contracting, d))
      dims.push_back(rhs.dim(d));
  ElementType type = op.in().shape().element_type();
  if (!op.in().shape().valid()) type = lhs.element_type();
  if (!(ClassOf(type) & kNumericClasses))
    return Fail("the result element type must be numeric, got ",
                op.in().shape().ToString());
  *out = Shape::Array(type, std::move(dims));
  return Status::Ok();
}

// Reduce and reduce-window: N inputs of one shape, then N scalar inits.
Status CheckReductionOperands(const OpView& op, int64_t* n) {
  int64_t count = op.count();
  if (count < 2 || count % 2 != 0)
    return Fail("takes N inputs and N initial values (N >= 1), got ", count,
                " operands");
  *n = count / 2;
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, count));
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(1));
  for (int64_t i = 1; i < *n; ++i)
    if (op.shape(i).dims() != op.shape(0).dims())
      return Fail("input ", i, " ", op.shape(i).ToString(false),
                  " does not have the dimensions of input 0 ",
                  op.shape(0).ToString(false));
  for (int64_t i = 0; i < *n; ++i)
    XFFI_RETURN_IF_ERROR(op.ExpectScalar(*n + i, "initial value"));
  return Status::Ok();
}

Status InferReduceLike(const OpView& op, const std::vector<int64_t>& dims,
                       Shape* out) {
  int64_t n = 0;
  XFFI_RETURN_IF_ERROR(CheckReductionOperands(op, &n));
  std::vector<ElementType> accumulators, elements;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    accumulators.push_back(op.shape(n + i).element_type());
    elements.push_back(op.shape(i).element_type());
    results.push_back(Shape::Array(accumulators.back(), dims));
  }
  XFFI_RETURN_IF_ERROR(CheckCombiner(op.in().called_computations()[0],
                                     "reducer", accumulators, elements));
  *out = MaybeTuple(std::move(results));
  return Status::Ok();
}

Status InferReduce(const OpView& op, Shape* out) {
  if (op.count() >= 1 && op.shape(0).IsArray())
    XFFI_RETURN_IF_ERROR(
        CheckDimensions(op.in().dimensions, op.shape(0).rank(), "dimensions"));
  std::vector<int64_t> dims;
  if (op.count() >= 1)
    for (int64_t d = 0; d < op.shape(0).rank(); ++d)
      if (!Contains(op.in().dimensions, d)) dims.push_back(op.shape(0).dim(d));
  return InferReduceLike(op, dims, out);
}

// The dimensions of the windows' positions over `input` (reduce-window,
// select-and-scatter): one window dimension per input dimension.
Status WindowPositions(const Shape& input,
                       const std::vector<WindowDimension>& window,
                       std::vector<int64_t>* dims) {
  if (static_cast<int64_t>(window.size()) != input.rank())
    return Fail("window has ", window.size(), " dimensions, input ",
                input.ToString(false), " has rank ", input.rank());
  for (int64_t i = 0; i < input.rank(); ++i) {
    const WindowDimension& w = window[static_cast<size_t>(i)];
    if (w.size <= 0 || w.stride <= 0 || w.window_dilation <= 0 ||
        w.base_dilation <= 0)
      return Fail("window dimension ", i, " has size ", w.size, ", stride ",
                  w.stride, ", dilations ", w.base_dilation, "/",
                  w.window_dilation, "; each must be positive");
    if (w.window_reversal)
      return Fail("window dimension ", i,
                  " is reversed; only a convolution's window can be");
    int64_t dilated_base =
        input.dim(i) == 0 ? 0 : (input.dim(i) - 1) * w.base_dilation + 1;
    int64_t padded = dilated_base + w.padding_low + w.padding_high;
    int64_t extent = (w.size - 1) * w.window_dilation + 1;
    if (padded < 0)
      return Fail("padding ", w.padding_low, "_", w.padding_high,
                  " leaves input dimension ", i, " with negative size");
    dims->push_back(padded < extent ? 0 : (padded - extent) / w.stride + 1);
  }
  return Status::Ok();
}

Status InferReduceWindow(const OpView& op, Shape* out) {
  if (op.count() < 1 || !op.shape(0).IsArray())
    return InferReduceLike(op, {}, out);  // reports the operand problem
  std::vector<int64_t> dims;
  XFFI_RETURN_IF_ERROR(WindowPositions(op.shape(0), op.in().window, &dims));
  return InferReduceLike(op, dims, out);
}

// select-and-scatter(operand, source, init): `select` picks one element of
// each window of the operand, `scatter` adds the window's source element
// into the result there; the result has the operand's shape.
Status InferSelectAndScatter(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(3));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, 3));
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(2));
  const Shape& operand = op.shape(0);
  const Shape& source = op.shape(1);
  XFFI_RETURN_IF_ERROR(op.ExpectScalar(2, "init value"));
  ElementType type = operand.element_type();
  if (source.element_type() != type || op.shape(2).element_type() != type)
    return Fail(
        "operand, source and init value must share one element type, "
        "got ",
        operand.ToString(false), ", ", source.ToString(false), " and ",
        op.shape(2).ToString(false));
  std::vector<int64_t> dims;
  XFFI_RETURN_IF_ERROR(WindowPositions(operand, op.in().window, &dims));
  for (const WindowDimension& w : op.in().window)
    if (w.window_dilation != 1 || w.base_dilation != 1)
      return Fail("window dilations must be 1");
  if (source.dims() != dims)
    return Fail("source ", source.ToString(false),
                " must have the shape of "
                "the windows' positions, ",
                List(dims));
  Shape scalar = Shape::Scalar(type);
  const Computation* select = op.in().called_computations()[0];
  XFFI_RETURN_IF_ERROR(
      CheckRegionParameters(select, "select", {scalar, scalar}));
  XFFI_RETURN_IF_ERROR(
      CheckRegionRoot(select, "select", Shape::Scalar(ElementType::kPred)));
  XFFI_RETURN_IF_ERROR(CheckCombiner(op.in().called_computations()[1],
                                     "scatter", {type}, {type}));
  *out = operand.WithoutLayout();
  return Status::Ok();
}

Status InferSort(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectAtLeast(1));
  XFFI_RETURN_IF_ERROR(op.ExpectArrays(0, op.count()));
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(1));
  const Shape& first = op.shape(0);
  for (int64_t i = 1; i < op.count(); ++i)
    if (op.shape(i).dims() != first.dims())
      return Fail("operand ", i, " ", op.shape(i).ToString(false),
                  " does not have the dimensions of operand 0 ",
                  first.ToString(false));
  if (op.in().dimensions.size() != 1)
    return Fail("takes one sort dimension, got ", List(op.in().dimensions));
  int64_t dim = op.in().dimensions[0];
  if (dim < 0 || dim >= first.rank())
    return Fail("sort dimension ", dim, " is out of range for rank ",
                first.rank());
  std::vector<Shape> params, results;
  for (int64_t i = 0; i < op.count(); ++i) {
    Shape scalar = Shape::Scalar(op.shape(i).element_type());
    params.push_back(scalar);
    params.push_back(scalar);
    results.push_back(op.shape(i).WithoutLayout());
  }
  const Computation* comparator = op.in().called_computations()[0];
  XFFI_RETURN_IF_ERROR(CheckRegionParameters(comparator, "comparator", params));
  XFFI_RETURN_IF_ERROR(CheckRegionRoot(comparator, "comparator",
                                       Shape::Scalar(ElementType::kPred)));
  *out = MaybeTuple(std::move(results));
  return Status::Ok();
}

// --- structure --------------------------------------------------------------

Status InferWhile(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(2));
  const Shape& state = op.shape(0);
  const Computation* condition = op.in().called_computations()[0];
  const Computation* body = op.in().called_computations()[1];
  XFFI_RETURN_IF_ERROR(CheckRegionParameters(condition, "condition", {state}));
  XFFI_RETURN_IF_ERROR(CheckRegionRoot(condition, "condition",
                                       Shape::Scalar(ElementType::kPred)));
  XFFI_RETURN_IF_ERROR(CheckRegionParameters(body, "body", {state}));
  XFFI_RETURN_IF_ERROR(CheckRegionRoot(body, "body", state));
  *out = state.WithoutLayout();
  return Status::Ok();
}

Status InferConditional(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectAtLeast(2));
  const std::vector<Computation*>& branches = op.in().called_computations();
  if (branches.empty()) return Fail("has no branches");
  const Shape& index = op.shape(0);
  bool is_pred = index.element_type() == ElementType::kPred;
  if (!index.IsArray() || index.rank() != 0 ||
      (!is_pred && index.element_type() != ElementType::kS32))
    return Fail("branch index (operand 0) must be s32[] or pred[], got ",
                index.ToString());
  if (is_pred && branches.size() != 2)
    return Fail("a pred index selects between 2 branches, got ",
                branches.size());
  if (op.count() != static_cast<int64_t>(branches.size()) + 1)
    return Fail("has ", branches.size(), " branches and ", op.count() - 1,
                " branch operands; each branch takes one");
  const Shape* result = nullptr;
  for (size_t i = 0; i < branches.size(); ++i) {
    std::string role = "branch " + std::to_string(i);
    XFFI_RETURN_IF_ERROR(CheckRegionParameters(
        branches[i], role, {op.shape(static_cast<int64_t>(i) + 1)}));
    if (result == nullptr) {
      result = &branches[i]->root()->shape();
    } else if (!branches[i]->root()->shape().Compatible(*result)) {
      return Fail(role, " '", branches[i]->name(), "' returns ",
                  branches[i]->root()->shape().ToString(), ", branch 0 '",
                  branches[0]->name(), "' returns ", result->ToString());
    }
  }
  *out = result->WithoutLayout();
  return Status::Ok();
}

Status InferCall(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(1));
  std::vector<Shape> params;
  for (int64_t i = 0; i < op.count(); ++i) params.push_back(op.shape(i));
  const Computation* callee = op.in().called_computations()[0];
  XFFI_RETURN_IF_ERROR(CheckRegionParameters(callee, "callee", params));
  *out = callee->root()->shape().WithoutLayout();
  return Status::Ok();
}

// A fusion is a call of its fused computation that also keeps the fusion
// contract (ir/fusion.h), so any backend can emit it.
Status InferFusion(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectCalled(1));
  std::vector<Shape> params;
  for (int64_t i = 0; i < op.count(); ++i) params.push_back(op.shape(i));
  const Computation* fused = op.in().called_computations()[0];
  XFFI_RETURN_IF_ERROR(
      CheckRegionParameters(fused, "fused computation", params));
  XFFI_RETURN_IF_ERROR(CheckFusedComputation(*fused, op.in().fusion_kind));
  *out = fused->root()->shape().WithoutLayout();
  return Status::Ok();
}

Status InferGetTupleElement(const OpView& op, Shape* out) {
  XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
  const Shape& tuple = op.shape(0);
  if (!tuple.IsTuple())
    return Fail("operand must be a tuple, got ", tuple.ToString());
  int64_t index = op.in().tuple_index;
  if (index < 0 || index >= tuple.tuple_size())
    return Fail("index ", index, " is out of range for ", tuple.ToString());
  *out = tuple.tuple_shape(index);
  return Status::Ok();
}

// Layouts a custom call's target requires: one per operand and one per
// result leaf, each naming the value it lays out.
Status CheckRequiredLayouts(const std::vector<Shape>& layouts,
                            const std::vector<const Shape*>& values,
                            std::string_view what) {
  if (layouts.empty()) return Status::Ok();
  if (layouts.size() != values.size())
    return Fail("has ", layouts.size(), " ", what, " layouts for ",
                values.size(), " ", what, "s");
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (!layouts[i].WithoutLayout().Compatible(values[i]->WithoutLayout()))
      return Fail(what, " layout ", i, " is for ", layouts[i].ToString(),
                  ", the ", what, " is ", values[i]->ToString());
    Status valid = ValidateShape(layouts[i]);
    if (!valid.ok()) return Fail(what, " layout ", i, ": ", valid.message());
  }
  return Status::Ok();
}

Status InferCustomCall(const OpView& op, Shape* out) {
  const Shape& result = op.in().shape();
  const CustomCallConfig& config = op.in().custom_call;
  if (config.target.empty()) return Fail("has no target name");
  if (!result.valid()) return Fail("has no result shape");
  std::vector<const Shape*> operand_shapes;
  for (int64_t i = 0; i < op.count(); ++i)
    operand_shapes.push_back(&op.shape(i));
  XFFI_RETURN_IF_ERROR(
      CheckRequiredLayouts(config.operand_layouts, operand_shapes, "operand"));
  XFFI_RETURN_IF_ERROR(
      CheckRequiredLayouts(config.result_layouts, result.Leaves(), "result"));
  std::vector<std::vector<int64_t>> aliased_outputs;
  for (size_t i = 0; i < config.output_operand_aliases.size(); ++i) {
    const OutputOperandAlias& alias = config.output_operand_aliases[i];
    const Shape* output = result.Subshape(alias.output_index);
    if (output == nullptr)
      return Fail("output_operand_aliases[", i, "]: output index ",
                  List(alias.output_index), " is not in result ",
                  result.ToString());
    if (alias.operand < 0 || alias.operand >= op.count())
      return Fail("output_operand_aliases[", i, "]: operand ", alias.operand,
                  " is out of range (", op.count(), " operands)");
    const Shape* input = op.shape(alias.operand).Subshape(alias.operand_index);
    if (input == nullptr)
      return Fail("output_operand_aliases[", i, "]: operand index ",
                  List(alias.operand_index), " is not in operand ",
                  alias.operand, " ", op.shape(alias.operand).ToString());
    if (!output->IsArray() || output->WithoutLayout() != input->WithoutLayout())
      return Fail("output_operand_aliases[", i, "]: output ",
                  List(alias.output_index), " ", output->ToString(false),
                  " cannot alias operand ", alias.operand, " ",
                  List(alias.operand_index), " ", input->ToString(false));
    for (const auto& seen : aliased_outputs)
      if (seen == alias.output_index)
        return Fail("output_operand_aliases[", i, "]: output ",
                    List(alias.output_index), " is aliased twice");
    aliased_outputs.push_back(alias.output_index);
  }
  *out = result;
  return Status::Ok();
}

Status InferByOpcode(const OpView& op, Shape* out) {
  const Instruction& in = op.in();
  Opcode opcode = in.opcode();
  if (IsElementwiseUnary(opcode)) return InferUnary(op, out);
  if (IsElementwiseBinary(opcode)) return InferBinary(op, out);
  if (IsCollective(opcode) || opcode == Opcode::kManualComputation)
    return InferAcrossDevicesShape(in, out);
  if (HasNumericShapeRule(opcode)) return InferNumericShape(in, out);
  switch (opcode) {
    case Opcode::kParameter:
      XFFI_RETURN_IF_ERROR(op.ExpectOperands(0));
      if (in.parameter_number < 0)
        return Fail("number ", in.parameter_number, " is negative");
      if (!in.shape().valid()) return Fail("has no shape");
      *out = in.shape();
      return Status::Ok();
    case Opcode::kConstant:
      XFFI_RETURN_IF_ERROR(op.ExpectOperands(0));
      if (!in.literal.valid()) return Fail("has no value");
      *out = in.literal.shape();
      return Status::Ok();
    case Opcode::kTuple: {
      std::vector<Shape> elements;
      for (int64_t i = 0; i < op.count(); ++i) elements.push_back(op.shape(i));
      *out = Shape::Tuple(std::move(elements));
      return Status::Ok();
    }
    case Opcode::kGetTupleElement:
      return InferGetTupleElement(op, out);
    case Opcode::kCall:
      return InferCall(op, out);
    case Opcode::kFusion:
      return InferFusion(op, out);
    case Opcode::kWhile:
      return InferWhile(op, out);
    case Opcode::kConditional:
      return InferConditional(op, out);
    case Opcode::kCustomCall:
      return InferCustomCall(op, out);
    case Opcode::kOptimizationBarrier:
    case Opcode::kCopy:
      XFFI_RETURN_IF_ERROR(op.ExpectOperands(1));
      *out = op.shape(0).WithoutLayout();
      return Status::Ok();
    case Opcode::kAfterAll:
      for (int64_t i = 0; i < op.count(); ++i)
        if (!op.shape(i).IsToken())
          return Fail("operand ", i, " must be a token, got ",
                      op.shape(i).ToString());
      *out = Shape::Token();
      return Status::Ok();
    case Opcode::kSelect:
      return InferSelect(op, out);
    case Opcode::kClamp:
      return InferClamp(op, out);
    case Opcode::kConvert:
      return InferConvert(op, out);
    case Opcode::kBitcastConvert:
      return InferBitcastConvert(op, out);
    case Opcode::kIota:
      return InferIota(op, out);
    case Opcode::kBroadcast:
      return InferBroadcast(op, out);
    case Opcode::kReshape:
      return InferReshape(op, out);
    case Opcode::kTranspose:
      return InferTranspose(op, out);
    case Opcode::kSlice:
      return InferSlice(op, out);
    case Opcode::kDynamicSlice:
      return InferDynamicSlice(op, out);
    case Opcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(op, out);
    case Opcode::kConcatenate:
      return InferConcatenate(op, out);
    case Opcode::kPad:
      return InferPad(op, out);
    case Opcode::kReverse:
      return InferReverse(op, out);
    case Opcode::kGather:
      return InferGather(op, out);
    case Opcode::kScatter:
      return InferScatter(op, out);
    case Opcode::kDot:
      return InferDot(op, out);
    case Opcode::kReduce:
      return InferReduce(op, out);
    case Opcode::kReduceWindow:
      return InferReduceWindow(op, out);
    case Opcode::kSort:
      return InferSort(op, out);
    case Opcode::kSelectAndScatter:
      return InferSelectAndScatter(op, out);
    case Opcode::kConvolution:
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return InferConvNetShape(in, out);
    default:
      return Fail("has no shape rule");
  }
}

// Ops that take regions check them themselves; the rest take none (a custom
// call may name any).
bool TakesRegions(Opcode opcode) {
  switch (opcode) {
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCustomCall:
    case Opcode::kScatter:
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kSort:
    case Opcode::kSelectAndScatter:
    case Opcode::kMap:
    case Opcode::kAllReduce:
    case Opcode::kReduceScatter:
    case Opcode::kManualComputation:
      return true;
    default:
      return false;
  }
}

Status InferChecked(const Instruction& instruction, Shape* out) {
  for (int64_t i = 0; i < instruction.operand_count(); ++i)
    if (instruction.operand(i) == nullptr)
      return Fail("operand ", i, " is null");
  for (size_t i = 0; i < instruction.called_computations().size(); ++i)
    if (instruction.called_computations()[i] == nullptr)
      return Fail("called computation ", i, " is null");
  if (!TakesRegions(instruction.opcode()) &&
      !instruction.called_computations().empty())
    return Fail("calls no computations, got ",
                instruction.called_computations().size());
  return InferByOpcode(OpView(instruction), out);
}

}  // namespace

Status ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes())
      XFFI_RETURN_IF_ERROR(ValidateShape(element));
    return Status::Ok();
  }
  if (shape.IsToken()) return Status::Ok();
  if (!shape.IsArray()) return Fail("shape has no valid element type");
  for (int64_t d : shape.dims())
    if (d < 0)
      return Fail("shape ", shape.ToString(), " has a negative dimension");
  if (shape.has_layout()) {
    std::vector<int64_t> sorted = shape.minor_to_major();
    std::sort(sorted.begin(), sorted.end());
    bool permutation = static_cast<int64_t>(sorted.size()) == shape.rank();
    for (size_t i = 0; permutation && i < sorted.size(); ++i)
      permutation = sorted[i] == static_cast<int64_t>(i);
    if (!permutation)
      return Fail("layout of ", shape.ToString(),
                  " is not a permutation of its dimension numbers");
  }
  return Status::Ok();
}

StatusOr<Shape> InferShape(const Instruction& instruction) {
  Shape shape;
  Status status = InferChecked(instruction, &shape);
  if (!status.ok())
    return InvalidArgument(std::string(OpcodeName(instruction.opcode())) +
                           ": " + status.message());
  return shape;
}

Status DescribeError(const Instruction& instruction, const Status& error) {
  std::string_view message = error.message();
  std::string prefix = std::string(OpcodeName(instruction.opcode())) + ": ";
  if (message.substr(0, prefix.size()) == prefix)
    message.remove_prefix(prefix.size());
  return InvalidArgument(instruction.Describe() + ": " + std::string(message));
}

}  // namespace xffi
