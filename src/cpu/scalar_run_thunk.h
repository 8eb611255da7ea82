// xffi: runs of scalar ops executed as one thunk.
//
// Loop bodies and conditions are full of rank-0 arithmetic (the counter's
// increment, index normalisation `i < 0 ? i + n : i`, the trip test, a
// convert of the counter). Each of those ops as its own kernel thunk costs a
// kernel call, a std::function and a pool check for one element, several
// times the arithmetic; consecutive ones compiled together into one
// ScalarProgram (cpu/scalar_program.h) cost a few nanoseconds each.
#ifndef XFFI_SRC_CPU_SCALAR_RUN_THUNK_H_
#define XFFI_SRC_CPU_SCALAR_RUN_THUNK_H_

#include <cstddef>
#include <memory>

#include "compiler/buffer_assignment.h"
#include "cpu/executor_thunk.h"

namespace xffi::cpu {

// Whether `shape` is one element with bytes (a scalar run's value).
bool IsScalarArray(const Shape& shape);

// Whether `op` may be part of a scalar run: a rank-0 elementwise op the
// scalar evaluator covers, with rank-0 array operands.
bool IsScalarRunOp(const Instruction& op);

// The thunk for schedule positions [begin, end) of `assignment`: every op
// there is either a scalar-run op or one that runs nothing (parameter,
// constant, tuple, get-tuple-element), and no op has copies before it.
// Null when the ops do not compile into one scalar program (the caller then
// emits them one by one).
std::unique_ptr<Thunk> MakeScalarRunThunk(
    const compiler::BufferAssignment& assignment, size_t begin, size_t end);

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_SCALAR_RUN_THUNK_H_
