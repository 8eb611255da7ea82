// reduce-window: for every result element, combine the input elements its
// window covers into the init value. Per dimension, a table built at compile
// time maps (result index, window position) to the input index, or -1 where
// the window sits on padding or between base-dilated elements (skipped, as
// XLA's CPU backend does). Cumulative windows (jnp.cumsum and kin) run as
// scans instead (cumulative_window.h), and one-op regions (pooling: max,
// add, min, ...) of the common types fold whole rows at a time
// (window_rows.h) across the pool.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cpu/cumulative_window.h"
#include "cpu/elementwise_loops.h"
#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"
#include "cpu/window_rows.h"

namespace xffi::cpu {
namespace {

struct WindowPlan {
  size_t n = 1;
  std::vector<ElementType> types;
  std::vector<size_t> sizes;
  std::vector<int64_t> out_dims, window_sizes, in_strides;
  std::vector<std::vector<int64_t>> tables;  // [out index * window + w]
  int64_t out_count = 0;
  const Computation* region = nullptr;
  std::optional<ScalarProgram> program;  // the region, when it compiles
};

// Calls visit(input element offset) for each input element in the window of
// the result element at `index`.
template <typename Visit>
void VisitWindow(const WindowPlan& plan, const std::vector<int64_t>& index,
                 size_t d, int64_t offset, Visit& visit) {
  const int64_t w = plan.window_sizes[d];
  const int64_t* table = plan.tables[d].data() + index[d] * w;
  const int64_t stride = plan.in_strides[d];
  if (d + 1 == plan.window_sizes.size()) {
    for (int64_t k = 0; k < w; ++k)
      if (table[k] >= 0) visit(offset + table[k] * stride);
    return;
  }
  for (int64_t k = 0; k < w; ++k)
    if (table[k] >= 0)
      VisitWindow(plan, index, d + 1, offset + table[k] * stride, visit);
}

template <typename Body>
void ForEachOutput(const WindowPlan& plan, Body&& body) {
  if (plan.out_count == 0) return;
  std::vector<int64_t> index(plan.out_dims.size(), 0);
  int64_t i = 0;
  do {
    body(index, i++);
  } while (NextIndex(index, plan.out_dims));
}

template <typename T, typename Op>
Kernel FastWindow(WindowPlan plan, Op op) {
  return [plan = std::move(plan), op](const KernelArgs& args) {
    const T* in = static_cast<const T*>(args.operands[0].data);
    const T init = *static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    if (plan.out_dims.empty()) {  // rank 0: the window is the element
      out[0] = op(init, in[0]);
      return Status::Ok();
    }
    ForEachOutput(plan, [&](const std::vector<int64_t>& index, int64_t i) {
      T acc = init;
      auto visit = [&](int64_t off) { acc = op(acc, in[off]); };
      VisitWindow(plan, index, 0, 0, visit);
      out[i] = acc;
    });
    return Status::Ok();
  };
}

// Folds window element k into the row's results y[begin, end): the input
// row x is read with the run's stride (1 over NHWC channels). Fixed blocks
// through a local buffer, so GCC vectorises at -O2 (elementwise_loops.h).
template <typename T, typename Op>
void FoldRun(const WindowRows& g, const T* x, T* y, int64_t k, const Op& op) {
  const int64_t begin = g.begin[static_cast<size_t>(k)];
  const int64_t end = g.end[static_cast<size_t>(k)];
  const int64_t n = end - begin;
  if (n <= 0) return;
  const T* from = x + g.At(0, begin, k);
  T* to = y + begin;
  const int64_t stride = g.stride;
  int64_t j = 0;
  if (stride == 1) {
    for (; j + kBlock <= n; j += kBlock) {
      T block[kBlock];
      for (int i = 0; i < kBlock; ++i) block[i] = op(to[j + i], from[j + i]);
      for (int i = 0; i < kBlock; ++i) to[j + i] = block[i];
    }
  } else {
    for (; j + kBlock <= n; j += kBlock) {
      T block[kBlock];
      for (int i = 0; i < kBlock; ++i)
        block[i] = op(to[j + i], from[(j + i) * stride]);
      for (int i = 0; i < kBlock; ++i) to[j + i] = block[i];
    }
  }
  for (; j < n; ++j) to[j] = op(to[j], from[j * stride]);
}

// One op over whole rows: every result row starts at the init value and
// folds in each input row of its window, element k by element k -- the
// element-by-element order, so the same bits as the general path. Rows are
// independent, so they split across the pool.
template <typename T, typename Op>
Kernel RowWindow(WindowRows g, Op op) {
  return [g = std::move(g), op](const KernelArgs& args) {
    const T* in = static_cast<const T*>(args.operands[0].data);
    const T init = *static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    const int64_t window = g.WindowElements();
    const double row_nanos =
        20 + 0.5 * static_cast<double>(g.run * std::max<int64_t>(window, 1));
    ParallelFor(args.pool, g.rows, row_nanos, [&](int64_t first, int64_t last) {
      int64_t index[kMaxWindowRowsRank];
      for (int64_t row = first; row < last; ++row) {
        T* y = out + row * g.run;
        std::fill(y, y + g.run, init);
        ForEachInputRow(g, row, index, [&](int64_t offset) {
          for (int64_t k = 0; k < g.window; ++k)
            FoldRun(g, in + offset, y, k, op);
        });
      }
    });
    return Status::Ok();
  };
}

Status RunRegionWindow(const WindowPlan& plan, const KernelArgs& args,
                       const std::string& name) {
  if (!plan.program && args.regions == nullptr)
    return Internal("op '" + name + "' (reduce-window): no region runner");
  const size_t n = plan.n;
  ScalarCombiner combiner(plan.region, plan.types,
                          plan.program ? &*plan.program : nullptr);
  std::vector<void*> acc(n);
  std::vector<const void*> values(n);
  Status status;
  auto combine_at = [&](int64_t out_index, int64_t in_offset) {
    if (!status.ok()) return;
    for (size_t i = 0; i < n; ++i) {
      const int64_t e = static_cast<int64_t>(plan.sizes[i]);
      acc[i] = static_cast<char*>(args.results[i].data) + out_index * e;
      values[i] =
          static_cast<const char*>(args.operands[i].data) + in_offset * e;
    }
    status = combiner.Combine(args.regions, acc.data(), values.data());
  };
  auto init = [&](int64_t out_index) {
    for (size_t i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(args.results[i].data) +
                      out_index * static_cast<int64_t>(plan.sizes[i]),
                  args.operands[n + i].data, plan.sizes[i]);
  };
  if (plan.out_dims.empty()) {
    init(0);
    combine_at(0, 0);
    return status;
  }
  ForEachOutput(plan, [&](const std::vector<int64_t>& index, int64_t i) {
    init(i);
    auto visit = [&](int64_t off) { combine_at(i, off); };
    VisitWindow(plan, index, 0, 0, visit);
  });
  return status;
}

}  // namespace

StatusOr<Kernel> MakeReduceWindowKernel(const Instruction& inst) {
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("op " + inst.Describe() + ": " + what);
  };
  if (inst.operand_count() == 0 || inst.operand_count() % 2 != 0)
    return fail("expects inputs and as many init values");
  if (inst.called_computations().size() != 1) return fail("expects one region");
  WindowPlan plan;
  plan.n = static_cast<size_t>(inst.operand_count() / 2);
  plan.region = inst.called_computations()[0];
  const Shape& in0 = inst.operand(0)->shape();
  if (!in0.IsArray()) return fail("operand 0 is not an array");
  std::vector<const Shape*> results;
  if (inst.shape().IsTuple())
    for (const Shape& s : inst.shape().tuple_shapes()) results.push_back(&s);
  else
    results.push_back(&inst.shape());
  if (results.size() != plan.n) return fail("result count differs from inputs");
  if (!results[0]->IsArray() || results[0]->rank() != in0.rank())
    return fail("result rank differs from the input's");
  for (size_t i = 0; i < plan.n; ++i) {
    const Shape& in = inst.operand(static_cast<int64_t>(i))->shape();
    const Shape& init = inst.operand(static_cast<int64_t>(plan.n + i))->shape();
    if (!in.IsArray() || in.dims() != in0.dims() || !init.IsArray() ||
        init.rank() != 0 || init.element_type() != in.element_type() ||
        !results[i]->IsArray() || results[i]->dims() != results[0]->dims() ||
        results[i]->element_type() != in.element_type())
      return fail("input, init value or result " + std::to_string(i) +
                  " does not match");
    plan.types.push_back(in.element_type());
    plan.sizes.push_back(ElementByteSize(in.element_type()));
  }
  std::vector<ElementType> params = plan.types;
  params.insert(params.end(), plan.types.begin(), plan.types.end());
  if (Status s = CheckScalarRegion(inst, plan.region, params, plan.types);
      !s.ok())
    return s;
  if (static_cast<int64_t>(inst.window.size()) != in0.rank())
    return fail("window has " + std::to_string(inst.window.size()) +
                " dimensions for an input of rank " +
                std::to_string(in0.rank()));

  plan.out_dims = results[0]->dims();
  plan.out_count = Product(plan.out_dims);
  plan.in_strides = RowMajorStrides(in0.dims());
  for (int64_t d = 0; d < in0.rank(); ++d) {
    const WindowDimension& w = inst.window[static_cast<size_t>(d)];
    if (w.size < 0 || w.stride <= 0 || w.window_dilation <= 0 ||
        w.base_dilation <= 0)
      return fail("bad window in dimension " + std::to_string(d));
    plan.window_sizes.push_back(w.size);
    plan.tables.push_back(
        WindowIndexTable(plan.out_dims[static_cast<size_t>(d)], in0.dim(d), w));
  }

  if (std::optional<Kernel> scan = MakeCumulativeWindowKernel(inst))
    return std::move(*scan);

  const CombineOp op = MatchCombineRegion(plan.region);
  if (plan.n == 1 && op != CombineOp::kSet &&
      FastOpSupported(op, plan.types[0])) {
    std::optional<WindowRows> rows =
        MakeWindowRows(in0.dims(), plan.out_dims, inst.window);
    std::optional<Kernel> kernel;
    DispatchFastType(plan.types[0], [&](auto zero) {
      using T = decltype(zero);
      DispatchCombine<T>(op, [&](auto fn) {
        kernel =
            rows ? RowWindow<T>(std::move(*rows), fn) : FastWindow<T>(plan, fn);
      });
    });
    if (kernel) return std::move(*kernel);
  }
  plan.program = ScalarProgram::Compile(*plan.region);
  return Kernel(
      [plan = std::move(plan), name = inst.name()](const KernelArgs& args) {
        return RunRegionWindow(plan, args, name);
      });
}

}  // namespace xffi::cpu
