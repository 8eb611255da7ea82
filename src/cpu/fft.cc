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
// sequences left over.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <map>
#include <memory>
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

template <typename T>
using PlanMap = std::map<int64_t, std::shared_ptr<const ComplexPlan<T>>>;

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

// Runs body(kernels, first, last) over `count` items in groups of
// `per_lane * lanes` items, each set of the cascade taking the whole groups
// of what the wider ones left, the groups split across the pool. The
// grouping depends on the count and the plan only, never on the threads:
// every lane is computed alone, so the bits do not depend on the pool.
template <typename T, typename Body>
void ForGroups(const Cascade<T>& cascade, const fft::PlanView<T>& plan,
               int64_t count, int64_t per_lane, ThreadPool* pool,
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
    ParallelFor(pool, groups, group_nanos, [&](int64_t first, int64_t last) {
      body(*kernels, base + first * group,
           std::min(count, base + last * group));
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
  ForGroups<T>(cascade, plan.view(), axis.count(), 1, pool,
               [&](const BatchKernels<T>& kernels, int64_t b, int64_t e) {
                 kernels.complex_sequences(from, to, axis, plan.view(), b, e,
                                           inverse, scale);
               });
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
  PlanMap<T> plans;
  int64_t total = 1;
  for (int64_t length : in.fft_length) {
    total *= length;
    if (!plans.count(length))
      plans[length] = std::make_shared<const ComplexPlan<T>>(length);
  }
  Cascade<T> cascade;
  for (const KernelSet* set : KernelCascade())
    cascade.push_back(&set->template get<T>());
  const int64_t n_last = in.fft_length.back();
  const T scale = total > 0 ? T(1) / static_cast<T>(total) : T(1);
  int64_t complex_elements = 1;
  for (int64_t d : complex_dims) complex_elements *= d;
  return [=](const KernelArgs& args) -> Status {
    using C = std::complex<T>;
    if (complex_elements == 0) return Status::Ok();
    // The axes the complex transforms run along: all but the real one for
    // RFFT and IRFFT.
    const size_t complex_axes =
        type == FftType::kFft || type == FftType::kIfft ? k : k - 1;
    const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
    auto complex_axis = [&](const C* from, C* to, size_t i, bool conjugate,
                            T factor) {
      const size_t d = rank - k + i;
      ComplexAxis<T>(from, to, AxisOf(complex_dims, d),
                     *plans.at(complex_dims[d]), conjugate, factor, cascade,
                     args.pool);
    };
    if (type == FftType::kFft || type == FftType::kIfft) {
      C* data = static_cast<C*>(args.results[0].data);
      const C* src = static_cast<const C*>(args.operands[0].data);
      // The first axis reads the operand, the others work in place.
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(i == 0 ? src : data, data, i, inverse,
                     inverse && i + 1 == complex_axes ? scale : T(1));
      return Status::Ok();
    }
    const int64_t rows = complex_elements / complex_dims.back();
    if (type == FftType::kRfft) {
      const T* src = static_cast<const T*>(args.operands[0].data);
      C* data = static_cast<C*>(args.results[0].data);
      if (n_last == 0) {
        std::fill(data, data + complex_elements, C{});
      } else {
        const ComplexPlan<T>& plan = *plans.at(n_last);
        T* values = reinterpret_cast<T*>(data);
        // Rows r and r + lanes share one complex transform.
        ForGroups<T>(cascade, plan.view(), rows, 2, args.pool,
                     [&](const BatchKernels<T>& kernels, int64_t b, int64_t e) {
                       kernels.real_forward_rows(src, values, n_last, rows,
                                                 plan.view(), b, e);
                     });
      }
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(data, data, i, false, T(1));
      return Status::Ok();
    }
    // IRFFT: the complex axes (into a buffer of ours: the operand is not
    // ours to change), then the real one.
    const C* src = static_cast<const C*>(args.operands[0].data);
    T* out = static_cast<T*>(args.results[0].data);
    if (n_last == 0) return Status::Ok();
    std::unique_ptr<T[]> work;
    if (complex_axes > 0) {
      // Left uninitialised: the first axis writes every element.
      work.reset(new T[static_cast<size_t>(2 * complex_elements)]);
      C* spectra = reinterpret_cast<C*>(work.get());
      for (size_t i = 0; i < complex_axes; ++i)
        complex_axis(i == 0 ? src : spectra, spectra, i, true, T(1));
      src = spectra;
    }
    const ComplexPlan<T>& plan = *plans.at(n_last);
    const T* spectra = reinterpret_cast<const T*>(src);
    ForGroups<T>(cascade, plan.view(), rows, 2, args.pool,
                 [&](const BatchKernels<T>& kernels, int64_t b, int64_t e) {
                   kernels.real_inverse_rows(spectra, out, n_last, rows,
                                             plan.view(), scale, b, e);
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
