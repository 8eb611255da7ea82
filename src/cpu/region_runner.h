// xffi: the executor's RegionRunner, through which kernels run regions
// (reduce bodies, comparators, combiners) as compiled computations.
#ifndef XFFI_SRC_CPU_REGION_RUNNER_H_
#define XFFI_SRC_CPU_REGION_RUNNER_H_

#include <utility>
#include <vector>

#include "cpu/kernel.h"

namespace xffi::cpu {

class CompiledComputation;

// One per kernel op, holding that op's regions (one or two), so finding the
// region a kernel names is a pointer comparison, not a map lookup, however
// the kernel interleaves its calls.
class ExecutorRegionRunner : public RegionRunner {
 public:
  explicit ExecutorRegionRunner(
      const std::vector<std::pair<const Computation*, CompiledComputation*>>&
          regions);

  // Runs the region's compiled form on the kernel's arrays. Results that
  // overlap arguments are computed into scratch first, so a kernel may pass
  // its accumulator as both. Not reentrant for one region: kernels call it
  // from one thread at a time.
  Status Run(const Computation& computation,
             std::span<const ArrayView> arguments,
             std::span<const ArrayView> results) override;

 private:
  struct Slot {
    const Computation* computation = nullptr;
    CompiledComputation* compiled = nullptr;
    std::vector<const void*> parameters;
    std::vector<void*> outputs;
    std::vector<unsigned char> scratch;
  };
  Slot* Find(const Computation& computation);

  std::vector<Slot> slots_;
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_REGION_RUNNER_H_
