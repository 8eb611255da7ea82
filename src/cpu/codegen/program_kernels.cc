// The generator module's ProgramKernels: one LLVM module per program (see
// program_kernels.h).
#include "cpu/codegen/program_kernels.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include "cpu/codegen/emitter.h"
#include "cpu/codegen/jit.h"
#include "cpu/codegen/reduce_emitter.h"

namespace xffi::cpu::codegen {
namespace {

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return *end == '\0' ? static_cast<int64_t>(value) : fallback;
}

std::string EnvString(const char* name) {
  const char* text = std::getenv(name);
  return text == nullptr ? std::string() : std::string(text);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

class LlvmProgramKernels : public ProgramKernels {
 public:
  explicit LlvmProgramKernels(Jit* jit) : jit_(jit) {
    static std::atomic<int64_t> next_module{0};
    context_ = std::make_unique<llvm::LLVMContext>();
    module_ = std::make_unique<llvm::Module>(
        "xffi_program_" + std::to_string(next_module++), *context_);
    jit_->PrepareModule(*module_);
    // 512-bit vectors on AVX-512 hosts unless told otherwise (measured in
    // bench/README.md).
    vector_width_ = static_cast<int>(
        EnvInt("XFFI_CODEGEN_VECTOR_WIDTH", jit_->has_avx512() ? 512 : 0));
  }

  // Every op offered is generated: the loader decided which are worth it.
  std::shared_ptr<GeneratedKernel> Add(const Instruction& op,
                                       bool /*repeated*/) override {
    if (module_ == nullptr || op.operand_count() + 1 > kMaxKernelBuffers)
      return nullptr;
    auto start = std::chrono::steady_clock::now();
    const std::string name = "kernel_" + std::to_string(names_.size());
    const bool reduction = op.opcode() == Opcode::kReduce ||
                           (op.opcode() == Opcode::kFusion &&
                            op.fusion_kind == FusionKind::kInput);
    std::optional<EmittedPieces> pieces;
    StatusOr<EmittedKernel> emitted =
        reduction ? EmitReduceKernel(op, name, *module_, vector_width_, &pieces)
                  : EmitKernel(op, name, *module_, vector_width_);
    stats_.emit_seconds += SecondsSince(start);
    if (!emitted.ok()) return nullptr;
    auto kernel = std::make_shared<GeneratedKernel>();
    kernel->range = emitted->range;
    kernel->item_nanos = emitted->item_nanos;
    kernels_.push_back({kernel, names_.size()});
    names_.push_back(name);
    if (pieces) {
      kernel->pieces = std::make_unique<GeneratedPieces>(pieces->layout);
      if (!pieces->combine_name.empty()) {
        names_.push_back(pieces->combine_name);
        names_.push_back(pieces->split_name);
      }
    }
    return kernel;
  }

  Status Finish() override {
    if (module_ == nullptr || names_.empty()) return Status::Ok();
    std::vector<void*> addresses;
    JitTimes times;
    StatusOr<std::shared_ptr<JitModule>> compiled =
        jit_->Compile(std::move(context_), std::move(module_), /*opt_level=*/3,
                      EnvString("XFFI_DUMP_LLVM"), names_, &addresses, &times);
    stats_.optimize_seconds = times.optimize_seconds;
    stats_.machine_code_seconds = times.machine_code_seconds;
    if (!compiled.ok()) return compiled.status();
    code_ = std::move(*compiled);
    for (const auto& [kernel, at] : kernels_) {
      // A few-column kernel of several pieces: its combine and split next.
      if (kernel->pieces != nullptr && kernel->pieces->count > 1) {
        kernel->pieces->combine =
            reinterpret_cast<void (*)(void* const*)>(addresses[at + 1]);
        kernel->pieces->split =
            reinterpret_cast<int64_t (*)(void* const*)>(addresses[at + 2]);
      }
      kernel->function = reinterpret_cast<KernelFunction>(addresses[at]);
    }
    stats_.kernels = static_cast<int64_t>(kernels_.size());
    return Status::Ok();
  }

  const CodegenStats& stats() const override { return stats_; }

 private:
  Jit* jit_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  std::vector<std::string> names_;
  // Each kernel and where its function's name is in names_.
  std::vector<std::pair<std::shared_ptr<GeneratedKernel>, size_t>> kernels_;
  std::shared_ptr<JitModule> code_;  // the kernels' machine code
  CodegenStats stats_;
  int vector_width_ = 0;
};

}  // namespace

}  // namespace xffi::cpu::codegen

extern "C" xffi::cpu::codegen::ProgramKernels*
xffi_codegen_create_program_kernels() {
  using xffi::cpu::codegen::Jit;
  xffi::StatusOr<Jit*> jit = Jit::Get();
  if (!jit.ok()) return nullptr;
  return new xffi::cpu::codegen::LlvmProgramKernels(*jit);
}
