// xffi: reduce-window ops that are cumulative scans, evaluated in O(n).
//
// jnp.cumsum, cumprod, cummax, cummin and cumlogsumexp lower on CPU to a
// reduce-window whose window spans one whole axis (size >= its length,
// stride 1, no dilation) padded low by size - 1 (or high, for
// reverse=True), and is 1 on every other axis. Evaluated window by window
// that is O(n^2) per row; as a running scan it is O(n).
#ifndef XFFI_SRC_CPU_CUMULATIVE_WINDOW_H_
#define XFFI_SRC_CPU_CUMULATIVE_WINDOW_H_

#include <cstdint>
#include <optional>

#include "cpu/kernel.h"

namespace xffi::cpu {

// The axis a reduce-window scans along, and in which direction.
struct CumulativeAxis {
  int64_t axis = 0;
  bool reverse = false;
};

// The scan `inst` (a reduce-window already checked to be well formed) is,
// or nullopt when its window is anything else.
std::optional<CumulativeAxis> MatchCumulativeWindow(const Instruction& inst);

// A kernel computing the scan, or nullopt when it cannot be computed as a
// running scan with the same result up to the reducer's rounding:
//  - forward: result[i] = region(result[i-1], x[i]), starting from the init
//    value, which is exactly the order the window visits, so any region of
//    any type (variadic too) gives the same bits as window-by-window;
//  - reverse: the running scan goes from the end, which reorders the
//    combination, so only regions that are one commutative, associative op
//    (add, multiply, max, min, and, or) are taken; float add and multiply
//    then round in a different order than window-by-window would.
std::optional<Kernel> MakeCumulativeWindowKernel(const Instruction& inst);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_CUMULATIVE_WINDOW_H_
