// The pass "inline": callees first (post order from the entry), so a callee
// is free of calls by the time its ops are copied into a caller.
#include "passes/call_inlining.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xffi::passes {
namespace {

void PostOrder(Computation* computation,
               std::unordered_set<const Computation*>& seen,
               std::vector<Computation*>& order) {
  if (!seen.insert(computation).second) return;
  for (const auto& op : computation->instructions())
    for (Computation* called : op->called_computations())
      if (called != nullptr) PostOrder(called, seen, order);
  order.push_back(computation);
}

// Keeps an inlined op's own name (what errors and dumps show) unless some
// other op of the module has it already.
class UniqueNames {
 public:
  // The names in computations only calls reach are free: those go away
  // with the calls, and their first copy may have them (unless
  // `callees_stay`).
  explicit UniqueNames(const Module& module, bool callees_stay = false) {
    if (callees_stay) {
      for (const auto& computation : module.computations())
        for (const auto& op : computation->instructions())
          used_.insert(op->name());
      return;
    }
    std::unordered_set<const Computation*> not_only_called;
    for (const auto& computation : module.computations())
      for (const auto& op : computation->instructions())
        if (op->opcode() != Opcode::kCall)
          for (const Computation* called : op->called_computations())
            not_only_called.insert(called);
    not_only_called.insert(module.entry());
    for (const auto& computation : module.computations())
      if (not_only_called.count(computation.get()) > 0)
        for (const auto& op : computation->instructions())
          used_.insert(op->name());
  }
  std::string Take(const std::string& name) {
    if (used_.insert(name).second) return name;
    for (;;) {
      std::string candidate = name + ".inlined" + std::to_string(next_++);
      if (used_.insert(candidate).second) return candidate;
    }
  }

 private:
  std::unordered_set<std::string> used_;
  int64_t next_ = 0;
};

// Copies the callee's ops in front of `call`, its parameters standing for
// the call's operands; returns what stands for the callee's root.
Instruction* InlineCall(Instruction* call, UniqueNames& names) {
  const Computation& callee = *call->called_computations()[0];
  Computation& caller = *call->parent();
  std::unordered_map<const Instruction*, Instruction*> value;
  for (const auto& owned : callee.instructions()) {
    const Instruction* op = owned.get();
    if (op->opcode() == Opcode::kParameter) {
      value[op] = call->operand(op->parameter_number);
      continue;
    }
    auto copy = std::make_unique<Instruction>(*op);
    for (int64_t i = 0; i < copy->operand_count(); ++i)
      copy->ReplaceOperand(i, value.at(copy->operand(i)));
    copy->set_name(names.Take(op->name()));
    value[op] = caller.InsertInstructionBefore(std::move(copy), call);
  }
  return value.at(callee.root());
}

bool InlineCallsIn(
    Computation& computation, UniqueNames& names,
    const std::function<bool(const Instruction*)>& select = nullptr) {
  std::vector<Instruction*> calls;
  for (const auto& op : computation.instructions())
    if (op->opcode() == Opcode::kCall &&
        op->called_computations().size() == 1 && !op->sharding.has_value() &&
        (select == nullptr || select(op.get())))
      calls.push_back(op.get());
  if (calls.empty()) return false;
  std::unordered_map<const Instruction*, Instruction*> replaced;
  for (Instruction* call : calls) replaced[call] = InlineCall(call, names);
  // A call's operand may be an earlier call's result: follow the chain.
  auto resolve = [&](Instruction* value) {
    for (auto found = replaced.find(value); found != replaced.end();
         found = replaced.find(value))
      value = found->second;
    return value;
  };
  for (const auto& op : computation.instructions())
    for (int64_t i = 0; i < op->operand_count(); ++i)
      op->ReplaceOperand(i, resolve(op->operand(i)));
  computation.set_root(resolve(computation.root()));
  computation.RemoveInstructionsIf(
      [&](Instruction* op) { return replaced.count(op) > 0; });
  return true;
}

}  // namespace

bool RemoveUnreachableComputations(Module& module) {
  if (module.entry() == nullptr) return false;
  std::unordered_set<const Computation*> reached;
  std::vector<Computation*> order;
  PostOrder(module.entry(), reached, order);
  if (reached.size() == module.computations().size()) return false;
  Computation* entry = module.entry();
  std::vector<std::unique_ptr<Computation>> all = module.ReleaseComputations();
  for (auto& computation : all)
    if (reached.count(computation.get()) > 0)
      module.AddComputation(std::move(computation));
  module.set_entry(entry);
  return true;
}

bool InlineCalls(Module& module, Computation& computation,
                 const std::function<bool(const Instruction*)>& select) {
  UniqueNames names(module, /*callees_stay=*/true);
  bool changed = false;
  while (InlineCallsIn(computation, names, select)) changed = true;
  return changed;
}

bool InlineEntryCalls(Module& module,
                      const std::function<bool(const Instruction*)>& select) {
  if (module.entry() == nullptr) return false;
  return InlineCalls(module, *module.entry(), select);
}

StatusOr<bool> CallInlining::Run(Module& module) {
  if (module.entry() == nullptr) return false;
  std::unordered_set<const Computation*> seen;
  std::vector<Computation*> order;
  PostOrder(module.entry(), seen, order);
  UniqueNames names(module);
  bool changed = false;
  for (Computation* computation : order)
    changed |= InlineCallsIn(*computation, names);
  if (changed) RemoveUnreachableComputations(module);
  return changed;
}

}  // namespace xffi::passes
