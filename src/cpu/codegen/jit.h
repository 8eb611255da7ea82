// xffi: the LLVM JIT the CPU backend compiles generated kernels with.
//
// One ORC LLJIT per process, for the host CPU (its name and every feature
// it reports, AVX-512 included). Each program's kernels are one LLVM module,
// optimised with the new pass manager and compiled into a JITDylib of its
// own, which lives as long as the JitModule handle (the executable's kernels
// hold it) and is removed with it.
//
// Nothing here includes LLVM in its header, so the executor and the tests
// see only these declarations.
#ifndef XFFI_SRC_CPU_CODEGEN_JIT_H_
#define XFFI_SRC_CPU_CODEGEN_JIT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xffi/runtime/status.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace xffi::cpu::codegen {

struct JitTimes {
  double optimize_seconds = 0;      // the IR pass pipeline
  double machine_code_seconds = 0;  // instruction selection, linking
};

// Machine code of one module: its symbols stay valid while this lives.
class JitModule {
 public:
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;
  ~JitModule();

 private:
  friend class Jit;
  JitModule() = default;
  struct State;
  std::unique_ptr<State> state_;
};

class Jit {
 public:
  // The process's JIT, created at the first call (INTERNAL naming what
  // failed when LLVM cannot target the host).
  static StatusOr<Jit*> Get();

  // The host's LLVM CPU name and whether it has 512-bit vectors.
  const std::string& cpu_name() const;
  bool has_avx512() const;
  // A target machine for the host (data layout, cost model, asm dumps).
  llvm::TargetMachine& target_machine() const;

  // Optimises `module` at `opt_level` (2 or 3), compiles it and returns
  // the addresses of `symbols` in order. `module` must have been created in
  // `context` and prepared by PrepareModule. `dump_dir` non-empty: writes
  // <dump_dir>/<module name>.{ll,opt.ll,s} for reading what was generated.
  StatusOr<std::shared_ptr<JitModule>> Compile(
      std::unique_ptr<llvm::LLVMContext> context,
      std::unique_ptr<llvm::Module> module, int opt_level,
      const std::string& dump_dir, const std::vector<std::string>& symbols,
      std::vector<void*>* addresses, JitTimes* times);

  // Sets the module's triple and data layout to the host's.
  void PrepareModule(llvm::Module& module) const;

  // Functions generated code may call, by name: libm's and xffi's own
  // (device/special_functions.h). Defined in every module's JITDylib.
  static const std::vector<std::pair<std::string, void*>>& RuntimeSymbols();

 private:
  Jit() = default;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_JIT_H_
