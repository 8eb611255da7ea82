// xffi: compiling a program and running it.
//
//   StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(module));
//   StatusOr<std::vector<Literal>> out = (*exe)->Execute({x, y});
//
// Compile verifies the module (a malformed one is refused, naming the op and
// its location, before anything runs), runs the compile passes (the
// shard_map emulation; removal of pure ops whose results nobody reads) and
// hands it to the backend of options.platform (NOT_FOUND naming the
// platform when this build has none). The CPU backend assigns
// buffers (reusing dead ones, honouring output_operand_aliases with a
// copy where the aliased operand is still live), builds one call frame per
// custom-call site, and resolves every handler and legacy target then, so a
// missing one is an error at compile time naming the target and its
// location. Handler stages instantiate, prepare and initialize run once per
// call site, at the first execution; execute runs every time.
#ifndef XFFI_PROGRAM_EXECUTABLE_H_
#define XFFI_PROGRAM_EXECUTABLE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/ffi/types.h"
#include "xffi/program/ir.h"
#include "xffi/runtime/context.h"
#include "xffi/runtime/platform.h"

namespace xffi {

struct CompileOptions {
  Platform platform = Platform::kHost;
  // Platform::kCuda only: run on xffi's simulated GPU (SimDevice) instead of
  // GPU 0. Handlers registered for CUDA run there too (their stream is a
  // device::Stream*); kernels run through their host code.
  bool simulated_device = false;
  // Threads of the intra-op pool handlers reach through ThreadPool; 0: one
  // per hardware thread.
  int intra_op_threads = 0;
  // Remove pure ops whose results are never read (the pass "dce").
  bool eliminate_dead_code = true;
  // Group elementwise and index-mapping chains into loop fusions (the pass
  // "fusion"), which the CPU backend evaluates tile by tile.
  bool fuse_loops = true;
  // How long a run waits for an asynchronous custom call (one that returned
  // a future) before failing with DEADLINE_EXCEEDED naming the target; zero:
  // as long as it takes. The abandoned call may still read the run's
  // arguments and write its results until it completes: the executor keeps
  // its own buffers alive until then, and Execute its copies of the
  // arguments and its results; ExecuteRaw's caller must keep the argument
  // and result buffers (ExecuteRawNotifying says when it may free them).
  std::chrono::nanoseconds custom_call_timeout{0};
  // Most bytes one run's buffers (every computation's arena) may take: a
  // program whose buffer assignment needs more fails to compile with
  // RESOURCE_EXHAUSTED giving both figures, before anything is allocated.
  // 0: the machine's physical memory; negative: no limit. Each concurrent
  // run takes its own buffers; one that cannot get them fails with
  // RESOURCE_EXHAUSTED.
  int64_t memory_limit_bytes = 0;

  // Debugging the passes Compile runs (spmd-emulation, dce, fusion, dce):
  // verify the module after every pass that changed it (by default in builds
  // without NDEBUG), and write it as HLO text after the passes named in
  // dump_after ("all": every pass) to `dump` (null: standard error). An
  // unknown name is an error that lists the passes.
#ifdef NDEBUG
  bool verify_after_each_pass = false;
#else
  bool verify_after_each_pass = true;
#endif
  std::vector<std::string> dump_after;
  std::function<void(std::string_view pass, const std::string& hlo_text)> dump;
};

class Executable {
 public:
  virtual ~Executable() = default;

  virtual const Module& module() const = 0;
  // Entry parameter shapes, by parameter number.
  virtual const std::vector<Shape>& parameter_shapes() const = 0;
  // The entry root's shape (a tuple when the program returns several values).
  virtual const Shape& result_shape() const = 0;

  // Execute and ExecuteRaw may be called from several threads at once: the
  // runs proceed in parallel, each on its own buffers.
  // Runs once. Arguments are one literal per entry parameter (shapes checked,
  // a mismatch names the parameter). Results: the root's leaves in order (one
  // literal for an array root).
  virtual StatusOr<std::vector<Literal>> Execute(
      const std::vector<Literal>& arguments) = 0;
  // The same without copies: one pointer per parameter leaf, one per result
  // leaf, row-major.
  // ffi::Span rather than std::span: this header is C++17.
  virtual Status ExecuteRaw(ffi::Span<const void* const> argument_leaves,
                            ffi::Span<void* const> result_leaves) = 0;
  // ExecuteRaw for callers that must learn when the buffers of a run that
  // timed out are theirs again. When it returns DEADLINE_EXCEEDED having
  // abandoned a custom call still running (custom_call_timeout),
  // `on_abandoned_call_complete` runs once, when that call completes: on the
  // thread completing it (so it must be quick and must not wait for the
  // caller; it may run before this returns). From then on the run reads no
  // argument leaf and writes no result leaf. It never runs otherwise. A
  // backend that cannot tell (this default) never runs it: the caller keeps
  // the buffers of such a run for good.
  virtual Status ExecuteRawNotifying(
      ffi::Span<const void* const> argument_leaves,
      ffi::Span<void* const> result_leaves,
      std::function<void()> on_abandoned_call_complete) {
    (void)on_abandoned_call_complete;
    return ExecuteRaw(argument_leaves, result_leaves);
  }

  // Handlers see this context: user data inserted here reaches them.
  virtual ExecutionContext& context() = 0;
};

StatusOr<std::unique_ptr<Executable>> Compile(
    Module module, const CompileOptions& options = {});

}  // namespace xffi

#endif  // XFFI_PROGRAM_EXECUTABLE_H_
