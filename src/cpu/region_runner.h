// xffi: the executor's RegionRunner, through which kernels run regions
// (reduce bodies, comparators, combiners) as compiled computations.
#ifndef XFFI_SRC_CPU_REGION_RUNNER_H_
#define XFFI_SRC_CPU_REGION_RUNNER_H_

#include <unordered_map>
#include <vector>

#include "cpu/kernel.h"

namespace xffi::cpu {

struct ExecutorEnv;
class CompiledComputation;

class ExecutorRegionRunner : public RegionRunner {
 public:
  explicit ExecutorRegionRunner(const ExecutorEnv* env) : env_(env) {}

  // Runs the region's compiled form on the kernel's arrays. Results that
  // overlap arguments are computed into scratch first, so a kernel may pass
  // its accumulator as both. Not reentrant for one region: kernels call it
  // from one thread at a time.
  Status Run(const Computation& computation,
             std::span<const ArrayView> arguments,
             std::span<const ArrayView> results) override;

 private:
  // Per region, since a region may run a kernel that runs another region
  // while it is active (never itself: HLO has no recursion).
  struct Slot {
    CompiledComputation* compiled = nullptr;
    std::vector<const void*> parameters;
    std::vector<void*> outputs;
    std::vector<unsigned char> scratch;
  };
  Slot* Find(const Computation& computation);

  const ExecutorEnv* env_;
  std::unordered_map<const Computation*, Slot> slots_;
  const Computation* last_ = nullptr;
  Slot* last_slot_ = nullptr;
};

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_REGION_RUNNER_H_
