// The version policy at registration: xffi's runtime accepts handlers that
// report XLA FFI API 0.1 to 0.5 and refuses anything else with a message
// that names the handler, its version and ours. Handlers built with the
// official 0.3 and 0.5 headers (xla_interop_handlers.cc) register through
// their own header's registration code, each passing its version's
// Handler_Register_Args layout, and run.
#include <cstdint>
#include <cstring>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/c_api.h"
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
