// xffi: the geometry pooling kernels (reduce-window, select-and-scatter)
// share, seen as rows.
//
// The windowed array (reduce-window's result, select-and-scatter's source)
// is a grid of rows: its last dimension -- or, when the trailing dimensions
// have trivial windows (size 1, stride 1, no padding or dilation), all of
// those collapsed into one -- is the "run" a kernel loops over in its
// innermost, vectorisable loop; the other ("outer") dimensions index rows.
// For one row, every window position over the outer dimensions gives one
// input row, and within it window element k of run element j sits at
// j * stride + k * dilation - pad_low. Visiting input rows in row-major
// order and k innermost is exactly the order a window is visited element by
// element, so a kernel folding run-wide keeps the general path's
// combination order (and so its rounding) bit for bit.
//
// Max-pooling over NHWC (window 1 on C) makes C the run: each window element
// is a contiguous stream. Over NCHW the run is W, read with the stride.
#ifndef XFFI_SRC_CPU_WINDOW_ROWS_H_
#define XFFI_SRC_CPU_WINDOW_ROWS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::cpu {

// The most outer dimensions a WindowRows has (MakeWindowRows refuses more).
inline constexpr size_t kMaxWindowRowsRank = 16;

struct WindowRows {
  // Outer dimensions, in order: the windowed array's extent, the window
  // size, the input's stride in elements and [position * size + k] -> input
  // index along the dimension, or -1 on padding / between dilated elements.
  std::vector<int64_t> outer_dims, outer_sizes, outer_strides;
  std::vector<std::vector<int64_t>> outer_tables;
  int64_t rows = 0;  // product of outer_dims

  // The run: its length in the windowed array and in the input.
  int64_t run = 0, run_input = 0;
  int64_t window = 1, stride = 1, dilation = 1, pad_low = 0;
  // Per window element k, the run elements [begin[k], end[k]) whose input
  // element lies inside the input row (empty when none does).
  std::vector<int64_t> begin, end;

  // Elements per window (padding included).
  int64_t WindowElements() const {
    int64_t n = window;
    for (int64_t size : outer_sizes) n *= size;
    return n;
  }

  // Input element offset of run element j, window element k, within the
  // input row at `row_offset` (valid only for j in [begin[k], end[k])).
  int64_t At(int64_t row_offset, int64_t j, int64_t k) const {
    return row_offset + j * stride + k * dilation - pad_low;
  }
  // How many leading blocks of rows never share an input element: the
  // product of the leading outer dimensions whose windows do not overlap
  // (stride >= extent of the dilated window). Rows of different blocks
  // touch different input elements, so blocks can run in parallel even
  // when they scatter into the input.
  int64_t DisjointBlocks() const;
};

// Along one dimension of `input` elements windowed into `windowed`
// positions: [position * w.size + k] -> the input index window element k
// reads, or -1 on padding or between base-dilated elements (w valid:
// size >= 0, stride and dilations > 0).
std::vector<int64_t> WindowIndexTable(int64_t windowed, int64_t input,
                                      const WindowDimension& w);

// The rows of a window over `input_dims` producing `windowed_dims`, or
// nullopt when the run dimension has base dilation (the general path
// handles that) or a dimension is inconsistent with the window.
std::optional<WindowRows> MakeWindowRows(
    std::span<const int64_t> input_dims, std::span<const int64_t> windowed_dims,
    std::span<const WindowDimension> window);

// Calls visit(input offset of the row start) for each window position over
// the outer dimensions of row `row` that lies inside the input, in
// row-major order. `index` is scratch of outer_dims.size() elements.
template <typename Visit>
void ForEachInputRow(const WindowRows& g, int64_t row, int64_t* index,
                     Visit&& visit) {
  const size_t rank = g.outer_dims.size();
  for (size_t d = rank; d-- > 0;) {
    index[d] = row % g.outer_dims[d];
    row /= g.outer_dims[d];
  }
  // An odometer over the window positions of every outer dimension.
  int64_t k[kMaxWindowRowsRank] = {};
  int64_t offset_at[kMaxWindowRowsRank + 1];
  size_t d = 0;
  offset_at[0] = 0;
  if (rank == 0) {
    visit(int64_t{0});
    return;
  }
  for (;;) {
    if (k[d] == g.outer_sizes[d]) {
      if (d == 0) return;
      k[d] = 0;
      ++k[--d];
      continue;
    }
    const int64_t i =
        g.outer_tables[d]
                      [static_cast<size_t>(index[d] * g.outer_sizes[d] + k[d])];
    if (i < 0) {
      ++k[d];
      continue;
    }
    offset_at[d + 1] = offset_at[d] + i * g.outer_strides[d];
    if (d + 1 == rank) {
      visit(offset_at[rank]);
      ++k[d];
    } else {
      ++d;
    }
  }
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_WINDOW_ROWS_H_
