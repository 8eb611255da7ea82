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
#include <string>

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

// The vectors' dtype: complex for every input type.
constexpr ffi::DataType VectorType(ffi::DataType dtype) {
  return ffi::IsComplexType(dtype) ? dtype : ffi::ToComplex(dtype);
}

// Both kinds: `eigenvalues` holds the real and imaginary parts (real types)
// or the complex eigenvalues (complex types).
template <ffi::DataType dtype>
ffi::Error Eigen(ffi::Buffer<dtype> x, Vectors compute_left,
                 Vectors compute_right,
                 ffi::Span<ffi::ResultBuffer<dtype>* const> eigenvalues,
                 ffi::ResultBuffer<VectorType(dtype)> eigvecs_left,
                 ffi::ResultBuffer<VectorType(dtype)> eigvecs_right,
                 ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  using Complex = std::complex<Real>;
  Checker check(Target(dtype, "geev"));
  check.OneOf("compute_left", compute_left,
              {Vectors::kNone, Vectors::kCompute});
  check.OneOf("compute_right", compute_right,
              {Vectors::kNone, Vectors::kCompute});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  const char* value_parts[] = {"real part", "imaginary part"};
  int result = 0;
  for (ffi::ResultBuffer<dtype>* w : eigenvalues) {
    std::string what = "result " + std::to_string(result) + " (eigenvalues";
    if (eigenvalues.size() > 1) what += std::string(", ") + value_parts[result];
    check.Shape(what + ")", (*w)->dimensions(), a.batch_dims, {n});
    ++result;
  }
  check.Shape("result " + std::to_string(result++) + " (left eigenvectors)",
              eigvecs_left->dimensions(), a.batch_dims, {n, n});
  check.Shape("result " + std::to_string(result++) + " (right eigenvectors)",
              eigvecs_right->dimensions(), a.batch_dims, {n, n});
  check.Shape("result " + std::to_string(result) + " (info)",
              info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) return NothingToCompute(infos, a.batch);

  const bool want[2] = {compute_left == Vectors::kCompute,
                        compute_right == Vectors::kCompute};
  const char jobvl = static_cast<char>(compute_left);
  const char jobvr = static_cast<char>(compute_right);
  const Int ni = AsInt(n), ld = LeadingDim(n);
  auto copy = Scratch<T>(n * n);
  // Real types: LAPACK packs the vectors into real matrices, unpacked after.
  auto packed_left = Scratch<T>(kIsComplex<T> ? 0 : n * n);
  auto packed_right = Scratch<T>(kIsComplex<T> ? 0 : n * n);
  auto rwork = Scratch<Real>(kIsComplex<T> ? 2 * n : 0);
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    const bool query = *lwork == -1;
    const T* xi = x.typed_data() + i * n * n;
    T* w = (*eigenvalues[0])->typed_data() + i * n;
    Complex* vectors[2] = {eigvecs_left->typed_data() + i * n * n,
                           eigvecs_right->typed_data() + i * n * n};
    if (!query) {
      if (!AllFinite(xi, n * n)) {
        *status = kNonFiniteInput;
      } else {
        std::copy_n(xi, n * n, copy.get());
      }
    }
    if (*status == 0) {
      if constexpr (kIsComplex<T>) {
        Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld, w, vectors[0],
                          &ld, vectors[1], &ld, work, lwork, rwork.get(),
                          status, 1, 1);
      } else {
        Routines<T>::geev(&jobvl, &jobvr, &ni, copy.get(), &ld, w,
                          (*eigenvalues[1])->typed_data() + i * n,
                          packed_left.get(), &ld, packed_right.get(), &ld, work,
                          lwork, status, 1, 1);
      }
    }
    if (query) return;
    if (*status != 0) {
      T not_a_number;
      if constexpr (kIsComplex<T>) {
        not_a_number = T(nan, nan);
      } else {
        not_a_number = nan;
      }
      for (ffi::ResultBuffer<dtype>* part : eigenvalues)
        std::fill_n((*part)->typed_data() + i * n, n, not_a_number);
    }
    T* packed[2] = {packed_left.get(), packed_right.get()};
    for (int side = 0; side < 2; ++side) {
      if (!want[side]) {
        std::fill_n(vectors[side], n * n, Complex(0));
      } else if (*status != 0) {
        std::fill_n(vectors[side], n * n, Complex(nan, nan));
      } else if constexpr (!kIsComplex<T>) {
        UnpackRealEigenvectors(n, (*eigenvalues[1])->typed_data() + i * n,
                               packed[side], vectors[side]);
      }
    }
  };
  return RunBatch<T>(check.target(), "geev", a.batch,
                     kIsComplex<T> ? 2 * n : 4 * n, infos, call);
}

template <ffi::DataType dtype>
ffi::Error RealEigen(ffi::Buffer<dtype> x, Vectors compute_left,
                     Vectors compute_right,
                     ffi::ResultBuffer<dtype> eigvals_real,
                     ffi::ResultBuffer<dtype> eigvals_imag,
                     ffi::ResultBuffer<ffi::ToComplex(dtype)> eigvecs_left,
                     ffi::ResultBuffer<ffi::ToComplex(dtype)> eigvecs_right,
                     ffi::ResultBuffer<ffi::DataType::S32> info) {
  ffi::ResultBuffer<dtype>* parts[] = {&eigvals_real, &eigvals_imag};
  return Eigen<dtype>(x, compute_left, compute_right, {parts, 2}, eigvecs_left,
                      eigvecs_right, info);
}

template <ffi::DataType dtype>
ffi::Error ComplexEigen(ffi::Buffer<dtype> x, Vectors compute_left,
                        Vectors compute_right, ffi::ResultBuffer<dtype> eigvals,
                        ffi::ResultBuffer<dtype> eigvecs_left,
                        ffi::ResultBuffer<dtype> eigvecs_right,
                        ffi::ResultBuffer<ffi::DataType::S32> info) {
  ffi::ResultBuffer<dtype>* values[] = {&eigvals};
  return Eigen<dtype>(x, compute_left, compute_right, {values, 1}, eigvecs_left,
                      eigvecs_right, info);
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
