// xffi: shape rules of the numeric ops that are neither elementwise nor data
// movement: fft, topk, map, rng-bit-generator, rng, cholesky and
// triangular-solve. InferShape (shape_inference.h) calls this for those
// opcodes; errors are the reason alone, as there.
//
// rng-bit-generator's and rng's result shapes are given, not derived (the
// op's own shape says how many numbers to draw); the rules check them.
#ifndef XFFI_SRC_IR_NUMERIC_SHAPE_INFERENCE_H_
#define XFFI_SRC_IR_NUMERIC_SHAPE_INFERENCE_H_

#include "xffi/program/ir.h"

namespace xffi {

// True for the opcodes InferNumericShape serves.
bool HasNumericShapeRule(Opcode opcode);
Status InferNumericShape(const Instruction& instruction, Shape* out);

}  // namespace xffi

#endif  // XFFI_SRC_IR_NUMERIC_SHAPE_INFERENCE_H_
