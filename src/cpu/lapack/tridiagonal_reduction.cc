// lapack_{s,d}sytrd_ffi / lapack_{c,z}hetrd_ffi: reduction of each symmetric
// / Hermitian matrix (its `uplo` triangle) to real tridiagonal form
// Q^H x Q: the diagonal and off-diagonal (real), Q as reflectors in x with
// their scalars in tau. info is always 0; jaxlib has it.
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error TridiagonalReduction(
    ffi::Buffer<dtype> x, UpLo uplo, ffi::ResultBuffer<dtype> x_out,
    ffi::ResultBuffer<ffi::ToReal(dtype)> diagonal,
    ffi::ResultBuffer<ffi::ToReal(dtype)> off_diagonal,
    ffi::ResultBuffer<dtype> tau, ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, kIsComplex<T> ? "hetrd" : "sytrd"));
  check.OneOf("uplo", uplo, {UpLo::kLower, UpLo::kUpper});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows, n1 = std::max<int64_t>(n - 1, 0);
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {n, n});
  check.Shape("result 1 (diagonal)", diagonal->dimensions(), a.batch_dims, {n});
  check.Shape("result 2 (off-diagonal)", off_diagonal->dimensions(),
              a.batch_dims, {n1});
  check.Shape("result 3 (tau)", tau->dimensions(), a.batch_dims, {n1});
  check.Shape("result 4 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) return NothingToCompute(infos, a.batch);
  const char uplo_c = static_cast<char>(uplo);
  const Int ni = AsInt(n), lda = LeadingDim(n);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    Routines<T>::sytrd(&uplo_c, &ni, out + i * a.size(), &lda,
                       diagonal->typed_data() + i * n,
                       off_diagonal->typed_data() + i * n1,
                       tau->typed_data() + i * n1, work, lwork, status, 1);
  };
  return RunBatch<T>(check.target(), "sytrd", a.batch, 1, infos, call);
}

template <ffi::DataType dtype>
auto TridiagonalReductionBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<UpLo>("uplo")
      .template Ret<ffi::Buffer<dtype>>()                // x_out
      .template Ret<ffi::Buffer<ffi::ToReal(dtype)>>()   // diagonal
      .template Ret<ffi::Buffer<ffi::ToReal(dtype)>>()   // off_diagonal
      .template Ret<ffi::Buffer<dtype>>()                // tau
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSsytrd, TridiagonalReduction<ffi::DataType::F32>,
                    TridiagonalReductionBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDsytrd, TridiagonalReduction<ffi::DataType::F64>,
                    TridiagonalReductionBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kChetrd, TridiagonalReduction<ffi::DataType::C64>,
                    TridiagonalReductionBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZhetrd, TridiagonalReduction<ffi::DataType::C128>,
                    TridiagonalReductionBinding<ffi::DataType::C128>());

}  // namespace

void AddTridiagonalReductionTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_ssytrd_ffi", kSsytrd});
  targets.push_back({"lapack_dsytrd_ffi", kDsytrd});
  targets.push_back({"lapack_chetrd_ffi", kChetrd});
  targets.push_back({"lapack_zhetrd_ffi", kZhetrd});
}

}  // namespace xffi::cpu::lapack
