#include "cpu/dnnl_convolution.h"

#include "cpu/dnnl_gemm.h"
#include "cpu/parallel.h"

#ifdef XFFI_HAVE_DNNL
#include <atomic>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>
#endif

namespace xffi::cpu {

#ifdef XFFI_HAVE_DNNL
namespace {

const dnnl::engine& CpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// A primitive and the scratch memory it asks for (the scratchpad is ours:
// oneDNN's own is shared between primitives, unsafe when several threads
// execute at once).
struct Step {
  dnnl::primitive primitive;
  dnnl::memory::desc scratch;
};

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

std::optional<Step> Reorder(const dnnl::memory::desc& from,
                            const dnnl::memory::desc& to) {
  if (from == to) return std::nullopt;
  dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to,
                                   UserScratchpad());
  return Step{dnnl::reorder(pd), pd.scratchpad_desc()};
}

// 64-byte aligned scratch of one thread, grown as needed (one batch
// element's blocked operands and scratchpads).
float* ThreadScratch(size_t slot, size_t bytes) {
  constexpr size_t kAlign = 64;
  thread_local std::vector<char> buffers[4];
  std::vector<char>& buffer = buffers[slot];
  if (buffer.size() < bytes + kAlign) buffer.resize(bytes + kAlign);
  const uintptr_t at = reinterpret_cast<uintptr_t>(buffer.data());
  return reinterpret_cast<float*>((at + kAlign - 1) / kAlign * kAlign);
}

}  // namespace

struct DnnlConvolution::Impl {
  // One batch element of src and dst in the caller's layout.
  dnnl::memory::desc src_user, weights_user, dst_user;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  std::optional<Step> src_in, weights_in, dst_out;
  int64_t batch = 0, src_batch_stride = 0, dst_batch_stride = 0;
  double item_nanos = 0;

  // Runs `step` from `from` to `to` on `stream`, its scratchpad in slot 3.
  static void Execute(const Step& step, dnnl::stream& stream,
                      const dnnl::memory& from, const dnnl::memory& to) {
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_FROM, from},
                                                  {DNNL_ARG_TO, to}};
    if (step.scratch.get_size() > 0)
      args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(
          step.scratch, CpuEngine(), ThreadScratch(3, step.scratch.get_size()));
    step.primitive.execute(stream, args);
  }

  void RunOne(int64_t n, const float* src, const dnnl::memory& weights,
              float* dst) const {
    OneOpenMpThread one;
    dnnl::stream stream(CpuEngine());
    dnnl::memory src_mem(src_user, CpuEngine(),
                         const_cast<float*>(src + n * src_batch_stride));
    if (src_in) {
      dnnl::memory blocked(pd.src_desc(), CpuEngine(),
                           ThreadScratch(0, pd.src_desc().get_size()));
      Execute(*src_in, stream, src_mem, blocked);
      src_mem = blocked;
    }
    dnnl::memory dst_user_mem(dst_user, CpuEngine(),
                              dst + n * dst_batch_stride);
    dnnl::memory dst_mem =
        dst_out ? dnnl::memory(pd.dst_desc(), CpuEngine(),
                               ThreadScratch(1, pd.dst_desc().get_size()))
                : dst_user_mem;
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src_mem},
                                                  {DNNL_ARG_WEIGHTS, weights},
                                                  {DNNL_ARG_DST, dst_mem}};
    if (pd.scratchpad_desc().get_size() > 0)
      args[DNNL_ARG_SCRATCHPAD] =
          dnnl::memory(pd.scratchpad_desc(), CpuEngine(),
                       ThreadScratch(2, pd.scratchpad_desc().get_size()));
    conv.execute(stream, args);
    if (dst_out) Execute(*dst_out, stream, dst_mem, dst_user_mem);
    stream.wait();
  }
};

std::shared_ptr<const DnnlConvolution> DnnlConvolution::Make(
    const DnnlConvolutionShape& shape) {
  if (!HaveDnnl() || shape.src_dims.size() < 3 || shape.src_dims.size() > 5)
    return nullptr;
  try {
    using dnnl::memory;
    auto impl = std::make_unique<Impl>();
    impl->batch = shape.src_dims[0];
    impl->src_batch_stride = shape.src_strides[0];
    impl->dst_batch_stride = shape.dst_strides[0];
    memory::dims src_dims = shape.src_dims, dst_dims = shape.dst_dims;
    src_dims[0] = dst_dims[0] = 1;
    impl->src_user =
        memory::desc(src_dims, memory::data_type::f32, shape.src_strides);
    impl->dst_user =
        memory::desc(dst_dims, memory::data_type::f32, shape.dst_strides);
    memory::dims weight_dims = shape.weight_dims,
                 weight_strides = shape.weight_strides;
    if (shape.groups > 1) {
      // [groups, out features per group, ...]: a group's outputs follow
      // the previous group's.
      weight_dims[0] /= shape.groups;
      weight_dims.insert(weight_dims.begin(), shape.groups);
      weight_strides.insert(weight_strides.begin(),
                            weight_dims[1] * weight_strides[0]);
    }
    impl->weights_user =
        memory::desc(weight_dims, memory::data_type::f32, weight_strides);
    memory::dims dilations, padding_low = shape.padding_low,
                            padding_high = shape.padding_high;
    for (int64_t d : shape.dilations) dilations.push_back(d - 1);
    auto any = [](const memory::dims& dims) {
      return memory::desc(dims, memory::data_type::f32,
                          memory::format_tag::any);
    };
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        any(src_dims), any(weight_dims), any(dst_dims), shape.window_strides,
        dilations, padding_low, padding_high);
    impl->pd = dnnl::convolution_forward::primitive_desc(desc, UserScratchpad(),
                                                         CpuEngine());
    // oneDNN's reference kernels are slower than the im2col path.
    if (std::strstr(impl->pd.impl_info_str(), "ref") != nullptr) return nullptr;
    impl->conv = dnnl::convolution_forward(impl->pd);
    impl->src_in = Reorder(impl->src_user, impl->pd.src_desc());
    impl->weights_in = Reorder(impl->weights_user, impl->pd.weights_desc());
    impl->dst_out = Reorder(impl->pd.dst_desc(), impl->dst_user);
    // Multiply-adds per batch element, about 0.02 ns each.
    double macs = 1;
    for (size_t d = 1; d < dst_dims.size(); ++d)
      macs *= static_cast<double>(dst_dims[d]);
    for (size_t d = 1; d < weight_dims.size(); ++d)
      macs *= d == 1 && shape.groups > 1 ? 1 : weight_dims[d];
    impl->item_nanos = 0.02 * macs;
    return std::make_shared<const DnnlConvolution>(std::move(impl));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

bool DnnlConvolution::Run(const float* src, const float* weights, float* dst,
                          ThreadPool* pool) const {
  const Impl& impl = *impl_;
  try {
    OneOpenMpThread one;
    dnnl::memory weights_mem(impl.weights_user, CpuEngine(),
                             const_cast<float*>(weights));
    std::vector<float> blocked_weights;
    if (impl.weights_in) {
      const dnnl::memory::desc& blocked = impl.pd.weights_desc();
      blocked_weights.resize(blocked.get_size() / sizeof(float) + 1);
      dnnl::memory to(blocked, CpuEngine(), blocked_weights.data());
      dnnl::stream stream(CpuEngine());
      Impl::Execute(*impl.weights_in, stream, weights_mem, to);
      stream.wait();
      weights_mem = to;
    }
    std::atomic<bool> failed{false};
    ParallelFor(pool, impl.batch, impl.item_nanos,
                [&](int64_t begin, int64_t end) {
                  try {
                    for (int64_t n = begin; n < end; ++n)
                      impl.RunOne(n, src, weights_mem, dst);
                  } catch (const dnnl::error&) {
                    failed = true;
                  }
                });
    return !failed;
  } catch (const dnnl::error&) {
    return false;
  }
}

#else  // !XFFI_HAVE_DNNL

struct DnnlConvolution::Impl {};

std::shared_ptr<const DnnlConvolution> DnnlConvolution::Make(
    const DnnlConvolutionShape&) {
  return nullptr;
}

bool DnnlConvolution::Run(const float*, const float*, float*,
                          ThreadPool*) const {
  return false;
}

#endif  // XFFI_HAVE_DNNL

DnnlConvolution::DnnlConvolution(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
DnnlConvolution::~DnnlConvolution() = default;

}  // namespace xffi::cpu
