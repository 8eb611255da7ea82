/* xffi: the Collectives backend extension's C ABI, binary-compatible with
 * XLA's (xla/ffi/api/collectives_c_api.h, Collectives extension 0.2,
 * shipped with jaxlib 0.12). tests/cpp/xla/test_abi_compare.cc compares
 * every layout with the official header.
 *
 * Gives a handler the runtime's communicator for a clique of devices (and
 * collective memory windows over buffers it already has): it requests them
 * in the PREPARE stage, the runtime acquires them, and it gets the handles
 * in INITIALIZE or EXECUTE. Handles are backend-defined: XLA:GPU hands out
 * ncclComm_t and ncclWindow_t. The extension is found with
 * InvokeContext_FindExtension(XLA_FFI_Extension_Collectives).
 *
 * xffi's runtime implements it on the host (xffi/runtime/collectives.h) for
 * cliques of one device, with the handle types at the end of this file; a
 * clique of several devices needs a multi-device runtime and is refused with
 * UNIMPLEMENTED.
 *
 * Pure C. */
#ifndef XFFI_COLLECTIVES_C_API_H_
#define XFFI_COLLECTIVES_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "xffi/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XLA_FFI_Extension_Collectives 129
#define XLA_FFI_Extension_Collectives_MajorVersion 0
#define XLA_FFI_Extension_Collectives_MinorVersion 2

/* How replica groups are read, as xla::CollectiveOpGroupMode: ids are
 * replica ids (CROSS_REPLICA: within this device's partition;
 * CROSS_REPLICA_AND_PARTITION: across all partitions), partition ids
 * (CROSS_PARTITION), or flattened replica * num_partitions + partition ids
 * (FLATTENED_ID). */
typedef enum XLA_FFI_CollectiveGroupMode {
  XLA_FFI_GROUP_CROSS_REPLICA = 0,
  XLA_FFI_GROUP_CROSS_PARTITION = 1,
  XLA_FFI_GROUP_CROSS_REPLICA_AND_PARTITION = 2,
  XLA_FFI_GROUP_FLATTENED_ID = 3,
} XLA_FFI_CollectiveGroupMode;

typedef struct XLA_FFI_ReplicaGroup {
  const int64_t* ids;
  size_t size;
} XLA_FFI_ReplicaGroup;

typedef struct XLA_FFI_Collectives_Extension XLA_FFI_Collectives_Extension;

/* Opaque: the runtime's per-invocation state, read by its callbacks only. */
typedef struct XLA_FFI_CollectivesState XLA_FFI_CollectivesState;
/* Opaque, non-owning, backend-defined communicator and window handles. */
typedef struct XLA_FFI_Communicator XLA_FFI_Communicator;
typedef struct XLA_FFI_Window XLA_FFI_Window;

/* PREPARE only: asks for the clique of (group_mode, groups,
 * communication_id) to be acquired before execution. */
typedef struct XLA_FFI_Communicator_Request_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_CollectiveGroupMode group_mode;
  const XLA_FFI_ReplicaGroup* groups;
  size_t num_groups;
  int64_t communication_id;
} XLA_FFI_Communicator_Request_Args;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Communicator_Request_Args,
                             communication_id);

typedef XLA_FFI_Error* XLA_FFI_Communicator_Request(
    const XLA_FFI_Collectives_Extension* self,
    XLA_FFI_Communicator_Request_Args* args);

/* INITIALIZE or EXECUTE: the communicator of a requested clique. */
typedef struct XLA_FFI_Communicator_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_CollectiveGroupMode group_mode;
  const XLA_FFI_ReplicaGroup* groups;
  size_t num_groups;
  int64_t communication_id;
  XLA_FFI_Communicator* communicator; /* out */
} XLA_FFI_Communicator_Get_Args;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Communicator_Get_Args, communicator);

typedef XLA_FFI_Error* XLA_FFI_Communicator_Get(
    const XLA_FFI_Collectives_Extension* self,
    XLA_FFI_Communicator_Get_Args* args);

/* A buffer the handler already has, to be registered as collective memory
 * with a clique. */
typedef struct XLA_FFI_CollectiveMemoryRegion {
  const void* buffer;
  size_t byte_size;
  uint64_t flags;
} XLA_FFI_CollectiveMemoryRegion;

/* PREPARE only, after the clique's communicator was requested: asks for
 * windows over `regions`. */
typedef struct XLA_FFI_Window_Request_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_CollectiveGroupMode group_mode;
  const XLA_FFI_ReplicaGroup* groups;
  size_t num_groups;
  int64_t communication_id;
  const XLA_FFI_CollectiveMemoryRegion* regions;
  size_t num_regions;
} XLA_FFI_Window_Request_Args;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Window_Request_Args, num_regions);

typedef XLA_FFI_Error* XLA_FFI_Window_Request(
    const XLA_FFI_Collectives_Extension* self,
    XLA_FFI_Window_Request_Args* args);

/* INITIALIZE or EXECUTE: the window holding `buffer`, and the byte offset of
 * `buffer` within it. */
typedef struct XLA_FFI_Window_Get_Args {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_CollectiveGroupMode group_mode;
  const XLA_FFI_ReplicaGroup* groups;
  size_t num_groups;
  int64_t communication_id;
  const void* buffer;     /* in */
  XLA_FFI_Window* window; /* out */
  size_t window_offset;   /* out */
} XLA_FFI_Window_Get_Args;
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Window_Get_Args, window_offset);

typedef XLA_FFI_Error* XLA_FFI_Window_Get(
    const XLA_FFI_Collectives_Extension* self, XLA_FFI_Window_Get_Args* args);

struct XLA_FFI_Collectives_Extension {
  XLA_FFI_Extension extension_base;
  XLA_FFI_CollectivesState* state;
  XLA_FFI_Communicator_Request* request_communicator;
  XLA_FFI_Communicator_Get* get_communicator;
  XLA_FFI_Window_Request* request_window;
  XLA_FFI_Window_Get* get_window;
};
XLA_FFI_DEFINE_STRUCT_TRAITS(XLA_FFI_Collectives_Extension, get_window);

/* ------------------------------------------------------------------------ */
/* xffi's host backend. XLA never produces these: they are what the opaque  */
/* handles point at when the extension comes from xffi's runtime.           */
/* ------------------------------------------------------------------------ */

/* A clique as this device sees it. On xffi's host runtime num_ranks is 1. */
typedef struct XFFI_HostCommunicator {
  size_t struct_size;
  int64_t rank;              /* this device's position in device_ids */
  int64_t num_ranks;         /* the clique's size */
  const int64_t* device_ids; /* the clique's global device ids, sorted */
} XFFI_HostCommunicator;
XLA_FFI_DEFINE_STRUCT_TRAITS(XFFI_HostCommunicator, device_ids);

/* A registered region; with one rank its local memory is the region. */
typedef struct XFFI_HostWindow {
  size_t struct_size;
  const void* base;
  size_t byte_size;
  uint64_t flags;
} XFFI_HostWindow;
XLA_FFI_DEFINE_STRUCT_TRAITS(XFFI_HostWindow, flags);

#ifdef __cplusplus
}
#endif

#endif /* XFFI_COLLECTIVES_C_API_H_ */
