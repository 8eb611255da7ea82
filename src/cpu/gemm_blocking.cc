#include "cpu/gemm_blocking.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace xffi::cpu {
namespace {

// Four tasks keep two threads even when one is delayed; past that, a task
// of 2^29 multiply-adds (about 4 ms in oneDNN on one core) is long enough
// that more threads should share the product. Below 2^20 (some
// microseconds) a task costs more to hand out than it saves.
constexpr int64_t kFewTasks = 4;
constexpr double kTaskMultiplyAdds = 536870912.0;   // 2^29
constexpr double kMinTaskMultiplyAdds = 1048576.0;  // 2^20
// Rows in multiples of 16 and columns of 64 (whole cache lines of f32 and
// of f64 result rows) keep the library's register blocks full.
constexpr int64_t kRowAlign = 16, kColAlign = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// -1: not decided yet (the environment decides at the first product).
std::atomic<int> chosen_blocks{-1};

// The block of `size` into about `parts` pieces, a multiple of `align`
// unless it is the whole.
int64_t BlockOf(int64_t size, int64_t parts, int64_t align) {
  const int64_t block = CeilDiv(CeilDiv(size, parts), align) * align;
  return std::min(block, size);
}

}  // namespace

GemmBlocks ChooseGemmBlocks(int64_t batch, int64_t m, int64_t k, int64_t n) {
  // Empty sizes as one: the blocks then cover the (empty) result and no
  // count divides by zero.
  batch = std::max<int64_t>(batch, 1);
  m = std::max<int64_t>(m, 1);
  k = std::max<int64_t>(k, 1);
  n = std::max<int64_t>(n, 1);
  const double work = static_cast<double>(batch) * static_cast<double>(m) *
                      static_cast<double>(k) * static_cast<double>(n);
  double target =
      std::max<double>(kFewTasks, std::ceil(work / kTaskMultiplyAdds));
  target =
      std::min(target, std::max(1.0, std::floor(work / kMinTaskMultiplyAdds)));
  // Tasks wanted from each batch member (the members are tasks already).
  const int64_t per = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(target / static_cast<double>(batch))));
  GemmBlocks best{m, n, 1, 1};
  if (per == 1) return best;
  double best_cost = 0;
  int64_t best_tasks = 0;
  bool best_enough = false;
  for (int64_t r = 1; r <= per; ++r) {
    const int64_t rows = BlockOf(m, r, kRowAlign);
    const int64_t row_blocks = CeilDiv(m, rows);
    if (row_blocks < r) break;  // the rows cannot be cut finer
    for (int64_t c = 1; c <= per; ++c) {
      const int64_t cols = BlockOf(n, c, kColAlign);
      const int64_t col_blocks = CeilDiv(n, cols);
      if (col_blocks < c) break;
      const int64_t tasks = row_blocks * col_blocks;
      const bool enough = tasks >= per;
      // Elements the calls read: each row block all of b, each column
      // block all of a.
      const double cost =
          static_cast<double>(row_blocks) * static_cast<double>(k * n) +
          static_cast<double>(col_blocks) * static_cast<double>(m * k);
      bool better;
      if (enough != best_enough)
        better = enough;
      else if (!enough)  // neither reaches `per`: the most tasks
        better =
            tasks > best_tasks || (tasks == best_tasks && cost < best_cost);
      else
        better =
            best_tasks == 0 || cost < best_cost ||
            (cost == best_cost &&
             (cols > best.cols || (cols == best.cols && tasks < best_tasks)));
      if (best_tasks == 0 || better) {
        best = {rows, cols, row_blocks, col_blocks};
        best_cost = cost;
        best_tasks = tasks;
        best_enough = enough;
      }
      if (enough) break;  // more columns only add reads
    }
  }
  return best;
}

GemmBlocks RowGemmBlocks(int64_t batch, int64_t m, int64_t n) {
  constexpr int64_t kRows = 128, kCols = 128;
  GemmBlocks blocks;
  blocks.rows = std::min(m, kRows);
  blocks.row_blocks = CeilDiv(m, kRows);
  blocks.col_blocks =
      batch * blocks.row_blocks < kFewTasks ? CeilDiv(n, kCols) : 1;
  blocks.cols = CeilDiv(n, blocks.col_blocks);
  return blocks;
}

bool ChosenGemmBlocksEnabled() {
  int enabled = chosen_blocks.load(std::memory_order_relaxed);
  if (enabled < 0) {
    const char* text = std::getenv("XFFI_GEMM_BLOCKS");
    const int decided =
        text != nullptr && std::strcmp(text, "rows") == 0 ? 0 : 1;
    chosen_blocks.compare_exchange_strong(enabled, decided);
    enabled = chosen_blocks.load();
  }
  return enabled == 1;
}

void SetChosenGemmBlocksEnabled(bool enabled) {
  chosen_blocks.store(enabled ? 1 : 0);
}

}  // namespace xffi::cpu
