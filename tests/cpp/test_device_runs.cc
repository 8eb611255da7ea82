// Runs of the device backend under CompileOptions' limits, on SimDevice:
// memory_limit_bytes refuses a program at compile time before anything is
// allocated, a device that runs out of memory gives an error and stays
// usable, and custom_call_timeout bounds a custom call that never completes
// while keeping what it may still touch until it does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device/device.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"
#include "device_backend/device_executor.h"
#include "device_backend_test_util.h"
#include "xffi/ffi.h"
#include "xffi/program/executable.h"
#include "xffi/runtime/registry.h"

namespace xffi::device_backend {
namespace {

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;

// A program whose buffers weigh a few hundred kilobytes.
constexpr char kLarge[] = R"(HloModule large
ENTRY main {
  x = f32[16384] parameter(0)
  a = f32[16384] add(x, x)
  b = f32[16384] multiply(a, x)
  ROOT c = f32[16384] subtract(b, a)
}
)";

constexpr char kSmall[] = R"(HloModule small
ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}
)";

// A custom call that adds one on the device, or (while `hang` is set)
// returns a future it completes only when the test releases it; the
// release then enqueues the addition on the run's stream, writing the
// abandoned run's buffers as a late call would.
struct AddOneKernel {
  const float* x;
  float* y;
  int64_t n;
  void operator()(int64_t i) const {
    if (i < n) y[i] = x[i] + 1.0f;
  }
  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(x);
    visit(y);
  }
};

struct HeldCall {
  device::Stream* stream;
  AddOneKernel kernel;
  ffi::Promise promise;
};
std::atomic<bool> hang{false};
std::mutex held_mutex;
std::vector<HeldCall> held;

Status LaunchAddOne(device::Stream& stream, const AddOneKernel& kernel) {
  const device::LaunchDims dims{(kernel.n + 63) / 64, 64};
  return device::LaunchFunctor(stream, "devruns_add_one", dims, kernel);
}

ffi::Future MayHangImpl(device::Stream* stream, ffi::Buffer<ffi::F32> x,
                        ffi::Result<ffi::Buffer<ffi::F32>> y) {
  ffi::Promise promise;
  ffi::Future future(promise);
  AddOneKernel kernel{x.typed_data(), y->typed_data(),
                      static_cast<int64_t>(x.element_count())};
  std::lock_guard<std::mutex> lock(held_mutex);
  if (hang) {
    held.push_back({stream, kernel, promise});
    return future;
  }
  Status launched = LaunchAddOne(*stream, kernel);
  if (launched.ok())
    promise.SetAvailable();
  else
    promise.SetError(ffi::Error::Internal(launched.message()));
  return future;
}
XFFI_DEFINE_HANDLER(MayHang, MayHangImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

// Completes the held calls, each after enqueuing its addition; returns how
// many there were.
size_t ReleaseHeld() {
  std::vector<HeldCall> calls;
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    calls.swap(held);
  }
  for (HeldCall& call : calls) {
    EXPECT_TRUE(LaunchAddOne(*call.stream, call.kernel).ok());
    call.promise.SetAvailable();
  }
  return calls.size();
}

// Big enough that SimDevice's memory, rounded to pages, can be sized to
// hold one block and not two.
constexpr int64_t kHangingElements = 2048;
constexpr char kHanging[] = R"(HloModule hanging
ENTRY main {
  x = f32[2048] parameter(0)
  y = f32[2048] custom-call(x), custom_call_target="devruns_may_hang", api_version=API_VERSION_TYPED_FFI
  ROOT z = f32[2048] multiply(y, y)
}
)";

class DeviceRunsTest : public testing::SimDeviceBackendTest {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(
        RegisterHandler(
            "devruns_may_hang", "CUDA",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, MayHang, nullptr})
            .ok());
  }

  void ExpectSmallRuns() {
    auto small = CompileForDevice(kSmall);
    ASSERT_TRUE(small.ok()) << small.status().message();
    auto sum =
        (*small)->Execute({Literal::FromVector<float>({4}, {1, 2, 3, 4})});
    ASSERT_TRUE(sum.ok()) << sum.status().message();
    EXPECT_EQ((*sum)[0].data<float>()[3], 8.0f);
  }

  size_t LargeProgramBytes() {
    auto probe = CompileForDevice(kLarge);
    EXPECT_TRUE(probe.ok()) << probe.status().message();
    return probe.ok() ? GetDeviceExecutorStats(**probe).device_bytes : 0;
  }

  void TearDown() override {
    hang = false;
    ReleaseHeld();
  }
};

TEST_F(DeviceRunsTest, MemoryLimitRefusesAtCompileBeforeAnyAllocation) {
  const size_t needed = LargeProgramBytes();
  ASSERT_GT(needed, 0u);
  ASSERT_EQ(device_->bytes_in_use(), 0u);

  CompileOptions options;
  options.memory_limit_bytes = static_cast<int64_t>(needed) - 1;
  auto refused = CompileForDevice(kLarge, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("need " + std::to_string(needed) + " bytes"));
  EXPECT_THAT(refused.status().message(),
              HasSubstr("memory limit of " + std::to_string(needed - 1)));
  EXPECT_EQ(device_->bytes_in_use(), 0u);

  // At the limit, and with none, it compiles and runs.
  options.memory_limit_bytes = static_cast<int64_t>(needed);
  EXPECT_TRUE(CompileForDevice(kLarge, options).ok());
  options.memory_limit_bytes = -1;
  EXPECT_TRUE(CompileForDevice(kLarge, options).ok());
  ExpectSmallRuns();
}

TEST_F(DeviceRunsTest, OutOfDeviceMemoryIsAnErrorAndTheDeviceStaysUsable) {
  const size_t needed = LargeProgramBytes();
  device::SimDeviceOptions small_device;
  small_device.memory_bytes = needed / 2 / 4096 * 4096;
  UseDevice(small_device);
  auto refused = CompileForDevice(kLarge);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("cannot allocate the program's " +
                        std::to_string(needed) + " bytes on SimDevice"));
  EXPECT_EQ(device_->bytes_in_use(), 0u);
  ExpectSmallRuns();
}

std::vector<Literal> Arguments() {
  std::vector<float> x(kHangingElements);
  for (int64_t i = 0; i < kHangingElements; ++i)
    x[static_cast<size_t>(i)] = static_cast<float>(i % 97) - 40.0f;
  std::vector<Literal> arguments;
  arguments.push_back(Literal::FromVector<float>({kHangingElements}, x));
  return arguments;
}

void ExpectSquaresOfSuccessors(const std::vector<Literal>& results) {
  ASSERT_EQ(results.size(), 1u);
  const std::vector<Literal> arguments = Arguments();
  for (int64_t i = 0; i < kHangingElements; ++i) {
    const float next = arguments[0].data<float>()[i] + 1.0f;
    EXPECT_EQ(results[0].data<float>()[i], next * next) << "element " << i;
  }
}

TEST_F(DeviceRunsTest, TimeoutAbandonsTheCallAndKeepsItsBlockUntilItEnds) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(50);
  auto program = CompileForDevice(kHanging, options);
  ASSERT_TRUE(program.ok()) << program.status().message();
  const size_t block = device_->bytes_in_use();
  ASSERT_GT(block, 0u);

  hang = true;
  auto timed_out = (*program)->Execute(Arguments());
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.status().code(), XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
  EXPECT_THAT(timed_out.status().message(),
              HasSubstr("custom call 'devruns_may_hang' at program.hlo:4:"));
  EXPECT_THAT(timed_out.status().message(), HasSubstr("timeout"));
  EXPECT_EQ(GetDeviceExecutorStats(**program).abandoned_calls, 1);

  // The executable runs on a fresh block while the late call keeps its own.
  hang = false;
  auto fine = (*program)->Execute(Arguments());
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  ExpectSquaresOfSuccessors(*fine);
  EXPECT_EQ(device_->bytes_in_use(), 2 * block);

  // The late call writes its old buffers on the old stream, then frees them.
  EXPECT_EQ(ReleaseHeld(), 1u);
  EXPECT_TRUE(device_->Synchronize().ok());
  EXPECT_EQ(device_->bytes_in_use(), block);
  auto again = (*program)->Execute(Arguments());
  ASSERT_TRUE(again.ok()) << again.status().message();
  ExpectSquaresOfSuccessors(*again);
}

TEST_F(DeviceRunsTest, AnAbandonedCallOutlivesItsExecutable) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(20);
  auto program = CompileForDevice(kHanging, options);
  ASSERT_TRUE(program.ok()) << program.status().message();
  const size_t block = device_->bytes_in_use();
  hang = true;
  EXPECT_EQ((*program)->Execute(Arguments()).status().code(),
            XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
  program->reset();
  // Its block and stream are still there for the call to finish with.
  EXPECT_EQ(device_->bytes_in_use(), block);
  EXPECT_EQ(ReleaseHeld(), 1u);
  EXPECT_EQ(device_->bytes_in_use(), 0u);
  EXPECT_TRUE(device_->Synchronize().ok());
  ExpectSmallRuns();
}

TEST_F(DeviceRunsTest, ARunThatCannotGetAFreshBlockFailsUntilTheCallEnds) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(20);
  size_t block = 0;
  {
    auto probe = CompileForDevice(kHanging, options);
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    block = GetDeviceExecutorStats(**probe).device_bytes;
  }
  // Room for one block, not two.
  device::SimDeviceOptions tight;
  ASSERT_GT(block, device::Device::kAllocationAlignment);
  tight.memory_bytes = block + device::Device::kAllocationAlignment;
  UseDevice(tight);
  auto program = CompileForDevice(kHanging, options);
  ASSERT_TRUE(program.ok()) << program.status().message();

  hang = true;
  EXPECT_EQ((*program)->Execute(Arguments()).status().code(),
            XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
  hang = false;
  auto starved = (*program)->Execute(Arguments());
  ASSERT_FALSE(starved.ok());
  EXPECT_EQ(starved.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_THAT(starved.status().message(),
              HasSubstr("cannot allocate the program's " +
                        std::to_string(block) + " bytes"));

  EXPECT_EQ(ReleaseHeld(), 1u);
  auto fine = (*program)->Execute(Arguments());
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  ExpectSquaresOfSuccessors(*fine);
}

// A while loop whose body calls the custom call: every run goes through the
// thunks, stream, frame and handler state of its instance many times.
constexpr char kLoopWithCustomCall[] = R"(HloModule loop
cond {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  w = f32[256] custom-call(v), custom_call_target="devruns_may_hang", api_version=API_VERSION_TYPED_FFI
  half = f32[] constant(0.5)
  halves = f32[256] broadcast(half), dimensions={}
  u = f32[256] multiply(w, halves)
  ROOT t = (s32[], f32[256]) tuple(next, u)
}
ENTRY main {
  x = f32[256] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, x)
  loop = (s32[], f32[256]) while(init), condition=cond, body=body
  ROOT r = f32[256] get-tuple-element(loop), index=1
}
)";

TEST_F(DeviceRunsTest, ConcurrentRunsOfOneExecutableMatchSerialRuns) {
  auto program = CompileForDevice(kLoopWithCustomCall);
  ASSERT_TRUE(program.ok()) << program.status().message();
  constexpr int kThreads = 6, kRunsPerThread = 8;
  // One input per (thread, run); the serial runs are the reference.
  std::vector<Literal> inputs, expected;
  for (int k = 0; k < kThreads * kRunsPerThread; ++k) {
    std::vector<float> x(256);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>((static_cast<int>(i) * 7 + k * 13) % 101);
    inputs.push_back(Literal::FromVector<float>({256}, x));
    auto serial = (*program)->Execute({inputs.back()});
    ASSERT_TRUE(serial.ok()) << serial.status().message();
    expected.push_back(std::move((*serial)[0]));
  }
  ASSERT_EQ(GetDeviceExecutorStats(**program).run_instances, 1);

  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  // Started together, so that runs overlap and the pool grows.
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int r = 0; r < kRunsPerThread; ++r) {
        const size_t k = static_cast<size_t>(t * kRunsPerThread + r);
        auto result = (*program)->Execute({inputs[k]});
        if (!result.ok()) {
          failures[static_cast<size_t>(t)] = result.status().message();
          return;
        }
        for (size_t i = 0; i < 256; ++i) {
          if ((*result)[0].data<float>()[i] != expected[k].data<float>()[i]) {
            failures[static_cast<size_t>(t)] =
                "input " + std::to_string(k) + " element " + std::to_string(i);
            return;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "thread " << t;
  const DeviceExecutorStats stats = GetDeviceExecutorStats(**program);
  EXPECT_GE(stats.run_instances, 1);
  EXPECT_LE(stats.run_instances, kThreads);
}

}  // namespace
}  // namespace xffi::device_backend
