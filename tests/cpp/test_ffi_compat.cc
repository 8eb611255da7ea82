// The header against API tables of every version from 0.1 to 0.5: it must
// pick the struct layouts each version's runtime expects (handler
// registration, error queries, state).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

namespace compat_test {

struct Seen {
  size_t register_size = 0;
  uint32_t register_traits = 0;
  XLA_FFI_Handler* register_execute = nullptr;
  size_t error_query_size = 0;
  size_t state_set_size = 0;
  size_t state_get_size = 0;
};
Seen seen;

const XLA_FFI_Api* Real() { return xffi::GetApi(); }

XLA_FFI_Error* RecordRegister(XLA_FFI_Handler_Register_Args* args) {
  seen.register_size = args->struct_size;
  const char* bytes = reinterpret_cast<const char*>(args);
  size_t traits_offset = args->struct_size == 84 ? 80 : 88;
  std::memcpy(&seen.register_traits, bytes + traits_offset,
              sizeof(seen.register_traits));
  seen.register_execute = args->bundle.execute;  // same offset in both
  return nullptr;
}

void RecordErrorQuery(XLA_FFI_Error_GetDetails_Args* args) {
  seen.error_query_size = args->struct_size;
  Real()->XLA_FFI_Error_GetDetails(args);
}

XLA_FFI_Error* RecordStateSet(XLA_FFI_State_Set_Args* args) {
  seen.state_set_size = args->struct_size;
  return Real()->XLA_FFI_State_Set(args);
}

XLA_FFI_Error* RecordStateGet(XLA_FFI_State_Get_Args* args) {
  seen.state_get_size = args->struct_size;
  return Real()->XLA_FFI_State_Get(args);
}

// xffi's table, dressed up as a runtime of API 0.`minor`.
XLA_FFI_Api FakeApi(int minor) {
  XLA_FFI_Api api = *Real();
  api.api_version.minor_version = minor;
  if (minor < 4) {
    api.struct_size =
        offsetof(XLA_FFI_Api, XLA_FFI_InvokeContext_FindExtension);
  } else if (minor < 5) {
    api.struct_size = offsetof(XLA_FFI_Api, XLA_FFI_CustomOptions_Get);
  }
  api.XLA_FFI_Handler_Register = RecordRegister;
  api.XLA_FFI_Error_GetDetails = RecordErrorQuery;
  api.XLA_FFI_State_Set = RecordStateSet;
  api.XLA_FFI_State_Get = RecordStateGet;
  return api;
}

struct Box {
  static ffi::TypeId id;
  int value;
};
ffi::TypeId Box::id = {};
XFFI_REGISTER_TYPE(xffi::GetApi(), "test_ffi_compat.Box", &Box::id,
                   ffi::MakeTypeInfo<Box>());

}  // namespace compat_test

namespace {

using compat_test::Box;
using compat_test::FakeApi;
using compat_test::seen;

XLA_FFI_Error* Execute(XLA_FFI_CallFrame*) { return nullptr; }
XLA_FFI_Error* Record(XLA_FFI_CallFrame*) { return nullptr; }

class FfiCompat : public ::testing::TestWithParam<int> {};

TEST_P(FfiCompat, RegistrationUsesTheRuntimesLayout) {
  int minor = GetParam();
  XLA_FFI_Api api = FakeApi(minor);
  seen = {};
  XLA_FFI_Error* error = ffi::Ffi::RegisterStaticHandler(
      &api, "compat", "Host", Execute,
      XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  EXPECT_EQ(error, nullptr);
  EXPECT_EQ(seen.register_size, minor <= 3 ? 84u : 92u);
  EXPECT_EQ(
      seen.register_traits,
      static_cast<uint32_t>(XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE));
  EXPECT_EQ(seen.register_execute, &Execute);
}

TEST_P(FfiCompat, RecordStageNeedsApi4) {
  int minor = GetParam();
  XLA_FFI_Api api = FakeApi(minor);
  XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, Execute, Record};
  XLA_FFI_Error* error =
      ffi::Ffi::RegisterStaticHandler(&api, "compat.record", "Host", bundle);
  if (minor >= 4) {
    EXPECT_EQ(error, nullptr);
  } else {
    ASSERT_NE(error, nullptr);
    ffi::Error taken = ffi::internal::TakeError(&api, error);
    EXPECT_EQ(taken.message(),
              "handler 'compat.record' has a record stage, which needs XLA "
              "FFI API 0.4; the runtime has 0." +
                  std::to_string(minor));
  }
}

TEST_P(FfiCompat, ErrorQueriesUseTheRuntimesLayout) {
  int minor = GetParam();
  XLA_FFI_Api api = FakeApi(minor);
  seen = {};
  auto handler = ffi::Ffi::Bind().Ctx<ffi::PlatformStream<void*>>().To(
      [](void*) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.api = &api;
  auto result = Invoke(*handler, frame, options);
  EXPECT_THAT(result.message(), HasSubstr("Host has no streams"));
  EXPECT_EQ(seen.error_query_size, minor >= 4 ? 36u : 32u);
}

TEST_P(FfiCompat, StateUsesTheRuntimesLayout) {
  int minor = GetParam();
  XLA_FFI_Api api = FakeApi(minor);
  seen = {};
  auto instantiate = ffi::Ffi::BindInstantiate().To(
      []() -> ffi::ErrorOr<std::unique_ptr<Box>> {
        return std::make_unique<Box>(Box{41});
      });
  auto execute = ffi::Ffi::Bind().Ctx<ffi::State<Box>>().To([](Box* box) {
    return ffi::Error::Internal(std::to_string(box->value + 1));
  });
  auto frame = CallFrameBuilder().Build();
  xffi::CallSiteState state;
  InvokeOptions options;
  options.api = &api;
  options.state = &state;
  options.handler_api_minor = XFFI_TARGET_API_MINOR;
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  auto created = Invoke(*instantiate, frame, options);
  ASSERT_TRUE(created.ok()) << created.message();
  options.stage = XLA_FFI_ExecutionStage_EXECUTE;
  EXPECT_EQ(Invoke(*execute, frame, options).message(), "42");
  size_t expected = minor >= 3 ? 48u : 40u;
  EXPECT_EQ(seen.state_set_size, expected);
  EXPECT_EQ(seen.state_get_size, expected);
}

TEST_P(FfiCompat, CustomOptionsNeedApi5) {
  int minor = GetParam();
  XLA_FFI_Api api = FakeApi(minor);
  auto handler = ffi::Ffi::Bind().Ctx<ffi::CustomOptions>().To(
      [](ffi::Dictionary) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.api = &api;
  auto result = Invoke(*handler, frame, options);
  if (minor >= 5) {
    EXPECT_TRUE(result.ok()) << result.message();
  } else {
    EXPECT_EQ(result.message(),
              "context CustomOptions: custom options need XLA FFI API 0.5; "
              "the runtime has 0." +
                  std::to_string(minor));
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, FfiCompat, ::testing::Values(1, 2, 3, 4, 5),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "api_0_" + std::to_string(info.param);
                         });

}  // namespace
