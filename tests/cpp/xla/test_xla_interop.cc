// Handlers written against jaxlib's official ffi.h (FFI 0.3 and 0.5 builds
// of xla_interop_handlers.cc) run unchanged through xffi's runtime: frames
// from the harness, errors, state, user data, the thread pool and futures
// all come from xffi. Every test runs once per official header version.
#include <complex>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/c_api.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"
#include "xla_interop_symbols.h"

namespace {

using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Dictionary;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;
using xffi::testing::InvokeResult;

std::string ErrorText(XLA_FFI_Error* error) {
  if (error == nullptr) return "";
  const XLA_FFI_Api* api = xffi::GetApi();
  XLA_FFI_Error_GetDetails_Args details{};
  details.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  details.error = error;
  api->XLA_FFI_Error_GetDetails(&details);
  std::string text = details.message ? details.message : "(no message)";
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  api->XLA_FFI_Error_Destroy(&destroy);
  return text;
}

// Types and handlers are registered once per process through xffi's API
// table, by the official header's own registration functions.
void RegisterOnce(const XlaInteropHandlers& h) {
  static std::mutex mutex;
  static bool done[2] = {false, false};
  std::lock_guard<std::mutex> lock(mutex);
  bool& flag = done[h.minor == 3 ? 0 : 1];
  if (flag) return;
  flag = true;
  ASSERT_EQ(ErrorText(h.RegisterTypes(xffi::GetApi())), "");
  ASSERT_EQ(ErrorText(h.RegisterHandlers(
                xffi::GetApi(), (std::string("xla_") + h.label).c_str())),
            "");
}

class XlaInterop : public ::testing::TestWithParam<XlaInteropHandlers> {
 protected:
  void SetUp() override { RegisterOnce(GetParam()); }
  const XlaInteropHandlers& h() const { return GetParam(); }
  std::string Name(const char* suffix) const {
    return std::string("xla_") + h().label + "." + suffix;
  }
};

TEST_P(XlaInterop, HeaderIsTheExpectedVersion) {
  EXPECT_EQ(h().HeaderMinor(), h().minor);
}

// ---- buffers ---------------------------------------------------------------

TEST_P(XlaInterop, TypedAndUntypedBuffers) {
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, out[4] = {};
  auto frame = CallFrameBuilder().Arg(x, {4}).Arg(y, {4}).Ret(out, {4}).Build();
  InvokeResult result = Invoke(h().AddBuffers, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(11, 22, 33, 44));
}

TEST_P(XlaInterop, UntypedBufferCheckedByTheHandler) {
  float x[2] = {1, 2}, out[2] = {};
  int32_t y[2] = {1, 2};
  auto frame = CallFrameBuilder().Arg(x, {2}).Arg(y, {2}).Ret(out, {2}).Build();
  InvokeResult result = Invoke(h().AddBuffers, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(), "y must be F32 with as many elements as x");
}

TEST_P(XlaInterop, TypedBufferDtypeIsChecked) {
  int32_t x[2] = {1, 2};
  float y[2] = {1, 2}, out[2] = {};
  auto frame = CallFrameBuilder().Arg(x, {2}).Arg(y, {2}).Ret(out, {2}).Build();
  InvokeResult result = Invoke(h().AddBuffers, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("Wrong buffer dtype"));
  EXPECT_THAT(result.message(), HasSubstr("bad operands at: 0"));
}

TEST_P(XlaInterop, TypedBufferRankIsChecked) {
  int32_t m[6] = {1, 2, 3, 4, 5, 6};
  int64_t out = 0;
  auto ok = CallFrameBuilder().Arg(m, {2, 3}).Ret(&out, {}).Build();
  InvokeResult result = Invoke(h().SumMatrix, ok);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 21 * 1000 + 2 * 10 + 3);

  auto bad = CallFrameBuilder().Arg(m, {6}).Ret(&out, {}).Build();
  result = Invoke(h().SumMatrix, bad);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("Wrong buffer rank"));
}

TEST_P(XlaInterop, WrongNumberOfArgumentsIsReported) {
  float x[2] = {1, 2}, out[2] = {};
  auto frame = CallFrameBuilder().Arg(x, {2}).Ret(out, {2}).Build();
  InvokeResult result = Invoke(h().AddBuffers, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("Wrong number of arguments"));
}

// ---- attributes ------------------------------------------------------------

TEST_P(XlaInterop, EveryScalarAttributeKind) {
  double out[16] = {};
  auto frame = CallFrameBuilder()
                   .Attr("b", true)
                   .Attr("i8", int8_t{-8})
                   .Attr("i16", int16_t{-16})
                   .Attr("i32", int32_t{-32})
                   .Attr("i64", int64_t{-64})
                   .Attr("u8", uint8_t{8})
                   .Attr("u16", uint16_t{16})
                   .Attr("u32", uint32_t{32})
                   .Attr("u64", uint64_t{64})
                   .Attr("f32", 1.5f)
                   .Attr("f64", 2.25)
                   .Attr("str", "hello")
                   .Attr("c64", std::complex<float>(1.0f, -2.0f))
                   .Attr("c128", std::complex<double>(3.0, -4.0))
                   .Ret(out, {16})
                   .Build();
  InvokeResult result = Invoke(h().EchoScalars, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(1, -8, -16, -32, -64, 8, 16, 32, 64,
                                          1.5, 2.25, 5, 1, -2, 3, -4));
}

TEST_P(XlaInterop, ScalarAttributeOfTheWrongTypeIsReported) {
  double out[16] = {};
  auto frame = CallFrameBuilder()
                   .Attr("b", true)
                   .Attr("i8", int8_t{-8})
                   .Attr("i16", int16_t{-16})
                   .Attr("i32", int64_t{-32})  // should be S32
                   .Attr("i64", int64_t{-64})
                   .Attr("u8", uint8_t{8})
                   .Attr("u16", uint16_t{16})
                   .Attr("u32", uint32_t{32})
                   .Attr("u64", uint64_t{64})
                   .Attr("f32", 1.5f)
                   .Attr("f64", 2.25)
                   .Attr("str", "hello")
                   .Attr("c64", std::complex<float>(1.0f, -2.0f))
                   .Attr("c128", std::complex<double>(3.0, -4.0))
                   .Ret(out, {16})
                   .Build();
  InvokeResult result = Invoke(h().EchoScalars, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("Wrong scalar data type"));
}

TEST_P(XlaInterop, ArrayAttributes) {
  double out[6] = {};
  auto frame = CallFrameBuilder()
                   .Attr("a_i8", std::vector<int8_t>{1, -2})
                   .Attr("a_i32", std::vector<int32_t>{1, 2, 3})
                   .Attr("a_i64", std::vector<int64_t>{})
                   .Attr("a_u16", std::vector<uint16_t>{60000})
                   .Attr("a_f32", std::vector<float>{0.5f, 0.25f})
                   .Attr("a_f64", std::vector<double>{1e3, 2e3, 3e3, 4e3})
                   .Ret(out, {6})
                   .Build();
  InvokeResult result = Invoke(h().SumArrays, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(199, 306, 0, 60100, 200.75, 10400));
}

TEST_P(XlaInterop, NestedDictionary) {
  double out = 0;
  Dictionary inner;
  inner.Set("offset", int64_t{7});
  Dictionary dict;
  dict.Set("scale", int32_t{3}).Set("name", "four").Set("inner", inner);
  auto frame = CallFrameBuilder().Attr("dict", dict).Ret(&out, {}).Build();
  InvokeResult result = Invoke(h().ReadDictionary, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 3 * 4 + 7 + 0.5);
}

TEST_P(XlaInterop, DictionaryEntryErrorsComeBack) {
  double out = 0;
  Dictionary dict;
  dict.Set("scale", int32_t{3}).Set("name", "four");  // no "inner"
  auto frame = CallFrameBuilder().Attr("dict", dict).Ret(&out, {}).Build();
  InvokeResult result = Invoke(h().ReadDictionary, frame);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("inner"));
}

TEST_P(XlaInterop, WholeAttributeDictionary) {
  int64_t out = 0;
  auto frame = CallFrameBuilder()
                   .Attr("weight", int64_t{5})
                   .Attr("z", "last")
                   .Attr("a", 1.0f)
                   .Ret(&out, {})
                   .Build();
  InvokeResult result = Invoke(h().CountAttrs, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 305);
}

TEST_P(XlaInterop, EnumsStructsAndVariants) {
  Dictionary range;
  range.Set("lo", int64_t{10}).Set("hi", int64_t{52});
  struct Case {
    xffi::testing::AttrValue choice;
    double index;
    double value;
  };
  const Case cases[] = {
      {int32_t{9}, 0, 9}, {2.5f, 1, 2.5}, {std::string("abc"), 2, 3}};
  for (const Case& c : cases) {
    double out[5] = {};
    auto frame = CallFrameBuilder()
                     .Attr("mode", int32_t{7})
                     .Attr("level", uint8_t{200})
                     .Attr("range", range)
                     .Attr("choice", c.choice)
                     .Ret(out, {5})
                     .Build();
    InvokeResult result = Invoke(h().EnumsStructsVariants, frame);
    ASSERT_TRUE(result.ok()) << result.message();
    EXPECT_THAT(out, ::testing::ElementsAre(7, 200, 42, c.index, c.value));
  }
}

TEST_P(XlaInterop, VariantWithNoMatchingAlternativeIsReported) {
  Dictionary range;
  range.Set("lo", int64_t{10}).Set("hi", int64_t{52});
  double out[5] = {};
  auto frame = CallFrameBuilder()
                   .Attr("mode", int32_t{7})
                   .Attr("level", uint8_t{200})
                   .Attr("range", range)
                   .Attr("choice", 1.0)  // F64 is none of i32, f32, string
                   .Ret(out, {5})
                   .Build();
  InvokeResult result = Invoke(h().EnumsStructsVariants, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("variant"));
}

TEST_P(XlaInterop, StructDecodedFromTheWholeDictionary) {
  float out = 0;
  auto frame = CallFrameBuilder()
                   .Attr("x", int32_t{3})
                   .Attr("y", int32_t{4})
                   .Attr("scale", 0.5f)
                   .Ret(&out, {})
                   .Build();
  InvokeResult result = Invoke(h().WindowArea, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 6.0f);

  auto missing = CallFrameBuilder()
                     .Attr("x", int32_t{3})
                     .Attr("scale", 0.5f)
                     .Ret(&out, {})
                     .Build();
  result = Invoke(h().WindowArea, missing);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

// ---- remaining args and rets -----------------------------------------------

TEST_P(XlaInterop, RemainingArgsAndRets) {
  float scale = 2, a[2] = {1, 2}, b[3] = {3, 4, 5}, oa[2] = {}, ob[3] = {};
  auto frame = CallFrameBuilder()
                   .Arg(&scale, {})
                   .Arg(a, {2})
                   .Arg(b, {3})
                   .Ret(oa, {2})
                   .Ret(ob, {3})
                   .Build();
  InvokeResult result = Invoke(h().ScaleAll, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(oa, ::testing::ElementsAre(2, 4));
  EXPECT_THAT(ob, ::testing::ElementsAre(6, 8, 10));

  int32_t c[1] = {1};
  float oc[1] = {};
  auto wrong =
      CallFrameBuilder().Arg(&scale, {}).Arg(c, {1}).Ret(oc, {1}).Build();
  result = Invoke(h().ScaleAll, wrong);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(), "remaining arg 0 is not F32");
}

// ---- registration, state, user data ----------------------------------------

TEST_P(XlaInterop, RegisteredThroughXffisApiTable) {
  auto counter = xffi::FindHandler(Name("counter"), "Host");
  ASSERT_TRUE(counter.ok()) << counter.status().message();
  EXPECT_EQ((*counter)->api_major, 0);
  EXPECT_EQ((*counter)->api_minor, h().minor);
  EXPECT_EQ((*counter)->bundle.instantiate, h().CounterInstantiate);
  EXPECT_EQ((*counter)->bundle.execute, h().CounterExecute);
  EXPECT_EQ((*counter)->bundle.prepare, nullptr);
  EXPECT_EQ((*counter)->bundle.record, nullptr);
  EXPECT_EQ((*counter)->state_type_id.type_id, h().CounterTypeId());
  EXPECT_EQ((*counter)->signature, nullptr);  // XLA's header ignores ours

  // Registered under "cpu" with traits; the 0.3 header passes its 84-byte
  // args (traits at offset 80), the 0.5 header 92 bytes (traits at 88).
  auto add = xffi::FindHandler(Name("add_buffers"), "Host");
  ASSERT_TRUE(add.ok()) << add.status().message();
  EXPECT_EQ((*add)->traits, XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  EXPECT_EQ((*add)->bundle.execute, h().AddBuffers);
  EXPECT_EQ((*add)->bundle.record, nullptr);
  EXPECT_EQ((*add)->api_minor, h().minor);
}

TEST_P(XlaInterop, TypesRegisteredThroughXffisApiTable) {
  EXPECT_GT(h().CounterTypeId(), 0);
  EXPECT_GT(h().ConfigTypeId(), 0);
  EXPECT_NE(h().CounterTypeId(), h().ConfigTypeId());
  EXPECT_EQ(xffi::TypeName(XLA_FFI_TypeId{h().CounterTypeId()}),
            std::string("xla_") + h().label + ".Counter");
}

TEST_P(XlaInterop, StateFromInstantiateIsReadAtExecute) {
  xffi::CallSiteState state;
  InvokeOptions options;
  options.state = &state;

  auto instantiate = CallFrameBuilder().Attr("start", int64_t{40}).Build();
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  InvokeResult result = xffi::testing::InvokeRegistered(Name("counter"), "Host",
                                                        instantiate, options);
  ASSERT_TRUE(result.ok()) << result.message();

  int64_t out = 0;
  auto execute = CallFrameBuilder().Ret(&out, {}).Build();
  options.stage = XLA_FFI_ExecutionStage_EXECUTE;
  result = xffi::testing::InvokeRegistered(Name("counter"), "Host", execute,
                                           options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 41);
  result = xffi::testing::InvokeRegistered(Name("counter"), "Host", execute,
                                           options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 42);
}

TEST_P(XlaInterop, StateErrors) {
  xffi::CallSiteState state;
  InvokeOptions options;
  options.state = &state;
  options.handler_api_minor = h().minor;

  auto instantiate = CallFrameBuilder().Attr("start", int64_t{-1}).Build();
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  InvokeResult result = Invoke(h().CounterInstantiate, instantiate, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(), "start < 0");

  // Execute without a state from instantiate: XLA's header reports the
  // runtime's State_Get error.
  int64_t out = 0;
  auto execute = CallFrameBuilder().Ret(&out, {}).Build();
  options.stage = XLA_FFI_ExecutionStage_EXECUTE;
  result = Invoke(h().CounterExecute, execute, options);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("state"));
}

TEST_P(XlaInterop, UserData) {
  xffi::ExecutionContext context;
  ASSERT_TRUE(context
                  .InsertUserData(XLA_FFI_TypeId{h().ConfigTypeId()},
                                  h().NewConfig(21), h().DeleteConfig)
                  .ok());
  InvokeOptions options;
  options.context = &context;
  int64_t out = 0;
  auto frame = CallFrameBuilder().Ret(&out, {}).Build();
  InvokeResult result = Invoke(h().ReadConfig, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 42);

  xffi::ExecutionContext empty;
  options.context = &empty;
  result = Invoke(h().ReadConfig, frame, options);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("user data"));
}

// ---- errors and context ----------------------------------------------------

TEST_P(XlaInterop, HandlerErrorsComeBackThroughXffi) {
  auto frame = CallFrameBuilder().Attr("why", "boom").Build();
  InvokeResult result = Invoke(h().Fail, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(result.message(), "official-header handler failed: boom");
}

TEST_P(XlaInterop, MissingAttributeIsReported) {
  auto frame = CallFrameBuilder().Build();
  InvokeResult result = Invoke(h().Fail, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("Wrong number of attributes"));
}

TEST_P(XlaInterop, RunIdAndDeviceOrdinal) {
  xffi::ExecutionContext context;
  context.set_run_id(77);
  context.set_device_ordinal(3);
  InvokeOptions options;
  options.context = &context;
  int64_t out[2] = {};
  auto frame = CallFrameBuilder().Ret(out, {2}).Build();
  InvokeResult result = Invoke(h().RunInfo, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(77, 3));
}

TEST_P(XlaInterop, ThreadPoolAndFutures) {
  xffi::ThreadPool pool(2);
  xffi::ExecutionContext context;
  context.set_thread_pool(&pool);
  InvokeOptions options;
  options.context = &context;

  int64_t out[8] = {};
  auto frame = CallFrameBuilder().Attr("fail", false).Ret(out, {8}).Build();
  InvokeResult result = Invoke(h().FillOnPool, frame, options);
  EXPECT_TRUE(result.is_async());
  result.Wait();
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(2000, 1, 4, 9, 16, 25, 36, 49));

  auto failing = CallFrameBuilder().Attr("fail", true).Ret(out, {8}).Build();
  result = Invoke(h().FillOnPool, failing, options);
  EXPECT_TRUE(result.is_async());
  result.Wait();
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_ABORTED);
  EXPECT_EQ(result.message(), "async failure from the pool");
}

// ---- FFI 0.5 only ----------------------------------------------------------

TEST(XlaInteropV05, CustomOptionsComeFromTheContext) {
  auto options_frame =
      CallFrameBuilder().Attr("scale", int64_t{4}).Attr("tag", "x").Build();
  xffi::ExecutionContext context;
  context.set_custom_options(&options_frame.get()->attrs);
  InvokeOptions options;
  options.context = &context;
  int64_t out = 0;
  auto frame = CallFrameBuilder().Ret(&out, {}).Build();
  InvokeResult result = Invoke(XlaV05_ReadCustomOptions, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 42);

  // No options: an empty dictionary, so the handler's own lookup fails.
  result = Invoke(XlaV05_ReadCustomOptions, frame);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("scale"));
}

TEST(XlaInteropV05, BackendExtensionsAreFoundByType) {
  XffiTestExtensionC ext{};
  ext.extension.struct_size = sizeof(ext);
  ext.extension.id.extension_type = kXffiTestExtensionType;
  ext.extension.id.major_version = 1;
  ext.extension.id.minor_version = 2;
  ext.payload = 1234;
  xffi::ExecutionContext context;
  context.AddExtension(&ext.extension);
  InvokeOptions options;
  options.context = &context;
  int64_t out = 0;
  auto frame = CallFrameBuilder().Ret(&out, {}).Build();
  InvokeResult result = Invoke(XlaV05_ReadExtension, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 1234);

  ext.extension.id.minor_version = 3;  // XLA's header wants an exact match
  result = Invoke(XlaV05_ReadExtension, frame, options);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("version mismatch"));

  xffi::ExecutionContext bare;
  options.context = &bare;
  result = Invoke(XlaV05_ReadExtension, frame, options);
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.message(), HasSubstr("not found"));
}

TEST(XlaInteropV05, RecordStage) {
  int64_t out = 0;
  auto frame = CallFrameBuilder().Ret(&out, {}).Build();
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_RECORD;
  InvokeResult result = Invoke(XlaV05_Record, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, XLA_FFI_ExecutionStage_RECORD);

  // Called at EXECUTE, a record-stage binding refuses.
  result = Invoke(XlaV05_Record, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("stage"));
}

INSTANTIATE_TEST_SUITE_P(
    OfficialHeaders, XlaInterop,
    ::testing::Values(XFFI_MAKE_INTEROP_HANDLERS(XlaV03_, "v03", 3),
                      XFFI_MAKE_INTEROP_HANDLERS(XlaV05_, "v05", 5)),
    [](const ::testing::TestParamInfo<XlaInteropHandlers>& info) {
      return std::string(info.param.label);
    });

}  // namespace
