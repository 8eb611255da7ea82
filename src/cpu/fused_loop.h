// xffi: the CPU evaluator of loop fusions, without generated code.
//
// A kLoop fusion's output is computed tile by tile over its linear index
// space: each tile (a few thousand elements) runs the fused ops' ordinary
// vectorised elementwise kernels on tile-sized scratch buffers that stay in
// the cache, so the intermediates never go through memory at full size. The
// tiles are split across the intra-op pool.
//
// Within a tile, a fused value is:
//   - streamed: a parameter, constant or reshape in the output's index
//     space is read in place at the tile's offset;
//   - computed: an elementwise op (compare, select, clamp, convert,
//     bitcast-convert included) runs its kernel on the tile; scalar
//     operands of select and clamp are read as scalars;
//   - gathered: a chain of broadcast, transpose, slice and reverse over one
//     array is one affine index map, read for the tile's elements without
//     materialising the chain (a broadcast scalar is a fill).
// Anything else (iota, pad, concatenate, dynamic-slice, or what a gather
// chain starts from when that is not a parameter or constant) is computed
// whole by its own kernel before the tiles run, then streamed or gathered.
#ifndef XFFI_SRC_CPU_FUSED_LOOP_H_
#define XFFI_SRC_CPU_FUSED_LOOP_H_

#include "cpu/kernel.h"

namespace xffi::cpu {

// A kernel for `fusion`, a kLoop fusion of a verified module. NOT_FOUND when
// it is not one this evaluator runs (a tuple result, an op without a
// kernel): the executor then runs the
// fused computation as a call.
StatusOr<Kernel> MakeFusedLoopKernel(const Instruction& fusion);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_FUSED_LOOP_H_
