// The FFT kernels on 64-byte vectors; compiled with -mavx512f where the
// compiler targets x86-64 (src/CMakeLists.txt), chosen at run time only on
// CPUs that have AVX-512F.
#include "cpu/fft_lanes.h"

namespace xffi::cpu::fft {

const KernelSet& Kernels512() {
#if defined(__AVX512F__)
  static const KernelSet set = KernelSetOfWidth<64>();
#else
  static const KernelSet set;
#endif
  return set;
}

}  // namespace xffi::cpu::fft
