// xffi: shape rules of the ops of convolutional networks: convolution and
// HLO's batch-norm-training, batch-norm-inference and batch-norm-grad.
// InferShape (shape_inference.h) calls this for those opcodes; errors are
// the reason alone, as there.
#ifndef XFFI_SRC_IR_CONV_NET_SHAPE_INFERENCE_H_
#define XFFI_SRC_IR_CONV_NET_SHAPE_INFERENCE_H_

#include "xffi/program/ir.h"

namespace xffi {

// A convolution's result takes its element type from the instruction's own
// shape when that is valid (StableHLO's result type, HLO's
// preferred_element_type), else the lhs element type, as dot's does.
Status InferConvNetShape(const Instruction& instruction, Shape* out);

}  // namespace xffi

#endif  // XFFI_SRC_IR_CONV_NET_SHAPE_INFERENCE_H_
