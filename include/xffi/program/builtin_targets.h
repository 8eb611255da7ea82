// xffi: the custom-call targets the CPU backend has built in.
//
// Today these are jaxlib's CPU linear-algebra targets, under jaxlib's names
// and with its attribute, layout, info and workspace conventions:
// lapack_{s,d,c,z}{trsm,getrf,geqrf,geqp3,potrf,gesdd,gesvd,geev,gees,gehrd,
// gtsv}_ffi, lapack_{s,d}{orgqr,ormqr,syevd,sytrd}_ffi,
// lapack_{c,z}{ungqr,unmqr,heevd,hetrd}_ffi and
// tridiagonal_solve_perturbed_ffi, over the system's LAPACK. So the text JAX
// lowers for jnp.linalg and jax.scipy.linalg runs with no jaxlib present.
//
// Registration rules (DESIGN.md's, with the built-ins going first):
// Compile and the Python module register the built-ins before anything can
// use them. Registering the identical handler again is a no-op; another
// handler under a built-in's name is refused (ALREADY_EXISTS naming both),
// unless the caller replaces it explicitly with ReplaceHandler
// (xffi/runtime/registry.h). A name someone registered before the built-ins
// keeps that handler.
#ifndef XFFI_PROGRAM_BUILTIN_TARGETS_H_
#define XFFI_PROGRAM_BUILTIN_TARGETS_H_

#include <string>
#include <vector>

#include "xffi/runtime/status.h"

namespace xffi {

// Registers every built-in target on the Host platform. Thread-safe; the
// first call registers and every call returns its result.
Status RegisterBuiltinCpuTargets();

// Puts every built-in back under its name, replacing whatever handler holds
// it now (as after a ReplaceHandler); executables compiled before keep the
// handlers they resolved.
Status RestoreBuiltinCpuTargets();

// The built-in targets' names, sorted.
std::vector<std::string> BuiltinCpuTargetNames();

// Whether `name` on the Host platform resolves to xffi's built-in handler
// now (false for other names, and for a built-in name that was replaced).
bool IsBuiltinCpuTargetActive(const std::string& name);

}  // namespace xffi

#endif  // XFFI_PROGRAM_BUILTIN_TARGETS_H_
