// The FFT kernels on 16-byte vectors, which every x86-64 has, and on one
// lane (the sequences no vector group fills; plans' own transforms).
#include <vector>

#include "cpu/fft_lanes.h"

namespace xffi::cpu::fft {

const KernelSet& ScalarKernels() {
  static const KernelSet set{KernelsOfLanes<float, 1>(),
                             KernelsOfLanes<double, 1>()};
  return set;
}

const KernelSet& Kernels128() {
  static const KernelSet set = KernelSetOfWidth<16>();
  return set;
}

template <typename T>
void ForwardOne(const PlanView<T>& plan, T* data) {
  // Pack<T, 1> is a (re, im) pair; copied rather than aliased.
  std::vector<Pack<T, 1>> values(static_cast<size_t>(plan.n)),
      scratch(static_cast<size_t>(plan.scratch_size()));
  for (int64_t j = 0; j < plan.n; ++j)
    values[j] = {data[2 * j], data[2 * j + 1]};
  const Pack<T, 1>* out = Forward<T, 1>(plan, values.data(), scratch.data());
  for (int64_t j = 0; j < plan.n; ++j) {
    data[2 * j] = out[j].re;
    data[2 * j + 1] = out[j].im;
  }
}

template void ForwardOne<float>(const PlanView<float>&, float*);
template void ForwardOne<double>(const PlanView<double>&, double*);

}  // namespace xffi::cpu::fft
