// xffi: the registry of typed FFI handlers.
//
// Keyed by (name, canonical platform). Registration runs the metadata
// handshake XLA runs: the handler is called with a Metadata extension and
// answers the API version it was built for, its traits and the type of any
// state it creates. xffi chains a signature extension after the metadata one,
// which handlers built with xffi's header answer and XLA-header handlers
// ignore.
#ifndef XFFI_RUNTIME_REGISTRY_H_
#define XFFI_RUNTIME_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/status.h"

namespace xffi {

struct HandlerRecord {
  std::string name;
  Platform platform = Platform::kHost;
  XLA_FFI_Handler_Bundle bundle{};
  // The handler's metadata traits ORed with the traits given at registration.
  XLA_FFI_Handler_Traits traits = 0;
  int api_major = 0, api_minor = 0;  // as the handler reported
  XLA_FFI_TypeId state_type_id{0};   // from the instantiate handler, if any
  const XFFI_Signature* signature = nullptr;  // null: not self-describing
  std::string origin;  // "" for a static registration; else a library path
};

// Registers under (name, platform). Re-registering an identical handler
// (bundle, traits, version, state type) is a no-op; anything else under a
// taken key is ALREADY_EXISTS naming both origins. A version outside
// 0.XFFI_API_MINOR_OLDEST..0.XLA_FFI_API_MINOR is refused.
Status RegisterHandler(std::string_view name, std::string_view platform,
                       const XLA_FFI_Handler_Bundle& bundle,
                       XLA_FFI_Handler_Traits traits = 0);

// Registers under (name, platform), replacing whatever handler holds the key
// (the explicit override the rule above forbids by default; xffi's built-in
// targets and Python's register_ffi_target(..., replace=True) use it). Records
// live for the process, so an executable compiled before keeps calling the
// handler it resolved; later lookups find the new one.
Status ReplaceHandler(std::string_view name, std::string_view platform,
                      const XLA_FFI_Handler_Bundle& bundle,
                      XLA_FFI_Handler_Traits traits = 0);

// The record stays valid for the life of the process.
StatusOr<const HandlerRecord*> FindHandler(std::string_view name,
                                           std::string_view platform);

// Sorted by name.
std::vector<const HandlerRecord*> ListHandlers(Platform platform);

// Runs the handshake on `bundle` without registering anything (tools use it
// to describe a handler found by symbol). The record's platform is Host and
// its origin the current registration origin.
StatusOr<HandlerRecord> DescribeHandler(std::string_view name,
                                        const XLA_FFI_Handler_Bundle& bundle);

// The origin (library path) recorded for registrations made on this thread
// while an instance lives; instances nest.
class ScopedRegistrationOrigin {
 public:
  explicit ScopedRegistrationOrigin(std::string origin);
  ~ScopedRegistrationOrigin();
  ScopedRegistrationOrigin(const ScopedRegistrationOrigin&) = delete;
  ScopedRegistrationOrigin& operator=(const ScopedRegistrationOrigin&) = delete;

 private:
  std::string previous_;
};

// The origin registrations on this thread are attributed to now.
const std::string& CurrentRegistrationOrigin();

}  // namespace xffi

#endif  // XFFI_RUNTIME_REGISTRY_H_
