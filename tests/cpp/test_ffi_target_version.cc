// XFFI_TARGET_API_MINOR chooses the version a handler reports at the
// handshake (test_ffi_target_version.cmake sets it to 5; the default is 3,
// see test_ffi_binding.cc). Decoding does not depend on it.
#include <gtest/gtest.h>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;

namespace {

XFFI_DEFINE_HANDLER(kHandler, [](ffi::BufferR1<ffi::F32>) {
  return ffi::Error::Success();
});

TEST(FfiTargetVersion, HandshakeReportsTheConfiguredVersion) {
  static_assert(XFFI_TARGET_API_MINOR == 5);
  XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, kHandler, nullptr};
  auto record = xffi::DescribeHandler("versioned", bundle);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->api_major, 0);
  EXPECT_EQ(record->api_minor, 5);

  float x[2] = {};
  auto frame = xffi::testing::CallFrameBuilder().Arg(x, {2}).Build();
  auto result = xffi::testing::Invoke(kHandler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

}  // namespace
