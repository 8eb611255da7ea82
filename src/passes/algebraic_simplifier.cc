// Algebraic simplification: rounds over every computation in op order until
// nothing changes. A rule either returns the value that stands for the op
// from now on (its users are redirected, the op removed) or changes the op
// itself (a chain folded into it).
#include "passes/algebraic_simplifier.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passes/constant_folding.h"

namespace xffi::passes {
namespace {

// The literal every element of `value` is a copy of, when `value` is a
// constant whose elements are all the same bytes, or a broadcast or reshape
// of one.
const Literal* UniformConstant(const Instruction* value) {
  while (value->opcode() == Opcode::kBroadcast ||
         value->opcode() == Opcode::kReshape)
    value = value->operand(0);
  if (value->opcode() != Opcode::kConstant || !value->shape().IsArray())
    return nullptr;
  const Literal& literal = value->literal;
  const size_t size = ElementByteSize(value->shape().element_type());
  const size_t bytes = literal.size_bytes();
  if (size == 0 || bytes < size || bytes % size != 0) return nullptr;
  const char* data = static_cast<const char*>(literal.data());
  for (size_t at = size; at < bytes; at += size)
    if (std::memcmp(data, data + at, size) != 0) return nullptr;
  return &literal;
}

// kLowest/kHighest: the identities of maximum and minimum, -inf and +inf
// for floats, the type's extremes for integers.
enum class Value {
  kZero,
  kOne,
  kNegativeZero,
  kPositiveZero,
  kAllBitsSet,
  kLowest,
  kHighest
};

// Whether the first element of `literal` (of type `type`) is `value`.
bool FirstIs(const Literal& literal, ElementType type, Value value) {
  const void* data = literal.data();
  if (type == ElementType::kF32 || type == ElementType::kF64) {
    double x;
    if (type == ElementType::kF32) {
      float f;
      std::memcpy(&f, data, sizeof(f));
      x = f;
    } else {
      std::memcpy(&x, data, sizeof(x));
    }
    switch (value) {
      case Value::kOne:
        return x == 1.0;
      case Value::kNegativeZero:
        return x == 0.0 && std::signbit(x);
      case Value::kPositiveZero:
        return x == 0.0 && !std::signbit(x);
      case Value::kLowest:
        return x == -std::numeric_limits<double>::infinity();
      case Value::kHighest:
        return x == std::numeric_limits<double>::infinity();
      default:
        return false;  // no exact float rule uses another value
    }
  }
  if (!IsIntegralType(type) && type != ElementType::kPred) return false;
  const size_t size = ElementByteSize(type);
  uint64_t bits = 0;
  std::memcpy(&bits, data, size);  // little-endian host
  const uint64_t all =
      size == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
  switch (value) {
    case Value::kZero:
    case Value::kPositiveZero:
      return bits == 0;
    case Value::kOne:
      return bits == 1;
    case Value::kAllBitsSet:
      // pred true is 1 (its one bit); integers: every bit.
      return type == ElementType::kPred ? bits == 1 : bits == all;
    case Value::kNegativeZero:
      return false;
    case Value::kLowest:
    case Value::kHighest: {
      // Integers that fill their storage only (not s4/u4, not pred).
      if (type == ElementType::kPred ||
          ElementBitWidth(type) != static_cast<int>(8 * size))
        return false;
      const uint64_t sign = uint64_t{1} << (8 * size - 1);
      const bool is_signed = IsSignedIntegralType(type);
      if (value == Value::kLowest) return bits == (is_signed ? sign : 0);
      return bits == (is_signed ? all & ~sign : all);
    }
  }
  return false;
}

class Simplifier {
 public:
  explicit Simplifier(Computation* computation) : computation_(computation) {}
  // The value standing for `op`, `op` itself when a rule changed it in
  // place (`changed_` says so), or null. New ops go in front of `op`.
  Instruction* Simplify(Instruction* op);
  bool changed_ = false;

 private:
  Instruction* FoldConstants(Instruction* op);
  // A new op in front of `op`, where `op` is, named `name`.
  Instruction* Emit(Instruction* op, Opcode opcode, Shape shape,
                    std::vector<Instruction*> operands, std::string name) {
    auto made = std::make_unique<Instruction>(opcode, std::move(shape));
    for (Instruction* operand : operands) made->AppendOperand(operand);
    made->set_name(std::move(name));
    made->set_location(op->location());
    return computation_->InsertInstructionBefore(std::move(made), op);
  }
  // `shape` is the literal's, with the layout the value had.
  Instruction* NewConstant(Instruction* op, Literal literal, Shape shape,
                           std::string name) {
    Instruction* constant =
        Emit(op, Opcode::kConstant, std::move(shape), {}, std::move(name));
    constant->literal = std::move(literal);
    return constant;
  }
  Instruction* SameShape(Instruction* op, Instruction* value) {
    return value->shape() == op->shape() ? value : nullptr;
  }
  Instruction* Arithmetic(Instruction* op);
  Instruction* ReduceOfOneElement(Instruction* op);
  Instruction* DivisionByBroadcast(Instruction* op);
  Instruction* UnitDimsBroadcast(Instruction* op);
  Instruction* TransposeOfDot(Instruction* op);
  // The operands (and the root) in the computation that read `value`.
  int64_t Uses(const Instruction* value) const {
    int64_t uses = computation_->root() == value ? 1 : 0;
    for (const auto& op : computation_->instructions())
      for (const Instruction* operand : op->operands())
        uses += operand == value ? 1 : 0;
    return uses;
  }
  Computation* computation_;
};

bool Is(const Instruction* value, ElementType type, Value which) {
  const Literal* literal = UniformConstant(value);
  return literal != nullptr && FirstIs(*literal, type, which);
}

Instruction* Simplifier::Arithmetic(Instruction* op) {
  Instruction* a = op->operand(0);
  Instruction* b = op->operand(1);
  const ElementType type = op->shape().element_type();
  const bool is_float = type == ElementType::kF32 || type == ElementType::kF64;
  const bool is_int = IsIntegralType(type);
  const bool is_pred = type == ElementType::kPred;
  if (!is_float && !is_int && !is_pred) return nullptr;
  auto when = [&](bool condition, Instruction* value) {
    return condition ? SameShape(op, value) : nullptr;
  };
  Instruction* result = nullptr;
  auto first = [&](Instruction* candidate) {
    if (result == nullptr) result = candidate;
  };
  switch (op->opcode()) {
    case Opcode::kAdd: {
      // Exact zero for the type: -0.0 for floats (-0 + x is x for every x).
      const Value zero = is_float ? Value::kNegativeZero : Value::kZero;
      if (is_pred) break;  // pred add is or; left alone
      first(when(Is(b, type, zero), a));
      first(when(Is(a, type, zero), b));
      break;
    }
    case Opcode::kSubtract:
      if (is_pred) break;
      first(
          when(Is(b, type, is_float ? Value::kPositiveZero : Value::kZero), a));
      break;
    case Opcode::kMultiply:
      if (is_pred) break;
      first(when(Is(b, type, Value::kOne), a));
      first(when(Is(a, type, Value::kOne), b));
      if (is_int) {
        first(when(Is(b, type, Value::kZero), b));
        first(when(Is(a, type, Value::kZero), a));
      }
      break;
    case Opcode::kDivide:
      if (is_pred) break;
      first(when(Is(b, type, Value::kOne), a));
      break;
    case Opcode::kOr:
    case Opcode::kXor:
      if (is_float) break;
      first(when(Is(b, type, Value::kZero), a));
      first(when(Is(a, type, Value::kZero), b));
      break;
    case Opcode::kAnd:
      if (is_float) break;
      first(when(Is(b, type, Value::kAllBitsSet), a));
      first(when(Is(a, type, Value::kAllBitsSet), b));
      break;
    // max(x, -inf) is x for every x, NaN and -0.0 included (XLA's maximum
    // propagates NaN); softmax's max(-inf, x) is one.
    case Opcode::kMaximum:
      if (is_pred) break;
      first(when(Is(b, type, Value::kLowest), a));
      first(when(Is(a, type, Value::kLowest), b));
      break;
    case Opcode::kMinimum:
      if (is_pred) break;
      first(when(Is(b, type, Value::kHighest), a));
      first(when(Is(a, type, Value::kHighest), b));
      break;
    default:
      break;
  }
  return result;
}

// A reduce that keeps as many elements as its inputs have (every reduced
// dim has size 1, or none is reduced) is a reshape of each input, whatever
// its init values and reducer: XLA's simplifier makes this rewrite on the
// premise that init is the reducer's identity, so jax.jit gives
// reduce([[1.]], init=5, add) = [1.] and keeps a -0.0 summed from +0.0.
// Programs JAX lowers rely on XLA's answer; the reshape also fuses into
// whatever reads it (take_along_axis's bounds check is such a reduce).
Instruction* Simplifier::ReduceOfOneElement(Instruction* op) {
  const int64_t inputs = op->operand_count() / 2;
  if (inputs < 1 || op->operand_count() != 2 * inputs ||
      op->called_computations().size() != 1)
    return nullptr;
  std::vector<Instruction*> reshapes;
  for (int64_t k = 0; k < inputs; ++k) {
    Instruction* input = op->operand(k);
    const Shape& result =
        op->shape().IsTuple() ? op->shape().tuple_shape(k) : op->shape();
    if (!input->shape().IsArray() || !result.IsArray() ||
        input->shape().num_elements() != result.num_elements() ||
        input->shape().element_type() != result.element_type())
      return nullptr;
  }
  if (!op->shape().IsTuple())
    return Emit(op, Opcode::kReshape, op->shape(), {op->operand(0)},
                op->name());
  for (int64_t k = 0; k < inputs; ++k)
    reshapes.push_back(Emit(op, Opcode::kReshape, op->shape().tuple_shape(k),
                            {op->operand(k)},
                            op->name() + ".input" + std::to_string(k)));
  return Emit(op, Opcode::kTuple, op->shape(), std::move(reshapes), op->name());
}

// Whether `to` is `from` with dims of size 1 inserted; then sets *dims to
// the dim of `to` each dim of `from` becomes (as a broadcast's dimensions).
bool InsertsUnitDims(const Shape& from, const Shape& to,
                     std::vector<int64_t>* dims) {
  if (!from.IsArray() || !to.IsArray()) return false;
  dims->clear();
  int64_t t = 0;
  for (int64_t size : from.dims()) {
    while (t < to.rank() && to.dim(t) != size && to.dim(t) == 1) ++t;
    if (t == to.rank() || to.dim(t) != size) return false;
    dims->push_back(t++);
  }
  for (; t < to.rank(); ++t)
    if (to.dim(t) != 1) return false;
  return true;
}

bool IsIdentityPermutation(const std::vector<int64_t>& permutation) {
  for (size_t i = 0; i < permutation.size(); ++i)
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// An op of constants becomes a constant; an elementwise op of broadcast
// scalar constants, the broadcast of one (the code generator then sees one
// immediate instead of an array to load).
Instruction* Simplifier::FoldConstants(Instruction* op) {
  if (op->operand_count() == 0 || !op->shape().IsArray() ||
      !op->called_computations().empty())
    return nullptr;
  std::vector<const Literal*> values;
  bool all_constant = true;
  bool all_scalar = true;
  for (const Instruction* operand : op->operands()) {
    const bool constant = operand->opcode() == Opcode::kConstant;
    all_constant &= constant;
    const Instruction* scalar =
        operand->opcode() == Opcode::kBroadcast ? operand->operand(0) : operand;
    all_scalar &=
        scalar->opcode() == Opcode::kConstant && scalar->shape().IsArray() &&
        scalar->shape().num_elements() == 1 && !operand->sharding.has_value();
    values.push_back(&scalar->literal);
  }
  const int64_t elements = op->shape().num_elements();
  const bool spreads_a_scalar = op->opcode() == Opcode::kBroadcast &&
                                op->operand(0)->shape().num_elements() == 1 &&
                                elements > 1;
  if (all_constant && !spreads_a_scalar) {
    std::vector<const Literal*> literals;
    for (const Instruction* operand : op->operands())
      literals.push_back(&operand->literal);
    std::optional<Literal> folded = FoldConstantOp(*op, literals, op->shape());
    if (folded)
      return NewConstant(op, std::move(*folded), op->shape(), op->name());
  }
  const bool elementwise =
      IsElementwiseUnary(op->opcode()) || IsElementwiseBinary(op->opcode()) ||
      op->opcode() == Opcode::kSelect || op->opcode() == Opcode::kConvert;
  if (!all_scalar || !elementwise || elements <= 1) return nullptr;
  const Shape scalar = Shape::Scalar(op->shape().element_type());
  std::optional<Literal> folded = FoldConstantOp(*op, values, scalar);
  if (!folded) return nullptr;
  Instruction* value =
      NewConstant(op, std::move(*folded), scalar, op->name() + ".scalar");
  Instruction* spread =
      Emit(op, Opcode::kBroadcast, op->shape(), {value}, op->name());
  return spread;
}

Instruction* Simplifier::Simplify(Instruction* op) {
  if (op->HasSideEffect() || op->sharding.has_value()) return nullptr;
  if (Instruction* folded = FoldConstants(op)) return folded;
  switch (op->opcode()) {
    case Opcode::kReshape: {
      Instruction* x = op->operand(0);
      if (x->opcode() == Opcode::kReshape && !x->sharding.has_value()) {
        // Reshapes only renumber the row-major order: two are one.
        op->ReplaceOperand(0, x->operand(0));
        changed_ = true;
        return op;
      }
      return SameShape(op, x);
    }
    case Opcode::kTranspose: {
      Instruction* x = op->operand(0);
      if (x->opcode() == Opcode::kTranspose && !x->sharding.has_value()) {
        // Result dim i is x's dim dimensions[i], which is dim
        // x.dimensions[dimensions[i]] of x's operand.
        std::vector<int64_t> composed;
        for (int64_t d : op->dimensions)
          composed.push_back(x->dimensions[static_cast<size_t>(d)]);
        op->dimensions = std::move(composed);
        op->ReplaceOperand(0, x->operand(0));
        changed_ = true;
        return op;
      }
      if (IsIdentityPermutation(op->dimensions)) return SameShape(op, x);
      return TransposeOfDot(op);
    }
    case Opcode::kBroadcast: {
      Instruction* x = op->operand(0);
      std::vector<int64_t> unit_dims_map;
      if (x->opcode() == Opcode::kReshape && !x->sharding.has_value() &&
          InsertsUnitDims(x->operand(0)->shape(), x->shape(), &unit_dims_map)) {
        // A reshape that only inserts dims of size 1 (one this rule made
        // of a broadcast, say) is a broadcast too: fold it in.
        std::vector<int64_t> composed;
        for (int64_t d : unit_dims_map)
          composed.push_back(op->dimensions[static_cast<size_t>(d)]);
        op->dimensions = std::move(composed);
        op->ReplaceOperand(0, x->operand(0));
        changed_ = true;
        return op;
      }
      if (x->opcode() == Opcode::kBroadcast && !x->sharding.has_value()) {
        std::vector<int64_t> composed;
        for (int64_t d : x->dimensions)
          composed.push_back(op->dimensions[static_cast<size_t>(d)]);
        op->dimensions = std::move(composed);
        op->ReplaceOperand(0, x->operand(0));
        changed_ = true;
        return op;
      }
      if (IsIdentityPermutation(op->dimensions))
        if (Instruction* same = SameShape(op, x)) return same;
      return UnitDimsBroadcast(op);
    }
    case Opcode::kSlice: {
      Instruction* x = op->operand(0);
      for (size_t d = 0; d < op->slice_starts.size(); ++d)
        if (op->slice_starts[d] != 0 || op->slice_strides[d] != 1)
          return nullptr;
      return SameShape(op, x);  // same dims: the limits are the dims
    }
    case Opcode::kPad:
      for (const PadDimension& p : op->padding)
        if (p != PadDimension{}) return nullptr;
      return SameShape(op, op->operand(0));
    case Opcode::kReverse:
      for (int64_t d : op->dimensions)
        if (op->shape().dim(d) > 1) return nullptr;
      return SameShape(op, op->operand(0));
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
      return SameShape(op, op->operand(0));
    case Opcode::kReduce:
      return ReduceOfOneElement(op);
    case Opcode::kGetTupleElement: {
      // Inlined calls leave get-tuple-element of the callee's root tuple.
      Instruction* tuple = op->operand(0);
      if (tuple->opcode() != Opcode::kTuple) return nullptr;
      return SameShape(op, tuple->operand(op->tuple_index));
    }
    case Opcode::kConcatenate:
      return op->operand_count() == 1 ? SameShape(op, op->operand(0)) : nullptr;
    case Opcode::kNegate:
    case Opcode::kNot: {
      Instruction* x = op->operand(0);
      if (x->opcode() != op->opcode() || x->sharding.has_value())
        return nullptr;
      return SameShape(op, x->operand(0));
    }
    case Opcode::kSelect: {
      Instruction* on_true = op->operand(1);
      Instruction* on_false = op->operand(2);
      if (on_true == on_false) return SameShape(op, on_true);
      const Literal* predicate = UniformConstant(op->operand(0));
      if (predicate == nullptr) return nullptr;
      return SameShape(
          op, FirstIs(*predicate, ElementType::kPred, Value::kAllBitsSet)
                  ? on_true
                  : on_false);
    }
    case Opcode::kDivide:
      if (Instruction* identity = Arithmetic(op)) return identity;
      return DivisionByBroadcast(op);
    default:
      if (IsElementwiseBinary(op->opcode()) && op->opcode() != Opcode::kCompare)
        return Arithmetic(op);
      return nullptr;
  }
}

// A broadcast that only inserts dimensions of size 1 (its operand's
// dimensions map in order onto result dimensions of the same sizes, as JAX's
// broadcast_in_dim of a scan step's row to [1, ...] does) keeps every
// element at its row-major index: it is a reshape, which buffer assignment
// may make a view of the operand's buffer instead of a copy (XLA's
// simplifier makes the same rewrite; the HLO JAX prints already has it).
Instruction* Simplifier::UnitDimsBroadcast(Instruction* op) {
  const Instruction* x = op->operand(0);
  if (!x->shape().IsArray() || !op->shape().IsArray() ||
      x->shape().num_elements() != op->shape().num_elements() ||
      !std::is_sorted(op->dimensions.begin(), op->dimensions.end()))
    return nullptr;
  return Emit(op, Opcode::kReshape, op->shape(), {op->operand(0)}, op->name());
}

// x / broadcast(b) -> x * broadcast(1 / b): one division per element of b
// instead of per element of x. Not exact (x * (1/b) may differ from x / b
// in the last bit), but XLA's simplifier makes this rewrite for every
// floating type (softmax's normalisation, for one), so the results come
// closer to XLA's, not further; done for f32 and f64 only.
Instruction* Simplifier::DivisionByBroadcast(Instruction* op) {
  const ElementType type = op->shape().element_type();
  if (type != ElementType::kF32 && type != ElementType::kF64) return nullptr;
  Instruction* x = op->operand(0);
  Instruction* spread = op->operand(1);
  if (spread->opcode() != Opcode::kBroadcast || spread->sharding.has_value())
    return nullptr;
  Instruction* b = spread->operand(0);
  if (!b->shape().IsArray() ||
      b->shape().num_elements() >= op->shape().num_elements())
    return nullptr;
  Literal one_literal(Shape::Scalar(type));
  if (type == ElementType::kF32)
    one_literal.data<float>()[0] = 1.0f;
  else
    one_literal.data<double>()[0] = 1.0;
  Instruction* one = NewConstant(op, std::move(one_literal),
                                 Shape::Scalar(type), op->name() + ".one");
  Instruction* ones = b->shape().rank() == 0
                          ? one
                          : Emit(op, Opcode::kBroadcast, b->shape(), {one},
                                 op->name() + ".ones");
  Instruction* reciprocal = Emit(op, Opcode::kDivide, b->shape(), {ones, b},
                                 op->name() + ".reciprocal");
  Instruction* spread_reciprocal = Emit(op, Opcode::kBroadcast, spread->shape(),
                                        {reciprocal}, op->name() + ".spread");
  spread_reciprocal->dimensions = spread->dimensions;
  return Emit(op, Opcode::kMultiply, op->shape(), {x, spread_reciprocal},
              op->name());
}

// transpose(dot(a, b)) -> dot(b, a), when the transpose only swaps the
// dot's two groups of free dims (its result is [batch, a's free dims, b's
// free dims]; dot(b, a)'s is [batch, b's, a's]) and reads the dot's only
// use. JAX's gradient of x @ w w.r.t. w is such a pair (dot(dy, x) with
// the batch contracted, then transposed): the GEMM then writes the product
// in the order its readers want, instead of a copy or a fusion reading it
// transposed (a strided walk) afterwards. The products and the depth they
// are summed over are the same, but a GEMM may sum them in another order
// for the swapped shape (last bits).
Instruction* Simplifier::TransposeOfDot(Instruction* op) {
  Instruction* dot = op->operand(0);
  if (dot->opcode() != Opcode::kDot || dot->sharding.has_value() ||
      !dot->shape().IsArray())
    return nullptr;
  const DotDimensionNumbers& numbers = dot->dot_dimension_numbers;
  const auto batch = static_cast<int64_t>(numbers.lhs_batch.size());
  const int64_t lhs_free = dot->operand(0)->shape().rank() - batch -
                           static_cast<int64_t>(numbers.lhs_contracting.size());
  const int64_t rhs_free = dot->operand(1)->shape().rank() - batch -
                           static_cast<int64_t>(numbers.rhs_contracting.size());
  if (lhs_free == 0 || rhs_free == 0) return nullptr;
  std::vector<int64_t> swapped;
  for (int64_t d = 0; d < batch; ++d) swapped.push_back(d);
  for (int64_t d = 0; d < rhs_free; ++d)
    swapped.push_back(batch + lhs_free + d);
  for (int64_t d = 0; d < lhs_free; ++d) swapped.push_back(batch + d);
  // A dot read elsewhere too would be computed twice.
  if (op->dimensions != swapped || Uses(dot) != 1) return nullptr;
  Instruction* product = Emit(op, Opcode::kDot, op->shape(),
                              {dot->operand(1), dot->operand(0)}, op->name());
  product->dot_dimension_numbers = {numbers.rhs_batch, numbers.lhs_batch,
                                    numbers.rhs_contracting,
                                    numbers.lhs_contracting};
  return product;
}

int64_t RunOnComputation(Computation& computation) {
  int64_t simplified = 0;
  for (int round = 0; round < 8; ++round) {
    std::unordered_map<const Instruction*, Instruction*> replaced;
    Simplifier simplifier(&computation);
    int64_t folded = 0;
    const auto& ops = computation.instructions();
    for (size_t k = 0; k < ops.size(); ++k) {
      Instruction* op = ops[k].get();
      for (int64_t i = 0; i < op->operand_count(); ++i) {
        auto found = replaced.find(op->operand(i));
        if (found != replaced.end()) op->ReplaceOperand(i, found->second);
      }
      simplifier.changed_ = false;
      const size_t count = ops.size();
      Instruction* value = simplifier.Simplify(op);
      k += ops.size() - count;  // ops placed in front of `op`
      if (value == nullptr) continue;
      if (value == op) {
        ++folded;
        continue;
      }
      // The value may itself have been replaced earlier in this round.
      auto again = replaced.find(value);
      replaced[op] = again != replaced.end() ? again->second : value;
    }
    if (replaced.empty() && folded == 0) break;
    simplified += folded + static_cast<int64_t>(replaced.size());
    if (auto root = replaced.find(computation.root()); root != replaced.end())
      computation.set_root(root->second);
    computation.RemoveInstructionsIf(
        [&](Instruction* op) { return replaced.count(op) > 0; });
  }
  return simplified;
}

}  // namespace

int64_t SimplifyAlgebra(Module& module) {
  int64_t simplified = 0;
  for (const auto& computation : module.computations())
    simplified += RunOnComputation(*computation);
  return simplified;
}

}  // namespace xffi::passes
