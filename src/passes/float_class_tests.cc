// The pass "float-class-tests" (rules in float_class_tests.h).
#include "passes/float_class_tests.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xffi::passes {
namespace {

bool IsWideFloat(ElementType type) {
  return type == ElementType::kF32 || type == ElementType::kF64;
}

// The value every element of `value` has, when it is an f32/f64 constant
// of one value (or a broadcast or reshape of one).
std::optional<double> UniformFloat(const Instruction* value) {
  while (value->opcode() == Opcode::kBroadcast ||
         value->opcode() == Opcode::kReshape)
    value = value->operand(0);
  if (value->opcode() != Opcode::kConstant || !value->shape().IsArray())
    return std::nullopt;
  const ElementType type = value->shape().element_type();
  const int64_t n = value->shape().num_elements();
  if (!IsWideFloat(type) || n == 0) return std::nullopt;
  auto at = [&](int64_t i) {
    return type == ElementType::kF32
               ? static_cast<double>(value->literal.data<float>()[i])
               : value->literal.data<double>()[i];
  };
  const double first = at(0);
  for (int64_t i = 1; i < n; ++i)
    if (at(i) != first) return std::nullopt;
  return first;
}

const Instruction* WithoutAbs(const Instruction* value) {
  return value->opcode() == Opcode::kAbs ? value->operand(0) : value;
}

enum class Test { kNone, kZero, kNonZero, kInfinite, kFinite };

// What `op` tests of which f32/f64 value (abs(x) counts as x).
std::pair<Test, const Instruction*> Classify(const Instruction* op) {
  if (op->opcode() == Opcode::kIsFinite &&
      IsWideFloat(op->operand(0)->shape().element_type()))
    return {Test::kFinite, WithoutAbs(op->operand(0))};
  if (op->opcode() != Opcode::kCompare ||
      op->comparison_type == ComparisonType::kTotalOrder)
    return {Test::kNone, nullptr};
  const Instruction* x = op->operand(0);
  std::optional<double> constant = UniformFloat(op->operand(1));
  ComparisonDirection direction = op->comparison_direction;
  if (!constant) {
    x = op->operand(1);
    constant = UniformFloat(op->operand(0));
    if (direction == ComparisonDirection::kLt)
      direction = ComparisonDirection::kGt;  // inf > |x| is |x| < inf
    else if (direction == ComparisonDirection::kGt)
      direction = ComparisonDirection::kLt;
  }
  if (!constant || !IsWideFloat(x->shape().element_type()))
    return {Test::kNone, nullptr};
  const Instruction* tested = WithoutAbs(x);
  if (*constant == 0) {
    if (direction == ComparisonDirection::kEq) return {Test::kZero, tested};
    if (direction == ComparisonDirection::kNe) return {Test::kNonZero, tested};
  } else if (std::isinf(*constant)) {
    if (direction == ComparisonDirection::kEq) return {Test::kInfinite, tested};
    if (direction == ComparisonDirection::kNe) return {Test::kFinite, tested};
    if (direction == ComparisonDirection::kLt && *constant > 0 &&
        x->opcode() == Opcode::kAbs)
      return {Test::kFinite, tested};
  }
  return {Test::kNone, nullptr};
}

// The pred operands `join` (an `or` or an `and`) combines through nested
// ops of its own kind.
void CollectLeaves(const Instruction* join,
                   std::vector<const Instruction*>* out) {
  for (const Instruction* operand : join->operands()) {
    if (operand->opcode() == join->opcode())
      CollectLeaves(operand, out);
    else
      out->push_back(operand);
  }
}

// x's bits without the sign, compared with 0 (kEq: x is a zero).
Instruction* BitZeroTest(Instruction* before, const Instruction* zero_test,
                         Instruction* x, ComparisonDirection direction) {
  Computation* computation = before->parent();
  const Shape& shape = x->shape();
  const bool f32 = shape.element_type() == ElementType::kF32;
  const ElementType bits_type = f32 ? ElementType::kU32 : ElementType::kU64;
  const Shape bits_shape =
      Shape::Array(bits_type, shape.dims(), shape.minor_to_major());
  const std::string name = zero_test->name() + ".bits";
  auto emit = [&](Opcode opcode, Shape result,
                  std::vector<Instruction*> operands, std::string suffix) {
    auto made = std::make_unique<Instruction>(opcode, std::move(result));
    for (Instruction* operand : operands) made->AppendOperand(operand);
    made->set_name(name + suffix);
    made->set_location(zero_test->location());
    return computation->InsertInstructionBefore(std::move(made), before);
  };
  auto spread = [&](Literal scalar, std::string suffix) {
    Instruction* constant =
        emit(Opcode::kConstant, Shape::Scalar(bits_type), {}, suffix);
    constant->literal = std::move(scalar);
    if (shape.rank() == 0) return constant;
    return emit(Opcode::kBroadcast, bits_shape, {constant}, suffix + ".spread");
  };
  Instruction* mask = spread(f32 ? Literal::Scalar<uint32_t>(0x7fffffffu)
                                 : Literal::Scalar<uint64_t>(~0ull >> 1),
                             ".mask");
  Instruction* zero =
      spread(f32 ? Literal::Scalar<uint32_t>(0) : Literal::Scalar<uint64_t>(0),
             ".zero");
  Instruction* bits = emit(Opcode::kBitcastConvert, bits_shape, {x}, "");
  Instruction* magnitude =
      emit(Opcode::kAnd, bits_shape, {bits, mask}, ".magnitude");
  Instruction* test =
      emit(Opcode::kCompare, zero_test->shape(), {magnitude, zero}, ".test");
  test->comparison_direction = direction;
  return test;
}

// Rewrites the zero tests `join` combines directly when its tree holds an
// infinity (finiteness) test of the same value.
int64_t RewriteJoin(Instruction* join) {
  const bool is_or = join->opcode() == Opcode::kOr;
  const Test zero_kind = is_or ? Test::kZero : Test::kNonZero;
  const Test class_kind = is_or ? Test::kInfinite : Test::kFinite;
  std::vector<const Instruction*> leaves;
  CollectLeaves(join, &leaves);
  std::vector<const Instruction*> classified;
  for (const Instruction* leaf : leaves) {
    auto [test, value] = Classify(leaf);
    if (test == class_kind) classified.push_back(value);
  }
  int64_t rewritten = 0;
  for (int64_t i = 0; i < join->operand_count(); ++i) {
    Instruction* operand = join->operand(i);
    auto [test, value] = Classify(operand);
    if (test != zero_kind) continue;
    bool paired = false;
    for (const Instruction* other : classified) paired |= other == value;
    if (!paired) continue;
    // The compare's own float operand (x or abs(x): the same bits test).
    Instruction* x = UniformFloat(operand->operand(1)) ? operand->operand(0)
                                                       : operand->operand(1);
    join->ReplaceOperand(i, BitZeroTest(join, operand, x,
                                        is_or ? ComparisonDirection::kEq
                                              : ComparisonDirection::kNe));
    ++rewritten;
  }
  return rewritten;
}

}  // namespace

int64_t RewriteFloatClassTests(Module& module) {
  int64_t rewritten = 0;
  for (const auto& computation : module.computations()) {
    std::vector<Instruction*> joins;
    for (const auto& owned : computation->instructions())
      if ((owned->opcode() == Opcode::kOr || owned->opcode() == Opcode::kAnd) &&
          owned->shape().IsArray() &&
          owned->shape().element_type() == ElementType::kPred)
        joins.push_back(owned.get());
    for (Instruction* join : joins) rewritten += RewriteJoin(join);
  }
  return rewritten;
}

}  // namespace xffi::passes
