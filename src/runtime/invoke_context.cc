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

bool IsPowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// A device platform's stream, or why the context has none.
Status CheckStream(const ExecutionContext& context) {
  if (context.stream() != nullptr) return Status::Ok();
  return FailedPrecondition("platform " +
                            std::string(PlatformName(context.platform())) +
                            ": the execution context has no stream");
}

// A device platform's stream and allocator, or why the context lacks one.
Status CheckDeviceAllocator(const ExecutionContext& context) {
  if (Status s = CheckStream(context); !s.ok()) return s;
  if (context.device_allocator() != nullptr) return Status::Ok();
  return FailedPrecondition("platform " +
                            std::string(PlatformName(context.platform())) +
                            ": the execution context has no device allocator");
}

StatusOr<ThreadPool*> PoolOf(const XLA_FFI_InvokeContext* ctx) {
  ThreadPool* pool = ctx->context->thread_pool();
  if (pool == nullptr)
    return Unimplemented("the execution context has no thread pool");
  return pool;
}

}  // namespace

XLA_FFI_Error* InvokeContextGet(XLA_FFI_InvokeContext_Get_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_InvokeContext_Get", "XLA_FFI_InvokeContext_Get_Args", args,
      XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE,
      [](XLA_FFI_InvokeContext_Get_Args& a) -> Status {
        if (a.type_id == nullptr) return InvalidArgument("type_id is null");
        StatusOr<void*> data = a.ctx->context->LookupUserData(*a.type_id);
        if (!data.ok()) return data.status();
        a.data = *data;
        return Status::Ok();
      });
}

// 40 bytes: the stage-less layout, meaning INSTANTIATE. 48 bytes: the
// staged layout, or for a handler that reported 0.1/0.2 the layout that
// carried its own deleter.
XLA_FFI_Error* StateSet(XLA_FFI_State_Set_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_State_Set", "XLA_FFI_State_Set_Args", args,
      kStateArgsWithoutStageSize, [](XLA_FFI_State_Set_Args& a) -> Status {
        XLA_FFI_InvokeContext* ctx = a.ctx;
        int stage = XLA_FFI_ExecutionStage_INSTANTIATE;
        XLA_FFI_TypeId* type_id = nullptr;
        void* state = nullptr;
        void (*deleter)(void*) = nullptr;
        if (a.struct_size < XLA_FFI_State_Set_Args_STRUCT_SIZE) {
          auto* old = reinterpret_cast<StateArgsWithoutStage*>(&a);
          type_id = old->type_id;
          state = old->state;
        } else if (ctx->handler_api_minor <= 2) {
          auto* old = reinterpret_cast<StateSetArgsWithDeleter*>(&a);
          type_id = old->type_id;
          state = old->state;
          deleter = old->deleter;
        } else {
          stage = RawStage(&a.stage);
          type_id = a.type_id;
          state = a.state;
        }
        if (Status s = CheckStage(stage); !s.ok()) return s;
        if (type_id == nullptr) return InvalidArgument("type_id is null");
        if (ctx->state == nullptr)
          return FailedPrecondition("the call has no call-site state");
        return ctx->state->Set(static_cast<XLA_FFI_ExecutionStage>(stage),
                               *type_id, state, deleter);
      });
}

XLA_FFI_Error* StateGet(XLA_FFI_State_Get_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_State_Get", "XLA_FFI_State_Get_Args", args,
      kStateArgsWithoutStageSize, [](XLA_FFI_State_Get_Args& a) -> Status {
        XLA_FFI_InvokeContext* ctx = a.ctx;
        const bool staged = a.struct_size >= XLA_FFI_State_Get_Args_STRUCT_SIZE;
        auto* old = reinterpret_cast<StateArgsWithoutStage*>(&a);
        int stage =
            staged ? RawStage(&a.stage) : XLA_FFI_ExecutionStage_INSTANTIATE;
        XLA_FFI_TypeId* type_id = staged ? a.type_id : old->type_id;
        if (Status s = CheckStage(stage); !s.ok()) return s;
        if (type_id == nullptr) return InvalidArgument("type_id is null");
        if (ctx->state == nullptr)
          return NotFound("the call has no call-site state");
        StatusOr<void*> state = ctx->state->Get(
            static_cast<XLA_FFI_ExecutionStage>(stage), *type_id);
        if (!state.ok()) return state.status();
        if (staged) {
          a.state = *state;
        } else {
          old->state = *state;
        }
        return Status::Ok();
      });
}

XLA_FFI_Error* StreamGet(XLA_FFI_Stream_Get_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_Stream_Get", "XLA_FFI_Stream_Get_Args", args,
      XLA_FFI_Stream_Get_Args_STRUCT_SIZE,
      [](XLA_FFI_Stream_Get_Args& a) -> Status {
        const ExecutionContext& context = *a.ctx->context;
        if (context.platform() == Platform::kHost)
          return Unimplemented(
              "platform Host has no streams; a handler that needs a stream "
              "must be registered for a device platform such as CUDA");
        if (Status s = CheckStream(context); !s.ok()) return s;
        a.stream = context.stream();
        return Status::Ok();
      });
}

XLA_FFI_Error* DeviceMemoryAllocate(XLA_FFI_DeviceMemory_Allocate_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_DeviceMemory_Allocate", "XLA_FFI_DeviceMemory_Allocate_Args",
      args, XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE,
      [](XLA_FFI_DeviceMemory_Allocate_Args& a) -> Status {
        const ExecutionContext& context = *a.ctx->context;
        if (context.platform() == Platform::kHost)
          return Unimplemented(
              "platform Host has no device memory; allocate host memory "
              "directly");
        if (!IsPowerOfTwo(a.alignment))
          return InvalidArgument("alignment " + std::to_string(a.alignment) +
                                 " is not a power of two");
        if (Status s = CheckDeviceAllocator(context); !s.ok()) return s;
        StatusOr<void*> data =
            context.device_allocator()->Allocate(a.size, a.alignment);
        if (!data.ok()) return data.status();
        a.data = *data;
        return Status::Ok();
      });
}

XLA_FFI_Error* DeviceMemoryFree(XLA_FFI_DeviceMemory_Free_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_DeviceMemory_Free", "XLA_FFI_DeviceMemory_Free_Args", args,
      XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE,
      [](XLA_FFI_DeviceMemory_Free_Args& a) -> Status {
        const ExecutionContext& context = *a.ctx->context;
        if (context.platform() == Platform::kHost)
          return Unimplemented("platform Host has no device memory");
        if (Status s = CheckDeviceAllocator(context); !s.ok()) return s;
        return context.device_allocator()->Free(a.data, a.size);
      });
}

XLA_FFI_Error* ThreadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args* args) {
  return RunEntryPoint("XLA_FFI_ThreadPool_Schedule",
                       "XLA_FFI_ThreadPool_Schedule_Args", args,
                       XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE,
                       [](XLA_FFI_ThreadPool_Schedule_Args& a) -> Status {
                         if (a.task == nullptr)
                           return InvalidArgument("task is null");
                         StatusOr<ThreadPool*> pool = PoolOf(a.ctx);
                         if (!pool.ok()) return pool.status();
                         XLA_FFI_Task* task = a.task;
                         void* data = a.data;
                         (*pool)->Schedule([task, data] { task(data); });
                         return Status::Ok();
                       });
}

XLA_FFI_Error* ThreadPoolNumThreads(XLA_FFI_ThreadPool_NumThreads_Args* args) {
  return RunEntryPoint("XLA_FFI_ThreadPool_NumThreads",
                       "XLA_FFI_ThreadPool_NumThreads_Args", args,
                       XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE,
                       [](XLA_FFI_ThreadPool_NumThreads_Args& a) -> Status {
                         if (a.num_threads == nullptr)
                           return InvalidArgument("num_threads is null");
                         StatusOr<ThreadPool*> pool = PoolOf(a.ctx);
                         if (!pool.ok()) return pool.status();
                         *a.num_threads = (*pool)->num_threads();
                         return Status::Ok();
                       });
}

XLA_FFI_Error* RunIdGet(XLA_FFI_RunId_Get_Args* args) {
  return RunEntryPoint("XLA_FFI_RunId_Get", "XLA_FFI_RunId_Get_Args", args,
                       XLA_FFI_RunId_Get_Args_STRUCT_SIZE,
                       [](XLA_FFI_RunId_Get_Args& a) {
                         a.run_id = a.ctx->context->run_id();
                         return Status::Ok();
                       });
}

XLA_FFI_Error* DeviceOrdinalGet(XLA_FFI_DeviceOrdinal_Get_Args* args) {
  return RunEntryPoint("XLA_FFI_DeviceOrdinal_Get",
                       "XLA_FFI_DeviceOrdinal_Get_Args", args,
                       XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE,
                       [](XLA_FFI_DeviceOrdinal_Get_Args& a) {
                         a.device_ordinal = a.ctx->context->device_ordinal();
                         return Status::Ok();
                       });
}

XLA_FFI_Error* InvokeContextFindExtension(
    XLA_FFI_InvokeContext_FindExtension_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_InvokeContext_FindExtension",
      "XLA_FFI_InvokeContext_FindExtension_Args", args,
      XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE,
      [](XLA_FFI_InvokeContext_FindExtension_Args& a) {
        XLA_FFI_InvokeContext* ctx = a.ctx;
        // Extensions attached to the context win: a test or an embedder may
        // stand in for the runtime's own.
        a.extension = ctx->context->FindExtension(a.extension_type);
        if (a.extension != nullptr) return Status::Ok();
        if (a.extension_type == XLA_FFI_Extension_Collectives &&
            ctx->context->collectives() != nullptr) {
          int64_t device = std::max<int64_t>(ctx->context->device_ordinal(), 0);
          a.extension = ctx->context->collectives()->Bind(ctx->stage, device,
                                                          ctx->collectives);
        } else if (a.extension_type == XLA_FFI_Extension_Record &&
                   ctx->stage == XLA_FFI_ExecutionStage_RECORD &&
                   ctx->state != nullptr) {
          if (!ctx->record_bound) {
            ctx->record_bound = true;
            ctx->record.extension_base = XLA_FFI_Extension{
                sizeof(XLA_FFI_Record_Extension),
                XLA_FFI_ExtensionId{XLA_FFI_Extension_Record,
                                    XLA_FFI_Extension_Record_MajorVersion,
                                    XLA_FFI_Extension_Record_MinorVersion},
                nullptr};
            ctx->record.record_frame =
                ctx->state->command_buffer().BeginRecording();
          }
          a.extension = &ctx->record.extension_base;
        }
        return Status::Ok();
      });
}

XLA_FFI_Error* CustomOptionsGet(XLA_FFI_CustomOptions_Get_Args* args) {
  return RunEntryPoint(
      "XLA_FFI_CustomOptions_Get", "XLA_FFI_CustomOptions_Get_Args", args,
      XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE,
      [](XLA_FFI_CustomOptions_Get_Args& a) {
        static const XLA_FFI_Attrs kEmpty = {
            XLA_FFI_Attrs_STRUCT_SIZE, nullptr, 0, nullptr, nullptr, nullptr};
        const XLA_FFI_Attrs* options = a.ctx->context->custom_options();
        a.attrs = options ? options : &kEmpty;
        return Status::Ok();
      });
}

}  // namespace xffi::internal
