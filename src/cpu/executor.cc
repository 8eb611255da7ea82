// The CPU executor: thunk emission, runs, and the Executable.
#include "cpu/executor.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compiler/backend_util.h"
#include "compiler/control_flow.h"
#include "compiler/in_place.h"
#include "cpu/arena_stack.h"
#include "cpu/codegen/program_kernels.h"
#include "cpu/custom_call_thunk.h"
#include "cpu/fused_loop.h"
#include "cpu/fused_reduce.h"
#include "cpu/parallel.h"
#include "cpu/region_runner.h"
#include "cpu/scalar_run_thunk.h"
#include "cpu/update_fusion_thunk.h"
#include "cpu/while_thunk.h"
#include "runtime/float_control.h"
#include "xffi/program/builtin_targets.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using compiler::BufferCopy;
using compiler::BufferId;
using compiler::BufferKind;
using compiler::InstructionBuffers;
using compiler::kNoBuffer;

using compiler::RunsNothing;
using compiler::SameTypesAndDims;
constexpr auto& Flatten = compiler::FlattenBuffers;
constexpr auto& LeafSizes = compiler::LeafByteSizes;

// Resolves buffer ids to addresses into a reusable pointer array.
template <typename Pointer>
void Resolve(const std::vector<BufferId>& ids, void* const* addresses,
             std::vector<Pointer>& out) {
  for (size_t i = 0; i < ids.size(); ++i)
    out[i] = ids[i] == kNoBuffer ? nullptr : addresses[ids[i]];
}

class CopyThunk : public Thunk {
 public:
  explicit CopyThunk(std::vector<BufferCopy> copies)
      : copies_(std::move(copies)) {}
  Status Run(void* const* addresses) override {
    for (const BufferCopy& copy : copies_) {
      void* to = addresses[copy.to];
      const void* from = addresses[copy.from];
      if (to != from && copy.size > 0) std::memcpy(to, from, copy.size);
    }
    return Status::Ok();
  }

 private:
  std::vector<BufferCopy> copies_;
};

class KernelThunk : public Thunk {
 public:
  KernelThunk(const Instruction& op, Kernel kernel,
              std::vector<BufferId> operand_ids,
              std::vector<BufferId> result_ids,
              std::unique_ptr<ExecutorRegionRunner> regions, ThreadPool* pool)
      : op_(op),
        kernel_(std::move(kernel)),
        operand_ids_(std::move(operand_ids)),
        result_ids_(std::move(result_ids)),
        regions_(std::move(regions)) {
    for (const Instruction* operand : op.operands())
      operands_.push_back({&operand->shape(), nullptr});
    for (const Shape* leaf : op.shape().Leaves())
      results_.push_back({leaf, nullptr});
    args_.operands = operands_;
    args_.results = results_;
    args_.regions = regions_.get();
    args_.pool = pool;
  }

  Status Run(void* const* addresses) override {
    for (size_t i = 0; i < operands_.size(); ++i)
      operands_[i].data = addresses[operand_ids_[i]];
    for (size_t i = 0; i < results_.size(); ++i)
      results_[i].data = addresses[result_ids_[i]];
    Status status = kernel_(args_);
    if (!status.ok()) [[unlikely]]
      status = AtLocation(op_, status);
    return status;
  }

 private:
  const Instruction& op_;
  Kernel kernel_;
  std::vector<BufferId> operand_ids_, result_ids_;
  std::vector<ArrayView> operands_, results_;
  std::unique_ptr<ExecutorRegionRunner> regions_;  // null: no regions
  KernelArgs args_;
};

class CallThunk : public Thunk {
 public:
  CallThunk(CompiledComputation* callee, std::vector<BufferId> arguments,
            std::vector<BufferId> results)
      : callee_(callee),
        argument_ids_(std::move(arguments)),
        result_ids_(std::move(results)),
        arguments_(argument_ids_.size()),
        results_(result_ids_.size()) {}

  Status Run(void* const* addresses) override {
    Resolve(argument_ids_, addresses, arguments_);
    Resolve(result_ids_, addresses, results_);
    return callee_->Run(arguments_.data(), results_.data());
  }

 private:
  CompiledComputation* callee_;
  std::vector<BufferId> argument_ids_, result_ids_;
  std::vector<const void*> arguments_;
  std::vector<void*> results_;
};

class ConditionalThunk : public Thunk {
 public:
  struct Branch {
    CompiledComputation* computation;
    std::vector<BufferId> argument_ids;
  };
  ConditionalThunk(BufferId index, bool is_pred, std::vector<Branch> branches,
                   std::vector<BufferId> results)
      : index_(index),
        is_pred_(is_pred),
        branches_(std::move(branches)),
        result_ids_(std::move(results)),
        results_(result_ids_.size()) {
    size_t most = 0;
    for (const Branch& branch : branches_)
      most = std::max(most, branch.argument_ids.size());
    arguments_.resize(most);
  }

  Status Run(void* const* addresses) override {
    int32_t index = 0;
    if (is_pred_)
      index = *static_cast<const unsigned char*>(addresses[index_]);
    else
      std::memcpy(&index, addresses[index_], sizeof(index));
    const Branch& branch =
        branches_[compiler::ChosenBranch(is_pred_, index, branches_.size())];
    Resolve(branch.argument_ids, addresses, arguments_);
    Resolve(result_ids_, addresses, results_);
    return branch.computation->Run(arguments_.data(), results_.data());
  }

 private:
  BufferId index_;
  bool is_pred_;
  std::vector<Branch> branches_;
  std::vector<BufferId> result_ids_;
  std::vector<const void*> arguments_;
  std::vector<void*> results_;
};

// The end of the scalar run starting at schedule position `begin` (see
// cpu/scalar_run_thunk.h) and how many ops it computes.
std::pair<size_t, size_t> ScalarRunEnd(
    const compiler::BufferAssignment& assignment, size_t begin) {
  size_t end = begin, ops = 0;
  for (size_t q = begin; q < assignment.schedule.size(); ++q) {
    if (!assignment.instructions[q].copies_before.empty()) break;
    const Instruction& op = *assignment.schedule[q];
    if (IsScalarRunOp(op)) {
      ++ops;
      end = q + 1;
    } else if (!RunsNothing(op.opcode())) {
      break;
    }
  }
  return {end, ops};
}

// Ops a generated kernel may replace outside fusions (and reduces, which
// the reduction emitter takes when their reducer and types are covered).
bool IsLoopOp(Opcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == Opcode::kSelect || opcode == Opcode::kClamp ||
         opcode == Opcode::kConvert || opcode == Opcode::kBitcastConvert ||
         opcode == Opcode::kIota;
}

// A few-column reduction's generated kernel (program_kernels.h's
// GeneratedPieces) over `buffers`: operands, results, then a partial slot
// per result. The partials of several pieces live in memory of this run,
// as the evaluator's do (a few KB: pieces x columns).
void RunPieces(const codegen::GeneratedKernel& generated, void** buffers,
               size_t operands, size_t results, ThreadPool* pool) {
  const codegen::GeneratedPieces& pieces = *generated.pieces;
  const codegen::KernelFunction function = generated.function;
  void** partials = buffers + operands + results;
  if (pieces.count <= 1 || pieces.split(buffers) == 0) {
    // One piece of every row, folded into the results themselves.
    for (size_t r = 0; r < results; ++r) partials[r] = buffers[operands + r];
    function(buffers, 0, pieces.rows);
    return;
  }
  size_t total = 0;
  for (int64_t stride : pieces.stride_bytes)
    total += static_cast<size_t>(stride * pieces.count);
  std::vector<unsigned char> scratch(total + 64);
  auto* at = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  for (size_t r = 0; r < results; ++r) {
    partials[r] = pieces.stride_bytes[r] != 0 ? at : nullptr;
    at += static_cast<size_t>(pieces.stride_bytes[r] * pieces.count);
  }
  const size_t count = operands + 2 * results;
  auto body = [&](int64_t begin, int64_t end) {
    void* own[codegen::kMaxKernelBuffers];
    std::copy(buffers, buffers + count, own);
    for (int64_t p = begin; p < end; ++p) {
      for (size_t r = 0; r < results; ++r)
        if (partials[r] != nullptr)
          own[operands + results + r] =
              static_cast<unsigned char*>(partials[r]) +
              p * pieces.stride_bytes[r];
      const int64_t first = p * pieces.rows_per_piece;
      function(own, first,
               std::min(pieces.rows, first + pieces.rows_per_piece));
    }
  };
  // One piece per chunk, as the evaluator: the pieces are fixed, so the
  // bytes do not depend on the threads.
  if (pool != nullptr)
    pool->ParallelFor(pieces.count, 1, body);
  else
    body(0, pieces.count);
  pieces.combine(buffers);
}

// `fallback`, or the generated kernel for `op` when the code generator
// takes it; `fallback` still runs if the program's module fails to compile.
Kernel WithGeneratedKernel(const ExecutorEnv& env, const Instruction& op,
                           Kernel fallback) {
  if (env.codegen == nullptr) return fallback;
  std::shared_ptr<codegen::GeneratedKernel> generated =
      env.codegen->Add(op, env.repeated.count(op.parent()) != 0);
  if (generated == nullptr) return fallback;
  return [generated = std::move(generated),
          fallback = std::move(fallback)](const KernelArgs& args) -> Status {
    const codegen::KernelFunction function = generated->function;
    if (function == nullptr) [[unlikely]]
      return fallback(args);
    void* buffers[codegen::kMaxKernelBuffers];
    size_t count = 0;
    for (const ArrayView& operand : args.operands)
      buffers[count++] = operand.data;
    // A reduction fusion's kernel writes each of its results.
    for (const ArrayView& result : args.results) buffers[count++] = result.data;
    if (generated->pieces != nullptr) {
      RunPieces(*generated, buffers, args.operands.size(), args.results.size(),
                args.pool);
      return Status::Ok();
    }
    ParallelFor(
        args.pool, generated->range, generated->item_nanos,
        [&](int64_t begin, int64_t end) { function(buffers, begin, end); });
    return Status::Ok();
  };
}

Status NotArrays(const Instruction& op) {
  return Unimplemented("op " + op.Describe() +
                       " takes tuple or token operands, which only "
                       "structural ops accept");
}

// XFFI_ARENA_STACK=0 gives every computation bytes of its own (to measure
// the stack, cpu/arena_stack.h).
bool ArenaStackEnabled() {
  const char* text = std::getenv("XFFI_ARENA_STACK");
  return text == nullptr || std::string(text) != "0";
}

// What one run mutates: every computation the entry reaches, compiled with
// its own arena, address table and thunks, and the entry's address lists.
struct RunInstance {
  struct FreeArena {
    void operator()(void* block) const {
      ::operator delete(block, std::align_val_t(compiler::kBufferAlignment));
    }
  };
  // Every compiled computation's arena (cpu/arena_stack.h); declared first,
  // so freed after the thunks that point into it.
  std::unique_ptr<void, FreeArena> arena;
  size_t arena_bytes = 0;
  ExecutorEnv env;
  CompiledComputation* entry = nullptr;
  std::vector<const void*> argument_addresses;
  std::vector<void*> result_addresses;
};

// Execute's results and argument copies of a run that abandoned a custom
// call, which may still write (and read) them. Owned by a callback on the
// call's future, so they are freed on the thread that completes it, as it
// completes, and not when the run instance is next used (which may be
// never). Counts its bytes for ExecutorStats meanwhile; the counter is
// shared because the copies may outlive the executable.
class AbandonedCopies {
 public:
  AbandonedCopies(std::vector<Literal> results, std::vector<Literal> arguments,
                  std::shared_ptr<std::atomic<int64_t>> held_bytes)
      : results_(std::move(results)),
        arguments_(std::move(arguments)),
        held_bytes_(std::move(held_bytes)) {
    for (const Literal& literal : results_) bytes_ += LeafBytes(literal);
    for (const Literal& literal : arguments_) bytes_ += LeafBytes(literal);
    *held_bytes_ += bytes_;
  }
  ~AbandonedCopies() { *held_bytes_ -= bytes_; }
  AbandonedCopies(const AbandonedCopies&) = delete;
  AbandonedCopies& operator=(const AbandonedCopies&) = delete;

 private:
  static int64_t LeafBytes(const Literal& literal) {
    if (!literal.shape().IsTuple())
      return static_cast<int64_t>(literal.size_bytes());
    int64_t bytes = 0;
    for (const Literal& element : literal.tuple_elements())
      bytes += LeafBytes(element);
    return bytes;
  }

  std::vector<Literal> results_, arguments_;
  std::shared_ptr<std::atomic<int64_t>> held_bytes_;
  int64_t bytes_ = 0;
};

// State of an executable that handlers and thunks point into, and its pool
// of run instances.
struct Runtime {
  explicit Runtime(Platform platform) : context(platform) {}
  ExecutionContext context;
  std::unique_ptr<compiler::InPlaceAnalysis> in_place;
  // Before the instances: the generated code outlives the thunks calling it.
  std::unique_ptr<codegen::ProgramKernels> codegen;
  KernelFactory kernels;
  const Computation* entry = nullptr;
  std::chrono::nanoseconds custom_call_timeout{0};
  int64_t memory_limit = -1;  // bytes of one instance's arenas; -1: none
  // What AbandonedCopies hold, all runs together.
  std::shared_ptr<std::atomic<int64_t>> abandoned_copy_bytes =
      std::make_shared<std::atomic<int64_t>>(0);
  // Declared before the instances, whose thunks point into it: destroyed
  // after them, each state's deleter running once.
  SharedCallSites call_sites;

  std::mutex mutex;  // guards instances, idle and waiting
  std::vector<std::unique_ptr<RunInstance>> instances;
  std::vector<RunInstance*> idle;  // capacity: instances.size()
  // Instances whose run abandoned a custom call still running.
  std::vector<RunInstance*> waiting;
  // Serialises building instances: kernel factories need not be reentrant.
  std::mutex build_mutex;
  // Last, so destroyed first: tasks handlers left on it finish while the
  // buffers and state they use still exist.
  std::unique_ptr<ThreadPool> pool;

  StatusOr<RunInstance*> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (size_t i = 0; i < waiting.size(); ++i) {
        if (!waiting[i]->env.abandoned_future->IsReady()) continue;
        waiting[i]->env.abandoned_future.reset();
        idle.push_back(waiting[i]);
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i--));
      }
      if (!idle.empty()) {
        RunInstance* instance = idle.back();
        idle.pop_back();
        return instance;
      }
    }
    // More runs in flight than ever before: built outside `mutex`, so the
    // runs holding instances can give them back meanwhile.
    std::unique_ptr<RunInstance> made;
    try {
      std::lock_guard<std::mutex> lock(build_mutex);
      StatusOr<std::unique_ptr<RunInstance>> built = Build();
      if (!built.ok()) return built.status();
      made = std::move(*built);
      std::lock_guard<std::mutex> pool_lock(mutex);
      instances.push_back(std::move(made));
      idle.reserve(instances.size() + waiting.size());  // Release: no alloc
      return instances.back().get();
    } catch (const std::bad_alloc&) {
      return Status(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
                    "out of memory building the buffers and thunks of one "
                    "more concurrent run");
    }
  }

  void Release(RunInstance* instance) {
    std::lock_guard<std::mutex> lock(mutex);
    if (instance->env.abandoned_future != nullptr &&
        !instance->env.abandoned_future->IsReady()) {
      waiting.push_back(instance);
      return;
    }
    instance->env.abandoned_future.reset();
    idle.push_back(instance);
  }

  // Whether a custom call a run abandoned (timeout) is still running.
  bool HasAbandonedCallRunning() {
    std::lock_guard<std::mutex> lock(mutex);
    for (RunInstance* instance : waiting)
      if (!instance->env.abandoned_future->IsReady()) return true;
    return false;
  }

 private:
  StatusOr<std::unique_ptr<RunInstance>> Build() {
    auto made = std::make_unique<RunInstance>();
    made->env.platform = context.platform();
    made->env.kernels = kernels;
    made->env.context = &context;
    made->env.pool = pool.get();
    made->env.in_place = in_place.get();
    made->env.call_sites = &call_sites;
    made->env.codegen = codegen.get();
    made->env.custom_call_timeout = custom_call_timeout;
    StatusOr<CompiledComputation*> compiled = made->env.Get(entry);
    if (!compiled.ok()) return compiled.status();
    made->entry = *compiled;
    made->argument_addresses.resize(
        static_cast<size_t>(made->entry->num_parameter_leaves()));
    made->result_addresses.resize(
        static_cast<size_t>(made->entry->num_output_leaves()));
    // Every arena laid out and weighed before the block is allocated.
    std::vector<CompiledComputation*> computations;
    std::unordered_map<const Computation*, size_t> index;
    for (const auto& [computation, compiled_computation] : made->env.compiled) {
      index[computation] = computations.size();
      computations.push_back(compiled_computation.get());
    }
    std::vector<size_t> sizes;
    std::vector<std::vector<size_t>> calls(computations.size());
    std::vector<bool> apart;
    for (size_t i = 0; i < computations.size(); ++i) {
      const Computation* computation = &computations[i]->computation();
      sizes.push_back(computations[i]->assignment().arena_size);
      apart.push_back(!ArenaStackEnabled() ||
                      made->env.regions.count(computation) != 0);
      auto callees = made->env.calls.find(computation);
      if (callees == made->env.calls.end()) continue;
      for (const Computation* callee : callees->second)
        calls[i].push_back(index.at(callee));
    }
    ArenaStack stack =
        StackArenas(sizes, calls, apart, compiler::kBufferAlignment);
    if (memory_limit >= 0 && stack.size > static_cast<size_t>(memory_limit)) {
      return Status(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
                    "the program's buffers need " + std::to_string(stack.size) +
                        " bytes, over the memory limit of " +
                        std::to_string(memory_limit) + " bytes");
    }
    if (stack.size > 0) {
      made->arena.reset(::operator new(
          stack.size, std::align_val_t(compiler::kBufferAlignment),
          std::nothrow));
      if (made->arena == nullptr) {
        return Status(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
                      "cannot allocate the " + std::to_string(stack.size) +
                          " bytes of buffers of computation '" + entry->name() +
                          "' and the computations it runs");
      }
    }
    made->arena_bytes = stack.size;
    for (size_t i = 0; i < computations.size(); ++i)
      computations[i]->SetArena(static_cast<unsigned char*>(made->arena.get()) +
                                stack.offsets[i]);
    return made;
  }
};

// An instance for the length of one run.
class RunLease {
 public:
  explicit RunLease(Runtime& runtime) : runtime_(runtime) {
    StatusOr<RunInstance*> acquired = runtime.Acquire();
    if (acquired.ok())
      instance_ = *acquired;
    else
      status_ = acquired.status();
  }
  ~RunLease() {
    if (instance_ != nullptr) runtime_.Release(instance_);
  }
  RunLease(const RunLease&) = delete;
  RunLease& operator=(const RunLease&) = delete;

  const Status& status() const { return status_; }
  RunInstance& operator*() const { return *instance_; }
  RunInstance* operator->() const { return instance_; }

 private:
  Runtime& runtime_;
  RunInstance* instance_ = nullptr;
  Status status_;
};

// Executables destroyed while a custom call they abandoned was still
// running: the handler may yet write into their buffers, frames and state,
// so those are freed only once every such call has completed (checked when
// another executable is destroyed). The module goes too: thunks refer to
// its instructions.
struct OrphanedRuntime {
  Module module;
  std::unique_ptr<Runtime> runtime;
};

std::mutex orphans_mutex;
// Never destroyed: at exit a handler may still be running.
std::vector<OrphanedRuntime>& Orphans() {
  static auto* orphans = new std::vector<OrphanedRuntime>;
  return *orphans;
}

void KeepUntilAbandonedCallsComplete(Module module,
                                     std::unique_ptr<Runtime> runtime) {
  std::vector<OrphanedRuntime> done;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(orphans_mutex);
    std::vector<OrphanedRuntime>& orphans = Orphans();
    for (size_t i = 0; i < orphans.size(); ++i) {
      if (orphans[i].runtime->HasAbandonedCallRunning()) continue;
      done.push_back(std::move(orphans[i]));
      orphans.erase(orphans.begin() + static_cast<std::ptrdiff_t>(i--));
    }
    if (runtime->HasAbandonedCallRunning()) {
      orphans.push_back({std::move(module), std::move(runtime)});
      return;
    }
  }
  runtime.reset();  // before the module, whose instructions thunks refer to
}

class CpuExecutable : public Executable {
 public:
  CpuExecutable(Module module, std::unique_ptr<Runtime> runtime)
      : module_(std::move(module)), runtime_(std::move(runtime)) {
    const Computation& computation = *runtime_->entry;
    for (const Instruction* parameter : computation.parameters()) {
      parameter_shapes_.push_back(parameter->shape());
      for (const Shape* leaf : parameter->shape().Leaves())
        parameter_leaves_.push_back(leaf);
    }
    result_shape_ = computation.root()->shape();
    for (const Shape* leaf : computation.root()->shape().Leaves())
      result_leaves_.push_back(leaf);
    // Arrays with bytes need an address; tokens and empty arrays do not.
    for (const Shape* leaf : parameter_leaves_)
      argument_needs_data_.push_back(leaf->IsArray() && leaf->byte_size() > 0);
    for (const Shape* leaf : result_leaves_)
      result_needs_data_.push_back(leaf->IsArray() && leaf->byte_size() > 0);
  }
  ~CpuExecutable() override {
    KeepUntilAbandonedCallsComplete(std::move(module_), std::move(runtime_));
  }

  const Module& module() const override { return module_; }
  const std::vector<Shape>& parameter_shapes() const override {
    return parameter_shapes_;
  }
  const Shape& result_shape() const override { return result_shape_; }
  ExecutionContext& context() override { return runtime_->context; }

  StatusOr<std::vector<Literal>> Execute(
      const std::vector<Literal>& arguments) override {
    if (arguments.size() != parameter_shapes_.size()) {
      return InvalidArgument(
          "the program takes " + std::to_string(parameter_shapes_.size()) +
          (parameter_shapes_.size() == 1 ? " argument" : " arguments") +
          ", got " + std::to_string(arguments.size()));
    }
    for (size_t i = 0; i < arguments.size(); ++i) {
      const Shape& expected = parameter_shapes_[i];
      if (!SameTypesAndDims(arguments[i].shape(), expected)) {
        return InvalidArgument("argument " + std::to_string(i) +
                               " for parameter '" +
                               runtime_->entry->parameters()[i]->name() +
                               "' is " + arguments[i].shape().ToString(false) +
                               ", expected " + expected.ToString(false));
      }
    }
    RunLease run(*runtime_);
    if (!run.status().ok()) return run.status();
    try {
      return Run(*run, arguments);
    } catch (const std::bad_alloc&) {
      return Status(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
                    "out of memory allocating the program's results");
    }
  }

  // The first instance's statistics: every instance is built alike.
  ExecutorStats Stats() const {
    ExecutorStats stats;
    stats.abandoned_copy_bytes = *runtime_->abandoned_copy_bytes;
    std::lock_guard<std::mutex> lock(runtime_->mutex);
    if (runtime_->instances.empty()) return stats;
    stats.arena_bytes = runtime_->instances.front()->arena_bytes;
    for (const auto& [computation, compiled] :
         runtime_->instances.front()->env.compiled) {
      stats.separate_arena_bytes += compiled->assignment().arena_size;
      stats.unshared_arena_bytes += compiled->assignment().unshared_arena_size;
      stats.thunks += static_cast<int64_t>(compiled->num_thunks());
      ++stats.computations;
    }
    return stats;
  }

  const codegen::ProgramKernels* codegen() const {
    return runtime_->codegen.get();
  }

  Status ExecuteRaw(ffi::Span<const void* const> argument_leaves,
                    ffi::Span<void* const> result_leaves) override {
    return ExecuteRawNotifying(argument_leaves, result_leaves, nullptr);
  }

  Status ExecuteRawNotifying(
      ffi::Span<const void* const> argument_leaves,
      ffi::Span<void* const> result_leaves,
      std::function<void()> on_abandoned_call_complete) override {
    if (argument_leaves.size() != parameter_leaves_.size()) {
      return InvalidArgument(
          "the program's parameters have " +
          std::to_string(parameter_leaves_.size()) + " leaves, got " +
          std::to_string(argument_leaves.size()) + " argument addresses");
    }
    if (result_leaves.size() != result_leaves_.size()) {
      return InvalidArgument(
          "the program's result has " + std::to_string(result_leaves_.size()) +
          " leaves, got " + std::to_string(result_leaves.size()) +
          " result addresses");
    }
    for (size_t i = 0; i < argument_leaves.size(); ++i) {
      if (argument_leaves[i] == nullptr && argument_needs_data_[i])
        return InvalidArgument("argument leaf " + std::to_string(i) +
                               " is null");
    }
    for (size_t i = 0; i < result_leaves.size(); ++i) {
      if (result_leaves[i] == nullptr && result_needs_data_[i])
        return InvalidArgument("result leaf " + std::to_string(i) + " is null");
    }
    RunLease run(*runtime_);
    if (!run.status().ok()) return run.status();
    ScopedFlushSubnormals flush;  // as in Execute
    Status status =
        run->entry->Run(argument_leaves.data(), result_leaves.data());
    // Registered before the lease ends: the instance's future is reset once
    // it is given back and found complete.
    if (run->env.abandoned_future != nullptr && on_abandoned_call_complete) {
      run->env.abandoned_future->OnReady(
          [done = std::move(on_abandoned_call_complete)](const Status&) {
            done();
          });
    }
    return status;
  }

 private:
  StatusOr<std::vector<Literal>> Run(RunInstance& run,
                                     const std::vector<Literal>& arguments) {
    // A call abandoned at the timeout may go on reading the arguments, whose
    // literals are often temporaries of the caller's: with a timeout the
    // run reads copies, which it keeps.
    std::vector<Literal> copies;
    if (runtime_->custom_call_timeout.count() > 0) copies = arguments;
    size_t leaf = 0;
    for (const Literal& argument : copies.empty() ? arguments : copies)
      CollectLeaves(argument, run.argument_addresses, leaf);
    std::vector<Literal> results;
    results.reserve(result_leaves_.size());
    for (size_t r = 0; r < result_leaves_.size(); ++r) {
      results.emplace_back(*result_leaves_[r]);
      run.result_addresses[r] =
          result_leaves_[r]->IsArray() ? results.back().data() : nullptr;
    }
    // Subnormals flush to zero while the program runs, as under XLA:CPU.
    ScopedFlushSubnormals flush;
    Status status = run.entry->Run(run.argument_addresses.data(),
                                   run.result_addresses.data());
    if (!status.ok()) {
      if (run.env.abandoned_future != nullptr) {
        // Copyable, as std::function wants, by sharing.
        auto held = std::make_shared<AbandonedCopies>(
            std::move(results), std::move(copies),
            runtime_->abandoned_copy_bytes);
        run.env.abandoned_future->OnReady([held](const Status&) {});
      }
      return status;
    }
    return results;
  }

  static void CollectLeaves(const Literal& literal,
                            std::vector<const void*>& addresses, size_t& leaf) {
    if (literal.shape().IsTuple()) {
      for (const Literal& element : literal.tuple_elements())
        CollectLeaves(element, addresses, leaf);
      return;
    }
    addresses[leaf++] = literal.shape().IsArray() ? literal.data() : nullptr;
  }

  Module module_;
  std::unique_ptr<Runtime> runtime_;
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
  std::vector<const Shape*> parameter_leaves_, result_leaves_;
  std::vector<bool> argument_needs_data_, result_needs_data_;
};

}  // namespace

StatusOr<CompiledComputation*> ExecutorEnv::Get(
    const Computation* computation) {
  if (CompiledComputation* found = Find(computation)) return found;
  if (!in_progress.insert(computation).second) {
    return InvalidArgument("computation '" + computation->name() +
                           "' calls itself; HLO programs have no recursion");
  }
  StatusOr<std::unique_ptr<CompiledComputation>> built =
      CompiledComputation::Build(*computation, *this);
  in_progress.erase(computation);
  if (!built.ok()) return built.status();
  CompiledComputation* pointer = built->get();
  compiled[computation] = std::move(*built);
  return pointer;
}

CompiledComputation* ExecutorEnv::Find(const Computation* computation) const {
  auto found = compiled.find(computation);
  return found == compiled.end() ? nullptr : found->second.get();
}

CompiledComputation::CompiledComputation(const Computation& computation,
                                         compiler::BufferAssignment assignment)
    : computation_(computation), assignment_(std::move(assignment)) {}

CompiledComputation::~CompiledComputation() = default;

StatusOr<std::unique_ptr<CompiledComputation>> CompiledComputation::Build(
    const Computation& computation, ExecutorEnv& env) {
  StatusOr<compiler::BufferAssignment> assignment =
      compiler::AssignBuffers(computation, env.in_place,
                              /*results_in_place=*/true);
  if (!assignment.ok()) return assignment.status();
  std::unique_ptr<CompiledComputation> compiled(
      new CompiledComputation(computation, std::move(*assignment)));
  Status status = compiled->EmitThunks(env);
  if (!status.ok()) return status;
  return compiled;
}

// Whether the loop fusion at schedule position `p` can write straight into
// the dynamic-update-slice at `p + 1` (cpu/update_fusion_thunk.h): that op
// updates its operand's buffer in place with the fusion as its update, the
// fusion has no other reader and does not read that buffer itself.
bool FusionWritesIntoUpdate(const Computation& computation,
                            const compiler::BufferAssignment& assignment,
                            size_t p) {
  if (p + 1 >= assignment.schedule.size() || !FusionIntoUpdateEnabled())
    return false;
  const Instruction& fusion = *assignment.schedule[p];
  const Instruction& update = *assignment.schedule[p + 1];
  if (fusion.opcode() != Opcode::kFusion ||
      fusion.fusion_kind != FusionKind::kLoop ||
      update.opcode() != Opcode::kDynamicUpdateSlice ||
      update.operand_count() != update.shape().rank() + 2 ||
      update.operand(1) != &fusion || update.operand(0) == &fusion ||
      computation.root() == &fusion ||
      !UpdateIsContiguous(fusion.shape(), update.shape()))
    return false;
  for (int64_t i = 2; i < update.operand_count(); ++i)
    if (update.operand(i) == &fusion) return false;
  for (const auto& other : computation.instructions())
    if (other.get() != &update)
      for (const Instruction* operand : other->operands())
        if (operand == &fusion) return false;
  const InstructionBuffers& fusion_buffers = assignment.instructions[p];
  const InstructionBuffers& update_buffers = assignment.instructions[p + 1];
  if (!update_buffers.copies_before.empty() ||
      update_buffers.leaves.size() != 1 ||
      update_buffers.leaves[0] == kNoBuffer ||
      update_buffers.operands.size() !=
          static_cast<size_t>(update.operand_count()) ||
      update_buffers.operands[0].size() != 1 ||
      update_buffers.operands[0][0] != update_buffers.leaves[0] ||
      fusion_buffers.leaves.size() != 1)
    return false;
  for (size_t i = 2; i < update_buffers.operands.size(); ++i)
    if (update_buffers.operands[i].size() != 1 ||
        update_buffers.operands[i][0] == kNoBuffer)
      return false;
  for (const auto& list : fusion_buffers.operands)
    for (BufferId id : list)
      if (id == kNoBuffer || id == update_buffers.leaves[0]) return false;
  return true;
}

Status CompiledComputation::EmitThunks(ExecutorEnv& env) {
  const compiler::BufferAssignment& assignment = assignment_;
  // What a repeated computation calls runs repeatedly too, as do a loop's
  // condition and body.
  const bool repeated = env.repeated.count(&computation_) != 0;
  auto get = [&](const Computation* callee, bool loop = false) {
    if (repeated || loop) env.repeated.insert(callee);
    env.calls[&computation_].push_back(callee);
    return env.Get(callee);
  };
  addresses_.assign(assignment.buffers.size(), nullptr);
  for (size_t id = 0; id < assignment.buffers.size(); ++id) {
    const compiler::Buffer& buffer = assignment.buffers[id];
    switch (buffer.kind) {
      case BufferKind::kArena:
        break;  // SetArena
      case BufferKind::kConstant:
        // Never written: no op writes into a constant's buffer.
        addresses_[id] = const_cast<void*>(buffer.constant);
        break;
      case BufferKind::kParameter:
        parameter_slots_.emplace_back(static_cast<BufferId>(id), buffer.number);
        break;
      case BufferKind::kOutput:
        output_slots_.emplace_back(static_cast<BufferId>(id), buffer.number);
        break;
    }
  }

  // Positions before this one were tried as a scalar run and did not
  // compile into one.
  size_t no_scalar_run_before = 0;
  // A dynamic-update-slice its update's fusion did (FusionWritesIntoUpdate).
  size_t done_by_fusion = assignment.schedule.size();
  for (size_t p = 0; p < assignment.schedule.size(); ++p) {
    if (p == done_by_fusion) continue;
    const Instruction& op = *assignment.schedule[p];
    const InstructionBuffers& buffers = assignment.instructions[p];
    size_t first = thunks_.size();
    if (p >= no_scalar_run_before && IsScalarRunOp(op)) {
      auto [end, ops] = ScalarRunEnd(assignment, p);
      // One op alone is worth it where it runs once per loop iteration
      // (a counter's increment).
      if (ops >= 2 || (ops == 1 && repeated)) {
        if (std::unique_ptr<Thunk> run =
                MakeScalarRunThunk(assignment, p, end)) {
          thunks_.push_back(std::move(run));
          // One span for the whole run, named after its first op.
          LabelThunksFrom(first, &op);
          p = end - 1;
          continue;
        }
        no_scalar_run_before = end;
      }
    }
    if (!buffers.copies_before.empty())
      thunks_.push_back(std::make_unique<CopyThunk>(buffers.copies_before));
    if (RunsNothing(op.opcode())) continue;
    // A reshape buffer assignment made a view of its operand moves nothing.
    if (op.opcode() == Opcode::kReshape && buffers.operands.size() == 1 &&
        buffers.leaves == buffers.operands[0])
      continue;
    switch (op.opcode()) {
      case Opcode::kCopy: {
        std::vector<BufferCopy> copies;
        std::vector<BufferId> from = Flatten(buffers.operands, 0);
        std::vector<size_t> sizes = LeafSizes(op.shape());
        // A leaf copied into its own buffer (a dead operand's) costs nothing.
        for (size_t i = 0; i < buffers.leaves.size(); ++i)
          if (buffers.leaves[i] != kNoBuffer && buffers.leaves[i] != from[i])
            copies.push_back({from[i], buffers.leaves[i], sizes[i]});
        if (!copies.empty())
          thunks_.push_back(std::make_unique<CopyThunk>(std::move(copies)));
        break;
      }
      case Opcode::kFusion: {
        // A loop fusion runs tile by tile (cpu/fused_loop.h), a reduction
        // fusion folds its tiles as they come (cpu/fused_reduce.h); a fusion
        // those evaluators do not take runs as the call of its fused
        // computation: the same values, one op at a time.
        const bool input = op.fusion_kind == FusionKind::kInput;
        StatusOr<Kernel> fused =
            input ? MakeFusedReduceKernel(op) : MakeFusedLoopKernel(op);
        if (fused.ok()) {
          std::vector<BufferId> operands = Flatten(buffers.operands, 0);
          const size_t results =
              op.shape().IsTuple() ? op.shape().tuple_shapes().size() : 1;
          if (operands.size() == static_cast<size_t>(op.operand_count()) &&
              buffers.leaves.size() == results && !input &&
              FusionWritesIntoUpdate(computation_, assignment, p)) {
            const InstructionBuffers& update = assignment.instructions[p + 1];
            thunks_.push_back(MakeUpdateFusionThunk(
                op, *assignment.schedule[p + 1],
                WithGeneratedKernel(env, op, std::move(*fused)),
                std::move(operands), Flatten(update.operands, 2),
                update.leaves[0], env.pool));
            done_by_fusion = p + 1;
            break;
          }
          if (operands.size() == static_cast<size_t>(op.operand_count()) &&
              buffers.leaves.size() == results) {
            thunks_.push_back(std::make_unique<KernelThunk>(
                op, WithGeneratedKernel(env, op, std::move(*fused)),
                std::move(operands), buffers.leaves, nullptr, env.pool));
            break;
          }
        }
        [[fallthrough]];
      }
      case Opcode::kCall: {
        StatusOr<CompiledComputation*> callee =
            get(op.called_computations()[0]);
        if (!callee.ok()) return callee.status();
        thunks_.push_back(std::make_unique<CallThunk>(
            *callee, Flatten(buffers.operands, 0), buffers.leaves));
        break;
      }
      case Opcode::kConditional: {
        std::vector<ConditionalThunk::Branch> branches;
        for (size_t b = 0; b < op.called_computations().size(); ++b) {
          StatusOr<CompiledComputation*> branch =
              get(op.called_computations()[b]);
          if (!branch.ok()) return branch.status();
          branches.push_back({*branch, buffers.operands[b + 1]});
        }
        bool is_pred =
            op.operand(0)->shape().element_type() == ElementType::kPred;
        thunks_.push_back(std::make_unique<ConditionalThunk>(
            buffers.operands[0][0], is_pred, std::move(branches),
            buffers.leaves));
        break;
      }
      case Opcode::kWhile: {
        // A condition of scalar ops runs inside the loop thunk; only
        // another one is compiled.
        std::optional<LoopCondition> inline_condition =
            CompileLoopCondition(*op.called_computations()[0]);
        CompiledComputation* condition = nullptr;
        if (!inline_condition.has_value()) {
          StatusOr<CompiledComputation*> compiled =
              get(op.called_computations()[0], /*loop=*/true);
          if (!compiled.ok()) return compiled.status();
          condition = *compiled;
        }
        StatusOr<CompiledComputation*> body =
            get(op.called_computations()[1], /*loop=*/true);
        if (!body.ok()) return body.status();
        size_t n = buffers.leaves.size();
        std::vector<BufferId> next(buffers.temps.begin(),
                                   buffers.temps.begin() + n);
        thunks_.push_back(MakeWhileThunk(
            std::move(inline_condition), condition, *body, buffers.leaves,
            std::move(next), buffers.temps[n], LeafSizes(op.shape())));
        break;
      }
      case Opcode::kCustomCall: {
        CustomCallEnv custom_calls;
        custom_calls.platform = env.platform;
        custom_calls.context = env.context;
        custom_calls.sites = env.call_sites;
        custom_calls.timeout = env.custom_call_timeout;
        custom_calls.abandoned = &env.abandoned_future;
        StatusOr<std::unique_ptr<Thunk>> thunk =
            MakeCustomCallThunk(op, buffers, custom_calls);
        if (!thunk.ok()) return thunk.status();
        thunks_.push_back(std::move(*thunk));
        break;
      }
      default: {
        std::vector<BufferId> operands;
        for (const auto& list : buffers.operands) {
          if (list.size() != 1 || list[0] == kNoBuffer) return NotArrays(op);
          operands.push_back(list[0]);
        }
        for (BufferId id : buffers.leaves)
          if (id == kNoBuffer) return NotArrays(op);
        std::vector<std::pair<const Computation*, CompiledComputation*>>
            regions;
        for (const Computation* region : op.called_computations()) {
          env.regions.insert(region);
          StatusOr<CompiledComputation*> compiled = get(region);
          if (!compiled.ok()) return compiled.status();
          regions.emplace_back(region, *compiled);
        }
        StatusOr<Kernel> kernel = env.kernels(op);
        if (!kernel.ok()) return kernel.status();
        if (IsLoopOp(op.opcode()) || op.opcode() == Opcode::kReduce)
          *kernel = WithGeneratedKernel(env, op, std::move(*kernel));
        thunks_.push_back(std::make_unique<KernelThunk>(
            op, std::move(*kernel), std::move(operands), buffers.leaves,
            regions.empty() ? nullptr
                            : std::make_unique<ExecutorRegionRunner>(regions),
            env.pool));
        break;
      }
    }
    LabelThunksFrom(first, &op);
  }
  if (!assignment.output_copies.empty()) {
    thunks_.push_back(std::make_unique<CopyThunk>(assignment.output_copies));
    LabelThunksFrom(labels_.size(), nullptr);
  }
  return Status::Ok();
}

void CompiledComputation::LabelThunksFrom(size_t first, const Instruction* op) {
  for (size_t i = first; i < thunks_.size(); ++i) {
    ThunkLabel label;
    if (op != nullptr) {
      label.op =
          "%" + op->name() + " = " + std::string(OpcodeName(op->opcode()));
      if (op->location().known()) label.location = op->location().ToString();
    }
    if (op == nullptr ||
        dynamic_cast<CopyThunk*>(thunks_[i].get()) != nullptr) {
      label.name = "copy";
      label.category = "copy";
    } else if (op->opcode() == Opcode::kCustomCall) {
      label.name = op->custom_call.target;
      label.category = "custom-call";
    } else {
      label.name = op->name();
      switch (op->opcode()) {
        case Opcode::kFusion:
          label.category = "fusion";
          break;
        case Opcode::kWhile:
        case Opcode::kConditional:
        case Opcode::kCall:
          label.category = "control-flow";
          break;
        default:
          label.category = "kernel";
      }
    }
    labels_.push_back(std::move(label));
  }
}

Status CompiledComputation::RunTraced(ExecutionTrace& trace,
                                      void* const* addresses) {
  // Spans inside a while body or a called computation sit one level below
  // the op that ran them.
  static thread_local int depth = 0;
  for (size_t i = 0; i < thunks_.size(); ++i) {
    const ThunkLabel& label = labels_[i];
    int64_t start = trace.NowNs();
    ++depth;
    Status status;
    {
      // Kernels run their regions (a reduce's, a sort's comparator) through
      // computations too, once per element: those are not spans.
      bool nests =
          label.category == "control-flow" || label.category == "fusion";
      TraceScope inner(nests ? &trace : nullptr);
      status = thunks_[i]->Run(addresses);
    }
    --depth;
    trace.Add({label.name, label.category, label.op, label.location, start,
               trace.NowNs() - start, depth});
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

void CompiledComputation::SetArena(void* arena) {
  for (size_t id = 0; id < assignment_.buffers.size(); ++id) {
    const compiler::Buffer& buffer = assignment_.buffers[id];
    if (buffer.kind == BufferKind::kArena)
      addresses_[id] = static_cast<unsigned char*>(arena) + buffer.offset;
  }
}

Status CompiledComputation::Run(const void* const* parameters,
                                void* const* outputs) {
  for (const auto& [id, number] : parameter_slots_)
    addresses_[static_cast<size_t>(id)] = const_cast<void*>(parameters[number]);
  for (const auto& [id, number] : output_slots_)
    addresses_[static_cast<size_t>(id)] = outputs[number];
  void* const* addresses = addresses_.data();
  if (ExecutionTrace* trace = TraceScope::Current(); trace != nullptr)
    return RunTraced(*trace, addresses);
  for (const auto& thunk : thunks_) {
    Status status = thunk->Run(addresses);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

int64_t PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return -1;  // unknown: no limit
  return static_cast<int64_t>(pages) * page_size;
}

ExecutorStats GetExecutorStats(const Executable& executable) {
  const auto* cpu = dynamic_cast<const CpuExecutable*>(&executable);
  if (cpu == nullptr) return ExecutorStats();
  ExecutorStats stats = cpu->Stats();
  if (const codegen::ProgramKernels* generated = cpu->codegen();
      generated != nullptr) {
    const codegen::CodegenStats& codegen = generated->stats();
    stats.generated_kernels = codegen.kernels;
    stats.codegen_seconds = codegen.emit_seconds + codegen.optimize_seconds +
                            codegen.machine_code_seconds;
  }
  return stats;
}

StatusOr<std::unique_ptr<Executable>> CreateExecutable(
    Module module, const CompileOptions& options, KernelFactory kernels) {
  if (options.platform != Platform::kHost) {
    return Unimplemented(
        "Compile: the CPU backend runs programs on the Host platform only, "
        "not " +
        std::string(PlatformName(options.platform)));
  }
  // jaxlib's targets are part of the CPU backend: resolvable by name before
  // any thunk looks one up.
  if (Status builtins = RegisterBuiltinCpuTargets(); !builtins.ok())
    return builtins;
  auto runtime = std::make_unique<Runtime>(options.platform);
  runtime->custom_call_timeout = options.custom_call_timeout;
  runtime->memory_limit = options.memory_limit_bytes != 0
                              ? options.memory_limit_bytes
                              : PhysicalMemoryBytes();
  int threads = options.intra_op_threads > 0
                    ? options.intra_op_threads
                    : static_cast<int>(std::thread::hardware_concurrency());
  runtime->pool = std::make_unique<ThreadPool>(threads);
  runtime->context.set_thread_pool(runtime->pool.get());
  runtime->kernels = std::move(kernels);
  runtime->in_place = std::make_unique<compiler::InPlaceAnalysis>(module);
  runtime->entry = module.entry();
  runtime->codegen = codegen::ProgramKernels::Create();
  // The first instance now: a program that does not compile fails here, and
  // a single-threaded caller never builds another.
  StatusOr<RunInstance*> first = runtime->Acquire();
  if (!first.ok()) return first.status();
  runtime->Release(*first);
  // Every kernel is added: compile the program's module once. Should LLVM
  // fail, the kernels fall back to the template ones (their functions stay
  // null), so the program still runs. Later instances get the same kernels.
  if (runtime->codegen != nullptr) (void)runtime->codegen->Finish();
  return std::unique_ptr<Executable>(
      new CpuExecutable(std::move(module), std::move(runtime)));
}

}  // namespace xffi::cpu
