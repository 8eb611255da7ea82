// lapack_?trsm_ffi: triangular solves, op(x) z = y (side 'L') or
// z op(x) = y (side 'R'), z overwriting y, for every matrix of the batch.
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error TriangularSolve(ffi::Buffer<dtype> x, ffi::Buffer<dtype> y,
                           ffi::ResultBuffer<dtype> y_out, Side side, UpLo uplo,
                           Transpose trans_x, Diag diag) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "trsm"));
  check.OneOf("side", side, {Side::kLeft, Side::kRight});
  check.OneOf("uplo", uplo, {UpLo::kLower, UpLo::kUpper});
  check.OneOf("trans_x", trans_x,
              {Transpose::kNone, Transpose::kTranspose, Transpose::kAdjoint});
  check.OneOf("diag", diag, {Diag::kNonUnit, Diag::kUnit});
  Matrices b = check.ReadMatrices("argument 1 (y)", y.dimensions());
  const int64_t k = side == Side::kLeft ? b.rows : b.cols;
  check.Shape("argument 0 (x)", x.dimensions(), b.batch_dims, {k, k});
  check.Shape("result 0", y_out->dimensions(), b.batch_dims, {b.rows, b.cols});
  if (!check.ok()) return std::move(check).error();

  T* out = y_out->typed_data();
  CopyIfDifferent(y.typed_data(), out, y.element_count());
  if (b.rows == 0 || b.cols == 0) return ffi::Error::Success();

  const char side_c = static_cast<char>(side);
  const char uplo_c = static_cast<char>(uplo);
  const char trans_c = static_cast<char>(trans_x);
  const char diag_c = static_cast<char>(diag);
  const Int m = AsInt(b.rows), n = AsInt(b.cols);
  const Int lda = LeadingDim(k), ldb = LeadingDim(b.rows);
  const T one(1);
  const T* a = x.typed_data();
  for (int64_t i = 0; i < b.batch; ++i) {
    Routines<T>::trsm(&side_c, &uplo_c, &trans_c, &diag_c, &m, &n, &one,
                      a + i * k * k, &lda, out + i * b.size(), &ldb, 1, 1, 1,
                      1);
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
auto TriangularSolveBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()           // x
      .template Arg<ffi::Buffer<dtype>>()  // y
      .template Ret<ffi::Buffer<dtype>>()
      .template Attr<Side>("side")
      .template Attr<UpLo>("uplo")
      .template Attr<Transpose>("trans_x")
      .template Attr<Diag>("diag");
}

XFFI_DEFINE_HANDLER(kStrsm, TriangularSolve<ffi::DataType::F32>,
                    TriangularSolveBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDtrsm, TriangularSolve<ffi::DataType::F64>,
                    TriangularSolveBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCtrsm, TriangularSolve<ffi::DataType::C64>,
                    TriangularSolveBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZtrsm, TriangularSolve<ffi::DataType::C128>,
                    TriangularSolveBinding<ffi::DataType::C128>());

}  // namespace

void AddTriangularSolveTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_strsm_ffi", kStrsm});
  targets.push_back({"lapack_dtrsm_ffi", kDtrsm});
  targets.push_back({"lapack_ctrsm_ffi", kCtrsm});
  targets.push_back({"lapack_ztrsm_ffi", kZtrsm});
}

}  // namespace xffi::cpu::lapack
