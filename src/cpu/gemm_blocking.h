// xffi: how a batch of matrix products is cut into GEMM library calls.
//
// dot_general's f32/f64 products run as single-threaded library GEMMs
// (oneDNN, OpenBLAS), one per task of (batch member, block of result rows,
// block of result columns), the tasks shared out on the intra-op pool. Each
// call packs the parts of both operands it reads: a block of rows re-reads
// the whole of b, a block of columns the whole of a. With [128-row] blocks
// a [512, 1024] x [1024, 2048] product read its 8 MB b four times and took
// 7-9% more CPU time than one call (measured with oneDNN on the project's
// Zen 4, bench/README.md "GEMM blocks"), which was most of what mlp_gelu
// lost to XLA. The blocks chosen here make the tasks the work needs and,
// among the cuts that give as many, read the operands the fewest times.
//
// The blocks depend on the shapes alone, never on the pool: a library
// call's sums can depend on the block it is given (oneDNN's do for 64 and
// 128 rows), so only fixed blocks give every result element the same bits
// on any number of threads.
#ifndef XFFI_SRC_CPU_GEMM_BLOCKING_H_
#define XFFI_SRC_CPU_GEMM_BLOCKING_H_

#include <cstdint>

namespace xffi::cpu {

struct GemmBlocks {
  int64_t rows = 0, cols = 0;  // of the result, per task (edge blocks less)
  int64_t row_blocks = 0, col_blocks = 0;  // per batch member
};

// Blocks for `batch` products c[m, n] = a[m, k] * b[k, n] (a size below
// one is taken as one).
// Tasks: at least four when the work allows tasks of about 2^20
// multiply-adds, and one per 2^29 multiply-adds beyond that (the batch
// members count); rows in multiples of 16, columns of 64, unless whole.
// Among the cuts that reach that many tasks (or the most that the block
// minimums allow), the one that re-reads least: row_blocks * k * n +
// col_blocks * m * k elements, ties to the wider columns.
GemmBlocks ChooseGemmBlocks(int64_t batch, int64_t m, int64_t k, int64_t n);

// The blocks before ChooseGemmBlocks: 128 rows, and 128 columns when the
// rows give fewer than four tasks. Kept for A/B runs.
GemmBlocks RowGemmBlocks(int64_t batch, int64_t m, int64_t n);

// False when the environment says XFFI_GEMM_BLOCKS=rows (read once, at
// the first product): dot_general's f32/f64 products then take
// RowGemmBlocks, its 8-bit ones 64-row blocks (dot.cc) and convolution's
// im2col GEMM 64-row blocks merged per pool chunk (convolution.cc), as
// before.
bool ChosenGemmBlocksEnabled();

// Overrides the environment's choice, for products run after the call
// (tests run both cuts).
void SetChosenGemmBlocksEnabled(bool enabled);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_GEMM_BLOCKING_H_
