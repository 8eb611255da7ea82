// lapack_?geev_ffi: eigenvalues and, on request, left and right eigenvectors
// of general square matrices. x is an input only (LAPACK works on a copy).
// Real types return the eigenvalues as real and imaginary parts and the
// eigenvectors as complex matrices (LAPACK packs a conjugate pair into two
// real columns; they are unpacked here). Columns are the eigenvectors.
//
// info: LAPACK's (k > 0: the QR algorithm failed to converge), or -4 when x
// holds an infinity or a NaN, which LAPACK is not given (jaxlib's
// convention). Vectors not asked for are zeros; when info != 0 the asked-for
// ones are NaN (JAX replaces every result with NaN then anyway).
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

constexpr Int kNonFiniteInput = -4;

template <typename T>
bool AllFinite(const T* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(data[i].real()) || !std::isfinite(data[i].imag()))
        return false;
    } else if (!std::isfinite(data[i])) {
      return false;
    }
  }
  return true;
}

// Real geev stores eigenvector j of a real eigenvalue in column j, and for a
// pair with imaginary parts +-w (w > 0 first) the real part of the first
// vector in column j and its imaginary part in column j+1; the second is the
// conjugate.
template <typename Real>
void UnpackRealEigenvectors(int64_t n, const Real* imag, const Real* packed,
                            std::complex<Real>* out) {
  for (int64_t j = 0; j < n;) {
    const Real* col = packed + j * n;
    std::complex<Real>* dst = out + j * n;
    if (imag[j] == 0 || std::isnan(imag[j]) || j + 1 == n) {
      for (int64_t r = 0; r < n; ++r) dst[r] = {col[r], 0};
      j += 1;
      continue;
    }
    const Real* next = col + n;
    for (int64_t r = 0; r < n; ++r) {
      dst[r] = {col[r], next[r]};
      dst[r + n] = {col[r], -next[r]};
    }
    j += 2;
  }
}

template <typename T>
void Fill(T* data, int64_t count, T value) {
  std::fill_n(data, count, value);
}

template <ffi::DataType dtype>
ffi::Error RealEigen(ffi::Buffer<dtype> x, Vectors compute_left,
                     Vectors compute_right,
                     ffi::ResultBuffer<dtype> eigvals_real,
                     ffi::ResultBuffer<dtype> eigvals_imag,
                     ffi::ResultBuffer<ffi::ToComplex(dtype)> eigvecs_left,
                     ffi::ResultBuffer<ffi::ToComplex(dtype)> eigvecs_right,
                     ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  using Complex = std::complex<T>;
  Checker check(Target(dtype, "geev"));
  check.OneOf("compute_left", compute_left,
              {Vectors::kNone, Vectors::kCompute});
  check.OneOf("compute_right", compute_right,
              {Vectors::kNone, Vectors::kCompute});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0 (eigenvalues, real part)", eigvals_real->dimensions(),
              a.batch_dims, {n});
  check.Shape("result 1 (eigenvalues, imaginary part)",
              eigvals_imag->dimensions(), a.batch_dims, {n});
  check.Shape("result 2 (left eigenvectors)", eigvecs_left->dimensions(),
              a.batch_dims, {n, n});
  check.Shape("result 3 (right eigenvectors)", eigvecs_right->dimensions(),
              a.batch_dims, {n, n});
  check.Shape("result 4 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) {
    std::fill_n(infos, a.batch, 0);
    return ffi::Error::Success();
  }

  const bool left = compute_left == Vectors::kCompute;
  const bool right = compute_right == Vectors::kCompute;
  const char jobvl = static_cast<char>(compute_left);
  const char jobvr = static_cast<char>(compute_right);
  const Int ni = AsInt(n), ld = LeadingDim(n);
  auto copy = Scratch<T>(n * n);
  auto packed_left = Scratch<T>(left ? n * n : 0);
  auto packed_right = Scratch<T>(right ? n * n : 0);
  T answer{};
  Int status = 0;
  const Int query = -1;
  Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld,
                    eigvals_real->typed_data(), eigvals_imag->typed_data(),
                    packed_left.get(), &ld, packed_right.get(), &ld, &answer,
                    &query, &status, 1, 1);
  if (status < 0) return IllegalArgument(check.target(), "geev", status);
  ffi::ErrorOr<Int> lwork =
      QueriedSize(check.target(), answer, (left || right) ? 4 * n : 3 * n);
  if (lwork.has_error()) return lwork.error();
  auto work = Scratch<T>(*lwork);
  const Complex nan(std::numeric_limits<T>::quiet_NaN(),
                    std::numeric_limits<T>::quiet_NaN());
  for (int64_t i = 0; i < a.batch; ++i) {
    const T* xi = x.typed_data() + i * n * n;
    T* wr = eigvals_real->typed_data() + i * n;
    T* wi = eigvals_imag->typed_data() + i * n;
    Complex* vl = eigvecs_left->typed_data() + i * n * n;
    Complex* vr = eigvecs_right->typed_data() + i * n * n;
    status = kNonFiniteInput;
    if (AllFinite(xi, n * n)) {
      std::copy_n(xi, n * n, copy.get());
      Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld, wr, wi,
                        packed_left.get(), &ld, packed_right.get(), &ld,
                        work.get(), &*lwork, &status, 1, 1);
    }
    infos[i] = status;
    if (status != 0) {
      Fill(wr, n, std::numeric_limits<T>::quiet_NaN());
      Fill(wi, n, std::numeric_limits<T>::quiet_NaN());
    }
    for (auto [want, packed, dst] :
         {std::tuple(left, packed_left.get(), vl),
          std::tuple(right, packed_right.get(), vr)}) {
      if (!want) {
        Fill(dst, n * n, Complex(0));
      } else if (status != 0) {
        Fill(dst, n * n, nan);
      } else {
        UnpackRealEigenvectors(n, wi, packed, dst);
      }
    }
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
ffi::Error ComplexEigen(ffi::Buffer<dtype> x, Vectors compute_left,
                        Vectors compute_right, ffi::ResultBuffer<dtype> eigvals,
                        ffi::ResultBuffer<dtype> eigvecs_left,
                        ffi::ResultBuffer<dtype> eigvecs_right,
                        ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  Checker check(Target(dtype, "geev"));
  check.OneOf("compute_left", compute_left,
              {Vectors::kNone, Vectors::kCompute});
  check.OneOf("compute_right", compute_right,
              {Vectors::kNone, Vectors::kCompute});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0 (eigenvalues)", eigvals->dimensions(), a.batch_dims,
              {n});
  check.Shape("result 1 (left eigenvectors)", eigvecs_left->dimensions(),
              a.batch_dims, {n, n});
  check.Shape("result 2 (right eigenvectors)", eigvecs_right->dimensions(),
              a.batch_dims, {n, n});
  check.Shape("result 3 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) {
    std::fill_n(infos, a.batch, 0);
    return ffi::Error::Success();
  }

  const bool left = compute_left == Vectors::kCompute;
  const bool right = compute_right == Vectors::kCompute;
  const char jobvl = static_cast<char>(compute_left);
  const char jobvr = static_cast<char>(compute_right);
  const Int ni = AsInt(n), ld = LeadingDim(n);
  auto copy = Scratch<T>(n * n);
  auto rwork = Scratch<Real>(2 * n);
  T answer{};
  Int status = 0;
  const Int query = -1;
  Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld, eigvals->typed_data(),
                    eigvecs_left->typed_data(), &ld,
                    eigvecs_right->typed_data(), &ld, &answer, &query,
                    rwork.get(), &status, 1, 1);
  if (status < 0) return IllegalArgument(check.target(), "geev", status);
  ffi::ErrorOr<Int> lwork = QueriedSize(check.target(), answer, 2 * n);
  if (lwork.has_error()) return lwork.error();
  auto work = Scratch<T>(*lwork);
  const Real nan_part = std::numeric_limits<Real>::quiet_NaN();
  const T nan(nan_part, nan_part);
  for (int64_t i = 0; i < a.batch; ++i) {
    const T* xi = x.typed_data() + i * n * n;
    T* w = eigvals->typed_data() + i * n;
    T* vl = eigvecs_left->typed_data() + i * n * n;
    T* vr = eigvecs_right->typed_data() + i * n * n;
    status = kNonFiniteInput;
    if (AllFinite(xi, n * n)) {
      std::copy_n(xi, n * n, copy.get());
      Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld, w, vl, &ld, vr,
                        &ld, work.get(), &*lwork, rwork.get(), &status, 1, 1);
    }
    infos[i] = status;
    if (status != 0) Fill(w, n, nan);
    for (auto [want, dst] : {std::pair(left, vl), std::pair(right, vr)}) {
      if (!want) {
        Fill(dst, n * n, T(0));
      } else if (status != 0) {
        Fill(dst, n * n, nan);
      }
    }
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
auto RealEigenBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<Vectors>("compute_left")
      .template Attr<Vectors>("compute_right")
      .template Ret<ffi::Buffer<dtype>>()                  // eigvals_real
      .template Ret<ffi::Buffer<dtype>>()                  // eigvals_imag
      .template Ret<ffi::Buffer<ffi::ToComplex(dtype)>>()  // eigvecs_left
      .template Ret<ffi::Buffer<ffi::ToComplex(dtype)>>()  // eigvecs_right
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();    // info
}

template <ffi::DataType dtype>
auto ComplexEigenBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<Vectors>("compute_left")
      .template Attr<Vectors>("compute_right")
      .template Ret<ffi::Buffer<dtype>>()                // eigvals
      .template Ret<ffi::Buffer<dtype>>()                // eigvecs_left
      .template Ret<ffi::Buffer<dtype>>()                // eigvecs_right
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSgeev, RealEigen<ffi::DataType::F32>,
                    RealEigenBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgeev, RealEigen<ffi::DataType::F64>,
                    RealEigenBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgeev, ComplexEigen<ffi::DataType::C64>,
                    ComplexEigenBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgeev, ComplexEigen<ffi::DataType::C128>,
                    ComplexEigenBinding<ffi::DataType::C128>());

}  // namespace

void AddEigenTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgeev_ffi", kSgeev});
  targets.push_back({"lapack_dgeev_ffi", kDgeev});
  targets.push_back({"lapack_cgeev_ffi", kCgeev});
  targets.push_back({"lapack_zgeev_ffi", kZgeev});
}

}  // namespace xffi::cpu::lapack
