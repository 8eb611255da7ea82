// xffi: the LAPACK and BLAS routines the built-in jaxlib targets call,
// declared as the Fortran 77 interface every LAPACK exports (reference
// LAPACK, OpenBLAS): arguments by pointer, 32-bit INTEGER (the LP64 ABI of
// Debian's libraries), and after the ordinary arguments one hidden length
// per CHARACTER argument, which gfortran-built code may read (passing them
// is what keeps the call well-defined, not only working).
//
// Routines<T> gathers the routines of one element type (float, double,
// std::complex<float>, std::complex<double>) so a handler templated on its
// dtype names them once. Where the real and complex routines differ in
// signature (geqp3, gesdd, gesvd, geev, gees, syevd/heevd), each has its own.
#ifndef XFFI_SRC_CPU_LAPACK_ROUTINES_H_
#define XFFI_SRC_CPU_LAPACK_ROUTINES_H_

#include <complex>
#include <cstddef>
#include <cstdint>

namespace xffi::cpu::lapack {

// LAPACK's INTEGER and LOGICAL.
using Int = int32_t;
using Logical = int32_t;
// A CHARACTER argument's hidden length.
using CharLength = size_t;

using C64 = std::complex<float>;
using C128 = std::complex<double>;

// Declared in this namespace, with C linkage: they name the same global
// symbols (sgetrf_, ...) while the types above stay out of the global scope.
extern "C" {

// op(A) X = alpha B or X op(A) = alpha B, A triangular; X overwrites B.
#define XFFI_DECLARE_TRSM(p, T)                                               \
  void p##trsm_(const char* side, const char* uplo, const char* transa,       \
                const char* diag, const Int* m, const Int* n, const T* alpha, \
                const T* a, const Int* lda, T* b, const Int* ldb, CharLength, \
                CharLength, CharLength, CharLength)
XFFI_DECLARE_TRSM(s, float);
XFFI_DECLARE_TRSM(d, double);
XFFI_DECLARE_TRSM(c, C64);
XFFI_DECLARE_TRSM(z, C128);
#undef XFFI_DECLARE_TRSM

// LU with partial pivoting; 1-based pivots.
#define XFFI_DECLARE_GETRF(p, T)                                              \
  void p##getrf_(const Int* m, const Int* n, T* a, const Int* lda, Int* ipiv, \
                 Int* info)
XFFI_DECLARE_GETRF(s, float);
XFFI_DECLARE_GETRF(d, double);
XFFI_DECLARE_GETRF(c, C64);
XFFI_DECLARE_GETRF(z, C128);
#undef XFFI_DECLARE_GETRF

// QR as Householder reflectors below the diagonal and their scalars tau.
#define XFFI_DECLARE_GEQRF(p, T)                                           \
  void p##geqrf_(const Int* m, const Int* n, T* a, const Int* lda, T* tau, \
                 T* work, const Int* lwork, Int* info)
XFFI_DECLARE_GEQRF(s, float);
XFFI_DECLARE_GEQRF(d, double);
XFFI_DECLARE_GEQRF(c, C64);
XFFI_DECLARE_GEQRF(z, C128);
#undef XFFI_DECLARE_GEQRF

// QR with column pivoting; jpvt in and out, 1-based.
void sgeqp3_(const Int* m, const Int* n, float* a, const Int* lda, Int* jpvt,
             float* tau, float* work, const Int* lwork, Int* info);
void dgeqp3_(const Int* m, const Int* n, double* a, const Int* lda, Int* jpvt,
             double* tau, double* work, const Int* lwork, Int* info);
void cgeqp3_(const Int* m, const Int* n, C64* a, const Int* lda, Int* jpvt,
             C64* tau, C64* work, const Int* lwork, float* rwork, Int* info);
void zgeqp3_(const Int* m, const Int* n, C128* a, const Int* lda, Int* jpvt,
             C128* tau, C128* work, const Int* lwork, double* rwork, Int* info);

// The first n columns of Q from k reflectors (orgqr real, ungqr complex).
#define XFFI_DECLARE_ORGQR(name, T)                                         \
  void name(const Int* m, const Int* n, const Int* k, T* a, const Int* lda, \
            const T* tau, T* work, const Int* lwork, Int* info)
XFFI_DECLARE_ORGQR(sorgqr_, float);
XFFI_DECLARE_ORGQR(dorgqr_, double);
XFFI_DECLARE_ORGQR(cungqr_, C64);
XFFI_DECLARE_ORGQR(zungqr_, C128);
#undef XFFI_DECLARE_ORGQR

// C := op(Q) C or C op(Q) with Q given by k reflectors (ormqr, unmqr).
#define XFFI_DECLARE_ORMQR(name, T)                                           \
  void name(const char* side, const char* trans, const Int* m, const Int* n,  \
            const Int* k, const T* a, const Int* lda, const T* tau, T* c,     \
            const Int* ldc, T* work, const Int* lwork, Int* info, CharLength, \
            CharLength)
XFFI_DECLARE_ORMQR(sormqr_, float);
XFFI_DECLARE_ORMQR(dormqr_, double);
XFFI_DECLARE_ORMQR(cunmqr_, C64);
XFFI_DECLARE_ORMQR(zunmqr_, C128);
#undef XFFI_DECLARE_ORMQR

// Cholesky of the uplo triangle.
#define XFFI_DECLARE_POTRF(p, T)                                       \
  void p##potrf_(const char* uplo, const Int* n, T* a, const Int* lda, \
                 Int* info, CharLength)
XFFI_DECLARE_POTRF(s, float);
XFFI_DECLARE_POTRF(d, double);
XFFI_DECLARE_POTRF(c, C64);
XFFI_DECLARE_POTRF(z, C128);
#undef XFFI_DECLARE_POTRF

// SVD, divide and conquer.
void sgesdd_(const char* jobz, const Int* m, const Int* n, float* a,
             const Int* lda, float* s, float* u, const Int* ldu, float* vt,
             const Int* ldvt, float* work, const Int* lwork, Int* iwork,
             Int* info, CharLength);
void dgesdd_(const char* jobz, const Int* m, const Int* n, double* a,
             const Int* lda, double* s, double* u, const Int* ldu, double* vt,
             const Int* ldvt, double* work, const Int* lwork, Int* iwork,
             Int* info, CharLength);
void cgesdd_(const char* jobz, const Int* m, const Int* n, C64* a,
             const Int* lda, float* s, C64* u, const Int* ldu, C64* vt,
             const Int* ldvt, C64* work, const Int* lwork, float* rwork,
             Int* iwork, Int* info, CharLength);
void zgesdd_(const char* jobz, const Int* m, const Int* n, C128* a,
             const Int* lda, double* s, C128* u, const Int* ldu, C128* vt,
             const Int* ldvt, C128* work, const Int* lwork, double* rwork,
             Int* iwork, Int* info, CharLength);

// SVD, QR iteration.
void sgesvd_(const char* jobu, const char* jobvt, const Int* m, const Int* n,
             float* a, const Int* lda, float* s, float* u, const Int* ldu,
             float* vt, const Int* ldvt, float* work, const Int* lwork,
             Int* info, CharLength, CharLength);
void dgesvd_(const char* jobu, const char* jobvt, const Int* m, const Int* n,
             double* a, const Int* lda, double* s, double* u, const Int* ldu,
             double* vt, const Int* ldvt, double* work, const Int* lwork,
             Int* info, CharLength, CharLength);
void cgesvd_(const char* jobu, const char* jobvt, const Int* m, const Int* n,
             C64* a, const Int* lda, float* s, C64* u, const Int* ldu, C64* vt,
             const Int* ldvt, C64* work, const Int* lwork, float* rwork,
             Int* info, CharLength, CharLength);
void zgesvd_(const char* jobu, const char* jobvt, const Int* m, const Int* n,
             C128* a, const Int* lda, double* s, C128* u, const Int* ldu,
             C128* vt, const Int* ldvt, C128* work, const Int* lwork,
             double* rwork, Int* info, CharLength, CharLength);

// Symmetric / Hermitian eigendecomposition, divide and conquer.
void ssyevd_(const char* jobz, const char* uplo, const Int* n, float* a,
             const Int* lda, float* w, float* work, const Int* lwork,
             Int* iwork, const Int* liwork, Int* info, CharLength, CharLength);
void dsyevd_(const char* jobz, const char* uplo, const Int* n, double* a,
             const Int* lda, double* w, double* work, const Int* lwork,
             Int* iwork, const Int* liwork, Int* info, CharLength, CharLength);
void cheevd_(const char* jobz, const char* uplo, const Int* n, C64* a,
             const Int* lda, float* w, C64* work, const Int* lwork,
             float* rwork, const Int* lrwork, Int* iwork, const Int* liwork,
             Int* info, CharLength, CharLength);
void zheevd_(const char* jobz, const char* uplo, const Int* n, C128* a,
             const Int* lda, double* w, C128* work, const Int* lwork,
             double* rwork, const Int* lrwork, Int* iwork, const Int* liwork,
             Int* info, CharLength, CharLength);

// General eigendecomposition.
void sgeev_(const char* jobvl, const char* jobvr, const Int* n, float* a,
            const Int* lda, float* wr, float* wi, float* vl, const Int* ldvl,
            float* vr, const Int* ldvr, float* work, const Int* lwork,
            Int* info, CharLength, CharLength);
void dgeev_(const char* jobvl, const char* jobvr, const Int* n, double* a,
            const Int* lda, double* wr, double* wi, double* vl, const Int* ldvl,
            double* vr, const Int* ldvr, double* work, const Int* lwork,
            Int* info, CharLength, CharLength);
void cgeev_(const char* jobvl, const char* jobvr, const Int* n, C64* a,
            const Int* lda, C64* w, C64* vl, const Int* ldvl, C64* vr,
            const Int* ldvr, C64* work, const Int* lwork, float* rwork,
            Int* info, CharLength, CharLength);
void zgeev_(const char* jobvl, const char* jobvr, const Int* n, C128* a,
            const Int* lda, C128* w, C128* vl, const Int* ldvl, C128* vr,
            const Int* ldvr, C128* work, const Int* lwork, double* rwork,
            Int* info, CharLength, CharLength);

// Schur decomposition. `select` is only called when sort is 'S'.
using SelectReal32 = Logical (*)(const float*, const float*);
using SelectReal64 = Logical (*)(const double*, const double*);
using SelectComplex64 = Logical (*)(const C64*);
using SelectComplex128 = Logical (*)(const C128*);
void sgees_(const char* jobvs, const char* sort, SelectReal32 select,
            const Int* n, float* a, const Int* lda, Int* sdim, float* wr,
            float* wi, float* vs, const Int* ldvs, float* work,
            const Int* lwork, Logical* bwork, Int* info, CharLength,
            CharLength);
void dgees_(const char* jobvs, const char* sort, SelectReal64 select,
            const Int* n, double* a, const Int* lda, Int* sdim, double* wr,
            double* wi, double* vs, const Int* ldvs, double* work,
            const Int* lwork, Logical* bwork, Int* info, CharLength,
            CharLength);
void cgees_(const char* jobvs, const char* sort, SelectComplex64 select,
            const Int* n, C64* a, const Int* lda, Int* sdim, C64* w, C64* vs,
            const Int* ldvs, C64* work, const Int* lwork, float* rwork,
            Logical* bwork, Int* info, CharLength, CharLength);
void zgees_(const char* jobvs, const char* sort, SelectComplex128 select,
            const Int* n, C128* a, const Int* lda, Int* sdim, C128* w, C128* vs,
            const Int* ldvs, C128* work, const Int* lwork, double* rwork,
            Logical* bwork, Int* info, CharLength, CharLength);

// Hessenberg reduction of rows and columns ilo..ihi.
#define XFFI_DECLARE_GEHRD(p, T)                                     \
  void p##gehrd_(const Int* n, const Int* ilo, const Int* ihi, T* a, \
                 const Int* lda, T* tau, T* work, const Int* lwork, Int* info)
XFFI_DECLARE_GEHRD(s, float);
XFFI_DECLARE_GEHRD(d, double);
XFFI_DECLARE_GEHRD(c, C64);
XFFI_DECLARE_GEHRD(z, C128);
#undef XFFI_DECLARE_GEHRD

// Tridiagonal reduction of a symmetric (sytrd) or Hermitian (hetrd) matrix;
// the diagonals are real either way.
#define XFFI_DECLARE_SYTRD(name, T, R)                                        \
  void name(const char* uplo, const Int* n, T* a, const Int* lda, R* d, R* e, \
            T* tau, T* work, const Int* lwork, Int* info, CharLength)
XFFI_DECLARE_SYTRD(ssytrd_, float, float);
XFFI_DECLARE_SYTRD(dsytrd_, double, double);
XFFI_DECLARE_SYTRD(chetrd_, C64, float);
XFFI_DECLARE_SYTRD(zhetrd_, C128, double);
#undef XFFI_DECLARE_SYTRD

// A tridiagonal system by Gaussian elimination with partial pivoting.
#define XFFI_DECLARE_GTSV(p, T)                                          \
  void p##gtsv_(const Int* n, const Int* nrhs, T* dl, T* d, T* du, T* b, \
                const Int* ldb, Int* info)
XFFI_DECLARE_GTSV(s, float);
XFFI_DECLARE_GTSV(d, double);
XFFI_DECLARE_GTSV(c, C64);
XFFI_DECLARE_GTSV(z, C128);
#undef XFFI_DECLARE_GTSV
}  // extern "C"

template <typename T>
struct Routines;

// The routines of one element type. Members are named for the real
// routines; complex types put their counterparts in the same places
// (orgqr: ungqr, ormqr: unmqr, syevd: heevd, sytrd: hetrd).
#define XFFI_LAPACK_ROUTINES(T, R, p, orgqr_, ormqr_, syevd_, sytrd_) \
  template <>                                                         \
  struct Routines<T> {                                                \
    using Real = R;                                                   \
    static constexpr auto trsm = p##trsm_;                            \
    static constexpr auto getrf = p##getrf_;                          \
    static constexpr auto geqrf = p##geqrf_;                          \
    static constexpr auto geqp3 = p##geqp3_;                          \
    static constexpr auto orgqr = orgqr_;                             \
    static constexpr auto ormqr = ormqr_;                             \
    static constexpr auto potrf = p##potrf_;                          \
    static constexpr auto gesdd = p##gesdd_;                          \
    static constexpr auto gesvd = p##gesvd_;                          \
    static constexpr auto syevd = syevd_;                             \
    static constexpr auto geev = p##geev_;                            \
    static constexpr auto gees = p##gees_;                            \
    static constexpr auto gehrd = p##gehrd_;                          \
    static constexpr auto sytrd = sytrd_;                             \
    static constexpr auto gtsv = p##gtsv_;                            \
  }
XFFI_LAPACK_ROUTINES(float, float, s, sorgqr_, sormqr_, ssyevd_, ssytrd_);
XFFI_LAPACK_ROUTINES(double, double, d, dorgqr_, dormqr_, dsyevd_, dsytrd_);
XFFI_LAPACK_ROUTINES(C64, float, c, cungqr_, cunmqr_, cheevd_, chetrd_);
XFFI_LAPACK_ROUTINES(C128, double, z, zungqr_, zunmqr_, zheevd_, zhetrd_);
#undef XFFI_LAPACK_ROUTINES

}  // namespace xffi::cpu::lapack

#endif  // XFFI_SRC_CPU_LAPACK_ROUTINES_H_
