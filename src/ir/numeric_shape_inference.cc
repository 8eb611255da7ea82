#include "ir/numeric_shape_inference.h"

#include <string>
#include <vector>

#include "ir/inference_failure.h"
#include "runtime/status_macros.h"

namespace xffi {
namespace {

using inference::Fail;

std::string Text(const Shape& shape) { return shape.ToString(false); }

std::string List(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i > 0 ? "," : "") + std::to_string(values[i]);
  return out + "}";
}

Status ExpectOperands(const Instruction& in, int64_t n) {
  if (in.operand_count() != n)
    return Fail("takes ", n, n == 1 ? " operand" : " operands", ", got ",
                in.operand_count());
  for (int64_t i = 0; i < n; ++i)
    if (!in.operand(i)->shape().IsArray())
      return Fail("operand ", i, " must be an array, got ",
                  in.operand(i)->shape().ToString());
  return Status::Ok();
}

ElementType RealPart(ElementType complex) {
  return complex == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
}
ElementType ComplexOf(ElementType real) {
  return real == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128;
}

Status InferFft(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 1));
  const Shape& operand = in.operand(0)->shape();
  const std::vector<int64_t>& length = in.fft_length;
  const int64_t k = static_cast<int64_t>(length.size());
  if (k < 1 || k > 3)
    return Fail("fft_length ", List(length), " must give 1 to 3 lengths");
  if (k > operand.rank())
    return Fail("fft_length ", List(length), " has more lengths than ",
                Text(operand), " has dimensions");
  for (int64_t l : length)
    if (l < 0) return Fail("fft_length ", List(length), " is negative");
  const ElementType type = operand.element_type();
  const bool real_input = in.fft_type == FftType::kRfft;
  if (real_input ? (type != ElementType::kF32 && type != ElementType::kF64)
                 : (type != ElementType::kC64 && type != ElementType::kC128))
    return Fail(FftTypeName(in.fft_type), " takes ",
                real_input ? "f32 or f64" : "c64 or c128", ", got ",
                Text(operand));
  std::vector<int64_t> dims = operand.dims();
  const int64_t first = operand.rank() - k;
  for (int64_t i = 0; i < k; ++i) {
    int64_t expected = length[static_cast<size_t>(i)];
    if (in.fft_type == FftType::kIrfft && i == k - 1)
      expected = expected / 2 + 1;
    if (dims[static_cast<size_t>(first + i)] != expected)
      return Fail(FftTypeName(in.fft_type), " of ", Text(operand),
                  " with fft_length ", List(length), ": dimension ", first + i,
                  " must be ", expected);
  }
  ElementType result = type;
  if (in.fft_type == FftType::kRfft) {
    result = ComplexOf(type);
    dims.back() = length.back() / 2 + 1;
  } else if (in.fft_type == FftType::kIrfft) {
    result = RealPart(type);
    dims.back() = length.back();
  }
  *out = Shape::Array(result, dims);
  return Status::Ok();
}

Status InferTopK(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 1));
  const Shape& operand = in.operand(0)->shape();
  if (operand.rank() < 1) return Fail("takes an operand of rank >= 1");
  if (operand.element_type() == ElementType::kPred ||
      IsComplexType(operand.element_type()))
    return Fail("takes integers or floating-point values, got ", Text(operand));
  if (in.top_k < 0 || in.top_k > operand.dims().back())
    return Fail("k = ", in.top_k, " must be in [0, ", operand.dims().back(),
                "], the size of the last dimension of ", Text(operand));
  std::vector<int64_t> dims = operand.dims();
  dims.back() = in.top_k;
  *out = Shape::Tuple({Shape::Array(operand.element_type(), dims),
                       Shape::Array(ElementType::kS32, dims)});
  return Status::Ok();
}

Status InferMap(const Instruction& in, Shape* out) {
  if (in.operand_count() < 1) return Fail("takes at least one operand");
  if (in.called_computations().size() != 1)
    return Fail("calls 1 computation, got ", in.called_computations().size());
  const Shape& first = in.operand(0)->shape();
  for (int64_t i = 0; i < in.operand_count(); ++i) {
    const Shape& s = in.operand(i)->shape();
    if (!s.IsArray()) return Fail("operand ", i, " must be an array");
    if (s.dims() != first.dims())
      return Fail("operand ", i, " ", Text(s),
                  " does not have the dimensions of operand 0 ", Text(first));
  }
  // XLA maps over every dimension, in order.
  for (size_t d = 0; d < in.dimensions.size(); ++d)
    if (in.dimensions[d] != static_cast<int64_t>(d) ||
        in.dimensions.size() != static_cast<size_t>(first.rank()))
      return Fail("dimensions ", List(in.dimensions), " must be 0..",
                  first.rank() - 1, " in order");
  const Computation* body = in.called_computations()[0];
  if (body == nullptr || body->root() == nullptr)
    return Fail("its computation has no root");
  if (body->num_parameters() != in.operand_count())
    return Fail("computation '", body->name(), "' takes ",
                body->num_parameters(), " parameters, expected ",
                in.operand_count());
  for (int64_t i = 0; i < in.operand_count(); ++i) {
    const Instruction* p = body->parameter(i);
    Shape expected = Shape::Scalar(in.operand(i)->shape().element_type());
    if (p == nullptr || !p->shape().Compatible(expected))
      return Fail("computation '", body->name(), "' parameter ", i, " must be ",
                  expected.ToString());
  }
  const Shape& root = body->root()->shape();
  if (!root.IsArray() || root.rank() != 0)
    return Fail("computation '", body->name(), "' must return a scalar, got ",
                root.ToString());
  *out = Shape::Array(root.element_type(), first.dims());
  return Status::Ok();
}

bool IsBitGeneratorType(ElementType t) {
  return IsIntegralType(t) && ElementBitWidth(t) >= 8;
}

Status InferRngBitGenerator(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 1));
  const Shape& state = in.operand(0)->shape();
  if (state.element_type() != ElementType::kU64 || state.rank() != 1)
    return Fail("state must be a u64 vector, got ", Text(state));
  const int64_t n = state.dims()[0];
  if (in.rng_algorithm == RngAlgorithm::kThreeFry ? n != 2 : (n != 2 && n != 3))
    return Fail(RngAlgorithmName(in.rng_algorithm), " takes a state of ",
                in.rng_algorithm == RngAlgorithm::kThreeFry ? "2" : "2 or 3",
                " u64 values, got ", Text(state));
  const Shape& given = in.shape();
  if (!given.IsTuple() || given.tuple_size() != 2 ||
      !given.tuple_shapes()[1].IsArray())
    return Fail("result must be (state, bits), got ", given.ToString());
  const Shape& bits = given.tuple_shapes()[1];
  if (!IsBitGeneratorType(bits.element_type()))
    return Fail("bits must be integers of 8 to 64 bits, got ", Text(bits));
  *out = Shape::Tuple({state.WithoutLayout(), bits.WithoutLayout()});
  return Status::Ok();
}

Status InferRng(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 2));
  const Shape& a = in.operand(0)->shape();
  const Shape& b = in.operand(1)->shape();
  const char* names[2] = {
      in.rng_distribution == RngDistribution::kNormal ? "mean" : "lower bound",
      in.rng_distribution == RngDistribution::kNormal ? "standard deviation"
                                                      : "upper bound"};
  for (int i = 0; i < 2; ++i)
    if (in.operand(i)->shape().rank() != 0)
      return Fail(names[i], " (operand ", i, ") must be a scalar, got ",
                  Text(in.operand(i)->shape()));
  if (a.element_type() != b.element_type())
    return Fail("operands must share one type, got ", Text(a), " and ",
                Text(b));
  const ElementType t = a.element_type();
  const bool uniform = in.rng_distribution == RngDistribution::kUniform;
  const bool ok =
      IsFloatingType(t) ||
      (uniform && (t == ElementType::kS32 || t == ElementType::kU32 ||
                   t == ElementType::kS64 || t == ElementType::kU64));
  if (!ok)
    return Fail(RngDistributionName(in.rng_distribution), " does not produce ",
                ElementTypeName(t));
  if (!in.shape().IsArray())
    return Fail("result must be an array, got ", in.shape().ToString());
  *out = Shape::Array(t, in.shape().dims());
  return Status::Ok();
}

Status ExpectMatrices(const Shape& s, std::string_view role) {
  if (!IsFloatingType(s.element_type()) && !IsComplexType(s.element_type()))
    return Fail(role, " must be floating-point or complex, got ", Text(s));
  if (s.rank() < 2) return Fail(role, " must have rank >= 2, got ", Text(s));
  return Status::Ok();
}

Status InferCholesky(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 1));
  const Shape& a = in.operand(0)->shape();
  XFFI_RETURN_IF_ERROR(ExpectMatrices(a, "a"));
  const auto& d = a.dims();
  if (d[d.size() - 1] != d[d.size() - 2])
    return Fail("a must be square matrices, got ", Text(a));
  *out = a.WithoutLayout();
  return Status::Ok();
}

Status InferTriangularSolve(const Instruction& in, Shape* out) {
  XFFI_RETURN_IF_ERROR(ExpectOperands(in, 2));
  const Shape& a = in.operand(0)->shape();
  const Shape& b = in.operand(1)->shape();
  XFFI_RETURN_IF_ERROR(ExpectMatrices(a, "a"));
  XFFI_RETURN_IF_ERROR(ExpectMatrices(b, "b"));
  if (a.element_type() != b.element_type() || a.rank() != b.rank())
    return Fail("a ", Text(a), " and b ", Text(b),
                " must share element type and rank");
  const size_t r = a.dims().size();
  for (size_t i = 0; i + 2 < r; ++i)
    if (a.dims()[i] != b.dims()[i])
      return Fail("a ", Text(a), " and b ", Text(b),
                  " must have the same batch dimensions");
  const int64_t m = a.dims()[r - 1];
  if (a.dims()[r - 2] != m)
    return Fail("a must be square matrices, got ", Text(a));
  const int64_t solved = in.left_side ? b.dims()[r - 2] : b.dims()[r - 1];
  if (solved != m)
    return Fail("b ", Text(b), " must have ", m,
                in.left_side ? " rows (left_side)" : " columns (right side)",
                " to match a ", Text(a));
  *out = b.WithoutLayout();
  return Status::Ok();
}

}  // namespace

bool HasNumericShapeRule(Opcode opcode) {
  switch (opcode) {
    case Opcode::kFft:
    case Opcode::kTopK:
    case Opcode::kMap:
    case Opcode::kRngBitGenerator:
    case Opcode::kRng:
    case Opcode::kCholesky:
    case Opcode::kTriangularSolve:
      return true;
    default:
      return false;
  }
}

Status InferNumericShape(const Instruction& in, Shape* out) {
  switch (in.opcode()) {
    case Opcode::kFft:
      return InferFft(in, out);
    case Opcode::kTopK:
      return InferTopK(in, out);
    case Opcode::kMap:
      return InferMap(in, out);
    case Opcode::kRngBitGenerator:
      return InferRngBitGenerator(in, out);
    case Opcode::kRng:
      return InferRng(in, out);
    case Opcode::kCholesky:
      return InferCholesky(in, out);
    case Opcode::kTriangularSolve:
      return InferTriangularSolve(in, out);
    default:
      return Fail("has no numeric shape rule");
  }
}

}  // namespace xffi
