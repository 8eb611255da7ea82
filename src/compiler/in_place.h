// xffi: which computations update a parameter's array in place.
//
// A fori_loop that writes one row per step returns, as its new state, a
// dynamic-update-slice of its old state (often inside a `call` JAX makes
// of the loop body). Run as written, every step copies the whole array.
// When the old state is read by nothing after that update, the update can
// write into the old state's memory, the step costs O(row), and the loop's
// next state is the very buffer of its current one.
//
// An InPlaceUpdate (output leaf k, parameter leaf p) of a computation says:
// running it with root leaf k's memory being parameter leaf p's memory is
// correct, because root leaf k is made by one dynamic-update-slice (or a
// call that updates in place) of parameter leaf p, and that op is the last
// reader of p. Every caller of the computation must then pass such memory:
// a while loop (only pairs with k == p: the state keeps one buffer per
// leaf) and a call (which copies the operand first when it is still read)
// can; any other caller (the entry's own caller, a conditional, a region of
// reduce, sort, scatter, map...) cannot, and the computation then has none.
#ifndef XFFI_SRC_COMPILER_IN_PLACE_H_
#define XFFI_SRC_COMPILER_IN_PLACE_H_

#include <cstdint>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::compiler {

struct InPlaceUpdate {
  int64_t output_leaf = 0;
  int64_t parameter_leaf = 0;
};

// Per value leaf of one computation, the schedule position (instruction
// order) of the last op that reads it through any view (tuple,
// get-tuple-element, optimization barrier); the root's leaves are read at
// the end (the instruction count). Views are resolved to the op that makes
// the array.
class LastReads {
 public:
  explicit LastReads(const Computation& computation);
  // -1 when nothing reads it.
  int64_t Of(const Instruction* producer, int64_t leaf) const;
  // How many operand leaves of `op` resolve to (producer, leaf).
  static int64_t ReadsBy(const Instruction& op, const Instruction* producer,
                         int64_t leaf);
  int64_t position(const Instruction* op) const { return position_.at(op); }

 private:
  std::unordered_map<const Instruction*, int64_t> position_;
  std::map<std::pair<const Instruction*, int64_t>, int64_t> last_;
};

class InPlaceAnalysis {
 public:
  explicit InPlaceAnalysis(const Module& module);

  // The in-place updates `computation` makes (empty for computations not in
  // the module).
  const std::vector<InPlaceUpdate>& Of(const Computation* computation) const;
  // Whether some update of `computation` writes parameter leaf `leaf`.
  bool Writes(const Computation* computation, int64_t parameter_leaf) const;
  // Whether a custom call's handler may run `computation` (it is called by
  // a custom call, or by a computation that is): foreign code decides when
  // and how often, so buffer assignment computes nothing in place there.
  bool RunByCustomCalls(const Computation* computation) const {
    return run_by_custom_calls_.count(computation) > 0;
  }

 private:
  std::unordered_map<const Computation*, std::vector<InPlaceUpdate>> updates_;
  std::unordered_set<const Computation*> run_by_custom_calls_;
};

// Follows views from leaf `leaf` of `value` to the op that makes that
// array; sets *producer_leaf to the leaf of that op's value.
const Instruction* ProducerOfLeaf(const Instruction* value, int64_t leaf,
                                  int64_t* producer_leaf);

// Leaves of a shape (a token or array counts one).
int64_t LeafCount(const Shape& shape);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_IN_PLACE_H_
