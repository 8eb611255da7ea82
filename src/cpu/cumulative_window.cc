// Cumulative reduce-window as a running scan. The array is seen as
// [outer, length, inner] around the scanned axis; a "column" is one
// (outer, inner) pair, scanned along the axis. Columns are independent, so
// the typed path splits them across the pool and, when the scanned axis is
// not minor, steps a block of neighbouring columns together so the inner
// loop is a plain vectorisable stream.
#include "cpu/cumulative_window.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cpu/byte_float_reduce.h"
#include "cpu/elementwise_loops.h"
#include "cpu/region_util.h"

namespace xffi::cpu {
namespace {

struct ScanGeometry {
  int64_t outer = 1, length = 1, inner = 1;
  bool reverse = false;
  int64_t columns() const { return outer * inner; }
  // The row of step s along the axis (steps run from the scan's start).
  int64_t Row(int64_t s) const { return reverse ? length - 1 - s : s; }
};

ScanGeometry GeometryOf(const Shape& shape, const CumulativeAxis& scan) {
  ScanGeometry g;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d < scan.axis) g.outer *= shape.dim(d);
    if (d > scan.axis) g.inner *= shape.dim(d);
  }
  g.length = shape.dim(scan.axis);
  g.reverse = scan.reverse;
  return g;
}

// Scans columns [begin, end).
template <typename T, typename Op>
void ScanColumns(const T* in, T init, T* out, const ScanGeometry& g,
                 int64_t begin, int64_t end, const Op& op) {
  const int64_t inner = g.inner;
  for (int64_t c = begin; c < end;) {
    const int64_t o = c / inner;
    const int64_t j0 = c - o * inner;
    const int64_t j1 = std::min(inner, j0 + (end - c));
    const int64_t base = o * g.length * inner;
    c += j1 - j0;
    if (j1 - j0 == 1) {
      T acc = init;
      for (int64_t s = 0; s < g.length; ++s) {
        const int64_t at = base + g.Row(s) * inner + j0;
        acc = op(acc, in[at]);
        out[at] = acc;
      }
      continue;
    }
    for (int64_t s = 0; s < g.length; ++s) {
      const int64_t row = base + g.Row(s) * inner;
      const T* x = in + row;
      T* y = out + row;
      if (s == 0) {
        for (int64_t j = j0; j < j1; ++j) y[j] = op(init, x[j]);
        continue;
      }
      const T* prev = out + base + g.Row(s - 1) * inner;
      // Through a local block, so the compiler needs no alias check.
      int64_t j = j0;
      for (; j + kBlock <= j1; j += kBlock) {
        T block[kBlock];
        for (int k = 0; k < kBlock; ++k) block[k] = op(prev[j + k], x[j + k]);
        for (int k = 0; k < kBlock; ++k) y[j + k] = block[k];
      }
      for (; j < j1; ++j) y[j] = op(prev[j], x[j]);
    }
  }
}

template <typename T, typename Op>
Kernel TypedScan(ScanGeometry g, Op op) {
  return [g, op](const KernelArgs& args) {
    const T* in = static_cast<const T*>(args.operands[0].data);
    const T init = *static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    // Split by elements (so the pool's size threshold applies), giving
    // each chunk the columns that start inside it.
    const int64_t length = std::max<int64_t>(g.length, 1);
    ParallelFor(
        args.pool, g.columns() * length, [&](int64_t begin, int64_t end) {
          ScanColumns<T>(in, init, out, g, (begin + length - 1) / length,
                         (end + length - 1) / length, op);
        });
    return Status::Ok();
  };
}

// Any region, one column at a time on the calling thread (the combiner and
// the region runner are single-threaded).
Status RegionScan(const ScanGeometry& g, const Computation* region,
                  const std::vector<ElementType>& types,
                  const ScalarProgram* program, const KernelArgs& args,
                  const std::string& name) {
  if (program == nullptr && args.regions == nullptr)
    return Internal("op '" + name + "' (reduce-window): no region runner");
  const size_t n = types.size();
  std::vector<size_t> sizes;
  for (ElementType type : types) sizes.push_back(ElementByteSize(type));
  ScalarCombiner combiner(region, types, program);
  std::vector<void*> acc(n);
  std::vector<const void*> values(n);
  for (int64_t c = 0; c < g.columns(); ++c) {
    const int64_t o = c / g.inner, j = c - o * g.inner;
    const int64_t base = o * g.length * g.inner + j;
    for (int64_t s = 0; s < g.length; ++s) {
      const int64_t at = base + g.Row(s) * g.inner;
      const int64_t from = s == 0 ? -1 : base + g.Row(s - 1) * g.inner;
      for (size_t i = 0; i < n; ++i) {
        const int64_t e = static_cast<int64_t>(sizes[i]);
        char* result = static_cast<char*>(args.results[i].data);
        acc[i] = result + at * e;
        values[i] = static_cast<const char*>(args.operands[i].data) + at * e;
        const void* start =
            from < 0 ? args.operands[n + i].data : result + from * e;
        std::memcpy(acc[i], start, sizes[i]);
      }
      if (Status s = combiner.Combine(args.regions, acc.data(), values.data());
          !s.ok())
        return s;
    }
  }
  return Status::Ok();
}

// XLA:CPU's ReduceWindowRewriter turns a scan whose window is exactly the
// axis (size == length) and longer than 16 into a tree: the axis, padded
// with the init value to a multiple of 16, is scanned in blocks of 16; the
// blocks' totals (each block's last element, or first for a reverse scan)
// are scanned the same way (recursively, so two levels past 256); and each
// element becomes region(its block's scan, the totals before its block (after
// it, reverse), or the init value for the first (last) block), through a map
// (which gives NaNs by its own rule: byte_float_reduce.h). A scan it
// does not rewrite runs window by window: forward, the running scan; reverse,
// each window folded from its first element on. Where the region rounds at
// every step (the byte floats: byte_float_reduce.h) the order decides the
// bits, so these scans follow it exactly.
constexpr int64_t kXlaScanBase = 16;

// `depth`: 0 for the scan itself, 1 for the scan of its blocks' totals, ...
void XlaOrderScan(const ByteFloatReduceStep& step, uint8_t init,
                  std::vector<uint8_t>& x, bool reverse, bool tree,
                  std::vector<uint8_t>& y, int depth = 0) {
  const int64_t n = static_cast<int64_t>(x.size());
  y.resize(x.size());
  if (!tree || n <= kXlaScanBase) {
    if (!reverse) {
      uint8_t acc = init;
      for (int64_t i = 0; i < n; ++i) y[i] = acc = step(acc, x[i]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      uint8_t acc = init;
      for (int64_t j = i; j < n; ++j) acc = step(acc, x[j]);
      y[i] = acc;
    }
    return;
  }
  const int64_t blocks = (n + kXlaScanBase - 1) / kXlaScanBase;
  x.resize(static_cast<size_t>(blocks * kXlaScanBase), init);
  std::vector<uint8_t> scanned(x.size()), block, block_scan, totals(blocks);
  for (int64_t b = 0; b < blocks; ++b) {
    block.assign(x.begin() + b * kXlaScanBase,
                 x.begin() + (b + 1) * kXlaScanBase);
    XlaOrderScan(step, init, block, reverse, false, block_scan);
    std::copy(block_scan.begin(), block_scan.end(),
              scanned.begin() + b * kXlaScanBase);
    totals[b] = block_scan[reverse ? 0 : kXlaScanBase - 1];
  }
  std::vector<uint8_t> totals_scan;
  XlaOrderScan(step, init, totals, reverse, true, totals_scan, depth + 1);
  ByteFloatReduceStep map_step = step;
  const bool last_level = blocks <= kXlaScanBase;
  if (depth == 0)
    map_step.nan_rule =
        last_level ? ByteFloatNanRule::kMap : ByteFloatNanRule::kScalar;
  else
    map_step.nan_rule =
        last_level ? ByteFloatNanRule::kNestedMap : ByteFloatNanRule::kTreeTop;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t before = reverse ? b + 1 : b - 1;
    const uint8_t prefix =
        before < 0 || before >= blocks ? init : totals_scan[before];
    for (int64_t p = 0; p < kXlaScanBase; ++p) {
      const int64_t i = b * kXlaScanBase + p;
      if (i < n) y[i] = map_step(scanned[i], prefix);
    }
  }
}

// A byte-float scan (one add, multiply, maximum or minimum) in XLA:CPU's
// order, one column at a time.
Kernel ByteFloatScan(ScanGeometry g, ByteFloatReduceStep step, bool tree) {
  return [g, step, tree](const KernelArgs& args) {
    const uint8_t* in = static_cast<const uint8_t*>(args.operands[0].data);
    const uint8_t init = *static_cast<const uint8_t*>(args.operands[1].data);
    uint8_t* out = static_cast<uint8_t*>(args.results[0].data);
    std::vector<uint8_t> x(static_cast<size_t>(g.length)), y;
    for (int64_t c = 0; c < g.columns(); ++c) {
      const int64_t o = c / g.inner, j = c - o * g.inner;
      const int64_t base = o * g.length * g.inner + j;
      x.resize(static_cast<size_t>(g.length));
      for (int64_t s = 0; s < g.length; ++s) x[s] = in[base + s * g.inner];
      XlaOrderScan(step, init, x, g.reverse, tree, y);
      for (int64_t s = 0; s < g.length; ++s) out[base + s * g.inner] = y[s];
    }
    return Status::Ok();
  };
}

}  // namespace

std::optional<CumulativeAxis> MatchCumulativeWindow(const Instruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  std::optional<CumulativeAxis> found;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const WindowDimension& w = inst.window[static_cast<size_t>(d)];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1)
      return std::nullopt;
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    const int64_t n = in.dim(d);
    const bool spans = n > 1 && w.size >= n;
    const bool forward = w.padding_low == w.size - 1 && w.padding_high == 0;
    const bool reverse = w.padding_low == 0 && w.padding_high == w.size - 1;
    if (!spans || !(forward || reverse) || found) return std::nullopt;
    found = CumulativeAxis{d, !forward};
  }
  return found;
}

std::optional<Kernel> MakeCumulativeWindowKernel(const Instruction& inst) {
  std::optional<CumulativeAxis> scan = MatchCumulativeWindow(inst);
  if (!scan) return std::nullopt;
  const ScanGeometry g = GeometryOf(inst.operand(0)->shape(), *scan);
  const Computation* region = inst.called_computations()[0];
  const size_t n = static_cast<size_t>(inst.operand_count() / 2);
  std::vector<ElementType> types;
  for (size_t i = 0; i < n; ++i)
    types.push_back(
        inst.operand(static_cast<int64_t>(i))->shape().element_type());
  const CombineOp op = MatchCombineRegion(region);
  const bool one_op = op != CombineOp::kNone && op != CombineOp::kSet;
  if (n == 1 && one_op && FastOpSupported(op, types[0])) {
    std::optional<Kernel> kernel;
    DispatchFastType(types[0], [&](auto zero) {
      using T = decltype(zero);
      DispatchCombine<T>(op, [&](auto fn) { kernel = TypedScan<T>(g, fn); });
    });
    if (kernel) return kernel;
  }
  if (n == 1) {
    if (std::optional<ByteFloatReduceStep> step =
            MatchByteFloatReduceStep(region, types[0])) {
      return ByteFloatScan(
          g, *step,
          inst.window[static_cast<size_t>(scan->axis)].size == g.length);
    }
  }
  if (g.reverse && !one_op) return std::nullopt;
  std::optional<ScalarProgram> program = ScalarProgram::Compile(*region);
  return Kernel([g, region, types = std::move(types),
                 program = std::move(program),
                 name = inst.name()](const KernelArgs& args) {
    return RegionScan(g, region, types, program ? &*program : nullptr, args,
                      name);
  });
}

}  // namespace xffi::cpu
