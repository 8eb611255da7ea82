// A test plugin whose static initializers register a typed FFI handler (with
// the C ABI by hand, through a weak XLA_FFI_GetApi, as a library that must
// also load into XLA would) and two legacy targets (with xffi's macros).
#include <cstdint>

#include "xffi/c_api.h"
#include "xffi/custom_call_target.h"

extern "C" __attribute__((weak)) const XLA_FFI_Api* XLA_FFI_GetApi(void);

namespace {

// out[i] = in[i] + 1 over f32 buffers of any shape.
XLA_FFI_Error* PluginAddOne(XLA_FFI_CallFrame* frame) {
  for (XLA_FFI_InternalExtension* ext = frame->extension_start; ext != nullptr;
       ext = ext->next) {
    if (ext->type == XLA_FFI_Extension_Metadata) {
      auto* metadata =
          reinterpret_cast<XLA_FFI_Metadata_Extension*>(ext)->metadata;
      metadata->api_version.major_version = 0;
      metadata->api_version.minor_version = 3;
      metadata->traits = 0;
      return nullptr;
    }
  }
  auto* in = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* out = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  int64_t n = 1;
  for (int64_t d = 0; d < in->rank; ++d) n *= in->dims[d];
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(out->data)[i] = static_cast<float*>(in->data)[i] + 1;
  }
  return nullptr;
}

__attribute__((constructor)) void RegisterPluginAddOne() {
  if (!XLA_FFI_GetApi) return;
  const XLA_FFI_Api* api = XLA_FFI_GetApi();
  XLA_FFI_Handler_Register_Args args{};
  args.struct_size = XLA_FFI_Handler_Register_Args_STRUCT_SIZE;
  args.name = {"plugin_add_one", 14};
  args.platform = {"Host", 4};
  args.bundle.execute = PluginAddOne;
  XLA_FFI_Error* error = api->XLA_FFI_Handler_Register(&args);
  if (error != nullptr) {
    XLA_FFI_Error_Destroy_Args destroy{};
    destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
    destroy.error = error;
    api->XLA_FFI_Error_Destroy(&destroy);
  }
}

void plugin_legacy_sub(void* out, const void** in) {
  *static_cast<float*>(out) =
      *static_cast<const float*>(in[0]) - *static_cast<const float*>(in[1]);
}

void plugin_legacy_fail(void*, const void**, const char* opaque,
                        size_t opaque_len, XlaCustomCallStatus* status) {
  XlaCustomCallStatusSetFailure(status, opaque, opaque_len);
}

}  // namespace

XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(plugin_legacy_sub);
XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("plugin_legacy_fail",
                                          plugin_legacy_fail, "cpu");
