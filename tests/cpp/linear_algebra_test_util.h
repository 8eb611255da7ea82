// Helpers for the cholesky and triangular-solve kernel tests: random
// matrices of every LAPACK element type and products in complex<double>,
// so a factor or a solution is checked by multiplying back, independently
// of the LAPACK routine that made it.
#ifndef XFFI_TESTS_CPP_LINEAR_ALGEBRA_TEST_UTIL_H_
#define XFFI_TESTS_CPP_LINEAR_ALGEBRA_TEST_UTIL_H_

#include <complex>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "ir/float_types.h"
#include "kernel_test_util.h"
#include "xffi/program/shape.h"

namespace xffi::cpu::testing_util {

using Complex = std::complex<double>;

template <typename T>
constexpr bool kComplexElement = std::is_same_v<T, std::complex<float>> ||
                                 std::is_same_v<T, std::complex<double>>;

template <typename T>
ElementType TypeOf() {
  if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  if constexpr (std::is_same_v<T, std::complex<float>>)
    return ElementType::kC64;
  return ElementType::kC128;
}

template <typename T>
T FromComplex(Complex z) {
  if constexpr (kComplexElement<T>)
    return T(static_cast<typename T::value_type>(z.real()),
             static_cast<typename T::value_type>(z.imag()));
  else
    return static_cast<T>(z.real());
}

template <typename T>
Complex ToComplex(T v) {
  if constexpr (kComplexElement<T>)
    return Complex(v.real(), v.imag());
  else
    return Complex(static_cast<double>(v), 0);
}

// `count` random values of T, each part uniform in [-1, 1).
template <typename T>
std::vector<T> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> out(count);
  for (T& v : out) {
    const double re = u(gen);
    v = FromComplex<T>(Complex(re, kComplexElement<T> ? u(gen) : 0));
  }
  return out;
}

// The row-major product of a (m x k) and b (k x n), in complex<double>.
inline std::vector<Complex> Multiply(const std::vector<Complex>& a,
                                     const std::vector<Complex>& b, int64_t m,
                                     int64_t k, int64_t n) {
  std::vector<Complex> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      Complex sum = 0;
      for (int64_t l = 0; l < k; ++l)
        sum += a[static_cast<size_t>(i * k + l)] *
               b[static_cast<size_t>(l * n + j)];
      c[static_cast<size_t>(i * n + j)] = sum;
    }
  return c;
}

// The conjugate transpose of a row-major rows x cols matrix.
inline std::vector<Complex> Adjoint(const std::vector<Complex>& a, int64_t rows,
                                    int64_t cols) {
  std::vector<Complex> t(a.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      t[static_cast<size_t>(j * rows + i)] =
          std::conj(a[static_cast<size_t>(i * cols + j)]);
  return t;
}

// The tolerance of a product of n-term sums of values near 1 in T.
template <typename T>
double Tolerance(int64_t n) {
  const bool single =
      std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>;
  return (single ? 2e-5 : 1e-12) * static_cast<double>(n + 1);
}

// An f16 or bf16 op must compute in f32 and round once, as XLA:CPU does for
// narrow-float linear algebra: `make(t, type)` adds the op, with operands
// `dims` of `type`, to `t`; it runs on `values` rounded to `narrow` and, in
// f32, on the same rounded values, and every narrow result element must be
// the f32 one rounded.
template <typename MakeOp>
void ExpectNarrowIsRoundedF32(ElementType narrow,
                              const std::vector<std::vector<int64_t>>& dims,
                              const std::vector<std::vector<float>>& values,
                              const MakeOp& make) {
  std::vector<Literal> narrow_in, wide_in;
  for (size_t i = 0; i < dims.size(); ++i) {
    std::vector<uint16_t> bits;
    std::vector<float> rounded;
    for (float v : values[i]) {
      bits.push_back(static_cast<uint16_t>(NarrowFloatFromDouble(narrow, v)));
      rounded.push_back(NarrowFloatToFloat(narrow, bits.back()));
    }
    narrow_in.push_back(Literal::FromBytes(Shape::Array(narrow, dims[i]),
                                           bits.data(), bits.size() * 2));
    wide_in.push_back(Literal::FromVector<float>(dims[i], rounded));
  }
  auto run = [&](ElementType type, std::vector<Literal>& in) {
    OpUnderTest t;
    const Instruction* op = make(t, type);
    std::vector<Literal*> operands;
    for (Literal& l : in) operands.push_back(&l);
    return RunOne(*op, operands);
  };
  const std::vector<uint16_t> got =
      run(narrow, narrow_in).template ToVector<uint16_t>();
  const std::vector<float> wide =
      run(ElementType::kF32, wide_in).template ToVector<float>();
  ASSERT_EQ(got.size(), wide.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const uint16_t expected =
        static_cast<uint16_t>(NarrowFloatFromDouble(narrow, wide[i]));
    EXPECT_EQ(got[i], expected) << ElementTypeName(narrow) << " element " << i
                                << ": f32 result " << wide[i];
  }
}

}  // namespace xffi::cpu::testing_util

#endif  // XFFI_TESTS_CPP_LINEAR_ALGEBRA_TEST_UTIL_H_
