// reduce: results start as the init values; every input element is combined
// into the result element its kept dimensions name, visiting the input in
// row-major order. The fast path does this with a typed op and a tight inner
// loop; the general path calls the region once per input element.
#include <optional>
#include <string>
#include <vector>

#include "cpu/index_util.h"
#include "cpu/region_util.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

// The input's loop nest: a steps through the input, b through the result
// element each input element feeds (stride 0 along reduced dimensions).
DualLoops MakeLoops(const std::vector<int64_t>& in_dims,
                    const std::vector<bool>& reduced) {
  std::vector<int64_t> kept_dims;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) kept_dims.push_back(in_dims[i]);
  std::vector<int64_t> kept_strides = RowMajorStrides(kept_dims);
  std::vector<int64_t> out_strides(in_dims.size(), 0);
  size_t k = 0;
  for (size_t i = 0; i < in_dims.size(); ++i)
    if (!reduced[i]) out_strides[i] = kept_strides[k++];
  return MakeDualLoops(in_dims, RowMajorStrides(in_dims), out_strides);
}

template <typename T, typename Op>
Kernel FastReduce(DualLoops loops, int64_t out_count, Op op) {
  return [loops = std::move(loops), out_count, op](const KernelArgs& args) {
    const T* in = static_cast<const T*>(args.operands[0].data);
    const T init = *static_cast<const T*>(args.operands[1].data);
    T* out = static_cast<T*>(args.results[0].data);
    for (int64_t i = 0; i < out_count; ++i) out[i] = init;
    const int64_t in_inner = loops.a_strides.back();
    const bool inner_reduced = loops.b_strides.back() == 0;
    ForEachRun(loops, [&](int64_t in_off, int64_t out_off, int64_t n) {
      const T* src = in + in_off;
      T* dst = out + out_off;
      if (inner_reduced) {
        if (in_inner == 1 && n >= 16) {
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
    });
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

  DualLoops loops = MakeLoops(in0.dims(), reduced);
  const int64_t out_count = Product(kept_dims);

  CombineOp op = MatchCombineRegion(region);
  if (n == 1 && op != CombineOp::kSet && FastOpSupported(op, types[0])) {
    std::optional<Kernel> kernel;
    DispatchFastType(types[0], [&](auto zero) {
      using T = decltype(zero);
      DispatchCombine<T>(
          op, [&](auto fn) { kernel = FastReduce<T>(loops, out_count, fn); });
    });
    if (kernel) return std::move(*kernel);
  }

  // General path: any region, any number of inputs, any types.
  std::vector<size_t> sizes;
  for (ElementType t : types) sizes.push_back(ElementByteSize(t));
  const std::string name = inst.name();
  const std::optional<ScalarProgram> program = ScalarProgram::Compile(*region);
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
    ScalarCombiner combiner(region, types, program ? &*program : nullptr);
    std::vector<void*> acc(n);
    std::vector<const void*> values(n);
    const int64_t in_inner = loops.a_strides.back();
    const int64_t out_inner = loops.b_strides.back();
    Status status;
    ForEachRun(loops, [&](int64_t in_off, int64_t out_off, int64_t count) {
      for (int64_t j = 0; j < count && status.ok(); ++j) {
        for (size_t i = 0; i < n; ++i) {
          const int64_t e = static_cast<int64_t>(sizes[i]);
          acc[i] = out[i] + (out_off + j * out_inner) * e;
          values[i] = in[i] + (in_off + j * in_inner) * e;
        }
        status = combiner.Combine(args.regions, acc.data(), values.data());
      }
    });
    return status;
  });
}

}  // namespace xffi::cpu
