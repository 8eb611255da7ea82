// xffi: one pass of an FFT along one axis as a `__host__ __device__`
// functor that transforms whole lines in O(L log L) each.
//
// Thread w of `workers` takes lines w, w + workers, ... and owns a slice of
// a device workspace: its twiddles and chirp are computed once per launch,
// then reused for every line it takes. Lengths that are powers of two run an
// iterative radix-2 FFT; every other length runs Bluestein's algorithm (the
// DFT as a convolution with a chirp, done by three power-of-two FFTs of at
// least 2L - 1 points). All arithmetic is in double and every twiddle and
// chirp is computed directly from its exact integer phase (k mod M, k^2 mod
// 2L), never by recurrence, so the error grows like log L as XLA:CPU's does.
//
// SimDevice runs this functor; on CUDA the device backend hands the whole
// transform to cuFFT instead (fft.h), and the functor's GPU entry is only a
// fallback that keeps every kernel launchable.
#ifndef XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_
#define XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_

#include "device_backend/device_kernels.h"

namespace xffi::device_backend {

enum class DftMode : int32_t {
  kComplex,        // L complex in, L complex out
  kRealToComplex,  // L real in, L/2 + 1 complex out (the rest is implied)
  kComplexToReal,  // L/2 + 1 complex in (Hermitian), L real out
};

// The power of two a line of `length` is transformed in: `length` itself,
// or Bluestein's convolution size (at least 2L - 1).
XFFI_HOST_DEVICE inline int64_t FftWorkLength(int64_t length) {
  if ((length & (length - 1)) == 0) return length;
  int64_t m = 1;
  while (m < 2 * length - 1) m *= 2;
  return m;
}

// Doubles (re, im interleaved) one worker's workspace holds for `length`.
XFFI_HOST_DEVICE inline int64_t FftWorkspaceDoubles(int64_t length) {
  const int64_t m = FftWorkLength(length);
  if (m == length) return 2 * (m + m / 2);  // line + twiddles
  // line, FFT of the conjugate chirp, twiddles, chirp
  return 2 * (m + m + m / 2 + length);
}

// In-place radix-2 FFT of `m` points at `x` (interleaved), forward
// (e^-2πi jk/m) with `twiddles[k]` = e^(-2πik/m) for k < m/2.
XFFI_HOST_DEVICE inline void PowerOfTwoFft(double* x, int64_t m,
                                           const double* twiddles) {
  for (int64_t i = 1, j = 0; i < m; ++i) {  // bit reversal
    int64_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      const double re = x[2 * i], im = x[2 * i + 1];
      x[2 * i] = x[2 * j];
      x[2 * i + 1] = x[2 * j + 1];
      x[2 * j] = re;
      x[2 * j + 1] = im;
    }
  }
  for (int64_t half = 1; half < m; half *= 2) {
    const int64_t step = m / (2 * half);
    for (int64_t start = 0; start < m; start += 2 * half) {
      for (int64_t k = 0; k < half; ++k) {
        const double wr = twiddles[2 * k * step];
        const double wi = twiddles[2 * k * step + 1];
        double* a = x + 2 * (start + k);
        double* b = x + 2 * (start + k + half);
        const double tr = b[0] * wr - b[1] * wi;
        const double ti = b[0] * wi + b[1] * wr;
        b[0] = a[0] - tr;
        b[1] = a[1] - ti;
        a[0] += tr;
        a[1] += ti;
      }
    }
  }
}

// The arrays are [outer, axis, inner] row-major; along each line,
// out(j) = Σ_k in(k) · e^(∓2πi·jk/L), with the sign + and a factor 1/L when
// `inverse`.
struct FftLinesKernel {
  static constexpr const char* kName = "xffi.device.fft_lines";
  const uint8_t* in = nullptr;
  uint8_t* out = nullptr;
  uint8_t* workspace = nullptr;  // workers x FftWorkspaceDoubles(length)
  DType in_type = DType::kC64, out_type = DType::kC64;
  DftMode mode = DftMode::kComplex;
  bool inverse = false;
  int64_t workers = 0;  // threads
  int64_t lines = 0;    // outer * inner
  int64_t length = 1;   // L
  int64_t in_axis = 1, out_axis = 1;
  int64_t inner = 1;

  XFFI_HOST_DEVICE void operator()(int64_t w) const {
    if (w >= workers) return;
    const int64_t m = FftWorkLength(length);
    const bool bluestein = m != length;
    double* line =
        reinterpret_cast<double*>(workspace) + w * FftWorkspaceDoubles(length);
    double* spectrum = bluestein ? line + 2 * m : nullptr;
    double* twiddles = bluestein ? spectrum + 2 * m : line + 2 * m;
    double* chirp = twiddles + m;  // Bluestein only
    const double pi = 3.14159265358979323846264338327950288;
    for (int64_t k = 0; k < m / 2; ++k) {
      const double angle = -2 * pi * static_cast<double>(k) / m;
      twiddles[2 * k] = cos(angle);
      twiddles[2 * k + 1] = sin(angle);
    }
    if (bluestein) {
      // chirp(k) = e^(-πi k²/L), from k² mod 2L so the phase is exact.
      for (int64_t k = 0; k < length; ++k) {
        const int64_t phase = (k * k) % (2 * length);
        const double angle = -pi * static_cast<double>(phase) / length;
        chirp[2 * k] = cos(angle);
        chirp[2 * k + 1] = sin(angle);
      }
      // The filter conj(chirp) at 0..L-1 and wrapped to m-L+1..m-1.
      for (int64_t k = 0; k < 2 * m; ++k) spectrum[k] = 0;
      for (int64_t k = 0; k < length; ++k) {
        spectrum[2 * k] = chirp[2 * k];
        spectrum[2 * k + 1] = -chirp[2 * k + 1];
        if (k > 0) {
          spectrum[2 * (m - k)] = chirp[2 * k];
          spectrum[2 * (m - k) + 1] = -chirp[2 * k + 1];
        }
      }
      PowerOfTwoFft(spectrum, m, twiddles);
    }
    for (int64_t l = w; l < lines; l += workers) Transform(l, line, m);
  }

  // One line: loaded (Hermitian-extended for kComplexToReal), conjugated
  // when inverse so that one forward FFT serves both directions, then
  // conjugated back, scaled and stored.
  XFFI_HOST_DEVICE void Transform(int64_t l, double* line, int64_t m) const {
    const int64_t p = l % inner, o = l / inner;
    const int64_t in_base = o * in_axis * inner + p;
    const int64_t out_base = o * out_axis * inner + p;
    const double conjugate = inverse ? -1.0 : 1.0;
    for (int64_t k = 0; k < length; ++k) {
      Value x;
      if (mode == DftMode::kComplexToReal && k >= in_axis) {
        x = Load(in, in_base + (length - k) * inner, in_type);
        x.im = -x.im;  // beyond the stored half: its mirror's conjugate
      } else {
        x = Load(in, in_base + k * inner, in_type);
        if (mode == DftMode::kRealToComplex) x.im = 0;
      }
      line[2 * k] = x.f;
      line[2 * k + 1] = conjugate * x.im;
    }
    const bool bluestein = m != length;
    double* spectrum = line + 2 * m;
    double* twiddles = bluestein ? spectrum + 2 * m : line + 2 * m;
    const double* chirp = twiddles + m;
    if (bluestein) {
      for (int64_t k = 0; k < length; ++k) {  // x·chirp, zero-padded
        const double re = line[2 * k], im = line[2 * k + 1];
        line[2 * k] = re * chirp[2 * k] - im * chirp[2 * k + 1];
        line[2 * k + 1] = re * chirp[2 * k + 1] + im * chirp[2 * k];
      }
      for (int64_t k = 2 * length; k < 2 * m; ++k) line[k] = 0;
      PowerOfTwoFft(line, m, twiddles);
      // Pointwise product, then the inverse FFT as conj(FFT(conj(.))).
      for (int64_t k = 0; k < m; ++k) {
        const double re = line[2 * k], im = line[2 * k + 1];
        const double fr = spectrum[2 * k], fi = spectrum[2 * k + 1];
        line[2 * k] = re * fr - im * fi;
        line[2 * k + 1] = -(re * fi + im * fr);
      }
      PowerOfTwoFft(line, m, twiddles);
      const double unscale = 1.0 / static_cast<double>(m);
      for (int64_t k = 0; k < length; ++k) {
        const double re = line[2 * k] * unscale;
        const double im = -line[2 * k + 1] * unscale;
        line[2 * k] = re * chirp[2 * k] - im * chirp[2 * k + 1];
        line[2 * k + 1] = re * chirp[2 * k + 1] + im * chirp[2 * k];
      }
    } else {
      PowerOfTwoFft(line, m, twiddles);
    }
    const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
    for (int64_t j = 0; j < out_axis; ++j) {
      Value y;
      y.f = line[2 * j] * scale;
      y.im = mode == DftMode::kComplexToReal
                 ? 0
                 : conjugate * line[2 * j + 1] * scale;
      Store(out, out_base + j * inner, out_type, y);
    }
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(in);
    visit(out);
    visit(workspace);
  }
};

// The 1/N XLA applies to IFFT and IRFFT results, after a library (cuFFT)
// that leaves it out: `n` floats (or doubles when `wide`), complex parts
// counted separately.
struct FftScaleKernel {
  static constexpr const char* kName = "xffi.device.fft_scale";
  uint8_t* data = nullptr;
  bool wide = false;
  int64_t n = 0;
  double factor = 1;

  XFFI_HOST_DEVICE void operator()(int64_t i) const {
    if (i >= n) return;
    if (wide)
      reinterpret_cast<double*>(data)[i] *= factor;
    else
      reinterpret_cast<float*>(data)[i] *= static_cast<float>(factor);
  }

  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(data);
  }
};

}  // namespace xffi::device_backend

#endif  // XFFI_SRC_DEVICE_BACKEND_FFT_KERNEL_H_
