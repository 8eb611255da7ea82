// xffi: what the fusion passes (loop_fusion, reduction_fusion) share: where
// they may rewrite, which producers are cheap enough to copy, when fusing a
// producer would recompute it, and how a group of ops becomes a fused
// computation.
#ifndef XFFI_SRC_PASSES_FUSION_RULES_H_
#define XFFI_SRC_PASSES_FUSION_RULES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::passes::fusion_rules {

// Computations a fusion pass may rewrite: the entry and what only call,
// while, conditional and manual-computation reach. Regions of other ops (a
// reducer, a comparator, a custom call's computations) and everything they
// call stay as written.
std::unordered_set<const Computation*> FusibleComputations(
    const Module& module);

// Calls `fuse(computation, computation_names)` for each computation
// FusibleComputations gives (computation_names: every computation's name,
// for naming the fused ones); returns the sum of what the calls return.
int64_t FuseEachComputation(
    Module& module,
    const std::function<int64_t(Computation&,
                                std::unordered_set<std::string>&)>& fuse);

// FuseEachComputation with a pass's per-computation fuser: Fuser(module,
// computation, computation_names).Run() returns the fusions it made.
template <typename Fuser>
int64_t FuseEachComputationWith(Module& module) {
  return FuseEachComputation(
      module, [&](Computation& computation,
                  std::unordered_set<std::string>& computation_names) {
        return Fuser(module, computation, computation_names).Run();
      });
}

// What a fusion pass looks up about a computation: each op's position in
// program order, its users (each once, in program order), and the values
// a custom call aliases (its output takes the value's buffer).
struct ComputationIndex {
  std::unordered_map<const Instruction*, size_t> position;
  std::unordered_map<const Instruction*, std::vector<Instruction*>> users;
  std::unordered_set<const Instruction*> aliased;
};
ComputationIndex IndexComputation(const Computation& computation);

// Small constants, iota and broadcast: copied into each fusion that reads
// them rather than read from memory.
bool IsCheapGenerator(const Instruction& op);

// Elementwise and index-mapping ops whose value costs about as little to
// compute again as to read back from memory: integer and bitwise
// arithmetic, add/subtract/multiply, compare/select, converts, data
// movement; not division, transcendental functions or complex values (close
// to XLA's InstructionFusion::IsExpensive, negated).
bool CheapToRecompute(const Instruction& op);

// Whether `user` reads an element of its operand `index` for more than one
// of its own elements (so a fused producer there would be recomputed).
bool Expands(const Instruction& user, int64_t index);

// `name`, or `name.N` for the first N that `taken` lacks; adds it to `taken`.
std::string UniqueName(const std::string& base,
                       std::unordered_set<std::string>& taken);

// The values a group with these members reads from outside, in the order its
// members (in program order, `position`) first read them; values
// `copied_in` accepts are followed through, as they are copied in.
std::vector<Instruction*> OutsideOperands(
    const std::unordered_set<const Instruction*>& members,
    const std::unordered_map<const Instruction*, size_t>& position,
    const std::function<bool(const Instruction&)>& copied_in);

// A new computation of `module` named after `base`: a parameter per value of
// `outside` (in order), then `members` and the generators they copy in,
// cloned; its root is `outputs[0]`'s clone, or a tuple of the clones.
Computation* BuildFusedComputation(
    Module& module, const std::string& base,
    std::unordered_set<std::string>& computation_names,
    const std::unordered_set<const Instruction*>& members,
    const std::vector<Instruction*>& outside,
    const std::vector<Instruction*>& outputs);

}  // namespace xffi::passes::fusion_rules

#endif  // XFFI_SRC_PASSES_FUSION_RULES_H_
