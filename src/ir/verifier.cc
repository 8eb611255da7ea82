// VerifyModule: the structure of a module (entry, computations, parameter
// numbering, def-before-use, calls within the module, no recursion) and,
// through InferShape, every op's operands, fields and result shape.
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/shape_inference.h"
#include "xffi/program/ir.h"

namespace xffi {
namespace {

std::string Quoted(const std::string& name) { return "'" + name + "'"; }

// A negative size: a `?` the text left open (kDynamicDimension in
// xffi/program/text.h).
bool HasDynamicDimension(const Shape& shape) {
  for (int64_t d : shape.dims())
    if (d < 0) return true;
  for (const Shape& element : shape.tuple_shapes())
    if (HasDynamicDimension(element)) return true;
  return false;
}

Status CheckParameters(const Computation& computation) {
  std::vector<Instruction*> params = computation.parameters();  // sorted
  int64_t n = static_cast<int64_t>(params.size());
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* param = params[static_cast<size_t>(i)];
    if (i > 0 && params[static_cast<size_t>(i - 1)]->parameter_number ==
                     param->parameter_number)
      return InvalidArgument(
          "computation " + Quoted(computation.name()) + ": parameters " +
          Quoted(params[static_cast<size_t>(i - 1)]->name()) + " and " +
          Quoted(param->name()) + " both have number " +
          std::to_string(param->parameter_number));
    if (param->parameter_number != i)
      return InvalidArgument(
          "computation " + Quoted(computation.name()) + ": parameter " +
          Quoted(param->name()) + " has number " +
          std::to_string(param->parameter_number) + "; its " +
          std::to_string(n) + " parameters must be numbered 0.." +
          std::to_string(n - 1));
  }
  return Status::Ok();
}

class ModuleVerifier {
 public:
  explicit ModuleVerifier(const Module& module) : module_(module) {}

  Status Run() {
    if (module_.entry() == nullptr) return Fail("has no entry computation");
    std::unordered_set<std::string> names;
    for (const auto& computation : module_.computations()) {
      if (computation == nullptr) return Fail("holds a null computation");
      if (!names.insert(computation->name()).second)
        return Fail("has two computations named " +
                    Quoted(computation->name()));
      computations_.insert(computation.get());
      for (const auto& instruction : computation->instructions())
        owner_[instruction.get()] = computation.get();
    }
    if (!computations_.count(module_.entry()))
      return Fail("entry computation is not one of its computations");
    Status dynamic = CheckStatic();
    if (!dynamic.ok()) return dynamic;
    for (const auto& computation : module_.computations()) {
      Status status = VerifyComputation(*computation);
      if (!status.ok()) return status;
    }
    return CheckNoRecursion();
  }

 private:
  Status Fail(const std::string& what) const {
    return InvalidArgument("module " + Quoted(module_.name()) + " " + what);
  }

  Status VerifyComputation(const Computation& computation) {
    if (computation.root() == nullptr)
      return InvalidArgument("computation " + Quoted(computation.name()) +
                             " has no root");
    if (owner_.count(computation.root()) == 0 ||
        owner_.at(computation.root()) != &computation)
      return InvalidArgument("computation " + Quoted(computation.name()) +
                             ": its root is not one of its instructions");
    Status status = CheckParameters(computation);
    if (!status.ok()) return status;
    const auto& result_shardings = computation.result_shardings();
    if (!result_shardings.empty() &&
        static_cast<int64_t>(result_shardings.size()) !=
            computation.result_count())
      return InvalidArgument(
          "computation " + Quoted(computation.name()) + " has " +
          std::to_string(computation.result_count()) + " result(s) and " +
          std::to_string(result_shardings.size()) + " result sharding(s)");
    const auto& result_names = computation.result_names();
    if (!result_names.empty() &&
        static_cast<int64_t>(result_names.size()) != computation.result_count())
      return InvalidArgument(
          "computation " + Quoted(computation.name()) + " has " +
          std::to_string(computation.result_count()) + " result(s) and " +
          std::to_string(result_names.size()) + " result name(s)");

    std::unordered_set<const Instruction*> defined;
    std::unordered_set<std::string> names;
    for (const auto& owned : computation.instructions()) {
      const Instruction& instruction = *owned;
      if (instruction.parent() != &computation)
        return InvalidArgument(
            instruction.Describe() + ": listed in computation " +
            Quoted(computation.name()) + " but not parented to it");
      if (!names.insert(instruction.name()).second)
        return InvalidArgument("computation " + Quoted(computation.name()) +
                               " has two instructions named " +
                               Quoted(instruction.name()));
      status = CheckOperandsAndCalls(instruction, computation, defined);
      if (!status.ok()) return status;
      status = CheckShape(instruction);
      if (!status.ok()) return status;
      defined.insert(&instruction);
    }
    return Status::Ok();
  }

  Status CheckOperandsAndCalls(
      const Instruction& instruction, const Computation& computation,
      const std::unordered_set<const Instruction*>& defined) const {
    for (int64_t i = 0; i < instruction.operand_count(); ++i) {
      const Instruction* operand = instruction.operand(i);
      std::string which = "operand " + std::to_string(i);
      if (operand == nullptr) return Error(instruction, which + " is null");
      if (defined.count(operand)) continue;
      auto owner = owner_.find(operand);
      if (owner == owner_.end())
        return Error(instruction, which + " is not an instruction of module " +
                                      Quoted(module_.name()));
      if (owner->second != &computation)
        return Error(instruction, which + " " + Quoted(operand->name()) +
                                      " belongs to computation " +
                                      Quoted(owner->second->name()));
      return Error(instruction, which + " " + Quoted(operand->name()) +
                                    " is used before it is defined");
    }
    const auto& called = instruction.called_computations();
    for (size_t i = 0; i < called.size(); ++i) {
      if (called[i] == nullptr)
        return Error(instruction,
                     "called computation " + std::to_string(i) + " is null");
      if (!computations_.count(called[i]))
        return Error(instruction, "called computation " + std::to_string(i) +
                                      " is not in module " +
                                      Quoted(module_.name()));
    }
    return Status::Ok();
  }

  Status CheckShape(const Instruction& instruction) const {
    Status valid = ValidateShape(instruction.shape());
    if (!valid.ok()) return DescribeError(instruction, valid);
    StatusOr<Shape> inferred = InferShape(instruction);
    if (!inferred.ok()) return DescribeError(instruction, inferred.status());
    if (!instruction.shape().Compatible(*inferred))
      return Error(instruction, "result shape " +
                                    instruction.shape().ToString() +
                                    " does not match " + inferred->ToString() +
                                    ", the shape its operands give");
    return Status::Ok();
  }

  // A shape-polymorphic program that was parsed without argument shapes:
  // nothing can run it, and every backend assumes static shapes. The
  // entry's parameters come first, since their shapes are what to give.
  Status CheckStatic() const {
    auto dynamic = [](const Instruction& instruction) {
      return InvalidArgument(
          instruction.Describe() + ": value has the dynamic shape " +
          instruction.shape().ToString() +
          "; a shape-polymorphic program compiles only after its shapes "
          "are refined (give the argument shapes: "
          "ParseOptions::argument_shapes)");
    };
    for (const Instruction* parameter : module_.entry()->parameters())
      if (HasDynamicDimension(parameter->shape())) return dynamic(*parameter);
    for (const auto& computation : module_.computations())
      for (const auto& instruction : computation->instructions())
        if (HasDynamicDimension(instruction->shape()))
          return dynamic(*instruction);
    return Status::Ok();
  }

  // A computation reached again while its own calls are being followed.
  Status CheckNoRecursion() const {
    enum class Mark { kVisiting, kDone };
    std::unordered_map<const Computation*, Mark> marks;
    std::vector<const Computation*> path;
    std::function<Status(const Computation*)> visit =
        [&](const Computation* computation) -> Status {
      auto mark = marks.find(computation);
      if (mark != marks.end()) {
        if (mark->second == Mark::kDone) return Status::Ok();
        std::string cycle;
        bool on_cycle = false;
        for (const Computation* step : path) {
          on_cycle = on_cycle || step == computation;
          if (on_cycle) cycle += Quoted(step->name()) + " -> ";
        }
        return InvalidArgument("computation " + Quoted(computation->name()) +
                               " calls itself: " + cycle +
                               Quoted(computation->name()));
      }
      marks[computation] = Mark::kVisiting;
      path.push_back(computation);
      for (const auto& instruction : computation->instructions())
        for (const Computation* callee : instruction->called_computations()) {
          Status status = visit(callee);
          if (!status.ok()) return status;
        }
      path.pop_back();
      marks[computation] = Mark::kDone;
      return Status::Ok();
    };
    for (const auto& computation : module_.computations()) {
      Status status = visit(computation.get());
      if (!status.ok()) return status;
    }
    return Status::Ok();
  }

  static Status Error(const Instruction& instruction, const std::string& what) {
    return InvalidArgument(instruction.Describe() + ": " + what);
  }

  const Module& module_;
  std::unordered_set<const Computation*> computations_;
  std::unordered_map<const Instruction*, const Computation*> owner_;
};

}  // namespace

Status VerifyModule(const Module& module) {
  return ModuleVerifier(module).Run();
}

}  // namespace xffi
