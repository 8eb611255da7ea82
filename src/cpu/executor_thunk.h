// xffi: the unit of work of the CPU executor.
//
// A computation compiles into a list of thunks over one table of buffer
// addresses (indexed by compiler::BufferId). Arena addresses are fixed when
// the executable is built; parameter and output addresses are written into
// the table at the start of each run, so a thunk only reads the table.
#ifndef XFFI_SRC_CPU_EXECUTOR_THUNK_H_
#define XFFI_SRC_CPU_EXECUTOR_THUNK_H_

#include <string>

#include "xffi/program/ir.h"

namespace xffi::cpu {

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual Status Run(void* const* addresses) = 0;
};

// `status` with the op's location in front, for errors raised while the op
// runs ("at file:3:5: message"); unchanged when the location is unknown.
inline Status AtLocation(const Instruction& op, const Status& status) {
  if (status.ok() || !op.location().known()) return status;
  return Status(status.code(),
                "at " + op.location().ToString() + ": " + status.message());
}

}  // namespace xffi::cpu

#endif  // XFFI_SRC_CPU_EXECUTOR_THUNK_H_
