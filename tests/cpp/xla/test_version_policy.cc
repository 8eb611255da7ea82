// The version policy at registration: xffi's runtime accepts handlers that
// report XLA FFI API 0.1 to 0.5 and refuses anything else with a message
// that names the handler, its version and ours. Handlers built with the
// official 0.3 and 0.5 headers (xla_interop_handlers.cc) register through
// their own header's registration code, each passing its version's
// Handler_Register_Args layout, and run.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/c_api.h"
#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"
#include "xla_interop_symbols.h"

namespace {

using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;

std::string TakeErrorText(XLA_FFI_Error* error) {
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

// A handler written against the C ABI alone that answers the metadata query
// with (kMajor, kMinor) and, when executed, writes 100 * major + minor into
// its first result.
template <int kMajor, int kMinor>
XLA_FFI_Error* VersionedHandler(XLA_FFI_CallFrame* frame) {
  for (XLA_FFI_InternalExtension* ext = frame->extension_start; ext != nullptr;
       ext = ext->next) {
    if (ext->type == XLA_FFI_Extension_Metadata) {
      auto* metadata = reinterpret_cast<XLA_FFI_Metadata_Extension*>(ext);
      metadata->metadata->api_version.major_version = kMajor;
      metadata->metadata->api_version.minor_version = kMinor;
      metadata->metadata->traits = 0;
      return nullptr;
    }
  }
  auto* out = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  *static_cast<int64_t*>(out->data) = 100 * kMajor + kMinor;
  return nullptr;
}

XLA_FFI_Handler_Bundle ExecuteOnly(XLA_FFI_Handler* execute) {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = execute;
  return bundle;
}

// ---- hand-written handlers: every version in range, none outside ---------

TEST(VersionPolicy, AcceptsEveryVersionFrom01To05) {
  struct Case {
    const char* name;
    XLA_FFI_Handler* handler;
    int minor;
  };
  const Case cases[] = {
      {"policy.v01", VersionedHandler<0, 1>, 1},
      {"policy.v02", VersionedHandler<0, 2>, 2},
      {"policy.v03", VersionedHandler<0, 3>, 3},
      {"policy.v04", VersionedHandler<0, 4>, 4},
      {"policy.v05", VersionedHandler<0, 5>, 5},
  };
  for (const Case& c : cases) {
    xffi::Status status =
        xffi::RegisterHandler(c.name, "Host", ExecuteOnly(c.handler));
    ASSERT_TRUE(status.ok()) << c.name << ": " << status.message();
    auto record = xffi::FindHandler(c.name, "Host");
    ASSERT_TRUE(record.ok()) << c.name;
    EXPECT_EQ((*record)->api_major, 0);
    EXPECT_EQ((*record)->api_minor, c.minor);

    int64_t out = 0;
    auto frame = CallFrameBuilder().Ret(&out, {}).Build();
    auto result = xffi::testing::InvokeRegistered(c.name, "Host", frame);
    ASSERT_TRUE(result.ok()) << result.message();
    EXPECT_EQ(out, c.minor);
  }
}

TEST(VersionPolicy, RefusesNewerMinorNamingHandlerAndBothVersions) {
  xffi::Status status = xffi::RegisterHandler(
      "policy.too_new", "Host", ExecuteOnly(VersionedHandler<0, 6>));
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "handler 'policy.too_new' (platform Host) was built for XLA FFI "
            "API 0.6; this runtime supports 0.1 to 0.5");
  EXPECT_FALSE(xffi::FindHandler("policy.too_new", "Host").ok());
}

TEST(VersionPolicy, RefusesNewerMajor) {
  xffi::Status status = xffi::RegisterHandler(
      "policy.major", "cpu", ExecuteOnly(VersionedHandler<1, 0>));
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "handler 'policy.major' (platform Host) was built for XLA FFI "
            "API 1.0; this runtime supports 0.1 to 0.5");
}

TEST(VersionPolicy, RefusesVersion00) {
  // 0.0 numbered the execution stages differently.
  xffi::Status status = xffi::RegisterHandler(
      "policy.v00", "Host", ExecuteOnly(VersionedHandler<0, 0>));
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("'policy.v00'"));
  EXPECT_THAT(status.message(), HasSubstr("API 0.0"));
  EXPECT_THAT(status.message(), HasSubstr("0.1 to 0.5"));
}

TEST(VersionPolicy, RefusalThroughTheApiTableCarriesTheSameMessage) {
  const std::string name = "policy.table_too_new";
  XLA_FFI_Handler_Register_Args args{};
  args.struct_size = XLA_FFI_Handler_Register_Args_STRUCT_SIZE;
  args.name = XLA_FFI_ByteSpan{name.data(), name.size()};
  args.platform = XLA_FFI_ByteSpan{"CUDA", 4};
  args.bundle.execute = VersionedHandler<0, 6>;
  EXPECT_EQ(TakeErrorText(xffi::GetApi()->XLA_FFI_Handler_Register(&args)),
            "handler 'policy.table_too_new' (platform CUDA) was built for "
            "XLA FFI API 0.6; this runtime supports 0.1 to 0.5");
}

// The layout a 0.1-0.3 caller passes: a 32-byte bundle and traits at 80.
struct RegisterArgsV03 {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
  XLA_FFI_Handler_Traits traits;
};
static_assert(offsetof(RegisterArgsV03, traits) == 80);

TEST(VersionPolicy, ReadsThe84ByteRegisterArgsOfOldCallers) {
  const std::string name = "policy.args84";
  RegisterArgsV03 args{};
  args.struct_size = 84;
  args.name = XLA_FFI_ByteSpan{name.data(), name.size()};
  args.platform = XLA_FFI_ByteSpan{"Host", 4};
  args.execute = VersionedHandler<0, 3>;
  args.traits = XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE;
  EXPECT_EQ(TakeErrorText(xffi::GetApi()->XLA_FFI_Handler_Register(
                reinterpret_cast<XLA_FFI_Handler_Register_Args*>(&args))),
            "");
  auto record = xffi::FindHandler(name, "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->traits,
            XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  EXPECT_EQ((*record)->bundle.execute, (&VersionedHandler<0, 3>));
  EXPECT_EQ((*record)->bundle.record, nullptr);
  EXPECT_EQ((*record)->api_minor, 3);
}

TEST(VersionPolicy, RefusesRegisterArgsSmallerThanAnyVersion) {
  const std::string name = "policy.args_short";
  RegisterArgsV03 args{};
  args.struct_size = 80;
  args.name = XLA_FFI_ByteSpan{name.data(), name.size()};
  args.platform = XLA_FFI_ByteSpan{"Host", 4};
  args.execute = VersionedHandler<0, 3>;
  std::string text = TakeErrorText(xffi::GetApi()->XLA_FFI_Handler_Register(
      reinterpret_cast<XLA_FFI_Handler_Register_Args*>(&args)));
  EXPECT_THAT(text, HasSubstr("XLA_FFI_Handler_Register_Args"));
  EXPECT_FALSE(xffi::FindHandler(name, "Host").ok());
}

// ---- a handler built with xffi's header, against an older API table -------
//
// xffi's ffi.h must work inside any runtime from FFI 0.1 on: it reads the
// table's api_version before using a version-dependent layout. These tables
// are copies of xffi's own with an older version and slots that record (and
// check) the struct sizes the header passes, then forward to xffi.

namespace xf = ::xffi::ffi;

struct SeenSizes {
  std::atomic<size_t> register_args{0};
  std::atomic<size_t> error_details{0};
  std::atomic<size_t> state_set{0};
  std::atomic<size_t> state_get{0};
};
SeenSizes seen;

XLA_FFI_Error* RecordingRegister(XLA_FFI_Handler_Register_Args* args) {
  seen.register_args = args->struct_size;
  return xffi::GetApi()->XLA_FFI_Handler_Register(args);
}
void RecordingErrorDetails(XLA_FFI_Error_GetDetails_Args* args) {
  seen.error_details = args->struct_size;
  xffi::GetApi()->XLA_FFI_Error_GetDetails(args);
}
XLA_FFI_Error* RecordingStateSet(XLA_FFI_State_Set_Args* args) {
  seen.state_set = args->struct_size;
  return xffi::GetApi()->XLA_FFI_State_Set(args);
}
XLA_FFI_Error* RecordingStateGet(XLA_FFI_State_Get_Args* args) {
  seen.state_get = args->struct_size;
  return xffi::GetApi()->XLA_FFI_State_Get(args);
}

// xffi's table as a runtime of FFI 0.`minor` would present it: the slots of
// that version only (0.2 and 0.3 tables end after DeviceOrdinal_Get).
std::unique_ptr<XLA_FFI_Api> OlderApi(int minor) {
  auto api = std::make_unique<XLA_FFI_Api>(*xffi::GetApi());
  api->api_version.minor_version = minor;
  api->struct_size = offsetof(XLA_FFI_Api, XLA_FFI_InvokeContext_FindExtension);
  api->XLA_FFI_InvokeContext_FindExtension = nullptr;
  api->XLA_FFI_CustomOptions_Get = nullptr;
  api->XLA_FFI_Handler_Register = RecordingRegister;
  api->XLA_FFI_Error_GetDetails = RecordingErrorDetails;
  api->XLA_FFI_State_Set = RecordingStateSet;
  api->XLA_FFI_State_Get = RecordingStateGet;
  return api;
}

struct XffiCounter {
  static xf::TypeId id;
  int64_t value;
};
xf::TypeId XffiCounter::id = {};

xf::ErrorOr<std::unique_ptr<XffiCounter>> MakeXffiCounter(int64_t start) {
  return std::make_unique<XffiCounter>(XffiCounter{start});
}
xf::Error BumpXffiCounter(XffiCounter* counter,
                          xf::Result<xf::BufferR0<xf::S64>> out) {
  *out->typed_data() = ++counter->value;
  return xf::Error::Success();
}

XFFI_DEFINE_HANDLER(kXffiInstantiate, MakeXffiCounter,
                    xf::Ffi::BindInstantiate().Attr<int64_t>("start"));
XFFI_DEFINE_HANDLER(
    kXffiExecute, BumpXffiCounter,
    xf::Ffi::Bind().Ctx<xf::State<XffiCounter>>().Ret<xf::BufferR0<xf::S64>>());

class OlderApiTable : public ::testing::TestWithParam<int> {};

TEST_P(OlderApiTable, XffiHeaderAdaptsItsLayoutsToTheTablesVersion) {
  const int minor = GetParam();
  std::unique_ptr<XLA_FFI_Api> api = OlderApi(minor);
  const std::string type_name = "policy.XffiCounter";
  if (XffiCounter::id.type_id == 0) {
    ASSERT_EQ(TakeErrorText(xf::Ffi::RegisterTypeId(
                  api.get(), type_name, &XffiCounter::id,
                  xf::MakeTypeInfo<XffiCounter>())),
              "");
  }

  const std::string name = "policy.xffi_on_v0" + std::to_string(minor);
  XLA_FFI_Handler_Bundle bundle{};
  bundle.instantiate = kXffiInstantiate;
  bundle.execute = kXffiExecute;
  seen.register_args = 0;
  ASSERT_EQ(TakeErrorText(xf::Ffi::RegisterStaticHandler(
                api.get(), name, "Host", bundle,
                XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE)),
            "");
  // A 0.1-0.3 table gets the 84-byte args, traits at offset 80.
  EXPECT_EQ(seen.register_args.load(), 84u);
  auto record = xffi::FindHandler(name, "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->api_minor, XFFI_TARGET_API_MINOR);
  EXPECT_EQ((*record)->traits,
            XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  EXPECT_EQ((*record)->state_type_id.type_id, XffiCounter::id.type_id);

  // State through the old table: 48-byte args with a stage from 0.3 on,
  // the 40-byte stage-less layout before.
  const size_t state_size = minor >= 3 ? 48u : 40u;
  xffi::CallSiteState state;
  xffi::testing::InvokeOptions options;
  options.api = api.get();
  options.state = &state;
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  auto instantiate = CallFrameBuilder().Attr("start", int64_t{9}).Build();
  auto result =
      xffi::testing::InvokeRegistered(name, "Host", instantiate, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(seen.state_set.load(), state_size);

  int64_t out = 0;
  auto execute = CallFrameBuilder().Ret(&out, {}).Build();
  options.stage = XLA_FFI_ExecutionStage_EXECUTE;
  result = xffi::testing::InvokeRegistered(name, "Host", execute, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 10);
  EXPECT_EQ(seen.state_get.load(), state_size);

  // An error the runtime returns to the handler is read through the
  // 32-byte GetMessage layout of a pre-0.4 table.
  xffi::CallSiteState empty;
  options.state = &empty;
  seen.error_details = 0;
  result = xffi::testing::InvokeRegistered(name, "Host", execute, options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(seen.error_details.load(), 32u);
}

INSTANTIATE_TEST_SUITE_P(Versions, OlderApiTable, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "v0" + std::to_string(info.param);
                         });

// ---- handlers built with the official headers ------------------------------

class OfficialHeaderPolicy
    : public ::testing::TestWithParam<XlaInteropHandlers> {};

// Runs first (gtest keeps definition order; ctest runs each test in its own
// process): XLA's header refuses to describe a stateful handler whose state
// type has no id yet, and xffi passes that on, naming the handler.
TEST_P(OfficialHeaderPolicy, StateTypeMustBeRegisteredBeforeTheHandler) {
  const XlaInteropHandlers& h = GetParam();
  if (h.CounterTypeId() != 0) GTEST_SKIP() << "types already registered";
  XLA_FFI_Handler_Bundle bundle{};
  bundle.instantiate = h.CounterInstantiate;
  bundle.execute = h.CounterExecute;
  const std::string name = std::string("policy.early_") + h.label;
  xffi::Status status = xffi::RegisterHandler(name, "Host", bundle);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(status.message(), HasSubstr("'" + name + "'"));
  EXPECT_THAT(status.message(), HasSubstr("instantiate"));
  EXPECT_THAT(status.message(),
              HasSubstr("must be registered before the handler registration"));
}

TEST_P(OfficialHeaderPolicy, ReportsItsHeaderVersionAndRuns) {
  const XlaInteropHandlers& h = GetParam();
  const std::string name = std::string("policy.official_") + h.label;
  ASSERT_TRUE(
      xffi::RegisterHandler(name, "Host", ExecuteOnly(h.AddBuffers)).ok());
  auto record = xffi::FindHandler(name, "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->api_minor, h.minor);

  float x[2] = {1, 2}, y[2] = {3, 4}, out[2] = {};
  auto frame = CallFrameBuilder().Arg(x, {2}).Arg(y, {2}).Ret(out, {2}).Build();
  auto result = xffi::testing::InvokeRegistered(name, "Host", frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(4, 6));
}

TEST_P(OfficialHeaderPolicy, RegistersAtLoadWithItsOwnMacro) {
  // XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), ...) in a static initializer
  // of xla_interop_handlers.cc found libxffi's table.
  const XlaInteropHandlers& h = GetParam();
  auto record =
      xffi::FindHandler(std::string("xla_") + h.label + ".static_add", "Host");
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ((*record)->api_minor, h.minor);
  EXPECT_EQ((*record)->bundle.execute, h.AddBuffers);
  EXPECT_EQ((*record)->origin, "");
}

TEST_P(OfficialHeaderPolicy, RegistersThroughItsOwnHeadersCode) {
  // RegisterStaticHandler of the official header, called with xffi's table:
  // the 0.3 header passes 84-byte args, the 0.5 header 92.
  const XlaInteropHandlers& h = GetParam();
  const std::string prefix = std::string("policy.own_") + h.label;
  // Registering the same types again (same names, ids already assigned) is
  // accepted, so this holds whatever ran before in the process.
  ASSERT_EQ(TakeErrorText(h.RegisterTypes(xffi::GetApi())), "");
  ASSERT_EQ(TakeErrorText(h.RegisterHandlers(xffi::GetApi(), prefix.c_str())),
            "");
  auto record = xffi::FindHandler(prefix + ".add_buffers", "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->api_minor, h.minor);
  EXPECT_EQ((*record)->traits,
            XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
}

INSTANTIATE_TEST_SUITE_P(
    OfficialHeaders, OfficialHeaderPolicy,
    ::testing::Values(XFFI_MAKE_INTEROP_HANDLERS(XlaV03_, "v03", 3),
                      XFFI_MAKE_INTEROP_HANDLERS(XlaV05_, "v05", 5)),
    [](const ::testing::TestParamInfo<XlaInteropHandlers>& info) {
      return std::string(info.param.label);
    });

}  // namespace
