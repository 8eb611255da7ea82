// Shared by the tests of the built-in LAPACK targets (test_lapack_*.cc):
// column-major matrices with the few operations the checks need, the
// element types the targets take, and calls through the registry.
//
// The checks verify what each routine promises (P A = L U, Q R = A,
// A V = V diag(w), ...) on random matrices, not values copied from
// elsewhere.
#ifndef XFFI_TESTS_CPP_LAPACK_TEST_UTIL_H_
#define XFFI_TESTS_CPP_LAPACK_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "xffi/program/builtin_targets.h"
#include "xffi/testing.h"

namespace xffi::lapack_test {

using C64 = std::complex<float>;
using C128 = std::complex<double>;
using ElementTypes = ::testing::Types<float, double, C64, C128>;
using RealTypes = ::testing::Types<float, double>;
using ComplexTypes = ::testing::Types<C64, C128>;

template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, C64> || std::is_same_v<T, C128>;

template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <typename T>
using Real = typename RealOf<T>::type;

// jaxlib's dtype letter: lapack_<letter><routine>_ffi.
template <typename T>
constexpr char Letter() {
  if constexpr (std::is_same_v<T, float>) return 's';
  if constexpr (std::is_same_v<T, double>) return 'd';
  if constexpr (std::is_same_v<T, C64>) return 'c';
  return 'z';
}

template <typename T>
std::string TargetName(const char* routine) {
  return std::string("lapack_") + Letter<T>() + routine + "_ffi";
}

// What "equal" means after a factorisation of a small, well-conditioned
// matrix: a few hundred ulp of the element type.
template <typename T>
constexpr double Tolerance() {
  return std::is_same_v<Real<T>, float> ? 2e-4 : 1e-11;
}

// A column-major matrix.
template <typename T>
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<T> data;

  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), data(r * c) {}
  // A copy of the matrix at `p` (column-major, r x c).
  static Matrix From(const T* p, int64_t r, int64_t c) {
    Matrix m(r, c);
    std::copy_n(p, r * c, m.data.begin());
    return m;
  }
  T& operator()(int64_t i, int64_t j) { return data[i + j * rows]; }
  const T& operator()(int64_t i, int64_t j) const { return data[i + j * rows]; }
};

template <typename T>
T RandomScalar(std::mt19937& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if constexpr (kIsComplex<T>) {
    return T(static_cast<Real<T>>(u(gen)), static_cast<Real<T>>(u(gen)));
  } else {
    return static_cast<T>(u(gen));
  }
}

template <typename T>
Matrix<T> Random(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 gen(seed);
  Matrix<T> m(rows, cols);
  for (T& v : m.data) v = RandomScalar<T>(gen);
  return m;
}

template <typename T>
Matrix<T> Identity(int64_t n) {
  Matrix<T> m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = T(1);
  return m;
}

template <typename T>
T Conj(T v) {
  if constexpr (kIsComplex<T>) {
    return std::conj(v);
  } else {
    return v;
  }
}

template <typename T>
Matrix<T> Multiply(const Matrix<T>& a, const Matrix<T>& b) {
  Matrix<T> c(a.rows, b.cols);
  for (int64_t j = 0; j < b.cols; ++j)
    for (int64_t k = 0; k < a.cols; ++k)
      for (int64_t i = 0; i < a.rows; ++i) c(i, j) += a(i, k) * b(k, j);
  return c;
}

// The conjugate transpose (the transpose for real types).
template <typename T>
Matrix<T> Adjoint(const Matrix<T>& a) {
  Matrix<T> t(a.cols, a.rows);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) t(j, i) = Conj(a(i, j));
  return t;
}

template <typename T>
Matrix<T> Transpose(const Matrix<T>& a) {
  Matrix<T> t(a.cols, a.rows);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) t(j, i) = a(i, j);
  return t;
}

// max |a - b| relative to max(1, max |b|); infinity for a shape mismatch.
template <typename T>
double RelativeError(const Matrix<T>& a, const Matrix<T>& b) {
  if (a.rows != b.rows || a.cols != b.cols) return INFINITY;
  double diff = 0, scale = 1;
  for (size_t i = 0; i < a.data.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(a.data[i] - b.data[i])));
    scale = std::max(scale, static_cast<double>(std::abs(b.data[i])));
  }
  return diff / scale;
}

// B B^H + n I: Hermitian positive definite and well conditioned.
template <typename T>
Matrix<T> PositiveDefinite(int64_t n, unsigned seed) {
  Matrix<T> b = Random<T>(n, n, seed);
  Matrix<T> a = Multiply(b, Adjoint(b));
  for (int64_t i = 0; i < n; ++i) a(i, i) += T(static_cast<Real<T>>(n));
  return a;
}

// (M + M^H) / 2 of a random M.
template <typename T>
Matrix<T> Hermitian(int64_t n, unsigned seed) {
  Matrix<T> m = Random<T>(n, n, seed);
  Matrix<T> h(n, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) h(i, j) = (m(i, j) + Conj(m(j, i))) / T(2);
  return h;
}

// I - tau v v^H.
template <typename T>
Matrix<T> Reflector(const std::vector<T>& v, T tau) {
  const int64_t n = static_cast<int64_t>(v.size());
  Matrix<T> h = Identity<T>(n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) h(i, j) -= tau * v[i] * Conj(v[j]);
  return h;
}

// Q = H(0) H(1) ... H(n-2), reflector i having v[i+1] = 1 and v[i+2..]
// below the subdiagonal of column i (gehrd, and sytrd with uplo 'L').
template <typename T>
Matrix<T> QFromLowerReflectors(const Matrix<T>& packed, const T* tau) {
  const int64_t n = packed.rows;
  Matrix<T> q = Identity<T>(n);
  for (int64_t i = 0; i + 1 < n; ++i) {
    std::vector<T> v(n, T(0));
    v[i + 1] = T(1);
    for (int64_t r = i + 2; r < n; ++r) v[r] = packed(r, i);
    q = Multiply(q, Reflector(v, tau[i]));
  }
  return q;
}

// Q = H(n-2) ... H(0), reflector i having v[i] = 1 and v[0..i-1] above the
// diagonal of column i+1 (sytrd with uplo 'U').
template <typename T>
Matrix<T> QFromUpperReflectors(const Matrix<T>& packed, const T* tau) {
  const int64_t n = packed.rows;
  Matrix<T> q = Identity<T>(n);
  for (int64_t i = n - 2; i >= 0; --i) {
    std::vector<T> v(n, T(0));
    v[i] = T(1);
    for (int64_t r = 0; r < i; ++r) v[r] = packed(r, i + 1);
    q = Multiply(q, Reflector(v, tau[i]));
  }
  return q;
}

// Concatenated matrices: a batch as the targets take it.
template <typename T>
std::vector<T> Stack(const std::vector<Matrix<T>>& batch) {
  std::vector<T> out;
  for (const Matrix<T>& m : batch)
    out.insert(out.end(), m.data.begin(), m.data.end());
  return out;
}

// Calls the registered built-in target (registering the built-ins first, as
// Compile does).
inline testing::InvokeResult CallTarget(const std::string& name,
                                        testing::CallFrame& frame) {
  Status registered = RegisterBuiltinCpuTargets();
  if (!registered.ok()) return testing::InvokeResult(registered, nullptr);
  return testing::InvokeRegistered(name, "Host", frame);
}

// An attribute holding one of jaxlib's character codes ('L', 'N', ...).
inline uint8_t Code(char c) { return static_cast<uint8_t>(c); }

}  // namespace xffi::lapack_test

#endif  // XFFI_TESTS_CPP_LAPACK_TEST_UTIL_H_
