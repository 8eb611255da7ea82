// xffi: how the shape rules (shape_inference.cc and the files it calls)
// say what is wrong: Fail("operand ", i, " must be ...") is an
// INVALID_ARGUMENT of the pieces written one after another. The reason
// alone: InferShape adds the opcode, the verifier the op and its place.
#ifndef XFFI_SRC_IR_INFERENCE_FAILURE_H_
#define XFFI_SRC_IR_INFERENCE_FAILURE_H_

#include <sstream>

#include "xffi/runtime/status.h"

namespace xffi::inference {

template <typename... Ts>
Status Fail(const Ts&... pieces) {
  std::ostringstream out;
  (out << ... << pieces);
  return InvalidArgument(out.str());
}

}  // namespace xffi::inference

#endif  // XFFI_SRC_IR_INFERENCE_FAILURE_H_
