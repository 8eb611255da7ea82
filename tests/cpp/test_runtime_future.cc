// Futures: AsyncValue, the Future_* entry points and asynchronous handlers.
#include "xffi/runtime/future.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/call.h"

namespace {

using ::testing::HasSubstr;

const XLA_FFI_Api* Api() { return xffi::GetApi(); }

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

XLA_FFI_Future* Create() {
  XLA_FFI_Future_Create_Args args{};
  args.struct_size = XLA_FFI_Future_Create_Args_STRUCT_SIZE;
  EXPECT_EQ(Api()->XLA_FFI_Future_Create(&args), nullptr);
  return args.future;
}
Outcome SetAvailable(XLA_FFI_Future* future) {
  XLA_FFI_Future_SetAvailable_Args args{};
  args.struct_size = XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE;
  args.future = future;
  return Take(Api()->XLA_FFI_Future_SetAvailable(&args));
}
XLA_FFI_Error* NewError(XLA_FFI_Error_Code code, const char* message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = message;
  args.errc = code;
  return Api()->XLA_FFI_Error_Create(&args);
}
Outcome SetError(XLA_FFI_Future* future, XLA_FFI_Error* error) {
  XLA_FFI_Future_SetError_Args args{};
  args.struct_size = XLA_FFI_Future_SetError_Args_STRUCT_SIZE;
  args.future = future;
  args.error = error;
  return Take(Api()->XLA_FFI_Future_SetError(&args));
}

xffi::CallResult Call(XLA_FFI_Handler* handler) {
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  xffi::CallOptions options;
  options.target_name = "async";
  return xffi::CallHandler(handler, &frame, options);
}

TEST(RuntimeAsyncValue, CompletesOnce) {
  xffi::AsyncValue value;
  EXPECT_FALSE(value.IsReady());
  int early = 0, late = 0;
  value.OnReady([&](const xffi::Status& s) {
    EXPECT_EQ(s.code(), XLA_FFI_Error_Code_ABORTED);
    ++early;
  });
  EXPECT_TRUE(value.Set(xffi::Status(XLA_FFI_Error_Code_ABORTED, "stop")).ok());
  EXPECT_TRUE(value.IsReady());
  EXPECT_EQ(early, 1);
  value.OnReady([&](const xffi::Status& s) {
    EXPECT_EQ(s.message(), "stop");
    ++late;
  });
  EXPECT_EQ(late, 1);
  xffi::Status again = value.Set(xffi::Status::Ok());
  EXPECT_EQ(again.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(again.message(),
            "the future is already completed (with ABORTED: stop)");
  EXPECT_EQ(value.Wait().code(), XLA_FFI_Error_Code_ABORTED);
}

TEST(RuntimeAsyncValue, WaitBlocksUntilSet) {
  xffi::AsyncValue value;
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    (void)value.Set(xffi::Status::Ok());
  });
  EXPECT_TRUE(value.Wait().ok());
  setter.join();
}

// Completes on another thread after returning; tests join it.
std::thread worker;
std::atomic<int> async_result{0};
XLA_FFI_Error* CompletesLater(XLA_FFI_CallFrame* frame) {
  XLA_FFI_Future* future = Create();
  frame->future = future;
  worker = std::thread([future] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    async_result = 42;
    EXPECT_EQ(SetAvailable(future).code, XLA_FFI_Error_Code_OK);
  });
  return nullptr;
}

TEST(RuntimeFuture, HandlerCompletesLater) {
  async_result = 0;
  xffi::CallResult result = Call(CompletesLater);
  ASSERT_TRUE(result.status.ok());
  ASSERT_NE(result.future, nullptr);
  EXPECT_TRUE(result.future->Wait().ok());
  EXPECT_EQ(async_result.load(), 42);
  worker.join();
}

XLA_FFI_Error* FailsLater(XLA_FFI_CallFrame* frame) {
  XLA_FFI_Future* future = Create();
  frame->future = future;
  worker = std::thread([future] {
    EXPECT_EQ(
        SetError(future, NewError(XLA_FFI_Error_Code_DATA_LOSS, "lost")).code,
        XLA_FFI_Error_Code_OK);
  });
  return nullptr;
}

TEST(RuntimeFuture, HandlerFailsLater) {
  xffi::CallResult result = Call(FailsLater);
  ASSERT_TRUE(result.status.ok());
  ASSERT_NE(result.future, nullptr);
  xffi::Status status = result.future->Wait();
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_DATA_LOSS);
  EXPECT_EQ(status.message(), "lost");
  worker.join();
}

XLA_FFI_Error* CompletesBeforeReturning(XLA_FFI_CallFrame* frame) {
  frame->future = Create();
  EXPECT_EQ(SetAvailable(frame->future).code, XLA_FFI_Error_Code_OK);
  Outcome twice = SetAvailable(frame->future);
  EXPECT_EQ(twice.code, XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(twice.message,
            "XLA_FFI_Future_SetAvailable: the future is already completed");
  Outcome error_after =
      SetError(frame->future, NewError(XLA_FFI_Error_Code_INTERNAL, "late"));
  EXPECT_EQ(error_after.code, XLA_FFI_Error_Code_FAILED_PRECONDITION);
  return nullptr;
}

TEST(RuntimeFuture, DoubleCompletionIsAnError) {
  xffi::CallResult result = Call(CompletesBeforeReturning);
  ASSERT_TRUE(result.status.ok());
  ASSERT_NE(result.future, nullptr);
  EXPECT_TRUE(result.future->IsReady());
  EXPECT_TRUE(result.future->Wait().ok());
}

XLA_FFI_Future* kept_future = nullptr;
XLA_FFI_Error* KeepsItsFuture(XLA_FFI_CallFrame* frame) {
  kept_future = Create();
  frame->future = kept_future;
  return nullptr;
}

TEST(RuntimeFuture, CompletionThroughAReleasedHandleIsReported) {
  xffi::CallResult result = Call(KeepsItsFuture);
  ASSERT_NE(result.future, nullptr);
  EXPECT_EQ(SetAvailable(kept_future).code, XLA_FFI_Error_Code_OK);
  // Completed and claimed: the handle is gone, and reported, not used.
  Outcome stale = SetAvailable(kept_future);
  EXPECT_EQ(stale.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(stale.message,
            "XLA_FFI_Future_SetAvailable: the future is not one Future_Create "
            "returned, or it was already completed and released");
}

int not_a_future_either = 0;

TEST(RuntimeFuture, BadCompletions) {
  XLA_FFI_Future* future = Create();
  ASSERT_NE(future, nullptr);
  Outcome null_future = SetAvailable(nullptr);
  EXPECT_EQ(null_future.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(null_future.message, "XLA_FFI_Future_SetAvailable: future is null");
  Outcome null_error = SetError(future, nullptr);
  EXPECT_EQ(null_error.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(null_error.message, HasSubstr("error is null"));
  Outcome ok_error = SetError(future, NewError(XLA_FFI_Error_Code_OK, "fine"));
  EXPECT_EQ(ok_error.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(ok_error.message, HasSubstr("the error has code OK"));
  Outcome null_error_future =
      SetError(nullptr, NewError(XLA_FFI_Error_Code_INTERNAL, "x"));
  EXPECT_EQ(null_error_future.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  // The error passes to the runtime even when refused (ASan checks).
  Outcome error_on_foreign =
      SetError(reinterpret_cast<XLA_FFI_Future*>(&not_a_future_either),
               NewError(XLA_FFI_Error_Code_INTERNAL, "y"));
  EXPECT_EQ(error_on_foreign.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  int not_a_future = 0;
  Outcome foreign =
      SetAvailable(reinterpret_cast<XLA_FFI_Future*>(&not_a_future));
  EXPECT_EQ(foreign.code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  // Still pending after all the refusals.
  EXPECT_EQ(SetAvailable(future).code, XLA_FFI_Error_Code_OK);
  // Never claimed by a call: completing it does not free it, but the handle
  // is not leaked either once the runtime would claim it. Claim through a
  // call to release it.
  static XLA_FFI_Future* pending;
  pending = future;
  xffi::CallResult result = Call([](XLA_FFI_CallFrame* frame) {
    frame->future = pending;
    return static_cast<XLA_FFI_Error*>(nullptr);
  });
  ASSERT_NE(result.future, nullptr);
  EXPECT_TRUE(result.future->IsReady());
}

TEST(RuntimeFuture, ABogusFutureInTheFrameIsReported) {
  xffi::CallResult result = Call([](XLA_FFI_CallFrame* frame) {
    static int bogus;
    frame->future = reinterpret_cast<XLA_FFI_Future*>(&bogus);
    return static_cast<XLA_FFI_Error*>(nullptr);
  });
  EXPECT_EQ(result.future, nullptr);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.status.message(),
              HasSubstr("handler 'async' stored in call_frame->future a "
                        "pointer that Future_Create did not return"));
}

XLA_FFI_Future* both_future = nullptr;
TEST(RuntimeFuture, AnErrorWinsOverAFuture) {
  xffi::CallResult result = Call([](XLA_FFI_CallFrame* frame) {
    both_future = Create();
    frame->future = both_future;
    return NewError(XLA_FFI_Error_Code_INTERNAL, "both");
  });
  EXPECT_EQ(result.future, nullptr);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.status.message(), "both");
  // The runtime took its share; completing releases the handle.
  EXPECT_EQ(SetAvailable(both_future).code, XLA_FFI_Error_Code_OK);
}

}  // namespace
