// xffi: the discrete Fourier transform of one length, planned once.
//
// A plan computes the forward, unnormalised DFT
//   X[k] = sum_j x[j] exp(-2 pi i j k / n)
// of L sequences at once: element j of the L sequences is one Pack, whose
// lanes are GCC vector lanes, so every butterfly is SIMD work whatever the
// length (the approach DUCC, which XLA:CPU calls, takes for batches). The
// inverse is the forward transform of the conjugate, conjugated; the
// callers conjugate while they copy data in and out.
//
// Lengths whose prime factors are at most kLargestRadix run as Stockham
// autosort passes of radix 4, 2, 3, 5 and any odd prime up to that bound,
// O(n log n) with twiddles computed in double precision. Other lengths use
// Bluestein's chirp-z algorithm: a cyclic convolution of length M >= 2n - 1
// with only small prime factors, so every length is O(n log n).
#ifndef XFFI_SRC_CPU_FFT_PLAN_H_
#define XFFI_SRC_CPU_FFT_PLAN_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace xffi::cpu::fft {

// L lanes of T as one vector value (L = 1: T itself).
template <typename T, int L>
struct LaneVector {
  typedef T type __attribute__((vector_size(sizeof(T) * L)));
};
template <typename T>
struct LaneVector<T, 1> {
  using type = T;
};

// One complex element of L sequences, real and imaginary parts split.
template <typename T, int L>
struct Pack {
  using V = typename LaneVector<T, L>::type;
  V re, im;
};

// The lanes the transforms use for batches: 16 bytes of each part, the
// width every x86-64 has (wider vectors would be emulated in halves, and
// GCC then broadcasts each twiddle through memory, a store-forwarding stall
// per multiply).
template <typename T>
inline constexpr int kLanes = static_cast<int>(16 / sizeof(T));

inline constexpr int64_t kLargestRadix = 31;

template <typename T>
class ComplexPlan {
 public:
  explicit ComplexPlan(int64_t n);
  ~ComplexPlan();
  ComplexPlan(const ComplexPlan&) = delete;
  ComplexPlan& operator=(const ComplexPlan&) = delete;

  int64_t size() const { return n_; }
  // Packs of scratch Forward needs beside the n of the data.
  int64_t scratch_size() const;

  // The forward DFT of `data` (n packs), using `scratch`; the result is in
  // the buffer returned, which is `data` or `scratch`.
  template <int L>
  Pack<T, L>* Forward(Pack<T, L>* data, Pack<T, L>* scratch) const;

 private:
  struct Stage {
    int64_t radix = 0, m = 0, stride = 0;
    int64_t twiddle_offset = 0;   // into twiddles_: m * (radix - 1) values
    int64_t rotation_offset = 0;  // generic radix: its cos/sin table
  };
  template <int L>
  Pack<T, L>* Stockham(Pack<T, L>* data, Pack<T, L>* scratch) const;
  template <int L>
  void Bluestein(Pack<T, L>* data, Pack<T, L>* scratch) const;

  int64_t n_ = 0;
  std::vector<Stage> stages_;
  std::vector<std::complex<T>> twiddles_;
  std::vector<std::complex<T>> rotations_;  // exp(-2 pi i k / p), k < p
  // Bluestein: the convolution's plan, the chirp exp(-pi i j^2 / n) and the
  // transformed filter, already divided by M.
  std::unique_ptr<ComplexPlan> convolution_;
  std::vector<std::complex<T>> chirp_;
  std::vector<std::complex<T>> filter_;
};

extern template class ComplexPlan<float>;
extern template class ComplexPlan<double>;

// The smallest length >= n whose prime factors are 2, 3 and 5.
int64_t NextSmoothLength(int64_t n);

}  // namespace xffi::cpu::fft

#endif  // XFFI_SRC_CPU_FFT_PLAN_H_
