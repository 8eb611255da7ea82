// xffi: the built-in CPU custom-call targets of jaxlib's LAPACK family, by
// name. Each family's file adds its handlers; register.cc registers them all.
//
// The handlers are written with xffi/ffi.h alone (plus LAPACK): they know
// nothing of the executor and would load into XLA as they are.
#ifndef XFFI_SRC_CPU_LAPACK_TARGETS_H_
#define XFFI_SRC_CPU_LAPACK_TARGETS_H_

#include <string_view>
#include <vector>

#include "xffi/c_api.h"

namespace xffi::cpu::lapack {

struct BuiltinTarget {
  std::string_view name;  // jaxlib's, e.g. "lapack_sgetrf_ffi"
  XLA_FFI_Handler* handler;
};
using BuiltinTargets = std::vector<BuiltinTarget>;

void AddTriangularSolveTargets(BuiltinTargets& targets);       // trsm
void AddLuTargets(BuiltinTargets& targets);                    // getrf
void AddQrTargets(BuiltinTargets& targets);                    // geqrf, geqp3
void AddHouseholderTargets(BuiltinTargets& targets);           // orgqr, ormqr
void AddCholeskyTargets(BuiltinTargets& targets);              // potrf
void AddSvdTargets(BuiltinTargets& targets);                   // gesdd, gesvd
void AddSymmetricEigenTargets(BuiltinTargets& targets);        // syevd, heevd
void AddEigenTargets(BuiltinTargets& targets);                 // geev
void AddSchurTargets(BuiltinTargets& targets);                 // gees
void AddHessenbergTargets(BuiltinTargets& targets);            // gehrd
void AddTridiagonalReductionTargets(BuiltinTargets& targets);  // sytrd
void AddTridiagonalSolveTargets(BuiltinTargets& targets);  // gtsv, perturbed

// Every built-in target, in the order above.
const BuiltinTargets& AllBuiltinTargets();

}  // namespace xffi::cpu::lapack

#endif  // XFFI_SRC_CPU_LAPACK_TARGETS_H_
