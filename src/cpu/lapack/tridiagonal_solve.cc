// Tridiagonal systems T x = b, T given by its three diagonals (each of
// length m, as JAX passes them: dl[0] and du[m-1] lie outside T and are
// ignored), b an m x nrhs matrix per batch element:
//
//   lapack_?gtsv_ffi                   LAPACK's gtsv: Gaussian elimination
//     with partial pivoting; the diagonals and b are overwritten (by the
//     factorisation and the solution); info k > 0: U(k,k) is exactly zero
//     and the solution was not computed.
//   tridiagonal_solve_perturbed_ffi    one name for all four dtypes: the
//     same elimination, but a pivot too small to divide by is nudged by a
//     multiple of eps * max|U| (the scheme of LAPACK's xLAGTF/xLAGTS), so a
//     singular T still gives a finite x. JAX uses it for inverse iteration
//     (eigenvectors in eigh_tridiagonal), where T is singular on purpose.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "cpu/lapack/support.h"
#include "cpu/lapack/targets.h"

namespace xffi::cpu::lapack {
namespace {

// The diagonals must be batch + [m] for b of batch + [m, nrhs].
Matrices CheckSystem(Checker& check, ffi::Span<const int64_t> dl,
                     ffi::Span<const int64_t> d, ffi::Span<const int64_t> du,
                     ffi::Span<const int64_t> b) {
  Matrices rhs = check.ReadMatrices("argument 3 (b)", b);
  check.Shape("argument 0 (dl)", dl, rhs.batch_dims, {rhs.rows});
  check.Shape("argument 1 (d)", d, rhs.batch_dims, {rhs.rows});
  check.Shape("argument 2 (du)", du, rhs.batch_dims, {rhs.rows});
  return rhs;
}

template <ffi::DataType dtype>
ffi::Error TridiagonalSolve(ffi::Buffer<dtype> dl, ffi::Buffer<dtype> d,
                            ffi::Buffer<dtype> du, ffi::Buffer<dtype> b,
                            ffi::ResultBuffer<dtype> dl_out,
                            ffi::ResultBuffer<dtype> d_out,
                            ffi::ResultBuffer<dtype> du_out,
                            ffi::ResultBuffer<dtype> b_out,
                            ffi::ResultBuffer<ffi::DataType::S32> info) {
  using T = ffi::NativeType<dtype>;
  Checker check(Target(dtype, "gtsv"));
  Matrices rhs = CheckSystem(check, dl.dimensions(), d.dimensions(),
                             du.dimensions(), b.dimensions());
  const int64_t m = rhs.rows;
  check.Shape("result 0 (dl)", dl_out->dimensions(), rhs.batch_dims, {m});
  check.Shape("result 1 (d)", d_out->dimensions(), rhs.batch_dims, {m});
  check.Shape("result 2 (du)", du_out->dimensions(), rhs.batch_dims, {m});
  check.Shape("result 3 (b)", b_out->dimensions(), rhs.batch_dims,
              {m, rhs.cols});
  check.Shape("result 4 (info)", info->dimensions(), rhs.batch_dims, {});
  if (!check.ok()) return std::move(check).error();

  CopyIfDifferent(dl.typed_data(), dl_out->typed_data(), dl.element_count());
  CopyIfDifferent(d.typed_data(), d_out->typed_data(), d.element_count());
  CopyIfDifferent(du.typed_data(), du_out->typed_data(), du.element_count());
  CopyIfDifferent(b.typed_data(), b_out->typed_data(), b.element_count());
  const Int n = AsInt(m), nrhs = AsInt(rhs.cols), ldb = LeadingDim(m);
  for (int64_t i = 0; i < rhs.batch; ++i) {
    Int status = 0;
    if (m > 0) {
      // LAPACK's subdiagonal starts at JAX's dl[1].
      Routines<T>::gtsv(&n, &nrhs, dl_out->typed_data() + i * m + 1,
                        d_out->typed_data() + i * m,
                        du_out->typed_data() + i * m,
                        b_out->typed_data() + i * rhs.size(), &ldb, &status);
    }
    info->typed_data()[i] = status;
  }
  return ffi::Error::Success();
}

// Divides by a pivot that may be tiny: if |pivot| < 1 and the quotient
// row / pivot (or 1 / pivot) would overflow, the pivot moves away from zero
// by `perturb` (with the sign of its real part), doubling each time, until
// it would not; a pivot below the underflow threshold that can be scaled
// instead is scaled up together with the row. This is LAPACK xLAGTS's
// safeguard.
template <typename T, typename Real>
void GuardPivot(Real perturb, T& pivot, std::vector<T>& row) {
  constexpr Real kOne = 1;
  constexpr Real kEps = std::numeric_limits<Real>::epsilon();
  const Real tiny = std::numeric_limits<Real>::min();
  const Real small = kOne / std::numeric_limits<Real>::max();
  // LAPACK's xLAMCH('S'): the smallest number whose reciprocal is finite.
  const Real safe_min = small < tiny ? tiny : small * (kOne + kEps);
  const Real big = kOne / safe_min;

  Real magnitude = std::abs(pivot);
  if (magnitude >= kOne) return;
  perturb =
      std::copysign(std::max(std::abs(perturb), safe_min), std::real(pivot));
  Real largest = 0;
  for (const T& v : row) largest = std::max(largest, Real(std::abs(v)));
  bool done = false;
  while (magnitude < kOne && !done) {
    if (magnitude < safe_min) {
      if (magnitude == 0 || largest * safe_min > magnitude) {
        pivot += perturb;
        perturb *= 2;
      } else {
        pivot *= big;
        for (T& v : row) v *= big;
        done = true;
      }
    } else if (largest > magnitude * big) {
      pivot += perturb;
      perturb *= 2;
    } else {
      done = true;
    }
    magnitude = std::abs(pivot);
  }
}

// One system: n equations, k right-hand sides, b and x column-major n x k.
// Elimination with row pivoting keeps U's three diagonals (a row exchange
// can fill the second superdiagonal) and applies L to the right-hand sides
// as it goes; back substitution then guards each pivot.
template <typename T>
void SolvePerturbed(int64_t n, int64_t k, const T* sub, const T* diag,
                    const T* super, const T* b, T* x) {
  using Real = decltype(std::abs(T()));
  if (n == 0) return;
  auto row_of = [n](T* matrix, int64_t r, std::vector<T>& into) {
    for (size_t j = 0; j < into.size(); ++j) into[j] = matrix[r + j * n];
  };
  auto set_row = [n](T* matrix, int64_t r, const std::vector<T>& from) {
    for (size_t j = 0; j < from.size(); ++j) matrix[r + j * n] = from[j];
  };
  std::vector<T> row(static_cast<size_t>(k));
  if (n == 1) {
    T pivot = diag[0];
    for (int64_t j = 0; j < k; ++j) row[j] = b[j * n];
    GuardPivot(std::numeric_limits<Real>::epsilon() * std::abs(pivot), pivot,
               row);
    for (int64_t j = 0; j < k; ++j) x[j * n] = row[j] / pivot;
    return;
  }

  // u0, u1, u2: U's diagonal, superdiagonal and second superdiagonal.
  std::vector<T> u0(n), u1(n), u2(n);
  u0[0] = diag[0];
  u1[0] = super[0];
  Real largest_u = std::max(std::abs(u0[0]), std::abs(u1[0]));
  Real scale = std::abs(u0[0]) + std::abs(u1[0]);
  for (int64_t j = 0; j < k; ++j) x[j * n] = b[j * n];
  for (int64_t r = 0; r + 1 < n; ++r) {
    const bool before_last = r + 2 < n;
    u0[r + 1] = diag[r + 1];
    Real next_scale = std::abs(sub[r + 1]) + std::abs(u0[r + 1]);
    if (before_last) next_scale += std::abs(super[r + 1]);
    if (sub[r + 1] == T(0)) {
      // Nothing to eliminate in row r+1.
      scale = next_scale;
      u1[r + 1] = super[r + 1];
      u2[r] = 0;
      for (int64_t j = 0; j < k; ++j) x[r + 1 + j * n] = b[r + 1 + j * n];
    } else {
      const Real pivot_here = u0[r] == T(0) ? Real(0) : std::abs(u0[r]) / scale;
      const Real pivot_below = std::abs(sub[r + 1]) / next_scale;
      if (pivot_below <= pivot_here) {
        scale = next_scale;
        const T factor = sub[r + 1] / u0[r];
        u0[r + 1] -= factor * u1[r];
        u1[r + 1] = super[r + 1];
        u2[r] = 0;
        for (int64_t j = 0; j < k; ++j)
          x[r + 1 + j * n] = b[r + 1 + j * n] - factor * x[r + j * n];
      } else {
        // Exchange rows r and r+1.
        const T factor = u0[r] / sub[r + 1];
        const T above = u1[r];
        u0[r] = sub[r + 1];
        u0[r + 1] = above - factor * diag[r + 1];
        u1[r] = diag[r + 1];
        if (before_last) {
          u2[r] = super[r + 1];
          u1[r + 1] = -factor * super[r + 1];
        }
        for (int64_t j = 0; j < k; ++j) {
          const T xr = x[r + j * n];
          x[r + 1 + j * n] = xr - factor * b[r + 1 + j * n];
          x[r + j * n] = b[r + 1 + j * n];
        }
        scale = std::abs(u0[r + 1]) + std::abs(u1[r + 1]);
      }
    }
    if (before_last) {
      largest_u = std::max({largest_u, Real(std::abs(u0[r])),
                            Real(std::abs(u1[r])), Real(std::abs(u2[r]))});
    }
  }
  largest_u = std::max(largest_u, Real(std::abs(u0[n - 1])));

  const Real perturb = std::numeric_limits<Real>::epsilon() * largest_u;
  const T one(1);
  for (int64_t r = n - 1; r >= 0; --r) {
    row_of(x, r, row);
    if (r + 1 < n)
      for (int64_t j = 0; j < k; ++j) row[j] -= u1[r] * x[r + 1 + j * n];
    if (r + 2 < n)
      for (int64_t j = 0; j < k; ++j) row[j] -= u2[r] * x[r + 2 + j * n];
    T pivot = u0[r];
    GuardPivot(r + 1 < n ? std::copysign(perturb, std::real(pivot)) : perturb,
               pivot, row);
    const T inverse = one / pivot;
    for (T& v : row) v *= inverse;
    set_row(x, r, row);
  }
}

template <typename T>
ffi::Error SolvePerturbedBatch(const Matrices& rhs, ffi::AnyBuffer dl,
                               ffi::AnyBuffer d, ffi::AnyBuffer du,
                               ffi::AnyBuffer b, ffi::AnyBuffer x) {
  const int64_t m = rhs.rows;
  for (int64_t i = 0; i < rhs.batch; ++i) {
    SolvePerturbed<T>(m, rhs.cols, dl.typed_data<T>() + i * m,
                      d.typed_data<T>() + i * m, du.typed_data<T>() + i * m,
                      b.typed_data<T>() + i * rhs.size(),
                      x.typed_data<T>() + i * rhs.size());
  }
  return ffi::Error::Success();
}

ffi::Error TridiagonalSolvePerturbed(ffi::AnyBuffer dl, ffi::AnyBuffer d,
                                     ffi::AnyBuffer du, ffi::AnyBuffer b,
                                     ffi::Result<ffi::AnyBuffer> x) {
  Checker check(Target::Named("tridiagonal_solve_perturbed_ffi"));
  const ffi::DataType dtype = b.element_type();
  const ffi::DataType types[] = {dl.element_type(), d.element_type(),
                                 du.element_type(), dtype, x->element_type()};
  const char* names[] = {"argument 0 (dl)", "argument 1 (d)", "argument 2 (du)",
                         "argument 3 (b)", "result 0 (x)"};
  if (dtype != ffi::DataType::F32 && dtype != ffi::DataType::F64 &&
      dtype != ffi::DataType::C64 && dtype != ffi::DataType::C128) {
    check.Fail(std::string("argument 3 (b) is ") + ffi::DataTypeName(dtype) +
               "; expected F32, F64, C64 or C128");
  }
  for (int i = 0; i < 5; ++i) {
    if (types[i] != dtype) {
      check.Fail(std::string(names[i]) + " is " + ffi::DataTypeName(types[i]) +
                 " but b is " + ffi::DataTypeName(dtype) +
                 "; all must have one dtype");
    }
  }
  Matrices rhs = CheckSystem(check, dl.dimensions(), d.dimensions(),
                             du.dimensions(), b.dimensions());
  check.Shape("result 0 (x)", x->dimensions(), rhs.batch_dims,
              {rhs.rows, rhs.cols});
  if (!check.ok()) return std::move(check).error();
  switch (dtype) {
    case ffi::DataType::F32:
      return SolvePerturbedBatch<float>(rhs, dl, d, du, b, *x);
    case ffi::DataType::F64:
      return SolvePerturbedBatch<double>(rhs, dl, d, du, b, *x);
    case ffi::DataType::C64:
      return SolvePerturbedBatch<C64>(rhs, dl, d, du, b, *x);
    default:
      return SolvePerturbedBatch<C128>(rhs, dl, d, du, b, *x);
  }
}

template <ffi::DataType dtype>
auto TridiagonalSolveBinding() {
  return ffi::Ffi::Bind()
      .Arg<ffi::Buffer<dtype>>()                         // dl
      .template Arg<ffi::Buffer<dtype>>()                // d
      .template Arg<ffi::Buffer<dtype>>()                // du
      .template Arg<ffi::Buffer<dtype>>()                // b
      .template Ret<ffi::Buffer<dtype>>()                // dl_out
      .template Ret<ffi::Buffer<dtype>>()                // d_out
      .template Ret<ffi::Buffer<dtype>>()                // du_out
      .template Ret<ffi::Buffer<dtype>>()                // b_out
      .template Ret<ffi::Buffer<ffi::DataType::S32>>();  // info
}

XFFI_DEFINE_HANDLER(kSgtsv, TridiagonalSolve<ffi::DataType::F32>,
                    TridiagonalSolveBinding<ffi::DataType::F32>());
XFFI_DEFINE_HANDLER(kDgtsv, TridiagonalSolve<ffi::DataType::F64>,
                    TridiagonalSolveBinding<ffi::DataType::F64>());
XFFI_DEFINE_HANDLER(kCgtsv, TridiagonalSolve<ffi::DataType::C64>,
                    TridiagonalSolveBinding<ffi::DataType::C64>());
XFFI_DEFINE_HANDLER(kZgtsv, TridiagonalSolve<ffi::DataType::C128>,
                    TridiagonalSolveBinding<ffi::DataType::C128>());
XFFI_DEFINE_HANDLER(kPerturbed, TridiagonalSolvePerturbed,
                    ffi::Ffi::Bind()
                        .Arg<ffi::AnyBuffer>()    // dl
                        .Arg<ffi::AnyBuffer>()    // d
                        .Arg<ffi::AnyBuffer>()    // du
                        .Arg<ffi::AnyBuffer>()    // b
                        .Ret<ffi::AnyBuffer>());  // x

}  // namespace

void AddTridiagonalSolveTargets(BuiltinTargets& targets) {
  targets.push_back({"lapack_sgtsv_ffi", kSgtsv});
  targets.push_back({"lapack_dgtsv_ffi", kDgtsv});
  targets.push_back({"lapack_cgtsv_ffi", kCgtsv});
  targets.push_back({"lapack_zgtsv_ffi", kZgtsv});
  targets.push_back({"tridiagonal_solve_perturbed_ffi", kPerturbed});
}

}  // namespace xffi::cpu::lapack
