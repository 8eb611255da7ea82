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
