// The process-wide ORC LLJIT and the optimisation pipeline.
#include "cpu/codegen/jit.h"
#include "cpu/codegen/half_compares.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <system_error>

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

namespace xffi::cpu::codegen {
namespace {

std::string ErrorText(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << error;
  return stream.str();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_Text);
  if (!error) out << text;
}

std::string ModuleText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  return stream.str();
}

}  // namespace

struct JitModule::State {
  llvm::orc::LLJIT* jit = nullptr;
  llvm::orc::JITDylib* dylib = nullptr;
};

JitModule::~JitModule() {
  if (state_ && state_->dylib != nullptr) {
    // Failing to unmap leaks the code; there is no one to report it to.
    llvm::consumeError(
        state_->jit->getExecutionSession().removeJITDylib(*state_->dylib));
  }
}

struct Jit::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> target_machine;
  std::string cpu_name;
  bool avx512 = false;
  std::mutex mutex;  // dylib creation and naming
  int64_t next_dylib = 0;
};

StatusOr<Jit*> Jit::Get() {
  static StatusOr<Jit*> jit = []() -> StatusOr<Jit*> {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
      return Internal("LLVM cannot target this host: " +
                      ErrorText(builder.takeError()));
    std::unique_ptr<Jit> result(new Jit());
    result->state_ = std::make_unique<State>();
    State& state = *result->state_;
    state.cpu_name = llvm::sys::getHostCPUName().str();
    builder->setCPU(state.cpu_name);
    llvm::StringMap<bool> host_features;
    llvm::SubtargetFeatures features;
    if (llvm::sys::getHostCPUFeatures(host_features)) {
      for (const auto& feature : host_features)
        features.AddFeature(feature.getKey(), feature.getValue());
      state.avx512 = host_features.lookup("avx512f");
    }
    builder->getFeatures() = features;
    builder->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    auto machine = builder->createTargetMachine();
    if (!machine)
      return Internal("LLVM cannot create a target machine for " +
                      state.cpu_name + ": " + ErrorText(machine.takeError()));
    state.target_machine = std::move(*machine);
    auto jit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(*builder))
                   .create();
    if (!jit)
      return Internal("cannot create LLVM's JIT: " +
                      ErrorText(jit.takeError()));
    state.jit = std::move(*jit);
    // Never destroyed: executables may outlive static destruction order.
    return result.release();
  }();
  return jit;
}

const std::string& Jit::cpu_name() const { return state_->cpu_name; }
bool Jit::has_avx512() const { return state_->avx512; }
llvm::TargetMachine& Jit::target_machine() const {
  return *state_->target_machine;
}

void Jit::PrepareModule(llvm::Module& module) const {
  module.setDataLayout(state_->jit->getDataLayout());
  module.setTargetTriple(state_->jit->getTargetTriple().str());
}

StatusOr<std::shared_ptr<JitModule>> Jit::Compile(
    std::unique_ptr<llvm::LLVMContext> context,
    std::unique_ptr<llvm::Module> module, int opt_level,
    const std::string& dump_dir, const std::vector<std::string>& symbols,
    std::vector<void*>* addresses, JitTimes* times) {
  std::string verify_errors;
  llvm::raw_string_ostream verify_stream(verify_errors);
  if (llvm::verifyModule(*module, &verify_stream))
    return Internal("generated LLVM IR does not verify: " +
                    verify_stream.str() + "\n" + ModuleText(*module));
  const std::string base =
      dump_dir.empty() ? "" : dump_dir + "/" + module->getName().str();
  if (!dump_dir.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(dump_dir, ignored);
    WriteFile(base + ".ll", ModuleText(*module));
  }

  auto start = std::chrono::steady_clock::now();
  {
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder passes(state_->target_machine.get(), tuning);
    passes.registerModuleAnalyses(modules);
    passes.registerCGSCCAnalyses(sccs);
    passes.registerFunctionAnalyses(functions);
    passes.registerLoopAnalyses(loops);
    passes.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager pipeline = passes.buildPerModuleDefaultPipeline(
        opt_level >= 3 ? llvm::OptimizationLevel::O3
                       : llvm::OptimizationLevel::O2);
    pipeline.run(*module, modules);
  }
  WidenHalfVectorCompares(*module);
  if (times != nullptr) times->optimize_seconds = SecondsSince(start);
  if (!dump_dir.empty()) {
    WriteFile(base + ".opt.ll", ModuleText(*module));
    std::error_code error;
    llvm::raw_fd_ostream asm_out(base + ".s", error, llvm::sys::fs::OF_Text);
    if (!error) {
      llvm::legacy::PassManager emit;
      std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module);
      if (!state_->target_machine->addPassesToEmitFile(emit, asm_out, nullptr,
                                                       llvm::CGFT_AssemblyFile))
        emit.run(*copy);
    }
  }

  start = std::chrono::steady_clock::now();
  std::shared_ptr<JitModule> compiled(new JitModule());
  compiled->state_ = std::make_unique<JitModule::State>();
  compiled->state_->jit = state_->jit.get();
  llvm::orc::JITDylib* dylib = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto created = state_->jit->createJITDylib(
        "xffi_program_" + std::to_string(state_->next_dylib++));
    if (!created)
      return Internal("cannot create a JITDylib: " +
                      ErrorText(created.takeError()));
    dylib = &*created;
  }
  compiled->state_->dylib = dylib;
  llvm::orc::MangleAndInterner mangle(state_->jit->getExecutionSession(),
                                      state_->jit->getDataLayout());
  llvm::orc::SymbolMap runtime;
  for (const auto& [name, address] : RuntimeSymbols()) {
    runtime[mangle(name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  if (llvm::Error error =
          dylib->define(llvm::orc::absoluteSymbols(std::move(runtime))))
    return Internal("cannot define the kernels' runtime symbols: " +
                    ErrorText(std::move(error)));
  // Whatever else the code calls (memcpy, memset, libm) comes from the
  // process.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      state_->jit->getDataLayout().getGlobalPrefix());
  if (!process)
    return Internal("cannot search the process's symbols: " +
                    ErrorText(process.takeError()));
  dylib->addGenerator(std::move(*process));
  if (llvm::Error error = state_->jit->addIRModule(
          *dylib,
          llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    return Internal("LLVM's JIT refused a module: " +
                    ErrorText(std::move(error)));
  // The first lookup compiles the whole module.
  addresses->clear();
  for (const std::string& symbol : symbols) {
    auto address = state_->jit->lookup(*dylib, symbol);
    if (!address)
      return Internal("generated kernel '" + symbol +
                      "' did not compile: " + ErrorText(address.takeError()));
    addresses->push_back(address->toPtr<void*>());
  }
  if (times != nullptr) times->machine_code_seconds = SecondsSince(start);
  return compiled;
}

}  // namespace xffi::cpu::codegen
