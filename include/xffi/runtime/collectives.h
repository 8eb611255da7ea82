// xffi: collective communicators for custom calls on one host (the
// Collectives FFI extension, xffi/collectives_c_api.h).
//
// A HostCollectives describes the process's device set, num_replicas x
// num_partitions devices with global ids replica * num_partitions +
// partition (XLA's default device assignment), and keeps what handlers
// requested. Attach it to an ExecutionContext (set_collectives); a call's
// device is the context's device ordinal (0 when unset). The runtime then
// answers InvokeContext_FindExtension(XLA_FFI_Extension_Collectives) with an
// extension bound to that call's stage and device:
//
//   request_communicator, request_window   PREPARE only
//   get_communicator, get_window            INITIALIZE or EXECUTE, for
//                                           cliques requested before
//
// Replica groups are read as XLA reads them for the group mode. The clique
// is the group holding the call's device. xffi runs each custom call on one
// device at a time, so only a clique of that one device has a communicator
// (an XFFI_HostCommunicator of one rank) and windows (XFFI_HostWindow over
// the region itself); a clique of several devices is refused at request
// time with UNIMPLEMENTED naming the operation and the devices, because
// communicating among them needs a multi-device runtime.
#ifndef XFFI_RUNTIME_COLLECTIVES_H_
#define XFFI_RUNTIME_COLLECTIVES_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "xffi/c_api.h"
#include "xffi/collectives_c_api.h"
#include "xffi/runtime/status.h"

namespace xffi {

class HostCollectives {
 public:
  HostCollectives(int64_t num_replicas = 1, int64_t num_partitions = 1);
  ~HostCollectives();
  HostCollectives(const HostCollectives&) = delete;
  HostCollectives& operator=(const HostCollectives&) = delete;

  int64_t num_replicas() const;
  int64_t num_partitions() const;

  // Cliques and windows requested so far.
  size_t num_communicators() const;
  size_t num_windows() const;

  struct Impl;

  // The extension for one call of a handler in `stage` on device
  // `device_id`; `storage` (which must outlive the call) holds it.
  struct CallExtension {
    XLA_FFI_Collectives_Extension extension;
    Impl* impl;
    XLA_FFI_ExecutionStage stage;
    int64_t device_id;
  };
  const XLA_FFI_Extension* Bind(XLA_FFI_ExecutionStage stage, int64_t device_id,
                                CallExtension& storage);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace xffi

#endif  // XFFI_RUNTIME_COLLECTIVES_H_
