// xffi: the checks Compile runs before it touches a module.
#ifndef XFFI_SRC_COMPILER_VERIFY_H_
#define XFFI_SRC_COMPILER_VERIFY_H_

#include "xffi/program/ir.h"

namespace xffi::compiler {

// The module verifier (VerifyModule) once it is available, then the
// structural facts the executor relies on for every computation reachable
// from the entry: a root, operands defined earlier in the same computation,
// parameters numbered 0..n-1, and the signatures of while, conditional and
// call bodies. The first problem is INVALID_ARGUMENT naming the op.
Status VerifyForCompile(const Module& module);

}  // namespace xffi::compiler

#endif  // XFFI_SRC_COMPILER_VERIFY_H_
