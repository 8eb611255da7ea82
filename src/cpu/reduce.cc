// reduce: results start as the init values; every input element is combined
// into the result element its kept dimensions name, visiting the input in
// row-major order. The fast path does this with a typed op and a tight inner
// loop; the general path calls the region once per input element.
#include <algorithm>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/arg_reduce.h"
#include "cpu/index_util.h"
#include "cpu/reduce_loops.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"
#include "passes/reduction_tree.h"

namespace xffi::cpu {
namespace {

// Folds the runs of `loops` (offsets relative to in/out) into out;
// `in_order`: element by element, as XLA:CPU folds a small float reduction
// (passes/reduction_tree.h), never in vector lanes.
template <typename T, typename Op>
void ReduceRuns(const DualLoops& loops, const T* in, T* out, Op op,
                int64_t in_off, int64_t out_off, int64_t n, bool in_order) {
  const int64_t in_inner = loops.a_strides.back();
  const bool inner_reduced = loops.b_strides.back() == 0;
  const T* src = in + in_off;
  T* dst = out + out_off;
  if (inner_reduced) {
    if (in_inner == 1 && n >= 16 && !in_order) {
      // Independent partial results let the compiler vectorise.
      T part[8];
      for (int j = 0; j < 8; ++j) part[j] = src[j];
      int64_t i = 8;
      for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) part[j] = op(part[j], src[i + j]);
      T acc = *dst;
      for (int j = 0; j < 8; ++j) acc = op(acc, part[j]);
      for (; i < n; ++i) acc = op(acc, src[i]);
      *dst = acc;
    } else {
      T acc = *dst;
      for (int64_t i = 0; i < n; ++i) acc = op(acc, src[i * in_inner]);
      *dst = acc;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = op(dst[i], src[i * in_inner]);
  }
}

// About what one element costs (nanoseconds) in the fast path, and in the
// general path with a compiled region.
constexpr double kFastElementNanos = 0.25;
constexpr double kRegionElementNanos = 20;

template <typename T, typename Op>
Kernel FastReduce(DualLoops loops, int64_t out_count, CombineOp combine,
                  Op op) {
  return [loops = std::move(loops), out_count, combine,
          op](const KernelArgs& args) {
    const T* in = static_cast<const T*>(args.operands[0].data);
    const T init = *static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    for (int64_t i = 0; i < out_count; ++i) out[i] = init;
    const bool in_order =
        std::is_floating_point_v<T> &&
        Product(loops.dims) < passes::kXlaOrderedReduceElements;
    auto runs = [&](int64_t in_off, int64_t out_off, int64_t n) {
      ReduceRuns(loops, in, out, op, in_off, out_off, n, in_order);
    };
    if (KeptSplitDim(loops) >= 0 || out_count != 1) {
      ForEachRunParallel(loops, args.pool, kFastElementNanos, runs);
      return Status::Ok();
    }
    // One result: partial results over fixed pieces of the outermost loop
    // dimension, combined in order, when the init value may start each.
    const int64_t extent = loops.dims[0];
    const int64_t per_item = Product(loops.dims) / std::max<int64_t>(extent, 1);
    const int64_t chunk =
        std::max<int64_t>(1, kPartialElements / std::max<int64_t>(per_item, 1));
    const int64_t chunks = extent == 0 ? 0 : (extent + chunk - 1) / chunk;
    if (chunks < 2 || !IsIdentity(combine, init)) {
      ForEachRun(loops, runs);
      return Status::Ok();
    }
    std::vector<T> partial(static_cast<size_t>(chunks), init);
    auto piece = [&](int64_t begin, int64_t end) {
      T* slot = &partial[static_cast<size_t>(begin / chunk)];
      ForEachRunIn(loops, 0, begin, end,
                   [&](int64_t in_off, int64_t, int64_t n) {
                     ReduceRuns(loops, in, slot, op, in_off, 0, n, in_order);
                   });
    };
    if (args.pool != nullptr)
      args.pool->ParallelFor(extent, chunk, piece);
    else
      for (int64_t begin = 0; begin < extent; begin += chunk)
        piece(begin, std::min(extent, begin + chunk));
    T acc = partial[0];
    for (int64_t c = 1; c < chunks; ++c)
      acc = op(acc, partial[static_cast<size_t>(c)]);
    out[0] = acc;
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeReduceKernel(const Instruction& inst) {
  auto fail = [&](const std::string& what) -> Status {
    return InvalidArgument("op " + inst.Describe() + ": " + what);
  };
  if (inst.operand_count() == 0 || inst.operand_count() % 2 != 0)
    return fail("expects inputs and as many init values");
  const size_t n = static_cast<size_t>(inst.operand_count() / 2);
  if (inst.called_computations().size() != 1) return fail("expects one region");
  const Computation* region = inst.called_computations()[0];
  const Shape& in0 = inst.operand(0)->shape();
  if (!in0.IsArray()) return fail("operand 0 is not an array");
  std::vector<ElementType> types;
  for (size_t i = 0; i < n; ++i) {
    const Shape& in = inst.operand(static_cast<int64_t>(i))->shape();
    const Shape& init = inst.operand(static_cast<int64_t>(n + i))->shape();
    if (!in.IsArray() || in.dims() != in0.dims())
      return fail("input " + std::to_string(i) +
                  " is not an array of the shape of input 0");
    if (!init.IsArray() || init.rank() != 0 ||
        init.element_type() != in.element_type())
      return fail("init value " + std::to_string(i) +
                  " is not a scalar of the input's type");
    types.push_back(in.element_type());
  }
  std::vector<bool> reduced(static_cast<size_t>(in0.rank()), false);
  for (int64_t d : inst.dimensions) {
    if (d < 0 || d >= in0.rank() || reduced[static_cast<size_t>(d)])
      return fail("bad reduce dimension " + std::to_string(d));
    reduced[static_cast<size_t>(d)] = true;
  }
  std::vector<int64_t> kept_dims;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (!reduced[i]) kept_dims.push_back(in0.dims()[i]);
  std::vector<const Shape*> results;
  if (inst.shape().IsTuple())
    for (const Shape& s : inst.shape().tuple_shapes()) results.push_back(&s);
  else
    results.push_back(&inst.shape());
  if (results.size() != n) return fail("result count differs from inputs");
  for (size_t i = 0; i < n; ++i)
    if (!results[i]->IsArray() || results[i]->dims() != kept_dims ||
        results[i]->element_type() != types[i])
      return fail("result " + std::to_string(i) + " has shape " +
                  results[i]->ToString());
  std::vector<ElementType> params = types;
  params.insert(params.end(), types.begin(), types.end());
  if (Status s = CheckScalarRegion(inst, region, params, types); !s.ok())
    return s;

  DualLoops loops = MakeReduceLoops(in0.dims(), reduced);
  const int64_t out_count = Product(kept_dims);

  CombineOp op = MatchCombineRegion(region);
  if (n == 1 && op != CombineOp::kSet && FastOpSupported(op, types[0])) {
    std::optional<Kernel> kernel;
    DispatchFastType(types[0], [&](auto zero) {
      using T = decltype(zero);
      DispatchCombine<T>(op, [&](auto fn) {
        kernel = FastReduce<T>(loops, out_count, op, fn);
      });
    });
    if (kernel) return std::move(*kernel);
  }

  if (n == 2) {
    if (std::optional<ArgReduceRegion> pattern = MatchArgReduceRegion(region))
      if (std::optional<Kernel> kernel = MakeArgReduceKernel(
              *pattern, types[0], types[1], loops, out_count))
        return std::move(*kernel);
  }

  // General path: any region, any number of inputs, any types.
  std::vector<size_t> sizes;
  for (ElementType t : types) sizes.push_back(ElementByteSize(t));
  const std::string name = inst.name();
  const std::optional<ScalarProgram> program = ScalarProgram::Compile(*region);
  // A reduce of a reduce-window's results is how XLA:CPU ends a long
  // reduction (passes/reduction_tree.h); folding at most 4 of them, it gives
  // NaNs by its own rule (byte_float_reduce.h).
  const ByteFloatNanRule nan_rule =
      inst.operand(0)->opcode() == Opcode::kReduceWindow &&
              Product(in0.dims()) <= 4 * out_count
          ? ByteFloatNanRule::kTreeTop
          : ByteFloatNanRule::kScalar;
  return Kernel([=](const KernelArgs& args) -> Status {
    if (!program && args.regions == nullptr)
      return Internal("op '" + name + "' (reduce): no region runner");
    std::vector<char*> out(n);
    std::vector<const char*> in(n);
    for (size_t i = 0; i < n; ++i) {
      out[i] = static_cast<char*>(args.results[i].data);
      in[i] = static_cast<const char*>(args.operands[i].data);
      FillElements(out[i], out_count, args.operands[n + i].data, sizes[i]);
    }
    const int64_t in_inner = loops.a_strides.back();
    const int64_t out_inner = loops.b_strides.back();
    // Folds the inputs of results where loop dimension `dim` is in
    // [begin, end) (dim < 0: all of them).
    auto fold = [&](int dim, int64_t begin, int64_t end) -> Status {
      ScalarCombiner combiner(region, types, program ? &*program : nullptr,
                              nan_rule, /*reduction=*/true);
      std::vector<void*> acc(n);
      std::vector<const void*> values(n);
      Status status;
      auto runs = [&](int64_t in_off, int64_t out_off, int64_t count) {
        for (int64_t j = 0; j < count && status.ok(); ++j) {
          for (size_t i = 0; i < n; ++i) {
            const int64_t e = static_cast<int64_t>(sizes[i]);
            acc[i] = out[i] + (out_off + j * out_inner) * e;
            values[i] = in[i] + (in_off + j * in_inner) * e;
          }
          status = combiner.Combine(args.regions, acc.data(), values.data());
        }
      };
      if (dim < 0)
        ForEachRun(loops, runs);
      else
        ForEachRunIn(loops, dim, begin, end, runs);
      return status;
    };
    const int dim = KeptSplitDim(loops);
    // Only a compiled region may run on several threads: the region runner
    // runs one computation at a time.
    if (!program || dim < 0 || args.pool == nullptr) return fold(-1, 0, 0);
    const int64_t extent = loops.dims[static_cast<size_t>(dim)];
    const double per_item =
        kRegionElementNanos * static_cast<double>(Product(loops.dims) / extent);
    std::mutex mutex;
    Status status;
    ParallelFor(args.pool, extent, per_item, [&](int64_t begin, int64_t end) {
      Status part = fold(dim, begin, end);
      if (part.ok()) return;
      std::lock_guard<std::mutex> lock(mutex);
      if (status.ok()) status = part;
    });
    return status;
  });
}

}  // namespace xffi::cpu
