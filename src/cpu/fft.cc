// fft: FFT, IFFT, RFFT and IRFFT over the last 1 to 3 dimensions, as XLA
// defines them: unnormalised forward transforms, inverses divided by the
// product of the lengths, RFFT keeping the n / 2 + 1 non-negative
// frequencies of the last dimension and IRFFT reading only those (the
// imaginary parts of the zero and Nyquist frequencies ignored, as DUCC and
// numpy do).
//
// A multi-dimensional transform is one-dimensional ones along each axis in
// turn (RFFT: the real axis first; IRFFT: the real axis last). Sequences
// along an axis are gathered kLanes at a time into the lanes of a Pack, so
// the butterflies of fft_plan.h run on vectors; the real transforms put two
// real sequences into the real and imaginary parts of one complex sequence
// and separate the spectra by their symmetry, half the work of a complex
// transform each.
#include <algorithm>
#include <complex>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/elementwise_loops.h"
#include "cpu/fft_plan.h"
#include "cpu/structural_kernels.h"

namespace xffi::cpu {
namespace {

using fft::ComplexPlan;
using fft::kLanes;
using fft::Pack;

template <typename T>
using PlanMap = std::map<int64_t, std::shared_ptr<const ComplexPlan<T>>>;

// The sequences along one axis of a row-major array: `outer * inner` of
// them, n elements `inner` apart each.
struct Axis {
  int64_t n = 1, outer = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t Start(int64_t s) const { return (s / inner) * n * inner + s % inner; }
};

Axis AxisOf(const std::vector<int64_t>& dims, size_t d) {
  Axis axis;
  axis.n = dims[d];
  for (size_t i = 0; i < d; ++i) axis.outer *= dims[i];
  for (size_t i = d + 1; i < dims.size(); ++i) axis.inner *= dims[i];
  return axis;
}

template <typename T, int L, typename V>
inline T GetLane(const V& v, int lane) {
  if constexpr (L == 1) {
    (void)lane;
    return v;
  } else {
    return v[lane];
  }
}
template <typename T, int L, typename V>
inline void SetLane(V& v, int lane, T value) {
  if constexpr (L == 1) {
    (void)lane;
    v = value;
  } else {
    v[lane] = value;
  }
}

template <typename T, int L>
struct Workspace {
  std::vector<Pack<T, L>> data, scratch;
  explicit Workspace(const ComplexPlan<T>& plan)
      : data(static_cast<size_t>(plan.size())),
        scratch(static_cast<size_t>(plan.scratch_size())) {}
};

// The complex transform of sequences [begin, end) of `axis` in place, L at a
// time; `inverse` conjugates on the way in and out.
template <typename T, int L>
void ComplexSequences(std::complex<T>* data, const Axis& axis,
                      const ComplexPlan<T>& plan, int64_t begin, int64_t end,
                      bool inverse, T scale) {
  Workspace<T, L> work(plan);
  const T sign = inverse ? T(-1) : T(1);
  for (int64_t s0 = begin; s0 < end; s0 += L) {
    const int lanes = static_cast<int>(std::min<int64_t>(L, end - s0));
    int64_t starts[L];
    for (int l = 0; l < lanes; ++l) starts[l] = axis.Start(s0 + l);
    for (int64_t j = 0; j < axis.n; ++j) {
      Pack<T, L>& p = work.data[static_cast<size_t>(j)];
      p = Pack<T, L>{};
      for (int l = 0; l < lanes; ++l) {
        const std::complex<T> c = data[starts[l] + j * axis.inner];
        SetLane<T, L>(p.re, l, c.real());
        SetLane<T, L>(p.im, l, sign * c.imag());
      }
    }
    const Pack<T, L>* out =
        plan.template Forward<L>(work.data.data(), work.scratch.data());
    for (int64_t j = 0; j < axis.n; ++j)
      for (int l = 0; l < lanes; ++l)
        data[starts[l] + j * axis.inner] = {
            GetLane<T, L>(out[j].re, l) * scale,
            sign * GetLane<T, L>(out[j].im, l) * scale};
  }
}

template <typename T>
void ComplexAxis(std::complex<T>* data, const Axis& axis,
                 const ComplexPlan<T>& plan, bool inverse, T scale,
                 ThreadPool* pool) {
  constexpr int64_t L = kLanes<T>;
  const int64_t count = axis.count();
  const int64_t groups = count / L;
  // Whole groups in parallel; the few sequences left one lane at a time.
  ParallelFor(pool, groups * axis.n, [&](int64_t begin, int64_t end) {
    const int64_t first = (begin + axis.n - 1) / axis.n;
    const int64_t last = (end + axis.n - 1) / axis.n;
    if (first < last)
      ComplexSequences<T, L>(data, axis, plan, first * L, last * L, inverse,
                             scale);
  });
  if (groups * L < count)
    ComplexSequences<T, 1>(data, axis, plan, groups * L, count, inverse, scale);
}

// RFFT of rows [begin, end) of `rows` real rows of n into rows of n / 2 + 1:
// rows r and r + L share one complex sequence.
template <typename T, int L>
void RealForwardRows(const T* in, std::complex<T>* out, int64_t n, int64_t rows,
                     const ComplexPlan<T>& plan, int64_t begin, int64_t end) {
  Workspace<T, L> work(plan);
  const int64_t h = n / 2 + 1;
  for (int64_t r0 = begin; r0 < end; r0 += 2 * L) {
    const bool full = r0 + 2 * L <= rows;
    for (int64_t j = 0; j < n; ++j) {
      Pack<T, L>& p = work.data[static_cast<size_t>(j)];
      if (full) {
        for (int l = 0; l < L; ++l) {
          SetLane<T, L>(p.re, l, in[(r0 + l) * n + j]);
          SetLane<T, L>(p.im, l, in[(r0 + L + l) * n + j]);
        }
        continue;
      }
      p = Pack<T, L>{};
      for (int l = 0; l < L; ++l) {
        if (r0 + l < rows) SetLane<T, L>(p.re, l, in[(r0 + l) * n + j]);
        if (r0 + L + l < rows) SetLane<T, L>(p.im, l, in[(r0 + L + l) * n + j]);
      }
    }
    const Pack<T, L>* z =
        plan.template Forward<L>(work.data.data(), work.scratch.data());
    for (int64_t k = 0; k < h; ++k) {
      const Pack<T, L>& a = z[k];
      const Pack<T, L>& b = z[(n - k) % n];
      // The spectra of the rows in the real and in the imaginary parts.
      const Pack<T, L> first{(a.re + b.re) * T(0.5), (a.im - b.im) * T(0.5)};
      const Pack<T, L> second{(a.im + b.im) * T(0.5), (b.re - a.re) * T(0.5)};
      for (int l = 0; l < L; ++l) {
        if (full || r0 + l < rows)
          out[(r0 + l) * h + k] = {GetLane<T, L>(first.re, l),
                                   GetLane<T, L>(first.im, l)};
        if (full || r0 + L + l < rows)
          out[(r0 + L + l) * h + k] = {GetLane<T, L>(second.re, l),
                                       GetLane<T, L>(second.im, l)};
      }
    }
  }
}

// IRFFT of rows of n / 2 + 1 into real rows of n, scaled: the Hermitian
// spectra of rows r and r + L make one complex sequence whose inverse has
// them as its real and imaginary parts.
template <typename T, int L>
void RealInverseRows(const std::complex<T>* in, T* out, int64_t n, int64_t rows,
                     const ComplexPlan<T>& plan, T scale, int64_t begin,
                     int64_t end) {
  Workspace<T, L> work(plan);
  const int64_t h = n / 2 + 1;
  auto spectrum = [&](int64_t row, int64_t k) -> std::complex<T> {
    if (row >= rows) return {};
    if (k < h) {
      std::complex<T> c = in[row * h + k];
      // Only a Hermitian spectrum's real parts exist at 0 and n / 2.
      if (k == 0 || 2 * k == n) c.imag(0);
      return c;
    }
    return std::conj(in[row * h + (n - k)]);
  };
  for (int64_t r0 = begin; r0 < end; r0 += 2 * L) {
    for (int64_t k = 0; k < n; ++k) {
      Pack<T, L>& p = work.data[static_cast<size_t>(k)];
      for (int l = 0; l < L; ++l) {
        const std::complex<T> a = spectrum(r0 + l, k);
        const std::complex<T> b = spectrum(r0 + L + l, k);
        // conj(a + i b), the input of a forward transform that inverts.
        SetLane<T, L>(p.re, l, a.real() - b.imag());
        SetLane<T, L>(p.im, l, -(a.imag() + b.real()));
      }
    }
    const Pack<T, L>* z =
        plan.template Forward<L>(work.data.data(), work.scratch.data());
    for (int64_t j = 0; j < n; ++j)
      for (int l = 0; l < L; ++l) {
        if (r0 + l < rows)
          out[(r0 + l) * n + j] = GetLane<T, L>(z[j].re, l) * scale;
        if (r0 + L + l < rows)
          out[(r0 + L + l) * n + j] = -GetLane<T, L>(z[j].im, l) * scale;
      }
  }
}

// Runs Rows<L> over groups of 2L rows in parallel and the rest with L = 1.
template <typename T, typename Rows>
void ForRowPairs(int64_t rows, int64_t n, ThreadPool* pool, const Rows& run) {
  constexpr int64_t L = kLanes<T>;
  const int64_t groups = rows / (2 * L);
  const int64_t cost = std::max<int64_t>(n, 1);
  ParallelFor(pool, groups * cost, [&](int64_t begin, int64_t end) {
    const int64_t first = (begin + cost - 1) / cost;
    const int64_t last = (end + cost - 1) / cost;
    if (first < last)
      run(std::integral_constant<int, L>{}, first * 2 * L, last * 2 * L);
  });
  if (groups * 2 * L < rows)
    run(std::integral_constant<int, 1>{}, groups * 2 * L, rows);
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
    if (type == FftType::kFft || type == FftType::kIfft) {
      C* data = static_cast<C*>(args.results[0].data);
      const C* src = static_cast<const C*>(args.operands[0].data);
      if (data != src) std::copy(src, src + complex_elements, data);
      for (size_t i = 0; i < complex_axes; ++i) {
        const size_t d = rank - k + i;
        const bool last = i + 1 == complex_axes;
        ComplexAxis<T>(data, AxisOf(complex_dims, d),
                       *plans.at(complex_dims[d]), inverse,
                       inverse && last ? scale : T(1), args.pool);
      }
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
        ForRowPairs<T>(rows, n_last, args.pool,
                       [&](auto lanes, int64_t b, int64_t e) {
                         RealForwardRows<T, decltype(lanes)::value>(
                             src, data, n_last, rows, plan, b, e);
                       });
      }
      for (size_t i = 0; i < complex_axes; ++i) {
        const size_t d = rank - k + i;
        ComplexAxis<T>(data, AxisOf(complex_dims, d),
                       *plans.at(complex_dims[d]), false, T(1), args.pool);
      }
      return Status::Ok();
    }
    // IRFFT: the complex axes on a copy of the operand, then the real one.
    const C* src = static_cast<const C*>(args.operands[0].data);
    T* out = static_cast<T*>(args.results[0].data);
    if (n_last == 0) return Status::Ok();
    std::vector<C> work(src, src + complex_elements);
    for (size_t i = 0; i < complex_axes; ++i) {
      const size_t d = rank - k + i;
      ComplexAxis<T>(work.data(), AxisOf(complex_dims, d),
                     *plans.at(complex_dims[d]), true, T(1), args.pool);
    }
    const ComplexPlan<T>& plan = *plans.at(n_last);
    ForRowPairs<T>(rows, n_last, args.pool,
                   [&](auto lanes, int64_t b, int64_t e) {
                     RealInverseRows<T, decltype(lanes)::value>(
                         work.data(), out, n_last, rows, plan, scale, b, e);
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
  return Unimplemented("fft of " + std::string(ElementTypeName(t)) +
                       " is not supported on CPU");
}

}  // namespace xffi::cpu
