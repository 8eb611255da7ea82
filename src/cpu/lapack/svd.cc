// Singular value decompositions x = u diag(s) vt, per matrix:
//   lapack_?gesdd_ffi   divide and conquer (what jnp.linalg.svd lowers to)
//   lapack_?gesvd_ffi   QR iteration (lax.linalg.svd(algorithm=QR))
// The attribute mode is LAPACK's job: 'A' full u and vt, 'S' the min(m, n)
// leading columns of u and rows of vt, 'N' singular values only (u and vt
// are then left unwritten, as in jaxlib); 'O' is UNIMPLEMENTED, as in
// jaxlib. x is destroyed. info > 0: no convergence; gesdd reports a NaN in
// x as info -4 (LAPACK's own convention, passed on as jaxlib does).
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

enum class Algorithm { kDivideAndConquer, kQr };

template <ffi::DataType dtype, Algorithm algorithm>
ffi::Error Svd(ffi::Buffer<dtype> x, ffi::ResultBuffer<dtype> x_out,
               ffi::ResultBuffer<ffi::ToReal(dtype)> s,
               ffi::ResultBuffer<dtype> u, ffi::ResultBuffer<dtype> vt,
               ffi::ResultBuffer<ffi::DataType::S32> info, SvdJob mode) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  constexpr bool kDivide = algorithm == Algorithm::kDivideAndConquer;
  Checker check(Target(dtype, kDivide ? "gesdd" : "gesvd"));
  if (mode == SvdJob::kOverwrite) {
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      check.target().name() +
                          ": mode 'O' (overwrite x with u or vt) is not "
                          "implemented, as in jaxlib");
  }
  check.OneOf("mode", mode, {SvdJob::kAll, SvdJob::kReduced, SvdJob::kNone});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {m, n});
  check.Shape("result 1 (s)", s->dimensions(), a.batch_dims, {k});
  int64_t u_cols = mode == SvdJob::kAll ? m : k;
  int64_t vt_rows = mode == SvdJob::kAll ? n : k;
  if (mode == SvdJob::kNone) {
    // u and vt are never touched; JAX still shapes them as full_matrices
    // says, so either shape is fine.
    ffi::Span<const int64_t> ud = u->dimensions(), vd = vt->dimensions();
    if (!ud.empty() && ud.back() == m) u_cols = m;
    if (vd.size() >= 2 && vd[vd.size() - 2] == n) vt_rows = n;
  }
  check.Shape("result 2 (u)", u->dimensions(), a.batch_dims, {m, u_cols});
  check.Shape("result 3 (vt)", vt->dimensions(), a.batch_dims, {vt_rows, n});
  check.Shape("result 4 (info)", info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  int32_t* infos = info->typed_data();
  if (a.batch == 0) return ffi::Error::Success();
  if (k == 0) {
    // Nothing to decompose; full u and vt are identities.
    for (int64_t i = 0; i < a.batch; ++i) {
      infos[i] = 0;
      if (mode != SvdJob::kAll) continue;
      T* ui = u->typed_data() + i * m * m;
      T* vi = vt->typed_data() + i * n * n;
      for (int64_t r = 0; r < m * m; ++r) ui[r] = T(r % (m + 1) == 0);
      for (int64_t r = 0; r < n * n; ++r) vi[r] = T(r % (n + 1) == 0);
    }
    return ffi::Error::Success();
  }

  const char job = static_cast<char>(mode);
  const Int mi = AsInt(m), ni = AsInt(n), lda = LeadingDim(m);
  const Int ldu = LeadingDim(m), ldvt = LeadingDim(vt_rows);
  const bool vectors = mode != SvdJob::kNone;
  int64_t rwork_size = 0;
  if constexpr (kIsComplex<T>) {
    const int64_t big = std::max(m, n);
    rwork_size = !kDivide ? 5 * k
                 : vectors
                     ? std::max(5 * k * k + 5 * k, 2 * big * k + 2 * k * k + k)
                     : 7 * k;
  }
  auto rwork = Scratch<Real>(rwork_size);
  auto iwork = Scratch<Int>(kDivide ? 8 * k : 0);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    T* matrix = out + i * a.size();
    Real* values = s->typed_data() + i * k;
    T* left = u->typed_data() + i * m * u_cols;
    T* right = vt->typed_data() + i * vt_rows * n;
    if constexpr (kDivide && kIsComplex<T>) {
      Routines<T>::gesdd(&job, &mi, &ni, matrix, &lda, values, left, &ldu,
                         right, &ldvt, work, lwork, rwork.get(), iwork.get(),
                         status, 1);
    } else if constexpr (kDivide) {
      Routines<T>::gesdd(&job, &mi, &ni, matrix, &lda, values, left, &ldu,
                         right, &ldvt, work, lwork, iwork.get(), status, 1);
    } else if constexpr (kIsComplex<T>) {
      Routines<T>::gesvd(&job, &job, &mi, &ni, matrix, &lda, values, left, &ldu,
                         right, &ldvt, work, lwork, rwork.get(), status, 1, 1);
    } else {
      Routines<T>::gesvd(&job, &job, &mi, &ni, matrix, &lda, values, left, &ldu,
                         right, &ldvt, work, lwork, status, 1, 1);
    }
  };
  return RunBatch<T>(check.target(), kDivide ? "gesdd" : "gesvd", a.batch, 1,
                     infos, call);
}

template <ffi::DataType dtype>
auto SvdBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()                        // x
      .template Ret<ffi::Buffer<dtype>>()               // x_out
      .template Ret<ffi::Buffer<ffi::ToReal(dtype)>>()  // s
      .template Ret<ffi::Buffer<dtype>>()               // u
      .template Ret<ffi::Buffer<dtype>>()               // vt
      .template Ret<ffi::Buffer<ffi::DataType::S32>>()  // info
      .template Attr<SvdJob>("mode");
}

constexpr Algorithm kDc = Algorithm::kDivideAndConquer;
constexpr Algorithm kQr = Algorithm::kQr;
XFFI_DEFINE_HANDLER(kSgesdd, (Svd<ffi::DataType::F32, kDc>),
                    SvdBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgesdd, (Svd<ffi::DataType::F64, kDc>),
                    SvdBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgesdd, (Svd<ffi::DataType::C64, kDc>),
                    SvdBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgesdd, (Svd<ffi::DataType::C128, kDc>),
                    SvdBinding<ffi::DataType::C128>());
XFFI_DEFINE_HANDLER(kSgesvd, (Svd<ffi::DataType::F32, kQr>),
                    SvdBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgesvd, (Svd<ffi::DataType::F64, kQr>),
                    SvdBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgesvd, (Svd<ffi::DataType::C64, kQr>),
                    SvdBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgesvd, (Svd<ffi::DataType::C128, kQr>),
                    SvdBinding<ffi::DataType::C128>());

}  // namespace

void AddSvdTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgesdd_ffi", kSgesdd});
  targets.push_back({"lapack_dgesdd_ffi", kDgesdd});
  targets.push_back({"lapack_cgesdd_ffi", kCgesdd});
  targets.push_back({"lapack_zgesdd_ffi", kZgesdd});
  targets.push_back({"lapack_sgesvd_ffi", kSgesvd});
  targets.push_back({"lapack_dgesvd_ffi", kDgesvd});
  targets.push_back({"lapack_cgesvd_ffi", kCgesvd});
  targets.push_back({"lapack_zgesvd_ffi", kZgesvd});
}

}  // namespace xffi::cpu::lapack
