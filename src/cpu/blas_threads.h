// xffi: OpenBLAS's own threads stay off in the CPU backend.
//
// Idle OpenBLAS threads spin for a long while after each product before they
// sleep; on a machine with few cores they take the cores the intra-op pool's
// next loop needs (measured on 2 cores: attention, MLP-gradient and
// convolution workloads 10-60x slower than with one BLAS thread, and
// bimodal). Kernels that call BLAS split products into fixed blocks of
// result rows on the pool instead, so the pool's threads are the only ones.
#ifndef XFFI_SRC_CPU_BLAS_THREADS_H_
#define XFFI_SRC_CPU_BLAS_THREADS_H_

namespace xffi::cpu {

// Sets OpenBLAS to one thread, once per process (a no-op in a build without
// OpenBLAS). Call before any BLAS product.
void KeepBlasSingleThreaded();

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_BLAS_THREADS_H_
