// lapack_?potrf_ffi: Cholesky factorisation of the `uplo` triangle of each
// Hermitian positive definite matrix, in place; the other triangle is left
// as it was (JAX masks it). info k > 0: the leading minor of order k is not
// positive definite.
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error Cholesky(ffi::Buffer<dtype> x, UpLo uplo,
                    ffi::ResultBuffer<dtype> x_out,
                    ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "potrf"));
  check.OneOf("uplo", uplo, {UpLo::kLower, UpLo::kUpper});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {a.rows, a.rows});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {a.rows, a.rows});
  check.Shape("result 1 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  const char uplo_c = static_cast<char>(uplo);
  const Int n = AsInt(a.rows), lda = LeadingDim(a.rows);
  for (int64_t i = 0; i < a.batch; ++i) {
    Int status = 0;
    if (n > 0)
      Routines<T>::potrf(&uplo_c, &n, out + i * a.size(), &lda, &status, 1);
    info->typed_data()[i] = status;
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
auto CholeskyBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<UpLo>("uplo")
      .template Ret<ffi::Buffer<dtype>>()                // x_out
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSpotrf, Cholesky<ffi::DataType::F32>,
                    CholeskyBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDpotrf, Cholesky<ffi::DataType::F64>,
                    CholeskyBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCpotrf, Cholesky<ffi::DataType::C64>,
                    CholeskyBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZpotrf, Cholesky<ffi::DataType::C128>,
                    CholeskyBinding<ffi::DataType::C128>());

}  // namespace

void AddCholeskyTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_spotrf_ffi", kSpotrf});
  targets.push_back({"lapack_dpotrf_ffi", kDpotrf});
  targets.push_back({"lapack_cpotrf_ffi", kCpotrf});
  targets.push_back({"lapack_zpotrf_ffi", kZpotrf});
}

}  // namespace xffi::cpu::lapack
