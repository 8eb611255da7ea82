// The API table and its C entry point.
#include "xffi/runtime/api.h"

#include "runtime/api_internal.h"

namespace xffi {
namespace {

XLA_FFI_Api MakeApi() {
  using namespace internal;  // NOLINT: the entry points
  XLA_FFI_Api api{};
  api.struct_size = XLA_FFI_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
  api.api_version.extension_start = nullptr;
  api.api_version.major_version = XLA_FFI_API_MAJOR;
  api.api_version.minor_version = XLA_FFI_API_MINOR;
  api.internal_api = nullptr;
  api.XLA_FFI_Error_Create = ErrorCreate;
  api.XLA_FFI_Error_GetDetails = ErrorGetDetails;
  api.XLA_FFI_Error_Destroy = ErrorDestroy;
  api.XLA_FFI_Handler_Register = HandlerRegister;
  api.XLA_FFI_Stream_Get = StreamGet;
  api.XLA_FFI_Type_Register = TypeRegister;
  api.XLA_FFI_InvokeContext_Get = InvokeContextGet;
  api.XLA_FFI_State_Set = StateSet;
  api.XLA_FFI_State_Get = StateGet;
  api.XLA_FFI_DeviceMemory_Allocate = DeviceMemoryAllocate;
  api.XLA_FFI_DeviceMemory_Free = DeviceMemoryFree;
  api.XLA_FFI_ThreadPool_Schedule = ThreadPoolSchedule;
  api.XLA_FFI_ThreadPool_NumThreads = ThreadPoolNumThreads;
  api.XLA_FFI_Future_Create = FutureCreate;
  api.XLA_FFI_Future_SetAvailable = FutureSetAvailable;
  api.XLA_FFI_Future_SetError = FutureSetError;
  api.XLA_FFI_RunId_Get = RunIdGet;
  api.XLA_FFI_DeviceOrdinal_Get = DeviceOrdinalGet;
  api.XLA_FFI_InvokeContext_FindExtension = InvokeContextFindExtension;
  api.XLA_FFI_CustomOptions_Get = CustomOptionsGet;
  return api;
}

}  // namespace

const XLA_FFI_Api* GetApi() {
  static const XLA_FFI_Api api = MakeApi();
  return &api;
}

}  // namespace xffi

extern "C" __attribute__((visibility("default"))) const XLA_FFI_Api*
XLA_FFI_GetApi(void) {
  return xffi::GetApi();
}
