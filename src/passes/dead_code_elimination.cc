// Dead-code elimination over the whole module.
#include "passes/dead_code_elimination.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xffi::passes {
namespace {

// Whether running `computation` has an effect beyond its result.
bool HasEffect(const Computation* computation,
               std::unordered_map<const Computation*, bool>& memo);

bool OpHasEffect(const Instruction& op,
                 std::unordered_map<const Computation*, bool>& memo) {
  if (op.HasSideEffect()) return true;
  for (const Computation* called : op.called_computations())
    if (called != nullptr && HasEffect(called, memo)) return true;
  return false;
}

bool HasEffect(const Computation* computation,
               std::unordered_map<const Computation*, bool>& memo) {
  auto found = memo.find(computation);
  if (found != memo.end()) return found->second;
  memo[computation] = false;  // no recursion in a valid module
  bool effect = false;
  for (const auto& op : computation->instructions())
    if (OpHasEffect(*op, memo)) effect = true;
  memo[computation] = effect;
  return effect;
}

}  // namespace

int64_t EliminateDeadCode(Module& module) {
  std::unordered_map<const Computation*, bool> memo;
  int64_t removed = 0;
  for (const auto& computation : module.computations()) {
    std::unordered_set<const Instruction*> live;
    std::vector<const Instruction*> pending;
    auto keep = [&](const Instruction* op) {
      if (op != nullptr && live.insert(op).second) pending.push_back(op);
    };
    keep(computation->root());
    for (const auto& op : computation->instructions()) {
      if (op->opcode() == Opcode::kParameter || OpHasEffect(*op, memo))
        keep(op.get());
    }
    while (!pending.empty()) {
      const Instruction* op = pending.back();
      pending.pop_back();
      for (const Instruction* operand : op->operands()) keep(operand);
    }
    int64_t before = computation->instruction_count();
    computation->RemoveInstructionsIf(
        [&](const Instruction* op) { return live.count(op) == 0; });
    removed += before - computation->instruction_count();
  }
  return removed;
}

}  // namespace xffi::passes
