// Context values: user data, state across instantiate -> execute, thread
// pool, run id, device ordinal, stream, scratch memory, Context::get.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

// Named (not anonymous) so that type names in messages are the same with
// every compiler.
namespace ctx_test {

struct Counter {
  static ffi::TypeId id;
  int value = 0;
};
ffi::TypeId Counter::id = {};

struct Settings {
  static ffi::TypeId id;
  std::string label;
};
ffi::TypeId Settings::id = {};

struct NeverRegistered {
  static ffi::TypeId id;
};
ffi::TypeId NeverRegistered::id = {};

std::atomic<int> counters_deleted{0};
void DeleteCounter(void* p) {
  ++counters_deleted;
  delete static_cast<Counter*>(p);
}
const XLA_FFI_TypeInfo kCounterInfo = {XLA_FFI_TypeInfo_STRUCT_SIZE, nullptr,
                                       DeleteCounter};
const XLA_FFI_TypeInfo kSettingsInfo = ffi::MakeTypeInfo<Settings>();

XFFI_REGISTER_TYPE(xffi::GetApi(), "test_ffi_context.Counter", &Counter::id,
                   &kCounterInfo);
XFFI_REGISTER_TYPE(xffi::GetApi(), "test_ffi_context.Settings", &Settings::id,
                   &kSettingsInfo);

}  // namespace ctx_test

namespace {

using ctx_test::Counter;
using ctx_test::counters_deleted;
using ctx_test::NeverRegistered;
using ctx_test::Settings;

TEST(FfiContext, TypesWereRegistered) {
  EXPECT_GT(Counter::id.type_id, 0);
  EXPECT_GT(Settings::id.type_id, 0);
  EXPECT_NE(Counter::id.type_id, Settings::id.type_id);
  EXPECT_EQ(xffi::TypeName(Counter::id), "test_ffi_context.Counter");
}

TEST(FfiContext, StateFromInstantiateReachesExecute) {
  auto instantiate = ffi::Ffi::BindInstantiate().Attr<int32_t>("start").To(
      [](int32_t start) -> ffi::ErrorOr<std::unique_ptr<Counter>> {
        auto counter = std::make_unique<Counter>();
        counter->value = start;
        return counter;
      });
  auto execute =
      ffi::Ffi::Bind().Ctx<ffi::State<Counter>>().Attr<int32_t>("start").To(
          [](Counter* counter, int32_t) {
            return ffi::Error::Internal(std::to_string(++counter->value));
          });
  auto frame = CallFrameBuilder().Attr("start", 10).Build();
  int deleted_before = counters_deleted;
  {
    xffi::CallSiteState state;
    InvokeOptions options;
    options.state = &state;
    options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
    auto created = Invoke(*instantiate, frame, options);
    ASSERT_TRUE(created.ok()) << created.message();
    options.stage = XLA_FFI_ExecutionStage_EXECUTE;
    EXPECT_EQ(Invoke(*execute, frame, options).message(), "11");
    EXPECT_EQ(Invoke(*execute, frame, options).message(), "12");
  }
  // The call site owned the state and deleted it with the registered deleter.
  EXPECT_EQ(counters_deleted, deleted_before + 1);
}

TEST(FfiContext, InstantiateErrorsPropagate) {
  auto instantiate = ffi::Ffi::BindInstantiate().To(
      []() -> ffi::ErrorOr<std::unique_ptr<Counter>> {
        return ffi::Error::FailedPrecondition("no counter today");
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  auto result = Invoke(*instantiate, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(result.message(), "no counter today");
}

TEST(FfiContext, MissingStateIsExplained) {
  auto execute = ffi::Ffi::Bind().Ctx<ffi::State<Counter>>().To(
      [](Counter*) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  xffi::CallSiteState empty;
  InvokeOptions options;
  options.state = &empty;
  auto result = Invoke(*execute, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), StartsWith("context State<ctx_test::Counter>: "
                                           "cannot get state: "));
}

TEST(FfiContext, UnregisteredTypesAreCaughtBeforeTheRuntime) {
  auto execute = ffi::Ffi::Bind().Ctx<ffi::UserData<NeverRegistered>>().To(
      [](NeverRegistered*) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(*execute, frame).message(),
            "context UserData<ctx_test::NeverRegistered>: user "
            "data type ctx_test::NeverRegistered was never "
            "registered (its TypeId is 0)");
}

TEST(FfiContext, StateTypeIdIsReportedAtTheHandshake) {
  XFFI_DEFINE_HANDLER(
      instantiate,
      []() -> ffi::ErrorOr<std::unique_ptr<Counter>> {
        return std::make_unique<Counter>();
      },
      ffi::Ffi::BindInstantiate());
  XFFI_DEFINE_HANDLER(
      execute, [](Counter*) { return ffi::Error::Success(); },
      ffi::Ffi::Bind().Ctx<ffi::State<Counter>>());
  XLA_FFI_Handler_Bundle bundle{instantiate, nullptr, nullptr, execute,
                                nullptr};
  auto record = xffi::DescribeHandler("stateful", bundle);
  ASSERT_TRUE(record.ok()) << record.status().message();
  EXPECT_EQ(record->state_type_id.type_id, Counter::id.type_id);
  EXPECT_EQ(record->api_minor, XFFI_TARGET_API_MINOR);

  XFFI_DEFINE_HANDLER(
      bad,
      []() -> ffi::ErrorOr<std::unique_ptr<NeverRegistered>> {
        return std::make_unique<NeverRegistered>();
      },
      ffi::Ffi::BindInstantiate());
  XLA_FFI_Handler_Bundle bad_bundle{bad, nullptr, nullptr, execute, nullptr};
  auto refused = xffi::DescribeHandler("stateless", bad_bundle);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("must be registered before the handler"));
}

TEST(FfiContext, UserData) {
  Settings settings{"from the context"};
  xffi::ExecutionContext context;
  ASSERT_TRUE(context.InsertUserData(Settings::id, &settings).ok());
  auto handler = ffi::Ffi::Bind().Ctx<ffi::UserData<Settings>>().To(
      [](Settings* s) { return ffi::Error::Internal(s->label); });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  EXPECT_EQ(Invoke(*handler, frame, options).message(), "from the context");

  xffi::ExecutionContext empty;
  options.context = &empty;
  auto missing = Invoke(*handler, frame, options);
  EXPECT_EQ(missing.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(missing.message(),
              StartsWith("context UserData<ctx_test::Settings>: "
                         "cannot get user data: "));
}

TEST(FfiContext, RunIdAndDeviceOrdinal) {
  xffi::ExecutionContext context;
  context.set_run_id(77);
  context.set_device_ordinal(3);
  auto handler =
      ffi::Ffi::Bind().Ctx<ffi::RunId>().Ctx<ffi::DeviceOrdinal>().To(
          [](ffi::RunId run, int32_t device) {
            return ffi::Error::Internal(std::to_string(run.run_id) + "/" +
                                        std::to_string(device));
          });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  EXPECT_EQ(Invoke(*handler, frame, options).message(), "77/3");
}

TEST(FfiContext, ThreadPool) {
  xffi::ThreadPool pool(2);
  xffi::ExecutionContext context;
  context.set_thread_pool(&pool);
  std::atomic<int> ran{0};
  auto handler =
      ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().To([&](ffi::ThreadPool threads) {
        EXPECT_EQ(threads.num_threads(), 2);
        ffi::CountDownPromise done(3);
        for (int i = 0; i < 3; ++i) {
          threads.Schedule([&ran, done]() mutable {
            ++ran;
            done.CountDown();
          });
        }
        return ffi::Future(done);
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  auto result = Invoke(*handler, frame, options);
  result.Wait();
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(ran, 3);
}

TEST(FfiContext, ThreadPoolRunsInlineWithoutAPool) {
  int ran = 0;
  auto handler =
      ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().To([&](ffi::ThreadPool threads) {
        EXPECT_EQ(threads.num_threads(), 0);
        threads.Schedule([&] { ++ran; });
        EXPECT_EQ(ran, 1);
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
  EXPECT_EQ(ran, 1);
}

TEST(FfiContext, StreamOnHostIsAnError) {
  auto handler = ffi::Ffi::Bind().Ctx<ffi::PlatformStream<void*>>().To(
      [](void*) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(),
              StartsWith("context PlatformStream<void*>: cannot get the "
                         "platform stream: "));
  EXPECT_THAT(result.message(), HasSubstr("Host has no streams"));
}

struct FakeStream;

TEST(FfiContext, StreamOnDevicePlatform) {
  xffi::ExecutionContext context(xffi::Platform::kCuda);
  auto* stream = reinterpret_cast<FakeStream*>(0x1234);
  context.set_stream(stream);
  auto handler = ffi::Ffi::Bind().Ctx<ffi::PlatformStream<FakeStream*>>().To(
      [&](FakeStream* got) {
        EXPECT_EQ(got, stream);
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  auto result = Invoke(*handler, frame, options);
  EXPECT_TRUE(result.ok()) << result.message();
}

class MallocAllocator : public xffi::DeviceAllocator {
 public:
  xffi::StatusOr<void*> Allocate(size_t size, size_t) override {
    ++allocated;
    return std::malloc(size);
  }
  xffi::Status Free(void* data, size_t) override {
    ++freed;
    std::free(data);
    return xffi::Status();
  }
  int allocated = 0, freed = 0;
};

TEST(FfiContext, ScratchAllocator) {
  MallocAllocator allocator;
  xffi::ExecutionContext context(xffi::Platform::kCuda);
  context.set_stream(reinterpret_cast<void*>(0x1));
  context.set_device_allocator(&allocator);
  auto handler = ffi::Ffi::Bind().Ctx<ffi::ScratchAllocator>().To(
      [&](ffi::ScratchAllocator scratch) {
        auto a = scratch.Allocate(64, 16);
        auto b = scratch.Allocate(8);
        EXPECT_TRUE(a.has_value());
        EXPECT_TRUE(b.has_value());
        EXPECT_EQ(allocator.allocated, 2);
        EXPECT_EQ(allocator.freed, 0);
        auto bad = scratch.Allocate(8, 3);
        EXPECT_FALSE(bad.has_value());
        EXPECT_THAT(scratch.last_error().message(),
                    HasSubstr("alignment 3 is not a power of two"));
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  auto result = Invoke(*handler, frame, options);
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(allocator.freed, 2);
}

TEST(FfiContext, ScratchAllocatorOnHostFails) {
  auto handler = ffi::Ffi::Bind().Ctx<ffi::ScratchAllocator>().To(
      [](ffi::ScratchAllocator scratch) {
        EXPECT_FALSE(scratch.Allocate(16).has_value());
        EXPECT_THAT(scratch.last_error().message(),
                    HasSubstr("Host has no device memory"));
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

TEST(FfiContext, ContextLooksUpAnything) {
  xffi::ExecutionContext context;
  context.set_run_id(5);
  auto handler = ffi::Ffi::Bind().Ctx<ffi::Context>().To([](ffi::Context ctx) {
    auto run = ctx.get<ffi::RunId>();
    EXPECT_TRUE(run.has_value());
    EXPECT_EQ(run->run_id, 5);
    auto stream = ctx.get<ffi::PlatformStream<void*>>();
    EXPECT_TRUE(stream.has_error());
    EXPECT_THAT(stream.error().message(),
                StartsWith("cannot get the platform stream: "));
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  auto result = Invoke(*handler, frame, options);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiContext, CustomOptions) {
  auto options_frame =
      CallFrameBuilder().Attr("level", 3).Attr("mode", "fast").Build();
  xffi::ExecutionContext context;
  context.set_custom_options(&options_frame.get()->attrs);
  auto handler = ffi::Ffi::Bind().Ctx<ffi::CustomOptions>().To(
      [](ffi::Dictionary options) {
        EXPECT_EQ(options.size(), 2u);
        return ffi::Error::Internal(
            std::string(*options.get<std::string_view>("mode")));
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  EXPECT_EQ(Invoke(*handler, frame, options).message(), "fast");

  xffi::ExecutionContext without;
  options.context = &without;
  auto empty_handler = ffi::Ffi::Bind().Ctx<ffi::CustomOptions>().To(
      [](ffi::Dictionary options) {
        return ffi::Error::Internal(std::to_string(options.size()));
      });
  EXPECT_EQ(Invoke(*empty_handler, frame, options).message(), "0");
}

struct CounterExtension {
  XLA_FFI_Extension base;
  int32_t value;
};

struct CounterExt {
  using CExtension = CounterExtension;
  using Type = int32_t;
  static constexpr const char* kName = "CounterExt";
  static constexpr int64_t kExtensionType = 4242;
  static constexpr int32_t kMajorVersion = 1;
  static constexpr int32_t kMinorVersion = 2;
  static Type Create(const XLA_FFI_Api*, const CExtension* ext) {
    return ext->value;
  }
};

struct LenientExt : CounterExt {
  static bool Support(int32_t major, int32_t) { return major == 1; }
};

TEST(FfiContext, Extensions) {
  CounterExtension ext{ffi::MakeExtensionHeader<CounterExt>(), 99};
  EXPECT_EQ(ext.base.struct_size, sizeof(CounterExtension));
  xffi::ExecutionContext context;
  context.AddExtension(&ext.base);
  auto handler =
      ffi::Ffi::Bind().Ctx<ffi::Extension<CounterExt>>().To([](int32_t value) {
        return ffi::Error::Internal(std::to_string(value));
      });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.context = &context;
  EXPECT_EQ(Invoke(*handler, frame, options).message(), "99");

  xffi::ExecutionContext without;
  options.context = &without;
  EXPECT_EQ(Invoke(*handler, frame, options).message(),
            "context Extension<CounterExt>: extension CounterExt (type 4242) "
            "is not in the context");

  CounterExtension newer = ext;
  newer.base.id.minor_version = 3;
  xffi::ExecutionContext newer_context;
  newer_context.AddExtension(&newer.base);
  options.context = &newer_context;
  EXPECT_EQ(Invoke(*handler, frame, options).message(),
            "context Extension<CounterExt>: extension CounterExt has version "
            "1.3; this handler was built for 1.2");
  auto lenient =
      ffi::Ffi::Bind().Ctx<ffi::Extension<LenientExt>>().To([](int32_t value) {
        return ffi::Error::Internal(std::to_string(value));
      });
  EXPECT_EQ(Invoke(*lenient, frame, options).message(), "99");
}

}  // namespace
