// The API table and its error entry points.
#include <cstddef>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "xffi/runtime.h"  // the umbrella builds on its own
#include "xffi/runtime/api.h"

namespace {

const XLA_FFI_Api* Api() { return xffi::GetApi(); }

XLA_FFI_Error* Create(XLA_FFI_Error_Code code, const char* message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = message;
  args.errc = code;
  return Api()->XLA_FFI_Error_Create(&args);
}

void Destroy(XLA_FFI_Error* error) {
  XLA_FFI_Error_Destroy_Args args{};
  args.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  args.error = error;
  Api()->XLA_FFI_Error_Destroy(&args);
}

std::pair<XLA_FFI_Error_Code, std::string> Details(XLA_FFI_Error* error) {
  XLA_FFI_Error_GetDetails_Args args{};
  args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  args.error = error;
  Api()->XLA_FFI_Error_GetDetails(&args);
  return {args.errc, args.message ? args.message : "<null>"};
}

TEST(RuntimeApiTable, VersionAndSize) {
  const XLA_FFI_Api* api = Api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api, XLA_FFI_GetApi());
  EXPECT_EQ(api->struct_size, XLA_FFI_Api_STRUCT_SIZE);
  EXPECT_EQ(api->api_version.struct_size, XLA_FFI_Api_Version_STRUCT_SIZE);
  EXPECT_EQ(api->api_version.major_version, 0);
  EXPECT_EQ(api->api_version.minor_version, 5);
  EXPECT_EQ(api->internal_api, nullptr);
  EXPECT_TRUE(XFFI_API_HAS(api, XLA_FFI_CustomOptions_Get));
  // Every slot is filled.
  const char* first = reinterpret_cast<const char*>(&api->XLA_FFI_Error_Create);
  const char* end = reinterpret_cast<const char*>(api) + sizeof(XLA_FFI_Api);
  for (const char* slot = first; slot < end; slot += sizeof(void*)) {
    void* fn;
    std::memcpy(&fn, slot, sizeof(fn));
    EXPECT_NE(fn, nullptr) << "slot at offset "
                           << (slot - reinterpret_cast<const char*>(api));
  }
}

TEST(RuntimeErrors, CreateCopiesMessage) {
  char message[] = "original text";
  XLA_FFI_Error* error = Create(XLA_FFI_Error_Code_NOT_FOUND, message);
  ASSERT_NE(error, nullptr);
  std::strcpy(message, "overwritten!!");
  auto [code, text] = Details(error);
  EXPECT_EQ(code, XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_EQ(text, "original text");
  Destroy(error);
}

TEST(RuntimeErrors, NullMessageIsEmpty) {
  XLA_FFI_Error* error = Create(XLA_FFI_Error_Code_INTERNAL, nullptr);
  auto [code, text] = Details(error);
  EXPECT_EQ(code, XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(text, "");
  Destroy(error);
}

TEST(RuntimeErrors, CreateRejectsBadArgs) {
  XLA_FFI_Error* error = Api()->XLA_FFI_Error_Create(nullptr);
  ASSERT_NE(error, nullptr);
  auto [code, text] = Details(error);
  EXPECT_EQ(code, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(text,
            "XLA_FFI_Error_Create: the XLA_FFI_Error_Create_Args pointer is "
            "null");
  Destroy(error);

  XLA_FFI_Error_Create_Args small{};
  small.struct_size = 8;
  error = Api()->XLA_FFI_Error_Create(&small);
  auto [code2, text2] = Details(error);
  EXPECT_EQ(code2, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(text2,
            "XLA_FFI_Error_Create: XLA_FFI_Error_Create_Args.struct_size is 8 "
            "but must be at least 28");
  Destroy(error);
}

// A 0.1-0.3 caller passes the 32-byte GetMessage struct through the same
// slot: the runtime must not write the code past its end.
TEST(RuntimeErrors, OldGetMessageLayoutGetsNoCode) {
  XLA_FFI_Error* error = Create(XLA_FFI_Error_Code_ABORTED, "old caller");
  struct {
    XLA_FFI_Error_GetMessage_Args args;
    uint32_t canary;
  } old{};
  static_assert(XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE == 32);
  old.args.struct_size = XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE;
  old.args.error = error;
  old.canary = 0xC0FFEEu;
  Api()->XLA_FFI_Error_GetMessage(&old.args);
  EXPECT_STREQ(old.args.message, "old caller");
  EXPECT_EQ(old.canary, 0xC0FFEEu);
  Destroy(error);
}

TEST(RuntimeErrors, GetDetailsToleratesBadArgs) {
  Api()->XLA_FFI_Error_GetDetails(nullptr);  // nothing to report to
  XLA_FFI_Error_GetDetails_Args tiny{};
  tiny.struct_size = 16;
  Api()->XLA_FFI_Error_GetDetails(&tiny);
  EXPECT_EQ(tiny.message, nullptr);

  XLA_FFI_Error_GetDetails_Args null_error{};
  null_error.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  Api()->XLA_FFI_Error_GetDetails(&null_error);
  EXPECT_EQ(null_error.errc, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(std::string(null_error.message).find("null XLA_FFI_Error"),
            std::string::npos);
}

TEST(RuntimeErrors, UnknownCodesBecomeUnknown) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = "odd";
  const int32_t code = 99;  // no XLA_FFI_Error_Code: written as an integer
  std::memcpy(&args.errc, &code, sizeof(code));
  XLA_FFI_Error* error = Api()->XLA_FFI_Error_Create(&args);
  auto [errc, text] = Details(error);
  EXPECT_EQ(errc, XLA_FFI_Error_Code_UNKNOWN);
  EXPECT_EQ(text,
            "odd (XLA_FFI_Error_Create was given the unknown error code 99)");
  Destroy(error);
}

TEST(RuntimeErrors, DestroyToleratesNull) {
  Api()->XLA_FFI_Error_Destroy(nullptr);
  Destroy(nullptr);
}

}  // namespace
