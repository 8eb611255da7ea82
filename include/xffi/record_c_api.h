/* xffi: the Record backend extension's C ABI, binary-compatible with XLA's
 * (xla/ffi/api/record_c_api.h, Record extension 0.2, shipped with jaxlib
 * 0.12). tests/cpp/xla/test_abi_compare.cc compares every layout with the
 * official header.
 *
 * A handler bound to the RECORD stage does not run its work: it records
 * commands (kernel launches, device-to-device copies, joins) with their
 * dependencies, which the runtime replays later, possibly many times; on a
 * later recording of the same call site it updates the commands it created
 * instead. The runtime hands the handler an XLA_FFI_RecordFrame through this
 * extension (InvokeContext_FindExtension with XLA_FFI_Extension_Record).
 *
 * xffi's runtime implements it on the host (xffi/runtime/command_buffer.h):
 * copies, joins and stream-capture requests are recorded and replayed;
 * kernel launches need a GPU runtime and are refused with UNIMPLEMENTED.
 *
 * Pure C. */
#ifndef XFFI_RECORD_C_API_H_
#define XFFI_RECORD_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "xffi/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extension's type and version, as InvokeContext_FindExtension and
 * XLA_FFI_Extension.id carry them. */
#define XLA_FFI_Extension_Record 128
#define XLA_FFI_Extension_Record_MajorVersion 0
#define XLA_FFI_Extension_Record_MinorVersion 2

/* Opaque to handlers: the runtime's recording state, and one recorded
 * command (a handle that lives as long as the recording context and serves
 * as a dependency of later commands). */
typedef struct XLA_FFI_RecordContext XLA_FFI_RecordContext;
typedef struct XLA_FFI_Command XLA_FFI_Command;

/* Create: the first recording of a call site. Update: a later one, which
 * finds its commands in the frame and updates them. */
typedef enum XLA_FFI_RecordAction {
  XLA_FFI_RecordAction_Create = 0,
  XLA_FFI_RecordAction_Update = 1,
} XLA_FFI_RecordAction;

/* What create_launch's kernel_data is: PTX text, a CUBIN image, or an
 * already loaded device function (kernel_size 0). */
typedef enum XLA_FFI_SourceFormat {
  XLA_FFI_SourceFormat_PTX = 0,
  XLA_FFI_SourceFormat_CUBIN = 1,
  XLA_FFI_SourceFormat_FUNCTION_PTR = 2,
} XLA_FFI_SourceFormat;

typedef struct XLA_FFI_Dim3 {
  int32_t x;
  int32_t y;
  int32_t z;
} XLA_FFI_Dim3;

/* A cluster of {0, 0, 0} means no cluster. */
typedef struct XLA_FFI_LaunchDims {
  XLA_FFI_Dim3 grid;
  XLA_FFI_Dim3 block;
  XLA_FFI_Dim3 cluster;
} XLA_FFI_LaunchDims;

typedef enum XLA_FFI_KernelArgType {
  XLA_FFI_KernelArgType_DevicePtr = 0,
  XLA_FFI_KernelArgType_HostValue = 1,
} XLA_FFI_KernelArgType;

/* A device pointer (arg_address is the pointer, size 0) or a host value
 * (arg_address points at `size` > 0 bytes, which the runtime copies). */
typedef struct XLA_FFI_KernelArg {
  const void* arg_address;
  int64_t size;
  XLA_FFI_KernelArgType type;
} XLA_FFI_KernelArg;

typedef struct XLA_FFI_KernelArgs {
  const XLA_FFI_KernelArg* args;
  int64_t num_args;
} XLA_FFI_KernelArgs;

/* The runtime's recording functions. Every create_* writes the new command
 * to *out_command; `dependencies` are earlier commands of the same context.
 * The runtime copies the argument arrays before returning. */
typedef struct XLA_FFI_RecordApi {
  XLA_FFI_Error* (*create_launch)(
      XLA_FFI_RecordContext* ctx, const char* kernel_name,
      const void* kernel_data, int64_t kernel_size, XLA_FFI_SourceFormat format,
      XLA_FFI_LaunchDims launch_dims, uint32_t shared_mem_bytes,
      int32_t uses_pdl, const XLA_FFI_KernelArgs* args,
      const XLA_FFI_Command* const* dependencies, uint32_t num_dependencies,
      const XLA_FFI_Command** out_command);

  XLA_FFI_Error* (*update_launch)(XLA_FFI_RecordContext* ctx,
                                  const XLA_FFI_Command* command,
                                  const XLA_FFI_KernelArgs* args);

  XLA_FFI_Error* (*create_memcpy_d2d)(
      XLA_FFI_RecordContext* ctx, void* dst, void* src, int64_t size,
      const XLA_FFI_Command* const* dependencies, uint32_t num_dependencies,
      const XLA_FFI_Command** out_command);

  XLA_FFI_Error* (*update_memcpy_d2d)(XLA_FFI_RecordContext* ctx,
                                      const XLA_FFI_Command* command, void* dst,
                                      void* src, int64_t size);

  /* Asks the runtime to run the handler's execute stage under stream
   * capture instead of replaying recorded commands. */
  XLA_FFI_Error* (*request_stream_capture)(XLA_FFI_RecordContext* ctx);

  /* A command that does nothing but join its dependencies. */
  XLA_FFI_Error* (*create_empty_command)(
      XLA_FFI_RecordContext* ctx, const XLA_FFI_Command* const* dependencies,
      uint32_t num_dependencies, const XLA_FFI_Command** out_command);
} XLA_FFI_RecordApi;

/* One recording. `commands` holds room for max_commands handles and
 * *num_commands says how many are filled: the handler appends what it
 * creates, and on Update reads back what it created before. */
typedef struct XLA_FFI_RecordFrame {
  XLA_FFI_RecordContext* record_ctx;
  const XLA_FFI_RecordApi* api;
  XLA_FFI_RecordAction action;
  const XLA_FFI_Command** commands;
  int64_t* num_commands;
  int64_t max_commands;
} XLA_FFI_RecordFrame;

typedef struct XLA_FFI_Record_Extension {
  XLA_FFI_Extension extension_base;
  XLA_FFI_RecordFrame* record_frame;
} XLA_FFI_Record_Extension;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Record_Extension, record_frame);

#ifdef __cplusplus
}
#endif

#endif /* XFFI_RECORD_C_API_H_ */
