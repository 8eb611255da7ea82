#include "cpu/dnnl_gemm.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#ifdef XFFI_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

// OpenMP's run-time entry points (libgomp, which libdnnl links): declared
// here so that no source needs the compiler's OpenMP flags.
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int threads);
}
#endif

namespace xffi::cpu {
namespace {

// -1: not decided yet (the environment decides on first use).
std::atomic<int> dnnl_enabled{-1};

}  // namespace

void SetDnnlEnabled(bool enabled) { dnnl_enabled.store(enabled ? 1 : 0); }

#ifdef XFFI_HAVE_DNNL
OneOpenMpThread::OneOpenMpThread() : saved_(omp_get_max_threads()) {
  if (saved_ != 1) omp_set_num_threads(1);
}

OneOpenMpThread::~OneOpenMpThread() {
  if (saved_ != 1) omp_set_num_threads(saved_);
}

bool HaveDnnl() {
  int enabled = dnnl_enabled.load(std::memory_order_relaxed);
  if (enabled < 0) {
    const char* env = std::getenv("XFFI_DNNL");
    int decided = env != nullptr && std::strcmp(env, "0") == 0 ? 0 : 1;
    dnnl_enabled.compare_exchange_strong(enabled, decided);
    enabled = dnnl_enabled.load();
  }
  return enabled == 1;
}

// The s8 GEMM is exact only where oneDNN dispatches to its VNNI kernels
// (vpdpbusd accumulates in 32 bits and wraps); below that its kernels add
// pairs of byte products in 16 bits with saturation (measured: wrong sums
// with DNNL_MAX_CPU_ISA=AVX2). The ISA oneDNN reports honours that
// variable.
bool DnnlGemmS8Exact() {
  if (!HaveDnnl()) return false;
  static const bool exact = [] {
    const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const unsigned vnni = dnnl_cpu_isa_avx512_core_vnni;
    return (isa & vnni) == vnni;
  }();
  return exact;
}

bool DnnlSgemm(bool a_transposed, bool b_transposed, int64_t m, int64_t n,
               int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc) {
  if (!HaveDnnl()) return false;
  OneOpenMpThread one;
  return dnnl_sgemm(a_transposed ? 'T' : 'N', b_transposed ? 'T' : 'N', m, n, k,
                    1.0f, a, lda, b, ldb, 0.0f, c, ldc) == dnnl_success;
}

bool DnnlGemmS8(bool a_signed, bool b_transposed, int64_t m, int64_t n,
                int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                int64_t ldb, int32_t* c, int64_t ldc) {
  if (!DnnlGemmS8Exact()) return false;
  OneOpenMpThread one;
  // alpha 1 and beta 0 keep oneDNN on its integer path (no float scaling).
  const int32_t no_offset = 0;
  const char op_b = b_transposed ? 'T' : 'N';
  const dnnl_status_t status =
      a_signed ? dnnl_gemm_s8s8s32('N', op_b, 'F', m, n, k, 1.0f,
                                   reinterpret_cast<const int8_t*>(a), lda, 0,
                                   b, ldb, 0, 0.0f, c, ldc, &no_offset)
               : dnnl_gemm_u8s8s32('N', op_b, 'F', m, n, k, 1.0f, a, lda, 0, b,
                                   ldb, 0, 0.0f, c, ldc, &no_offset);
  return status == dnnl_success;
}

#else  // !XFFI_HAVE_DNNL

OneOpenMpThread::OneOpenMpThread() = default;
OneOpenMpThread::~OneOpenMpThread() = default;

bool HaveDnnl() { return false; }

bool DnnlGemmS8Exact() { return false; }

bool DnnlSgemm(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t,
               const float*, int64_t, float*, int64_t) {
  return false;
}

bool DnnlGemmS8(bool, bool, int64_t, int64_t, int64_t, const uint8_t*, int64_t,
                const int8_t*, int64_t, int32_t*, int64_t) {
  return false;
}

#endif  // XFFI_HAVE_DNNL

}  // namespace xffi::cpu
