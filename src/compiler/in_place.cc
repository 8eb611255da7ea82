// In-place updates: found per computation from its callees up, kept only
// where every caller can give the memory they need.
#include "compiler/in_place.h"

#include "compiler/buffer_assignment.h"

#include <algorithm>
#include <functional>

namespace xffi::compiler {
namespace {

bool IsView(Opcode opcode) {
  return opcode == Opcode::kTuple || opcode == Opcode::kGetTupleElement ||
         opcode == Opcode::kOptimizationBarrier;
}

// What the callers of a computation can give it, weakest wins.
enum class Callers { kAnyPair, kSameLeafOnly, kNone };

Callers Weaker(Callers a, Callers b) {
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}

}  // namespace

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t count = 0;
  for (const Shape& element : shape.tuple_shapes()) count += LeafCount(element);
  return count;
}

const Instruction* ProducerOfLeaf(const Instruction* value, int64_t leaf,
                                  int64_t* producer_leaf) {
  while (true) {
    switch (value->opcode()) {
      case Opcode::kTuple: {
        int64_t i = 0;
        for (; i < value->operand_count(); ++i) {
          int64_t n = LeafCount(value->operand(i)->shape());
          if (leaf < n) break;
          leaf -= n;
        }
        value = value->operand(i);
        continue;
      }
      case Opcode::kGetTupleElement:
        leaf += TupleElementLeafOffset(value->operand(0)->shape(),
                                       value->tuple_index);
        value = value->operand(0);
        continue;
      case Opcode::kOptimizationBarrier:
        value = value->operand(0);
        continue;
      default:
        *producer_leaf = leaf;
        return value;
    }
  }
}

LastReads::LastReads(const Computation& computation) {
  int64_t p = 0;
  for (const auto& op : computation.instructions()) position_[op.get()] = p++;
  const int64_t end = p;
  auto read = [&](const Instruction* value, int64_t at) {
    const int64_t leaves = LeafCount(value->shape());
    for (int64_t leaf = 0; leaf < leaves; ++leaf) {
      int64_t producer_leaf = 0;
      const Instruction* producer = ProducerOfLeaf(value, leaf, &producer_leaf);
      int64_t& last =
          last_.try_emplace({producer, producer_leaf}, -1).first->second;
      last = std::max(last, at);
    }
  };
  for (const auto& op : computation.instructions()) {
    if (IsView(op->opcode())) continue;
    for (const Instruction* operand : op->operands())
      read(operand, position_.at(op.get()));
  }
  if (computation.root() != nullptr) read(computation.root(), end);
}

int64_t LastReads::Of(const Instruction* producer, int64_t leaf) const {
  auto found = last_.find({producer, leaf});
  return found == last_.end() ? -1 : found->second;
}

int64_t LastReads::ReadsBy(const Instruction& op, const Instruction* producer,
                           int64_t leaf) {
  int64_t reads = 0;
  for (const Instruction* operand : op.operands()) {
    const int64_t leaves = LeafCount(operand->shape());
    for (int64_t l = 0; l < leaves; ++l) {
      int64_t producer_leaf = 0;
      if (ProducerOfLeaf(operand, l, &producer_leaf) == producer &&
          producer_leaf == leaf)
        ++reads;
    }
  }
  return reads;
}

InPlaceAnalysis::InPlaceAnalysis(const Module& module) {
  std::vector<const Computation*> run_by_handlers;
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions())
      if (op->opcode() == Opcode::kCustomCall)
        run_by_handlers.insert(run_by_handlers.end(),
                               op->called_computations().begin(),
                               op->called_computations().end());
  while (!run_by_handlers.empty()) {
    const Computation* next = run_by_handlers.back();
    run_by_handlers.pop_back();
    if (next == nullptr || !run_by_custom_calls_.insert(next).second) continue;
    for (const auto& op : next->instructions())
      run_by_handlers.insert(run_by_handlers.end(),
                             op->called_computations().begin(),
                             op->called_computations().end());
  }

  std::unordered_map<const Computation*, Callers> callers;
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions()) {
      const auto& called = op->called_computations();
      for (size_t i = 0; i < called.size(); ++i) {
        Callers kind = Callers::kNone;
        if (op->opcode() == Opcode::kCall) kind = Callers::kAnyPair;
        if (op->opcode() == Opcode::kWhile && i == 1)
          kind = Callers::kSameLeafOnly;
        auto [it, fresh] = callers.try_emplace(called[i], kind);
        if (!fresh) it->second = Weaker(it->second, kind);
      }
    }

  // Callees first: a call's in-place pairs are part of its caller's.
  std::unordered_map<const Computation*, bool> done;
  std::function<void(const Computation*)> analyse =
      [&](const Computation* computation) {
        if (done[computation]) return;
        done[computation] = true;
        for (const auto& op : computation->instructions())
          for (const Computation* callee : op->called_computations())
            if (callee != nullptr) analyse(callee);
        auto found = callers.find(computation);
        if (found == callers.end() || found->second == Callers::kNone ||
            computation == module.entry() || computation->root() == nullptr)
          return;
        const bool same_leaf_only = found->second == Callers::kSameLeafOnly;

        std::unordered_map<const Instruction*, int64_t> parameter_base;
        int64_t base = 0;
        for (const Instruction* parameter : computation->parameters()) {
          parameter_base[parameter] = base;
          base += LeafCount(parameter->shape());
        }
        const LastReads reads(*computation);
        const Instruction* root = computation->root();
        std::vector<InPlaceUpdate>& updates = updates_[computation];
        const int64_t outputs = LeafCount(root->shape());
        for (int64_t k = 0; k < outputs; ++k) {
          int64_t made_leaf = 0;
          const Instruction* made = ProducerOfLeaf(root, k, &made_leaf);
          // The operand leaf `made` writes its result over.
          const Instruction* operand = nullptr;
          int64_t operand_leaf = 0;
          if (made->opcode() == Opcode::kDynamicUpdateSlice) {
            operand = made->operand(0);
          } else if (made->opcode() == Opcode::kCall) {
            for (const InPlaceUpdate& inner :
                 Of(made->called_computations()[0])) {
              if (inner.output_leaf != made_leaf) continue;
              int64_t leaf = inner.parameter_leaf;
              for (const Instruction* argument : made->operands()) {
                const int64_t n = LeafCount(argument->shape());
                if (leaf < n) {
                  operand = argument;
                  operand_leaf = leaf;
                  break;
                }
                leaf -= n;
              }
            }
          }
          if (operand == nullptr) continue;
          int64_t source_leaf = 0;
          const Instruction* source =
              ProducerOfLeaf(operand, operand_leaf, &source_leaf);
          if (source->opcode() != Opcode::kParameter) continue;
          // `made` must be the last reader of the parameter leaf, and read
          // it once: then nothing sees the leaf after it is overwritten.
          if (reads.Of(source, source_leaf) != reads.position(made) ||
              LastReads::ReadsBy(*made, source, source_leaf) != 1)
            continue;
          const int64_t p = parameter_base.at(source) + source_leaf;
          if (same_leaf_only && p != k) continue;
          bool taken = false;
          for (const InPlaceUpdate& u : updates)
            taken = taken || u.parameter_leaf == p;
          if (!taken) updates.push_back({k, p});
        }
      };
  for (const auto& computation : module.computations())
    analyse(computation.get());
}

const std::vector<InPlaceUpdate>& InPlaceAnalysis::Of(
    const Computation* computation) const {
  static const std::vector<InPlaceUpdate> kNone;
  auto found = updates_.find(computation);
  return found == updates_.end() ? kNone : found->second;
}

bool InPlaceAnalysis::Writes(const Computation* computation,
                             int64_t parameter_leaf) const {
  for (const InPlaceUpdate& update : Of(computation))
    if (update.parameter_leaf == parameter_leaf) return true;
  return false;
}

}  // namespace xffi::compiler
