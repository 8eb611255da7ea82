// The FFT kernels on 32-byte vectors; compiled with -mavx2 -mfma where the
// compiler targets x86-64 (src/CMakeLists.txt), chosen at run time only on
// CPUs that have both.
#include "cpu/fft_lanes.h"

namespace xffi::cpu::fft {

const KernelSet& Kernels256() {
#if defined(__AVX2__) && defined(__FMA__)
  static const KernelSet set = KernelSetOfWidth<32>();
#else
  static const KernelSet set;
#endif
  return set;
}

}  // namespace xffi::cpu::fft
