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
//     in order down each column.
// Every result element is computed by one call, in an order fixed by the
// shapes, so results do not depend on how the executor splits items over
// threads.
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

#include <string>

#include "cpu/codegen/emitter.h"

namespace xffi::cpu::codegen {

// Adds `void name(void* const* buffers, int64_t begin, int64_t end)` for
// the kInput fusion `fusion`, or a reduce outside fusions (one whose
// reduction fusion found no producer to take in): buffers are its
// operands, then its results (the tuple's elements in order). Items as
// above.
StatusOr<EmittedKernel> EmitReduceKernel(const Instruction& fusion,
                                         const std::string& name,
                                         llvm::Module& module,
                                         int prefer_vector_width);

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_REDUCE_EMITTER_H_
