// Producer-consumer loop fusion (rules in loop_fusion.h).
#include "passes/loop_fusion.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/fusion.h"

namespace xffi::passes {
namespace {

// Computations the pass may rewrite: the entry and what only call, while,
// conditional and manual-computation reach. Regions of other ops (a
// reducer, a comparator, a custom call's computations) and everything they
// call stay as written.
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

// Whether `user` reads an element of its operand `index` for more than one
// of its own elements (so a fused producer there would be recomputed).
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
    default:
      return false;
  }
}

class ComputationFuser {
 public:
  ComputationFuser(Module& module, Computation& computation,
                   std::unordered_set<std::string>& computation_names)
      : module_(module),
        computation_(computation),
        computation_names_(computation_names) {}

  int64_t Run();

 private:
  struct Group {
    std::vector<Instruction*> members;  // root first, then producers
  };

  bool Fusible(const Instruction& op) const;
  // Whether a fusion reading `op` copies it in: a cheap generator that no
  // fusion of several ops will remove (copying one would pull that
  // fusion's inner values out).
  bool CopiedIn(const Instruction& op) const {
    return IsCheapGenerator(op) && !aliased_.count(&op) && !grouped_.count(&op);
  }
  // The values a group with these members reads from outside, in the
  // order its members (in program order) first read them; generators are
  // followed through, as they are copied in.
  std::vector<Instruction*> OutsideOperands(
      const std::unordered_set<const Instruction*>& members) const;
  void Form(Group& group);
  std::string UniqueName(std::string base,
                         std::unordered_set<std::string>& taken);

  Module& module_;
  Computation& computation_;
  std::unordered_set<std::string>& computation_names_;
  std::unordered_map<const Instruction*, size_t> position_;
  std::unordered_map<const Instruction*, std::vector<Instruction*>> users_;
  std::unordered_set<const Instruction*> aliased_;
  // Members of the groups of several ops, once grouping is done.
  std::unordered_set<const Instruction*> grouped_;
};

bool ComputationFuser::Fusible(const Instruction& op) const {
  if (op.opcode() == Opcode::kParameter || !op.shape().IsArray()) return false;
  if (aliased_.count(&op)) return false;
  for (const Instruction* operand : op.operands())
    if (!operand->shape().IsArray()) return false;
  return IsFusibleOp(op, FusionKind::kLoop);
}

std::vector<Instruction*> ComputationFuser::OutsideOperands(
    const std::unordered_set<const Instruction*>& members) const {
  std::vector<Instruction*> ordered(members.size());
  {
    std::vector<const Instruction*> list(members.begin(), members.end());
    std::sort(list.begin(), list.end(),
              [&](const Instruction* a, const Instruction* b) {
                return position_.at(a) < position_.at(b);
              });
    for (size_t i = 0; i < list.size(); ++i)
      ordered[i] = const_cast<Instruction*>(list[i]);
  }
  std::vector<Instruction*> outside;
  std::unordered_set<const Instruction*> seen;
  std::vector<Instruction*> stack;
  for (Instruction* member : ordered) {
    for (Instruction* operand : member->operands()) {
      if (members.count(operand) || seen.count(operand)) continue;
      if (CopiedIn(*operand)) {
        // Copied in: what it reads comes in instead.
        seen.insert(operand);
        stack.push_back(operand);
        while (!stack.empty()) {
          Instruction* generator = stack.back();
          stack.pop_back();
          for (Instruction* read : generator->operands()) {
            if (seen.count(read) || members.count(read)) continue;
            seen.insert(read);
            if (CopiedIn(*read))
              stack.push_back(read);
            else
              outside.push_back(read);
          }
        }
        continue;
      }
      seen.insert(operand);
      outside.push_back(operand);
    }
  }
  return outside;
}

std::string ComputationFuser::UniqueName(
    std::string base, std::unordered_set<std::string>& taken) {
  std::string name = base;
  for (int n = 1; taken.count(name); ++n) name = base + "." + std::to_string(n);
  taken.insert(name);
  return name;
}

void ComputationFuser::Form(Group& group) {
  std::unordered_set<const Instruction*> members(group.members.begin(),
                                                 group.members.end());
  Instruction* root = group.members.front();
  std::vector<Instruction*> outside = OutsideOperands(members);

  auto fused = std::make_unique<Computation>(
      UniqueName("fused_computation", computation_names_));
  std::unordered_set<std::string> inner_names;
  std::unordered_map<const Instruction*, Instruction*> inner;
  std::unordered_map<const Instruction*, Instruction*> parameters;
  for (const Instruction* member : members) inner_names.insert(member->name());
  for (size_t i = 0; i < outside.size(); ++i) {
    auto parameter =
        std::make_unique<Instruction>(Opcode::kParameter, outside[i]->shape());
    parameter->parameter_number = static_cast<int64_t>(i);
    // Where the value it stands for came from.
    parameter->set_location(outside[i]->location());
    parameter->set_name(UniqueName("param_" + std::to_string(i), inner_names));
    parameters[outside[i]] = fused->AddInstruction(std::move(parameter));
  }
  // Copies `op` (a member or a generator) in after what it reads.
  std::function<Instruction*(const Instruction*)> copy_in =
      [&](const Instruction* op) -> Instruction* {
    if (auto p = parameters.find(op); p != parameters.end()) return p->second;
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
  copy_in(root);
  fused->set_root(inner.at(root));
  Computation* callee = module_.AddComputation(std::move(fused));

  auto fusion = std::make_unique<Instruction>(Opcode::kFusion, root->shape());
  fusion->fusion_kind = FusionKind::kLoop;
  fusion->set_location(root->location());
  fusion->sharding = root->sharding;
  for (Instruction* operand : outside) fusion->AppendOperand(operand);
  fusion->AppendCalledComputation(callee);
  std::unordered_set<std::string> names;
  for (const auto& op : computation_.instructions()) names.insert(op->name());
  fusion->set_name(UniqueName("fusion", names));
  Instruction* placed =
      computation_.InsertInstructionBefore(std::move(fusion), root);

  for (const auto& op : computation_.instructions())
    for (int64_t i = 0; i < op->operand_count(); ++i)
      if (op->operand(i) == root) op->ReplaceOperand(i, placed);
  if (computation_.root() == root) computation_.set_root(placed);
  computation_.RemoveInstructionsIf(
      [&](const Instruction* op) { return members.count(op) > 0; });
}

int64_t ComputationFuser::Run() {
  const auto& instructions = computation_.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction* op = instructions[i].get();
    position_[op] = i;
    for (Instruction* operand : op->operands()) {
      std::vector<Instruction*>& users = users_[operand];
      if (std::find(users.begin(), users.end(), op) == users.end())
        users.push_back(const_cast<Instruction*>(op));
    }
    if (op->opcode() == Opcode::kCustomCall)
      for (const OutputOperandAlias& alias :
           op->custom_call.output_operand_aliases)
        if (alias.operand >= 0 && alias.operand < op->operand_count())
          aliased_.insert(op->operand(alias.operand));
  }

  std::vector<Group> groups;
  std::unordered_map<const Instruction*, size_t> group_of;
  for (size_t i = instructions.size(); i-- > 0;) {
    Instruction* op = instructions[i].get();
    if (!Fusible(*op)) continue;
    // Joins its users' group when they all are in one and it would not be
    // recomputed there.
    std::optional<size_t> target;
    bool joins = op != computation_.root() && !users_[op].empty();
    for (const Instruction* user : users_[op]) {
      if (!joins) break;
      auto found = group_of.find(user);
      if (found == group_of.end() || (target && *target != found->second)) {
        joins = false;
        break;
      }
      target = found->second;
      for (int64_t k = 0; k < user->operand_count(); ++k)
        if (user->operand(k) == op && Expands(*user, k) &&
            op->opcode() != Opcode::kConstant && op->opcode() != Opcode::kIota)
          joins = false;
    }
    if (joins) {
      Group& group = groups[*target];
      if (static_cast<int64_t>(group.members.size()) >= kMaxFusedInstructions)
        joins = false;
      if (joins) {
        std::unordered_set<const Instruction*> members(group.members.begin(),
                                                       group.members.end());
        members.insert(op);
        if (static_cast<int64_t>(OutsideOperands(members).size()) >
            kMaxFusionOperands)
          joins = false;
      }
      if (joins) {
        group.members.push_back(op);
        group_of[op] = *target;
        continue;
      }
    }
    group_of[op] = groups.size();
    groups.push_back(Group{{op}});
  }

  // A group of generators only (a broadcast constant) is not made into a
  // fusion: the fusions reading it copy it in.
  auto generators_only = [](const Group& group) {
    return std::all_of(
        group.members.begin(), group.members.end(),
        [](const Instruction* op) { return IsCheapGenerator(*op); });
  };
  for (const Group& group : groups)
    if (group.members.size() > 1 && !generators_only(group))
      grouped_.insert(group.members.begin(), group.members.end());
  int64_t made = 0;
  for (Group& group : groups) {
    if (generators_only(group)) continue;
    // A scalar chain moves no arrays through memory: fusing it only adds
    // the fusion's own dispatch.
    if (group.members.front()->shape().rank() == 0) continue;
    // A lone op is worth a fusion only with generators copied in beside it.
    if (group.members.size() < 2) {
      const Instruction* op = group.members.front();
      bool reads_generator = false;
      for (const Instruction* operand : op->operands())
        if (CopiedIn(*operand)) reads_generator = true;
      if (!reads_generator) continue;
    }
    std::unordered_set<const Instruction*> members(group.members.begin(),
                                                   group.members.end());
    if (static_cast<int64_t>(OutsideOperands(members).size()) >
        kMaxFusionOperands)
      continue;
    Form(group);
    ++made;
  }
  return made;
}

}  // namespace

int64_t FuseLoops(Module& module) {
  std::unordered_set<const Computation*> fusible = FusibleComputations(module);
  std::unordered_set<std::string> computation_names;
  for (const auto& computation : module.computations())
    computation_names.insert(computation->name());
  std::vector<Computation*> targets;
  for (const auto& computation : module.computations())
    if (fusible.count(computation.get())) targets.push_back(computation.get());
  int64_t made = 0;
  for (Computation* computation : targets)
    made += ComputationFuser(module, *computation, computation_names).Run();
  return made;
}

}  // namespace xffi::passes
