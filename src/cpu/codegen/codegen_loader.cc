// Loads the code generator (libxffi_codegen.so) when a program first has
// an op to generate (see program_kernels.h).
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cpu/codegen/program_kernels.h"

namespace xffi::cpu::codegen {
namespace {

// Smaller ops and fusions stay with the template kernels and the tile
// evaluator: generating code for them costs more compile time than it
// saves.
constexpr int64_t kDefaultMinElements = 1024;
// Inside a loop an op runs once per iteration, so the compile time is
// repaid by far smaller ones (a 256-element row update per step of a
// fori_loop runs ~4x faster generated). Scalars stay with the scalar-run
// thunks, which cost less per call than any kernel.
constexpr int64_t kDefaultLoopMinElements = 64;

int64_t EnvElements(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return *end == '\0' ? static_cast<int64_t>(value) : fallback;
}

// The module's entry point, loaded once per process (null when there is
// no module beside libxffi_program, or it does not load).
CreateProgramKernels LoadGenerator() {
  static const CreateProgramKernels create = []() -> CreateProgramKernels {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&ProgramKernels::Create), &info) == 0 ||
        info.dli_fname == nullptr)
      return nullptr;
    const std::string path =
        (std::filesystem::path(info.dli_fname).parent_path() /
         "libxffi_codegen.so")
            .string();
    // Never closed: generated code and the JIT live until the process ends.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) return nullptr;
    return reinterpret_cast<CreateProgramKernels>(
        dlsym(module, kCreateProgramKernelsSymbol));
  }();
  return create;
}

// The elements `op` computes: its result's, or for a reduce its input's,
// and for a reduction fusion (whose results may be a tuple, and smaller
// than what it reads) the largest array it computes inside.
int64_t WorkElements(const Instruction& op) {
  if (op.opcode() == Opcode::kReduce && op.operand_count() > 0 &&
      op.operand(0)->shape().IsArray())
    return op.operand(0)->shape().num_elements();
  if (op.opcode() != Opcode::kFusion || op.fusion_kind != FusionKind::kInput)
    return op.shape().IsArray() ? op.shape().num_elements() : -1;
  int64_t largest = -1;
  for (const auto& inner : op.called_computations()[0]->instructions())
    if (inner->shape().IsArray())
      largest = std::max(largest, inner->shape().num_elements());
  return largest;
}

class LazyProgramKernels : public ProgramKernels {
 public:
  // Every run instance of an executable builds its own thunks from the
  // same instructions, the later ones after Finish: each op is generated
  // once and every instance gets that kernel (or the same null).
  std::shared_ptr<GeneratedKernel> Add(const Instruction& op,
                                       bool repeated) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto known = added_.find(&op); known != added_.end())
      return known->second;
    std::shared_ptr<GeneratedKernel> kernel;
    if (WorkElements(op) >= (repeated ? loop_min_elements_ : min_elements_)) {
      if (!loaded_) {
        loaded_ = true;
        if (CreateProgramKernels create = LoadGenerator())
          generator_.reset(create());
      }
      if (generator_ != nullptr) kernel = generator_->Add(op, repeated);
    }
    added_.emplace(&op, kernel);
    return kernel;
  }

  Status Finish() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return generator_ == nullptr ? Status::Ok() : generator_->Finish();
  }

  const CodegenStats& stats() const override {
    return generator_ == nullptr ? none_ : generator_->stats();
  }

 private:
  const int64_t min_elements_ =
      EnvElements("XFFI_CODEGEN_MIN_ELEMENTS", kDefaultMinElements);
  const int64_t loop_min_elements_ = std::min(
      min_elements_,
      EnvElements("XFFI_CODEGEN_LOOP_MIN_ELEMENTS", kDefaultLoopMinElements));
  std::mutex mutex_;  // guards added_, loaded_ and generator_'s Add
  std::unordered_map<const Instruction*, std::shared_ptr<GeneratedKernel>>
      added_;
  bool loaded_ = false;
  std::unique_ptr<ProgramKernels> generator_;
  CodegenStats none_;
};

}  // namespace

std::unique_ptr<ProgramKernels> ProgramKernels::Create() {
  const char* enabled = std::getenv("XFFI_CODEGEN");
  if (enabled != nullptr && std::string(enabled) == "0") return nullptr;
  return std::make_unique<LazyProgramKernels>();
}

}  // namespace xffi::cpu::codegen
