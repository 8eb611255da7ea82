// xffi: the result shape of an instruction, as XLA and StableHLO define it.
//
// One function serves the builder (which infers every result) and the
// verifier (which checks parsed results against the inferred ones), so both
// accept and refuse exactly the same programs.
#ifndef XFFI_IR_SHAPE_INFERENCE_H_
#define XFFI_IR_SHAPE_INFERENCE_H_

#include <string>

#include "xffi/program/ir.h"
#include "xffi/program/shape.h"
#include "xffi/runtime/status.h"

namespace xffi {

// A shape on its own: arrays have dimensions >= 0 and, when a layout is
// given, one that is a permutation of their dimension numbers; tuples hold
// valid shapes.
Status ValidateShape(const Shape& shape);

// The result shape of `instruction` from its operands' shapes, its op fields
// and the signatures of the computations it calls. There is no implicit
// broadcasting: elementwise operands have identical shapes.
//
// Some results are partly given rather than derived, and then the
// instruction's own shape supplies that part and is checked against the
// operands: parameter and custom-call (the whole shape), iota (the whole
// shape), convert and bitcast-convert (the element type), broadcast and
// reshape (the dimensions), dot (the element type, when the shape is valid;
// otherwise the lhs element type). Region signatures (reduce and scatter
// combiners, sort comparators, while condition and body, conditional
// branches, call targets) are checked here too.
//
// Errors are INVALID_ARGUMENT and read "<opcode>: <what is wrong>", e.g.
// "dot: lhs contracting dimension 1 has size 3, rhs contracting dimension 0
// has size 4".
StatusOr<Shape> InferShape(const Instruction& instruction);

// An INVALID_ARGUMENT for a message that names the instruction in full:
// "'dot.3' (dot) in computation 'main' at f.mlir:4:7: lhs contracting ...".
// An InferShape error's "<opcode>: " prefix is dropped, since Describe()
// already names the opcode.
Status DescribeError(const Instruction& instruction, const Status& error);

}  // namespace xffi

#endif  // XFFI_IR_SHAPE_INFERENCE_H_
