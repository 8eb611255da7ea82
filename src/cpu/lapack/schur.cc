// lapack_?gees_ffi: Schur decomposition x = vs t vs^H, t overwriting x
// (quasi-triangular for real types), the Schur vectors when mode is 'V'
// (zeros when 'N'), the eigenvalues (real and imaginary parts for real
// types), the number of selected eigenvalues (always 0: sort 'S' needs a
// selection function no attribute can carry, so it is UNIMPLEMENTED, as in
// jaxlib) and info (k > 0: the QR algorithm failed to converge).
#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

// Both kinds; `eigenvalues` holds the real and imaginary parts (real types)
// or the complex eigenvalues.
template <ffi::DataType dtype>
ffi::Error Schur(ffi::Buffer<dtype> x, Vectors mode, EigenvalueSort sort,
                 ffi::ResultBuffer<dtype> x_out,
                 ffi::ResultBuffer<dtype> schur_vectors,
                 ffi::Span<ffi::ResultBuffer<dtype>* const> eigenvalues,
                 ffi::ResultBuffer<ffi::DataType::S32> selected,
                 ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  using Real = typename Routines<T>::Real;
  Checker check(Target(dtype, "gees"));
  if (sort == EigenvalueSort::kSort) {
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      check.target().name() +
                          ": sort 'S' (ordering eigenvalues on the diagonal) "
                          "is not implemented, as in jaxlib");
  }
  check.OneOf("mode", mode, {Vectors::kNone, Vectors::kCompute});
  check.OneOf("sort", sort, {EigenvalueSort::kNone});
  Matrices a = check.ReadMatrices("argument 0 (x)", x.dimensions());
  const int64_t n = a.rows;
  check.Shape("argument 0 (x)", x.dimensions(), a.batch_dims, {n, n});
  check.Shape("result 0", x_out->dimensions(), a.batch_dims, {n, n});
  check.Shape("result 1 (Schur vectors)", schur_vectors->dimensions(),
              a.batch_dims, {n, n});
  int result = 2;
  for (ffi::ResultBuffer<dtype>* w : eigenvalues) {
    check.Shape("result " + std::to_string(result++) + " (eigenvalues)",
                (*w)->dimensions(), a.batch_dims, {n});
  }
  check.Shape("result " + std::to_string(result++) + " (selected)",
              selected->dimensions(), a.batch_dims, {});
  check.Shape("result " + std::to_string(result) + " (info)",
              info->dimensions(), a.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  T* out = x_out->typed_data();
  CopyIfDifferent(x.typed_data(), out, x.element_count());
  int32_t* infos = info->typed_data();
  int32_t* sdims = selected->typed_data();
  if (n == 0 || a.batch == 0) {
    std::fill_n(sdims, a.batch, 0);
    return NothingToCompute(infos, a.batch);
  }
  const bool vectors = mode == Vectors::kCompute;
  if (!vectors) {
    std::fill_n(schur_vectors->typed_data(), schur_vectors->element_count(),
                T(0));
  }
  const char jobvs = static_cast<char>(mode);
  const char sort_c = static_cast<char>(sort);
  const Int ni = AsInt(n), ld = LeadingDim(n);
  auto rwork = Scratch<Real>(kIsComplex<T> ? n : 0);
  // Without vectors LAPACK never touches vs; one element stands in.
  auto no_vectors = Scratch<T>(1);
  auto call = [&](int64_t i, T* work, const Int* lwork, Int* status) {
    T* matrix = out + i * a.size();
    T* vs =
        vectors ? schur_vectors->typed_data() + i * n * n : no_vectors.get();
    Int sdim = 0;
    if constexpr (kIsComplex<T>) {
      Routines<T>::gees(&jobvs, &sort_c, nullptr, &ni, matrix, &ld, &sdim,
                        (*eigenvalues[0])->typed_data() + i * n, vs, &ld, work,
                        lwork, rwork.get(), nullptr, status, 1, 1);
    } else {
      Routines<T>::gees(&jobvs, &sort_c, nullptr, &ni, matrix, &ld, &sdim,
                        (*eigenvalues[0])->typed_data() + i * n,
                        (*eigenvalues[1])->typed_data() + i * n, vs, &ld, work,
                        lwork, nullptr, status, 1, 1);
    }
    sdims[i] = sdim;
  };
  return RunBatch<T>(check.target(), "gees", a.batch, 3 * n, infos, call);
}

template <ffi::DataType dtype>
ffi::Error RealSchur(ffi::Buffer<dtype> x, Vectors mode, EigenvalueSort sort,
                     ffi::ResultBuffer<dtype> x_out,
                     ffi::ResultBuffer<dtype> schur_vectors,
                     ffi::ResultBuffer<dtype> eigvals_real,
                     ffi::ResultBuffer<dtype> eigvals_imag,
                     ffi::ResultBuffer<ffi::DataType::S32> selected,
                     ffi::ResultBuffer<ffi::DataType::S32> info) {
  ffi::ResultBuffer<dtype>* parts[] = {&eigvals_real, &eigvals_imag};
  return Schur<dtype>(x, mode, sort, x_out, schur_vectors, {parts, 2}, selected,
                      info);
}

template <ffi::DataType dtype>
ffi::Error ComplexSchur(ffi::Buffer<dtype> x, Vectors mode, EigenvalueSort sort,
                        ffi::ResultBuffer<dtype> x_out,
                        ffi::ResultBuffer<dtype> schur_vectors,
                        ffi::ResultBuffer<dtype> eigvals,
                        ffi::ResultBuffer<ffi::DataType::S32> selected,
                        ffi::ResultBuffer<ffi::DataType::S32> info) {
  ffi::ResultBuffer<dtype>* values[] = {&eigvals};
  return Schur<dtype>(x, mode, sort, x_out, schur_vectors, {values, 1},
                      selected, info);
}

template <ffi::DataType dtype>
auto SchurBinding() {
  auto head = ffi::Ffi::Bind()
                  .Arg<ffi::Buffer<dtype>>()  // x
                  .template Attr<Vectors>("mode")
                  .template Attr<EigenvalueSort>("sort")
                  .template Ret<ffi::Buffer<dtype>>()   // x_out
                  .template Ret<ffi::Buffer<dtype>>();  // schur_vectors
  if constexpr (ffi::IsComplexType(dtype)) {
    return std::move(head)
        .template Ret<ffi::Buffer<dtype>>()                // eigvals
        .template Ret<ffi::Buffer<ffi::DataType::S32>>()   // selected
        .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
  } else {
    return std::move(head)
        .template Ret<ffi::Buffer<dtype>>()                // eigvals_real
        .template Ret<ffi::Buffer<dtype>>()                // eigvals_imag
        .template Ret<ffi::Buffer<ffi::DataType::S32>>()   // selected
        .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
  }
}

XFFI_DEFINE_HANDLER(kSgees, RealSchur<ffi::DataType::F32>,
                    SchurBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgees, RealSchur<ffi::DataType::F64>,
                    SchurBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgees, ComplexSchur<ffi::DataType::C64>,
                    SchurBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgees, ComplexSchur<ffi::DataType::C128>,
                    SchurBinding<ffi::DataType::C128>());

}  // namespace

void AddSchurTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgees_ffi", kSgees});
  targets.push_back({"lapack_dgees_ffi", kDgees});
  targets.push_back({"lapack_cgees_ffi", kCgees});
  targets.push_back({"lapack_zgees_ffi", kZgees});
}

}  // namespace xffi::cpu::lapack
