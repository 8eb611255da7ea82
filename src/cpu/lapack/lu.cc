// lapack_?getrf_ffi: LU factorisation with partial pivoting, P x = L U, per
// matrix. Results: L and U in place of x, LAPACK's 1-based pivot rows, and
// info (k > 0: U(k,k) is exactly zero, the factorisation is still complete).
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error Lu(ffi::Buffer<dtype> x, ffi::ResultBuffer<dtype> x_out,
              ffi::ResultBuffer<ffi::DataType::S32> ipiv,
              ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "getrf"));
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t k = std::min(a.rows, a.cols);
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {a.rows, a.cols});
  check.Shape("result 1 (ipiv)", ipiv->dimensions(), a.batch_dims, {k});
  check.Shape("result 2 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  const Int m = AsInt(a.rows), n = AsInt(a.cols), lda = LeadingDim(a.rows);
  for (int64_t i = 0; i < a.batch; ++i) {
    Int status = 0;
    if (k > 0) {
      Routines<T>::getrf(&m, &n, out + i * a.size(), &lda,
                         ipiv->typed_data() + i * k, &status);
    }
    info->typed_data()[i] = status;
  }
  return ffi::Error::Success();
}

template <ffi::DataType dtype>
auto LuBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()                         // x
      .template Ret<ffi::Buffer<dtype>>()                // x_out
      .template Ret<ffi::Buffer<ffi::DataType::S32>>()   // ipiv
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSgetrf, Lu<ffi::DataType::F32>,
                    LuBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgetrf, Lu<ffi::DataType::F64>,
                    LuBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgetrf, Lu<ffi::DataType::C64>,
                    LuBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgetrf, Lu<ffi::DataType::C128>,
                    LuBinding<ffi::DataType::C128>());

}  // namespace

void AddLuTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgetrf_ffi", kSgetrf});
  targets.push_back({"lapack_dgetrf_ffi", kDgetrf});
  targets.push_back({"lapack_cgetrf_ffi", kCgetrf});
  targets.push_back({"lapack_zgetrf_ffi", kZgetrf});
}

}  // namespace xffi::cpu::lapack
