// Built as C++17 (see test_ffi_cxx17.cmake): the binding library, used the
// way a handler library uses it, compiles and works without C++20.
#include <gtest/gtest.h>

#include <variant>

#include "xffi/ffi.h"
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

}  // namespace cxx17_test

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

}  // namespace
