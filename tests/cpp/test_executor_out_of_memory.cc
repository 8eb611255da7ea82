// Allocation failure at run time: when a run needs buffers of its own (one
// more run in flight than ever before) and they cannot be allocated, Execute
// returns RESOURCE_EXHAUSTED naming the figure and the computation (no
// abort, no exception), the run in flight completes, and the executable runs
// normally once memory is there again. The executor allocates a run's arena
// with the aligned nothrow operator new; this binary replaces that one form
// so that large requests fail while the test asks for it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "executor_test_util.h"
#include "xffi/ffi.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_oom_test {

std::atomic<bool> refuse_large{false};
constexpr size_t kLarge = size_t{1} << 20;

// y = x; while `hold` is set, the first call waits inside until it is
// cleared, so its run stays in flight and the next run needs buffers of its
// own (a later call passes: a run that got them does not hang the test).
std::mutex mutex;
std::condition_variable changed;
bool hold = false;
int inside = 0;

XFFI_DEFINE_HANDLER(
    kHold,
    [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        bool first = inside++ == 0;
        changed.notify_all();
        if (first) changed.wait(lock, [] { return !hold; });
        --inside;
      }
      std::memcpy(y->untyped_data(), x.untyped_data(), x.size_bytes());
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

void SetHold(bool value) {
  std::lock_guard<std::mutex> lock(mutex);
  hold = value;
  changed.notify_all();
}

void WaitUntilInside() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [] { return inside > 0; });
}

}  // namespace exec_oom_test

// Every other form stays the library's; this one forwards to the throwing
// aligned form, so its blocks are freed by the matching aligned delete.
void* operator new(size_t size, std::align_val_t alignment,
                   const std::nothrow_t&) noexcept {
  if (exec_oom_test::refuse_large.load() && size >= exec_oom_test::kLarge)
    return nullptr;
  try {
    return ::operator new(size, alignment);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

namespace xffi::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// f32[512,512] temporaries (1 MiB each) around the holding call: an arena
// of several MiB per run.
constexpr const char* kLargeTemporaries = R"(HloModule large
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[512,512] parameter(0)
  a = f32[512,512] negate(x)
  h = f32[512,512] custom-call(a), custom_call_target="oom.hold", api_version=API_VERSION_TYPED_FFI
  b = f32[512,512] multiply(h, h)
  c = f32[512,512] add(b, x)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(c, zero), dimensions={0,1}, to_apply=add
}
)";

TEST(ExecutorOutOfMemory, ArenaAllocationFailureIsAnErrorAndTheNextRunWorks) {
  ASSERT_TRUE(xffi::RegisterHandler(
                  "oom.hold", "Host",
                  XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr,
                                         exec_oom_test::kHold, nullptr})
                  .ok());
  auto exe = CompileWithKernels(ParseHloForTest(kLargeTemporaries),
                                CompileOptions{}, cpu::MakeKernel);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal x = Literal::FromVector<float>({512, 512},
                                         std::vector<float>(512 * 512, 2.0f));
  // (-2)^2 + 2 = 6 for each of the 512 * 512 elements: exact in f32.
  const std::vector<float> expected{6.0f * 512 * 512};

  // One run in flight holds the buffers built at compile time.
  exec_oom_test::SetHold(true);
  StatusOr<std::vector<Literal>> held =
      Status(XLA_FFI_Error_Code_UNKNOWN, "the held run did not finish");
  std::thread in_flight([&] { held = (*exe)->Execute({x}); });
  exec_oom_test::WaitUntilInside();
  exec_oom_test::refuse_large = true;
  for (int run = 0; run < 2; ++run) {
    auto refused = (*exe)->Execute({x});
    EXPECT_FALSE(refused.ok());  // not ASSERT: the held run must be released
    if (refused.ok()) continue;
    EXPECT_EQ(refused.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
    EXPECT_THAT(refused.status().message(),
                AllOf(HasSubstr("cannot allocate the "),
                      HasSubstr(" bytes of buffers of computation 'main'")));
  }
  exec_oom_test::refuse_large = false;
  exec_oom_test::SetHold(false);
  in_flight.join();
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ((*held)[0].ToVector<float>(), expected);
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute({x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].ToVector<float>(), expected);
  }
}

}  // namespace
}  // namespace xffi::test
