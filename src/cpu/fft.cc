// fft: FFT, IFFT, RFFT and IRFFT over the last 1 to 3 dimensions, as XLA
// defines them: unnormalised forward transforms, inverses divided by the
// product of the lengths, RFFT keeping the n / 2 + 1 non-negative
// frequencies of the last dimension and IRFFT reading only those (the
// imaginary parts of the zero and Nyquist frequencies ignored, as DUCC and
// numpy do).
//
// A multi-dimensional transform is one-dimensional ones along each axis in
// turn (RFFT: the real axis first; IRFFT: the real axis last), each run by
// the batched kernels of fft_kernels.h on groups of sequences: the widest
// vectors the CPU has first, narrower ones and single lanes for the
// sequences left over. A real axis of even length n runs as complex
// transforms of n / 2 (fft_plan.h's RealPlan), an odd one as complex
// transforms of n shared by two rows.
//
// Nothing is allocated per call but an odd-length multi-axis IRFFT's
// spectra: the kernels' workspaces are kept per thread (ThreadWorkspace),
// results are written in place, and an even-length multi-axis IRFFT runs
// its complex axes in the result buffer.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cpu/fft_kernels.h"
#include "cpu/fft_plan.h"
#include "cpu/parallel.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

using fft::Axis;
using fft::BatchKernels;
using fft::ComplexPlan;
using fft::KernelSet;
using fft::RealPlan;

template <typename T>
using PlanMap = std::map<int64_t, std::shared_ptr<const ComplexPlan<T>>>;

// Each thread keeps the workspace of the last transform it ran, up to this
// size, for the next one: a fresh workspace per chunk of work was heap
// traffic whose freed blocks the allocator kept, 3.5 MB above the result at
// rfft_rows' peak on 2 threads (and page faults on every call). A thread
// runs one chunk at a time, so one per thread serves every executable and
// concurrent runs; larger ones are allocated per chunk.
inline constexpr size_t kKeptWorkspaceBytes = size_t{2} << 20;

struct AlignedDelete {
  void operator()(void* p) const {
    ::operator delete(p, std::align_val_t(fft::kWorkspaceAlignment));
  }
};
using WorkspaceMemory = std::unique_ptr<void, AlignedDelete>;

WorkspaceMemory AllocateWorkspace(size_t bytes) {
  return WorkspaceMemory(::operator new(
      std::max<size_t>(bytes, 1), std::align_val_t(fft::kWorkspaceAlignment)));
}

// The calling thread's workspace of at least `bytes`, for as long as this
// lives: the kept one (grown as needed), or a fresh one when the size is
// above what is kept or the kept one is already lent (a transform started
// inside another on the same thread).
class ThreadWorkspace {
 public:
  explicit ThreadWorkspace(size_t bytes) {
    if (bytes <= kKeptWorkspaceBytes && !kept_.lent) {
      if (kept_.bytes < bytes) {
        kept_.memory.reset();  // before the larger one: a lower peak
        kept_.memory = AllocateWorkspace(bytes);
        kept_.bytes = bytes;
      }
      kept_.lent = true;
      lent_ = true;
      data_ = kept_.memory.get();
    } else {
      own_ = AllocateWorkspace(bytes);
      data_ = own_.get();
    }
  }
  ~ThreadWorkspace() {
    if (lent_) kept_.lent = false;
  }
  ThreadWorkspace(const ThreadWorkspace&) = delete;
  ThreadWorkspace& operator=(const ThreadWorkspace&) = delete;

  void* data() const { return data_; }

 private:
  struct Kept {
    WorkspaceMemory memory;
    size_t bytes = 0;
    bool lent = false;
  };
  static thread_local Kept kept_;
  WorkspaceMemory own_;
  void* data_ = nullptr;
  bool lent_ = false;
};
thread_local ThreadWorkspace::Kept ThreadWorkspace::kept_;

Axis AxisOf(const std::vector<int64_t>& dims, size_t d) {
  Axis axis;
  axis.n = dims[d];
  for (size_t i = 0; i < d; ++i) axis.outer *= dims[i];
  for (size_t i = d + 1; i < dims.size(); ++i) axis.inner *= dims[i];
  return axis;
}

// The widest vectors (bits) whose kernels this CPU runs.
int CpuVectorBits() {
#if defined(XFFI_FFT_WIDE_KERNELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return 256;
#endif
  return 128;
}

// The kernel sets a transform runs, widest first, ending with one lane.
// XFFI_FFT_VECTOR_BITS (512, 256, 128 or 0 for one lane only) caps the
// width, to compare widths or test each on one machine.
std::vector<const KernelSet*> KernelCascade() {
  int bits = CpuVectorBits();
  if (const char* cap = std::getenv("XFFI_FFT_VECTOR_BITS"))
    bits = std::min(bits, std::atoi(cap));
  std::vector<const KernelSet*> cascade;
  if (bits >= 512) cascade.push_back(&fft::Kernels512());
  if (bits >= 256) cascade.push_back(&fft::Kernels256());
  if (bits >= 128) cascade.push_back(&fft::Kernels128());
  cascade.push_back(&fft::ScalarKernels());
  return cascade;
}

template <typename T>
using Cascade = std::vector<const BatchKernels<T>*>;

// A transform's packs (data and scratch) should stay in a core's L2 cache:
// the Stockham passes stream through them once per pass. Wider vectors than
// 16 bytes are used only while the packs fit in this many bytes (rfft of
// rows of 4096 f32, whose packs take 1 MB on 64-byte vectors, measured as
// fast or faster on 32-byte ones, with half the memory).
inline constexpr int64_t kWorkspaceBudget = 512 * 1024;

// What one complex value of one sequence costs per radix-2 level of its
// transform, roughly (nanoseconds on one core, data movement included;
// measured 0.08-0.13 on the fft workloads): the pool splits the groups of
// sequences by it.
inline constexpr double kValueLevelNanos = 0.1;

// Runs body(kernels, first, last, workspace) over `count` items in groups
// of `per_lane * lanes` items, each set of the cascade taking the whole
// groups of what the wider ones left, the groups split across the pool,
// with the workspace the kernels need for `plan` (`tiles`: see
// BatchKernels::workspace_bytes). The grouping depends on the count and the
// plan only, never on the threads: every lane is computed alone, so the
// bits do not depend on the pool.
template <typename T, typename Body>
void ForGroups(const Cascade<T>& cascade, const fft::PlanView<T>& plan,
               int64_t count, int64_t per_lane, bool tiles, ThreadPool* pool,
               const Body& body) {
  const int64_t pack_values = 2 * (plan.n + plan.scratch_size());
  const double levels = std::log2(static_cast<double>(std::max<int64_t>(
                            plan.convolution ? 4 * plan.n : plan.n, 2))) +
                        1;
  int64_t done = 0;
  for (const BatchKernels<T>* kernels : cascade) {
    if (kernels->lanes * static_cast<int64_t>(sizeof(T)) > 16 &&
        pack_values * kernels->lanes * static_cast<int64_t>(sizeof(T)) >
            kWorkspaceBudget)
      continue;
    const int64_t group = per_lane * kernels->lanes;
    // The last set (one lane) also takes a group the count does not fill.
    const bool last_set = kernels == cascade.back();
    const int64_t groups =
        last_set ? (count - done + group - 1) / group : (count - done) / group;
    if (groups == 0) continue;
    const int64_t base = done;
    const double group_nanos =
        static_cast<double>(group * plan.n) * levels * kValueLevelNanos;
    const size_t workspace_bytes =
        static_cast<size_t>(kernels->workspace_bytes(plan, tiles));
    ParallelFor(pool, groups, group_nanos, [&](int64_t first, int64_t last) {
      ThreadWorkspace workspace(workspace_bytes);
      body(*kernels, base + first * group, std::min(count, base + last * group),
           workspace.data());
    });
    done = std::min(count, done + groups * group);
  }
}

// The complex transform along `axis` of `src` into `dst` (may be `src`).
template <typename T>
void ComplexAxis(const std::complex<T>* src, std::complex<T>* dst,
                 const Axis& axis, const ComplexPlan<T>& plan, bool inverse,
                 T scale, const Cascade<T>& cascade, ThreadPool* pool) {
  const T* from = reinterpret_cast<const T*>(src);
  T* to = reinterpret_cast<T*>(dst);
  ForGroups<T>(cascade, plan.view(), axis.count(), 1, axis.inner > 1, pool,
               [&](const BatchKernels<T>& kernels, int64_t b, int64_t e,
                   void* workspace) {
                 kernels.complex_sequences(from, to, axis, plan.view(), b, e,
                                           inverse, scale, workspace);
               });
}

// The dimensions `dims` with the last one replaced by `last`.
std::vector<int64_t> WithLast(std::vector<int64_t> dims, int64_t last) {
  dims.back() = last;
  return dims;
}

template <typename T>
Kernel MakeTypedFftKernel(const Instruction& in) {
  const FftType type = in.fft_type;
  const Shape& operand = in.operand(0)->shape();
  // The complex side's dimensions: the operand's, or the result's for RFFT.
  const std::vector<int64_t> complex_dims =
      type == FftType::kRfft ? in.shape().dims() : operand.dims();
  const size_t rank = complex_dims.size();
  const size_t k = in.fft_length.size();
  const bool real = type == FftType::kRfft || type == FftType::kIrfft;
  const int64_t n_last = in.fft_length.back();
  // An even real axis runs by its RealPlan, an odd one by a complex plan.
  const bool half = real && n_last > 0 && n_last % 2 == 0;
  std::shared_ptr<const RealPlan<T>> real_plan;
  if (half) real_plan = std::make_shared<const RealPlan<T>>(n_last);
  PlanMap<T> plans;
  int64_t total = 1;
  for (size_t i = 0; i < k; ++i) {
    const int64_t length = in.fft_length[i];
    total *= length;
    if (i + 1 == k && half) continue;
    if (!plans.count(length))
      plans[length] = std::make_shared<const ComplexPlan<T>>(length);
  }
  Cascade<T> cascade;
  for (const KernelSet* set : KernelCascade())
    cascade.push_back(&set->template get<T>());
  const T scale = total > 0 ? T(1) / static_cast<T>(total) : T(1);
  int64_t complex_elements = 1;
  for (int64_t d : complex_dims) complex_elements *= d;
  return [=](const KernelArgs& args) -> Status {
    using C = std::complex<T>;
    if (complex_elements == 0) return Status::Ok();
    // The axes the complex transforms run along: all but the real one for
    // RFFT and IRFFT.
    const size_t complex_axes = real ? k - 1 : k;
    const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
    // Axis i of the transform over an array of `dims`.
    auto complex_axis = [&](const std::vector<int64_t>& dims, const C* from,
                            C* to, size_t i, bool conjugate, T factor) {
      const size_t d = rank - k + i;
      ComplexAxis<T>(from, to, AxisOf(dims, d), *plans.at(dims[d]), conjugate,
                     factor, cascade, args.pool);
    };
    if (!real) {
      C* data = static_cast<C*>(args.results[0].data);
      const C* src = static_cast<const C*>(args.operands[0].data);
      // The first axis reads the operand, the others work in place.
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(complex_dims, i == 0 ? src : data, data, i, inverse,
                     inverse && i + 1 == complex_axes ? scale : T(1));
      return Status::Ok();
    }
    const int64_t rows = complex_elements / complex_dims.back();
    if (type == FftType::kRfft) {
      const T* src = static_cast<const T*>(args.operands[0].data);
      C* data = static_cast<C*>(args.results[0].data);
      T* values = reinterpret_cast<T*>(data);
      if (n_last == 0) {
        std::fill(data, data + complex_elements, C{});
      } else if (half) {
        const fft::RealPlanView<T>& plan = real_plan->view();
        ForGroups<T>(cascade, *plan.half, rows, 1, false, args.pool,
                     [&](const BatchKernels<T>& kernels, int64_t b, int64_t e,
                         void* workspace) {
                       kernels.real_forward_half(src, values, plan, b, e,
                                                 workspace);
                     });
      } else {
        const ComplexPlan<T>& plan = *plans.at(n_last);
        // Rows r and r + lanes share one complex transform.
        ForGroups<T>(cascade, plan.view(), rows, 2, false, args.pool,
                     [&](const BatchKernels<T>& kernels, int64_t b, int64_t e,
                         void* workspace) {
                       kernels.real_forward_rows(src, values, n_last, rows,
                                                 plan.view(), b, e, workspace);
                     });
      }
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(complex_dims, data, data, i, false, T(1));
      return Status::Ok();
    }
    // IRFFT: the complex axes, then the real one.
    const C* src = static_cast<const C*>(args.operands[0].data);
    T* out = static_cast<T*>(args.results[0].data);
    if (n_last == 0) return Status::Ok();
    if (half) {
      const fft::RealPlanView<T>& plan = real_plan->view();
      const int64_t m = n_last / 2;
      const T* spectra = reinterpret_cast<const T*>(src);
      // The complex axes in the result (the operand is not ours to
      // change): a row of n reals holds frequencies [0, m) of its
      // spectrum; frequency m of every row goes to a column of its own.
      std::vector<C> nyquist;
      if (complex_axes > 0) {
        C* low = reinterpret_cast<C*>(out);
        nyquist.resize(static_cast<size_t>(rows));
        const int64_t h = m + 1;
        ParallelFor(args.pool, rows, static_cast<double>(h) * 0.5,
                    [&](int64_t b, int64_t e) {
                      for (int64_t r = b; r < e; ++r) {
                        std::copy(src + r * h, src + r * h + m, low + r * m);
                        nyquist[static_cast<size_t>(r)] = src[r * h + m];
                      }
                    });
        const std::vector<int64_t> low_dims = WithLast(complex_dims, m);
        const std::vector<int64_t> top_dims = WithLast(complex_dims, 1);
        for (size_t i = 0; i < complex_axes; ++i) {
          complex_axis(low_dims, low, low, i, true, T(1));
          complex_axis(top_dims, nyquist.data(), nyquist.data(), i, true, T(1));
        }
        spectra = out;
      }
      const T* top = nyquist.empty()
                         ? nullptr
                         : reinterpret_cast<const T*>(nyquist.data());
      ForGroups<T>(cascade, *plan.half, rows, 1, false, args.pool,
                   [&](const BatchKernels<T>& kernels, int64_t b, int64_t e,
                       void* workspace) {
                     kernels.real_inverse_half(spectra, top, out, plan, scale,
                                               b, e, workspace);
                   });
      return Status::Ok();
    }
    std::unique_ptr<T[]> work;
    if (complex_axes > 0) {
      // Left uninitialised: the first axis writes every element.
      work.reset(new T[static_cast<size_t>(2 * complex_elements)]);
      C* spectra = reinterpret_cast<C*>(work.get());
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(complex_dims, i == 0 ? src : spectra, spectra, i, true,
                     T(1));
      src = spectra;
    }
    const ComplexPlan<T>& plan = *plans.at(n_last);
    const T* spectra = reinterpret_cast<const T*>(src);
    ForGroups<T>(cascade, plan.view(), rows, 2, false, args.pool,
                 [&](const BatchKernels<T>& kernels, int64_t b, int64_t e,
                     void* workspace) {
                   kernels.real_inverse_rows(spectra, out, n_last, rows,
                                             plan.view(), scale, b, e,
                                             workspace);
                 });
    return Status::Ok();
  };
}

}  // namespace

StatusOr<Kernel> MakeFftKernel(const Instruction& instruction) {
  const ElementType t = instruction.operand(0)->shape().element_type();
  if (t == ElementType::kF32 || t == ElementType::kC64)
    return MakeTypedFftKernel<float>(instruction);
  if (t == ElementType::kF64 || t == ElementType::kC128)
    return MakeTypedFftKernel<double>(instruction);
  return Unimplemented("op " + instruction.Describe() + ": fft of " +
                       std::string(ElementTypeName(t)) +
                       " is not supported on CPU");
}

}  // namespace xffi::cpu
