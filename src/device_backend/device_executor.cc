// The device executor: thunks over device buffers, runs, the Executable.
#include "device_backend/device_executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/backend_util.h"
#include "compiler/buffer_assignment.h"
#include "compiler/control_flow.h"
#include "compiler/in_place.h"
#include "device/graph_cache.h"
#include "device/platform_context.h"
#include "device_backend/custom_call_events.h"
#include "device_backend/custom_call_relayout.h"
#include "device_backend/op_kernels.h"
#include "runtime/status_macros.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace xffi::device_backend {
namespace {

using compiler::BufferCopy;
using compiler::BufferId;
using compiler::BufferKind;
using compiler::InstructionBuffers;
using compiler::kNoBuffer;

// What a custom call the run gave up on (custom_call_timeout) may still
// read and write until it completes: its frame and state. The executable adds
// its device block, stream and context (executable's Abandon).
struct AbandonedCall {
  std::shared_ptr<AsyncValue> future;
  std::shared_ptr<const void> frame;
  std::unique_ptr<CallSiteState> state;
};

// What a thunk runs with.
struct RunEnv {
  device::Device& device;
  device::Stream& stream;
  device::DeviceExecutionContext& context;
  // The stream records into a graph: nothing may wait for it, allocate or
  // free device memory, and work enqueued now is replayed by every run. A
  // custom call's stages before execute (which may do all three, once) must
  // have run before the capture (Thunk::Initialize).
  bool capturing = false;
  // Zero: wait for a custom call's future as long as it takes.
  std::chrono::nanoseconds custom_call_timeout{0};
  // Set by the custom call that timed out; the run then fails.
  std::unique_ptr<AbandonedCall>* abandoned = nullptr;
  // Where each custom call's work ends on `stream`; null while capturing
  // (a graph's errors surface at its replay, for the run as a whole).
  CustomCallEvents* call_events = nullptr;
};

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual Status Run(RunEnv& env, void* const* addresses) = 0;
  // What must happen once before the thunk's work is captured into a graph,
  // outside the capture: a custom call's instantiate, prepare and
  // initialize stages (XLA initialises a command buffer's commands before
  // recording them, for the same reason).
  virtual Status Initialize(RunEnv& env, void* const* addresses) {
    (void)env;
    (void)addresses;
    return Status::Ok();
  }
};

Status AtOp(const Instruction& op, Status status) {
  if (status.ok() || !op.location().known()) return status;
  return Status(status.code(),
                "at " + op.location().ToString() + ": " + status.message());
}

using compiler::CustomCallSite;
using compiler::FlattenBuffers;
using compiler::LeafByteSizes;
using compiler::RunsNothing;
using compiler::SameTypesAndDims;

template <typename Pointer>
void Resolve(const std::vector<BufferId>& ids, void* const* addresses,
             std::vector<Pointer>& out) {
  out.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    out[i] = ids[i] == kNoBuffer ? nullptr : addresses[ids[i]];
}

class CopyThunk : public Thunk {
 public:
  explicit CopyThunk(std::vector<BufferCopy> copies)
      : copies_(std::move(copies)) {}
  Status Run(RunEnv& env, void* const* addresses) override {
    for (const BufferCopy& copy : copies_) {
      if (addresses[copy.to] == addresses[copy.from] || copy.size == 0)
        continue;
      XFFI_RETURN_IF_ERROR(env.stream.CopyDeviceToDevice(
          addresses[copy.to], addresses[copy.from], copy.size));
    }
    return Status::Ok();
  }

 private:
  std::vector<BufferCopy> copies_;
};

class LaunchThunk : public Thunk {
 public:
  LaunchThunk(const Instruction& op, Launcher launcher)
      : op_(op), launcher_(std::move(launcher)) {}
  Status Run(RunEnv& env, void* const* addresses) override {
    return AtOp(op_, launcher_(env.stream, addresses));
  }

 private:
  const Instruction& op_;
  Launcher launcher_;
};

// The host waits for the run's stream. An asynchronous error is put on the
// first custom call whose work did not complete cleanly; one raised after
// every call's work is the caller's to describe (`describe`).
template <typename Describe>
Status SynchronizeRun(RunEnv& env, Describe describe) {
  Status synced = env.stream.Synchronize();
  if (env.call_events != nullptr) {
    if (synced.ok()) {
      env.call_events->Clear();
    } else if (std::optional<Status> blamed = env.call_events->Blame(synced)) {
      return *blamed;
    }
  }
  return synced.ok() ? synced : describe(std::move(synced));
}

// Reads a small device value back to the host: the host waits for the
// stream here (a while's predicate, a conditional's branch index).
Status ReadBack(RunEnv& env, const Instruction& op, const void* device_data,
                void* host, size_t size) {
  XFFI_RETURN_IF_ERROR(env.stream.CopyDeviceToHost(host, device_data, size));
  return SynchronizeRun(env, [&](Status error) { return AtOp(op, error); });
}

class DeviceComputation;

class CallThunk : public Thunk {
 public:
  CallThunk(DeviceComputation* callee, std::vector<BufferId> arguments,
            std::vector<BufferId> results)
      : callee_(callee),
        argument_ids_(std::move(arguments)),
        result_ids_(std::move(results)) {}
  Status Run(RunEnv& env, void* const* addresses) override;
  Status Initialize(RunEnv& env, void* const* addresses) override;

 private:
  DeviceComputation* callee_;
  std::vector<BufferId> argument_ids_, result_ids_;
  std::vector<const void*> arguments_;
  std::vector<void*> results_;
};

class ConditionalThunk : public Thunk {
 public:
  struct Branch {
    DeviceComputation* computation;
    std::vector<BufferId> argument_ids;
  };
  ConditionalThunk(const Instruction& op, BufferId index, bool is_pred,
                   std::vector<Branch> branches, std::vector<BufferId> results)
      : op_(op),
        index_(index),
        is_pred_(is_pred),
        branches_(std::move(branches)),
        result_ids_(std::move(results)) {}
  Status Run(RunEnv& env, void* const* addresses) override;

 private:
  const Instruction& op_;
  BufferId index_;
  bool is_pred_;
  std::vector<Branch> branches_;
  std::vector<BufferId> result_ids_;
  std::vector<const void*> arguments_;
  std::vector<void*> results_;
};

// A loop condition of scalar ops over scalar leaves of the state: its
// leaves are read back and the fused-loop kernel's host code computes the
// predicate, so an iteration runs no condition kernels, only one read-back
// of a few bytes (which the predicate's read-back cost anyway).
struct HostLoopCondition {
  FusedLoopKernel kernel;
  std::vector<size_t> leaves;
  std::vector<size_t> sizes;
};

std::optional<HostLoopCondition> CompileHostLoopCondition(
    const Computation& condition) {
  std::optional<compiler::ScalarLoopCondition> scalar =
      compiler::ExtractScalarLoopCondition(
          condition, [](const Instruction& op) {
            return op.shape().IsArray() && op.shape().num_elements() == 1;
          });
  if (!scalar.has_value() ||
      scalar->leaves.size() > static_cast<size_t>(kMaxFusedInputs))
    return std::nullopt;
  std::optional<FusedLoopKernel> kernel =
      CompileFusedLoop(*scalar->computation, 1);
  if (!kernel.has_value() ||
      kernel->steps[kernel->count - 1].out_type != DType::kPred)
    return std::nullopt;
  HostLoopCondition host{*kernel, std::move(scalar->leaves), {}};
  for (const Instruction* parameter : scalar->computation->parameters()) {
    host.sizes.push_back(parameter->shape().byte_size());
    if (host.sizes.back() > sizeof(uint64_t)) return std::nullopt;
  }
  return host;
}

// The loop itself is the CPU's (compiler::RunSwappingLoop); only the
// predicate, or the condition's scalar leaves, cross to the host each
// iteration.
class WhileThunk : public Thunk {
 public:
  WhileThunk(const Instruction& op,
             std::optional<HostLoopCondition> host_condition,
             DeviceComputation* condition, DeviceComputation* body,
             std::vector<BufferId> state, std::vector<BufferId> next,
             BufferId pred, std::vector<size_t> sizes)
      : op_(op),
        host_condition_(std::move(host_condition)),
        condition_(condition),
        body_(body),
        state_ids_(std::move(state)),
        next_ids_(std::move(next)),
        pred_(pred),
        sizes_(std::move(sizes)) {}
  Status Run(RunEnv& env, void* const* addresses) override;

 private:
  StatusOr<bool> Condition(RunEnv& env, const void* const* state);

  const Instruction& op_;
  std::optional<HostLoopCondition> host_condition_;
  DeviceComputation* condition_;  // null when host_condition_ is set
  DeviceComputation* body_;
  std::vector<BufferId> state_ids_, next_ids_;
  BufferId pred_;
  std::vector<size_t> sizes_;
  std::vector<void*> a_, b_;
  std::vector<const void*> current_;
  void* pred_address_ = nullptr;
  // The condition's leaves on the host, 8 bytes each (scalars).
  std::vector<uint64_t> host_leaves_;
};

// Marks the end of the work a custom call enqueued, so that its
// asynchronous failure names the target when a later synchronisation
// reports it (custom_call_events.h); the host does not wait here.
Status CompleteCustomCall(RunEnv& env, const Instruction& op) {
  if (env.call_events == nullptr) return Status::Ok();
  return env.call_events->Mark(env.stream, op);
}

// The operand leaves, then the result leaves, of a custom call.
struct CustomCallLeaves {
  std::vector<BufferId> operands, results;

  explicit CustomCallLeaves(const InstructionBuffers& buffers)
      : operands(FlattenBuffers(buffers.operands)), results(buffers.leaves) {}
};

class FfiCallThunk : public Thunk {
 public:
  FfiCallThunk(const Instruction& op, const InstructionBuffers& buffers,
               const HandlerRecord& record)
      : op_(op),
        leaves_(buffers),
        record_(record),
        frame_(compiler::BuildCustomCallFrame(op)),
        state_(std::make_unique<CallSiteState>()) {}

  Status Run(RunEnv& env, void* const* addresses) override {
    if (stages_done_ < 3 && env.capturing)
      return Internal(CustomCallSite(op_) +
                      ": its stages before execute did not run before the "
                      "capture, and must not run inside it");
    XFFI_RETURN_IF_ERROR(Initialize(env, addresses));
    XFFI_RETURN_IF_ERROR(Call(env, XLA_FFI_ExecutionStage_EXECUTE));
    return CompleteCustomCall(env, op_);
  }

  // Runs are serialised: the stages before execute run once, at the first
  // run (before its capture, when the program is captured); a failed one
  // is retried by the next.
  Status Initialize(RunEnv& env, void* const* addresses) override {
    for (size_t i = 0; i < leaves_.operands.size(); ++i)
      if (leaves_.operands[i] != kNoBuffer)
        frame_.arg_buffer(i)->data = addresses[leaves_.operands[i]];
    for (size_t r = 0; r < leaves_.results.size(); ++r)
      if (leaves_.results[r] != kNoBuffer)
        frame_.ret_buffer(r)->data = addresses[leaves_.results[r]];
    static constexpr XLA_FFI_ExecutionStage kStages[] = {
        XLA_FFI_ExecutionStage_INSTANTIATE, XLA_FFI_ExecutionStage_PREPARE,
        XLA_FFI_ExecutionStage_INITIALIZE};
    for (; stages_done_ < 3; ++stages_done_)
      XFFI_RETURN_IF_ERROR(Call(env, kStages[stages_done_]));
    return Status::Ok();
  }

 private:
  Status Call(RunEnv& env, XLA_FFI_ExecutionStage stage) {
    CallOptions options;
    options.stage = stage;
    options.context = &env.context.context();
    options.state = state_.get();
    options.handler_api_minor = record_.api_minor;
    options.target_name = record_.name;
    CallResult result = CallHandler(record_, frame_.get(), options);
    Status status = std::move(result.status);
    if (status.ok() && result.future != nullptr) {
      if (env.custom_call_timeout.count() > 0 && env.abandoned != nullptr) {
        std::optional<Status> done =
            result.future->WaitFor(env.custom_call_timeout);
        if (!done.has_value()) return Abandon(env, std::move(result.future));
        status = std::move(*done);
      } else {
        status = result.future->Wait();
      }
    }
    if (status.ok()) return status;
    std::string when = stage == XLA_FFI_ExecutionStage_EXECUTE
                           ? ""
                           : " in stage " + ExecutionStageName(stage);
    return Status(status.code(), CustomCallSite(op_) + " failed" + when + ": " +
                                     status.message());
  }

  // The pending call keeps this frame and state; the next run gets fresh
  // ones and runs the stages before execute again.
  Status Abandon(RunEnv& env, std::shared_ptr<AsyncValue> future) {
    *env.abandoned = std::make_unique<AbandonedCall>(AbandonedCall{
        std::move(future), frame_.keep_alive(), std::move(state_)});
    frame_ = compiler::BuildCustomCallFrame(op_);
    state_ = std::make_unique<CallSiteState>();
    stages_done_ = 0;
    return Status(XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
                  CustomCallSite(op_) +
                      " did not complete within the custom-call timeout (" +
                      std::to_string(
                          std::chrono::duration<double>(env.custom_call_timeout)
                              .count()) +
                      " s); the run was abandoned");
  }

  const Instruction& op_;
  CustomCallLeaves leaves_;
  const HandlerRecord& record_;
  CallFrame frame_;
  std::unique_ptr<CallSiteState> state_;
  int stages_done_ = 0;
};

// XLA's GPU convention: (stream, buffers, opaque, opaque_len[, status]),
// operand leaves then result leaves, tokens as null.
class LegacyCallThunk : public Thunk {
 public:
  LegacyCallThunk(const Instruction& op, const InstructionBuffers& buffers,
                  const LegacyTargetRecord& target)
      : op_(op),
        leaves_(buffers),
        target_(target),
        version_(static_cast<LegacyApiVersion>(
            static_cast<int>(op.custom_call.api_version))),
        frame_(compiler::BuildLegacyCallFrame(op, Platform::kCuda)) {
    frame_.set_opaque(op.custom_call.opaque);
  }

  Status Run(RunEnv& env, void* const* addresses) override {
    for (size_t i = 0; i < leaves_.operands.size(); ++i) {
      if (leaves_.operands[i] == kNoBuffer) continue;
      XFFI_RETURN_IF_ERROR(
          frame_.SetOperandLeaf(i, addresses[leaves_.operands[i]]));
    }
    for (size_t r = 0; r < leaves_.results.size(); ++r) {
      if (leaves_.results[r] == kNoBuffer) continue;
      XFFI_RETURN_IF_ERROR(
          frame_.SetResultLeaf(r, addresses[leaves_.results[r]]));
    }
    frame_.set_stream(env.stream.native_handle());
    Status status = CallLegacyTarget(target_, version_, frame_);
    if (!status.ok())
      return Status(status.code(),
                    CustomCallSite(op_) + " failed: " + status.message());
    return CompleteCustomCall(env, op_);
  }

 private:
  const Instruction& op_;
  CustomCallLeaves leaves_;
  const LegacyTargetRecord& target_;
  LegacyApiVersion version_;
  LegacyCallFrame frame_;
};

// A custom call between the relayouts of its leaves into and out of the
// layouts its target asked for (custom_call_relayout.h).
class RelayoutCallThunk : public Thunk {
 public:
  RelayoutCallThunk(const Instruction& op, CustomCallRelayouts relayouts,
                    std::unique_ptr<Thunk> call)
      : op_(op), relayouts_(std::move(relayouts)), call_(std::move(call)) {}

  Status Run(RunEnv& env, void* const* addresses) override {
    XFFI_RETURN_IF_ERROR(AtOp(op_, relayouts_.before(env.stream, addresses)));
    XFFI_RETURN_IF_ERROR(call_->Run(env, addresses));
    return AtOp(op_, relayouts_.after(env.stream, addresses));
  }
  Status Initialize(RunEnv& env, void* const* addresses) override {
    return call_->Initialize(env, addresses);
  }

 private:
  const Instruction& op_;
  CustomCallRelayouts relayouts_;
  std::unique_ptr<Thunk> call_;
};

StatusOr<std::unique_ptr<Thunk>> MakeTargetCallThunk(
    const Instruction& op, const InstructionBuffers& buffers,
    std::string* not_capturable);

StatusOr<std::unique_ptr<Thunk>> MakeCustomCallThunk(
    const Instruction& op, const InstructionBuffers& buffers,
    std::string* not_capturable) {
  std::optional<CustomCallRelayouts> relayouts =
      PlanCustomCallRelayouts(op, buffers);
  if (!relayouts) return MakeTargetCallThunk(op, buffers, not_capturable);
  StatusOr<std::unique_ptr<Thunk>> call =
      MakeTargetCallThunk(op, relayouts->target_view, not_capturable);
  if (!call.ok()) return call.status();
  return std::unique_ptr<Thunk>(
      new RelayoutCallThunk(op, std::move(*relayouts), std::move(*call)));
}

StatusOr<std::unique_ptr<Thunk>> MakeTargetCallThunk(
    const Instruction& op, const InstructionBuffers& buffers,
    std::string* not_capturable) {
  StatusOr<compiler::CustomCallTarget> target =
      compiler::ResolveCustomCall(op, Platform::kCuda);
  if (!target.ok()) return target.status();
  if (target->handler != nullptr) {
    if ((target->handler->traits &
         XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE) == 0)
      *not_capturable =
          CustomCallSite(op) + " is not COMMAND_BUFFER_COMPATIBLE";
    return std::unique_ptr<Thunk>(
        new FfiCallThunk(op, buffers, *target->handler));
  }
  *not_capturable = CustomCallSite(op) + " is a legacy target";
  return std::unique_ptr<Thunk>(
      new LegacyCallThunk(op, buffers, *target->legacy));
}

// Offsets in the executable's one device allocation.
class MemoryPlan {
 public:
  size_t Reserve(size_t size) {
    const size_t offset = size_;
    size_ += (size + device::Device::kAllocationAlignment - 1) /
             device::Device::kAllocationAlignment *
             device::Device::kAllocationAlignment;
    return offset;
  }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

struct ConstantUpload {
  size_t offset;
  const void* data;
  size_t size;
};

struct BuildEnv {
  const compiler::InPlaceAnalysis* in_place = nullptr;
  // Why the program cannot be captured into a graph ("" when it can): a
  // while or conditional reads device values on the host, and a custom call
  // is captured only when its handler has the COMMAND_BUFFER_COMPATIBLE
  // trait (legacy targets never: XLA runs them outside command buffers).
  std::string not_capturable;
  int64_t fused_loops = 0;      // loop fusions run as one interpreting kernel
  int64_t host_conditions = 0;  // while conditions evaluated on the host
  DeviceFeatures features;      // of the executable's device
  MemoryPlan plan;
  std::vector<ConstantUpload> constants;
  std::unordered_map<const Computation*, std::unique_ptr<DeviceComputation>>
      compiled;
  std::unordered_set<const Computation*> in_progress;

  StatusOr<DeviceComputation*> Get(const Computation* computation);
};

class DeviceComputation {
 public:
  static StatusOr<std::unique_ptr<DeviceComputation>> Build(
      const Computation& computation, BuildEnv& env) {
    StatusOr<compiler::BufferAssignment> assignment =
        compiler::AssignBuffers(computation, env.in_place);
    if (!assignment.ok()) return assignment.status();
    std::unique_ptr<DeviceComputation> compiled(
        new DeviceComputation(computation, std::move(*assignment)));
    XFFI_RETURN_IF_ERROR(compiled->EmitThunks(env));
    return compiled;
  }

  // Addresses of the arena and constants, once the allocation exists.
  void Bind(char* base) {
    for (const auto& [id, offset] : placed_)
      addresses_[static_cast<size_t>(id)] = base + offset;
  }

  Status Run(RunEnv& env, const void* const* parameters, void* const* outputs) {
    BindSlots(parameters, outputs);
    for (const auto& thunk : thunks_)
      XFFI_RETURN_IF_ERROR(thunk->Run(env, addresses_.data()));
    return Status::Ok();
  }

  // Thunk::Initialize of every thunk, with the addresses a run would give.
  Status Initialize(RunEnv& env, const void* const* parameters,
                    void* const* outputs) {
    BindSlots(parameters, outputs);
    for (const auto& thunk : thunks_)
      XFFI_RETURN_IF_ERROR(thunk->Initialize(env, addresses_.data()));
    return Status::Ok();
  }

  const compiler::BufferAssignment& assignment() const { return assignment_; }
  size_t num_thunks() const { return thunks_.size(); }

 private:
  DeviceComputation(const Computation& computation,
                    compiler::BufferAssignment assignment)
      : computation_(computation), assignment_(std::move(assignment)) {}

  void BindSlots(const void* const* parameters, void* const* outputs) {
    for (const auto& [id, number] : parameter_slots_)
      addresses_[static_cast<size_t>(id)] =
          const_cast<void*>(parameters[number]);
    for (const auto& [id, number] : output_slots_)
      addresses_[static_cast<size_t>(id)] = outputs[number];
  }

  Status EmitThunks(BuildEnv& env) {
    const compiler::BufferAssignment& assignment = assignment_;
    addresses_.assign(assignment.buffers.size(), nullptr);
    const size_t arena = env.plan.Reserve(assignment.arena_size);
    for (size_t id = 0; id < assignment.buffers.size(); ++id) {
      const compiler::Buffer& buffer = assignment.buffers[id];
      const BufferId buffer_id = static_cast<BufferId>(id);
      switch (buffer.kind) {
        case BufferKind::kArena:
          placed_.emplace_back(buffer_id, arena + buffer.offset);
          break;
        case BufferKind::kConstant: {
          const size_t offset = env.plan.Reserve(buffer.size);
          env.constants.push_back({offset, buffer.constant, buffer.size});
          placed_.emplace_back(buffer_id, offset);
          break;
        }
        case BufferKind::kParameter:
          parameter_slots_.emplace_back(buffer_id, buffer.number);
          break;
        case BufferKind::kOutput:
          output_slots_.emplace_back(buffer_id, buffer.number);
          break;
      }
    }
    for (size_t p = 0; p < assignment.schedule.size(); ++p) {
      const Instruction& op = *assignment.schedule[p];
      const InstructionBuffers& buffers = assignment.instructions[p];
      if (!buffers.copies_before.empty())
        thunks_.push_back(std::make_unique<CopyThunk>(buffers.copies_before));
      if (RunsNothing(op.opcode())) continue;
      XFFI_RETURN_IF_ERROR(EmitOp(op, buffers, env));
    }
    if (!assignment.output_copies.empty())
      thunks_.push_back(std::make_unique<CopyThunk>(assignment.output_copies));
    return Status::Ok();
  }

  Status EmitOp(const Instruction& op, const InstructionBuffers& buffers,
                BuildEnv& env) {
    switch (op.opcode()) {
      case Opcode::kCopy: {
        std::vector<BufferCopy> copies;
        std::vector<BufferId> from = FlattenBuffers(buffers.operands);
        std::vector<size_t> sizes = LeafByteSizes(op.shape());
        for (size_t i = 0; i < buffers.leaves.size(); ++i)
          if (buffers.leaves[i] != kNoBuffer && buffers.leaves[i] != from[i])
            copies.push_back({from[i], buffers.leaves[i], sizes[i]});
        if (!copies.empty())
          thunks_.push_back(std::make_unique<CopyThunk>(std::move(copies)));
        return Status::Ok();
      }
      // A loop fusion of elementwise ops is one kernel interpreting them per
      // element; any other fusion runs as the call of its fused
      // computation, one kernel per op.
      case Opcode::kFusion: {
        std::vector<BufferId> operands = FlattenBuffers(buffers.operands);
        if (operands.size() == static_cast<size_t>(op.operand_count()) &&
            buffers.leaves.size() == 1 && buffers.leaves[0] != kNoBuffer) {
          if (std::optional<Launcher> fused =
                  MakeFusedLoopLauncher(op, operands, buffers.leaves[0])) {
            thunks_.push_back(
                std::make_unique<LaunchThunk>(op, std::move(*fused)));
            ++env.fused_loops;
            return Status::Ok();
          }
        }
        [[fallthrough]];
      }
      case Opcode::kCall: {
        StatusOr<DeviceComputation*> callee =
            env.Get(op.called_computations()[0]);
        if (!callee.ok()) return callee.status();
        thunks_.push_back(std::make_unique<CallThunk>(
            *callee, FlattenBuffers(buffers.operands), buffers.leaves));
        return Status::Ok();
      }
      case Opcode::kConditional: {
        env.not_capturable = "a conditional reads its branch index back";
        std::vector<ConditionalThunk::Branch> branches;
        for (size_t b = 0; b < op.called_computations().size(); ++b) {
          StatusOr<DeviceComputation*> branch =
              env.Get(op.called_computations()[b]);
          if (!branch.ok()) return branch.status();
          branches.push_back({*branch, buffers.operands[b + 1]});
        }
        const bool is_pred =
            op.operand(0)->shape().element_type() == ElementType::kPred;
        thunks_.push_back(std::make_unique<ConditionalThunk>(
            op, buffers.operands[0][0], is_pred, std::move(branches),
            buffers.leaves));
        return Status::Ok();
      }
      case Opcode::kWhile: {
        env.not_capturable = "a while loop reads its predicate back";
        // A condition of scalar ops runs on the host; only another one is
        // compiled.
        std::optional<HostLoopCondition> host_condition =
            CompileHostLoopCondition(*op.called_computations()[0]);
        DeviceComputation* condition = nullptr;
        if (!host_condition.has_value()) {
          StatusOr<DeviceComputation*> compiled =
              env.Get(op.called_computations()[0]);
          if (!compiled.ok()) return compiled.status();
          condition = *compiled;
        } else {
          ++env.host_conditions;
        }
        StatusOr<DeviceComputation*> body =
            env.Get(op.called_computations()[1]);
        if (!body.ok()) return body.status();
        const size_t n = buffers.leaves.size();
        std::vector<BufferId> next(buffers.temps.begin(),
                                   buffers.temps.begin() + n);
        thunks_.push_back(std::make_unique<WhileThunk>(
            op, std::move(host_condition), condition, *body, buffers.leaves,
            std::move(next), buffers.temps[n], LeafByteSizes(op.shape())));
        return Status::Ok();
      }
      case Opcode::kCustomCall: {
        StatusOr<std::unique_ptr<Thunk>> thunk =
            MakeCustomCallThunk(op, buffers, &env.not_capturable);
        if (!thunk.ok()) return thunk.status();
        thunks_.push_back(std::move(*thunk));
        return Status::Ok();
      }
      case Opcode::kSort:
      case Opcode::kTopK:
      case Opcode::kRngBitGenerator:
      case Opcode::kReduce:
      case Opcode::kScatter:
      case Opcode::kReduceWindow: {
        // reduce, scatter and reduce-window are variadic with a tuple result.
        if (!op.shape().IsTuple() && op.opcode() != Opcode::kSort &&
            op.opcode() != Opcode::kTopK &&
            op.opcode() != Opcode::kRngBitGenerator)
          return EmitSingleResultOp(op, buffers, env);
        std::vector<BufferId> operands = FlattenBuffers(buffers.operands);
        for (BufferId id : operands)
          if (id == kNoBuffer) return Unsupported(op, "token operands");
        for (BufferId id : buffers.leaves)
          if (id == kNoBuffer) return Unsupported(op, "token results");
        StatusOr<Launcher> launcher = MakeTupleResultLauncher(
            op, operands, buffers.leaves, ScratchFor(env));
        if (!launcher.ok()) return launcher.status();
        thunks_.push_back(
            std::make_unique<LaunchThunk>(op, std::move(*launcher)));
        return Status::Ok();
      }
      default:
        return EmitSingleResultOp(op, buffers, env);
    }
  }

  // Scratch lies in the executable's block beside the arena, one region
  // per op: ops run one after another on one stream.
  ReserveScratch ScratchFor(BuildEnv& env) {
    return [this, &env](size_t bytes) {
      const BufferId id = static_cast<BufferId>(addresses_.size());
      addresses_.push_back(nullptr);
      placed_.emplace_back(id, env.plan.Reserve(bytes));
      return id;
    };
  }

  Status EmitSingleResultOp(const Instruction& op,
                            const InstructionBuffers& buffers, BuildEnv& env) {
    std::vector<BufferId> operands;
    for (const auto& list : buffers.operands) {
      if (list.size() != 1 || list[0] == kNoBuffer)
        return Unsupported(op, "tuple or token operands");
      operands.push_back(list[0]);
    }
    if (buffers.leaves.size() != 1 || buffers.leaves[0] == kNoBuffer)
      return Unsupported(op, "a tuple or token result");
    StatusOr<Launcher> launcher = MakeOpLauncher(
        op, operands, buffers.leaves[0], ScratchFor(env), env.features);
    if (!launcher.ok()) return launcher.status();
    thunks_.push_back(std::make_unique<LaunchThunk>(op, std::move(*launcher)));
    return Status::Ok();
  }

  const Computation& computation_;
  compiler::BufferAssignment assignment_;
  std::vector<void*> addresses_;
  std::vector<std::pair<BufferId, size_t>> placed_;  // offset in the block
  std::vector<std::pair<BufferId, int64_t>> parameter_slots_;
  std::vector<std::pair<BufferId, int64_t>> output_slots_;
  std::vector<std::unique_ptr<Thunk>> thunks_;
};

StatusOr<DeviceComputation*> BuildEnv::Get(const Computation* computation) {
  auto found = compiled.find(computation);
  if (found != compiled.end()) return found->second.get();
  if (!in_progress.insert(computation).second)
    return InvalidArgument("computation '" + computation->name() +
                           "' calls itself; HLO programs have no recursion");
  StatusOr<std::unique_ptr<DeviceComputation>> built =
      DeviceComputation::Build(*computation, *this);
  in_progress.erase(computation);
  if (!built.ok()) return built.status();
  DeviceComputation* pointer = built->get();
  compiled[computation] = std::move(*built);
  return pointer;
}

Status CallThunk::Run(RunEnv& env, void* const* addresses) {
  Resolve(argument_ids_, addresses, arguments_);
  Resolve(result_ids_, addresses, results_);
  return callee_->Run(env, arguments_.data(), results_.data());
}

Status CallThunk::Initialize(RunEnv& env, void* const* addresses) {
  Resolve(argument_ids_, addresses, arguments_);
  Resolve(result_ids_, addresses, results_);
  return callee_->Initialize(env, arguments_.data(), results_.data());
}

Status ConditionalThunk::Run(RunEnv& env, void* const* addresses) {
  int32_t index = 0;
  if (is_pred_) {
    unsigned char pred = 0;
    XFFI_RETURN_IF_ERROR(ReadBack(env, op_, addresses[index_], &pred, 1));
    index = pred;
  } else {
    XFFI_RETURN_IF_ERROR(
        ReadBack(env, op_, addresses[index_], &index, sizeof(index)));
  }
  const Branch& branch =
      branches_[compiler::ChosenBranch(is_pred_, index, branches_.size())];
  Resolve(branch.argument_ids, addresses, arguments_);
  Resolve(result_ids_, addresses, results_);
  return branch.computation->Run(env, arguments_.data(), results_.data());
}

StatusOr<bool> WhileThunk::Condition(RunEnv& env, const void* const* state) {
  if (host_condition_.has_value()) {
    const std::vector<size_t>& leaves = host_condition_->leaves;
    host_leaves_.resize(leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i)
      XFFI_RETURN_IF_ERROR(env.stream.CopyDeviceToHost(
          &host_leaves_[i], state[leaves[i]], host_condition_->sizes[i]));
    XFFI_RETURN_IF_ERROR(
        SynchronizeRun(env, [&](Status error) { return AtOp(op_, error); }));
    FusedLoopKernel& kernel = host_condition_->kernel;
    for (size_t i = 0; i < leaves.size(); ++i)
      kernel.inputs[i] = reinterpret_cast<const uint8_t*>(&host_leaves_[i]);
    unsigned char go = 0;
    kernel.out = &go;
    kernel(0);
    return go != 0;
  }
  void* pred = pred_address_;
  XFFI_RETURN_IF_ERROR(condition_->Run(env, state, &pred));
  unsigned char go = 0;
  XFFI_RETURN_IF_ERROR(ReadBack(env, op_, pred, &go, 1));
  return go != 0;
}

Status WhileThunk::Run(RunEnv& env, void* const* addresses) {
  Resolve(state_ids_, addresses, a_);
  Resolve(next_ids_, addresses, b_);
  if (condition_ != nullptr) pred_address_ = addresses[pred_];
  return compiler::RunSwappingLoop(
      a_, b_, current_, sizes_,
      [&](const void* const* state) { return Condition(env, state); },
      [&](const void* const* state, void* const* next) {
        return body_->Run(env, state, next);
      },
      [&](void* to, const void* from, size_t size) {
        return env.stream.CopyDeviceToDevice(to, from, size);
      });
}

// Everything one run uses: the thunks (with their call frames, handler
// states and loop buffers), the device block they address, a stream and
// its context, the graphs captured on them. Concurrent runs of one
// executable take one instance each, as the CPU executor's runs do.
struct RunInstance {
  std::unordered_map<const Computation*, std::unique_ptr<DeviceComputation>>
      computations;
  DeviceComputation* entry = nullptr;
  std::vector<ConstantUpload> constants;
  std::vector<size_t> parameter_offsets, result_offsets;
  size_t device_bytes = 0;
  // Shared with calls abandoned at the timeout, which keep them.
  std::shared_ptr<device::Stream> stream;
  std::shared_ptr<device::DeviceExecutionContext> context;
  std::unique_ptr<CustomCallEvents> call_events;  // on `stream`
  std::shared_ptr<char> block;
  bool placed = false;  // block allocated (if any bytes) and bound
  // The thunks' Initialize has run (a captured program runs it before its
  // first capture); again after a call abandoned at the timeout, whose
  // call site starts over.
  bool initialized = false;
  std::vector<void*> parameter_addresses, result_addresses;
  device::GraphCache graphs;

  ~RunInstance() {
    // Work still queued reads the block: finish it before freeing (which
    // happens later if a call abandoned at the timeout still holds it).
    if (stream != nullptr) (void)stream->Synchronize();
  }
};

class DeviceExecutable;

// ReserveRun's: holds an instance of `owner` until a run takes it.
class InstanceReservation final : public ReservedRun {
 public:
  InstanceReservation(DeviceExecutable& owner, RunInstance& instance)
      : owner_(owner), instance_(&instance) {}
  ~InstanceReservation() override;
  InstanceReservation(const InstanceReservation&) = delete;
  InstanceReservation& operator=(const InstanceReservation&) = delete;

  device::Stream& stream() override { return *instance_->stream; }
  const DeviceExecutable& owner() const { return owner_; }
  // The instance, for the run that now owns it; null when taken already.
  RunInstance* Take() { return std::exchange(instance_, nullptr); }

 private:
  DeviceExecutable& owner_;
  RunInstance* instance_;
};

class DeviceExecutable : public Executable {
 public:
  DeviceExecutable(Module module, std::shared_ptr<device::Device> device)
      : module_(std::move(module)), device_(std::move(device)) {}

  Status Init(const CompileOptions& options) {
    const Computation& entry = *module_.entry();
    for (const Instruction* parameter : entry.parameters()) {
      parameter_shapes_.push_back(parameter->shape());
      for (const Shape* leaf : parameter->shape().Leaves())
        parameter_leaves_.push_back(leaf);
    }
    result_shape_ = entry.root()->shape();
    for (const Shape* leaf : result_shape_.Leaves())
      result_leaves_.push_back(leaf);
    in_place_ = std::make_unique<compiler::InPlaceAnalysis>(module_);
    custom_call_timeout_ = options.custom_call_timeout;

    BuildEnv env;
    StatusOr<std::unique_ptr<RunInstance>> first = BuildThunks(env);
    if (!first.ok()) return first.status();
    capturable_ = env.not_capturable.empty();
    parameter_written_.assign(parameter_leaves_.size(), false);
    for (const compiler::Buffer& buffer : (*first)->entry->assignment().buffers)
      if (buffer.kind == BufferKind::kParameter && buffer.handed_over)
        parameter_written_[static_cast<size_t>(buffer.number)] = true;
    fused_loops_ = env.fused_loops;
    host_conditions_ = env.host_conditions;
    device_bytes_ = (*first)->device_bytes;
    // Weighed before anything is allocated on the device. 0 leaves the
    // limit to the device's own memory, which Allocate reports.
    const int64_t limit = options.memory_limit_bytes;
    if (limit > 0 && device_bytes_ > static_cast<size_t>(limit))
      return Status(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED,
                    "the program's device buffers need " +
                        std::to_string(device_bytes_) +
                        " bytes, over the memory limit of " +
                        std::to_string(limit) + " bytes");
    XFFI_RETURN_IF_ERROR(Place(**first));
    instances_.push_back(std::move(*first));
    idle_.push_back(instances_.back().get());
    return Status::Ok();
  }

  const Module& module() const override { return module_; }
  const std::vector<Shape>& parameter_shapes() const override {
    return parameter_shapes_;
  }
  const Shape& result_shape() const override { return result_shape_; }
  // The first instance's: the one a run takes whenever no other run holds
  // it. Runs concurrent with it get contexts of their own (their stream),
  // without what was added to this one.
  ExecutionContext& context() override {
    return instances_.front()->context->context();
  }

  StatusOr<std::vector<Literal>> Execute(
      const std::vector<Literal>& arguments) override {
    if (arguments.size() != parameter_shapes_.size())
      return InvalidArgument(
          "the program takes " + std::to_string(parameter_shapes_.size()) +
          " arguments, got " + std::to_string(arguments.size()));
    std::vector<const void*> argument_leaves;
    for (size_t i = 0; i < arguments.size(); ++i) {
      if (!SameTypesAndDims(arguments[i].shape(), parameter_shapes_[i]))
        return InvalidArgument(
            "argument " + std::to_string(i) + " for parameter '" +
            module_.entry()->parameters()[i]->name() + "' is " +
            arguments[i].shape().ToString(false) + ", expected " +
            parameter_shapes_[i].ToString(false));
      CollectLeaves(arguments[i], argument_leaves);
    }
    std::vector<Literal> results;
    std::vector<void*> result_leaves;
    for (const Shape* leaf : result_leaves_) {
      results.emplace_back(*leaf);
      result_leaves.push_back(leaf->IsArray() ? results.back().data()
                                              : nullptr);
    }
    XFFI_RETURN_IF_ERROR(Run(argument_leaves, result_leaves));
    return results;
  }

  Status ExecuteRaw(ffi::Span<const void* const> argument_leaves,
                    ffi::Span<void* const> result_leaves) override {
    return ExecuteRawNotifying(argument_leaves, result_leaves, nullptr);
  }

  Status ExecuteRawNotifying(
      ffi::Span<const void* const> argument_leaves,
      ffi::Span<void* const> result_leaves,
      std::function<void()> on_abandoned_call_complete) override {
    if (argument_leaves.size() != parameter_leaves_.size())
      return InvalidArgument(
          "the program's parameters have " +
          std::to_string(parameter_leaves_.size()) + " leaves, got " +
          std::to_string(argument_leaves.size()) + " argument addresses");
    if (result_leaves.size() != result_leaves_.size())
      return InvalidArgument(
          "the program's result has " + std::to_string(result_leaves_.size()) +
          " leaves, got " + std::to_string(result_leaves.size()) +
          " result addresses");
    for (size_t i = 0; i < argument_leaves.size(); ++i)
      if (argument_leaves[i] == nullptr && parameter_leaves_[i]->byte_size())
        return InvalidArgument("argument leaf " + std::to_string(i) +
                               " is null");
    for (size_t i = 0; i < result_leaves.size(); ++i)
      if (result_leaves[i] == nullptr && result_leaves_[i]->byte_size())
        return InvalidArgument("result leaf " + std::to_string(i) + " is null");
    // Parentheses: braces would make a two-pointer initializer list.
    return Run(std::vector<const void*>(argument_leaves.begin(),
                                        argument_leaves.end()),
               std::vector<void*>(result_leaves.begin(), result_leaves.end()),
               nullptr, std::move(on_abandoned_call_complete));
  }

  StatusOr<std::unique_ptr<ReservedRun>> Reserve() {
    StatusOr<RunInstance*> acquired = Acquire();
    if (!acquired.ok()) return acquired.status();
    if (Status placed = Place(**acquired); !placed.ok()) {
      Release(*acquired, nullptr, nullptr);
      return placed;
    }
    return std::unique_ptr<ReservedRun>(
        std::make_unique<InstanceReservation>(*this, **acquired));
  }

  // An instance a reservation held and no run took.
  void GiveBack(RunInstance* instance) { Release(instance, nullptr, nullptr); }

  Status ExecuteWithPlaces(ffi::Span<const void* const> argument_leaves,
                           ffi::Span<void* const> result_leaves,
                           const LeafPlaces& places,
                           std::function<void()> notify,
                           ReservedRun* reserved) {
    auto* reservation = dynamic_cast<InstanceReservation*>(reserved);
    if (reserved != nullptr &&
        (reservation == nullptr || &reservation->owner() != this))
      return InvalidArgument(
          "ExecuteWithDeviceLeaves: the reserved run is another "
          "executable's");
    if (places.argument_on_device.size() != argument_leaves.size())
      return InvalidArgument(
          "argument_on_device has " +
          std::to_string(places.argument_on_device.size()) + " entries for " +
          std::to_string(argument_leaves.size()) + " argument leaves");
    if (argument_leaves.size() != parameter_leaves_.size() ||
        result_leaves.size() != result_leaves_.size())
      return ExecuteRaw(argument_leaves, result_leaves);  // its messages
    RunInstance* instance = nullptr;
    if (reservation != nullptr) {
      instance = reservation->Take();
      if (instance == nullptr)
        return InvalidArgument(
            "ExecuteWithDeviceLeaves: the reserved run was used already");
    }
    return Run(std::vector<const void*>(argument_leaves.begin(),
                                        argument_leaves.end()),
               std::vector<void*>(result_leaves.begin(), result_leaves.end()),
               &places, std::move(notify), instance);
  }

  const std::shared_ptr<device::Device>& device() const { return device_; }

  DeviceExecutorStats Stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceExecutorStats stats;
    stats.device_bytes = device_bytes_;
    const RunInstance& first = *instances_.front();
    stats.computations = static_cast<int64_t>(first.computations.size());
    stats.fused_loops = fused_loops_;
    stats.host_conditions = host_conditions_;
    stats.abandoned_calls = abandoned_calls_;
    stats.bound_arguments = bound_arguments_.load(std::memory_order_relaxed);
    stats.run_instances = static_cast<int64_t>(instances_.size());
    for (const auto& instance : instances_) {
      stats.graph_captures += instance->graphs.captures();
      stats.graph_replays += instance->graphs.replays();
    }
    for (const auto& [computation, compiled] : first.computations)
      stats.thunks += static_cast<int64_t>(compiled->num_thunks());
    return stats;
  }

 private:
  static void CollectLeaves(const Literal& literal,
                            std::vector<const void*>& leaves) {
    if (literal.shape().IsTuple()) {
      for (const Literal& element : literal.tuple_elements())
        CollectLeaves(element, leaves);
      return;
    }
    leaves.push_back(literal.shape().IsArray() ? literal.data() : nullptr);
  }

  // The thunks of one more instance, and its layout of the block.
  StatusOr<std::unique_ptr<RunInstance>> BuildThunks(BuildEnv& env) {
    env.in_place = in_place_.get();
    env.features.fft_library = device_->HasFftLibrary();
    StatusOr<DeviceComputation*> entry = env.Get(module_.entry());
    if (!entry.ok()) return entry.status();
    auto instance = std::make_unique<RunInstance>();
    instance->entry = *entry;
    for (const Shape* leaf : parameter_leaves_)
      instance->parameter_offsets.push_back(
          env.plan.Reserve(leaf->byte_size()));
    for (const Shape* leaf : result_leaves_)
      instance->result_offsets.push_back(env.plan.Reserve(leaf->byte_size()));
    instance->computations = std::move(env.compiled);
    instance->constants = std::move(env.constants);
    instance->device_bytes = env.plan.size();
    return instance;
  }

  // A run found every instance busy: one more, with its own stream and
  // block (RESOURCE_EXHAUSTED naming the size when the device cannot hold
  // it).
  StatusOr<RunInstance*> AddInstance() {
    BuildEnv env;
    StatusOr<std::unique_ptr<RunInstance>> made = BuildThunks(env);
    if (!made.ok()) return made.status();
    XFFI_RETURN_IF_ERROR(Place(**made));
    instances_.push_back(std::move(*made));
    return instances_.back().get();
  }

  // The instance's stream and context, then its block: allocated, every
  // computation bound to it, constants uploaded. Again at the run after one
  // that abandoned a custom call (which keeps the old block).
  Status Place(RunInstance& instance) {
    if (instance.placed) return Status::Ok();
    if (instance.stream == nullptr) {
      StatusOr<std::unique_ptr<device::Stream>> stream =
          device_->CreateStream();
      if (!stream.ok()) return stream.status();
      instance.stream = std::move(*stream);
      instance.context = std::make_shared<device::DeviceExecutionContext>(
          *device_, *instance.stream);
      instance.call_events = std::make_unique<CustomCallEvents>(*device_);
    }
    std::shared_ptr<char> block;
    if (instance.device_bytes > 0) {
      StatusOr<void*> allocated = device_->Allocate(instance.device_bytes);
      if (!allocated.ok())
        return Status(allocated.status().code(),
                      "cannot allocate the program's " +
                          std::to_string(instance.device_bytes) + " bytes on " +
                          std::string(device_->name()) + ": " +
                          allocated.status().message());
      std::shared_ptr<device::Device> device = device_;
      block.reset(static_cast<char*>(*allocated), [device](char* data) {
        // Free waits for work still using it.
        (void)device->Free(data);
      });
    }
    char* base = block.get();
    for (auto& [computation, device_computation] : instance.computations)
      device_computation->Bind(base);
    instance.parameter_addresses.clear();
    instance.result_addresses.clear();
    for (size_t offset : instance.parameter_offsets)
      instance.parameter_addresses.push_back(base + offset);
    for (size_t offset : instance.result_offsets)
      instance.result_addresses.push_back(base + offset);
    for (const ConstantUpload& constant : instance.constants)
      if (constant.size > 0)
        XFFI_RETURN_IF_ERROR(instance.stream->CopyHostToDevice(
            base + constant.offset, constant.data, constant.size));
    XFFI_RETURN_IF_ERROR(instance.stream->Synchronize());
    instance.block = std::move(block);
    instance.placed = true;
    return Status::Ok();
  }

  // A custom call timed out: it may still use the block, its frame and
  // state, the stream and the context until its future completes, so those
  // are kept until then (even past this executable), and the instance's
  // next run gets a fresh block. Execute's host results and the caller's
  // arguments are not touched by device work after the run's copies (the
  // failed run waited for its stream, and never enqueued its result
  // copies), so `notify` (ExecuteRawNotifying's) runs when the call
  // completes.
  void Abandon(RunInstance& instance, std::unique_ptr<AbandonedCall> call,
               std::function<void()> notify) {
    struct Kept {
      std::shared_ptr<device::Device> device;
      std::shared_ptr<device::Stream> stream;
      std::shared_ptr<device::DeviceExecutionContext> context;
      std::shared_ptr<char> block;
      std::shared_ptr<const void> frame;
      std::unique_ptr<CallSiteState> state;
    };
    auto kept = std::make_shared<Kept>(Kept{
        device_, instance.stream, instance.context, std::move(instance.block),
        std::move(call->frame), std::move(call->state)});
    instance.block = nullptr;
    instance.placed = false;
    instance.initialized = false;
    call->future->OnReady(
        [kept, notify = std::move(notify)](const Status&) mutable {
          kept.reset();
          if (notify) notify();
        });
  }

  // An idle instance (the first when it is idle), or a new one.
  StatusOr<RunInstance*> Acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.empty()) return AddInstance();
    auto first =
        std::find(idle_.begin(), idle_.end(), instances_.front().get());
    if (first == idle_.end()) first = idle_.end() - 1;
    RunInstance* instance = *first;
    idle_.erase(first);
    return instance;
  }

  void Release(RunInstance* instance, std::unique_ptr<AbandonedCall> call,
               std::function<void()> notify) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (call != nullptr) {
      Abandon(*instance, std::move(call), std::move(notify));
      ++abandoned_calls_;
    }
    idle_.push_back(instance);
  }

  // Arguments in, the program on the instance's stream, results out: host
  // addresses, or device ones where `places` says so
  // (ExecuteWithDeviceLeaves). `notify`: ExecuteRawNotifying's.
  // `reserved`: an instance a reservation held, which the run now owns.
  Status Run(const std::vector<const void*>& arguments,
             const std::vector<void*>& results,
             const LeafPlaces* places = nullptr,
             std::function<void()> notify = nullptr,
             RunInstance* reserved = nullptr) {
    if (reserved == nullptr) {
      StatusOr<RunInstance*> acquired = Acquire();
      if (!acquired.ok()) return acquired.status();
      reserved = *acquired;
    }
    RunInstance& instance = *reserved;
    std::unique_ptr<AbandonedCall> abandoned;
    Status status = Place(instance);
    if (status.ok()) {
      RunEnv env{*device_, *instance.stream, *instance.context};
      env.custom_call_timeout = custom_call_timeout_;
      env.abandoned = &abandoned;
      instance.call_events->Clear();
      env.call_events = instance.call_events.get();
      status = RunOn(instance, env, arguments, results, places);
      if (!status.ok()) {
        // Leave the stream idle for the next run; its own error (if any)
        // is the one already reported.
        (void)instance.stream->Synchronize();
      }
    }
    Release(&instance, std::move(abandoned), std::move(notify));
    return status;
  }

  Status RunOn(RunInstance& instance, RunEnv& env,
               const std::vector<const void*>& arguments,
               const std::vector<void*>& results, const LeafPlaces* places) {
    device::Stream& stream = *instance.stream;
    std::vector<const void*> parameters(instance.parameter_addresses.begin(),
                                        instance.parameter_addresses.end());
    int64_t bound = 0;
    for (size_t i = 0; i < arguments.size(); ++i) {
      const size_t size = parameter_leaves_[i]->byte_size();
      if (size == 0) continue;
      if (places == nullptr || !places->argument_on_device[i]) {
        XFFI_RETURN_IF_ERROR(stream.CopyHostToDevice(
            instance.parameter_addresses[i], arguments[i], size));
      } else if (CanBindInPlace(i, arguments[i], size)) {
        parameters[i] = arguments[i];
        ++bound;
      } else {
        XFFI_RETURN_IF_ERROR(stream.CopyDeviceToDevice(
            instance.parameter_addresses[i], arguments[i], size));
      }
    }
    if (bound > 0) bound_arguments_.fetch_add(bound, std::memory_order_relaxed);
    if (capturable_) {
      // Command buffer: the program's work is captured once and replayed.
      // What must not be captured (custom calls' stages before execute,
      // which may allocate or synchronise, and run once) runs first, on the
      // stream, outside the capture.
      if (!instance.initialized) {
        XFFI_RETURN_IF_ERROR(instance.entry->Initialize(
            env, parameters.data(), instance.result_addresses.data()));
        instance.initialized = true;
      }
      // Its addresses are the instance's one block (which moves only after
      // an abandoned call) and the arguments bound in place: the cache
      // captures again when any of them changes.
      std::vector<const void*> addresses = {instance.block.get()};
      for (size_t i = 0; i < parameters.size(); ++i)
        if (parameters[i] != instance.parameter_addresses[i])
          addresses.push_back(parameters[i]);
      XFFI_RETURN_IF_ERROR(instance.graphs.Run(
          stream, addresses, [&](device::Stream& capturing) {
            RunEnv capture{*device_, capturing, *instance.context, true};
            capture.custom_call_timeout = env.custom_call_timeout;
            capture.abandoned = env.abandoned;
            return instance.entry->Run(capture, parameters.data(),
                                       instance.result_addresses.data());
          }));
    } else {
      XFFI_RETURN_IF_ERROR(instance.entry->Run(
          env, parameters.data(), instance.result_addresses.data()));
    }
    for (size_t r = 0; r < results.size(); ++r) {
      const size_t size = result_leaves_[r]->byte_size();
      if (size == 0) continue;
      if (places != nullptr && places->results_on_device)
        XFFI_RETURN_IF_ERROR(stream.CopyDeviceToDevice(
            results[r], instance.result_addresses[r], size));
      else
        XFFI_RETURN_IF_ERROR(stream.CopyDeviceToHost(
            results[r], instance.result_addresses[r], size));
    }
    return SynchronizeRun(env, [&](Status error) {
      return Status(error.code(), "the program's work on " +
                                      std::string(device_->name()) +
                                      " failed: " + error.message());
    });
  }

  // Whether device argument leaf `i` at `data` can be the program's
  // parameter buffer itself, with no copy into its slot. Not when:
  // - the program writes that parameter (buffer assignment hands it over to
  //   an in-place update; today it never does for the entry, whose
  //   aliased and donated parameters are copied to a fresh buffer first,
  //   and this keeps a later change from writing the caller's array);
  // - it is less aligned than the arena's buffers, which the kernels may
  //   rely on;
  // - it is not this device's memory (the copy then reports it, naming
  //   the bad address);
  // - a custom call may be abandoned at the timeout: its late work could
  //   read the argument after the caller was told it may free it.
  bool CanBindInPlace(size_t i, const void* data, size_t size) const {
    return !parameter_written_[i] && custom_call_timeout_.count() == 0 &&
           reinterpret_cast<uintptr_t>(data) % compiler::kBufferAlignment ==
               0 &&
           device_->Holds(data, size);
  }

  Module module_;
  std::shared_ptr<device::Device> device_;
  std::unique_ptr<compiler::InPlaceAnalysis> in_place_;
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
  std::vector<const Shape*> parameter_leaves_, result_leaves_;
  std::chrono::nanoseconds custom_call_timeout_{0};
  bool capturable_ = false;
  std::vector<bool> parameter_written_;  // by parameter leaf
  std::atomic<int64_t> bound_arguments_{0};
  int64_t fused_loops_ = 0;
  int64_t host_conditions_ = 0;
  size_t device_bytes_ = 0;   // one instance's block
  mutable std::mutex mutex_;  // the pool below
  std::vector<std::unique_ptr<RunInstance>> instances_;
  std::vector<RunInstance*> idle_;
  int64_t abandoned_calls_ = 0;
};

InstanceReservation::~InstanceReservation() {
  if (instance_ != nullptr) owner_.GiveBack(instance_);
}

}  // namespace

StatusOr<std::unique_ptr<ReservedRun>> ReserveRun(Executable& executable) {
  auto* device = dynamic_cast<DeviceExecutable*>(&executable);
  if (device == nullptr)
    return InvalidArgument("ReserveRun: the program does not run on a device");
  return device->Reserve();
}

DeviceExecutorStats GetDeviceExecutorStats(const Executable& executable) {
  const auto* device = dynamic_cast<const DeviceExecutable*>(&executable);
  return device == nullptr ? DeviceExecutorStats() : device->Stats();
}

std::shared_ptr<device::Device> DeviceOfExecutable(
    const Executable& executable) {
  const auto* device = dynamic_cast<const DeviceExecutable*>(&executable);
  return device == nullptr ? nullptr : device->device();
}

Status ExecuteWithDeviceLeaves(Executable& executable,
                               ffi::Span<const void* const> argument_leaves,
                               ffi::Span<void* const> result_leaves,
                               const LeafPlaces& places,
                               std::function<void()> on_abandoned_call_complete,
                               ReservedRun* reserved) {
  auto* device = dynamic_cast<DeviceExecutable*>(&executable);
  if (device == nullptr)
    return InvalidArgument(
        "ExecuteWithDeviceLeaves: the program does not run on a device");
  return device->ExecuteWithPlaces(argument_leaves, result_leaves, places,
                                   std::move(on_abandoned_call_complete),
                                   reserved);
}

StatusOr<std::unique_ptr<Executable>> CreateDeviceExecutable(
    Module module, const CompileOptions& options,
    std::shared_ptr<device::Device> device) {
  auto executable =
      std::make_unique<DeviceExecutable>(std::move(module), std::move(device));
  XFFI_RETURN_IF_ERROR(executable->Init(options));
  return std::unique_ptr<Executable>(std::move(executable));
}

}  // namespace xffi::device_backend
