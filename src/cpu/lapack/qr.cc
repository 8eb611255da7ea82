// lapack_?geqrf_ffi and lapack_?geqp3_ffi: QR factorisations, plain and with
// column pivoting. R lands on and above the diagonal of the result, the
// Householder reflectors below it with their scalars in tau; neither routine
// can fail on data, so neither has an info result (as in jaxlib).
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
ffi::Error Qr(ffi::Buffer<dtype> x, ffi::ResultBuffer<dtype> x_out,
              ffi::ResultBuffer<dtype> tau) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "geqrf"));
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t k = std::min(a.rows, a.cols);
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {a.rows, a.cols});
  check.Shape("result 1 (tau)", tau->dimensions(), a.batch_dims, {k});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  if (k == 0 || a.batch == 0) return ffi::Error::Success();
  const Int m = AsInt(a.rows), n = AsInt(a.cols), lda = LeadingDim(a.rows);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    Routines<T>::geqrf(&m, &n, out + i * a.size(), &lda,
                       tau->typed_data() + i * k, work, lwork, status);
  };
  return RunBatch<T>(check.target(), "geqrf", a.batch, a.cols, nullptr, call);
}

template <ffi::DataType dtype>
ffi::Error PivotedQr(ffi::Buffer<dtype> x, ffi::Buffer<ffi::DataType::S32> jpvt,
                     ffi::ResultBuffer<dtype> x_out,
                     ffi::ResultBuffer<ffi::DataType::S32> jpvt_out,
                     ffi::ResultBuffer<dtype> tau) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  Checker check(Target(dtype, "geqp3"));
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t k = std::min(a.rows, a.cols);
  check.Shape("argument 1 (jpvt)", jpvt.dimensions(), a.batch_dims, {a.cols});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {a.rows, a.cols});
  check.Shape("result 1 (jpvt)", jpvt_out->dimensions(), a.batch_dims,
              {a.cols});
  check.Shape("result 2 (tau)", tau->dimensions(), a.batch_dims, {k});
  // LAPACK reads jpvt(j) != 0 as "column j leads"; a value that is not a
  // column number would send it out of bounds.
  for (size_t i = 0; check.ok() && i < jpvt.element_count(); ++i) {
    int32_t p = jpvt.typed_data()[i];
    if (p < 0 || p > a.cols) {
      check.Fail("argument 1 (jpvt) holds " + std::to_string(p) +
                 " at flat index " + std::to_string(i) +
                 "; entries are 0 (a free column) or a column number 1.." +
                 std::to_string(a.cols));
    }
  }
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  int32_t* pivots = jpvt_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  CopyIfDifferent(jpvt.typed_data(), pivots, jpvt.element_count());
  if (a.cols == 0 || a.batch == 0) return ffi::Error::Success();
  const Int m = AsInt(a.rows), n = AsInt(a.cols), lda = LeadingDim(a.rows);
  auto rwork = Scratch<Real>(kIsComplex<T> ? 2 * a.cols : 0);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    T* matrix = out + i * a.size();
    Int* columns = pivots + i * a.cols;
    T* scalars = tau->typed_data() + i * k;
    if constexpr (kIsComplex<T>) {
      Routines<T>::geqp3(&m, &n, matrix, &lda, columns, scalars, work, lwork,
                         rwork.get(), status);
    } else {
      Routines<T>::geqp3(&m, &n, matrix, &lda, columns, scalars, work, lwork,
                         status);
    }
  };
  return RunBatch<T>(check.target(), "geqp3", a.batch, 3 * a.cols + 1, nullptr,
                     call);
}

template <ffi::DataType dtype>
auto QrBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()            // x
      .template Ret<ffi::Buffer<dtype>>()   // x_out
      .template Ret<ffi::Buffer<dtype>>();  // tau
}

template <ffi::DataType dtype>
auto PivotedQrBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()                        // x
      .template Arg<ffi::Buffer<ffi::DataType::S32>>()  // jpvt
      .template Ret<ffi::Buffer<dtype>>()               // x_out
      .template Ret<ffi::Buffer<ffi::DataType::S32>>()  // jpvt_out
      .template Ret<ffi::Buffer<dtype>>();              // tau
}

XFFI_DEFINE_HANDLER(kSgeqrf, Qr<ffi::DataType::F32>,
                    QrBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgeqrf, Qr<ffi::DataType::F64>,
                    QrBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgeqrf, Qr<ffi::DataType::C64>,
                    QrBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgeqrf, Qr<ffi::DataType::C128>,
                    QrBinding<ffi::DataType::C128>());
XFFI_DEFINE_HANDLER(kSgeqp3, PivotedQr<ffi::DataType::F32>,
                    PivotedQrBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgeqp3, PivotedQr<ffi::DataType::F64>,
                    PivotedQrBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgeqp3, PivotedQr<ffi::DataType::C64>,
                    PivotedQrBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgeqp3, PivotedQr<ffi::DataType::C128>,
                    PivotedQrBinding<ffi::DataType::C128>());

}  // namespace

void AddQrTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgeqrf_ffi", kSgeqrf});
  targets.push_back({"lapack_dgeqrf_ffi", kDgeqrf});
  targets.push_back({"lapack_cgeqrf_ffi", kCgeqrf});
  targets.push_back({"lapack_zgeqrf_ffi", kZgeqrf});
  targets.push_back({"lapack_sgeqp3_ffi", kSgeqp3});
  targets.push_back({"lapack_dgeqp3_ffi", kDgeqp3});
  targets.push_back({"lapack_cgeqp3_ffi", kCgeqp3});
  targets.push_back({"lapack_zgeqp3_ffi", kZgeqp3});
}

}  // namespace xffi::cpu::lapack
