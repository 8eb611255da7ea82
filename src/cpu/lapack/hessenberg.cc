// lapack_?gehrd_ffi: reduction of each square matrix to upper Hessenberg
// form Q^H x Q, in place, Q as reflectors below the first subdiagonal with
// their scalars in tau. Rows and columns outside low..high (1-based, the
// attributes; JAX passes 1 and n) are taken as already reduced. info is
// always 0; it is there because jaxlib has it.
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error Hessenberg(ffi::Buffer<dtype> x, int32_t low, int32_t high,
                      ffi::ResultBuffer<dtype> x_out,
                      ffi::ResultBuffer<dtype> tau,
                      ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "gehrd"));
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {n, n});
  check.Shape("result 1 (tau)", tau->dimensions(), a.batch_dims,
              {std::max<int64_t>(n - 1, 0)});
  check.Shape("result 2 (info)", info->dimensions(), a.batch_dims, {});
  const bool range_ok =
      n == 0 ? (low == 1 && high == 0) : (1 <= low && low <= high && high <= n);
  if (check.ok() && !range_ok) {
    check.Fail("attributes low=" + std::to_string(low) +
               " and high=" + std::to_string(high) +
               " must satisfy 1 <= low <= high <= n (n = " + std::to_string(n) +
               ")");
  }
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  int32_t* infos = info->typed_data();
  if (n == 0 || a.batch == 0) return NothingToCompute(infos, a.batch);
  const Int ni = AsInt(n), lda = LeadingDim(n);
  const Int ilo = low, ihi = high;
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    Routines<T>::gehrd(&ni, &ilo, &ihi, out + i * a.size(), &lda,
                       tau->typed_data() + i * (n - 1), work, lwork, status);
  };
  return RunBatch<T>(check.target(), "gehrd", a.batch, n, infos, call);
}

template <ffi::DataType dtype>
auto HessenbergBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()  // x
      .template Attr<int32_t>("low")
      .template Attr<int32_t>("high")
      .template Ret<ffi::Buffer<dtype>>()                // x_out
      .template Ret<ffi::Buffer<dtype>>()                // tau
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSgehrd, Hessenberg<ffi::DataType::F32>,
                    HessenbergBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgehrd, Hessenberg<ffi::DataType::F64>,
                    HessenbergBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgehrd, Hessenberg<ffi::DataType::C64>,
                    HessenbergBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgehrd, Hessenberg<ffi::DataType::C128>,
                    HessenbergBinding<ffi::DataType::C128>());

}  // namespace

void AddHessenbergTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgehrd_ffi", kSgehrd});
  targets.push_back({"lapack_dgehrd_ffi", kDgehrd});
  targets.push_back({"lapack_cgehrd_ffi", kCgehrd});
  targets.push_back({"lapack_zgehrd_ffi", kZgehrd});
}

}  // namespace xffi::cpu::lapack
