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
#include "passes/fusion_rules.h"

namespace xffi::passes {
namespace {

using fusion_rules::CheapToRecompute;
using fusion_rules::Expands;
using fusion_rules::IsCheapGenerator;
using fusion_rules::UniqueName;

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
    bool formed = false;
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
  // Whether `op` may join `targets` (groups its users are in): within the
  // bounds of each, and, with several targets, cheap to compute again.
  bool MayJoin(const Instruction& op, const std::vector<size_t>& targets,
               const std::vector<Group>& groups) const;
  void Form(Group& group);

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
  return fusion_rules::OutsideOperands(
      members, position_,
      [this](const Instruction& op) { return CopiedIn(op); });
}

void ComputationFuser::Form(Group& group) {
  std::unordered_set<const Instruction*> members(group.members.begin(),
                                                 group.members.end());
  Instruction* root = group.members.front();
  std::vector<Instruction*> outside = OutsideOperands(members);

  Computation* callee = fusion_rules::BuildFusedComputation(
      module_, "fused_computation", computation_names_, members, outside,
      {root});

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
  // The members go once every group is formed: one recomputed in several
  // groups is cloned from here by each.
  group.formed = true;
}

// The size bound counts the ops that compute: a constant, iota or
// broadcast costs no work per element in the generated loop, and JAX's HLO
// spelling of erf_inv (random.normal) selects each polynomial coefficient
// from two broadcast constants, 48 generators around 40 computing ops,
// which counting them split into eight fusions writing their values to
// memory where the StableHLO text (chlo.erf_inv) gives one.
int64_t ComputingMembers(const std::vector<Instruction*>& members) {
  return std::count_if(
      members.begin(), members.end(),
      [](const Instruction* op) { return !IsCheapGenerator(*op); });
}

bool ComputationFuser::MayJoin(const Instruction& op,
                               const std::vector<size_t>& targets,
                               const std::vector<Group>& groups) const {
  if (targets.size() > 1 &&
      (static_cast<int64_t>(targets.size()) > kMaxRecomputations ||
       !CheapToRecompute(op)))
    return false;
  for (size_t target : targets) {
    const Group& group = groups[target];
    if (!IsCheapGenerator(op) &&
        ComputingMembers(group.members) >= kMaxFusedInstructions)
      return false;
    std::unordered_set<const Instruction*> members(group.members.begin(),
                                                   group.members.end());
    members.insert(&op);
    if (static_cast<int64_t>(OutsideOperands(members).size()) >
        kMaxFusionOperands)
      return false;
  }
  return true;
}

int64_t ComputationFuser::Run() {
  const auto& instructions = computation_.instructions();
  fusion_rules::ComputationIndex index =
      fusion_rules::IndexComputation(computation_);
  position_ = std::move(index.position);
  users_ = std::move(index.users);
  aliased_ = std::move(index.aliased);

  std::vector<Group> groups;
  // The groups each op is a member of: one, or several for a cheap producer
  // each of them computes again.
  std::unordered_map<const Instruction*, std::vector<size_t>> groups_of;
  for (size_t i = instructions.size(); i-- > 0;) {
    Instruction* op = instructions[i].get();
    if (!Fusible(*op)) continue;
    // Joins the groups its users are in when every user is in one and it
    // would not be recomputed per element there.
    std::vector<size_t> targets;
    bool joins = op != computation_.root() && !users_[op].empty();
    for (const Instruction* user : users_[op]) {
      if (!joins) break;
      auto found = groups_of.find(user);
      if (found == groups_of.end()) {
        joins = false;
        break;
      }
      for (size_t group : found->second)
        if (std::find(targets.begin(), targets.end(), group) == targets.end())
          targets.push_back(group);
      for (int64_t k = 0; k < user->operand_count(); ++k)
        if (user->operand(k) == op && Expands(*user, k) &&
            op->opcode() != Opcode::kConstant && op->opcode() != Opcode::kIota)
          joins = false;
    }
    if (joins && MayJoin(*op, targets, groups)) {
      for (size_t target : targets) groups[target].members.push_back(op);
      groups_of[op] = std::move(targets);
      continue;
    }
    groups_of[op] = {groups.size()};
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
  computation_.RemoveInstructionsIf([&](const Instruction* op) {
    auto found = groups_of.find(op);
    return found != groups_of.end() &&
           std::all_of(found->second.begin(), found->second.end(),
                       [&](size_t group) { return groups[group].formed; });
  });
  return made;
}

}  // namespace

int64_t FuseLoops(Module& module) {
  return fusion_rules::FuseEachComputationWith<ComputationFuser>(module);
}

}  // namespace xffi::passes
