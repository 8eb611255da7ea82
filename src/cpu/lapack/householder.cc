// Products of Householder reflectors, as geqrf leaves them (reflector j in
// column j below the diagonal, its scalar in tau[j]):
//   lapack_{s,d}orgqr_ffi / lapack_{c,z}ungqr_ffi   Q's first n columns
//   lapack_{s,d}ormqr_ffi / lapack_{c,z}unmqr_ffi   op(Q) c or c op(Q)
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

template <ffi::DataType dtype>
constexpr Target HouseholderTarget(const char* real, const char* complex) {
  return Target(dtype, ffi::IsComplexType(dtype) ? complex : real);
}

template <ffi::DataType dtype>
ffi::Error HouseholderProduct(ffi::Buffer<dtype> x, ffi::Buffer<dtype> tau,
                              ffi::ResultBuffer<dtype> x_out) {
  using T = ffi::NativeType<dtype>;
  Checker check(HouseholderTarget<dtype>("orgqr", "ungqr"));
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  if (tau.dimensions().empty())
    check.Fail("argument 1 (tau) must have rank >= 1");
  const int64_t k = tau.dimensions().empty() ? 0 : tau.dimensions().back();
  check.Shape("argument 1 (tau)", tau.dimensions(), a.batch_dims, {k});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {a.rows, a.cols});
  if (check.ok() && !(a.rows >= a.cols && a.cols >= k)) {
    check.Fail("needs rows >= columns >= reflectors; x is " +
               std::to_string(a.rows) + "x" + std::to_string(a.cols) +
               " with " + std::to_string(k) + " reflectors (tau)");
  }
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  if (a.cols == 0 || a.batch == 0) return ffi::Error::Success();
  const Int m = AsInt(a.rows), n = AsInt(a.cols), reflectors = AsInt(k);
  const Int lda = LeadingDim(a.rows);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    Routines<T>::orgqr(&m, &n, &reflectors, out + i * a.size(), &lda,
                       tau.typed_data() + i * k, work, lwork, status);
  };
  return RunBatch<T>(check.target(), "orgqr", a.batch, a.cols, nullptr, call);
}

template <ffi::DataType dtype>
ffi::Error HouseholderMultiply(ffi::Buffer<dtype> a, ffi::Buffer<dtype> tau,
                               ffi::Buffer<dtype> c, bool left, bool transpose,
                               ffi::ResultBuffer<dtype> c_out) {
  using T = ffi::NativeType<dtype>;
  Checker check(HouseholderTarget<dtype>("ormqr", "unmqr"));
  Matrices cm = check.ReadMatrices("argument 2 (c)", c.dimensions());
  Matrices am = check.ReadMatrices("argument 0 (a)", a.dimensions());
  // Q is order m (left) or n (right); reflector j is column j of a.
  const int64_t order = left ? cm.rows : cm.cols;
  if (tau.dimensions().empty())
    check.Fail("argument 1 (tau) must have rank >= 1");
  const int64_t k = tau.dimensions().empty() ? 0 : tau.dimensions().back();
  check.Shape("argument 0 (a)", a.dimensions(), cm.batch_dims,
              {order, am.cols});
  check.Shape("argument 1 (tau)", tau.dimensions(), cm.batch_dims, {k});
  check.Shape("result 0", c_out->dimensions(), cm.batch_dims,
              {cm.rows, cm.cols});
  if (check.ok() && !(k <= am.cols && k <= order)) {
    check.Fail(std::to_string(k) + " reflectors (tau) but a has " +
               std::to_string(am.cols) + " columns and Q order " +
               std::to_string(order));
  }
  if (!check.ok()) return std::move(check).error();

  T* out = c_out->typed_data();
  CopyIfDifferent(c.typed_data(), out, c.element_count());
  if (cm.rows == 0 || cm.cols == 0 || cm.batch == 0)
    return ffi::Error::Success();
  const char side = left ? 'L' : 'R';
  const char trans = !transpose ? 'N' : kIsComplex<T> ? 'C' : 'T';
  const Int m = AsInt(cm.rows), n = AsInt(cm.cols), reflectors = AsInt(k);
  const Int lda = LeadingDim(order), ldc = LeadingDim(cm.rows);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    Routines<T>::ormqr(&side, &trans, &m, &n, &reflectors,
                       a.typed_data() + i * order * am.cols, &lda,
                       tau.typed_data() + i * k, out + i * cm.size(), &ldc,
                       work, lwork, status, 1, 1);
  };
  return RunBatch<T>(check.target(), "ormqr", cm.batch,
                     left ? cm.cols : cm.rows, nullptr, call);
}

template <ffi::DataType dtype>
auto HouseholderProductBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()            // x
      .template Arg<ffi::Buffer<dtype>>()   // tau
      .template Ret<ffi::Buffer<dtype>>();  // x_out
}

template <ffi::DataType dtype>
auto HouseholderMultiplyBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()           // a
      .template Arg<ffi::Buffer<dtype>>()  // tau
      .template Arg<ffi::Buffer<dtype>>()  // c
      .template Attr<bool>("left")
      .template Attr<bool>("transpose")
      .template Ret<ffi::Buffer<dtype>>();  // c_out
}

XFFI_DEFINE_HANDLER(kSorgqr, HouseholderProduct<ffi::DataType::F32>,
                    HouseholderProductBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDorgqr, HouseholderProduct<ffi::DataType::F64>,
                    HouseholderProductBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCungqr, HouseholderProduct<ffi::DataType::C64>,
                    HouseholderProductBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZungqr, HouseholderProduct<ffi::DataType::C128>,
                    HouseholderProductBinding<ffi::DataType::C128>());
XFFI_DEFINE_HANDLER(kSormqr, HouseholderMultiply<ffi::DataType::F32>,
                    HouseholderMultiplyBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDormqr, HouseholderMultiply<ffi::DataType::F64>,
                    HouseholderMultiplyBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCunmqr, HouseholderMultiply<ffi::DataType::C64>,
                    HouseholderMultiplyBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZunmqr, HouseholderMultiply<ffi::DataType::C128>,
                    HouseholderMultiplyBinding<ffi::DataType::C128>());

}  // namespace

void AddHouseholderTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sorgqr_ffi", kSorgqr});
  targets.push_back({"lapack_dorgqr_ffi", kDorgqr});
  targets.push_back({"lapack_cungqr_ffi", kCungqr});
  targets.push_back({"lapack_zungqr_ffi", kZungqr});
  targets.push_back({"lapack_sormqr_ffi", kSormqr});
  targets.push_back({"lapack_dormqr_ffi", kDormqr});
  targets.push_back({"lapack_cunmqr_ffi", kCunmqr});
  targets.push_back({"lapack_zunmqr_ffi", kZunmqr});
}

}  // namespace xffi::cpu::lapack
