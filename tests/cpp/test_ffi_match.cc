// Buffer matching (ffi/match.h): patterns over dtype, rank and dimensions,
// Verify and Match, their messages (XLA's) and captures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "xffi/ffi.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
namespace match = xffi::ffi::match;
using xffi::testing::CallFrame;
using xffi::testing::CallFrameBuilder;

namespace {

float f32_storage[24];
int32_t s32_storage[24];

// A frame whose only argument is an F32 (or S32) buffer of `dims`.
CallFrame Frame(std::vector<int64_t> dims, bool s32 = false) {
  CallFrameBuilder builder;
  if (s32) {
    builder.Arg(s32_storage, std::move(dims));
  } else {
    builder.Arg(f32_storage, std::move(dims));
  }
  return builder.Build();
}

ffi::AnyBuffer Arg0(CallFrame& frame) {
  return ffi::AnyBuffer(
      static_cast<const XLA_FFI_Buffer*>(frame.get()->args.args[0]));
}

TEST(FfiMatch, DynamicRankIsAnyRankSentinel) {
  static_assert(ffi::IsDynamicRank<ffi::kDynamicRank>());
  static_assert(ffi::IsDynamicRank<2, ffi::kDynamicRank>());
  static_assert(!ffi::IsDynamicRank<0, 1, 2>());
}

TEST(FfiMatch, DescribeSpellsEveryConstraint) {
  int64_t rows = 0;
  EXPECT_EQ(match::Buffer().Describe(), "a buffer");
  EXPECT_EQ(match::Buffer<ffi::F32>().Describe(), "a buffer with dtype F32");
  EXPECT_EQ((match::Buffer<ffi::F32, 2>().Describe()),
            "a buffer with dtype F32 with rank 2");
  EXPECT_EQ((match::Buffer()
                 .WithDType<ffi::F32, ffi::F64>()
                 .WithRank<1, 2>()
                 .Describe()),
            "a buffer with dtype in [F32, F64] with rank in [1, 2]");
  EXPECT_EQ(
      match::Buffer<ffi::S32>().WithDims(4, match::Dim(), &rows).Describe(),
      "a buffer with dtype S32 with rank 3 with dimensions [4, any "
      "dimension, any dimension (captured)]");
}

TEST(FfiMatch, VerifyAcceptsAndCaptures) {
  CallFrame frame = Frame({2, 3});
  int64_t rows = -1, cols = -1;
  ffi::Error error = ffi::Verify(
      "x", Arg0(frame), match::Buffer<ffi::F32>().WithDims(&rows, &cols));
  EXPECT_TRUE(error.success()) << error.message();
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 3);
}

TEST(FfiMatch, VerifyNamesTheBufferAndTheFirstFailure) {
  CallFrame frame = Frame({2, 3}, /*s32=*/true);
  ffi::Error dtype = ffi::Verify("x", Arg0(frame), match::Buffer<ffi::F32>());
  EXPECT_EQ(dtype.errc(), ffi::ErrorCode::kInvalidArgument);
  EXPECT_EQ(dtype.message(),
            "Buffer 'x' failed to match a buffer with dtype F32: expected "
            "dtype F32 but got S32");

  ffi::Error several = ffi::Verify(
      "x", Arg0(frame), match::Buffer().WithDType<ffi::F32, ffi::F64>());
  EXPECT_EQ(several.message(),
            "Buffer 'x' failed to match a buffer with dtype in [F32, F64]: "
            "expected dtype to be one of [F32, F64] but got S32");

  ffi::Error rank = ffi::Verify("x", Arg0(frame), match::Buffer<ffi::S32, 1>());
  EXPECT_EQ(rank.message(),
            "Buffer 'x' failed to match a buffer with dtype S32 with rank 1: "
            "expected rank 1 but got 2");

  ffi::Error dim =
      ffi::Verify("x", Arg0(frame), match::Buffer<ffi::S32>().WithDims(2, 4));
  EXPECT_THAT(dim.message(),
              ::testing::EndsWith("expected dimension 1 to be 4 but got 3"));
}

TEST(FfiMatch, FailedMatchLeavesCapturesAlone) {
  CallFrame frame = Frame({2, 3});
  int64_t rows = -1;
  ffi::Error error = ffi::Verify("x", Arg0(frame),
                                 match::Buffer<ffi::F32>().WithDims(&rows, 4));
  EXPECT_TRUE(error.failure());
  EXPECT_EQ(rows, -1);
}

TEST(FfiMatch, OneCaptureInTwoPlacesMeansEqualExtents) {
  int64_t n = 0;
  auto square = match::Buffer<ffi::F32>().WithDims(&n, &n);
  CallFrame ok = Frame({3, 3});
  EXPECT_TRUE(ffi::Verify("m", Arg0(ok), square).success());
  EXPECT_EQ(n, 3);
  CallFrame bad = Frame({3, 4});
  EXPECT_THAT(ffi::Verify("m", Arg0(bad), square).message(),
              ::testing::EndsWith("expected dimension 1 to be 3 but got 4"));
}

TEST(FfiMatch, WithDimConstrainsOnePositionOnly) {
  CallFrame frame = Frame({2, 3, 4});
  EXPECT_TRUE(
      ffi::Verify("x", Arg0(frame), match::Buffer<ffi::F32>().WithDim<2>(4))
          .success());
  EXPECT_TRUE(
      ffi::Verify("x", Arg0(frame), match::Buffer<ffi::F32>().WithDim(1, 3))
          .success());
  EXPECT_THAT(
      ffi::Verify("x", Arg0(frame), match::Buffer<ffi::F32>().WithDim<5>(1))
          .message(),
      ::testing::EndsWith("expected dimension 5 but buffer rank is 3"));
}

TEST(FfiMatch, LikeAndWithShapeOfCopyAnotherBuffer) {
  CallFrame model = Frame({2, 3});
  CallFrame same = Frame({2, 3});
  CallFrame other_dtype = Frame({2, 3}, /*s32=*/true);
  CallFrame other_shape = Frame({3, 2});
  auto like = match::Buffer().Like(Arg0(model));
  EXPECT_EQ(like.Describe(),
            "a buffer with dtype F32 with rank 2 with dimensions [2, 3]");
  EXPECT_TRUE(ffi::Verify("y", Arg0(same), like).success());
  EXPECT_THAT(ffi::Verify("y", Arg0(other_dtype), like).message(),
              ::testing::EndsWith("expected dtype F32 but got S32"));
  auto shape = match::Buffer().WithShapeOf(Arg0(model));
  EXPECT_TRUE(ffi::Verify("y", Arg0(other_dtype), shape).success());
  EXPECT_THAT(ffi::Verify("y", Arg0(other_shape), shape).message(),
              ::testing::EndsWith("expected dimension 0 to be 2 but got 3"));
  // A type-level dtype replaces the copied one.
  EXPECT_TRUE(ffi::Verify("y", Arg0(other_dtype), like.WithDType<ffi::S32>())
                  .success());
}

TEST(FfiMatch, MatchTurnsAnyBufferIntoTheTypedBuffer) {
  CallFrame frame = Frame({2, 3});
  int64_t cols = 0;
  ffi::ErrorOr<ffi::Buffer<ffi::F32, 2>> typed = ffi::Match(
      "x", Arg0(frame), match::Buffer<ffi::F32, 2>().WithDim<1>(&cols));
  ASSERT_TRUE(typed.has_value()) << typed.error().message();
  EXPECT_EQ(typed->typed_data(), f32_storage);
  EXPECT_EQ(cols, 3);

  auto wrong = ffi::Match("x", Arg0(frame), match::Buffer<ffi::F64, 2>());
  ASSERT_TRUE(wrong.has_error());
  EXPECT_EQ(wrong.error().message(),
            "Buffer 'x' failed to match a buffer with dtype F64 with rank 2: "
            "expected dtype F64 but got F32");
}

TEST(FfiMatch, MatchKeepsTypedAndResultBuffers) {
  CallFrame frame = Frame({4});
  ffi::Buffer<ffi::F32, 1> typed(
      static_cast<const XLA_FFI_Buffer*>(frame.get()->args.args[0]));
  auto same = ffi::Match("x", typed, match::Buffer().WithDims(4));
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->typed_data(), typed.typed_data());

  ffi::Result<ffi::Buffer<ffi::F32, 1>> result(typed);
  ffi::ErrorOr<ffi::Result<ffi::Buffer<ffi::F32, 1>>> wrapped =
      ffi::Match("out", result, match::Buffer().WithDims(4));
  ASSERT_TRUE(wrapped.has_value());
  EXPECT_EQ((*wrapped)->typed_data(), typed.typed_data());
  auto bad = ffi::Match("out", result, match::Buffer().WithDims(5));
  ASSERT_TRUE(bad.has_error());
  EXPECT_THAT(bad.error().message(), ::testing::StartsWith("Buffer 'out'"));
}

TEST(FfiMatch, PatternsWorkInsideHandlers) {
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().To(
          [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
            int64_t n = 0;
            auto in =
                ffi::Match("x", x, match::Buffer<ffi::F32, 1>().WithDims(&n));
            if (in.has_error()) return in.error();
            if (ffi::Error e = ffi::Verify("y", *y, match::Buffer().Like(x));
                e.failure()) {
              return e;
            }
            for (int64_t i = 0; i < n; ++i) {
              y->typed_data<float>()[i] = 2 * in->typed_data()[i];
            }
            return ffi::Error::Success();
          });
  float x[3] = {1, 2, 3}, y[3] = {};
  auto frame = CallFrameBuilder().Arg(x, {3}).Ret(y, {3}).Build();
  auto result = xffi::testing::Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(y, ::testing::ElementsAre(2, 4, 6));

  double z[3] = {};
  auto mismatched = CallFrameBuilder().Arg(x, {3}).Ret(z, {3}).Build();
  result = xffi::testing::Invoke(*handler, mismatched);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "Buffer 'y' failed to match a buffer with dtype F32 with rank 1 "
            "with dimensions [3]: expected dtype F32 but got F64");
}

}  // namespace
