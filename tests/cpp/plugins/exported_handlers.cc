// A test plugin that registers nothing and exports handler symbols, with the
// marker convention of XFFI_DEFINE_HANDLER_SYMBOL written out by hand.
#include <cstdint>
#include <cstdlib>

#include "xffi/c_api.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

XLA_FFI_Error* Scale(XLA_FFI_CallFrame* frame, float factor) {
  if (frame->extension_start != nullptr) {  // the registration handshake
    auto* metadata =
        reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start)
            ->metadata;
    metadata->api_version.major_version = 0;
    metadata->api_version.minor_version = 3;
    return nullptr;
  }
  auto* in = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* out = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  int64_t n = 1;
  for (int64_t d = 0; d < in->rank; ++d) n *= in->dims[d];
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(out->data)[i] =
        static_cast<float*>(in->data)[i] * factor;
  }
  return nullptr;
}

}  // namespace

EXPORT XLA_FFI_Error* exported_double(XLA_FFI_CallFrame* frame) {
  return Scale(frame, 2);
}
EXPORT XLA_FFI_Handler* const xffi_export_exported_double = exported_double;

EXPORT XLA_FFI_Error* exported_negate(XLA_FFI_CallFrame* frame) {
  return Scale(frame, -1);
}
EXPORT XLA_FFI_Handler* const xffi_export_exported_negate = exported_negate;

// Exported but not marked: found by symbol, not listed.
EXPORT XLA_FFI_Error* unmarked_handler(XLA_FFI_CallFrame* frame) {
  return Scale(frame, 3);
}

// A legacy target for pycapsule-style registration by the caller.
EXPORT void legacy_triple(void* out, const void** in) {
  *static_cast<float*>(out) = 3 * *static_cast<const float*>(in[0]);
}

extern "C" {
__attribute__((visibility("default"))) int exported_data = 42;
}

// Gives the library a libc dependency whose symbols must not pass for its
// own.
EXPORT const char* plugin_home() { return std::getenv("HOME"); }

// Not exported at all.
__attribute__((visibility("hidden"))) XLA_FFI_Error* hidden_handler(
    XLA_FFI_CallFrame* frame) {
  return Scale(frame, 4);
}
