// xffi: the discrete Fourier transform of one length, planned once.
//
// A plan describes the forward, unnormalised DFT
//   X[k] = sum_j x[j] exp(-2 pi i j k / n)
// as the passes fft_kernels.h runs over many sequences at once. The inverse
// is the forward transform of the conjugate, conjugated; the callers
// conjugate while they copy data in and out.
//
// Lengths whose prime factors are at most kLargestRadix run as Stockham
// autosort passes of radix 8, 4, 2, 3, 5 and any odd prime up to that bound,
// O(n log n) with twiddles computed in double precision. Other lengths use
// Bluestein's chirp-z algorithm: a cyclic convolution of length M >= 2n - 1
// with only small prime factors, so every length is O(n log n).
//
// The kernels are compiled once per vector width (fft_kernels_*.cc, some
// with AVX flags), so what they read of a plan is a view of plain pointers
// and integers (PlanView): no library type is instantiated in those
// translation units that another one could share with different code.
#ifndef XFFI_SRC_CPU_FFT_PLAN_H_
#define XFFI_SRC_CPU_FFT_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace xffi::cpu::fft {

inline constexpr int64_t kLargestRadix = 31;

struct PlanStage {
  int64_t radix = 0, m = 0, stride = 0;
  int64_t twiddle_offset = 0;   // complex values: m * (radix - 1) of them
  int64_t rotation_offset = 0;  // generic radix: its cos/sin table
};

// Complex values here are interleaved (re, im) pairs of T.
template <typename T>
struct PlanView {
  int64_t n = 0;
  const PlanStage* stages = nullptr;
  int64_t stage_count = 0;
  const T* twiddles = nullptr;
  const T* rotations = nullptr;  // exp(-2 pi i k / p), k < p, per stage
  // Bluestein: the convolution's plan, the chirp exp(-pi i j^2 / n) and the
  // transformed filter, already divided by M.
  const PlanView* convolution = nullptr;
  const T* chirp = nullptr;
  const T* filter = nullptr;

  // Complex values of scratch a transform needs beside the n of the data.
  int64_t scratch_size() const {
    return convolution != nullptr ? 2 * convolution->n : n;
  }
};

template <typename T>
class ComplexPlan {
 public:
  explicit ComplexPlan(int64_t n);
  ~ComplexPlan();
  ComplexPlan(const ComplexPlan&) = delete;
  ComplexPlan& operator=(const ComplexPlan&) = delete;

  int64_t size() const { return view_.n; }
  const PlanView<T>& view() const { return view_; }

 private:
  std::vector<PlanStage> stages_;
  std::vector<T> twiddles_, rotations_;
  std::unique_ptr<ComplexPlan> convolution_;
  std::vector<T> chirp_, filter_;
  PlanView<T> view_;
};

extern template class ComplexPlan<float>;
extern template class ComplexPlan<double>;

// The RFFT and IRFFT of an even length n as one complex transform of n / 2
// per sequence: the even-indexed values as real parts and the odd-indexed
// ones as imaginary parts (a real row read as n / 2 complex values, as it
// lies in memory), and a pass that separates the two half-length spectra
// and joins them with the twiddles exp(-2 pi i k / n), k <= n / 2.
template <typename T>
struct RealPlanView {
  int64_t n = 0;
  const PlanView<T>* half = nullptr;
  const T* twiddles = nullptr;  // n / 2 + 1 interleaved complex values
};

template <typename T>
class RealPlan {
 public:
  // n even and positive.
  explicit RealPlan(int64_t n);
  RealPlan(const RealPlan&) = delete;
  RealPlan& operator=(const RealPlan&) = delete;

  const RealPlanView<T>& view() const { return view_; }

 private:
  ComplexPlan<T> half_;
  std::vector<T> twiddles_;
  RealPlanView<T> view_;
};

extern template class RealPlan<float>;
extern template class RealPlan<double>;

// The smallest length >= n whose prime factors are 2, 3 and 5.
int64_t NextSmoothLength(int64_t n);

}  // namespace xffi::cpu::fft

#endif  // XFFI_SRC_CPU_FFT_PLAN_H_
