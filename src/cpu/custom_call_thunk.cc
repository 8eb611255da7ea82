// Typed and legacy custom-call thunks.
#include "cpu/custom_call_thunk.h"

#include <optional>
#include <string>
#include <vector>

#include "compiler/backend_util.h"
#include "cpu/executor_relayout.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/call_frame.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace xffi::cpu {
namespace {

using compiler::BufferId;
using compiler::kNoBuffer;

std::string Site(const Instruction& op) { return compiler::CustomCallSite(op); }

// The buffers of one side (operands or results), leaf by leaf, with the
// relayout into or out of the target's layout where it asked for one.
struct Leaf {
  BufferId buffer = kNoBuffer;   // kNoBuffer: a token
  BufferId scratch = kNoBuffer;  // the target's layout, or kNoBuffer
  Relayout relayout;
};

// The parts shared by both kinds: the leaves and their relayouts.
class CustomCallThunkBase : public Thunk {
 protected:
  CustomCallThunkBase(const Instruction& op,
                      const compiler::InstructionBuffers& buffers)
      : op_(op) {
    std::vector<std::vector<int64_t>> in_orders =
        compiler::CustomCallLeafOrders(op.custom_call.operand_layouts);
    std::vector<std::vector<int64_t>> out_orders =
        compiler::CustomCallLeafOrders(op.custom_call.result_layouts);
    size_t flat = 0;
    for (int64_t i = 0; i < op.operand_count(); ++i) {
      std::vector<const Shape*> shapes = op.operand(i)->shape().Leaves();
      for (size_t j = 0; j < shapes.size(); ++j, ++flat) {
        Leaf leaf;
        leaf.buffer = buffers.operands[static_cast<size_t>(i)][j];
        leaf.scratch = buffers.temps[flat];
        if (leaf.scratch != kNoBuffer) {
          leaf.relayout = Relayout(
              *shapes[j], shapes[j]->WithoutLayout().EffectiveMinorToMajor(),
              in_orders[flat]);
        }
        operands_.push_back(std::move(leaf));
        operand_shapes_.push_back(shapes[j]);
      }
    }
    std::vector<const Shape*> shapes = op.shape().Leaves();
    for (size_t r = 0; r < shapes.size(); ++r) {
      Leaf leaf;
      leaf.buffer = buffers.leaves[r];
      leaf.scratch = buffers.temps[operands_.size() + r];
      if (leaf.scratch != kNoBuffer) {
        std::vector<int64_t> order =
            out_orders.empty() ? in_orders[FindOperandWithScratch(leaf.scratch)]
                               : out_orders[r];
        leaf.relayout =
            Relayout(*shapes[r], order,
                     shapes[r]->WithoutLayout().EffectiveMinorToMajor());
      }
      results_.push_back(std::move(leaf));
      result_shapes_.push_back(shapes[r]);
    }
  }

  size_t FindOperandWithScratch(BufferId scratch) const {
    for (size_t i = 0; i < operands_.size(); ++i)
      if (operands_[i].scratch == scratch) return i;
    return 0;
  }

  // The address the target sees for operand leaf `i`, relayouting first.
  void* OperandAddress(void* const* addresses, size_t i) const {
    const Leaf& leaf = operands_[i];
    if (leaf.buffer == kNoBuffer) return nullptr;
    void* data = addresses[leaf.buffer];
    if (leaf.scratch == kNoBuffer) return data;
    void* scratch = addresses[leaf.scratch];
    leaf.relayout.Run(data, scratch);
    return scratch;
  }
  void* ResultAddress(void* const* addresses, size_t r) const {
    const Leaf& leaf = results_[r];
    if (leaf.buffer == kNoBuffer) return nullptr;
    return addresses[leaf.scratch == kNoBuffer ? leaf.buffer : leaf.scratch];
  }
  void RelayoutResults(void* const* addresses) const {
    for (const Leaf& leaf : results_) {
      if (leaf.buffer == kNoBuffer || leaf.scratch == kNoBuffer) continue;
      leaf.relayout.Run(addresses[leaf.scratch], addresses[leaf.buffer]);
    }
  }

  const Instruction& op_;
  std::vector<Leaf> operands_, results_;
  std::vector<const Shape*> operand_shapes_, result_shapes_;
};

class FfiCallThunk : public CustomCallThunkBase {
 public:
  FfiCallThunk(const Instruction& op,
               const compiler::InstructionBuffers& buffers,
               const HandlerRecord& record, const CustomCallEnv& env,
               SharedCallSite& site)
      : CustomCallThunkBase(op, buffers),
        record_(record),
        context_(env.context),
        timeout_(env.timeout),
        abandoned_(env.abandoned),
        site_(site),
        frame_(compiler::BuildCustomCallFrame(op)) {
    // The frame's buffers never move once built: a run writes their data
    // fields directly.
    for (size_t i = 0; i < operands_.size(); ++i)
      arg_data_.push_back(&frame_.arg_buffer(i)->data);
    for (size_t r = 0; r < results_.size(); ++r)
      ret_data_.push_back(&frame_.ret_buffer(r)->data);
  }

  Status Run(void* const* addresses) override {
    for (size_t i = 0; i < operands_.size(); ++i)
      if (operands_[i].buffer != kNoBuffer)
        *arg_data_[i] = OperandAddress(addresses, i);
    for (size_t r = 0; r < results_.size(); ++r)
      if (results_[r].buffer != kNoBuffer)
        *ret_data_[r] = ResultAddress(addresses, r);
    if (!site_.prepared.load(std::memory_order_acquire)) [[unlikely]] {
      Status status = RunStagesBeforeExecute();
      if (!status.ok()) return status;
    }
    Status status = Execute();
    if (!status.ok()) return status;
    RelayoutResults(addresses);
    return Status::Ok();
  }

 private:
  // Once per call site: a run that finds another running them waits, and
  // one that fails leaves the failed stage and those after it to the next
  // run (a stage that succeeded is never repeated: its state is set).
  Status RunStagesBeforeExecute() {
    static constexpr XLA_FFI_ExecutionStage kStages[] = {
        XLA_FFI_ExecutionStage_INSTANTIATE, XLA_FFI_ExecutionStage_PREPARE,
        XLA_FFI_ExecutionStage_INITIALIZE};
    std::lock_guard<std::mutex> lock(site_.stages_mutex);
    if (site_.prepared.load(std::memory_order_relaxed)) return Status::Ok();
    for (; site_.stages_done < 3; ++site_.stages_done) {
      Status status = Call(kStages[site_.stages_done]);
      if (!status.ok()) return status;
    }
    site_.prepared.store(true, std::memory_order_release);
    return Status::Ok();
  }

  Status Call(XLA_FFI_ExecutionStage stage) {
    CallOptions options;
    options.stage = stage;
    options.context = context_;
    options.state = &site_.state;
    return Finish(stage, CallHandler(record_, frame_.get(), options));
  }

  // The execute stage without a lookup by stage or a copy of the options.
  Status Execute() {
    if (record_.bundle.execute == nullptr)
      return Call(XLA_FFI_ExecutionStage_EXECUTE);
    CallResult result =
        CallHandler(record_.bundle.execute, frame_.get(), execute_options_);
    if (result.status.ok() && result.future == nullptr) [[likely]]
      return Status();
    return Finish(XLA_FFI_ExecutionStage_EXECUTE, std::move(result));
  }

  Status Finish(XLA_FFI_ExecutionStage stage, CallResult result) {
    Status status = std::move(result.status);
    if (status.ok() && result.future != nullptr) {
      if (timeout_.count() > 0 && abandoned_ != nullptr) {
        std::optional<Status> done = result.future->WaitFor(timeout_);
        if (!done.has_value()) {
          *abandoned_ = std::move(result.future);
          return Status(
              XLA_FFI_Error_Code_DEADLINE_EXCEEDED,
              Site(op_) + " did not complete within the custom-call timeout (" +
                  std::to_string(
                      std::chrono::duration<double>(timeout_).count()) +
                  " s); the run was abandoned");
        }
        status = std::move(*done);
      } else {
        status = result.future->Wait();
      }
    }
    if (status.ok()) return status;
    std::string when = stage == XLA_FFI_ExecutionStage_EXECUTE
                           ? ""
                           : " in stage " + ExecutionStageName(stage);
    return Status(status.code(),
                  Site(op_) + " failed" + when + ": " + status.message());
  }

  CallOptions ExecuteOptions() {
    CallOptions options;
    options.stage = XLA_FFI_ExecutionStage_EXECUTE;
    options.context = context_;
    options.state = &site_.state;
    options.handler_api_minor = record_.api_minor;
    options.target_name = record_.name;
    return options;
  }

  const HandlerRecord& record_;
  ExecutionContext* context_;
  std::chrono::nanoseconds timeout_;
  std::shared_ptr<AsyncValue>* abandoned_;
  SharedCallSite& site_;
  CallFrame frame_;
  std::vector<void**> arg_data_, ret_data_;
  CallOptions execute_options_ = ExecuteOptions();
};

class LegacyCallThunk : public CustomCallThunkBase {
 public:
  LegacyCallThunk(const Instruction& op,
                  const compiler::InstructionBuffers& buffers,
                  const LegacyTargetRecord& target, Platform platform)
      : CustomCallThunkBase(op, buffers),
        target_(target),
        version_(static_cast<LegacyApiVersion>(
            static_cast<int>(op.custom_call.api_version))),
        frame_(compiler::BuildLegacyCallFrame(op, platform)),
        operand_seen_(operands_.size(), nullptr),
        result_seen_(results_.size(), nullptr) {
    frame_.set_opaque(op.custom_call.opaque);
  }

  Status Run(void* const* addresses) override {
    // Arena addresses never change and parameters rarely do: the frame is
    // only told about a leaf whose address differs from the last run's.
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (operands_[i].buffer == kNoBuffer) continue;
      void* data = OperandAddress(addresses, i);
      if (data == operand_seen_[i]) [[likely]]
        continue;
      Status status = frame_.SetOperandLeaf(i, data);
      if (!status.ok())
        return Status(status.code(), Site(op_) + ": " + status.message());
      operand_seen_[i] = data;
    }
    for (size_t r = 0; r < results_.size(); ++r) {
      if (results_[r].buffer == kNoBuffer) continue;
      void* data = ResultAddress(addresses, r);
      if (data == result_seen_[r]) [[likely]]
        continue;
      Status status = frame_.SetResultLeaf(r, data);
      if (!status.ok())
        return Status(status.code(), Site(op_) + ": " + status.message());
      result_seen_[r] = data;
    }
    Status status = CallLegacyTarget(target_, version_, frame_);
    if (!status.ok()) {
      return Status(status.code(), Site(op_) + " failed: " + status.message());
    }
    RelayoutResults(addresses);
    return Status::Ok();
  }

 private:
  const LegacyTargetRecord& target_;
  LegacyApiVersion version_;
  LegacyCallFrame frame_;
  // The address each leaf of frame_ holds (null: never set).
  std::vector<void*> operand_seen_, result_seen_;
};

}  // namespace

SharedCallSite& SharedCallSites::For(const Instruction& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<SharedCallSite>& site = sites_[&op];
  if (site == nullptr) site = std::make_unique<SharedCallSite>();
  return *site;
}

StatusOr<std::unique_ptr<Thunk>> MakeCustomCallThunk(
    const Instruction& op, const compiler::InstructionBuffers& buffers,
    const CustomCallEnv& env) {
  StatusOr<compiler::CustomCallTarget> target =
      compiler::ResolveCustomCall(op, env.platform);
  if (!target.ok()) return target.status();
  if (target->handler != nullptr)
    return std::unique_ptr<Thunk>(new FfiCallThunk(
        op, buffers, *target->handler, env, env.sites->For(op)));
  return std::unique_ptr<Thunk>(
      new LegacyCallThunk(op, buffers, *target->legacy, env.platform));
}

}  // namespace xffi::cpu
