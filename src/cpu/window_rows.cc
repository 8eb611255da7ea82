#include "cpu/window_rows.h"

#include <algorithm>

namespace xffi::cpu {
namespace {

bool Trivial(const WindowDimension& w) {
  return w.size == 1 && w.stride == 1 && w.padding_low == 0 &&
         w.padding_high == 0 && w.window_dilation == 1 &&
         w.base_dilation == 1 && !w.window_reversal;
}

// Floor of a / b for b > 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

}  // namespace

std::vector<int64_t> WindowIndexTable(int64_t windowed, int64_t input,
                                      const WindowDimension& w) {
  std::vector<int64_t> table(static_cast<size_t>(windowed * w.size), -1);
  for (int64_t o = 0; o < windowed; ++o)
    for (int64_t k = 0; k < w.size; ++k) {
      const int64_t pos = o * w.stride - w.padding_low + k * w.window_dilation;
      if (pos < 0 || pos % w.base_dilation != 0) continue;
      const int64_t i = pos / w.base_dilation;
      if (i < input) table[static_cast<size_t>(o * w.size + k)] = i;
    }
  return table;
}

int64_t WindowRows::DisjointBlocks() const {
  int64_t blocks = 1;
  for (size_t d = 0; d < outer_dims.size(); ++d) {
    // Input indices grow with the position and with k, so windows never
    // overlap when each position's smallest index is past every index of
    // the positions before it. Reading the tables covers padding and both
    // dilations alike.
    const std::vector<int64_t>& table = outer_tables[d];
    const int64_t size = outer_sizes[d];
    int64_t seen = -1;
    bool overlap = false;
    for (int64_t p = 0; p < outer_dims[d] && !overlap; ++p) {
      const int64_t previous = seen;
      for (int64_t k = 0; k < size; ++k) {
        const int64_t i = table[static_cast<size_t>(p * size + k)];
        if (i < 0) continue;
        overlap = overlap || i <= previous;
        seen = std::max(seen, i);
      }
    }
    if (overlap) break;
    blocks *= outer_dims[d];
  }
  return blocks;
}

std::optional<WindowRows> MakeWindowRows(
    std::span<const int64_t> input_dims, std::span<const int64_t> windowed_dims,
    std::span<const WindowDimension> window) {
  const size_t rank = input_dims.size();
  if (windowed_dims.size() != rank || window.size() != rank)
    return std::nullopt;
  WindowRows g;
  // The run: trailing trivial dimensions collapsed, else the last one.
  size_t first_run = rank;
  while (first_run > 0 && Trivial(window[first_run - 1]) &&
         input_dims[first_run - 1] == windowed_dims[first_run - 1])
    --first_run;
  if (first_run == rank && rank > 0) {
    const WindowDimension& w = window[rank - 1];
    if (w.base_dilation != 1 || w.window_reversal || w.size < 0 ||
        w.stride <= 0 || w.window_dilation <= 0)
      return std::nullopt;
    first_run = rank - 1;
    g.window = w.size;
    g.stride = w.stride;
    g.dilation = w.window_dilation;
    g.pad_low = w.padding_low;
  }
  if (first_run > kMaxWindowRowsRank) return std::nullopt;
  g.run = 1;
  g.run_input = 1;
  for (size_t d = first_run; d < rank; ++d) {
    g.run *= windowed_dims[d];
    g.run_input *= input_dims[d];
  }
  for (int64_t k = 0; k < g.window; ++k) {
    // 0 <= j * stride + k * dilation - pad_low < run_input, 0 <= j < run.
    const int64_t shift = k * g.dilation - g.pad_low;
    const int64_t lo =
        std::max<int64_t>(0, FloorDiv(-shift + g.stride - 1, g.stride));
    const int64_t hi = std::min<int64_t>(
        g.run, FloorDiv(g.run_input - 1 - shift, g.stride) + 1);
    g.begin.push_back(lo);
    g.end.push_back(std::max(lo, hi));
  }
  // Input strides of the outer dimensions (row-major input).
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * input_dims[d];
  g.rows = 1;
  for (size_t d = 0; d < first_run; ++d) {
    const WindowDimension& w = window[d];
    if (w.size < 0 || w.stride <= 0 || w.window_dilation <= 0 ||
        w.base_dilation <= 0 || w.window_reversal)
      return std::nullopt;
    const int64_t out = windowed_dims[d];
    g.outer_dims.push_back(out);
    g.outer_sizes.push_back(w.size);
    g.outer_strides.push_back(strides[d]);
    g.outer_tables.push_back(WindowIndexTable(out, input_dims[d], w));
    g.rows *= out;
  }
  return g;
}

}  // namespace xffi::cpu
