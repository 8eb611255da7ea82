// xffi: oneDNN's GEMMs for the CPU backend's matrix products.
//
// oneDNN (Apache-2.0; Debian's libdnnl, OpenMP runtime) generates its GEMM
// kernels at run time for the CPU it finds (AVX-512, VNNI), whatever core
// type OpenBLAS is told to use; on this project's 2-core Zen 4 its f32 GEMM
// measured about twice OpenBLAS's Haswell kernels and its s8 GEMM several
// times our int16 multiply-add loop (bench/README.md). Every call runs on
// the calling thread alone: the kernels split products into fixed blocks on
// xffi's intra-op pool, as they do for OpenBLAS (blas_threads.h), because
// OpenMP threads spinning after a call would take the pool's cores, and
// because the blocks depend on the shapes only, each result element is
// summed the same way on any number of threads.
//
// Each function returns false when it computed nothing — a build without
// oneDNN, a CPU it should not be used on, or an error — and the caller
// then takes its own path; callers need no compile definition of their own.
#ifndef XFFI_SRC_CPU_DNNL_GEMM_H_
#define XFFI_SRC_CPU_DNNL_GEMM_H_

#include <cstdint>

namespace xffi::cpu {

// True when the products may use oneDNN: this build has it and the
// environment does not say XFFI_DNNL=0 (read once; then OpenBLAS and the
// int16 loop compute everything, as in a build without oneDNN).
bool HaveDnnl();

// Overrides the environment's choice (tests compare both paths). Kernels
// decide their path when they are made, so this affects kernels made after
// the call.
void SetDnnlEnabled(bool enabled);

// While one lives, oneDNN calls on this thread run on it alone: oneDNN sizes
// its OpenMP team by the calling thread's own thread count, which this sets
// to one and then back, so a user's OpenMP code on a thread that runs a
// program keeps its own setting and no team of OpenMP threads is ever
// started (none left spinning). A no-op without oneDNN.
class OneOpenMpThread {
 public:
  OneOpenMpThread();
  ~OneOpenMpThread();
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  int saved_ = 1;
};

// c[m, n] (ldc) = op(a) * op(b), row-major f32: op(a) is a [m, k] (lda) or,
// transposed, a stored [k, m]; op(b) is b [k, n] (ldb) or, transposed, b
// stored [n, k].
bool DnnlSgemm(bool a_transposed, bool b_transposed, int64_t m, int64_t n,
               int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc);

// True when DnnlGemmS8 computes (HaveDnnl() and oneDNN runs its VNNI
// kernels on this CPU).
bool DnnlGemmS8Exact();

// c[m, n] (ldc) = a[m, k] (lda) * op(b) in int32, exact and wrapping mod
// 2^32 as XLA's integer dot into s32: a signed (s8) or unsigned (u8) bytes,
// b signed bytes, [k, n] (ldb) or, transposed, stored [n, k]. Only on CPUs
// with VNNI: oneDNN's older int8 kernels may saturate intermediate 16-bit
// sums.
bool DnnlGemmS8(bool a_signed, bool b_transposed, int64_t m, int64_t n,
                int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                int64_t ldb, int32_t* c, int64_t ldc);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_DNNL_GEMM_H_
