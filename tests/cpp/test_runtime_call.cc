// CallHandler: what it puts in the frame and how it reads the outcome.
#include "xffi/runtime/call.h"

#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/registry.h"

namespace {

using ::testing::HasSubstr;

XLA_FFI_Error* NewError(const XLA_FFI_Api* api, XLA_FFI_Error_Code code,
                        const char* message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = message;
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

XLA_FFI_CallFrame EmptyFrame() {
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  frame.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
  frame.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
  frame.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  return frame;
}

struct Seen {
  const XLA_FFI_Api* api = nullptr;
  XLA_FFI_InvokeContext* ctx = nullptr;
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  XLA_FFI_Future* future = reinterpret_cast<XLA_FFI_Future*>(1);
} seen;

XLA_FFI_Error* Records(XLA_FFI_CallFrame* frame) {
  seen.api = frame->api;
  seen.ctx = frame->ctx;
  seen.stage = frame->stage;
  seen.future = frame->future;
  return nullptr;
}

TEST(RuntimeCall, FillsTheFrame) {
  XLA_FFI_CallFrame frame = EmptyFrame();
  frame.future = reinterpret_cast<XLA_FFI_Future*>(0x1234);  // stale
  for (XLA_FFI_ExecutionStage stage :
       {XLA_FFI_ExecutionStage_INSTANTIATE, XLA_FFI_ExecutionStage_PREPARE,
        XLA_FFI_ExecutionStage_INITIALIZE, XLA_FFI_ExecutionStage_EXECUTE,
        XLA_FFI_ExecutionStage_RECORD}) {
    seen = Seen{};
    xffi::CallOptions options;
    options.stage = stage;
    xffi::CallResult result = xffi::CallHandler(Records, &frame, options);
    EXPECT_TRUE(result.status.ok());
    EXPECT_EQ(result.future, nullptr);
    EXPECT_EQ(seen.api, xffi::GetApi());
    EXPECT_NE(seen.ctx, nullptr);
    EXPECT_EQ(seen.stage, stage);
    EXPECT_EQ(seen.future, nullptr);
    // The context does not outlive the call.
    EXPECT_EQ(frame.ctx, nullptr);
  }
}

TEST(RuntimeCall, ErrorsBecomeStatuses) {
  XLA_FFI_CallFrame frame = EmptyFrame();
  xffi::CallResult result = xffi::CallHandler(
      [](XLA_FFI_CallFrame* f) {
        return NewError(f->api, XLA_FFI_Error_Code_OUT_OF_RANGE, "too far");
      },
      &frame);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_OUT_OF_RANGE);
  EXPECT_EQ(result.status.message(), "too far");

  xffi::CallOptions named;
  named.target_name = "ok_error";
  result = xffi::CallHandler(
      [](XLA_FFI_CallFrame* f) {
        return NewError(f->api, XLA_FFI_Error_Code_OK, "not really");
      },
      &frame, named);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(result.status.message(), HasSubstr("code OK"));
}

TEST(RuntimeCall, ExceptionsBecomeInternalErrors) {
  XLA_FFI_CallFrame frame = EmptyFrame();
  xffi::CallOptions options;
  options.target_name = "thrower";
  xffi::CallResult result = xffi::CallHandler(
      [](XLA_FFI_CallFrame*) -> XLA_FFI_Error* {
        throw std::runtime_error("kaboom");
      },
      &frame, options);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.status.message(),
            "handler 'thrower' threw a C++ exception: kaboom");
  EXPECT_EQ(frame.ctx, nullptr);
  result = xffi::CallHandler(
      [](XLA_FFI_CallFrame*) -> XLA_FFI_Error* { throw 7; }, &frame);
  EXPECT_EQ(result.status.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.status.message(),
            "handler threw a C++ exception that is not a std::exception");
}

TEST(RuntimeCall, NullHandlerOrFrame) {
  XLA_FFI_CallFrame frame = EmptyFrame();
  xffi::CallOptions options;
  options.target_name = "nothing";
  xffi::CallResult no_handler = xffi::CallHandler(
      static_cast<XLA_FFI_Handler*>(nullptr), &frame, options);
  EXPECT_EQ(no_handler.status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(no_handler.status.message(),
            "CallHandler: the handler is null (handler 'nothing')");
  xffi::CallResult no_frame = xffi::CallHandler(Records, nullptr, options);
  EXPECT_EQ(no_frame.status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(no_frame.status.message(),
            "CallHandler: the call frame is null (handler 'nothing')");
  xffi::CallResult no_object = xffi::CallHandler(
      static_cast<xffi::HandlerThunk>(nullptr), nullptr, &frame, options);
  EXPECT_EQ(no_object.status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

struct Object {
  int calls = 0;
  XLA_FFI_Error* Call(XLA_FFI_CallFrame* frame) {
    ++calls;
    return frame->stage == XLA_FFI_ExecutionStage_EXECUTE
               ? nullptr
               : NewError(frame->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                          "wrong stage");
  }
};

TEST(RuntimeCall, ThunkForHandlerObjects) {
  Object object;
  XLA_FFI_CallFrame frame = EmptyFrame();
  xffi::HandlerThunk thunk = [](const void* self, XLA_FFI_CallFrame* f) {
    return const_cast<Object*>(static_cast<const Object*>(self))->Call(f);
  };
  EXPECT_TRUE(xffi::CallHandler(thunk, &object, &frame).status.ok());
  xffi::CallOptions prepare;
  prepare.stage = XLA_FFI_ExecutionStage_PREPARE;
  EXPECT_EQ(xffi::CallHandler(thunk, &object, &frame, prepare).status.message(),
            "wrong stage");
  EXPECT_EQ(object.calls, 2);
}

XLA_FFI_Error* NamedStage(XLA_FFI_CallFrame* frame) {
  if (frame->extension_start != nullptr) {
    auto* ext =
        reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start);
    ext->metadata->api_version =
        XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 2};
    return nullptr;
  }
  return NewError(frame->api, XLA_FFI_Error_Code_ABORTED,
                  ("stage " + std::to_string(frame->stage)).c_str());
}

TEST(RuntimeCall, ARegisteredHandlerByStage) {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = NamedStage;
  bundle.initialize = NamedStage;
  ASSERT_TRUE(xffi::RegisterHandler("call.record", "Host", bundle).ok());
  const xffi::HandlerRecord& record = **xffi::FindHandler("call.record", "cpu");
  XLA_FFI_CallFrame frame = EmptyFrame();
  EXPECT_EQ(xffi::CallHandler(record, &frame).status.message(), "stage 3");
  xffi::CallOptions initialize;
  initialize.stage = XLA_FFI_ExecutionStage_INITIALIZE;
  EXPECT_EQ(xffi::CallHandler(record, &frame, initialize).status.message(),
            "stage 2");
  xffi::CallOptions prepare;
  prepare.stage = XLA_FFI_ExecutionStage_PREPARE;
  xffi::CallResult skipped = xffi::CallHandler(record, &frame, prepare);
  EXPECT_TRUE(skipped.status.ok());  // no prepare handler: nothing to do
  EXPECT_EQ(skipped.future, nullptr);
}

// A foreign API table (as XLA's would be): its errors are read through its
// own slots, by version.
struct ForeignError {
  std::string message;
};
int foreign_destroyed = 0;
XLA_FFI_Error* ForeignCreate(XLA_FFI_Error_Create_Args* args) {
  return reinterpret_cast<XLA_FFI_Error*>(
      new ForeignError{std::string("foreign: ") + args->message});
}
void ForeignGetDetails(XLA_FFI_Error_GetDetails_Args* args) {
  args->message = reinterpret_cast<ForeignError*>(args->error)->message.c_str();
  if (args->struct_size >= XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE) {
    args->errc = XLA_FFI_Error_Code_PERMISSION_DENIED;
  }
}
void ForeignDestroy(XLA_FFI_Error_Destroy_Args* args) {
  ++foreign_destroyed;
  delete reinterpret_cast<ForeignError*>(args->error);
}

TEST(RuntimeCall, ErrorsFromAForeignTable) {
  for (int minor : {3, 4}) {
    XLA_FFI_Api foreign = *xffi::GetApi();
    foreign.api_version.minor_version = minor;
    foreign.XLA_FFI_Error_Create = ForeignCreate;
    foreign.XLA_FFI_Error_GetDetails = ForeignGetDetails;
    foreign.XLA_FFI_Error_Destroy = ForeignDestroy;
    foreign_destroyed = 0;
    XLA_FFI_CallFrame frame = EmptyFrame();
    xffi::CallOptions options;
    options.api = &foreign;
    xffi::CallResult result = xffi::CallHandler(
        [](XLA_FFI_CallFrame* f) {
          EXPECT_NE(f->api, xffi::GetApi());
          return NewError(f->api, XLA_FFI_Error_Code_ABORTED, "nope");
        },
        &frame, options);
    EXPECT_EQ(result.status.message(), "foreign: nope");
    // Before 0.4 the code cannot be read back.
    EXPECT_EQ(result.status.code(), minor >= 4
                                        ? XLA_FFI_Error_Code_PERMISSION_DENIED
                                        : XLA_FFI_Error_Code_UNKNOWN);
    EXPECT_EQ(foreign_destroyed, 1);
  }
}

}  // namespace
