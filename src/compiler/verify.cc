// Pre-compile checks. The IR's own verifier (VerifyModule, written beside
// the IR) checks every op in depth; until it is part of the library this
// file runs the structural subset the executor depends on, and switching
// XFFI_COMPILER_RUNS_VERIFY_MODULE to 1 makes Compile run both.
#include "compiler/verify.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#ifndef XFFI_COMPILER_RUNS_VERIFY_MODULE
#define XFFI_COMPILER_RUNS_VERIFY_MODULE 0
#endif

namespace xffi::compiler {
namespace {

bool SameShape(const Shape& a, const Shape& b) {
  return a.WithoutLayout() == b.WithoutLayout();
}

Status Fail(const Instruction& op, const std::string& what) {
  return InvalidArgument(op.Describe() + ": " + what);
}

Status CheckSignature(const Instruction& op, const Computation* called,
                      const char* role, const std::vector<Shape>& parameters,
                      const Shape* result) {
  if (called->num_parameters() != static_cast<int64_t>(parameters.size())) {
    return Fail(op, std::string(role) + " '" + called->name() + "' takes " +
                        std::to_string(called->num_parameters()) +
                        " parameters, the op passes " +
                        std::to_string(parameters.size()));
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Instruction* parameter = called->parameter(static_cast<int64_t>(i));
    if (!SameShape(parameter->shape(), parameters[i])) {
      return Fail(op, std::string(role) + " '" + called->name() +
                          "' parameter " + std::to_string(i) + " is " +
                          parameter->shape().ToString(false) +
                          ", the op passes " + parameters[i].ToString(false));
    }
  }
  if (result != nullptr && !SameShape(called->root()->shape(), *result)) {
    return Fail(op, std::string(role) + " '" + called->name() + "' returns " +
                        called->root()->shape().ToString(false) +
                        ", expected " + result->ToString(false));
  }
  return Status::Ok();
}

Status CheckOp(const Instruction& op) {
  const auto& called = op.called_computations();
  auto operand_shapes = [&](int64_t first) {
    std::vector<Shape> shapes;
    for (int64_t i = first; i < op.operand_count(); ++i)
      shapes.push_back(op.operand(i)->shape());
    return shapes;
  };
  switch (op.opcode()) {
    case Opcode::kGetTupleElement: {
      if (op.operand_count() != 1 || !op.operand(0)->shape().IsTuple())
        return Fail(op, "get-tuple-element needs one tuple operand");
      const Shape& tuple = op.operand(0)->shape();
      if (op.tuple_index < 0 || op.tuple_index >= tuple.tuple_size()) {
        return Fail(op, "tuple index " + std::to_string(op.tuple_index) +
                            " is outside " + tuple.ToString(false));
      }
      if (!SameShape(tuple.tuple_shape(op.tuple_index), op.shape()))
        return Fail(op, "the result shape is not the tuple element's");
      return Status::Ok();
    }
    case Opcode::kTuple: {
      std::vector<Shape> elements = operand_shapes(0);
      if (!SameShape(Shape::Tuple(elements), op.shape()))
        return Fail(op, "the result shape is not the tuple of the operands");
      return Status::Ok();
    }
    case Opcode::kOptimizationBarrier:
      if (op.operand_count() != 1 ||
          !SameShape(op.operand(0)->shape(), op.shape()))
        return Fail(op, "an optimization barrier returns its one operand");
      return Status::Ok();
    case Opcode::kWhile: {
      if (called.size() != 2 || op.operand_count() != 1)
        return Fail(op, "a while loop has a condition, a body and one operand");
      if (!SameShape(op.operand(0)->shape(), op.shape()))
        return Fail(op, "the loop state " + op.operand(0)->shape().ToString() +
                            " differs from the result shape");
      Shape pred = Shape::Scalar(ElementType::kPred);
      Status status =
          CheckSignature(op, called[0], "condition", {op.shape()}, &pred);
      if (!status.ok()) return status;
      return CheckSignature(op, called[1], "body", {op.shape()}, &op.shape());
    }
    case Opcode::kConditional: {
      if (called.empty() ||
          op.operand_count() != static_cast<int64_t>(called.size()) + 1)
        return Fail(op,
                    "a conditional takes an index and one operand per "
                    "branch");
      const Shape& index = op.operand(0)->shape();
      bool is_pred = index == Shape::Scalar(ElementType::kPred);
      if (!is_pred && !SameShape(index, Shape::Scalar(ElementType::kS32)))
        return Fail(op, "the branch index must be s32[] or pred[], not " +
                            index.ToString(false));
      if (is_pred && called.size() != 2)
        return Fail(op, "a pred-indexed conditional has exactly two branches");
      for (size_t b = 0; b < called.size(); ++b) {
        Status status = CheckSignature(
            op, called[b], "branch",
            {op.operand(static_cast<int64_t>(b) + 1)->shape()}, &op.shape());
        if (!status.ok()) return status;
      }
      return Status::Ok();
    }
    case Opcode::kCall:
      if (called.size() != 1) return Fail(op, "a call names one computation");
      return CheckSignature(op, called[0], "callee", operand_shapes(0),
                            &op.shape());
    case Opcode::kCustomCall:
      if (op.custom_call.target.empty())
        return Fail(op, "the custom call has no target name");
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

Status CheckComputation(const Computation& computation) {
  if (computation.root() == nullptr)
    return InvalidArgument("computation '" + computation.name() +
                           "' has no root");
  std::unordered_set<const Instruction*> defined;
  std::vector<bool> numbers(static_cast<size_t>(computation.num_parameters()),
                            false);
  bool root_found = false;
  for (const auto& op : computation.instructions()) {
    for (int64_t i = 0; i < op->operand_count(); ++i) {
      if (defined.count(op->operand(i)) == 0) {
        return Fail(*op, "operand " + std::to_string(i) +
                             " is not defined earlier in computation '" +
                             computation.name() + "'");
      }
    }
    for (const Computation* called : op->called_computations())
      if (called == nullptr) return Fail(*op, "a called computation is null");
    if (op->opcode() == Opcode::kParameter) {
      int64_t n = op->parameter_number;
      if (n < 0 || n >= static_cast<int64_t>(numbers.size()) ||
          numbers[static_cast<size_t>(n)])
        return Fail(*op, "parameter numbers must be 0.." +
                             std::to_string(numbers.size() - 1) +
                             ", each once");
      numbers[static_cast<size_t>(n)] = true;
    }
    if (!op->shape().valid()) return Fail(*op, "the op has no shape");
    Status status = CheckOp(*op);
    if (!status.ok()) return status;
    if (op.get() == computation.root()) root_found = true;
    defined.insert(op.get());
  }
  if (!root_found)
    return InvalidArgument("the root of computation '" + computation.name() +
                           "' is not one of its instructions");
  return Status::Ok();
}

}  // namespace

Status VerifyForCompile(const Module& module) {
#if XFFI_COMPILER_RUNS_VERIFY_MODULE
  Status verified = VerifyModule(module);
  if (!verified.ok()) return verified;
#endif
  if (module.entry() == nullptr)
    return InvalidArgument("module '" + module.name() + "' has no entry");
  // Every computation the entry reaches, each once.
  std::unordered_set<const Computation*> in_module;
  for (const auto& computation : module.computations())
    in_module.insert(computation.get());
  std::vector<const Computation*> pending = {module.entry()};
  std::unordered_set<const Computation*> seen = {module.entry()};
  while (!pending.empty()) {
    const Computation* computation = pending.back();
    pending.pop_back();
    if (in_module.count(computation) == 0)
      return InvalidArgument("computation '" + computation->name() +
                             "' is called but not part of module '" +
                             module.name() + "'");
    Status status = CheckComputation(*computation);
    if (!status.ok()) return status;
    for (const auto& op : computation->instructions())
      for (const Computation* called : op->called_computations())
        if (seen.insert(called).second) pending.push_back(called);
  }
  return Status::Ok();
}

}  // namespace xffi::compiler
