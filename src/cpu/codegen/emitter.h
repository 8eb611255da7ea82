// xffi: LLVM IR for a kLoop fusion or one elementwise op.
//
// A kernel is a loop over the output's index space that computes each
// output element from the fused computation's ops, element by element
// (XLA's elemental emission): an elementwise op reads its operands at the
// same index; broadcast, reshape, transpose, slice and reverse map the index
// to their operand's; iota is its index. Nothing is materialised, and the
// loop is written so LLVM's vectoriser can take it:
//   - when every value is reached by the output's linear index (elementwise
//     ops, reshapes, broadcasts of scalars), one flat loop over elements;
//   - otherwise a loop over rows with an inner loop over the minor
//     dimension, the other coordinates fixed per row.
// Scalar operands are read once before the loop.
//
// The scalar semantics are the template kernels' (cpu/elementwise_ops.h,
// element_convert.h): XLA's integer rules, NaN-propagating max/min, f16
// and bf16 computed in f32 and rounded back after every op. An op or type
// the emitter does not cover (complex, pad, concatenate, dynamic-slice, a
// tuple root, ...) makes it decline the whole kernel.
#ifndef XFFI_SRC_CPU_CODEGEN_EMITTER_H_
#define XFFI_SRC_CPU_CODEGEN_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include "xffi/program/ir.h"

namespace xffi::cpu::codegen {

struct EmittedKernel {
  int64_t range = 0;  // output elements (flat loop) or rows
  double item_nanos = 0;
  int num_buffers = 0;  // operands + 1
};

// Adds `void name(void* const* buffers, int64_t begin, int64_t end)`
// computing `op` to `module`. NOT_FOUND naming what is not covered when
// the emitter declines (the module is then unchanged but for unused
// constants). `prefer_vector_width`: bits, 0 for LLVM's choice.
StatusOr<EmittedKernel> EmitKernel(const Instruction& op,
                                   const std::string& name,
                                   llvm::Module& module,
                                   int prefer_vector_width);

// `void name(void* const* buffers, int64_t begin, int64_t end)`, the
// kernel ABI (program_kernels.h), with the attributes every generated
// kernel has (FTZ+DAZ float semantics, the preferred vector width).
llvm::Function* NewKernelFunction(llvm::Module& module, const std::string& name,
                                  int prefer_vector_width);

// Marks each loop ending at one of `latches` parallel (llvm.loop's
// parallel_accesses over every load and store of `function`): no iteration
// reads what another writes, so the vectoriser needs no run-time overlap
// check. Only for loops where that holds.
void MarkParallel(llvm::Function& function,
                  const std::vector<llvm::BranchInst*>& latches);

// Keeps the loop ending at `latch` a plain scalar loop: neither unrolled
// nor vectorised, for loops that run rarely or briefly (a few-column
// combine's few thousand elements, the recomputation of blocks holding a
// special element), where more code costs compile time it cannot save.
void KeepScalar(llvm::BranchInst* latch);

// The per-element emission above, for kernels with loops of their own
// (reduce_emitter.h): values of a fused computation at one index of one
// loop body, invariant ones hoisted to `preheader`.
class ElementEmitter {
 public:
  ElementEmitter(llvm::Module& module, llvm::BasicBlock* preheader);
  ~ElementEmitter();
  ElementEmitter(const ElementEmitter&) = delete;
  ElementEmitter& operator=(const ElementEmitter&) = delete;

  // `op` (a fused parameter) reads from the buffer at `pointer`.
  void AddLeaf(const Instruction* op, llvm::Value* pointer);
  // The one index Value reads at: an element of `dims` (which must outlive
  // this) by its row-major `linear` index and its `coords` (both given),
  // in the loop body `body` builds. Set once.
  void SetIndex(llvm::IRBuilder<>* body, const std::vector<int64_t>* dims,
                llvm::Value* linear, std::vector<llvm::Value*> coords);
  // The compute value of `op` (of the index's dims) at the index; of a
  // one-element `op` anywhere. Null after an error.
  llvm::Value* Value(const Instruction& op);
  // The compute value of a one-element `op`, computed in the preheader.
  llvm::Value* ScalarValue(const Instruction& op);
  // The bits to store for `value` of `type`.
  llvm::Value* Bits(ElementType type, llvm::Value* value);
  const std::string& error() const;
  double item_nanos() const;  // estimated cost of one index

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xffi::cpu::codegen

#endif  // XFFI_SRC_CPU_CODEGEN_EMITTER_H_
