#include "passes/approx_top_k_expansion.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "runtime/status_macros.h"

namespace xffi::passes {
namespace {

// An integer attribute of any width.
std::optional<int64_t> IntAttribute(const FfiAttributes& attributes,
                                    std::string_view name) {
  const AttrValue* value = attributes.Find(name);
  if (value == nullptr) return std::nullopt;
  return std::visit(
      [](const auto& v) -> std::optional<int64_t> {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>)
          return static_cast<int64_t>(v);
        else
          return std::nullopt;
      },
      *value);
}

// What one call asks for, checked.
struct Call {
  int64_t n = 0;  // operands (as many init values follow them)
  int64_t dimension = 0;
  int64_t kept = 0;  // elements along `dimension` in each result
  Computation* comparator = nullptr;
  std::vector<Shape> results;
};

Status Invalid(const Instruction& op, const std::string& what) {
  return InvalidArgument("op " + op.Describe() + ": " + what);
}

StatusOr<Call> Read(const Instruction& op) {
  Call call;
  if (op.operand_count() < 2 || op.operand_count() % 2 != 0)
    return Invalid(op, "takes operands and as many init values, got " +
                           std::to_string(op.operand_count()) + " operands");
  call.n = op.operand_count() / 2;
  const FfiAttributes& attributes = op.custom_call.attributes;
  std::optional<int64_t> top_k = IntAttribute(attributes, "top_k");
  std::optional<int64_t> dimension = IntAttribute(attributes, "reduction_dim");
  if (!top_k || !dimension)
    return Invalid(op, "needs integer attributes 'top_k' and 'reduction_dim'");
  const Shape& first = op.operand(0)->shape();
  call.dimension = *dimension;
  if (!first.IsArray() || first.rank() < 1 || call.dimension < 0 ||
      call.dimension >= first.rank())
    return Invalid(op, "reduction_dim " + std::to_string(call.dimension) +
                           " is not a dimension of operand 0 " +
                           first.ToString());
  for (int64_t i = 0; i < call.n; ++i) {
    const Shape& operand = op.operand(i)->shape();
    const Shape& init = op.operand(call.n + i)->shape();
    if (!operand.IsArray() || operand.dims() != first.dims())
      return Invalid(op, "operand " + std::to_string(i) + " " +
                             operand.ToString() +
                             " does not have the dimensions of operand 0 " +
                             first.ToString());
    if (!init.IsArray() || init.rank() != 0 ||
        init.element_type() != operand.element_type())
      return Invalid(op,
                     "init value " + std::to_string(i) + " " + init.ToString() +
                         " must be a scalar of " +
                         std::string(ElementTypeName(operand.element_type())));
  }
  if (op.shape().IsTuple())
    call.results = op.shape().tuple_shapes();
  else
    call.results = {op.shape()};
  if (static_cast<int64_t>(call.results.size()) != call.n)
    return Invalid(op, "has " + std::to_string(call.results.size()) +
                           " results for " + std::to_string(call.n) +
                           " operands");
  const int64_t length = first.dims()[static_cast<size_t>(call.dimension)];
  call.kept =
      call.results[0].IsArray() && call.results[0].rank() == first.rank()
          ? call.results[0].dims()[static_cast<size_t>(call.dimension)]
          : -1;
  if (call.kept < 1 || call.kept > length)
    return Invalid(op, "result 0 " + call.results[0].ToString() +
                           " must keep 1 to " + std::to_string(length) +
                           " elements along reduction_dim");
  const AttrValue* aggregate = attributes.Find("aggregate_to_topk");
  const bool to_top_k =
      aggregate == nullptr ||
      (std::holds_alternative<bool>(*aggregate) && std::get<bool>(*aggregate));
  if (to_top_k && call.kept != *top_k)
    return Invalid(op, "result 0 " + call.results[0].ToString() + " keeps " +
                           std::to_string(call.kept) +
                           " elements along reduction_dim, top_k is " +
                           std::to_string(*top_k));
  for (int64_t i = 0; i < call.n; ++i) {
    std::vector<int64_t> dims = first.dims();
    dims[static_cast<size_t>(call.dimension)] = call.kept;
    const Shape expected =
        Shape::Array(op.operand(i)->shape().element_type(), dims);
    if (!call.results[static_cast<size_t>(i)].Compatible(expected))
      return Invalid(op, "result " + std::to_string(i) + " " +
                             call.results[static_cast<size_t>(i)].ToString() +
                             " should be " + expected.ToString());
  }
  if (op.called_computations().size() != 1)
    return Invalid(op, "needs one comparator in called_computations");
  call.comparator = op.called_computations()[0];
  const Computation& comparator = *call.comparator;
  const bool returns_pred =
      comparator.root() != nullptr && comparator.root()->shape().IsArray() &&
      comparator.root()->shape().rank() == 0 &&
      comparator.root()->shape().element_type() == ElementType::kPred;
  bool parameters_fit = comparator.num_parameters() == 2 * call.n;
  for (int64_t i = 0; parameters_fit && i < 2 * call.n; ++i) {
    const Instruction* p = comparator.parameter(i);
    parameters_fit =
        p != nullptr && p->shape().Compatible(Shape::Scalar(
                            op.operand(i / 2)->shape().element_type()));
  }
  if (!returns_pred || !parameters_fit)
    return Invalid(op, "comparator '" + comparator.name() +
                           "' must take two scalars per operand and return "
                           "a pred");
  return call;
}

// Adds ops before `before` in its computation, each named after it and at
// its location.
class Emitter {
 public:
  explicit Emitter(Instruction* before) : before_(before) {}

  Instruction* Add(Opcode opcode, Shape shape,
                   std::vector<Instruction*> operands,
                   std::string_view suffix) {
    auto inst = std::make_unique<Instruction>(opcode, std::move(shape));
    for (Instruction* operand : operands) inst->AppendOperand(operand);
    inst->set_name(before_->name() + "." + std::string(suffix));
    inst->set_location(before_->location());
    return before_->parent()->InsertInstructionBefore(std::move(inst), before_);
  }

 private:
  Instruction* before_;
};

// (lhs..., rhs...) -> comparator(lhs_0, rhs_0, lhs_1, rhs_1, ...) ? lhs : rhs,
// the body XLA reduces with for a top-1.
Computation* AddReducer(Module& module, const Instruction& op,
                        const Call& call) {
  auto body = std::make_unique<Computation>(op.name() + ".reducer");
  std::vector<Instruction*> lhs, rhs;
  for (int64_t side = 0; side < 2; ++side)
    for (int64_t i = 0; i < call.n; ++i) {
      Instruction* p = body->AddInstruction(
          Opcode::kParameter,
          Shape::Scalar(op.operand(i)->shape().element_type()), {},
          (side == 0 ? "lhs." : "rhs.") + std::to_string(i));
      p->parameter_number = side * call.n + i;
      (side == 0 ? lhs : rhs).push_back(p);
    }
  std::vector<Instruction*> pairs;
  for (int64_t i = 0; i < call.n; ++i) {
    pairs.push_back(lhs[static_cast<size_t>(i)]);
    pairs.push_back(rhs[static_cast<size_t>(i)]);
  }
  Instruction* pick = body->AddInstruction(
      Opcode::kCall, Shape::Scalar(ElementType::kPred), pairs, "compare");
  pick->AppendCalledComputation(call.comparator);
  std::vector<Instruction*> selected;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < call.n; ++i) {
    const Shape& s = lhs[static_cast<size_t>(i)]->shape();
    selected.push_back(body->AddInstruction(
        Opcode::kSelect, s,
        {pick, lhs[static_cast<size_t>(i)], rhs[static_cast<size_t>(i)]},
        "select." + std::to_string(i)));
    shapes.push_back(s);
  }
  body->set_root(body->AddInstruction(Opcode::kTuple, Shape::Tuple(shapes),
                                      selected, "result"));
  return module.AddComputation(std::move(body));
}

// The values that stand for the call's results, one per operand.
std::vector<Instruction*> Expand(Module& module, Instruction* op,
                                 const Call& call) {
  Emitter emit(op);
  std::vector<Instruction*> operands(op->operands().begin(),
                                     op->operands().begin() + call.n);
  std::vector<Shape> full;
  for (Instruction* operand : operands) full.push_back(operand->shape());
  std::vector<Instruction*> values;
  if (call.kept == 1) {
    std::vector<Shape> reduced;
    for (const Shape& s : full) {
      std::vector<int64_t> dims = s.dims();
      dims.erase(dims.begin() + call.dimension);
      reduced.push_back(Shape::Array(s.element_type(), dims));
    }
    Instruction* reduce =
        emit.Add(Opcode::kReduce, Shape::Tuple(reduced),
                 std::vector<Instruction*>(op->operands()), "reduce");
    reduce->dimensions = {call.dimension};
    reduce->AppendCalledComputation(AddReducer(module, *op, call));
    for (int64_t i = 0; i < call.n; ++i) {
      Instruction* element =
          emit.Add(Opcode::kGetTupleElement, reduced[static_cast<size_t>(i)],
                   {reduce}, "top1." + std::to_string(i));
      element->tuple_index = i;
      values.push_back(emit.Add(Opcode::kReshape,
                                call.results[static_cast<size_t>(i)], {element},
                                "value." + std::to_string(i)));
    }
    return values;
  }
  Instruction* sort =
      emit.Add(Opcode::kSort, Shape::Tuple(full), operands, "sort");
  sort->dimensions = {call.dimension};
  sort->is_stable = true;
  sort->AppendCalledComputation(call.comparator);
  for (int64_t i = 0; i < call.n; ++i) {
    Instruction* sorted =
        emit.Add(Opcode::kGetTupleElement, full[static_cast<size_t>(i)], {sort},
                 "sorted." + std::to_string(i));
    sorted->tuple_index = i;
    Instruction* slice =
        emit.Add(Opcode::kSlice, call.results[static_cast<size_t>(i)], {sorted},
                 "value." + std::to_string(i));
    const Shape& s = full[static_cast<size_t>(i)];
    slice->slice_starts.assign(static_cast<size_t>(s.rank()), 0);
    slice->slice_limits = s.dims();
    slice->slice_limits[static_cast<size_t>(call.dimension)] = call.kept;
    slice->slice_strides.assign(static_cast<size_t>(s.rank()), 1);
    values.push_back(slice);
  }
  return values;
}

}  // namespace

StatusOr<int64_t> ExpandApproxTopK(Module& module) {
  int64_t expanded = 0;
  // Computations added while expanding (reducers) hold no calls.
  std::vector<Computation*> computations;
  for (const auto& c : module.computations()) computations.push_back(c.get());
  for (Computation* computation : computations) {
    std::vector<Instruction*> calls;
    for (const auto& owned : computation->instructions())
      if (owned->opcode() == Opcode::kCustomCall &&
          owned->custom_call.target == kApproxTopKTarget)
        calls.push_back(owned.get());
    for (Instruction* op : calls) {
      XFFI_ASSIGN_OR_RETURN(Call call, Read(*op));
      std::vector<Instruction*> values = Expand(module, op, call);
      Instruction* replacement = values[0];
      if (op->shape().IsTuple()) {
        Emitter emit(op);
        replacement = emit.Add(Opcode::kTuple, op->shape(), values, "result");
      }
      for (const auto& owned : computation->instructions())
        for (int64_t i = 0; i < owned->operand_count(); ++i)
          if (owned->operand(i) == op) owned->ReplaceOperand(i, replacement);
      if (computation->root() == op) computation->set_root(replacement);
      computation->RemoveInstructionsIf(
          [op](Instruction* candidate) { return candidate == op; });
      ++expanded;
    }
  }
  return expanded;
}

}  // namespace xffi::passes
