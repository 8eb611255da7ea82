// What the fusion passes share (see fusion_rules.h).
#include "passes/fusion_rules.h"

#include <algorithm>
#include <memory>

#include "ir/fusion.h"

namespace xffi::passes::fusion_rules {

std::unordered_set<const Computation*> FusibleComputations(
    const Module& module) {
  std::unordered_set<const Computation*> protected_set;
  std::vector<const Computation*> pending;
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions()) {
      Opcode opcode = op->opcode();
      bool control = opcode == Opcode::kCall || opcode == Opcode::kWhile ||
                     opcode == Opcode::kConditional ||
                     opcode == Opcode::kManualComputation;
      if (control) continue;
      for (const Computation* called : op->called_computations())
        if (called != nullptr && protected_set.insert(called).second)
          pending.push_back(called);
    }
  while (!pending.empty()) {
    const Computation* computation = pending.back();
    pending.pop_back();
    for (const auto& op : computation->instructions())
      for (const Computation* called : op->called_computations())
        if (called != nullptr && protected_set.insert(called).second)
          pending.push_back(called);
  }
  std::unordered_set<const Computation*> fusible;
  for (const auto& computation : module.computations())
    if (!protected_set.count(computation.get()))
      fusible.insert(computation.get());
  return fusible;
}

int64_t FuseEachComputation(
    Module& module,
    const std::function<int64_t(Computation&,
                                std::unordered_set<std::string>&)>& fuse) {
  std::unordered_set<const Computation*> fusible = FusibleComputations(module);
  std::unordered_set<std::string> computation_names;
  for (const auto& computation : module.computations())
    computation_names.insert(computation->name());
  std::vector<Computation*> targets;
  for (const auto& computation : module.computations())
    if (fusible.count(computation.get())) targets.push_back(computation.get());
  int64_t made = 0;
  for (Computation* computation : targets)
    made += fuse(*computation, computation_names);
  return made;
}

ComputationIndex IndexComputation(const Computation& computation) {
  ComputationIndex index;
  const auto& instructions = computation.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    Instruction* op = instructions[i].get();
    index.position[op] = i;
    for (Instruction* operand : op->operands()) {
      std::vector<Instruction*>& users = index.users[operand];
      if (std::find(users.begin(), users.end(), op) == users.end())
        users.push_back(op);
    }
    if (op->opcode() == Opcode::kCustomCall)
      for (const OutputOperandAlias& alias :
           op->custom_call.output_operand_aliases)
        if (alias.operand >= 0 && alias.operand < op->operand_count())
          index.aliased.insert(op->operand(alias.operand));
  }
  return index;
}

bool IsCheapGenerator(const Instruction& op) {
  switch (op.opcode()) {
    case Opcode::kConstant:
      return op.shape().IsArray() &&
             op.shape().num_elements() <= kMaxFusedConstantElements;
    case Opcode::kIota:
    case Opcode::kBroadcast:
      return true;
    default:
      return false;
  }
}

bool CheapToRecompute(const Instruction& op) {
  if (!IsFusibleOp(op, FusionKind::kLoop) ||
      IsComplexType(op.shape().element_type()))
    return false;
  for (const Instruction* operand : op.operands())
    if (!operand->shape().IsArray() ||
        IsComplexType(operand->shape().element_type()))
      return false;
  const Opcode opcode = op.opcode();
  // A gather's load lands anywhere in its operand: a cache miss each time.
  if (opcode == Opcode::kGather) return false;
  // Data movement, select, clamp, converts, iota, constants: cheap.
  if (!IsElementwiseUnary(opcode) && !IsElementwiseBinary(opcode)) return true;
  switch (opcode) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kNot:
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSign:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kIsFinite:
    case Opcode::kPopulationCount:
    case Opcode::kClz:
    case Opcode::kCompare:
      return true;
    default:
      return false;  // division, remainder, power, transcendental functions
  }
}

bool Expands(const Instruction& user, int64_t index) {
  const Shape& operand = user.operand(index)->shape();
  switch (user.opcode()) {
    case Opcode::kBroadcast:
      return user.shape().num_elements() > operand.num_elements();
    case Opcode::kSelect:
    case Opcode::kClamp:
    case Opcode::kPad:
      return operand.rank() == 0 && user.shape().rank() > 0;
    case Opcode::kDynamicSlice:
      return index > 0;
    // Its operand is read at data-dependent places, not once per element:
    // a producer fused there would be evaluated at random points.
    case Opcode::kGather:
      return index == 0;
    default:
      return false;
  }
}

std::string UniqueName(const std::string& base,
                       std::unordered_set<std::string>& taken) {
  std::string name = base;
  for (int n = 1; taken.count(name); ++n) name = base + "." + std::to_string(n);
  taken.insert(name);
  return name;
}

std::vector<Instruction*> OutsideOperands(
    const std::unordered_set<const Instruction*>& members,
    const std::unordered_map<const Instruction*, size_t>& position,
    const std::function<bool(const Instruction&)>& copied_in) {
  std::vector<const Instruction*> ordered(members.begin(), members.end());
  std::sort(ordered.begin(), ordered.end(),
            [&](const Instruction* a, const Instruction* b) {
              return position.at(a) < position.at(b);
            });
  std::vector<Instruction*> outside;
  std::unordered_set<const Instruction*> seen;
  std::vector<Instruction*> stack;
  for (const Instruction* member : ordered) {
    for (Instruction* operand : member->operands()) {
      if (members.count(operand) || seen.count(operand)) continue;
      seen.insert(operand);
      if (!copied_in(*operand)) {
        outside.push_back(operand);
        continue;
      }
      // Copied in: what it reads comes in instead.
      stack.push_back(operand);
      while (!stack.empty()) {
        Instruction* generator = stack.back();
        stack.pop_back();
        for (Instruction* read : generator->operands()) {
          if (seen.count(read) || members.count(read)) continue;
          seen.insert(read);
          if (copied_in(*read))
            stack.push_back(read);
          else
            outside.push_back(read);
        }
      }
    }
  }
  return outside;
}

Computation* BuildFusedComputation(
    Module& module, const std::string& base,
    std::unordered_set<std::string>& computation_names,
    const std::unordered_set<const Instruction*>& members,
    const std::vector<Instruction*>& outside,
    const std::vector<Instruction*>& outputs) {
  auto fused =
      std::make_unique<Computation>(UniqueName(base, computation_names));
  std::unordered_set<std::string> inner_names;
  std::unordered_map<const Instruction*, Instruction*> inner;
  for (const Instruction* member : members) inner_names.insert(member->name());
  for (size_t i = 0; i < outside.size(); ++i) {
    auto parameter =
        std::make_unique<Instruction>(Opcode::kParameter, outside[i]->shape());
    parameter->parameter_number = static_cast<int64_t>(i);
    // Where the value it stands for came from.
    parameter->set_location(outside[i]->location());
    parameter->set_name(UniqueName("param_" + std::to_string(i), inner_names));
    inner[outside[i]] = fused->AddInstruction(std::move(parameter));
  }
  // Copies `op` (a member or a generator) in after what it reads.
  std::function<Instruction*(const Instruction*)> copy_in =
      [&](const Instruction* op) -> Instruction* {
    if (auto done = inner.find(op); done != inner.end()) return done->second;
    auto clone = std::make_unique<Instruction>(*op);
    clone->sharding.reset();
    for (int64_t i = 0; i < clone->operand_count(); ++i)
      clone->ReplaceOperand(i, copy_in(op->operand(i)));
    if (!members.count(op))
      clone->set_name(UniqueName(op->name(), inner_names));
    Instruction* added = fused->AddInstruction(std::move(clone));
    inner[op] = added;
    return added;
  };
  for (const Instruction* output : outputs) copy_in(output);
  if (outputs.size() == 1) {
    fused->set_root(inner.at(outputs[0]));
  } else {
    std::vector<Shape> shapes;
    for (const Instruction* output : outputs) shapes.push_back(output->shape());
    auto tuple = std::make_unique<Instruction>(Opcode::kTuple,
                                               Shape::Tuple(std::move(shapes)));
    for (const Instruction* output : outputs)
      tuple->AppendOperand(inner.at(output));
    tuple->set_name(UniqueName("tuple", inner_names));
    // Printed as metadata: without one the dump would not re-parse to itself.
    tuple->set_location(outputs.front()->location());
    fused->set_root(fused->AddInstruction(std::move(tuple)));
  }
  return module.AddComputation(std::move(fused));
}

}  // namespace xffi::passes::fusion_rules
