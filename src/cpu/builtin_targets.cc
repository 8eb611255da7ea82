// Registering the CPU backend's built-in targets (src/cpu/lapack/).
#include "xffi/program/builtin_targets.h"

#include <dlfcn.h>

#include <algorithm>

#include "cpu/lapack/targets.h"
#include "xffi/runtime/partitioning.h"
#include "xffi/runtime/registry.h"

namespace xffi {
namespace {

// Conflicts name the origin of each side: for the built-ins, this library.
std::string ThisLibrary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&RegisterBuiltinCpuTargets), &info) != 0 &&
      info.dli_fname != nullptr) {
    return info.dli_fname;
  }
  return "libxffi_program";
}

XLA_FFI_Handler_Bundle BundleOf(XLA_FFI_Handler* execute) {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = execute;
  return bundle;
}

Status RegisterAll(bool replace) {
  ScopedRegistrationOrigin origin(ThisLibrary());
  for (const cpu::lapack::BuiltinTarget& target :
       cpu::lapack::AllBuiltinTargets()) {
    // jaxlib marks every one of its typed LAPACK targets batch-partitionable
    // (jaxlib/lapack.py's batch_partitionable_targets, registered when
    // jax.lax.linalg is imported), so a sharded jnp.linalg program runs the
    // call once per device on its block there: the same here, whoever's
    // handler ends up serving the name.
    if (Status status = RegisterBatchPartitionable(target.name); !status.ok())
      return status;
    XLA_FFI_Handler_Bundle bundle = BundleOf(target.handler);
    if (replace) {
      Status status = ReplaceHandler(target.name, "Host", bundle);
      if (!status.ok()) return status;
      continue;
    }
    Status status = RegisterHandler(target.name, "Host", bundle);
    // Someone registered this name first: their handler stays.
    if (!status.ok() && status.code() != XLA_FFI_Error_Code_ALREADY_EXISTS)
      return status;
  }
  return Status::Ok();
}

}  // namespace

Status RegisterBuiltinCpuTargets() {
  static const Status* status = new Status(RegisterAll(/*replace=*/false));
  return *status;
}

Status RestoreBuiltinCpuTargets() { return RegisterAll(/*replace=*/true); }

std::vector<std::string> BuiltinCpuTargetNames() {
  std::vector<std::string> names;
  for (const cpu::lapack::BuiltinTarget& target :
       cpu::lapack::AllBuiltinTargets()) {
    names.emplace_back(target.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool IsBuiltinCpuTargetActive(const std::string& name) {
  for (const cpu::lapack::BuiltinTarget& target :
       cpu::lapack::AllBuiltinTargets()) {
    if (target.name != name) continue;
    StatusOr<const HandlerRecord*> record = FindHandler(name, "Host");
    return record.ok() && (*record)->bundle.execute == target.handler;
  }
  return false;
}

}  // namespace xffi
