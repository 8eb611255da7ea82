// xffi: shape rules of the ops that work across devices: the collectives
// (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute,
// partition-id, replica-id) and manual computations. InferShape
// (shape_inference.h) calls these for those opcodes; errors are the reason
// alone, as there.
//
// How many devices a collective's group holds is often not written on the
// op (an empty replica_groups is "all of them", and the device count is the
// enclosing manual computation's mesh), so for all-gather, reduce-scatter
// and all-to-all without split_count the result's size along the gathered
// or split dimension is given by the op's own shape and checked to be a
// whole multiple (or fraction) of the operand's.
#ifndef XFFI_SRC_IR_COLLECTIVE_SHAPE_INFERENCE_H_
#define XFFI_SRC_IR_COLLECTIVE_SHAPE_INFERENCE_H_

#include "xffi/program/ir.h"

namespace xffi {

// For an op with IsCollective(opcode) or kManualComputation.
Status InferAcrossDevicesShape(const Instruction& instruction, Shape* out);

}  // namespace xffi

#endif  // XFFI_SRC_IR_COLLECTIVE_SHAPE_INFERENCE_H_
