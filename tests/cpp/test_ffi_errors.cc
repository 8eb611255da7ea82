// Error, ErrorOr and the conversion of C++ exceptions into INTERNAL errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "xffi/ffi.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;

namespace {

TEST(FfiErrors, CodesMatchTheCApi) {
  EXPECT_EQ(static_cast<int>(ffi::ErrorCode::kOk), XLA_FFI_Error_Code_OK);
  EXPECT_EQ(static_cast<int>(ffi::ErrorCode::kInvalidArgument),
            XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(static_cast<int>(ffi::ErrorCode::kUnauthenticated),
            XLA_FFI_Error_Code_UNAUTHENTICATED);
  EXPECT_STREQ(ffi::ErrorCodeName(ffi::ErrorCode::kDataLoss), "DATA_LOSS");
}

TEST(FfiErrors, NamedConstructorsCarryTheirCode) {
  struct Case {
    ffi::Error error;
    XLA_FFI_Error_Code code;
  } cases[] = {
      {ffi::Error::Cancelled("m"), XLA_FFI_Error_Code_CANCELLED},
      {ffi::Error::Unknown("m"), XLA_FFI_Error_Code_UNKNOWN},
      {ffi::Error::InvalidArgument("m"), XLA_FFI_Error_Code_INVALID_ARGUMENT},
      {ffi::Error::DeadlineExceeded("m"), XLA_FFI_Error_Code_DEADLINE_EXCEEDED},
      {ffi::Error::NotFound("m"), XLA_FFI_Error_Code_NOT_FOUND},
      {ffi::Error::AlreadyExists("m"), XLA_FFI_Error_Code_ALREADY_EXISTS},
      {ffi::Error::PermissionDenied("m"), XLA_FFI_Error_Code_PERMISSION_DENIED},
      {ffi::Error::ResourceExhausted("m"),
       XLA_FFI_Error_Code_RESOURCE_EXHAUSTED},
      {ffi::Error::FailedPrecondition("m"),
       XLA_FFI_Error_Code_FAILED_PRECONDITION},
      {ffi::Error::Aborted("m"), XLA_FFI_Error_Code_ABORTED},
      {ffi::Error::OutOfRange("m"), XLA_FFI_Error_Code_OUT_OF_RANGE},
      {ffi::Error::Unimplemented("m"), XLA_FFI_Error_Code_UNIMPLEMENTED},
      {ffi::Error::Internal("m"), XLA_FFI_Error_Code_INTERNAL},
      {ffi::Error::Unavailable("m"), XLA_FFI_Error_Code_UNAVAILABLE},
      {ffi::Error::DataLoss("m"), XLA_FFI_Error_Code_DATA_LOSS},
      {ffi::Error::Unauthenticated("m"), XLA_FFI_Error_Code_UNAUTHENTICATED},
      {ffi::Error(XLA_FFI_Error_Code_ABORTED, "m"), XLA_FFI_Error_Code_ABORTED},
  };
  for (Case& c : cases) {
    EXPECT_TRUE(c.error.failure());
    EXPECT_EQ(static_cast<int>(*c.error.errc()), c.code);
    EXPECT_EQ(c.error.message(), "m");
    // And they reach the runtime with that code.
    ffi::Error copy = c.error;
    auto handler = ffi::Ffi::Bind().To([copy] { return copy; });
    auto frame = CallFrameBuilder().Build();
    auto result = Invoke(*handler, frame);
    EXPECT_EQ(result.code(), c.code);
    EXPECT_EQ(result.message(), "m");
  }
  EXPECT_TRUE(ffi::Error::Success().success());
  EXPECT_TRUE(ffi::Error().success());
}

TEST(FfiErrors, ErrorOrHoldsAValueOrAnError) {
  ffi::ErrorOr<int> value = 5;
  EXPECT_TRUE(value.has_value());
  EXPECT_FALSE(value.has_error());
  EXPECT_TRUE(static_cast<bool>(value));
  EXPECT_EQ(*value, 5);

  ffi::ErrorOr<int> error = ffi::Error::NotFound("nope");
  EXPECT_TRUE(error.has_error());
  EXPECT_EQ(error.error().message(), "nope");

  ffi::ErrorOr<std::unique_ptr<int>> moved =
      ffi::Unexpected<ffi::Error>(ffi::Error::Internal("x"));
  EXPECT_TRUE(moved.has_error());
  ffi::ErrorOr<std::unique_ptr<int>> owned = std::make_unique<int>(3);
  EXPECT_EQ(**owned, 3);
  std::unique_ptr<int> taken = std::move(owned).value();
  EXPECT_EQ(*taken, 3);
}

TEST(FfiErrors, StdExceptionBecomesInternal) {
  auto handler = ffi::Ffi::Bind().To(
      []() -> ffi::Error { throw std::runtime_error("disk on fire"); });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.message(),
            "C++ exception escaped the handler: disk on fire");
}

TEST(FfiErrors, AnyExceptionBecomesInternal) {
  auto handler = ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().To(
      [](ffi::AnyBuffer) -> ffi::Error { throw 42; });
  float x[1];
  auto frame = CallFrameBuilder().Arg(x, {1}).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.message(),
            "C++ exception of unknown type escaped the handler");
}

TEST(FfiErrors, ExceptionsFromDefinedHandlersToo) {
  XFFI_DEFINE_HANDLER(
      throwing, []() -> ffi::Error { throw std::out_of_range("index 7"); },
      ffi::Ffi::Bind());
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(throwing, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(result.message(), "C++ exception escaped the handler: index 7");
}

}  // namespace
