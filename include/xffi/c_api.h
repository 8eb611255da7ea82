/* xffi: the FFI C ABI.
 *
 * Every struct, enum value and the order of the API function table here is
 * binary-compatible with XLA's FFI C API (xla/ffi/api/c_api.h as shipped by
 * jaxlib). The layouts are those of API version 0.5, the newest one jaxlib
 * ships; where an earlier version laid a struct out differently, the
 * difference is recorded next to the struct, because the runtime must still
 * accept callers built against it. tests/cpp/test_abi_layout.cc pins every
 * offset and size, and tests/cpp/xla/test_abi_compare.cc compares them with the
 * official header.
 *
 * Names are XLA's, so a handler ported from XLA changes only its includes.
 * Where XLA renamed something between versions, both spellings are accepted
 * (typedefs, or anonymous unions inside the API table).
 *
 * Pure C (C11 for anonymous unions); no C++ is needed to use it. */
#ifndef XFFI_C_API_H_
#define XFFI_C_API_H_

#include <stddef.h>
#include <stdint.h>

/* The size of a struct "as known to" its version: up to and including
 * `last_field`, without trailing padding. Fields that lie past `last_field`
 * (CallFrame::future, Metadata::state_type_id, Type_Register_Args::type_info)
 * are deliberately outside the size, exactly as XLA defines them. */
#define XLA_FFI_STRUCT_SIZE(struct_type, last_field) \
  (offsetof(struct_type, last_field) + sizeof(((struct_type*)0)->last_field))

#define XLA_FFI_DEFINE_STRUCT_TRAITS(sname, last_field) \
  typedef struct sname sname;                           \
  enum { sname##_STRUCT_SIZE = XLA_FFI_STRUCT_SIZE(sname, last_field) }

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XLA_FFI_Api XLA_FFI_Api;
typedef struct XLA_FFI_InternalApi XLA_FFI_InternalApi;

/* ------------------------------------------------------------------------ */
/* Versions                                                                 */
/* ------------------------------------------------------------------------ */

/* The version these layouts describe. MAJOR has never changed. */
#define XLA_FFI_API_MAJOR 0
#define XLA_FFI_API_MINOR 5

/* The oldest version whose handlers xffi's runtime still accepts. */
#define XFFI_API_MINOR_OLDEST 1

/* ------------------------------------------------------------------------ */
/* Extension chains                                                         */
/* ------------------------------------------------------------------------ */

/* Internal extensions pass data between the runtime and a handler through
 * `extension_start` of any argument struct. XLA 0.1-0.3 called these
 * XLA_FFI_Extension_Base / XLA_FFI_Extension_Type. */
/* XFFI_Extension_Signature is xffi's own (see the end of this file). Listing
 * it here keeps the value inside the enum's range, so C++ may store and
 * compare it without undefined behaviour; the enum stays 4 bytes. */
typedef enum {
  XLA_FFI_Extension_Metadata = 1,
  XFFI_Extension_Signature = 0x78666669, /* 'xffi' */
} XLA_FFI_InternalExtension_Type;
typedef XLA_FFI_InternalExtension_Type XLA_FFI_Extension_Type;

typedef struct XLA_FFI_InternalExtension {
  size_t struct_size;
  XLA_FFI_InternalExtension_Type type;
  struct XLA_FFI_InternalExtension* next;
} XLA_FFI_InternalExtension;
typedef XLA_FFI_InternalExtension XLA_FFI_Extension_Base;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_InternalExtension, next);
enum {
  XLA_FFI_Extension_Base_STRUCT_SIZE = XLA_FFI_InternalExtension_STRUCT_SIZE
};

/* Backend extensions (0.4+) are attached to an invoke context and found with
 * InvokeContext_FindExtension. Each carries its own 64-bit type and version. */
typedef struct XLA_FFI_ExtensionId {
  int64_t extension_type;
  int32_t major_version;
  int32_t minor_version;
} XLA_FFI_ExtensionId;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_ExtensionId, minor_version);

typedef struct XLA_FFI_Extension XLA_FFI_Extension;
struct XLA_FFI_Extension {
  size_t struct_size;
  XLA_FFI_ExtensionId id;
  const XLA_FFI_Extension* next;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Extension, next);

struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int major_version; /* out */
  int minor_version; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Api_Version, minor_version);

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/* Opaque; created and destroyed only by the runtime that owns the API table. */
typedef struct XLA_FFI_Error XLA_FFI_Error;

/* The absl::StatusCode numbering. */
typedef enum {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_CANCELLED = 1,
  XLA_FFI_Error_Code_UNKNOWN = 2,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_DEADLINE_EXCEEDED = 4,
  XLA_FFI_Error_Code_NOT_FOUND = 5,
  XLA_FFI_Error_Code_ALREADY_EXISTS = 6,
  XLA_FFI_Error_Code_PERMISSION_DENIED = 7,
  XLA_FFI_Error_Code_RESOURCE_EXHAUSTED = 8,
  XLA_FFI_Error_Code_FAILED_PRECONDITION = 9,
  XLA_FFI_Error_Code_ABORTED = 10,
  XLA_FFI_Error_Code_OUT_OF_RANGE = 11,
  XLA_FFI_Error_Code_UNIMPLEMENTED = 12,
  XLA_FFI_Error_Code_INTERNAL = 13,
  XLA_FFI_Error_Code_UNAVAILABLE = 14,
  XLA_FFI_Error_Code_DATA_LOSS = 15,
  XLA_FFI_Error_Code_UNAUTHENTICATED = 16
} XLA_FFI_Error_Code;

struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  const char* message; /* copied by the runtime */
  XLA_FFI_Error_Code errc;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_Create_Args, errc);
typedef XLA_FFI_Error* XLA_FFI_Error_Create(XLA_FFI_Error_Create_Args* args);

/* 0.4+: message and code. Callers built before 0.4 pass the 32-byte
 * XLA_FFI_Error_GetMessage_Args through the same table slot; the runtime
 * writes `errc` only when struct_size says the caller has room for it. */
struct XLA_FFI_Error_GetDetails_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Error* error;
  const char* message;     /* out, owned by the error */
  XLA_FFI_Error_Code errc; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_GetDetails_Args, errc);
typedef void XLA_FFI_Error_GetDetails(XLA_FFI_Error_GetDetails_Args* args);

struct XLA_FFI_Error_GetMessage_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Error* error;
  const char* message; /* out, owned by the error */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_GetMessage_Args, message);
typedef void XLA_FFI_Error_GetMessage(XLA_FFI_Error_GetMessage_Args* args);

struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Error* error;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Error_Destroy_Args, error);
typedef void XLA_FFI_Error_Destroy(XLA_FFI_Error_Destroy_Args* args);

/* ------------------------------------------------------------------------ */
/* Data types: the numbers of xla::PrimitiveType (13 TUPLE and 14 OPAQUE are */
/* not data types and are absent).                                           */
/* ------------------------------------------------------------------------ */

typedef enum {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_PRED = 1,
  XLA_FFI_DataType_S1 = 30,
  XLA_FFI_DataType_S2 = 26,
  XLA_FFI_DataType_S4 = 21,
  XLA_FFI_DataType_S8 = 2,
  XLA_FFI_DataType_S16 = 3,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_U1 = 31,
  XLA_FFI_DataType_U2 = 27,
  XLA_FFI_DataType_U4 = 22,
  XLA_FFI_DataType_U8 = 6,
  XLA_FFI_DataType_U16 = 7,
  XLA_FFI_DataType_U32 = 8,
  XLA_FFI_DataType_U64 = 9,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_BF16 = 16,
  XLA_FFI_DataType_C64 = 15,
  XLA_FFI_DataType_C128 = 18,
  XLA_FFI_DataType_TOKEN = 17,
  XLA_FFI_DataType_F8E5M2 = 19,
  XLA_FFI_DataType_F8E3M4 = 29,
  XLA_FFI_DataType_F8E4M3 = 28,
  XLA_FFI_DataType_F8E4M3FN = 20,
  XLA_FFI_DataType_F8E4M3B11FNUZ = 23,
  XLA_FFI_DataType_F8E5M2FNUZ = 24,
  XLA_FFI_DataType_F8E4M3FNUZ = 25,
  XLA_FFI_DataType_F4E2M1FN = 32,
  XLA_FFI_DataType_F8E8M0FNU = 33,
} XLA_FFI_DataType;

/* ------------------------------------------------------------------------ */
/* Arguments, results and attributes                                        */
/* ------------------------------------------------------------------------ */

/* A token travels as dtype TOKEN with null data and rank 0. */
struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_DataType dtype;
  void* data;
  int64_t rank;
  int64_t* dims; /* rank entries */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Buffer, dims);

typedef enum {
  XLA_FFI_ArgType_BUFFER = 1,
} XLA_FFI_ArgType;

typedef enum {
  XLA_FFI_RetType_BUFFER = 1,
} XLA_FFI_RetType;

typedef enum {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
} XLA_FFI_AttrType;

/* The per-call context. XLA 0.1-0.3 called it XLA_FFI_ExecutionContext. */
typedef struct XLA_FFI_InvokeContext XLA_FFI_InvokeContext;
typedef XLA_FFI_InvokeContext XLA_FFI_ExecutionContext;

/* Not NUL-terminated. */
typedef struct XLA_FFI_ByteSpan {
  const char* ptr;
  size_t len;
} XLA_FFI_ByteSpan;

/* A bool is PRED, one byte. */
typedef struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void* value;
} XLA_FFI_Scalar;

typedef struct XLA_FFI_Array {
  XLA_FFI_DataType dtype;
  size_t size; /* elements */
  void* data;
} XLA_FFI_Array;

/* ------------------------------------------------------------------------ */
/* Types (user data and state)                                              */
/* ------------------------------------------------------------------------ */

/* 0 means "unknown"; the runtime assigns ids greater than 0. */
typedef struct XLA_FFI_TypeId {
  int64_t type_id;
} XLA_FFI_TypeId;

#ifdef __cplusplus
#define XLA_FFI_UNKNOWN_TYPE_ID \
  XLA_FFI_TypeId { 0 }
#endif

typedef struct XLA_FFI_TypeInfo {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  void (*deleter)(void* object);
} XLA_FFI_TypeInfo;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_TypeInfo, deleter);

/* ------------------------------------------------------------------------ */
/* Futures                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct XLA_FFI_Future XLA_FFI_Future;

struct XLA_FFI_Future_Create_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future; /* out */
};
/* XLA declares the size up to extension_start; reproduced as is. */
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_Create_Args, extension_start);
typedef XLA_FFI_Error* XLA_FFI_Future_Create(XLA_FFI_Future_Create_Args* args);

struct XLA_FFI_Future_SetAvailable_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_SetAvailable_Args, future);
typedef XLA_FFI_Error* XLA_FFI_Future_SetAvailable(
    XLA_FFI_Future_SetAvailable_Args* args);

struct XLA_FFI_Future_SetError_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Future* future;
  XLA_FFI_Error* error; /* ownership passes to the runtime */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Future_SetError_Args, error);
typedef XLA_FFI_Error* XLA_FFI_Future_SetError(
    XLA_FFI_Future_SetError_Args* args);

/* ------------------------------------------------------------------------ */
/* Call frame                                                               */
/* ------------------------------------------------------------------------ */

/* Version 0.0 numbered these PREPARE=0, INITIALIZE=1, EXECUTE=2; xffi does
 * not accept 0.0 handlers. RECORD arrived in 0.4. */
typedef enum {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
  XLA_FFI_ExecutionStage_RECORD = 4,
} XLA_FFI_ExecutionStage;

struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  XLA_FFI_ArgType* types; /* size entries */
  void** args;            /* size entries */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Args, args);

struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  XLA_FFI_RetType* types; /* size entries */
  void** rets;            /* size entries */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Rets, rets);

/* Entries are sorted by name (bytewise). attrs[i] points to an XLA_FFI_Scalar,
 * XLA_FFI_Array, XLA_FFI_ByteSpan or a nested (also sorted) XLA_FFI_Attrs,
 * according to types[i]. */
struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  int64_t size;
  XLA_FFI_AttrType* types;  /* size entries */
  XLA_FFI_ByteSpan** names; /* size entries */
  void** attrs;             /* size entries */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Attrs, attrs);

struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  const XLA_FFI_Api* api;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  /* An asynchronous handler stores a future here and returns null; the
   * runtime keeps the frame's data alive until the future completes. */
  XLA_FFI_Future* future; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_CallFrame, attrs);

/* ------------------------------------------------------------------------ */
/* Handlers and their registration                                          */
/* ------------------------------------------------------------------------ */

typedef XLA_FFI_Error* XLA_FFI_Handler(XLA_FFI_CallFrame* call_frame);

/* `record` arrived in 0.4: a 0.1-0.3 bundle is 32 bytes. Only `execute` is
 * required. */
typedef struct XLA_FFI_Handler_Bundle {
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
  XLA_FFI_Handler* record;
} XLA_FFI_Handler_Bundle;

enum XLA_FFI_Handler_TraitsBits {
  /* The handler always launches the same device work for the same
   * attributes, so it may be captured into a command buffer and replayed. */
  XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE = 1u << 0,
};
typedef uint32_t XLA_FFI_Handler_Traits;

/* Because the bundle grew in 0.4, `traits` sits at offset 88 here (size 92)
 * and at offset 80 (size 84) for callers built against 0.1-0.3. The runtime
 * tells the two apart by struct_size. */
struct XLA_FFI_Handler_Register_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform; /* "Host", "CUDA", ... (case-insensitive) */
  XLA_FFI_Handler_Bundle bundle;
  XLA_FFI_Handler_Traits traits;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Handler_Register_Args, traits);
typedef XLA_FFI_Error* XLA_FFI_Handler_Register(
    XLA_FFI_Handler_Register_Args* args);

/* 0.1 called this XLA_FFI_TypeId_Register_Args and had no type_info; the
 * runtime reads type_info only when struct_size reaches past it. A type_id of
 * 0 asks the runtime to assign one; a nonzero id must match the name. */
struct XLA_FFI_Type_Register_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId* type_id; /* in-out */
  const XLA_FFI_TypeInfo* type_info;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Type_Register_Args, type_id);
typedef XLA_FFI_Type_Register_Args XLA_FFI_TypeId_Register_Args;
typedef XLA_FFI_Error* XLA_FFI_Type_Register(XLA_FFI_Type_Register_Args* args);
typedef XLA_FFI_Type_Register XLA_FFI_TypeId_Register;

/* ------------------------------------------------------------------------ */
/* Invoke context queries                                                   */
/* ------------------------------------------------------------------------ */

struct XLA_FFI_InvokeContext_FindExtension_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t extension_type;
  const XLA_FFI_Extension* extension; /* out, null when absent */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_InvokeContext_FindExtension_Args,
                             extension);
typedef XLA_FFI_Error* XLA_FFI_InvokeContext_FindExtension(
    XLA_FFI_InvokeContext_FindExtension_Args* args);

/* User data attached to the context, looked up by type id. */
struct XLA_FFI_InvokeContext_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* data; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_InvokeContext_Get_Args, data);
typedef XLA_FFI_InvokeContext_Get_Args XLA_FFI_ExecutionContext_Get_Args;
enum {
  XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE =
      XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE
};
typedef XLA_FFI_Error* XLA_FFI_InvokeContext_Get(
    XLA_FFI_InvokeContext_Get_Args* args);
typedef XLA_FFI_InvokeContext_Get XLA_FFI_ExecutionContext_Get;

/* 0.5: options attached to the call site, as a sorted attribute dictionary. */
struct XLA_FFI_CustomOptions_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  const XLA_FFI_Attrs* attrs; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_CustomOptions_Get_Args, attrs);
typedef XLA_FFI_Error* XLA_FFI_CustomOptions_Get(
    XLA_FFI_CustomOptions_Get_Args* args);

/* State kept per call site and per stage. Three layouts have existed:
 *   0.1 and later 0.2:  {hdr, ctx, type_id*, state}               size 40
 *   October-2025 0.2:   {hdr, ctx, type_id*, state, deleter}      size 48
 *   0.3 and later:      {hdr, ctx, stage, type_id*, state}        size 48
 * The runtime tells them apart by struct_size and by the API version the
 * calling handler reported at registration; a 40-byte call means stage
 * INSTANTIATE. */
struct XLA_FFI_State_Set_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_TypeId* type_id;
  void* state;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_State_Set_Args, state);
typedef XLA_FFI_Error* XLA_FFI_State_Set(XLA_FFI_State_Set_Args* args);

struct XLA_FFI_State_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_TypeId* type_id;
  void* state; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_State_Get_Args, state);
typedef XLA_FFI_Error* XLA_FFI_State_Get(XLA_FFI_State_Get_Args* args);

/* The platform stream (CUstream on CUDA); UNIMPLEMENTED on Host. */
struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  void* stream; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Stream_Get_Args, stream);
typedef XLA_FFI_Error* XLA_FFI_Stream_Get(XLA_FFI_Stream_Get_Args* args);

struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  size_t size;
  size_t alignment; /* a power of two */
  void* data;       /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_DeviceMemory_Allocate_Args, data);
typedef XLA_FFI_Error* XLA_FFI_DeviceMemory_Allocate(
    XLA_FFI_DeviceMemory_Allocate_Args* args);

struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  size_t size;
  void* data;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_DeviceMemory_Free_Args, data);
typedef XLA_FFI_Error* XLA_FFI_DeviceMemory_Free(
    XLA_FFI_DeviceMemory_Free_Args* args);

typedef void XLA_FFI_Task(void* data);

struct XLA_FFI_ThreadPool_Schedule_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_Task* task;
  void* data;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_ThreadPool_Schedule_Args, data);
typedef XLA_FFI_Error* XLA_FFI_ThreadPool_Schedule(
    XLA_FFI_ThreadPool_Schedule_Args* args);

struct XLA_FFI_ThreadPool_NumThreads_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t* num_threads; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_ThreadPool_NumThreads_Args, num_threads);
typedef XLA_FFI_Error* XLA_FFI_ThreadPool_NumThreads(
    XLA_FFI_ThreadPool_NumThreads_Args* args);

struct XLA_FFI_RunId_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int64_t run_id; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_RunId_Get_Args, run_id);
typedef XLA_FFI_Error* XLA_FFI_RunId_Get(XLA_FFI_RunId_Get_Args* args);

/* -1 when the call runs on no particular device. */
struct XLA_FFI_DeviceOrdinal_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  int32_t device_ordinal; /* out */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_DeviceOrdinal_Get_Args, device_ordinal);
typedef XLA_FFI_Error* XLA_FFI_DeviceOrdinal_Get(
    XLA_FFI_DeviceOrdinal_Get_Args* args);

/* ------------------------------------------------------------------------ */
/* Metadata: the registration handshake                                     */
/* ------------------------------------------------------------------------ */

/* At registration the runtime calls the handler with a frame whose
 * extension_start is a Metadata_Extension; the handler fills in the version
 * it was built for, its traits and the type id of any state it creates, and
 * returns without running. */
struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_Handler_Traits traits;
  XLA_FFI_TypeId state_type_id; /* 0 for a stateless handler */
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Metadata, traits);

struct XLA_FFI_Metadata_Extension {
  XLA_FFI_InternalExtension extension_base;
  XLA_FFI_Metadata* metadata;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Metadata_Extension, metadata);

/* ------------------------------------------------------------------------ */
/* The API table                                                            */
/* ------------------------------------------------------------------------ */

/* The slots' order is the ABI. A caller learns which slots exist from
 * api_version rather than struct_size alone: XLA's 0.1 header declared the
 * table's size only up to Stream_Get although later slots were present.
 *   0.2-0.3: through DeviceOrdinal_Get (size 192)
 *   0.4:     adds InvokeContext_FindExtension (size 200)
 *   0.5:     adds CustomOptions_Get (size 208) */
struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_Api_Version api_version;
  const XLA_FFI_InternalApi* internal_api; /* same-commit XLA only; null */

  XLA_FFI_Error_Create* XLA_FFI_Error_Create;
  union {
    XLA_FFI_Error_GetDetails* XLA_FFI_Error_GetDetails;
    XLA_FFI_Error_GetMessage* XLA_FFI_Error_GetMessage;
  };
  XLA_FFI_Error_Destroy* XLA_FFI_Error_Destroy;
  XLA_FFI_Handler_Register* XLA_FFI_Handler_Register;
  XLA_FFI_Stream_Get* XLA_FFI_Stream_Get;
  union {
    XLA_FFI_Type_Register* XLA_FFI_Type_Register;
    XLA_FFI_TypeId_Register* XLA_FFI_TypeId_Register;
  };
  union {
    XLA_FFI_InvokeContext_Get* XLA_FFI_InvokeContext_Get;
    XLA_FFI_ExecutionContext_Get* XLA_FFI_ExecutionContext_Get;
  };
  XLA_FFI_State_Set* XLA_FFI_State_Set;
  XLA_FFI_State_Get* XLA_FFI_State_Get;
  XLA_FFI_DeviceMemory_Allocate* XLA_FFI_DeviceMemory_Allocate;
  XLA_FFI_DeviceMemory_Free* XLA_FFI_DeviceMemory_Free;
  XLA_FFI_ThreadPool_Schedule* XLA_FFI_ThreadPool_Schedule;
  XLA_FFI_ThreadPool_NumThreads* XLA_FFI_ThreadPool_NumThreads;
  XLA_FFI_Future_Create* XLA_FFI_Future_Create;
  XLA_FFI_Future_SetAvailable* XLA_FFI_Future_SetAvailable;
  XLA_FFI_Future_SetError* XLA_FFI_Future_SetError;
  XLA_FFI_RunId_Get* XLA_FFI_RunId_Get;
  XLA_FFI_DeviceOrdinal_Get* XLA_FFI_DeviceOrdinal_Get;
  XLA_FFI_InvokeContext_FindExtension* XLA_FFI_InvokeContext_FindExtension;
  XLA_FFI_CustomOptions_Get* XLA_FFI_CustomOptions_Get;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Api, XLA_FFI_CustomOptions_Get);

/* True when `api` has the slot `field` (its struct_size reaches past it). */
#define XFFI_API_HAS(api, field) \
  ((api)->struct_size >=         \
   offsetof(XLA_FFI_Api, field) + sizeof(((XLA_FFI_Api*)0)->field))

/* Exported by libxffi with C linkage: the runtime's table. */
const XLA_FFI_Api* XLA_FFI_GetApi(void);

/* ------------------------------------------------------------------------ */
/* xffi extensions. XLA ignores them: they ride on the extension chain of   */
/* the registration handshake, after the Metadata extension, and a handler  */
/* built with XLA's header never looks past the first node.                 */
/* ------------------------------------------------------------------------ */

/* An extension type XLA does not define ('xffi' in ASCII). */
#define XFFI_EXTENSION_SIGNATURE XFFI_Extension_Signature

/* What a parameter of a binding is. */
typedef enum {
  XFFI_Param_ARG = 1,
  XFFI_Param_RET = 2,
  XFFI_Param_OPTIONAL_ARG = 3,
  XFFI_Param_OPTIONAL_RET = 4,
  XFFI_Param_REMAINING_ARGS = 5,
  XFFI_Param_REMAINING_RETS = 6,
  XFFI_Param_ATTR = 7,  /* one named attribute */
  XFFI_Param_ATTRS = 8, /* the whole dictionary, or a struct decoded from it */
  XFFI_Param_CTX = 9,
} XFFI_ParamKind;

/* One parameter. For buffers, dtype is XLA_FFI_DataType_INVALID when any
 * type is accepted and rank is -1 when any rank is. For attributes,
 * attr_type says what the frame must carry (0 when several are accepted, as
 * for std::variant) and dtype the element type of a scalar or array. */
typedef struct XFFI_Param {
  XFFI_ParamKind kind;
  XLA_FFI_DataType dtype;
  int64_t rank;
  XLA_FFI_AttrType attr_type; /* 0 when not an attribute or several types */
  const char* name;           /* attribute name, or null */
  const char* type_name; /* the C++ type as written, e.g. "Buffer<F32, 2>" */
} XFFI_Param;

typedef struct XFFI_Signature {
  size_t struct_size;
  XLA_FFI_ExecutionStage stage;
  int64_t num_params;
  const XFFI_Param* params; /* in binding order */
} XFFI_Signature;
XLA_FFI_DEFINE_STRUCT_TRAITS(XFFI_Signature, params);

/* The runtime links this after the Metadata extension during registration; a
 * handler built with xffi's header points `signature` at static storage that
 * lives as long as the handler's library. */
typedef struct XFFI_Signature_Extension {
  XLA_FFI_InternalExtension extension_base;
  const XFFI_Signature* signature; /* out */
} XFFI_Signature_Extension;
XLA_FFI_DEFINE_STRUCT_TRAITS(XFFI_Signature_Extension, signature);

/* A handler library built with xffi's header exports, beside each handler
 * symbol `fn` it defines with XFFI_DEFINE_HANDLER_SYMBOL, a data symbol
 * named XFFI_EXPORT_MARKER_PREFIX "fn" of type `XLA_FFI_Handler* const`
 * pointing at it. Tools list a library's handlers by these names without
 * calling anything; XLA never looks at them. */
#define XFFI_EXPORT_MARKER_PREFIX "xffi_export_"

#ifdef __cplusplus
}
#endif

#endif /* XFFI_C_API_H_ */
