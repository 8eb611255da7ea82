// xffi: sort rows in parallel, as passes of a bottom-up merge sort over
// every row at once (SortKernel of device_kernels.h sorts a whole row per
// thread, which leaves a GPU idle on few long rows).
//
// Pass p merges the sorted runs of 2^p elements in pairs, from one buffer
// into the other. Each thread writes `chunk` consecutive outputs of one
// merge: it finds where its first output comes from by a binary search
// along the merge path (how many of the first d outputs the left run gives),
// then merges sequentially. Equal keys take the left run's first, so the
// sort is stable, as XLA's is when is_stable (and harmlessly when not).
#ifndef XFFI_SRC_DEVICE_BACKEND_SORT_KERNEL_H_
#define XFFI_SRC_DEVICE_BACKEND_SORT_KERNEL_H_

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

// Outputs one thread of a merge pass writes (fewer in the first passes,
// where a whole merge is shorter): its merge-path search (log2 of the run
// length compares) stays a small part of its work, and a row of 2048 still
// spreads over 16 threads a pass.
inline constexpr int64_t kSortMergeChunk = 128;

struct SortMergePassKernel {
  static constexpr const char* kName = "xffi.device.sort_merge_pass";
  // The comparator, operands and geometry; its `out` and `scratch` are the
  // two buffers the passes alternate between.
  SortKernel sort;
  bool from_scratch = false;
  int64_t width = 1;   // the sorted runs merged in pairs
  int64_t chunk = 1;   // outputs per thread; divides 2 * width
  int64_t chunks = 1;  // threads per row
  int64_t n = 0;       // rows * chunks

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    const int64_t length = sort.length, inner = sort.inner;
    const int64_t row = i / chunks;
    const int64_t first = (i % chunks) * chunk;
    if (first >= length) return;
    const int64_t base = (row / inner) * length * inner + row % inner;
    uint8_t* const* src = from_scratch ? sort.scratch : sort.out;
    uint8_t* const* dst = from_scratch ? sort.out : sort.scratch;
    const int64_t low = first / (2 * width) * (2 * width);
    const int64_t mid = low + width < length ? low + width : length;
    const int64_t high = mid + width < length ? mid + width : length;
    const int64_t last = first + chunk < high ? first + chunk : high;
    // How many of the merge's first d outputs come from the left run.
    const int64_t d = first - low;
    int64_t lo = d - (high - mid) > 0 ? d - (high - mid) : 0;
    int64_t hi = d < mid - low ? d : mid - low;
    Value left[kMaxSortOperands], right[kMaxSortOperands];
    while (lo < hi) {
      const int64_t m = lo + (hi - lo) / 2;
      Load(src, base + (low + m) * inner, left);
      Load(src, base + (mid + d - 1 - m) * inner, right);
      // left[m] precedes right[d-1-m] unless strictly greater.
      if (sort.Less(right, left))
        hi = m;
      else
        lo = m + 1;
    }
    int64_t a = low + lo, b = mid + d - lo;
    // Each side's head stays loaded until it is taken.
    if (a < mid) Load(src, base + a * inner, left);
    if (b < high) Load(src, base + b * inner, right);
    for (int64_t t = first; t < last; ++t) {
      const bool take_right = a >= mid || (b < high && sort.Less(right, left));
      if (take_right) {
        sort.Move(src, base + b * inner, dst, base + t * inner);
        if (++b < high) Load(src, base + b * inner, right);
      } else {
        sort.Move(src, base + a * inner, dst, base + t * inner);
        if (++a < mid) Load(src, base + a * inner, left);
      }
    }
  }

  XFFI_HOST_DEVICE void Load(uint8_t* const* buffers, int64_t at,
                             Value* values) const {
    for (int32_t k = 0; k < sort.operands; ++k)
      values[k] = device_backend::Load(buffers[k], at, sort.types[k]);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    sort.VisitDevicePointers(visit);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_SORT_KERNEL_H_
