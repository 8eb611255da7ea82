// xffi: what is registered, described for people and for tools.
//
// Every target (typed FFI handler or legacy custom call) registered for a
// platform, with its API version, traits and, where the handler describes
// itself (handlers built with xffi's header do), its signature:
//   execute(Buffer<F32, 1> arg0, Attr<float> eps) -> (Buffer<F32, 1>)
#ifndef XFFI_RUNTIME_INTROSPECT_H_
#define XFFI_RUNTIME_INTROSPECT_H_

#include <string>
#include <string_view>
#include <vector>

#include "xffi/c_api.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/platform.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/status.h"

namespace xffi {

enum class TargetKind { kFfi, kLegacy };

// "ffi" or "legacy".
std::string_view TargetKindName(TargetKind kind);

struct TargetDescription {
  std::string name;
  Platform platform = Platform::kHost;
  TargetKind kind = TargetKind::kFfi;
  // FFI: the version the handler reported, "0.3". Legacy: the custom-call
  // api_version, "1 (ORIGINAL)", or "unspecified" when the call site decides.
  std::string api_version;
  int api_major = 0, api_minor = 0;  // FFI only
  LegacyApiVersion legacy_api_version = LegacyApiVersion::kUnspecified;
  XLA_FFI_Handler_Traits traits = 0;  // FFI only
  std::vector<std::string> stages;    // FFI: the bundle's non-null stages
  // FFI: the rendered self-description, "" when the handler gives none.
  // Legacy: the C declaration of its calling convention, "" if unspecified.
  std::string signature;
  std::string origin;  // "" for a static registration, else a library path
};

// "none", "COMMAND_BUFFER_COMPATIBLE", unknown bits as hex.
std::string RenderTraits(XLA_FFI_Handler_Traits traits);

// "execute(Buffer<F32, 1> arg0, Attr<float> eps) -> (Buffer<F32, 1>)".
std::string RenderSignature(const XFFI_Signature& signature);

// Every target of `platform`, by name, FFI before legacy for one name.
std::vector<TargetDescription> DescribeTargets(Platform platform);
// Every platform, Host first.
std::vector<TargetDescription> DescribeTargets();

// The handlers `plugin` marks for export, described by running the
// registration handshake on each without registering it (what `xffi inspect`
// shows). Platform is Host; origin the plugin's path.
StatusOr<std::vector<TargetDescription>> DescribeExportedHandlers(
    const Plugin& plugin);

// One line: platform, kind, name, version, traits, signature, origin.
std::string FormatTarget(const TargetDescription& target);
std::vector<std::string> DescribeTargetsText(Platform platform);

}  // namespace xffi

#endif  // XFFI_RUNTIME_INTROSPECT_H_
