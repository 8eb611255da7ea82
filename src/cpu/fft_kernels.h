// xffi: the batched FFT kernels, one set per vector width.
//
// Each set runs the transforms of fft_plan.h on L sequences at once, element
// j of the L sequences in the L lanes of one vector (real and imaginary
// parts split), so every butterfly is SIMD work with broadcast twiddles and
// no shuffles. The widths are 16 bytes (every x86-64, and lanes of 1 for
// the sequences left over), 32 bytes (AVX2 + FMA) and 64 bytes (AVX-512F):
// fft_lanes.h is compiled once per width (fft_kernels_128/256/512.cc, the
// wider ones with the matching -m flags) and the widest one the CPU runs is
// chosen at run time, so the library still runs on CPUs without AVX.
//
// Complex data crosses this interface as interleaved (re, im) pairs of T.
#ifndef XFFI_SRC_CPU_FFT_KERNELS_H_
#define XFFI_SRC_CPU_FFT_KERNELS_H_

#include <cstdint>

#include "cpu/fft_plan.h"

namespace xffi::cpu::fft {

// The sequences along one axis of a row-major array: `outer * inner` of
// them, n elements `inner` apart each.
struct Axis {
  int64_t n = 1, outer = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  int64_t Start(int64_t s) const { return (s / inner) * n * inner + s % inner; }
};

// Workspaces are aligned to this many bytes (the widest vector).
inline constexpr int64_t kWorkspaceAlignment = 64;

template <typename T>
struct BatchKernels {
  int lanes = 0;  // 0: this width is not compiled in
  // The bytes of workspace (kWorkspaceAlignment-aligned, left
  // uninitialised) one call of a kernel below needs for transforms by
  // `plan`; `tiles`: complex_sequences along an axis other than the last.
  // The caller provides it so that it can be kept between calls.
  int64_t (*workspace_bytes)(const PlanView<T>& plan, bool tiles) = nullptr;
  // The complex transform of sequences [begin, end) of `axis` of `src`
  // into the same places of `dst` (src == dst: in place); `inverse`
  // conjugates on the way in and out; the result is scaled.
  void (*complex_sequences)(const T* src, T* dst, const Axis& axis,
                            const PlanView<T>& plan, int64_t begin, int64_t end,
                            bool inverse, T scale, void* workspace) = nullptr;
  // RFFT of real rows [begin, end) of `rows` rows of n into complex rows of
  // n / 2 + 1; begin is a multiple of 2 * lanes (rows r and r + lanes share
  // one complex transform of n, the plan's length: for odd n).
  void (*real_forward_rows)(const T* in, T* out, int64_t n, int64_t rows,
                            const PlanView<T>& plan, int64_t begin, int64_t end,
                            void* workspace) = nullptr;
  // IRFFT of complex rows of n / 2 + 1 into real rows of n, scaled (the
  // same pairing of rows).
  void (*real_inverse_rows)(const T* in, T* out, int64_t n, int64_t rows,
                            const PlanView<T>& plan, T scale, int64_t begin,
                            int64_t end, void* workspace) = nullptr;
  // The same two for even n, one complex transform of n / 2 per row
  // (RealPlanView; the workspace is the half plan's); begin is a multiple
  // of lanes. IRFFT may run in place (in == out) when each row of n reals
  // starts where its n / 2 + 1 complex values do and the last of them (the
  // Nyquist frequency's) is read from `nyquist` instead (one per row);
  // otherwise `nyquist` is null.
  void (*real_forward_half)(const T* in, T* out, const RealPlanView<T>& plan,
                            int64_t begin, int64_t end,
                            void* workspace) = nullptr;
  void (*real_inverse_half)(const T* in, const T* nyquist, T* out,
                            const RealPlanView<T>& plan, T scale, int64_t begin,
                            int64_t end, void* workspace) = nullptr;
};

struct KernelSet {
  BatchKernels<float> f32;
  BatchKernels<double> f64;
  template <typename T>
  const BatchKernels<T>& get() const {
    if constexpr (sizeof(T) == sizeof(float))
      return f32;
    else
      return f64;
  }
};

// One lane (the sequences no vector group fills), 16, 32 and 64 bytes.
const KernelSet& ScalarKernels();
const KernelSet& Kernels128();
const KernelSet& Kernels256();
const KernelSet& Kernels512();

// The forward transform of one sequence of plan.n values in place, with the
// one-lane kernels: for plans themselves.
template <typename T>
void ForwardOne(const PlanView<T>& plan, T* data);

}  // namespace xffi::cpu::fft

#endif  // XFFI_SRC_CPU_FFT_KERNELS_H_
