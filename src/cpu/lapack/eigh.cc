// lapack_{s,d}syevd_ffi / lapack_{c,z}heevd_ffi: eigendecomposition of
// symmetric / Hermitian matrices by divide and conquer, reading the `uplo`
// triangle. Eigenvalues ascend; with mode 'V' the eigenvectors overwrite x
// (columns), with 'N' x is destroyed. info > 0: no convergence.
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error SymmetricEigen(ffi::Buffer<dtype> x, UpLo uplo,
                          ffi::ResultBuffer<dtype> x_out,
                          ffi::ResultBuffer<ffi::ToReal(dtype)> eigenvalues,
                          ffi::ResultBuffer<ffi::DataType::S32> info,
                          Vectors mode) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  Checker check(Target(dtype, kIsComplex<T> ? "heevd" : "syevd"));
  check.OneOf("uplo", uplo, {UpLo::kLower, UpLo::kUpper});
  check.OneOf("mode", mode, {Vectors::kNone, Vectors::kCompute});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {n, n});
  check.Shape("result 1 (eigenvalues)", eigenvalues->dimensions(), a.batch_dims,
              {n});
  check.Shape("result 2 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) return NothingToCompute(infos, a.batch);
  const char jobz = static_cast<char>(mode);
  const char uplo_c = static_cast<char>(uplo);
  const Int ni = AsInt(n), lda = LeadingDim(n);
  auto call = [&](T* matrix, Real* values, T* work, const Int* lwork,
                  Real* rwork, const Int* lrwork, Int* iwork, const Int* liwork,
                  Int* status) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::syevd(&jobz, &uplo_c, &ni, matrix, &lda, values, work, lwork,
                         rwork, lrwork, iwork, liwork, status, 1, 1);
    } else {
      (void)rwork;
      (void)lrwork;
      Routines<T>::syevd(&jobz, &uplo_c, &ni, matrix, &lda, values, work, lwork,
                         iwork, liwork, status, 1, 1);
    }
  };
  // One query answers all three sizes.
  T work_answer{};
  Real rwork_answer{};
  Int iwork_answer = 0, status = 0;
  const Int query = -1;
  call(out, eigenvalues->typed_data(), &work_answer, &query, &rwork_answer,
       &query, &iwork_answer, &query, &status);
  if (status < 0) return IllegalArgument(check.target(), "syevd", status);
  ffi::ErrorOr<Int> lwork = QueriedSize(check.target(), work_answer);
  ffi::ErrorOr<Int> lrwork = QueriedSize(check.target(), rwork_answer);
  if (lwork.has_error()) return lwork.error();
  if (lrwork.has_error()) return lrwork.error();
  const Int liwork = std::max<Int>(iwork_answer, 1);
  auto work = Scratch<T>(*lwork);
  auto rwork = Scratch<Real>(kIsComplex<T> ? *lrwork : 0);
  auto iwork = Scratch<Int>(liwork);
  for (int64_t i = 0; i < a.batch; ++i) {
    call(out + i * a.size(), eigenvalues->typed_data() + i * n, work.get(),
         &*lwork, rwork.get(), &*lrwork, iwork.get(), &liwork, &status);
    infos[i] = status;
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
auto SymmetricEigenBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<UpLo>("uplo")
      .template Ret<ffi::Buffer<dtype>>()               // x_out
      .template Ret<ffi::Buffer<ffi::ToReal(dtype)>>()  // eigenvalues
      .template Ret<ffi::Buffer<ffi::DataType::S32>>()  // info
      .template Attr<Vectors>("mode");
}

XFFI_DEFINE_HANDLER(kSsyevd, SymmetricEigen<ffi::DataType::F32>,
                    SymmetricEigenBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDsyevd, SymmetricEigen<ffi::DataType::F64>,
                    SymmetricEigenBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCheevd, SymmetricEigen<ffi::DataType::C64>,
                    SymmetricEigenBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZheevd, SymmetricEigen<ffi::DataType::C128>,
                    SymmetricEigenBinding<ffi::DataType::C128>());

}  // namespace

void AddSymmetricEigenTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_ssyevd_ffi", kSsyevd});
  targets.push_back({"lapack_dsyevd_ffi", kDsyevd});
  targets.push_back({"lapack_cheevd_ffi", kCheevd});
  targets.push_back({"lapack_zheevd_ffi", kZheevd});
}

}  // namespace xffi::cpu::lapack
