// xffi: the CPU executor.
//
// Every computation the entry reaches (loop bodies, branches, callees and
// the regions kernels run) is compiled once into a CompiledComputation: its
// buffer assignment, an arena reused by every run, and a list of thunks.
// Running one writes the parameter and output addresses into its address
// table and runs the thunks; nothing is allocated per op.
//
// A computation is never active twice at once within one run (HLO has no
// recursion), which is what lets each own one arena; the arenas of a run
// instance are one block allocated once, laid out as a call stack so that
// computations never active together share bytes (cpu/arena_stack.h).
// Concurrent runs of one
// Executable are safe: everything a run mutates (the compiled computations
// with their arenas, address tables and thunks) forms a run instance, and
// the executable keeps a pool of them, one per run in flight at its busiest.
// A run takes an idle instance and gives it back (no allocation once the
// pool is as large as the concurrency it sees); a run that finds none idle
// builds one more, as compiling does. What runs share is read-only or
// synchronised: the module, the buffer assignment's constants, the
// ExecutionContext, the intra-op pool (a loop that finds it busy runs
// inline) and each custom call's state (cpu/custom_call_thunk.h).
#ifndef XFFI_SRC_CPU_EXECUTOR_H_
#define XFFI_SRC_CPU_EXECUTOR_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "cpu/executor_thunk.h"
#include "cpu/kernel.h"
#include "xffi/program/executable.h"
#include "xffi/program/trace.h"
#include "xffi/runtime/future.h"

namespace xffi::cpu {

namespace codegen {
class ProgramKernels;
}

// Makes the kernel of one non-structural op (cpu::MakeKernel in the
// library; tests may substitute their own).
using KernelFactory = std::function<StatusOr<Kernel>(const Instruction&)>;

class CompiledComputation;
class SharedCallSites;

// What building thunks needs: the platform, the shared run-time objects, and
// the other computations (compiled on first request).
struct ExecutorEnv {
  Platform platform = Platform::kHost;
  KernelFactory kernels;
  ExecutionContext* context = nullptr;
  ThreadPool* pool = nullptr;
  // Which computations update arrays in place (null: none do).
  const compiler::InPlaceAnalysis* in_place = nullptr;
  // Generates kernels for loop fusions and elementwise ops (null: none).
  codegen::ProgramKernels* codegen = nullptr;
  // Custom-call state, shared by every run instance of the executable.
  SharedCallSites* call_sites = nullptr;
  std::chrono::nanoseconds custom_call_timeout{0};  // zero: none
  // Set by a custom call that timed out in this instance's run: its future,
  // which must complete before the instance runs again.
  std::shared_ptr<AsyncValue> abandoned_future;

  StatusOr<CompiledComputation*> Get(const Computation* computation);
  CompiledComputation* Find(const Computation* computation) const;

  std::unordered_map<const Computation*, std::unique_ptr<CompiledComputation>>
      compiled;
  std::unordered_set<const Computation*> in_progress;
  // Computations that run many times per execution: while conditions and
  // bodies and whatever they call (their ops are worth generating code
  // for at smaller sizes).
  std::unordered_set<const Computation*> repeated;
  // What each computation runs from its thunks (calls, branches, loop
  // conditions and bodies), and the regions kernels run: how the arenas
  // share one block (cpu/arena_stack.h).
  std::unordered_map<const Computation*, std::vector<const Computation*>> calls;
  std::unordered_set<const Computation*> regions;
};

class CompiledComputation {
 public:
  static StatusOr<std::unique_ptr<CompiledComputation>> Build(
      const Computation& computation, ExecutorEnv& env);
  ~CompiledComputation();

  // One address per parameter leaf and per root leaf (null for tokens).
  // Outputs must not overlap parameters, except that an output may be the
  // very buffer of the same-numbered parameter leaf when the computation
  // returns that leaf unchanged (a loop body's pass-through state), and
  // output k is the buffer of parameter leaf p for each in-place update
  // (k, p) of env.in_place (the caller hands that array over).
  Status Run(const void* const* parameters, void* const* outputs);
  // Places the arena at `arena` (assignment().arena_size bytes the caller
  // owns; Build only assigns it, so that a run instance can lay every
  // computation's arena out in one block, cpu/arena_stack.h).
  void SetArena(void* arena);

  const Computation& computation() const { return computation_; }
  const compiler::BufferAssignment& assignment() const { return assignment_; }
  int64_t num_parameter_leaves() const {
    return assignment_.num_parameter_leaves;
  }
  int64_t num_output_leaves() const { return assignment_.num_output_leaves; }
  size_t num_thunks() const { return thunks_.size(); }

 private:
  CompiledComputation(const Computation& computation,
                      compiler::BufferAssignment assignment);
  Status EmitThunks(ExecutorEnv& env);

  const Computation& computation_;
  compiler::BufferAssignment assignment_;
  std::vector<void*> addresses_;
  std::vector<std::pair<compiler::BufferId, int64_t>> parameter_slots_;
  std::vector<std::pair<compiler::BufferId, int64_t>> output_slots_;
  std::vector<std::unique_ptr<Thunk>> thunks_;

  // What an execution trace (xffi/program/trace.h) calls each thunk,
  // parallel to thunks_; only read while tracing.
  struct ThunkLabel {
    std::string name;
    std::string category;
    std::string op;
    std::string location;
  };
  void LabelThunksFrom(size_t first, const Instruction* op);
  Status RunTraced(ExecutionTrace& trace, void* const* addresses);
  std::vector<ThunkLabel> labels_;
};

// What an executable holds, for tests and tools: the bytes of one run
// instance's arena block (every compiled computation's, laid out as a call
// stack), the arenas' sizes added up, the bytes without reuse inside any
// arena, and how much runs.
struct ExecutorStats {
  size_t arena_bytes = 0;
  size_t separate_arena_bytes = 0;
  size_t unshared_arena_bytes = 0;
  int64_t computations = 0;
  int64_t thunks = 0;
  // Generated kernels (cpu/codegen/) and what compiling them cost.
  int64_t generated_kernels = 0;
  double codegen_seconds = 0;
  // Bytes of Execute's results and argument copies still held for custom
  // calls that runs abandoned at the timeout: each run's are freed as its
  // call completes.
  int64_t abandoned_copy_bytes = 0;
};
// Zeros for an executable this executor did not make.
ExecutorStats GetExecutorStats(const Executable& executable);

// The machine's physical memory in bytes (-1 when unknown): the default
// CompileOptions::memory_limit_bytes.
int64_t PhysicalMemoryBytes();

// The Executable behind the CPU backend (cpu/cpu_backend.h). `module` has
// passed VerifyModule.
StatusOr<std::unique_ptr<Executable>> CreateExecutable(
    Module module, const CompileOptions& options, KernelFactory kernels);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_EXECUTOR_H_
