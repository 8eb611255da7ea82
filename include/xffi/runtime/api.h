// xffi: the runtime's XLA_FFI_Api table.
#ifndef XFFI_RUNTIME_API_H_
#define XFFI_RUNTIME_API_H_

#include "xffi/c_api.h"

namespace xffi {

// The table every handler called by xffi sees as `call_frame->api`; it is
// also exported with C linkage as XLA_FFI_GetApi(). Its api_version is
// (XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR) and its struct_size covers every
// slot c_api.h declares.
const XLA_FFI_Api* GetApi();

}  // namespace xffi

#endif  // XFFI_RUNTIME_API_H_
