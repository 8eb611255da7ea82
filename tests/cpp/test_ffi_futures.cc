// Future, Promise and CountDownPromise, and handlers that complete
// asynchronously through them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>

#include "xffi/ffi.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;

namespace {

TEST(FfiFutures, OnReadyAfterCompletionRunsNow) {
  ffi::Promise promise;
  ffi::Future future(promise);
  EXPECT_FALSE(future.IsReady());
  promise.SetAvailable();
  EXPECT_TRUE(future.IsReady());
  bool ran = false;
  future.OnReady([&](const std::optional<ffi::Error>& error) {
    EXPECT_FALSE(error.has_value());
    ran = true;
  });
  EXPECT_TRUE(ran);
}

TEST(FfiFutures, OnReadyBeforeCompletionRunsOnCompletion) {
  ffi::Promise promise;
  ffi::Future future(promise);
  std::optional<ffi::Error> seen;
  int calls = 0;
  future.OnReady([&](const std::optional<ffi::Error>& error) {
    seen = error;
    ++calls;
  });
  EXPECT_EQ(calls, 0);
  promise.SetError(ffi::Error::Aborted("stopped"));
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->message(), "stopped");
}

TEST(FfiFutures, CountDownCompletesOnTheLastCount) {
  ffi::CountDownPromise promise(3);
  ffi::Future future(promise);
  EXPECT_FALSE(promise.CountDown());
  EXPECT_FALSE(promise.CountDown(ffi::Error::Internal("first")));
  EXPECT_FALSE(future.IsReady());
  EXPECT_TRUE(promise.CountDown(ffi::Error::Internal("second")));
  std::optional<ffi::Error> seen;
  future.OnReady([&](const std::optional<ffi::Error>& e) { seen = e; });
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->message(), "first");
}

TEST(FfiFutures, CountDownByMany) {
  ffi::CountDownPromise promise(4);
  ffi::Future future(promise);
  EXPECT_FALSE(promise.CountDown(3));
  EXPECT_TRUE(promise.CountDown(1));
  EXPECT_TRUE(future.IsReady());
}

TEST(FfiFutures, AsyncHandlerCompletesLater) {
  ffi::Promise promise;
  std::thread worker;
  auto handler = ffi::Ffi::Bind().To([&] {
    ffi::Future future(promise);
    worker = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      promise.SetAvailable();
    });
    return future;
  });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.is_async());
  result.Wait();
  EXPECT_TRUE(result.ok()) << result.message();
  worker.join();
}

TEST(FfiFutures, AsyncHandlerError) {
  auto handler = ffi::Ffi::Bind().To([] {
    ffi::Promise promise;
    ffi::Future future(promise);
    promise.SetError(ffi::Error::DataLoss("bits fell out"));
    return future;
  });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.is_async());
  result.Wait();
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_DATA_LOSS);
  EXPECT_EQ(result.message(), "bits fell out");
}

TEST(FfiFutures, AsyncHandlerStillDecodes) {
  auto handler = ffi::Ffi::Bind().Arg<ffi::BufferR1<ffi::F32>>().To(
      [](ffi::BufferR1<ffi::F32>) {
        ffi::Promise promise;
        promise.SetAvailable();
        return ffi::Future(promise);
      });
  int32_t x[1] = {};
  auto frame = CallFrameBuilder().Arg(x, {1}).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_FALSE(result.is_async());
  EXPECT_EQ(result.message(),
            "argument 0: expected buffer of F32 rank 1, got S32 rank 1");
}

}  // namespace
