// The signature a handler describes itself with (xffi's metadata extension),
// as the runtime records it at registration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "xffi/ffi.h"
#include "xffi/runtime.h"

namespace ffi = xffi::ffi;

enum class Flavor : int32_t { kPlain = 0 };
XFFI_REGISTER_ENUM_ATTR_DECODING(Flavor);

namespace {

struct CuStream;

XFFI_DEFINE_HANDLER(
    kDescribed,
    [](ffi::Buffer<ffi::F32, 2>, ffi::AnyBuffer, std::optional<ffi::Token>,
       ffi::RemainingArgs, ffi::ResultBuffer<ffi::S32, 1>,
       std::optional<ffi::Result<ffi::AnyBuffer>>, float, std::string_view,
       ffi::Span<const int64_t>, ffi::Dictionary, Flavor, CuStream*,
       ffi::ThreadPool) { return ffi::Error::Success(); },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 2>>()
        .Arg<ffi::AnyBuffer>()
        .OptionalArg<ffi::Token>()
        .RemainingArgs()
        .Ret<ffi::Buffer<ffi::S32, 1>>()
        .OptionalRet<ffi::AnyBuffer>()
        .Attr<float>("eps")
        .Attr<std::string_view>("name")
        .Attr<ffi::Span<const int64_t>>("dims")
        .Attr<ffi::Dictionary>("extra")
        .Attr<Flavor>("flavor")
        .Ctx<ffi::PlatformStream<CuStream*>>()
        .Ctx<ffi::ThreadPool>());

struct Expected {
  XFFI_ParamKind kind;
  XLA_FFI_DataType dtype;
  int64_t rank;
  int attr_type;
  const char* name;
  const char* type_name;
};

TEST(FfiSignature, RegistrationRecordsTheSignature) {
  XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, kDescribed, nullptr};
  auto record = xffi::DescribeHandler("described", bundle);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->api_major, 0);
  EXPECT_EQ(record->api_minor, XFFI_TARGET_API_MINOR);
  const XFFI_Signature* sig = record->signature;
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(sig->struct_size, static_cast<size_t>(XFFI_Signature_STRUCT_SIZE));
  EXPECT_EQ(sig->stage, XLA_FFI_ExecutionStage_EXECUTE);

  const Expected expected[] = {
      {XFFI_Param_ARG, XLA_FFI_DataType_F32, 2, 0, nullptr, "Buffer<F32, 2>"},
      {XFFI_Param_ARG, XLA_FFI_DataType_INVALID, -1, 0, nullptr, "AnyBuffer"},
      {XFFI_Param_OPTIONAL_ARG, XLA_FFI_DataType_TOKEN, 0, 0, nullptr, "Token"},
      {XFFI_Param_REMAINING_ARGS, XLA_FFI_DataType_INVALID, -1, 0, nullptr,
       "RemainingArgs"},
      {XFFI_Param_RET, XLA_FFI_DataType_S32, 1, 0, nullptr, "Buffer<S32, 1>"},
      {XFFI_Param_OPTIONAL_RET, XLA_FFI_DataType_INVALID, -1, 0, nullptr,
       "AnyBuffer"},
      {XFFI_Param_ATTR, XLA_FFI_DataType_F32, -1, XLA_FFI_AttrType_SCALAR,
       "eps", "float"},
      {XFFI_Param_ATTR, XLA_FFI_DataType_INVALID, -1, XLA_FFI_AttrType_STRING,
       "name", "std::string_view"},
      {XFFI_Param_ATTR, XLA_FFI_DataType_S64, -1, XLA_FFI_AttrType_ARRAY,
       "dims", "Span<const int64_t>"},
      {XFFI_Param_ATTR, XLA_FFI_DataType_INVALID, -1,
       XLA_FFI_AttrType_DICTIONARY, "extra", "Dictionary"},
      {XFFI_Param_ATTR, XLA_FFI_DataType_S32, -1, XLA_FFI_AttrType_SCALAR,
       "flavor", "Flavor"},
      {XFFI_Param_CTX, XLA_FFI_DataType_INVALID, -1, 0, nullptr,
       "PlatformStream<{anonymous}::CuStream*>"},
      {XFFI_Param_CTX, XLA_FFI_DataType_INVALID, -1, 0, nullptr, "ThreadPool"},
  };
  ASSERT_EQ(sig->num_params, static_cast<int64_t>(std::size(expected)));
  for (size_t i = 0; i < std::size(expected); ++i) {
    SCOPED_TRACE("param " + std::to_string(i));
    const XFFI_Param& p = sig->params[i];
    EXPECT_EQ(p.kind, expected[i].kind);
    EXPECT_EQ(p.dtype, expected[i].dtype);
    EXPECT_EQ(p.rank, expected[i].rank);
    EXPECT_EQ(static_cast<int>(p.attr_type), expected[i].attr_type);
    if (expected[i].name == nullptr) {
      EXPECT_EQ(p.name, nullptr);
    } else {
      EXPECT_STREQ(p.name, expected[i].name);
    }
    if (i == 11) {
      // The stream type is spelled by the compiler.
      EXPECT_THAT(p.type_name, ::testing::StartsWith("PlatformStream<"));
      EXPECT_THAT(p.type_name, ::testing::HasSubstr("CuStream*>"));
    } else {
      EXPECT_STREQ(p.type_name, expected[i].type_name);
    }
  }
}

TEST(FfiSignature, StageAndWholeDictionary) {
  XFFI_DEFINE_HANDLER(
      prepare, [](ffi::Dictionary) { return ffi::Error::Success(); },
      ffi::Ffi::BindPrepare().Attrs());
  XFFI_DEFINE_HANDLER(
      execute, [] { return ffi::Error::Success(); }, ffi::Ffi::Bind());
  XLA_FFI_Handler_Bundle bundle{nullptr, prepare, nullptr, execute, nullptr};
  auto record = xffi::DescribeHandler("staged", bundle);
  ASSERT_TRUE(record.ok()) << record.status().message();
  ASSERT_NE(record->signature, nullptr);
  // The runtime asks the execute handler; its signature is the one kept.
  EXPECT_EQ(record->signature->stage, XLA_FFI_ExecutionStage_EXECUTE);
  EXPECT_EQ(record->signature->num_params, 0);
}

}  // namespace
