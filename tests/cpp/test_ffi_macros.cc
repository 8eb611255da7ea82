// Handler and type macros: definition (static and exported symbol forms,
// explicit and inferred bindings, traits), registration into the xffi
// runtime, and XLA's macro spellings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeRegistered;

namespace macros_test {

ffi::Error AddOne(ffi::Buffer<ffi::F32, 1> x,
                  ffi::ResultBuffer<ffi::F32, 1> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] + 1;
  }
  return ffi::Error::Success();
}

struct Tag {
  static ffi::TypeId id;
};
ffi::TypeId Tag::id = {};
struct XlaTag {
  static ffi::TypeId id;
};
ffi::TypeId XlaTag::id = {};

}  // namespace macros_test

// The binding is a macro's variadic tail: the comma inside Buffer<F32, 1>
// needs no parentheses.
XFFI_DEFINE_HANDLER_SYMBOL(xffi_test_AddOne, macros_test::AddOne,
                           ffi::Ffi::Bind()
                               .Arg<ffi::Buffer<ffi::F32, 1>>()
                               .Ret<ffi::Buffer<ffi::F32, 1>>());
// Inferred from the signature.
XFFI_DEFINE_HANDLER_SYMBOL(xffi_test_AddOneInferred, macros_test::AddOne);
// XLA's spelling.
XLA_FFI_DEFINE_HANDLER_SYMBOL(xffi_test_AddOneXla, macros_test::AddOne,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32, 1>>()
                                  .Ret<ffi::Buffer<ffi::F32, 1>>());

XFFI_REGISTER_HANDLER(xffi::GetApi(), "xffi_test.add_one", "Host",
                      xffi_test_AddOne);
XFFI_REGISTER_HANDLER(xffi::GetApi(), "xffi_test.add_one_cmd", "cpu",
                      xffi_test_AddOneInferred,
                      XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
XFFI_REGISTER_HANDLER_WITH_RUNTIME("xffi_test.add_one_runtime", "Host",
                                   xffi_test_AddOneXla);
XLA_FFI_REGISTER_HANDLER(xffi::GetApi(), "xffi_test.add_one_xla", "Host",
                         xffi_test_AddOneXla);
XFFI_REGISTER_HANDLER(xffi::GetApi(), "xffi_test.bundle", "Host",
                      XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr,
                                             xffi_test_AddOne, nullptr});

XFFI_REGISTER_TYPE(xffi::GetApi(), "xffi_test.Tag", &macros_test::Tag::id);
XLA_FFI_REGISTER_TYPE(xffi::GetApi(), "xffi_test.XlaTag",
                      &macros_test::XlaTag::id);

namespace {

std::string RunAddOne(XLA_FFI_Handler* handler, float* out) {
  float x[2] = {1, 2};
  auto frame = CallFrameBuilder().Arg(x, {2}).Ret(out, {2}).Build();
  auto result = Invoke(handler, frame);
  return result.ok() ? "ok" : result.message();
}

TEST(FfiMacros, SymbolHandlersRun) {
  for (XLA_FFI_Handler* handler :
       {xffi_test_AddOne, xffi_test_AddOneInferred, xffi_test_AddOneXla}) {
    float y[2] = {};
    EXPECT_EQ(RunAddOne(handler, y), "ok");
    EXPECT_EQ(y[1], 3.0f);
  }
}

TEST(FfiMacros, SymbolHandlersHaveExportMarkers) {
  EXPECT_EQ(xffi_export_xffi_test_AddOne, &xffi_test_AddOne);
  EXPECT_EQ(xffi_export_xffi_test_AddOneInferred, &xffi_test_AddOneInferred);
  EXPECT_EQ(xffi_export_xffi_test_AddOneXla, &xffi_test_AddOneXla);
}

TEST(FfiMacros, StaticHandlersWithTraits) {
  XFFI_DEFINE_HANDLER(
      plain, [] { return ffi::Error::Internal("plain"); }, ffi::Ffi::Bind());
  XFFI_DEFINE_HANDLER(with_traits,
                      [] { return ffi::Error::Internal("traits"); },
                      ffi::Ffi::Bind(), {ffi::Traits::kCmdBufferCompatible});
  XFFI_DEFINE_HANDLER(inferred, [](ffi::Dictionary d) {
    return ffi::Error::Internal(std::to_string(d.size()));
  });
  XLA_FFI_DEFINE_HANDLER(xla_spelled,
                         [] { return ffi::Error::Internal("xla"); },
                         ffi::Ffi::Bind(), {ffi::Traits::kCmdBufferCompatible});
  auto frame = CallFrameBuilder().Attr("a", 1).Build();
  EXPECT_EQ(Invoke(plain, frame).message(), "plain");
  EXPECT_EQ(Invoke(with_traits, frame).message(), "traits");
  EXPECT_EQ(Invoke(inferred, frame).message(), "1");
  EXPECT_EQ(Invoke(xla_spelled, frame).message(), "xla");

  XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, with_traits,
                                nullptr};
  auto record = xffi::DescribeHandler("traits", bundle);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->traits,
            static_cast<XLA_FFI_Handler_Traits>(
                XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE));
}

TEST(FfiMacros, RegisteredIntoTheRuntime) {
  for (const char* name : {"xffi_test.add_one", "xffi_test.add_one_runtime",
                           "xffi_test.add_one_xla", "xffi_test.bundle"}) {
    SCOPED_TRACE(name);
    auto record = xffi::FindHandler(name, "Host");
    ASSERT_TRUE(record.ok()) << record.status().message();
    EXPECT_EQ((*record)->api_minor, XFFI_TARGET_API_MINOR);
    EXPECT_NE((*record)->signature, nullptr);
    float x[2] = {1, 2}, y[2] = {};
    auto frame = CallFrameBuilder().Arg(x, {2}).Ret(y, {2}).Build();
    auto result = InvokeRegistered(name, "Host", frame);
    EXPECT_TRUE(result.ok()) << result.message();
    EXPECT_EQ(y[0], 2.0f);
  }
  auto cmd = xffi::FindHandler("xffi_test.add_one_cmd", "Host");
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ((*cmd)->traits,
            static_cast<XLA_FFI_Handler_Traits>(
                XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE));
}

TEST(FfiMacros, RuntimeApiIsTheLinkedRuntime) {
  EXPECT_EQ(ffi::RuntimeApi(), xffi::GetApi());
}

TEST(FfiMacros, RegistrationFailuresReturnErrors) {
  XLA_FFI_Error* error = ffi::Ffi::RegisterStaticHandler(
      xffi::GetApi(), "xffi_test.add_one", "Host", xffi_test_AddOneInferred);
  ASSERT_NE(error, nullptr);
  ffi::Error taken = ffi::internal::TakeError(xffi::GetApi(), error);
  EXPECT_THAT(taken.message(), HasSubstr("xffi_test.add_one"));
}

TEST(FfiMacros, TypesWereRegistered) {
  EXPECT_GT(macros_test::Tag::id.type_id, 0);
  EXPECT_GT(macros_test::XlaTag::id.type_id, 0);
  EXPECT_EQ(xffi::TypeName(macros_test::Tag::id), "xffi_test.Tag");
  ffi::TypeId again{};
  EXPECT_EQ(ffi::Ffi::RegisterTypeId(xffi::GetApi(), "xffi_test.Other", &again,
                                     ffi::MakeTypeInfo<macros_test::Tag>()),
            nullptr);
  EXPECT_GT(again.type_id, 0);
}

}  // namespace

// The explicit and inferred forms under their own names, XFFI's and XLA's.
namespace macros_test {
XFFI_DEFINE_HANDLER_EXPLICIT(kExplicit, AddOne,
                             ffi::Ffi::Bind()
                                 .Arg<ffi::BufferR1<ffi::F32>>()
                                 .Ret<ffi::BufferR1<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_EXPLICIT(kXlaExplicit, AddOne,
                                ffi::Ffi::Bind()
                                    .Arg<ffi::BufferR1<ffi::F32>>()
                                    .Ret<ffi::BufferR1<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_EXPLICIT_WITH_TRAITS(
    kXlaWithTraits, AddOne,
    ffi::Ffi::Bind()
        .Arg<ffi::BufferR1<ffi::F32>>()
        .Ret<ffi::BufferR1<ffi::F32>>(),
    {ffi::Traits::kCmdBufferCompatible});
XFFI_DEFINE_HANDLER_AUTO(kAuto, AddOne);
XLA_FFI_DEFINE_HANDLER_AUTO(kXlaAuto, AddOne);

// Functions that export a type's id and info for JAX's register_ffi_type.
XLA_FFI_DECLARE_TYPE_ID_SYMBOL(xffi_test_TagTypeId);
XFFI_DECLARE_TYPE_INFO_SYMBOL(xffi_test_TagTypeInfo);

XLA_FFI_ATTRIBUTE_ALWAYS_INLINE inline int Twice(int x) { return 2 * x; }
XLA_FFI_ATTRIBUTE_NEVER_INLINE int Thrice(int x) { return 3 * x; }
}  // namespace macros_test

extern "C" XLA_FFI_TypeId* xffi_test_TagTypeId() {
  return &macros_test::Tag::id;
}
extern "C" const XLA_FFI_TypeInfo* xffi_test_TagTypeInfo() {
  static const XLA_FFI_TypeInfo info = ffi::MakeTypeInfo<macros_test::Tag>();
  return &info;
}

namespace {

TEST(FfiMacros, NamedDefinitionForms) {
  for (XLA_FFI_Handler* handler :
       {macros_test::kExplicit, macros_test::kXlaExplicit,
        macros_test::kXlaWithTraits, macros_test::kAuto,
        macros_test::kXlaAuto}) {
    float out[2] = {};
    EXPECT_EQ(RunAddOne(handler, out), "ok");
    EXPECT_THAT(out, ::testing::ElementsAre(2, 3));
  }
  xffi::StatusOr<xffi::HandlerRecord> with_traits = xffi::DescribeHandler(
      "with_traits",
      XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr,
                             macros_test::kXlaWithTraits, nullptr});
  ASSERT_TRUE(with_traits.ok()) << with_traits.status().message();
  EXPECT_EQ(with_traits->traits,
            XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
}

TEST(FfiMacros, TypeSymbolsAreCFunctions) {
  static_assert(
      std::is_same_v<decltype(&xffi_test_TagTypeId), XLA_FFI_TypeId* (*)()>);
  EXPECT_EQ(xffi_test_TagTypeId(), &macros_test::Tag::id);
  EXPECT_NE(xffi_test_TagTypeInfo()->deleter, nullptr);
}

TEST(FfiMacros, CompilerHintSpellings) {
  int taken = 0;
  if (XLA_FFI_PREDICT_TRUE(macros_test::Twice(2) == 4)) ++taken;
  if (XLA_FFI_PREDICT_FALSE(macros_test::Thrice(2) == 6)) ++taken;
  if (XLA_FFI_HAS_BUILTIN(__builtin_expect)) ++taken;
  EXPECT_EQ(taken, 3);
}

}  // namespace
