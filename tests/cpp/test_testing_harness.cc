// The testing harness: frames built by CallFrameBuilder and Invoke.
#include "xffi/testing.h"

#include <complex>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

#include "xffi/runtime/api.h"

namespace {

using xffi::testing::AttrValue;
using xffi::testing::CallFrame;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Dictionary;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;
using xffi::testing::InvokeResult;

XLA_FFI_Error* MakeError(const XLA_FFI_Api* api, XLA_FFI_Error_Code code,
                         const std::string& message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = message.c_str();
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

std::string_view Name(const XLA_FFI_Attrs& attrs, int64_t i) {
  return std::string_view(attrs.names[i]->ptr, attrs.names[i]->len);
}

// y = x * factor, written against the C ABI only.
XLA_FFI_Error* Scale(XLA_FFI_CallFrame* frame) {
  if (frame->args.size != 1 || frame->rets.size != 1 || frame->attrs.size != 1)
    return MakeError(frame->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     "scale: wrong arity");
  auto* x = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* y = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  auto* factor = static_cast<XLA_FFI_Scalar*>(frame->attrs.attrs[0]);
  if (Name(frame->attrs, 0) != "factor" ||
      frame->attrs.types[0] != XLA_FFI_AttrType_SCALAR ||
      factor->dtype != XLA_FFI_DataType_F32) {
    return MakeError(frame->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                     "scale: bad attribute");
  }
  int64_t n = 1;
  for (int64_t d = 0; d < x->rank; ++d) n *= x->dims[d];
  float f = *static_cast<float*>(factor->value);
  for (int64_t i = 0; i < n; ++i) {
    static_cast<float*>(y->data)[i] = static_cast<float*>(x->data)[i] * f;
  }
  return nullptr;
}

TEST(TestingHarness, InvokesACHandler) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  float y[6] = {};
  CallFrame frame = CallFrameBuilder()
                        .Arg(x, {2, 3})
                        .Ret(y, {2, 3})
                        .Attr("factor", 2.0f)
                        .Build();
  InvokeResult result = Invoke(Scale, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_FALSE(result.is_async());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], 2 * x[i]);

  XLA_FFI_CallFrame* raw = frame.get();
  EXPECT_EQ(raw->struct_size, XLA_FFI_CallFrame_STRUCT_SIZE);
  auto* arg = static_cast<XLA_FFI_Buffer*>(raw->args.args[0]);
  EXPECT_EQ(arg->struct_size, XLA_FFI_Buffer_STRUCT_SIZE);
  EXPECT_EQ(arg->dtype, XLA_FFI_DataType_F32);
  EXPECT_EQ(arg->rank, 2);
  EXPECT_EQ(arg->dims[0], 2);
  EXPECT_EQ(arg->dims[1], 3);
  EXPECT_EQ(raw->args.types[0], XLA_FFI_ArgType_BUFFER);
  EXPECT_EQ(raw->rets.types[0], XLA_FFI_RetType_BUFFER);
}

TEST(TestingHarness, ReportsHandlerErrors) {
  float x[1] = {1};
  CallFrame frame = CallFrameBuilder().Arg(x, {1}).Build();
  InvokeResult result = Invoke(Scale, frame);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(), "scale: wrong arity");
}

}  // namespace
