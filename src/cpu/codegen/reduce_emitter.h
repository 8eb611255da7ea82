// xffi: LLVM IR for a reduction (kInput) fusion.
//
// The fusion's reduces (one, or siblings under a tuple root) and the loop
// values it also returns are computed in one pass over the reduces' input
// index space, each input element computed once by the elemental emitter
// (emitter.h) and folded into its reduces as it comes. The reduced
// dimensions must be one contiguous group; the input's index space is then
// [outer kept][reduced][inner kept]:
//   - no inner kept dimension (softmax, norms, cross-entropy): an item is an
//     output row; its reduced elements fold in one scalar loop that LLVM
//     vectorises with several independent accumulators (float add and
//     multiply may reassociate, as XLA's do, except in reductions small
//     enough that XLA folds them in order: passes/reduction_tree.h),
//     results written after it;
//   - otherwise (column reductions): an item is an output element; a block
//     of up to 1024 of them accumulates in the result, reduced rows walked
//     in order down each column;
//   - but a fusion's column reduction of fewer than 256 columns and no kept
//     dimension outside them (batch norm's channels), whose few columns
//     are too few to split across threads: an item is a reduced row. The
//     rows are cut into the evaluator's fixed pieces (cpu/fused_reduce.h:
//     64Ki elements of whole rows), each piece folding its rows in order
//     into a partial result per column while it writes the loop values
//     the fusion returns, one loop across the columns that LLVM vectorises
//     (marked parallel: each column its own partial); then the pieces'
//     partials are combined in piece order (program_kernels.h's
//     GeneratedPieces). Pieces only where every init value is its
//     reducer's identity, as in the evaluator; else one piece of every row
//     folds into the results. Each fold is the evaluator's scalar op (XLA's
//     maximum/minimum formula of cpu/float_max_min.h for floats), so both
//     give the same bytes (but for a NaN's sign, which LLVM may drop when
//     it folds a negate into a sum's subtraction), on any number of
//     threads.
//     XFFI_CODEGEN_FEW_COLUMNS=0 declines them (the evaluator runs them),
//     for A/B measurements.
// Every result element is computed by one call (a few-column one by the
// same pieces and combine), in an order fixed by the shapes, so results do
// not depend on how the executor splits items over threads.
//
// Reducers: one add, multiply, maximum, minimum, and or or of the two
// parameters (cpu/region_util.h's MatchCombineRegion), on pred, integers,
// f32 and f64. Float maximum/minimum keep XLA's rules (a NaN wins, -0
// orders below +0): without a NaN the fold is an integer max/min over the
// floats' total-order keys, which every order gives alike; with one the
// result is NaN: the first one, with XLA's sign rule (cpu/float_max_min.h),
// in reductions small enough that XLA folds them in order
// (passes/reduction_tree.h), else the quiet NaN. argmax/argmin
// (cpu/arg_reduce.h's region, on integers, f32 or f64 with s32/s64 indices)
// step a (value, index) pair per result by the region's own compares and
// selects, in input order as the evaluator does, so ties, NaNs and the sign of
// a zero come out alike; the pair's results are two buffers. Anything else
// (other variadic reduces, f16/bf16 reduces, reduced dimensions that are not
// contiguous, an op the elemental emitter declines) is NOT_FOUND, and the
// fusion stays on the evaluator (cpu/fused_reduce.h).
#ifndef XFFI_SRC_CPU_CODEGEN_REDUCE_EMITTER_H_
#define XFFI_SRC_CPU_CODEGEN_REDUCE_EMITTER_H_

#include <optional>
#include <string>

#include "cpu/codegen/emitter.h"
#include "cpu/codegen/program_kernels.h"

namespace xffi::cpu::codegen {

// A few-column kernel's layout and its two other functions' names.
struct EmittedPieces {
  GeneratedPieces layout;  // function pointers null
  std::string combine_name;
  std::string split_name;
};

// Adds `void name(void* const* buffers, int64_t begin, int64_t end)` for
// the kInput fusion `fusion`, or a reduce outside fusions (one whose
// reduction fusion found no producer to take in): buffers are its
// operands, then its results (the tuple's elements in order). Items as
// above. A fusion's column reduction of few columns also adds the two
// functions `pieces` names, and its kernel runs as GeneratedPieces says.
StatusOr<EmittedKernel> EmitReduceKernel(const Instruction& fusion,
                                         const std::string& name,
                                         llvm::Module& module,
                                         int prefer_vector_width,
                                         std::optional<EmittedPieces>* pieces);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_REDUCE_EMITTER_H_
