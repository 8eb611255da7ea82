// fft against the definition: every transform type, lengths that take the
// radix-4/2/3/5 passes, the generic odd-prime pass and Bluestein's
// algorithm, batches that fill the vector lanes and leave a remainder, and
// transforms over 1 to 3 dimensions, on every vector width the kernels are
// compiled for (XFFI_FFT_VECTOR_BITS caps the width the CPU would pick).
// The reference is the O(n^2) sum in long double, one axis at a time; the
// tolerance grows with log2 of the transformed size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::OpUnderTest;
using testing_util::RunOne;
using testing_util::RunOnThreads;
using Ref = std::complex<long double>;

// The DFT of the last `lengths.size()` dimensions of `data` (dims `dims`),
// forward or inverse (sign +1, unscaled).
std::vector<Ref> Dft(std::vector<Ref> data, const std::vector<int64_t>& dims,
                     size_t axes, bool inverse) {
  for (size_t a = dims.size() - axes; a < dims.size(); ++a) {
    int64_t n = dims[a], outer = 1, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= dims[i];
    for (size_t i = a + 1; i < dims.size(); ++i) inner *= dims[i];
    std::vector<Ref> roots(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      long double angle = (inverse ? 2 : -2) * std::numbers::pi_v<long double> *
                          static_cast<long double>(r) / n;
      roots[r] = Ref(std::cos(angle), std::sin(angle));
    }
    std::vector<Ref> next(data.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        for (int64_t k = 0; k < n; ++k) {
          Ref sum = 0;
          for (int64_t j = 0; j < n; ++j)
            sum += data[(o * n + j) * inner + i] * roots[(j * k) % n];
          next[(o * n + k) * inner + i] = sum;
        }
    data = std::move(next);
  }
  return data;
}

// Deterministic inputs in [-1, 1).
long double Value(int64_t i, int salt) {
  return static_cast<long double>((i * 7919 + salt * 104729) % 2001) / 1000 - 1;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

template <typename T>
void CheckClose(const std::vector<Ref>& expected, const std::vector<T>& got,
                long double tolerance) {
  ASSERT_EQ(expected.size(), got.size());
  long double scale = 1;
  for (const Ref& e : expected) scale = std::max(scale, std::abs(e));
  for (size_t i = 0; i < got.size(); ++i) {
    Ref g;
    if constexpr (std::is_floating_point_v<T>)
      g = Ref(got[i], 0);
    else
      g = Ref(got[i].real(), got[i].imag());
    ASSERT_LE(std::abs(g - expected[i]), tolerance * scale)
        << "element " << i << ": " << static_cast<double>(g.real()) << ","
        << static_cast<double>(g.imag()) << " vs "
        << static_cast<double>(expected[i].real()) << ","
        << static_cast<double>(expected[i].imag());
  }
}

// Relative to the largest magnitude: a few units of rounding per radix-2
// level of the transformed size (Bluestein's convolution, about 4 times as
// long, included).
template <typename R>
long double Tolerance(const std::vector<int64_t>& dims, size_t axes) {
  long double total = 1;
  for (size_t a = dims.size() - axes; a < dims.size(); ++a) total *= dims[a];
  const long double epsilon = std::numeric_limits<R>::epsilon();
  return 16 * epsilon * (3 + std::log2(std::max<long double>(total, 1)));
}

template <typename R>
ElementType ComplexType() {
  return std::is_same_v<R, float> ? ElementType::kC64 : ElementType::kC128;
}
template <typename R>
ElementType RealType() {
  return std::is_same_v<R, float> ? ElementType::kF32 : ElementType::kF64;
}

template <typename R>
void CheckComplex(const std::vector<int64_t>& dims, size_t axes, bool inverse) {
  SCOPED_TRACE((inverse ? "IFFT " : "FFT ") +
               Shape::Array(ComplexType<R>(), dims).ToString() + " over " +
               std::to_string(axes));
  using C = std::complex<R>;
  const int64_t size = Product(dims);
  std::vector<C> input(static_cast<size_t>(size));
  std::vector<Ref> reference(input.size());
  for (int64_t i = 0; i < size; ++i) {
    input[i] = C(static_cast<R>(Value(i, 1)), static_cast<R>(Value(i, 2)));
    reference[i] = Ref(input[i].real(), input[i].imag());
  }
  std::vector<Ref> expected = Dft(reference, dims, axes, inverse);
  if (inverse) {
    long double total = 1;
    for (size_t a = dims.size() - axes; a < dims.size(); ++a) total *= dims[a];
    for (Ref& e : expected) e /= total;
  }
  OpUnderTest t;
  Shape shape = Shape::Array(ComplexType<R>(), dims);
  Instruction* fft = t.Op(Opcode::kFft, shape, {t.Param(shape)});
  fft->fft_type = inverse ? FftType::kIfft : FftType::kFft;
  fft->fft_length.assign(dims.end() - static_cast<int64_t>(axes), dims.end());
  Literal in = Literal::FromVector<C>(dims, input);
  CheckClose(expected, RunOne(*fft, {&in}).template ToVector<C>(),
             Tolerance<R>(dims, axes));
}

template <typename R>
void CheckRealForward(const std::vector<int64_t>& dims, size_t axes) {
  SCOPED_TRACE("RFFT " + Shape::Array(RealType<R>(), dims).ToString() +
               " over " + std::to_string(axes));
  const int64_t size = Product(dims);
  std::vector<R> input(static_cast<size_t>(size));
  std::vector<Ref> reference(input.size());
  for (int64_t i = 0; i < size; ++i) {
    input[i] = static_cast<R>(Value(i, 3));
    reference[i] = Ref(input[i], 0);
  }
  std::vector<Ref> full = Dft(reference, dims, axes, false);
  const int64_t n = dims.back(), h = n / 2 + 1;
  std::vector<Ref> expected;
  for (int64_t row = 0; row < size / n; ++row)
    for (int64_t k = 0; k < h; ++k) expected.push_back(full[row * n + k]);
  std::vector<int64_t> out_dims = dims;
  out_dims.back() = h;
  OpUnderTest t;
  Instruction* fft =
      t.Op(Opcode::kFft, Shape::Array(ComplexType<R>(), out_dims),
           {t.Param(Shape::Array(RealType<R>(), dims))});
  fft->fft_type = FftType::kRfft;
  fft->fft_length.assign(dims.end() - static_cast<int64_t>(axes), dims.end());
  Literal in = Literal::FromVector<R>(dims, input);
  CheckClose(expected, RunOne(*fft, {&in}).template ToVector<std::complex<R>>(),
             Tolerance<R>(dims, axes));
}

// IRFFT of the RFFT of real data is the data; the imaginary parts at
// frequency 0 and n / 2, which a real signal's spectrum lacks, are set
// to junk that the transform must ignore.
template <typename R>
void CheckRealInverse(const std::vector<int64_t>& dims, size_t axes) {
  SCOPED_TRACE("IRFFT to " + Shape::Array(RealType<R>(), dims).ToString() +
               " over " + std::to_string(axes));
  using C = std::complex<R>;
  const int64_t size = Product(dims);
  std::vector<Ref> signal(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) signal[i] = Ref(Value(i, 4), 0);
  std::vector<Ref> full = Dft(signal, dims, axes, false);
  const int64_t n = dims.back(), h = n / 2 + 1;
  std::vector<int64_t> in_dims = dims;
  in_dims.back() = h;
  std::vector<C> input;
  for (int64_t row = 0; row < size / n; ++row)
    for (int64_t k = 0; k < h; ++k) {
      Ref v = full[row * n + k];
      C c(static_cast<R>(v.real()), static_cast<R>(v.imag()));
      if (axes == 1 && (k == 0 || 2 * k == n)) c.imag(R(123.5));
      input.push_back(c);
    }
  OpUnderTest t;
  Instruction* fft = t.Op(Opcode::kFft, Shape::Array(RealType<R>(), dims),
                          {t.Param(Shape::Array(ComplexType<R>(), in_dims))});
  fft->fft_type = FftType::kIrfft;
  fft->fft_length.assign(dims.end() - static_cast<int64_t>(axes), dims.end());
  Literal in = Literal::FromVector<C>(in_dims, input);
  // The input spectrum was rounded to R: its errors, amplified by n, are
  // part of the result's.
  CheckClose(signal, RunOne(*fft, {&in}).template ToVector<R>(),
             Tolerance<R>(dims, axes) * 10);
}

// Lengths for each path: powers of two and four, 3 and 5, mixed radices,
// the generic odd-prime pass (7, 31), Bluestein (37, 97, 2 * 53).
const std::vector<int64_t> kLengths = {
    1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 30, 31, 37, 60, 64, 97, 106, 128, 1000};

TEST(FftKernel, ComplexOneDimensionAllPaths) {
  for (int64_t n : kLengths)
    for (int64_t batch : {1, 3, 9})
      for (bool inverse : {false, true}) {
        CheckComplex<float>({batch, n}, 1, inverse);
        CheckComplex<double>({batch, n}, 1, inverse);
      }
}

TEST(FftKernel, RealForwardOneDimension) {
  // Batches that pair rows within a vector group and leave an odd row.
  for (int64_t n : kLengths)
    for (int64_t batch : {1, 2, 5, 17}) {
      CheckRealForward<float>({batch, n}, 1);
      CheckRealForward<double>({batch, n}, 1);
    }
}

TEST(FftKernel, RealInverseOneDimension) {
  for (int64_t n : kLengths)
    for (int64_t batch : {1, 2, 5, 17}) {
      CheckRealInverse<float>({batch, n}, 1);
      CheckRealInverse<double>({batch, n}, 1);
    }
}

TEST(FftKernel, SeveralDimensions) {
  for (bool inverse : {false, true}) {
    CheckComplex<float>({6, 10}, 2, inverse);
    CheckComplex<double>({2, 5, 7, 4}, 3, inverse);
    CheckComplex<float>({3, 37, 8}, 2, inverse);
  }
  CheckRealForward<float>({6, 10}, 2);
  CheckRealForward<double>({2, 5, 7, 4}, 3);
  CheckRealForward<float>({3, 9, 37}, 2);
  CheckRealInverse<float>({6, 10}, 2);
  CheckRealInverse<double>({2, 5, 7, 4}, 3);
  CheckRealInverse<double>({3, 9, 37}, 2);
}

TEST(FftKernel, WholeVectorBlocks) {
  // Shapes where whole groups of sequences move as vector blocks: rows of a
  // length that is a multiple of the lane count (transposed blocks), and
  // sequences along an outer axis that sit side by side in memory; each
  // also leaves groups that take the lane-by-lane path.
  for (bool inverse : {false, true}) {
    CheckComplex<float>({18, 64}, 1, inverse);
    CheckComplex<double>({7, 48}, 1, inverse);
    CheckComplex<float>({8, 12, 16}, 2, inverse);
    CheckComplex<double>({16, 6, 9}, 2, inverse);
  }
  for (int64_t n : {16, 20, 36, 64}) {
    CheckRealForward<float>({19, n}, 1);
    CheckRealForward<double>({11, n}, 1);
    CheckRealInverse<float>({19, n}, 1);
    CheckRealInverse<double>({11, n}, 1);
  }
  CheckRealForward<float>({4, 16, 32}, 2);
  CheckRealInverse<float>({4, 16, 32}, 2);
}

TEST(FftKernel, FrequencyTwoSeparatesFromOthers) {
  // A pure tone: all energy in bins 2 and n - 2 of a length-12 FFT.
  OpUnderTest t;
  Shape shape = Shape::Array(ElementType::kF32, {12});
  Instruction* fft = t.Op(Opcode::kFft, Shape::Array(ElementType::kC64, {7}),
                          {t.Param(shape)});
  fft->fft_type = FftType::kRfft;
  fft->fft_length = {12};
  std::vector<float> tone(12);
  for (int j = 0; j < 12; ++j)
    tone[j] = static_cast<float>(std::cos(2 * std::numbers::pi * 2 * j / 12));
  Literal in = Literal::FromVector<float>({12}, tone);
  std::vector<std::complex<float>> out =
      RunOne(*fft, {&in}).ToVector<std::complex<float>>();
  for (int k = 0; k < 7; ++k)
    EXPECT_NEAR(std::abs(out[k]), k == 2 ? 6.0f : 0.0f, 1e-5f) << k;
}

// Caps the vector width of the FFT kernels built while it lives (the CPU's
// widest is used when the cap is above it).
class VectorBits {
 public:
  explicit VectorBits(int bits) {
    setenv("XFFI_FFT_VECTOR_BITS", std::to_string(bits).c_str(), 1);
  }
  ~VectorBits() { unsetenv("XFFI_FFT_VECTOR_BITS"); }
  VectorBits(const VectorBits&) = delete;
  VectorBits& operator=(const VectorBits&) = delete;
};

// Every type and path on each width: one lane only (0), 16, 32 and 64
// bytes. Batches of 3, 17 and 35 leave sequences to the narrower widths
// after whole groups of 16 (f32 on 64 bytes) or 2 x 16 (real transforms,
// which pair rows) and of every narrower lane count.
TEST(FftKernel, EveryVectorWidth) {
  for (int bits : {0, 128, 256, 512}) {
    SCOPED_TRACE("XFFI_FFT_VECTOR_BITS=" + std::to_string(bits));
    VectorBits cap(bits);
    for (int64_t n : {1, 2, 3, 8, 31, 37, 60, 64, 97})
      for (int64_t batch : {3, 17, 35}) {
        for (bool inverse : {false, true}) {
          CheckComplex<float>({batch, n}, 1, inverse);
          CheckComplex<double>({batch, n}, 1, inverse);
        }
        CheckRealForward<float>({batch, n}, 1);
        CheckRealForward<double>({batch, n}, 1);
        CheckRealInverse<float>({batch, n}, 1);
        CheckRealInverse<double>({batch, n}, 1);
      }
    // Rows of a multiple of every lane count (transposed blocks) and an
    // outer axis whose sequences sit side by side (tiles), then 3 axes.
    for (bool inverse : {false, true}) {
      CheckComplex<float>({2, 16, 48}, 2, inverse);
      CheckComplex<double>({2, 16, 48}, 2, inverse);
      CheckComplex<float>({4, 6, 32}, 3, inverse);
    }
    CheckRealForward<float>({2, 16, 48}, 2);
    CheckRealForward<double>({3, 8, 32}, 2);
    CheckRealInverse<float>({2, 16, 48}, 2);
    CheckRealInverse<double>({3, 8, 32}, 2);
    CheckRealForward<float>({4, 6, 32}, 3);
    CheckRealInverse<float>({4, 6, 32}, 3);
  }
}

// Even real lengths run as a complex transform of half the length plus a
// pass that separates and joins the halves (odd ones pair rows): every
// length up to 66 and half-lengths that take Bluestein's algorithm (37, 53,
// 97), on every vector width, with batches that leave rows to each
// narrower width.
TEST(FftKernel, RealTransformsEveryLength) {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 66; ++n) lengths.push_back(n);
  for (int64_t n : {74, 106, 194}) lengths.push_back(n);
  for (int bits : {0, 128, 256, 512}) {
    SCOPED_TRACE("XFFI_FFT_VECTOR_BITS=" + std::to_string(bits));
    VectorBits cap(bits);
    for (int64_t n : lengths) {
      CheckRealForward<float>({19, n}, 1);
      CheckRealForward<double>({19, n}, 1);
      CheckRealInverse<float>({19, n}, 1);
      CheckRealInverse<double>({19, n}, 1);
    }
  }
}

// A multi-axis IRFFT of even length runs its complex axes in the result
// buffer, the Nyquist frequencies in a column of their own: half-lengths
// of 1, odd ones, Bluestein's, batch dimensions in front.
TEST(FftKernel, RealInverseSeveralAxesInPlace) {
  CheckRealInverse<float>({4, 3, 2}, 2);
  CheckRealInverse<double>({2, 7, 6}, 2);
  CheckRealInverse<float>({3, 5, 106}, 2);
  CheckRealInverse<double>({2, 3, 4, 10}, 3);
  CheckRealInverse<float>({5, 17, 64}, 2);
  CheckRealForward<float>({3, 5, 106}, 2);
}

// A length whose workspace is above what a thread keeps between calls (a
// half-length of 20011, a prime: Bluestein over 40500 points): spot
// frequencies against the definition, and IRFFT undoes RFFT.
TEST(FftKernel, RealTransformAboveTheKeptWorkspace) {
  const int64_t n = 40022, h = n / 2 + 1, rows = 3;
  std::vector<double> x(static_cast<size_t>(rows * n));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<double>(Value(static_cast<int64_t>(i), 6));
  OpUnderTest t;
  const Shape real_shape = Shape::Array(ElementType::kF64, {rows, n});
  const Shape complex_shape = Shape::Array(ElementType::kC128, {rows, h});
  Instruction* forward =
      t.Op(Opcode::kFft, complex_shape, {t.Param(real_shape)});
  forward->fft_type = FftType::kRfft;
  forward->fft_length = {n};
  Instruction* inverse = t.Op(Opcode::kFft, real_shape, {forward});
  inverse->fft_type = FftType::kIrfft;
  inverse->fft_length = {n};
  Literal in = Literal::FromVector<double>({rows, n}, x);
  Literal spectrum = RunOne(*forward, {&in});
  const std::vector<std::complex<double>> got =
      spectrum.ToVector<std::complex<double>>();
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{4321}, h - 1}) {
      Ref sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const long double angle = -2 * std::numbers::pi_v<long double> *
                                  static_cast<long double>((j * k) % n) / n;
        sum += Ref(std::cos(angle), std::sin(angle)) *
               static_cast<long double>(x[row * n + j]);
      }
      const std::complex<double> g = got[row * h + k];
      EXPECT_LE(std::abs(Ref(g.real(), g.imag()) - sum), 1e-9L * n)
          << "row " << row << " frequency " << k;
    }
  const std::vector<double> back =
      RunOne(*inverse, {&spectrum}).ToVector<double>();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(back[i], x[i], 1e-12) << i;
}

TEST(FftKernel, LargeLengths) {
  // A power of two, 2^6 * 3 * 5 and a prime above the largest radix
  // (Bluestein, over a convolution of 2025 = 3^4 * 5^2 points).
  CheckComplex<float>({17, 1024}, 1, false);
  CheckComplex<double>({5, 960}, 1, true);
  CheckComplex<float>({3, 1009}, 1, false);
  CheckRealForward<float>({17, 1024}, 1);
  CheckRealInverse<float>({17, 1024}, 1);
  CheckRealInverse<double>({5, 960}, 1);
}

// The pool splits groups of sequences, never a sequence, and each lane is
// computed alone: 1, 2 and 3 threads (and none) give the same bits.
TEST(FftKernel, ThreadCountsGiveIdenticalBits) {
  struct Case {
    FftType type;
    ElementType in, out;
    std::vector<int64_t> in_dims, out_dims, lengths;
  };
  const std::vector<Case> cases = {
      {FftType::kFft,
       ElementType::kC64,
       ElementType::kC64,
       {70, 512},
       {70, 512},
       {512}},
      {FftType::kIfft,
       ElementType::kC128,
       ElementType::kC128,
       {5, 40, 36},
       {5, 40, 36},
       {40, 36}},
      {FftType::kRfft,
       ElementType::kF32,
       ElementType::kC64,
       {75, 1024},
       {75, 513},
       {1024}},
      {FftType::kIrfft,
       ElementType::kC64,
       ElementType::kF32,
       {6, 37, 513},
       {6, 37, 1024},
       {37, 1024}},
  };
  for (const Case& c : cases) {
    OpUnderTest t;
    const Shape in_shape = Shape::Array(c.in, c.in_dims);
    const Shape out_shape = Shape::Array(c.out, c.out_dims);
    SCOPED_TRACE(in_shape.ToString() + " -> " + out_shape.ToString());
    Instruction* fft = t.Op(Opcode::kFft, out_shape, {t.Param(in_shape)});
    fft->fft_type = c.type;
    fft->fft_length = c.lengths;
    Literal in(in_shape);
    const bool complex_in =
        c.in == ElementType::kC64 || c.in == ElementType::kC128;
    const bool wide = c.in == ElementType::kC128;
    const int64_t values = Product(c.in_dims) * (complex_in ? 2 : 1);
    for (int64_t i = 0; i < values; ++i) {
      const long double v = Value(i, 5);
      if (wide)
        static_cast<double*>(in.data())[i] = static_cast<double>(v);
      else
        static_cast<float*>(in.data())[i] = static_cast<float>(v);
    }
    StatusOr<Kernel> kernel = MakeStructuralKernel(*fft);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    const Literal alone = RunOnThreads(*kernel, {&in}, out_shape, 0);
    for (int threads : {1, 2, 3}) {
      const Literal split = RunOnThreads(*kernel, {&in}, out_shape, threads);
      EXPECT_EQ(std::memcmp(alone.data(), split.data(), alone.size_bytes()), 0)
          << threads << " threads";
    }
  }
}

// Kernels keep their workspaces per thread: one kernel run from several
// threads at once, each with a pool of its own or none, and others of other
// lengths (other workspace sizes) in between, give the bits of a run alone.
TEST(FftKernel, ConcurrentRunsGiveIdenticalBits) {
  struct Run {
    Shape in_shape, out_shape;
    Literal in, alone;
    Kernel kernel;
  };
  std::vector<Run> runs;
  for (auto [type, n] : {std::pair{FftType::kRfft, int64_t{4096}},
                         std::pair{FftType::kIrfft, int64_t{1000}},
                         std::pair{FftType::kFft, int64_t{1009}},
                         std::pair{FftType::kRfft, int64_t{37}}}) {
    const int64_t rows = 21, h = n / 2 + 1;
    Run run;
    switch (type) {
      case FftType::kRfft:
        run.in_shape = Shape::Array(ElementType::kF32, {rows, n});
        run.out_shape = Shape::Array(ElementType::kC64, {rows, h});
        break;
      case FftType::kIrfft:
        run.in_shape = Shape::Array(ElementType::kC64, {rows, h});
        run.out_shape = Shape::Array(ElementType::kF32, {rows, n});
        break;
      default:
        run.in_shape = Shape::Array(ElementType::kC64, {rows, n});
        run.out_shape = run.in_shape;
    }
    OpUnderTest t;
    Instruction* fft =
        t.Op(Opcode::kFft, run.out_shape, {t.Param(run.in_shape)});
    fft->fft_type = type;
    fft->fft_length = {n};
    StatusOr<Kernel> kernel = MakeStructuralKernel(*fft);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    run.kernel = *kernel;
    run.in = Literal(run.in_shape);
    float* values = static_cast<float*>(run.in.data());
    for (size_t i = 0; i < run.in.size_bytes() / sizeof(float); ++i)
      values[i] = static_cast<float>(Value(static_cast<int64_t>(i), 7));
    run.alone = RunOnThreads(run.kernel, {&run.in}, run.out_shape, 0);
    runs.push_back(std::move(run));
  }
  constexpr int kThreads = 4, kRounds = 6;
  std::vector<std::vector<Literal>> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < kRounds; ++round) {
        Run& run = runs[static_cast<size_t>((i + round) % runs.size())];
        got[i].push_back(
            RunOnThreads(run.kernel, {&run.in}, run.out_shape, i % 3));
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i)
    for (int round = 0; round < kRounds; ++round) {
      const Run& run = runs[static_cast<size_t>((i + round) % runs.size())];
      const Literal& result = got[i][static_cast<size_t>(round)];
      EXPECT_EQ(
          std::memcmp(run.alone.data(), result.data(), run.alone.size_bytes()),
          0)
          << "thread " << i << " round " << round << ": "
          << run.in_shape.ToString();
    }
}

}  // namespace
}  // namespace xffi::cpu
