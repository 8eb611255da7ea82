// The API entry points that query a handler's invoke context: user data,
// state, stream, device memory, thread pool, run id, device ordinal,
// extensions and custom options.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/api_internal.h"
#include "xffi/runtime/command_buffer.h"
#include "xffi/runtime/thread_pool.h"
#include "xffi/runtime/types.h"

namespace xffi::internal {
namespace {

// The State_* layouts that predate the stage field (see c_api.h).
struct StateArgsWithoutStage {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
};
struct StateSetArgsWithDeleter {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_InvokeContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
  void (*deleter)(void*);
};
constexpr size_t kStateArgsWithoutStageSize =
    XLA_FFI_STRUCT_SIZE(StateArgsWithoutStage, state);
constexpr size_t kStateSetArgsWithDeleterSize =
    XLA_FFI_STRUCT_SIZE(StateSetArgsWithDeleter, deleter);
static_assert(kStateArgsWithoutStageSize == 40);
static_assert(kStateSetArgsWithDeleterSize == 48);
static_assert(offsetof(StateArgsWithoutStage, ctx) ==
              offsetof(XLA_FFI_State_Set_Args, ctx));

// " (handler 'name')" when the call has a name, for error messages.
std::string InHandler(const XLA_FFI_InvokeContext* ctx) {
  if (ctx->target_name.empty()) return "";
  return " (handler '" + std::string(ctx->target_name) + "')";
}

// Runs the checks shared by every query: args, struct size, context.
template <typename Args>
Status CheckQuery(const char* function, const char* struct_name,
                  const Args* args, size_t required) {
  if (Status s = CheckArgs(function, struct_name, args, required); !s.ok()) {
    return s;
  }
  return CheckContext(function, args->ctx);
}

// The stage as the caller wrote it. Read as an integer: a value outside the
// enum's range must be reported, and loading it as the enum would be
// undefined behaviour.
int RawStage(const XLA_FFI_ExecutionStage* field) {
  int32_t raw;
  static_assert(sizeof(XLA_FFI_ExecutionStage) == sizeof(raw));
  std::memcpy(&raw, field, sizeof(raw));
  return raw;
}

Status CheckStage(int stage) {
  if (stage >= XLA_FFI_ExecutionStage_INSTANTIATE &&
      stage <= XLA_FFI_ExecutionStage_RECORD) {
    return Status::Ok();
  }
  return InvalidArgument("unknown execution stage " + std::to_string(stage));
}

Status WithPrefix(const char* function, const XLA_FFI_InvokeContext* ctx,
                  const Status& status) {
  return Status(status.code(), std::string(function) + InHandler(ctx) + ": " +
                                   status.message());
}

bool IsPowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

XLA_FFI_Error* InvokeContextGet(XLA_FFI_InvokeContext_Get_Args* args) {
  constexpr const char* kFn = "XLA_FFI_InvokeContext_Get";
  if (Status s = CheckQuery(kFn, "XLA_FFI_InvokeContext_Get_Args", args,
                            XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  if (args->type_id == nullptr) {
    return MakeError(InvalidArgument(std::string(kFn) + InHandler(args->ctx) +
                                     ": type_id is null"));
  }
  StatusOr<void*> data = args->ctx->context->LookupUserData(*args->type_id);
  if (!data.ok()) return MakeError(WithPrefix(kFn, args->ctx, data.status()));
  args->data = *data;
  return nullptr;
}

// 40 bytes: the stage-less layout, meaning INSTANTIATE. 48 bytes: the
// staged layout, or for a handler that reported 0.1/0.2 the layout that
// carried its own deleter.
XLA_FFI_Error* StateSet(XLA_FFI_State_Set_Args* args) {
  constexpr const char* kFn = "XLA_FFI_State_Set";
  if (Status s = CheckQuery(kFn, "XLA_FFI_State_Set_Args", args,
                            kStateArgsWithoutStageSize);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  XLA_FFI_InvokeContext* ctx = args->ctx;
  int stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  XLA_FFI_TypeId* type_id = nullptr;
  void* state = nullptr;
  void (*deleter)(void*) = nullptr;
  if (args->struct_size < XLA_FFI_State_Set_Args_STRUCT_SIZE) {
    auto* old = reinterpret_cast<StateArgsWithoutStage*>(args);
    type_id = old->type_id;
    state = old->state;
  } else if (ctx->handler_api_minor <= 2) {
    auto* old = reinterpret_cast<StateSetArgsWithDeleter*>(args);
    type_id = old->type_id;
    state = old->state;
    deleter = old->deleter;
  } else {
    stage = RawStage(&args->stage);
    type_id = args->type_id;
    state = args->state;
  }
  if (Status s = CheckStage(stage); !s.ok()) {
    return MakeError(WithPrefix(kFn, ctx, s));
  }
  if (type_id == nullptr) {
    return MakeError(InvalidArgument(std::string(kFn) + InHandler(ctx) +
                                     ": type_id is null"));
  }
  if (ctx->state == nullptr) {
    return MakeError(FailedPrecondition(std::string(kFn) + InHandler(ctx) +
                                        ": the call has no call-site state"));
  }
  return MakeError(
      WithPrefix(kFn, ctx,
                 ctx->state->Set(static_cast<XLA_FFI_ExecutionStage>(stage),
                                 *type_id, state, deleter)));
}

XLA_FFI_Error* StateGet(XLA_FFI_State_Get_Args* args) {
  constexpr const char* kFn = "XLA_FFI_State_Get";
  if (Status s = CheckQuery(kFn, "XLA_FFI_State_Get_Args", args,
                            kStateArgsWithoutStageSize);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  XLA_FFI_InvokeContext* ctx = args->ctx;
  const bool staged = args->struct_size >= XLA_FFI_State_Get_Args_STRUCT_SIZE;
  auto* old = reinterpret_cast<StateArgsWithoutStage*>(args);
  int stage =
      staged ? RawStage(&args->stage) : XLA_FFI_ExecutionStage_INSTANTIATE;
  XLA_FFI_TypeId* type_id = staged ? args->type_id : old->type_id;
  if (Status s = CheckStage(stage); !s.ok()) {
    return MakeError(WithPrefix(kFn, ctx, s));
  }
  if (type_id == nullptr) {
    return MakeError(InvalidArgument(std::string(kFn) + InHandler(ctx) +
                                     ": type_id is null"));
  }
  if (ctx->state == nullptr) {
    return MakeError(NotFound(std::string(kFn) + InHandler(ctx) +
                              ": the call has no call-site state"));
  }
  StatusOr<void*> state =
      ctx->state->Get(static_cast<XLA_FFI_ExecutionStage>(stage), *type_id);
  if (!state.ok()) return MakeError(WithPrefix(kFn, ctx, state.status()));
  if (staged) {
    args->state = *state;
  } else {
    old->state = *state;
  }
  return nullptr;
}

XLA_FFI_Error* StreamGet(XLA_FFI_Stream_Get_Args* args) {
  constexpr const char* kFn = "XLA_FFI_Stream_Get";
  if (Status s = CheckQuery(kFn, "XLA_FFI_Stream_Get_Args", args,
                            XLA_FFI_Stream_Get_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  const ExecutionContext& context = *args->ctx->context;
  if (context.platform() == Platform::kHost) {
    return MakeError(Unimplemented(
        std::string(kFn) + InHandler(args->ctx) +
        ": platform Host has no streams; a handler that needs a stream must "
        "be registered for a device platform such as CUDA"));
  }
  if (context.stream() == nullptr) {
    return MakeError(FailedPrecondition(
        std::string(kFn) + InHandler(args->ctx) + ": platform " +
        std::string(PlatformName(context.platform())) +
        ": the execution context has no stream"));
  }
  args->stream = context.stream();
  return nullptr;
}

XLA_FFI_Error* DeviceMemoryAllocate(XLA_FFI_DeviceMemory_Allocate_Args* args) {
  constexpr const char* kFn = "XLA_FFI_DeviceMemory_Allocate";
  if (Status s = CheckQuery(kFn, "XLA_FFI_DeviceMemory_Allocate_Args", args,
                            XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  const ExecutionContext& context = *args->ctx->context;
  const std::string where = std::string(kFn) + InHandler(args->ctx);
  if (context.platform() == Platform::kHost) {
    return MakeError(Unimplemented(
        where +
        ": platform Host has no device memory; allocate host memory "
        "directly"));
  }
  if (!IsPowerOfTwo(args->alignment)) {
    return MakeError(InvalidArgument(where + ": alignment " +
                                     std::to_string(args->alignment) +
                                     " is not a power of two"));
  }
  if (context.stream() == nullptr) {
    return MakeError(FailedPrecondition(
        where + ": platform " + std::string(PlatformName(context.platform())) +
        ": the execution context has no stream"));
  }
  if (context.device_allocator() == nullptr) {
    return MakeError(FailedPrecondition(
        where + ": platform " + std::string(PlatformName(context.platform())) +
        ": the execution context has no device allocator"));
  }
  StatusOr<void*> data =
      context.device_allocator()->Allocate(args->size, args->alignment);
  if (!data.ok()) return MakeError(WithPrefix(kFn, args->ctx, data.status()));
  args->data = *data;
  return nullptr;
}

XLA_FFI_Error* DeviceMemoryFree(XLA_FFI_DeviceMemory_Free_Args* args) {
  constexpr const char* kFn = "XLA_FFI_DeviceMemory_Free";
  if (Status s = CheckQuery(kFn, "XLA_FFI_DeviceMemory_Free_Args", args,
                            XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  const ExecutionContext& context = *args->ctx->context;
  const std::string where = std::string(kFn) + InHandler(args->ctx);
  if (context.platform() == Platform::kHost) {
    return MakeError(
        Unimplemented(where + ": platform Host has no device memory"));
  }
  if (context.stream() == nullptr) {
    return MakeError(FailedPrecondition(
        where + ": platform " + std::string(PlatformName(context.platform())) +
        ": the execution context has no stream"));
  }
  if (context.device_allocator() == nullptr) {
    return MakeError(FailedPrecondition(
        where + ": platform " + std::string(PlatformName(context.platform())) +
        ": the execution context has no device allocator"));
  }
  return MakeError(
      WithPrefix(kFn, args->ctx,
                 context.device_allocator()->Free(args->data, args->size)));
}

XLA_FFI_Error* ThreadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args* args) {
  constexpr const char* kFn = "XLA_FFI_ThreadPool_Schedule";
  if (Status s = CheckQuery(kFn, "XLA_FFI_ThreadPool_Schedule_Args", args,
                            XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  if (args->task == nullptr) {
    return MakeError(InvalidArgument(std::string(kFn) + InHandler(args->ctx) +
                                     ": task is null"));
  }
  ThreadPool* pool = args->ctx->context->thread_pool();
  if (pool == nullptr) {
    return MakeError(Unimplemented(std::string(kFn) + InHandler(args->ctx) +
                                   ": the execution context has no thread "
                                   "pool"));
  }
  XLA_FFI_Task* task = args->task;
  void* data = args->data;
  pool->Schedule([task, data] { task(data); });
  return nullptr;
}

XLA_FFI_Error* ThreadPoolNumThreads(XLA_FFI_ThreadPool_NumThreads_Args* args) {
  constexpr const char* kFn = "XLA_FFI_ThreadPool_NumThreads";
  if (Status s = CheckQuery(kFn, "XLA_FFI_ThreadPool_NumThreads_Args", args,
                            XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  if (args->num_threads == nullptr) {
    return MakeError(InvalidArgument(std::string(kFn) + InHandler(args->ctx) +
                                     ": num_threads is null"));
  }
  ThreadPool* pool = args->ctx->context->thread_pool();
  if (pool == nullptr) {
    return MakeError(Unimplemented(std::string(kFn) + InHandler(args->ctx) +
                                   ": the execution context has no thread "
                                   "pool"));
  }
  *args->num_threads = pool->num_threads();
  return nullptr;
}

XLA_FFI_Error* RunIdGet(XLA_FFI_RunId_Get_Args* args) {
  if (Status s = CheckQuery("XLA_FFI_RunId_Get", "XLA_FFI_RunId_Get_Args", args,
                            XLA_FFI_RunId_Get_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  args->run_id = args->ctx->context->run_id();
  return nullptr;
}

XLA_FFI_Error* DeviceOrdinalGet(XLA_FFI_DeviceOrdinal_Get_Args* args) {
  if (Status s = CheckQuery("XLA_FFI_DeviceOrdinal_Get",
                            "XLA_FFI_DeviceOrdinal_Get_Args", args,
                            XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  args->device_ordinal = args->ctx->context->device_ordinal();
  return nullptr;
}

XLA_FFI_Error* InvokeContextFindExtension(
    XLA_FFI_InvokeContext_FindExtension_Args* args) {
  if (Status s =
          CheckQuery("XLA_FFI_InvokeContext_FindExtension",
                     "XLA_FFI_InvokeContext_FindExtension_Args", args,
                     XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  XLA_FFI_InvokeContext* ctx = args->ctx;
  // Extensions attached to the context win: a test or an embedder may
  // stand in for the runtime's own.
  args->extension = ctx->context->FindExtension(args->extension_type);
  if (args->extension != nullptr) return nullptr;
  if (args->extension_type == XLA_FFI_Extension_Collectives &&
      ctx->context->collectives() != nullptr) {
    int64_t device = std::max<int64_t>(ctx->context->device_ordinal(), 0);
    args->extension =
        ctx->context->collectives()->Bind(ctx->stage, device, ctx->collectives);
  } else if (args->extension_type == XLA_FFI_Extension_Record &&
             ctx->stage == XLA_FFI_ExecutionStage_RECORD) {
    if (!ctx->record_bound) {
      ctx->record_bound = true;
      ctx->record.extension_base = XLA_FFI_Extension{
          sizeof(XLA_FFI_Record_Extension),
          XLA_FFI_ExtensionId{XLA_FFI_Extension_Record,
                              XLA_FFI_Extension_Record_MajorVersion,
                              XLA_FFI_Extension_Record_MinorVersion},
          nullptr};
      ctx->record.record_frame = ctx->state->command_buffer().BeginRecording();
    }
    args->extension = &ctx->record.extension_base;
  }
  return nullptr;
}

XLA_FFI_Error* CustomOptionsGet(XLA_FFI_CustomOptions_Get_Args* args) {
  if (Status s = CheckQuery("XLA_FFI_CustomOptions_Get",
                            "XLA_FFI_CustomOptions_Get_Args", args,
                            XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE);
      !s.ok()) {
    return MakeError(std::move(s));
  }
  static const XLA_FFI_Attrs kEmpty = {
      XLA_FFI_Attrs_STRUCT_SIZE, nullptr, 0, nullptr, nullptr, nullptr};
  const XLA_FFI_Attrs* options = args->ctx->context->custom_options();
  args->attrs = options ? options : &kEmpty;
  return nullptr;
}

}  // namespace xffi::internal
