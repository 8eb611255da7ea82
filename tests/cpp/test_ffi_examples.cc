// The example handler libraries, loaded the way a plugin is: dlopen runs
// their XFFI_REGISTER_HANDLER_WITH_RUNTIME registrations into this process's
// runtime, and their exported symbols are callable directly.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "xffi/runtime.h"
#include "xffi/testing.h"

using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeRegistered;

namespace {

[[maybe_unused]] void* Open(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(library, nullptr) << dlerror();
  return library;
}

#ifdef XFFI_EXAMPLE_RMS_NORM
TEST(FfiExamples, RmsNorm) {
  void* library = Open(XFFI_EXAMPLE_RMS_NORM);
  ASSERT_NE(library, nullptr);
  auto* handler = reinterpret_cast<XLA_FFI_Handler*>(dlsym(library, "RmsNorm"));
  ASSERT_NE(handler, nullptr);
  EXPECT_NE(dlsym(library, "xffi_export_RmsNorm"), nullptr);

  std::vector<float> x = {1, 2, 3, 4, 0, 0, 0, 0};
  std::vector<float> y(8);
  auto frame = CallFrameBuilder()
                   .Arg(x.data(), {2, 4})
                   .Ret(y.data(), {2, 4})
                   .Attr("eps", 1e-6f)
                   .Build();
  auto result = Invoke(handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  float scale = 1.0f / std::sqrt((1 + 4 + 9 + 16) / 4.0f + 1e-6f);
  EXPECT_FLOAT_EQ(y[3], 4 * scale);
  EXPECT_FLOAT_EQ(y[5], 0.0f);

  // Registered by the library's static initializer.
  auto record = xffi::FindHandler("rms_norm", "Host");
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ((*record)->bundle.execute, handler);
  ASSERT_NE((*record)->signature, nullptr);
  EXPECT_EQ((*record)->signature->num_params, 3);
  EXPECT_STREQ((*record)->signature->params[0].name, "eps");
  auto again = InvokeRegistered("rms_norm", "Host", frame);
  EXPECT_TRUE(again.ok()) << again.message();

  auto wrong = CallFrameBuilder()
                   .Arg(x.data(), {2, 4})
                   .Ret(y.data(), {2, 4})
                   .Attr("eps", 1e-6)
                   .Build();
  EXPECT_EQ(Invoke(handler, wrong).message(),
            "attribute 'eps': expected float (F32 scalar), got F64 scalar");
}
#endif

#ifdef XFFI_EXAMPLE_DO_CUSTOM_CALL
TEST(FfiExamples, DoCustomCall) {
  void* library = Open(XFFI_EXAMPLE_DO_CUSTOM_CALL);
  ASSERT_NE(library, nullptr);
  auto* handler =
      reinterpret_cast<XLA_FFI_Handler*>(dlsym(library, "DoCustomCall"));
  ASSERT_NE(handler, nullptr);

  std::vector<float> b(128), c(300), a(300);
  for (int i = 0; i < 128; ++i) b[i] = static_cast<float>(i);
  for (int i = 0; i < 300; ++i) c[i] = 0.5f;
  auto frame = CallFrameBuilder()
                   .Arg(b.data(), {128})
                   .Arg(c.data(), {300})
                   .Ret(a.data(), {300})
                   .Build();
  auto result = InvokeRegistered("do_custom_call", "Host", frame);
  ASSERT_TRUE(result.ok()) << result.message();
  for (int i = 0; i < 300; ++i) ASSERT_EQ(a[i], b[i % 128] + c[i]) << i;

  auto short_b = CallFrameBuilder()
                     .Arg(b.data(), {64})
                     .Arg(c.data(), {300})
                     .Ret(a.data(), {300})
                     .Build();
  EXPECT_THAT(Invoke(handler, short_b).message(),
              HasSubstr("B must have 128 elements"));
}
#endif

}  // namespace
