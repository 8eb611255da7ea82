// xffi: the generated kernels of one program.
//
// The CPU executor offers every kLoop fusion, every kInput (reduction)
// fusion its evaluator takes and every elementwise op outside a fusion to
// ProgramKernels while it builds thunks. Each one the emitters cover
// (cpu/codegen/emitter.h, reduce_emitter.h) becomes a function of the
// program's one LLVM module; Finish compiles that module once, after every
// thunk exists, and fills in the functions' addresses. Anything not
// covered, and every kernel when Finish fails, keeps the template kernels
// and the tile evaluator (cpu/fused_loop.h): generated code is a faster
// route to the same values, never the only one.
//
// This header does not include LLVM. libxffi_program holds only the loader
// (codegen_loader.cc); the generator is libxffi_codegen.so, which links LLVM
// and is loaded beside libxffi_program the first time a program has an op
// to generate: loading LLVM costs a process about 0.2 s, which the many
// processes that never generate anything (tests, small programs) do not
// pay. Without that module nothing is generated.
#ifndef XFFI_SRC_CPU_CODEGEN_PROGRAM_KERNELS_H_
#define XFFI_SRC_CPU_CODEGEN_PROGRAM_KERNELS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::cpu::codegen {

// The ABI of every generated kernel: `buffers` holds the op's operands in
// order, then its results (a reduction fusion's tuple elements in order);
// the kernel computes items [begin, end) of its range (output elements,
// rows of the output's minor dimension, or a reduction's output rows).
using KernelFunction = void (*)(void* const* buffers, int64_t begin,
                                int64_t end);

// Kernels take at most this many buffers (operands + result), so a run
// resolves them into an array on the stack.
inline constexpr int kMaxKernelBuffers = 64;

// How a fusion's column reduction of few columns runs
// (cpu/codegen/reduce_emitter.h): `buffers` holds, after the results, one
// partial buffer per result (unused for loop values). `function` folds the
// rows [begin, end) into the partial buffers given, starting them at the
// init values, and writes the loop values of those rows. The rows are cut
// as the evaluator cuts them (cpu/fused_reduce.h): pieces of
// `rows_per_piece`, each folded into partials of its own when `split`
// says every init value is its reducer's identity, then `combine` folds
// the pieces' partials in piece order into the results, reading piece p of
// result r at partial r + p * stride_bytes[r]. Else the partial buffers are the
// results and one call folds every row.
struct GeneratedPieces {
  void (*combine)(void* const* buffers) = nullptr;   // null until Finish
  int64_t (*split)(void* const* buffers) = nullptr;  // 1: cut into pieces
  int64_t rows = 0;
  int64_t rows_per_piece = 0;
  int64_t count = 0;  // pieces
  int64_t columns = 0;
  std::vector<int64_t> stride_bytes;  // per result; 0 for a loop value
};

struct GeneratedKernel {
  KernelFunction function = nullptr;  // null until Finish succeeds
  int64_t range = 0;                  // items the executor splits
  double item_nanos = 0;              // estimated cost of one item
  // Set for a few-column reduction, which runs as above.
  std::unique_ptr<GeneratedPieces> pieces;
};

// What code generation cost one program; zeros when nothing was generated.
struct CodegenStats {
  int64_t kernels = 0;
  double emit_seconds = 0;          // building the LLVM IR
  double optimize_seconds = 0;      // the IR pass pipeline
  double machine_code_seconds = 0;  // instruction selection, linking
};

class ProgramKernels {
 public:
  // Null when XFFI_CODEGEN=0 is in the environment. Otherwise ops smaller
  // than XFFI_CODEGEN_MIN_ELEMENTS (default 1024) are left to the template
  // kernels, and the first larger one loads the generator; when it cannot
  // be loaded (built without LLVM) or LLVM cannot target the host, Add
  // returns null for everything. Ops that run repeatedly (see Add) have a
  // lower bar, XFFI_CODEGEN_LOOP_MIN_ELEMENTS (default 64).
  static std::unique_ptr<ProgramKernels> Create();
  virtual ~ProgramKernels() = default;

  // The kernel for `op` (a kLoop fusion, or an elementwise op of a
  // computation), or null when it is left to the other kernels. The result
  // has no function until Finish. Offering the same op again (another run
  // instance's thunks) returns the same kernel. `repeated`: the op runs
  // many times per execution (in a while loop's body or condition), so
  // what generating it costs once is repaid even where the op is small: a
  // loop of small steps spends most of its time in the tile evaluator's
  // per-op overhead otherwise.
  virtual std::shared_ptr<GeneratedKernel> Add(const Instruction& op,
                                               bool repeated) = 0;

  // Compiles every kernel added. An error leaves every function null.
  virtual Status Finish() = 0;

  virtual const CodegenStats& stats() const = 0;
};

// The generator module's entry point: a new ProgramKernels, or null when
// LLVM cannot target the host.
using CreateProgramKernels = ProgramKernels* (*)();
inline constexpr char kCreateProgramKernelsSymbol[] =
    "xffi_codegen_create_program_kernels";

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_PROGRAM_KERNELS_H_
