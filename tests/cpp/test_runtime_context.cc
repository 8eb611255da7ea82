// The invoke-context queries: user data, stream, device memory, thread pool,
// run id, device ordinal, extensions, custom options; and argument checks of
// every entry point.
#include "xffi/runtime/context.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/call.h"
#include "xffi/runtime/thread_pool.h"
#include "xffi/runtime/types.h"

namespace {

using ::testing::HasSubstr;

const XLA_FFI_Api* Api() { return xffi::GetApi(); }

// Reads and destroys an error; "" for none.
struct Outcome {
  XLA_FFI_Error_Code code = XLA_FFI_Error_Code_OK;
  std::string message;
};
Outcome Take(XLA_FFI_Error* error) {
  if (error == nullptr) return {};
  XLA_FFI_Error_GetDetails_Args args{};
  args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  args.error = error;
  Api()->XLA_FFI_Error_GetDetails(&args);
  Outcome outcome{args.errc, args.message};
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  Api()->XLA_FFI_Error_Destroy(&destroy);
  return outcome;
}

// Runs `body` as a handler called by the runtime, with its invoke context.
std::function<void(XLA_FFI_InvokeContext*)> body;
XLA_FFI_Error* Probe(XLA_FFI_CallFrame* frame) {
  body(frame->ctx);
  return nullptr;
}
void RunInHandler(xffi::ExecutionContext* context,
                  std::function<void(XLA_FFI_InvokeContext*)> fn,
                  std::string_view name = "probe") {
  body = std::move(fn);
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  xffi::CallOptions options;
  options.context = context;
  options.target_name = name;
  xffi::CallResult result = xffi::CallHandler(Probe, &frame, options);
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
}

// ------------------------------------------------------------- user data

struct Counter {
  static int deleted;
  int value = 0;
};
int Counter::deleted = 0;
void DeleteCounter(void* p) {
  ++Counter::deleted;
  delete static_cast<Counter*>(p);
}

TEST(RuntimeContext, UserDataByTypeId) {
  XLA_FFI_TypeId id =
      *xffi::RegisterType("ctx.Counter", XLA_FFI_TypeId{0}, nullptr);
  XLA_FFI_TypeId absent =
      *xffi::RegisterType("ctx.Absent", XLA_FFI_TypeId{0}, nullptr);
  Counter::deleted = 0;
  {
    xffi::ExecutionContext context;
    auto* counter = new Counter{41};
    ASSERT_TRUE(context.InsertUserData(id, counter, DeleteCounter).ok());
    xffi::Status dup = context.InsertUserData(id, counter);
    EXPECT_EQ(dup.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
    EXPECT_THAT(dup.message(), HasSubstr("'ctx.Counter'"));
    xffi::Status zero = context.InsertUserData(XLA_FFI_TypeId{0}, counter);
    EXPECT_EQ(zero.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);

    RunInHandler(&context, [&](XLA_FFI_InvokeContext* ctx) {
      XLA_FFI_InvokeContext_Get_Args args{};
      args.struct_size = XLA_FFI_InvokeContext_Get_Args_STRUCT_SIZE;
      args.ctx = ctx;
      args.type_id = &id;
      EXPECT_EQ(Take(Api()->XLA_FFI_InvokeContext_Get(&args)).message, "");
      EXPECT_EQ(args.data, counter);
      static_cast<Counter*>(args.data)->value++;

      args.type_id = &absent;
      args.data = nullptr;
      Outcome missing = Take(Api()->XLA_FFI_InvokeContext_Get(&args));
      EXPECT_EQ(missing.code, XLA_FFI_Error_Code_NOT_FOUND);
      EXPECT_EQ(missing.message,
                "XLA_FFI_InvokeContext_Get (handler 'probe'): no user data of "
                "type 'ctx.Absent' (id " +
                    std::to_string(absent.type_id) +
                    ") in the execution context");

      args.type_id = nullptr;
      Outcome null_id = Take(Api()->XLA_FFI_InvokeContext_Get(&args));
      EXPECT_EQ(null_id.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
      EXPECT_EQ(null_id.message,
                "XLA_FFI_InvokeContext_Get (handler 'probe'): type_id is null");
    });
    EXPECT_EQ(counter->value, 42);
    EXPECT_EQ(Counter::deleted, 0);
  }
  EXPECT_EQ(Counter::deleted, 1);  // the context owned it
}

TEST(RuntimeContext, AdoptedUserDataUsesTheTypesDeleter) {
  static XLA_FFI_TypeInfo info{XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr,
                               DeleteCounter};
  XLA_FFI_TypeId owned =
      *xffi::RegisterType("ctx.OwnedCounter", XLA_FFI_TypeId{0}, &info);
  XLA_FFI_TypeId plain =
      *xffi::RegisterType("ctx.PlainCounter", XLA_FFI_TypeId{0}, nullptr);
  Counter::deleted = 0;
  {
    xffi::ExecutionContext context;
    ASSERT_TRUE(context.AdoptUserData(owned, new Counter{1}).ok());
    Counter kept;
    xffi::Status refused = context.AdoptUserData(plain, &kept);
    EXPECT_EQ(refused.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
    EXPECT_EQ(refused.message(),
              "cannot adopt user data of type 'ctx.PlainCounter' (id " +
                  std::to_string(plain.type_id) +
                  "): the type registered no deleter");
  }
  EXPECT_EQ(Counter::deleted, 1);
}

TEST(RuntimeContext, DefaultContextHasNoUserData) {
  XLA_FFI_TypeId id =
      *xffi::RegisterType("ctx.Unset", XLA_FFI_TypeId{0}, nullptr);
  RunInHandler(nullptr, [&](XLA_FFI_InvokeContext* ctx) {
    XLA_FFI_ExecutionContext_Get_Args args{};
    args.struct_size = XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE;
    args.ctx = ctx;
    args.type_id = &id;
    EXPECT_EQ(Take(Api()->XLA_FFI_ExecutionContext_Get(&args)).code,
              XLA_FFI_Error_Code_NOT_FOUND);
  });
}

// ------------------------------------------------------- stream and memory

class FakeAllocator : public xffi::DeviceAllocator {
 public:
  xffi::StatusOr<void*> Allocate(size_t size, size_t alignment) override {
    last_size = size;
    last_alignment = alignment;
    return static_cast<void*>(storage);
  }
  xffi::Status Free(void* data, size_t size) override {
    freed = data;
    freed_size = size;
    return xffi::Status::Ok();
  }
  alignas(64) char storage[64];
  size_t last_size = 0, last_alignment = 0, freed_size = 0;
  void* freed = nullptr;
};

Outcome GetStream(XLA_FFI_InvokeContext* ctx, void** stream) {
  XLA_FFI_Stream_Get_Args args{};
  args.struct_size = XLA_FFI_Stream_Get_Args_STRUCT_SIZE;
  args.ctx = ctx;
  Outcome outcome = Take(Api()->XLA_FFI_Stream_Get(&args));
  *stream = args.stream;
  return outcome;
}
Outcome Allocate(XLA_FFI_InvokeContext* ctx, size_t size, size_t alignment,
                 void** data) {
  XLA_FFI_DeviceMemory_Allocate_Args args{};
  args.struct_size = XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE;
  args.ctx = ctx;
  args.size = size;
  args.alignment = alignment;
  Outcome outcome = Take(Api()->XLA_FFI_DeviceMemory_Allocate(&args));
  *data = args.data;
  return outcome;
}
Outcome Free(XLA_FFI_InvokeContext* ctx, void* data, size_t size) {
  XLA_FFI_DeviceMemory_Free_Args args{};
  args.struct_size = XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE;
  args.ctx = ctx;
  args.size = size;
  args.data = data;
  return Take(Api()->XLA_FFI_DeviceMemory_Free(&args));
}

TEST(RuntimeContext, HostHasNoStreamOrDeviceMemory) {
  xffi::ExecutionContext host;
  RunInHandler(&host, [](XLA_FFI_InvokeContext* ctx) {
    void* p = nullptr;
    Outcome stream = GetStream(ctx, &p);
    EXPECT_EQ(stream.code, XLA_FFI_Error_Code_UNIMPLEMENTED);
    EXPECT_EQ(stream.message,
              "XLA_FFI_Stream_Get (handler 'probe'): platform Host has no "
              "streams; a handler that needs a stream must be registered for "
              "a device platform such as CUDA");
    Outcome alloc = Allocate(ctx, 16, 8, &p);
    EXPECT_EQ(alloc.code, XLA_FFI_Error_Code_UNIMPLEMENTED);
    EXPECT_THAT(alloc.message, HasSubstr("platform Host has no device memory"));
    Outcome free = Free(ctx, nullptr, 16);
    EXPECT_EQ(free.code, XLA_FFI_Error_Code_UNIMPLEMENTED);
    EXPECT_THAT(free.message, HasSubstr("platform Host has no device memory"));
  });
}

TEST(RuntimeContext, CudaWithoutStream) {
  xffi::ExecutionContext cuda(xffi::Platform::kCuda);
  RunInHandler(&cuda, [](XLA_FFI_InvokeContext* ctx) {
    void* p = nullptr;
    Outcome stream = GetStream(ctx, &p);
    EXPECT_EQ(stream.code, XLA_FFI_Error_Code_FAILED_PRECONDITION);
    EXPECT_EQ(stream.message,
              "XLA_FFI_Stream_Get (handler 'probe'): platform CUDA: the "
              "execution context has no stream");
    Outcome alloc = Allocate(ctx, 16, 8, &p);
    EXPECT_EQ(alloc.code, XLA_FFI_Error_Code_FAILED_PRECONDITION);
    EXPECT_THAT(alloc.message, HasSubstr("no stream"));
    EXPECT_EQ(Free(ctx, nullptr, 0).code,
              XLA_FFI_Error_Code_FAILED_PRECONDITION);
  });
}

TEST(RuntimeContext, CudaStreamAndAllocator) {
  int fake_stream = 0;
  FakeAllocator allocator;
  xffi::ExecutionContext cuda(xffi::Platform::kCuda);
  cuda.set_stream(&fake_stream);
  RunInHandler(&cuda, [&](XLA_FFI_InvokeContext* ctx) {
    void* p = nullptr;
    EXPECT_EQ(GetStream(ctx, &p).code, XLA_FFI_Error_Code_OK);
    EXPECT_EQ(p, &fake_stream);
    Outcome no_allocator = Allocate(ctx, 16, 8, &p);
    EXPECT_EQ(no_allocator.code, XLA_FFI_Error_Code_FAILED_PRECONDITION);
    EXPECT_THAT(no_allocator.message, HasSubstr("no device allocator"));
  });
  cuda.set_device_allocator(&allocator);
  RunInHandler(&cuda, [&](XLA_FFI_InvokeContext* ctx) {
    void* p = nullptr;
    EXPECT_EQ(Allocate(ctx, 48, 16, &p).code, XLA_FFI_Error_Code_OK);
    EXPECT_EQ(p, allocator.storage);
    EXPECT_EQ(allocator.last_size, 48u);
    EXPECT_EQ(allocator.last_alignment, 16u);
    EXPECT_EQ(Free(ctx, p, 48).code, XLA_FFI_Error_Code_OK);
    EXPECT_EQ(allocator.freed, allocator.storage);
    EXPECT_EQ(allocator.freed_size, 48u);
    Outcome bad_alignment = Allocate(ctx, 48, 12, &p);
    EXPECT_EQ(bad_alignment.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_EQ(bad_alignment.message,
              "XLA_FFI_DeviceMemory_Allocate (handler 'probe'): alignment 12 "
              "is not a power of two");
  });
}

// ------------------------------------------------------------ thread pool

void Increment(void* data) { ++*static_cast<std::atomic<int>*>(data); }

TEST(RuntimeContext, ThreadPool) {
  xffi::ExecutionContext without;
  RunInHandler(&without, [](XLA_FFI_InvokeContext* ctx) {
    XLA_FFI_ThreadPool_NumThreads_Args n{};
    int64_t count = -1;
    n.struct_size = XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE;
    n.ctx = ctx;
    n.num_threads = &count;
    Outcome none = Take(Api()->XLA_FFI_ThreadPool_NumThreads(&n));
    EXPECT_EQ(none.code, XLA_FFI_Error_Code_UNIMPLEMENTED);
    EXPECT_EQ(none.message,
              "XLA_FFI_ThreadPool_NumThreads (handler 'probe'): the execution "
              "context has no thread pool");
    XLA_FFI_ThreadPool_Schedule_Args s{};
    s.struct_size = XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE;
    s.ctx = ctx;
    s.task = Increment;
    EXPECT_EQ(Take(Api()->XLA_FFI_ThreadPool_Schedule(&s)).code,
              XLA_FFI_Error_Code_UNIMPLEMENTED);
  });

  std::atomic<int> done{0};
  {
    xffi::ThreadPool pool(3);
    EXPECT_EQ(pool.num_threads(), 3);
    xffi::ExecutionContext with;
    with.set_thread_pool(&pool);
    RunInHandler(&with, [&](XLA_FFI_InvokeContext* ctx) {
      XLA_FFI_ThreadPool_NumThreads_Args n{};
      int64_t count = -1;
      n.struct_size = XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE;
      n.ctx = ctx;
      n.num_threads = &count;
      EXPECT_EQ(Take(Api()->XLA_FFI_ThreadPool_NumThreads(&n)).code,
                XLA_FFI_Error_Code_OK);
      EXPECT_EQ(count, 3);
      n.num_threads = nullptr;
      EXPECT_EQ(Take(Api()->XLA_FFI_ThreadPool_NumThreads(&n)).code,
                XLA_FFI_Error_Code_INVALID_ARGUMENT);

      XLA_FFI_ThreadPool_Schedule_Args s{};
      s.struct_size = XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE;
      s.ctx = ctx;
      s.task = Increment;
      s.data = &done;
      for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(Take(Api()->XLA_FFI_ThreadPool_Schedule(&s)).code,
                  XLA_FFI_Error_Code_OK);
      }
      s.task = nullptr;
      Outcome null_task = Take(Api()->XLA_FFI_ThreadPool_Schedule(&s));
      EXPECT_EQ(null_task.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
      EXPECT_THAT(null_task.message, HasSubstr("task is null"));
    });
  }  // the pool drains its queue before joining
  EXPECT_EQ(done.load(), 100);
}

TEST(RuntimeContext, ThreadPoolClampsSize) {
  xffi::ThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), 1);
}

// ------------------------------------------------- run id, device ordinal

TEST(RuntimeContext, RunIdAndDeviceOrdinal) {
  xffi::ExecutionContext context;
  auto check = [&](int64_t run_id, int32_t ordinal) {
    RunInHandler(&context, [&](XLA_FFI_InvokeContext* ctx) {
      XLA_FFI_RunId_Get_Args r{};
      r.struct_size = XLA_FFI_RunId_Get_Args_STRUCT_SIZE;
      r.ctx = ctx;
      r.run_id = 777;
      EXPECT_EQ(Take(Api()->XLA_FFI_RunId_Get(&r)).code, XLA_FFI_Error_Code_OK);
      EXPECT_EQ(r.run_id, run_id);
      XLA_FFI_DeviceOrdinal_Get_Args d{};
      d.struct_size = XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE;
      d.ctx = ctx;
      d.device_ordinal = 777;
      EXPECT_EQ(Take(Api()->XLA_FFI_DeviceOrdinal_Get(&d)).code,
                XLA_FFI_Error_Code_OK);
      EXPECT_EQ(d.device_ordinal, ordinal);
    });
  };
  check(0, -1);
  context.set_run_id(12345);
  context.set_device_ordinal(2);
  check(12345, 2);
}

// ----------------------------------------- extensions and custom options

TEST(RuntimeContext, FindExtension) {
  XLA_FFI_Extension chained{
      XLA_FFI_Extension_STRUCT_SIZE, {129, 0, 1}, nullptr};
  XLA_FFI_Extension first{XLA_FFI_Extension_STRUCT_SIZE, {128, 0, 1}, &chained};
  XLA_FFI_Extension other{XLA_FFI_Extension_STRUCT_SIZE, {7, 1, 0}, nullptr};
  xffi::ExecutionContext context;
  context.AddExtension(&first);
  context.AddExtension(&other);
  context.AddExtension(nullptr);  // ignored
  RunInHandler(&context, [&](XLA_FFI_InvokeContext* ctx) {
    auto find = [&](int64_t type) {
      XLA_FFI_InvokeContext_FindExtension_Args args{};
      args.struct_size = XLA_FFI_InvokeContext_FindExtension_Args_STRUCT_SIZE;
      args.ctx = ctx;
      args.extension_type = type;
      args.extension = &other;  // must be overwritten
      EXPECT_EQ(Take(Api()->XLA_FFI_InvokeContext_FindExtension(&args)).code,
                XLA_FFI_Error_Code_OK);
      return args.extension;
    };
    EXPECT_EQ(find(128), &first);
    EXPECT_EQ(find(129), &chained);
    EXPECT_EQ(find(7), &other);
    EXPECT_EQ(find(99), nullptr);
  });
}

TEST(RuntimeContext, CustomOptions) {
  xffi::ExecutionContext context;
  RunInHandler(&context, [&](XLA_FFI_InvokeContext* ctx) {
    XLA_FFI_CustomOptions_Get_Args args{};
    args.struct_size = XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE;
    args.ctx = ctx;
    EXPECT_EQ(Take(Api()->XLA_FFI_CustomOptions_Get(&args)).code,
              XLA_FFI_Error_Code_OK);
    ASSERT_NE(args.attrs, nullptr);
    EXPECT_EQ(args.attrs->size, 0);
    EXPECT_EQ(args.attrs->struct_size, XLA_FFI_Attrs_STRUCT_SIZE);
  });
  XLA_FFI_Attrs options{};
  options.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  context.set_custom_options(&options);
  RunInHandler(&context, [&](XLA_FFI_InvokeContext* ctx) {
    XLA_FFI_CustomOptions_Get_Args args{};
    args.struct_size = XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE;
    args.ctx = ctx;
    EXPECT_EQ(Take(Api()->XLA_FFI_CustomOptions_Get(&args)).code,
              XLA_FFI_Error_Code_OK);
    EXPECT_EQ(args.attrs, &options);
  });
}

// ------------------------------------------ argument checks, every entry

// Calls `fn` through the table with null args, a too-small struct and a
// null ctx, checking each error names the function and struct.
template <typename Args>
void CheckRejects(XLA_FFI_Error* (*fn)(Args*), const char* function,
                  const char* struct_name, size_t required, bool has_ctx) {
  SCOPED_TRACE(function);
  Outcome null_args = Take(fn(nullptr));
  EXPECT_EQ(null_args.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(null_args.message, std::string(function) + ": the " + struct_name +
                                   " pointer is null");

  alignas(16) unsigned char storage[128] = {};
  auto* args = reinterpret_cast<Args*>(storage);
  size_t small = 16;
  std::memcpy(storage, &small, sizeof(small));
  Outcome too_small = Take(fn(args));
  EXPECT_EQ(too_small.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(too_small.message, std::string(function) + ": " + struct_name +
                                   ".struct_size is 16 but must be at least " +
                                   std::to_string(required));
  if (!has_ctx) return;
  std::memcpy(storage, &required, sizeof(required));  // ctx stays null
  Outcome null_ctx = Take(fn(args));
  EXPECT_EQ(null_ctx.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(null_ctx.message,
              HasSubstr(std::string(function) + ": ctx is null"));
}

TEST(RuntimeContext, EveryEntryPointValidatesItsArgs) {
  const XLA_FFI_Api* api = Api();
#define XFFI_CHECK(slot, args_type, required, has_ctx) \
  CheckRejects(api->slot, #slot, #args_type, required, has_ctx)
  XFFI_CHECK(XLA_FFI_Handler_Register, XLA_FFI_Handler_Register_Args, 84,
             false);
  XFFI_CHECK(XLA_FFI_Stream_Get, XLA_FFI_Stream_Get_Args, 32, true);
  XFFI_CHECK(XLA_FFI_Type_Register, XLA_FFI_Type_Register_Args, 40, false);
  XFFI_CHECK(XLA_FFI_InvokeContext_Get, XLA_FFI_InvokeContext_Get_Args, 40,
             true);
  XFFI_CHECK(XLA_FFI_State_Set, XLA_FFI_State_Set_Args, 40, true);
  XFFI_CHECK(XLA_FFI_State_Get, XLA_FFI_State_Get_Args, 40, true);
  XFFI_CHECK(XLA_FFI_DeviceMemory_Allocate, XLA_FFI_DeviceMemory_Allocate_Args,
             48, true);
  XFFI_CHECK(XLA_FFI_DeviceMemory_Free, XLA_FFI_DeviceMemory_Free_Args, 40,
             true);
  XFFI_CHECK(XLA_FFI_ThreadPool_Schedule, XLA_FFI_ThreadPool_Schedule_Args, 40,
             true);
  XFFI_CHECK(XLA_FFI_ThreadPool_NumThreads, XLA_FFI_ThreadPool_NumThreads_Args,
             32, true);
  XFFI_CHECK(XLA_FFI_Future_SetAvailable, XLA_FFI_Future_SetAvailable_Args, 24,
             false);
  XFFI_CHECK(XLA_FFI_Future_SetError, XLA_FFI_Future_SetError_Args, 32, false);
  XFFI_CHECK(XLA_FFI_RunId_Get, XLA_FFI_RunId_Get_Args, 32, true);
  XFFI_CHECK(XLA_FFI_DeviceOrdinal_Get, XLA_FFI_DeviceOrdinal_Get_Args, 28,
             true);
  XFFI_CHECK(XLA_FFI_InvokeContext_FindExtension,
             XLA_FFI_InvokeContext_FindExtension_Args, 40, true);
  XFFI_CHECK(XLA_FFI_CustomOptions_Get, XLA_FFI_CustomOptions_Get_Args, 32,
             true);
#undef XFFI_CHECK
  // Future_Create's declared size is the header alone (16): only null args.
  Outcome null_create = Take(api->XLA_FFI_Future_Create(nullptr));
  EXPECT_EQ(null_create.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(null_create.message,
            "XLA_FFI_Future_Create: the XLA_FFI_Future_Create_Args pointer is "
            "null");
}

// A caller built against an older, larger or padded layout passes a bigger
// struct_size: accepted.
TEST(RuntimeContext, LargerStructSizesAreAccepted) {
  RunInHandler(nullptr, [](XLA_FFI_InvokeContext* ctx) {
    XLA_FFI_RunId_Get_Args args{};
    args.struct_size = 40;  // what XLA's header has been seen to pass
    args.ctx = ctx;
    EXPECT_EQ(Take(Api()->XLA_FFI_RunId_Get(&args)).code,
              XLA_FFI_Error_Code_OK);
  });
}

}  // namespace
