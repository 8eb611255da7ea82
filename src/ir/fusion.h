// xffi: what a fused computation may hold — the contract between the
// fusion passes (src/passes/) and the backends that emit fusions.
//
// A fusion (Opcode::kFusion) calls one fused computation: parameters are
// the fusion's operands in order, the root is its result. A backend may
// compile it into one kernel or run it as a call; both compute the same.
// The contract keeps every fused computation describable as loops over an
// output index space, so any backend (the CPU code generator, a GPU one)
// can emit it without knowing which pass made it:
//
//   - ops: parameter; constant (at most kMaxFusedConstantElements
//     elements); every elementwise unary and binary op (compare included);
//     select, clamp, convert, bitcast-convert (same bit width); iota,
//     broadcast, reshape, transpose, slice, reverse, pad, concatenate,
//     dynamic-slice, gather of one-element slices (every slice size 1:
//     one operand element per result element, as take_along_axis reads);
//     tuple as the root only. kInput adds reduce (with a reducer of scalar
//     elementwise ops) and get-tuple-element of a variadic reduce, both
//     only as the root's elements. Nothing side-effecting, no custom call,
//     no control flow, no dot, gather of wider slices, scatter, sort or
//     reduce-window.
//   - every value but the root is an array; the root is an array or a tuple
//     of arrays the computation computes (not its parameters).
//   - kLoop: no reduce; the root's leaves share one output index space
//     (the same dimensions; element types may differ).
//   - kInput: the root (or each element of a tuple root) is a reduce, an
//     element of a variadic one, or a loop value over the reduces' input
//     dimensions; every reduce reads inputs of the same dimensions and
//     reduces the same dimensions, and at least one is there.
#ifndef XFFI_SRC_IR_FUSION_H_
#define XFFI_SRC_IR_FUSION_H_

#include <cstdint>

#include "xffi/program/ir.h"

namespace xffi {

// Larger constants stay outside a fusion and come in as operands.
inline constexpr int64_t kMaxFusedConstantElements = 1024;

// Whether an op of this opcode and these fields may be an inner op of a
// fused computation of `kind` (where it sits — tuple and get-tuple-element
// only at the root, reduce only as an output — is checked by
// CheckFusedComputation). Reads only the op itself, not its operands' ops.
bool IsFusibleOp(const Instruction& op, FusionKind kind);

// Whether `reducer` is a region a fused reduce may call: scalar parameters
// and scalar elementwise ops (compare, select, clamp, convert and
// bitcast-convert included), a tuple as the root only.
Status CheckFusedReducer(const Computation& reducer);

// The whole contract (above) for `fused`, the computation a fusion of
// `kind` calls. The error names the op that breaks it, its computation and
// where it came from: "'dot.2' (dot) in computation 'fused.1' at
// f.hlo:3:4: a fused computation cannot hold dot".
Status CheckFusedComputation(const Computation& fused, FusionKind kind);

}  // namespace xffi

#endif  // XFFI_SRC_IR_FUSION_H_
