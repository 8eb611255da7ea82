// xffi: the CPU evaluator of reduction (kInput) fusions, without generated
// code.
//
// The reduces' inputs (and the loop values the fusion also returns) are
// computed tile by tile with the loop evaluator's machinery (fused_loop.h)
// and folded into typed accumulators as the tiles come, so the producers'
// values never go through memory at full size. Each result element folds
// its inputs in exactly the order the unfused reduce kernel does (reduce.cc:
// eight lanes along a reduced row, in order down a column, fixed pieces with
// partial results for a reduction to one element), so a fused program
// computes the same bytes as an unfused one, on any number of threads:
//   - rows (a kept dimension outside the reduced ones): ranges of whole
//     rows, split across the pool;
//   - columns (only reduced dimensions outside the innermost kept one):
//     blocks of columns, each walked down every row; up to one block's
//     columns, the rows back to back in tiles of whole rows, and below
//     256 columns (batch norm's channels) in fixed pieces of rows, one
//     partial result per column each, combined in order (f32/f64 sums of
//     several pieces differ from the unfused kernel's in the last bits,
//     never between thread counts; the generated kernels,
//     codegen/reduce_emitter.h, cut them the same way, for the same
//     bytes);
//   - to one element: fixed pieces, one partial result each, combined in
//     order.
// Reduces of one input with a reducer of one add, multiply, maximum,
// minimum, and or or, and argmax/argmin reduces of a value and an index
// (arg_reduce.h), on the element types the unfused typed kernels cover,
// with init values that are parameters or constants. Anything else (another
// variadic reduce, f16; with XFFI_FUSED_REDUCE_FEW_COLUMNS=0, a column
// reduction of fewer than 256 columns) is NOT_FOUND: the executor then
// runs the fused computation as a call.
#ifndef XFFI_SRC_CPU_FUSED_REDUCE_H_
#define XFFI_SRC_CPU_FUSED_REDUCE_H_

#include "cpu/kernel.h"

namespace xffi::cpu {

StatusOr<Kernel> MakeFusedReduceKernel(const Instruction& fusion);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_FUSED_REDUCE_H_
