// Built as C++17 (see test_ffi_cxx17.cmake): the binding library, used the
// way a handler library uses it, compiles and works without C++20.
#include <gtest/gtest.h>

#include <optional>
#include <type_traits>
#include <variant>

#include "xffi/ffi.h"
#include "xffi/ffi/collectives.h"
#include "xffi/ffi/record.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

static_assert(__cplusplus == 201703L, "this unit must be built as C++17");

namespace ffi = xffi::ffi;

namespace cxx17_test {

enum class Kind : int32_t { kA = 1 };
struct Pair {
  int32_t first;
  float second;
};

// A decoder written for XLA: a scalar S32 attribute read as a count.
struct Count {
  int32_t value;
};

}  // namespace cxx17_test

template <>
struct xffi::ffi::AttrDecoding<cxx17_test::Count> {
  using Type = cxx17_test::Count;
  static std::optional<Type> Decode(XLA_FFI_AttrType type, void* attr,
                                    DiagnosticEngine& diagnostic) {
    auto value = AttrDecoding<int32_t>::Decode(type, attr, diagnostic);
    if (!value.has_value()) return diagnostic.Emit(" (a count)");
    return cxx17_test::Count{*value};
  }
};

XFFI_REGISTER_ENUM_ATTR_DECODING(cxx17_test::Kind);
XFFI_REGISTER_STRUCT_ATTR_DECODING(cxx17_test::Pair,
                                   ffi::StructMember<int32_t>("first"),
                                   ffi::StructMember<float>("second"));

namespace {

ffi::Error Everything(ffi::Buffer<ffi::F32, 1> x, ffi::RemainingArgs rest,
                      ffi::ResultBuffer<ffi::F32, 1> y, cxx17_test::Kind kind,
                      cxx17_test::Pair pair,
                      std::variant<int32_t, float> either, ffi::RunId) {
  y->typed_data()[0] = x.typed_data()[0] + pair.second +
                       static_cast<float>(kind == cxx17_test::Kind::kA) +
                       static_cast<float>(std::get<int32_t>(either)) +
                       static_cast<float>(rest.size());
  return ffi::Error::Success();
}

XFFI_DEFINE_HANDLER(kEverything, Everything,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .RemainingArgs()
                        .Ret<ffi::Buffer<ffi::F32, 1>>()
                        .Attr<cxx17_test::Kind>("kind")
                        .Attr<cxx17_test::Pair>("pair")
                        .Attr<std::variant<int32_t, float>>("either")
                        .Ctx<ffi::RunId>());

TEST(FfiCxx17, HandlerBuiltAsCxx17Runs) {
  float x[1] = {1}, y[1] = {};
  xffi::testing::Dictionary pair;
  pair.Set("first", 1).Set("second", 0.5f);
  auto frame = xffi::testing::CallFrameBuilder()
                   .Arg(x, {1})
                   .Arg(x, {1})
                   .Ret(y, {1})
                   .Attr("kind", 1)
                   .Attr("pair", pair)
                   .Attr("either", 2)
                   .Build();
  auto result = xffi::testing::Invoke(kEverything, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(y[0], 1 + 0.5f + 1 + 2 + 1);
}

// Buffer matching, a decoder written for XLA and the extension wrappers,
// all as C++17.
ffi::Error Matched(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y,
                   cxx17_test::Count count) {
  int64_t n = 0;
  auto in = ffi::Match("x", x, ffi::match::Buffer<ffi::F32, 1>().WithDims(&n));
  if (in.has_error()) return in.error();
  if (ffi::Error e = ffi::Verify("y", *y, ffi::match::Buffer().Like(x));
      e.failure()) {
    return e;
  }
  for (int64_t i = 0; i < n; ++i) {
    y->typed_data<float>()[i] = in->typed_data()[i] * count.value;
  }
  return ffi::Error::Success();
}

XFFI_DEFINE_HANDLER(kMatched, Matched,
                    ffi::Ffi::Bind()
                        .Arg<ffi::AnyBuffer>()
                        .Ret<ffi::AnyBuffer>()
                        .Attr<cxx17_test::Count>("count"));

TEST(FfiCxx17, MatchingAndXlaDecodersAsCxx17) {
  float x[2] = {1, 2}, y[2] = {};
  auto frame = xffi::testing::CallFrameBuilder()
                   .Arg(x, {2})
                   .Ret(y, {2})
                   .Attr("count", 3)
                   .Build();
  auto result = xffi::testing::Invoke(kMatched, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(y[1], 6);
  auto bad = xffi::testing::CallFrameBuilder()
                 .Arg(x, {2})
                 .Ret(y, {2})
                 .Attr("count", 3.0f)
                 .Build();
  EXPECT_EQ(xffi::testing::Invoke(kMatched, bad).message(),
            "attribute 'count': expected int32_t (S32 scalar), got F32 "
            "scalar (a count)");
  static_assert(std::is_same_v<ffi::RecordContext::Status, ffi::Error>);
  static_assert(std::is_same_v<ffi::CommunicatorContext::StatusOr<int>,
                               ffi::ErrorOr<int>>);
}

}  // namespace
