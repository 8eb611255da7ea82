// The testing harness: frames built by CallFrameBuilder and Invoke.
#include "xffi/testing.h"

#include <chrono>
#include <complex>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/registry.h"
#include "xffi/runtime/types.h"

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

// Renders attributes as text, to check what the frame carries.
std::string Render(const XLA_FFI_Attrs& attrs);

std::string RenderScalar(const XLA_FFI_Scalar& s) {
  switch (s.dtype) {
    case XLA_FFI_DataType_PRED:
      return *static_cast<bool*>(s.value) ? "pred:true" : "pred:false";
    case XLA_FFI_DataType_S8:
      return "s8:" + std::to_string(*static_cast<int8_t*>(s.value));
    case XLA_FFI_DataType_S16:
      return "s16:" + std::to_string(*static_cast<int16_t*>(s.value));
    case XLA_FFI_DataType_S32:
      return "s32:" + std::to_string(*static_cast<int32_t*>(s.value));
    case XLA_FFI_DataType_S64:
      return "s64:" + std::to_string(*static_cast<int64_t*>(s.value));
    case XLA_FFI_DataType_U8:
      return "u8:" + std::to_string(*static_cast<uint8_t*>(s.value));
    case XLA_FFI_DataType_U16:
      return "u16:" + std::to_string(*static_cast<uint16_t*>(s.value));
    case XLA_FFI_DataType_U32:
      return "u32:" + std::to_string(*static_cast<uint32_t*>(s.value));
    case XLA_FFI_DataType_U64:
      return "u64:" + std::to_string(*static_cast<uint64_t*>(s.value));
    case XLA_FFI_DataType_F32:
      return "f32:" + std::to_string(*static_cast<float*>(s.value));
    case XLA_FFI_DataType_F64:
      return "f64:" + std::to_string(*static_cast<double*>(s.value));
    case XLA_FFI_DataType_C64: {
      auto c = *static_cast<std::complex<float>*>(s.value);
      return "c64:" + std::to_string(c.real()) + "," + std::to_string(c.imag());
    }
    case XLA_FFI_DataType_C128: {
      auto c = *static_cast<std::complex<double>*>(s.value);
      return "c128:" + std::to_string(c.real()) + "," +
             std::to_string(c.imag());
    }
    default:
      return "?";
  }
}

template <typename T>
std::string Join(const XLA_FFI_Array& a) {
  std::string out;
  for (size_t i = 0; i < a.size; ++i) {
    if (i) out += ",";
    out += std::to_string(static_cast<const T*>(a.data)[i]);
  }
  return out;
}

std::string RenderArray(const XLA_FFI_Array& a) {
  switch (a.dtype) {
    case XLA_FFI_DataType_S8:
      return "[s8:" + Join<int8_t>(a) + "]";
    case XLA_FFI_DataType_S16:
      return "[s16:" + Join<int16_t>(a) + "]";
    case XLA_FFI_DataType_S32:
      return "[s32:" + Join<int32_t>(a) + "]";
    case XLA_FFI_DataType_S64:
      return "[s64:" + Join<int64_t>(a) + "]";
    case XLA_FFI_DataType_U8:
      return "[u8:" + Join<uint8_t>(a) + "]";
    case XLA_FFI_DataType_U16:
      return "[u16:" + Join<uint16_t>(a) + "]";
    case XLA_FFI_DataType_U32:
      return "[u32:" + Join<uint32_t>(a) + "]";
    case XLA_FFI_DataType_U64:
      return "[u64:" + Join<uint64_t>(a) + "]";
    case XLA_FFI_DataType_F32:
      return "[f32:" + Join<float>(a) + "]";
    case XLA_FFI_DataType_F64:
      return "[f64:" + Join<double>(a) + "]";
    default:
      return "[?]";
  }
}

std::string Render(const XLA_FFI_Attrs& attrs) {
  std::string out = "{";
  for (int64_t i = 0; i < attrs.size; ++i) {
    if (i) out += " ";
    out += std::string(Name(attrs, i)) + "=";
    switch (attrs.types[i]) {
      case XLA_FFI_AttrType_SCALAR:
        out += RenderScalar(*static_cast<XLA_FFI_Scalar*>(attrs.attrs[i]));
        break;
      case XLA_FFI_AttrType_ARRAY:
        out += RenderArray(*static_cast<XLA_FFI_Array*>(attrs.attrs[i]));
        break;
      case XLA_FFI_AttrType_STRING: {
        auto* span = static_cast<XLA_FFI_ByteSpan*>(attrs.attrs[i]);
        out += "'" + std::string(span->ptr, span->len) + "'";
        break;
      }
      case XLA_FFI_AttrType_DICTIONARY:
        out += Render(*static_cast<XLA_FFI_Attrs*>(attrs.attrs[i]));
        break;
    }
  }
  return out + "}";
}

std::string rendered;
XLA_FFI_Error* RenderAttrs(XLA_FFI_CallFrame* frame) {
  if (frame->attrs.struct_size != XLA_FFI_Attrs_STRUCT_SIZE) {
    return MakeError(frame->api, XLA_FFI_Error_Code_INTERNAL, "attrs size");
  }
  rendered = Render(frame->attrs);
  return nullptr;
}

TEST(TestingHarness, EveryAttributeKindSortedByName) {
  Dictionary inner;
  inner.Set("z", int64_t{-1}).Set("a", "inner text");
  Dictionary outer;
  outer.Set("nested", inner).Set("b", true);
  CallFrame frame = CallFrameBuilder()
                        .Attr("i32", 5)
                        .Attr("bool", false)
                        .Attr("i8", int8_t{-8})
                        .Attr("i16", int16_t{-16})
                        .Attr("i64", int64_t{1} << 40)
                        .Attr("u8", uint8_t{8})
                        .Attr("u16", uint16_t{16})
                        .Attr("u32", uint32_t{32})
                        .Attr("u64", uint64_t{64})
                        .Attr("f32", 1.5f)
                        .Attr("f64", 2.25)
                        .Attr("c64", std::complex<float>(1, 2))
                        .Attr("c128", std::complex<double>(3, 4))
                        .Attr("str", "hello")
                        .Attr("std_string", std::string("world"))
                        .Attr("a_i8", std::vector<int8_t>{1, -1})
                        .Attr("a_i16", std::vector<int16_t>{2})
                        .Attr("a_i32", std::vector<int32_t>{3, 4, 5})
                        .Attr("a_i64", std::vector<int64_t>{})
                        .Attr("a_u8", std::vector<uint8_t>{6})
                        .Attr("a_u16", std::vector<uint16_t>{7})
                        .Attr("a_u32", std::vector<uint32_t>{8})
                        .Attr("a_u64", std::vector<uint64_t>{9})
                        .Attr("a_f32", std::vector<float>{0.5f})
                        .Attr("a_f64", std::vector<double>{0.25, 0.75})
                        .Attr("dict", outer)
                        .Build();
  ASSERT_TRUE(Invoke(RenderAttrs, frame).ok());
  EXPECT_EQ(rendered,
            "{a_f32=[f32:0.500000] a_f64=[f64:0.250000,0.750000] a_i16=[s16:2] "
            "a_i32=[s32:3,4,5] a_i64=[s64:] a_i8=[s8:1,-1] a_u16=[u16:7] "
            "a_u32=[u32:8] a_u64=[u64:9] a_u8=[u8:6] bool=pred:false "
            "c128=c128:3.000000,4.000000 c64=c64:1.000000,2.000000 "
            "dict={b=pred:true nested={a='inner text' z=s64:-1}} "
            "f32=f32:1.500000 f64=f64:2.250000 i16=s16:-16 i32=s32:5 "
            "i64=s64:1099511627776 i8=s8:-8 std_string='world' str='hello' "
            "u16=u16:16 u32=u32:32 u64=u64:64 u8=u8:8}");
}

TEST(TestingHarness, NoAttributesIsAnEmptyDictionary) {
  CallFrame frame = CallFrameBuilder().Build();
  ASSERT_TRUE(Invoke(RenderAttrs, frame).ok());
  EXPECT_EQ(rendered, "{}");
  EXPECT_EQ(frame.get()->args.size, 0);
  EXPECT_EQ(frame.get()->rets.size, 0);
}

TEST(TestingHarness, SettingANameAgainReplacesIt) {
  CallFrame frame = CallFrameBuilder().Attr("x", 1).Attr("x", "two").Build();
  ASSERT_TRUE(Invoke(RenderAttrs, frame).ok());
  EXPECT_EQ(rendered, "{x='two'}");
  Dictionary d;
  d.Set("k", 1.0).Set("k", 2.0f);
  EXPECT_EQ(d.size(), 1u);
  ASSERT_NE(d.Find("k"), nullptr);
  EXPECT_TRUE(std::holds_alternative<float>(*d.Find("k")));
  EXPECT_TRUE(d.contains("k"));
  EXPECT_FALSE(d.contains("q"));
  EXPECT_EQ(d.Find("q"), nullptr);
}

// GCC takes an integer constant 0 for a null pointer; a zero must still
// arrive as the integer it is, and C strings (literal or not) as strings.
TEST(TestingHarness, ZeroIntegersAreNotStrings) {
  Dictionary d;
  d.Set("i64", int64_t{0}).Set("u64", uint64_t{0}).Set("i32", 0);
  const char* not_a_literal = "text";
  char mutable_text[] = "mut";
  d.Set("s", not_a_literal).Set("m", static_cast<char*>(mutable_text));
  EXPECT_TRUE(std::holds_alternative<int64_t>(*d.Find("i64")));
  EXPECT_TRUE(std::holds_alternative<uint64_t>(*d.Find("u64")));
  EXPECT_TRUE(std::holds_alternative<int32_t>(*d.Find("i32")));
  ASSERT_TRUE(std::holds_alternative<std::string>(*d.Find("s")));
  EXPECT_EQ(std::get<std::string>(*d.Find("s")), "text");
  EXPECT_EQ(std::get<std::string>(*d.Find("m")), "mut");

  CallFrame frame =
      CallFrameBuilder().Attr("z", int64_t{0}).Attr("t", "lit").Build();
  const XLA_FFI_Attrs& attrs = frame.get()->attrs;
  ASSERT_EQ(attrs.size, 2);
  EXPECT_EQ(attrs.types[0], XLA_FFI_AttrType_STRING);  // "t" sorts first
  EXPECT_EQ(attrs.types[1], XLA_FFI_AttrType_SCALAR);
  auto* zero = static_cast<XLA_FFI_Scalar*>(attrs.attrs[1]);
  EXPECT_EQ(zero->dtype, XLA_FFI_DataType_S64);
  EXPECT_EQ(*static_cast<int64_t*>(zero->value), 0);
}

TEST(TestingHarness, AttrsFromADictionary) {
  Dictionary d;
  d.Set("b", 2).Set("a", 1);
  CallFrame frame = CallFrameBuilder().Attrs(d).Attr("c", 3).Build();
  ASSERT_TRUE(Invoke(RenderAttrs, frame).ok());
  EXPECT_EQ(rendered, "{a=s32:1 b=s32:2 c=s32:3}");
}

std::string buffers;
XLA_FFI_Error* RenderBuffers(XLA_FFI_CallFrame* frame) {
  buffers.clear();
  auto render = [](const char* kind, int64_t n, void** list) {
    std::string out;
    for (int64_t i = 0; i < n; ++i) {
      auto* b = static_cast<XLA_FFI_Buffer*>(list[i]);
      out += std::string(kind) + std::to_string(i) +
             ":dtype=" + std::to_string(b->dtype) +
             ",rank=" + std::to_string(b->rank) + ",dims=";
      for (int64_t d = 0; d < b->rank; ++d) {
        out += (d ? "x" : "") + std::to_string(b->dims[d]);
      }
      out += b->data ? ",data " : ",null ";
    }
    return out;
  };
  buffers = render("arg", frame->args.size, frame->args.args) +
            render("ret", frame->rets.size, frame->rets.rets);
  return nullptr;
}

TEST(TestingHarness, BuffersAndTokens) {
  double d[2];
  int32_t i[8];
  uint8_t raw[4];
  std::complex<float> c[1];
  const float cf[1] = {1};
  CallFrame frame = CallFrameBuilder()
                        .Arg(d, {2})
                        .TokenArg()
                        .Arg(raw, XLA_FFI_DataType_BF16, {2})
                        .Arg(cf, {})
                        .Ret(i, {2, 2, 2})
                        .TokenRet()
                        .Ret(c, {1})
                        .Build();
  ASSERT_TRUE(Invoke(RenderBuffers, frame).ok());
  EXPECT_EQ(
      buffers,
      "arg0:dtype=12,rank=1,dims=2,data arg1:dtype=17,rank=0,dims=,null "
      "arg2:dtype=16,rank=1,dims=2,data arg3:dtype=11,rank=0,dims=,data "
      "ret0:dtype=4,rank=3,dims=2x2x2,data ret1:dtype=17,rank=0,dims=,null "
      "ret2:dtype=15,rank=1,dims=1,data ");
  EXPECT_EQ(frame.num_args(), 4u);
  EXPECT_EQ(frame.num_rets(), 3u);
}

TEST(TestingHarness, RepointingBuffers) {
  float x1[2] = {1, 2}, x2[2] = {10, 20}, y[2];
  CallFrame frame =
      CallFrameBuilder().Arg(x1, {2}).Ret(y, {2}).Attr("factor", 3.0f).Build();
  ASSERT_TRUE(Invoke(Scale, frame).ok());
  EXPECT_EQ(y[1], 6);
  frame.SetArgData(0, x2);
  ASSERT_TRUE(Invoke(Scale, frame).ok());
  EXPECT_EQ(y[1], 60);
  float z[2];
  frame.SetRetData(0, z);
  ASSERT_TRUE(Invoke(Scale, frame).ok());
  EXPECT_EQ(z[0], 30);
  EXPECT_THROW(frame.SetArgData(1, x1), std::out_of_range);
  EXPECT_THROW(frame.SetRetData(5, z), std::out_of_range);
}

TEST(TestingHarness, FramesMoveWithoutInvalidatingAddresses) {
  float x[2] = {1, 2}, y[2];
  CallFrame original =
      CallFrameBuilder().Arg(x, {2}).Ret(y, {2}).Attr("factor", 2.0f).Build();
  XLA_FFI_CallFrame* raw = original.get();
  CallFrame moved = std::move(original);
  EXPECT_EQ(moved.get(), raw);
  ASSERT_TRUE(Invoke(Scale, moved).ok());
  EXPECT_EQ(y[1], 4);
}

// The stage, context and state the options carry reach the handler.
XLA_FFI_Error* StageEcho(XLA_FFI_CallFrame* frame) {
  XLA_FFI_RunId_Get_Args run{};
  run.struct_size = XLA_FFI_RunId_Get_Args_STRUCT_SIZE;
  run.ctx = frame->ctx;
  if (XLA_FFI_Error* e = frame->api->XLA_FFI_RunId_Get(&run)) return e;
  std::string message = "stage " + std::to_string(frame->stage) + " run " +
                        std::to_string(run.run_id);
  return MakeError(frame->api, XLA_FFI_Error_Code_CANCELLED, message);
}

TEST(TestingHarness, OptionsReachTheHandler) {
  CallFrame frame = CallFrameBuilder().Build();
  xffi::ExecutionContext context;
  context.set_run_id(99);
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_PREPARE;
  options.context = &context;
  InvokeResult result = Invoke(StageEcho, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_CANCELLED);
  EXPECT_EQ(result.message(), "stage 1 run 99");
  EXPECT_EQ(frame.get()->api, xffi::GetApi());
}

XLA_FFI_Error* RenderCustomOptions(XLA_FFI_CallFrame* frame) {
  XLA_FFI_CustomOptions_Get_Args args{};
  args.struct_size = XLA_FFI_CustomOptions_Get_Args_STRUCT_SIZE;
  args.ctx = frame->ctx;
  if (XLA_FFI_Error* e = frame->api->XLA_FFI_CustomOptions_Get(&args)) return e;
  rendered = Render(*args.attrs);
  return nullptr;
}

TEST(TestingHarness, CustomOptionsFromAFrame) {
  CallFrame options =
      CallFrameBuilder().Attr("mode", "fast").Attr("level", 2).Build();
  xffi::ExecutionContext context;
  CallFrame frame = CallFrameBuilder().Build();
  InvokeOptions invoke;
  invoke.context = &context;
  ASSERT_TRUE(Invoke(RenderCustomOptions, frame, invoke).ok());
  EXPECT_EQ(rendered, "{}");
  context.set_custom_options(&options.get()->attrs);
  ASSERT_TRUE(Invoke(RenderCustomOptions, frame, invoke).ok());
  EXPECT_EQ(rendered, "{level=s32:2 mode='fast'}");
}

// A handler object, as xffi::ffi and xla::ffi handlers are.
struct ScaleObject {
  XLA_FFI_Error* Call(XLA_FFI_CallFrame* frame) const { return Scale(frame); }
};

TEST(TestingHarness, InvokesHandlerObjects) {
  float x[1] = {4}, y[1];
  CallFrame frame =
      CallFrameBuilder().Arg(x, {1}).Ret(y, {1}).Attr("factor", 0.5f).Build();
  ScaleObject object;
  ASSERT_TRUE(Invoke(object, frame).ok());
  EXPECT_EQ(y[0], 2);
  auto owned = std::make_unique<ScaleObject>();
  y[0] = 0;
  ASSERT_TRUE(Invoke(owned, frame).ok());
  EXPECT_EQ(y[0], 2);
}

// Asynchronous: the harness keeps the frame's storage alive until the
// handler completes, even when the CallFrame is gone.
std::thread async_worker;
XLA_FFI_Error* ScaleLater(XLA_FFI_CallFrame* frame) {
  XLA_FFI_Future_Create_Args create{};
  create.struct_size = XLA_FFI_Future_Create_Args_STRUCT_SIZE;
  if (XLA_FFI_Error* e = frame->api->XLA_FFI_Future_Create(&create)) return e;
  frame->future = create.future;
  const XLA_FFI_Api* api = frame->api;
  async_worker = std::thread([frame, api, future = create.future] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // Reads the frame (attrs, dims) after the caller dropped it.
    XLA_FFI_Error* error = Scale(frame);
    if (error != nullptr) {
      XLA_FFI_Future_SetError_Args set{};
      set.struct_size = XLA_FFI_Future_SetError_Args_STRUCT_SIZE;
      set.future = future;
      set.error = error;
      api->XLA_FFI_Future_SetError(&set);
      return;
    }
    XLA_FFI_Future_SetAvailable_Args set{};
    set.struct_size = XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE;
    set.future = future;
    api->XLA_FFI_Future_SetAvailable(&set);
  });
  return nullptr;
}

TEST(TestingHarness, AsyncResultsKeepTheFrameAlive) {
  float x[3] = {1, 2, 3}, y[3] = {};
  std::optional<InvokeResult> result;
  {
    CallFrame frame = CallFrameBuilder()
                          .Arg(x, {3})
                          .Ret(y, {3})
                          .Attr("factor", 10.0f)
                          .Build();
    result.emplace(Invoke(ScaleLater, frame));
  }
  EXPECT_TRUE(result->is_async());
  result->Wait();
  EXPECT_TRUE(result->is_ready());
  EXPECT_TRUE(result->ok()) << result->message();
  EXPECT_EQ(y[2], 30);
  async_worker.join();
}

TEST(TestingHarness, AsyncErrorsAreReported) {
  float x[1] = {1};
  CallFrame frame = CallFrameBuilder().Arg(x, {1}).Build();  // wrong arity
  InvokeResult result = Invoke(ScaleLater, frame);
  EXPECT_TRUE(result.is_async());
  // ok()/code()/message() wait for completion.
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(), "scale: wrong arity");
  async_worker.join();
}

template <int Minor>
XLA_FFI_Error* Versioned(XLA_FFI_CallFrame* frame) {
  if (frame->extension_start != nullptr &&
      frame->extension_start->type == XLA_FFI_Extension_Metadata) {
    auto* ext =
        reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start);
    ext->metadata->api_version =
        XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, Minor};
    return nullptr;
  }
  return MakeError(frame->api, XLA_FFI_Error_Code_ABORTED,
                   "stage " + std::to_string(frame->stage));
}

TEST(TestingHarness, InvokeRegistered) {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = Versioned<3>;
  bundle.prepare = Versioned<3>;
  ASSERT_TRUE(xffi::RegisterHandler("harness.registered", "cpu", bundle).ok());
  CallFrame frame = CallFrameBuilder().Build();
  InvokeResult execute =
      xffi::testing::InvokeRegistered("harness.registered", "Host", frame);
  EXPECT_EQ(execute.message(), "stage 3");
  InvokeOptions prepare;
  prepare.stage = XLA_FFI_ExecutionStage_PREPARE;
  EXPECT_EQ(xffi::testing::InvokeRegistered("harness.registered", "Host", frame,
                                            prepare)
                .message(),
            "stage 1");
  InvokeOptions initialize;
  initialize.stage = XLA_FFI_ExecutionStage_INITIALIZE;
  InvokeResult missing_stage = xffi::testing::InvokeRegistered(
      "harness.registered", "Host", frame, initialize);
  EXPECT_EQ(missing_stage.code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_EQ(missing_stage.message(),
            "handler 'harness.registered' (platform Host) has no INITIALIZE "
            "handler");
  InvokeResult missing =
      xffi::testing::InvokeRegistered("harness.absent", "Host", frame);
  EXPECT_EQ(missing.code(), XLA_FFI_Error_Code_NOT_FOUND);
}

TEST(TestingHarness, DataTypeOf) {
  using xffi::testing::DataTypeOf;
  static_assert(DataTypeOf<bool>() == XLA_FFI_DataType_PRED);
  static_assert(DataTypeOf<int8_t>() == XLA_FFI_DataType_S8);
  static_assert(DataTypeOf<const int16_t>() == XLA_FFI_DataType_S16);
  static_assert(DataTypeOf<int32_t>() == XLA_FFI_DataType_S32);
  static_assert(DataTypeOf<int64_t>() == XLA_FFI_DataType_S64);
  static_assert(DataTypeOf<uint8_t>() == XLA_FFI_DataType_U8);
  static_assert(DataTypeOf<uint16_t>() == XLA_FFI_DataType_U16);
  static_assert(DataTypeOf<uint32_t>() == XLA_FFI_DataType_U32);
  static_assert(DataTypeOf<uint64_t>() == XLA_FFI_DataType_U64);
  static_assert(DataTypeOf<float>() == XLA_FFI_DataType_F32);
  static_assert(DataTypeOf<double>() == XLA_FFI_DataType_F64);
  static_assert(DataTypeOf<std::complex<float>>() == XLA_FFI_DataType_C64);
  static_assert(DataTypeOf<std::complex<double>>() == XLA_FFI_DataType_C128);
}

}  // namespace
