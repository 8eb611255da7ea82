// Fault isolation: a custom call that throws, returns an error, fails
// through its future, or fails in a stage before execute makes that run fail
// with the target's name, and leaves the executable (and the process) usable
// for the next run; per-call-site state is made once and destroyed once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpu/executor.h"
#include "cpu/kernel.h"
#include "executor_test_util.h"
#include "xffi/ffi.h"
#include "xffi/runtime/api.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_faults_test {

// y = x + 1, refusing a negative x[0] in the way each handler below names.
bool Refuses(ffi::Buffer<ffi::F32, 1>& x) { return x.typed_data()[0] < 0; }
void AddOne(ffi::Buffer<ffi::F32, 1>& x, ffi::ResultBuffer<ffi::F32, 1>& y) {
  for (int64_t i = 0; i < x.dimensions()[0]; ++i)
    y->typed_data()[i] = x.typed_data()[i] + 1.0f;
}

XFFI_DEFINE_HANDLER(
    kThrows,
    [](ffi::Buffer<ffi::F32, 1> x, ffi::ResultBuffer<ffi::F32, 1> y) {
      if (Refuses(x)) throw std::runtime_error("negative input thrown");
      AddOne(x, y);
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

XFFI_DEFINE_HANDLER(
    kReturnsError,
    [](ffi::Buffer<ffi::F32, 1> x, ffi::ResultBuffer<ffi::F32, 1> y) {
      if (Refuses(x))
        return ffi::Error::InvalidArgument("negative input returned");
      AddOne(x, y);
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Completes on the intra-op pool, with an error for a negative x[0].
XFFI_DEFINE_HANDLER(
    kFailsAsync,
    [](ffi::ThreadPool pool, ffi::Buffer<ffi::F32, 1> x,
       ffi::ResultBuffer<ffi::F32, 1> y) {
      ffi::Promise promise;
      ffi::Future future(promise);
      pool.Schedule([promise, x, y]() mutable {
        if (Refuses(x)) {
          promise.SetError(ffi::Error::Internal("negative input, later"));
          return;
        }
        AddOne(x, y);
        promise.SetAvailable();
      });
      return future;
    },
    ffi::Ffi::Bind()
        .Ctx<ffi::ThreadPool>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Completes at once, or (while `hang` is set) never: the promise is kept in
// `stalled` and completed by the test when it is done.
std::atomic<bool> hang{false};
std::mutex stalled_mutex;
std::vector<ffi::Promise> stalled;
XFFI_DEFINE_HANDLER(
    kMayHang,
    [](ffi::Buffer<ffi::F32, 1> x, ffi::ResultBuffer<ffi::F32, 1> y) {
      ffi::Promise promise;
      ffi::Future future(promise);
      if (hang) {
        std::lock_guard<std::mutex> lock(stalled_mutex);
        stalled.push_back(promise);
        return future;
      }
      AddOne(x, y);
      promise.SetAvailable();
      return future;
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// y = x + the state's value, computed when the test releases it (while
// `hold_late` is set) through the call's frame: a call that completes after
// its run gave up, writing into the buffers, frame and state it was given.
std::atomic<bool> hold_late{false};
std::atomic<int> late_states_made{0}, late_states_destroyed{0};
struct LateState {
  static ffi::TypeId id;
  LateState() { ++late_states_made; }
  ~LateState() { ++late_states_destroyed; }
  float value = 1.0f;
};
ffi::TypeId LateState::id = {};
XFFI_REGISTER_TYPE(xffi::GetApi(), "test_executor_faults.LateState",
                   &LateState::id, ffi::MakeTypeInfo<LateState>());
struct HeldCall {
  ffi::Buffer<ffi::F32, 1> x;
  ffi::ResultBuffer<ffi::F32, 1> y;
  LateState* state;
  ffi::Promise promise;
};
std::mutex held_mutex;
std::vector<HeldCall> held;
void AddState(const ffi::Buffer<ffi::F32, 1>& x,
              ffi::ResultBuffer<ffi::F32, 1>& y, const LateState& state) {
  for (int64_t i = 0; i < x.dimensions()[0]; ++i)
    y->typed_data()[i] = x.typed_data()[i] + state.value;
}
XFFI_DEFINE_HANDLER(
    kLateInstantiate,
    []() -> ffi::ErrorOr<std::unique_ptr<LateState>> {
      return std::make_unique<LateState>();
    },
    ffi::Ffi::BindInstantiate());
XFFI_DEFINE_HANDLER(
    kLateExecute,
    [](LateState* state, ffi::Buffer<ffi::F32, 1> x,
       ffi::ResultBuffer<ffi::F32, 1> y) {
      ffi::Promise promise;
      ffi::Future future(promise);
      if (hold_late) {
        std::lock_guard<std::mutex> lock(held_mutex);
        held.push_back({x, y, state, promise});
        return future;
      }
      AddState(x, y, *state);
      promise.SetAvailable();
      return future;
    },
    ffi::Ffi::Bind()
        .Ctx<ffi::State<LateState>>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Runs the held calls now; returns how many there were.
size_t ReleaseHeld() {
  std::vector<HeldCall> calls;
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    calls.swap(held);
  }
  for (HeldCall& call : calls) {
    AddState(call.x, call.y, *call.state);
    call.promise.SetAvailable();
  }
  return calls.size();
}

// Stages: instantiate makes the state (and fails while
// instantiate_failures > 0), prepare and initialize fail while their
// counters are positive; execute adds the state's offset.
std::atomic<int> instantiate_failures{0}, prepare_failures{0},
    initialize_failures{0};
std::atomic<int> made{0}, destroyed{0};
struct Offset {
  static ffi::TypeId id;
  Offset() { ++made; }
  ~Offset() { ++destroyed; }
  float value = 1.0f;
};
ffi::TypeId Offset::id = {};
XFFI_REGISTER_TYPE(xffi::GetApi(), "test_executor_faults.Offset", &Offset::id,
                   ffi::MakeTypeInfo<Offset>());

// Whether to fail this time: takes one from `failures` while it is positive.
bool Consume(std::atomic<int>& failures) {
  int left = failures.load();
  while (left > 0 && !failures.compare_exchange_weak(left, left - 1)) {
  }
  return left > 0;
}

XFFI_DEFINE_HANDLER(
    kStagesInstantiate,
    []() -> ffi::ErrorOr<std::unique_ptr<Offset>> {
      if (Consume(instantiate_failures))
        return ffi::Unexpected(ffi::Error::Internal("instantiate refused"));
      return std::make_unique<Offset>();
    },
    ffi::Ffi::BindInstantiate());
XFFI_DEFINE_HANDLER(
    kStagesPrepare,
    []() {
      return Consume(prepare_failures) ? ffi::Error::Internal("prepare refused")
                                       : ffi::Error::Success();
    },
    ffi::Ffi::BindPrepare());
XFFI_DEFINE_HANDLER(
    kStagesInitialize,
    []() {
      return Consume(initialize_failures)
                 ? ffi::Error::Internal("initialize refused")
                 : ffi::Error::Success();
    },
    ffi::Ffi::BindInitialize());
XFFI_DEFINE_HANDLER(
    kStagesExecute,
    [](Offset* offset, ffi::Buffer<ffi::F32, 1> x,
       ffi::ResultBuffer<ffi::F32, 1> y) {
      for (int64_t i = 0; i < x.dimensions()[0]; ++i)
        y->typed_data()[i] = x.typed_data()[i] + offset->value;
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Ctx<ffi::State<Offset>>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

void Register() {
  static const bool done = [] {
    auto execute_only = [](XLA_FFI_Handler* execute) {
      return XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, execute,
                                    nullptr};
    };
    EXPECT_TRUE(
        xffi::RegisterHandler("kf.throws", "Host", execute_only(kThrows)).ok());
    EXPECT_TRUE(xffi::RegisterHandler("kf.returns_error", "Host",
                                      execute_only(kReturnsError))
                    .ok());
    EXPECT_TRUE(xffi::RegisterHandler("kf.fails_async", "Host",
                                      execute_only(kFailsAsync))
                    .ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("kf.may_hang", "Host", execute_only(kMayHang))
            .ok());
    XLA_FFI_Handler_Bundle stages{kStagesInstantiate, kStagesPrepare,
                                  kStagesInitialize, kStagesExecute, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("kf.stages", "Host", stages).ok());
    XLA_FFI_Handler_Bundle late{kLateInstantiate, nullptr, nullptr,
                                kLateExecute, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("kf.late", "Host", late).ok());
    return true;
  }();
  (void)done;
}

}  // namespace exec_faults_test

namespace xffi::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// y = target(x) * 2, so a run that succeeds also ran an op after the call.
StatusOr<std::unique_ptr<Executable>> CompileCalling(
    const std::string& target, CompileOptions options = {}) {
  exec_faults_test::Register();
  std::string text = R"(HloModule faults
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] custom-call(x), custom_call_target=")" +
                     target + R"(", api_version=API_VERSION_TYPED_FFI
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  ROOT z = f32[4] multiply(y, twos)
}
)";
  options.intra_op_threads = 2;
  return CompileWithKernels(ParseHloForTest(text), options, cpu::MakeKernel);
}

void ExpectFailsThenRecovers(const std::string& target,
                             const std::string& message) {
  SCOPED_TRACE(target);
  auto exe = CompileCalling(target);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  for (int round = 0; round < 3; ++round) {
    auto bad = (*exe)->Execute({Literal::Vector<float>({-1, 0, 0, 0})});
    ASSERT_FALSE(bad.ok());
    EXPECT_THAT(
        bad.status().message(),
        AllOf(HasSubstr("custom call '" + target + "'"), HasSubstr(message)));
    auto good = (*exe)->Execute({Literal::Vector<float>({1, 2, 3, 4})});
    ASSERT_TRUE(good.ok()) << good.status().ToString();
    EXPECT_EQ((*good)[0].ToVector<float>(), (std::vector<float>{4, 6, 8, 10}));
  }
}

TEST(ExecutorFaults, HandlerThatThrowsFailsOnlyItsRun) {
  ExpectFailsThenRecovers("kf.throws", "negative input thrown");
}

TEST(ExecutorFaults, HandlerErrorFailsOnlyItsRun) {
  ExpectFailsThenRecovers("kf.returns_error", "negative input returned");
}

TEST(ExecutorFaults, AsynchronousFailureFailsOnlyItsRun) {
  ExpectFailsThenRecovers("kf.fails_async", "negative input, later");
}

TEST(ExecutorFaults, FailedStagesAreRetriedAndStateIsMadeAndDestroyedOnce) {
  using exec_faults_test::destroyed;
  using exec_faults_test::made;
  int made_before = made, destroyed_before = destroyed;
  exec_faults_test::instantiate_failures = 1;
  exec_faults_test::prepare_failures = 1;
  exec_faults_test::initialize_failures = 1;
  {
    auto exe = CompileCalling("kf.stages");
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    Literal x = Literal::Vector<float>({1, 2, 3, 4});
    // Each run fails in the next stage; the stages that succeeded are not
    // repeated.
    for (const char* stage : {"INSTANTIATE", "PREPARE", "INITIALIZE"}) {
      auto out = (*exe)->Execute({x});
      ASSERT_FALSE(out.ok()) << stage;
      EXPECT_THAT(out.status().message(),
                  AllOf(HasSubstr("custom call 'kf.stages'"),
                        HasSubstr(std::string("in stage ") + stage)));
    }
    for (int run = 0; run < 3; ++run) {
      auto out = (*exe)->Execute({x});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{4, 6, 8, 10}));
    }
    EXPECT_EQ(made - made_before, 1);
    EXPECT_EQ(destroyed - destroyed_before, 0);
  }
  EXPECT_EQ(destroyed - destroyed_before, 1);
}

TEST(ExecutorFaults, CallThatNeverCompletesTimesOutNamingTheTarget) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(50);
  auto exe = CompileCalling("kf.may_hang", options);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal x = Literal::Vector<float>({1, 2, 3, 4});
  exec_faults_test::hang = true;
  auto stalled = (*exe)->Execute({x});
  ASSERT_FALSE(stalled.ok());
  EXPECT_EQ(stalled.status().code(), XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
  EXPECT_THAT(stalled.status().message(),
              AllOf(HasSubstr("custom call 'kf.may_hang'"),
                    HasSubstr("did not complete within the custom-call "
                              "timeout (0.05")));
  // The stalled run's buffers stay reserved; the next runs use others.
  exec_faults_test::hang = false;
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute({x});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{4, 6, 8, 10}));
  }
  {
    std::lock_guard<std::mutex> lock(exec_faults_test::stalled_mutex);
    for (ffi::Promise& promise : exec_faults_test::stalled)
      promise.SetAvailable();
    exec_faults_test::stalled.clear();
  }
  auto after = (*exe)->Execute({x});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
}

TEST(ExecutorFaults,
     CallCompletingAfterItsExecutableIsGoneWritesIntoKeptBuffers) {
  using exec_faults_test::late_states_destroyed;
  using exec_faults_test::late_states_made;
  const int made_before = late_states_made;
  const int destroyed_before = late_states_destroyed;
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(20);
  // Execute({x}) passes a temporary copy of x, freed when Execute returns:
  // with a timeout the run reads its own copy, which it keeps.
  Literal x = Literal::Vector<float>({1, 2, 3, 4});
  {
    auto exe = CompileCalling("kf.late", options);
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    exec_faults_test::hold_late = true;
    auto stalled = (*exe)->Execute({x});
    exec_faults_test::hold_late = false;
    ASSERT_FALSE(stalled.ok());
    EXPECT_EQ(stalled.status().code(), XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
    EXPECT_THAT(stalled.status().message(), HasSubstr("custom call 'kf.late'"));
    auto out = (*exe)->Execute({x});  // another instance meanwhile
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{4, 6, 8, 10}));
  }
  // Destroyed with the call still pending: its buffers, frame, state and
  // argument copy are kept (ASan or TSan would see the late call below
  // read or write freed memory).
  EXPECT_EQ(late_states_made - made_before, 1);
  EXPECT_EQ(late_states_destroyed - destroyed_before, 0);
  EXPECT_EQ(exec_faults_test::ReleaseHeld(), 1u);
  // Freed once the call has completed, when another executable goes.
  { auto other = CompileCalling("kf.returns_error"); }
  EXPECT_EQ(late_states_destroyed - destroyed_before, 1);
}

TEST(ExecutorFaults, AbandonedRunsCopiesAreFreedWhenTheCallCompletes) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(20);
  auto exe = CompileCalling("kf.late", options);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  Literal x = Literal::Vector<float>({1, 2, 3, 4});
  auto held_bytes = [&] {
    return cpu::GetExecutorStats(**exe).abandoned_copy_bytes;
  };
  auto done = (*exe)->Execute({x});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(held_bytes(), 0);
  exec_faults_test::hold_late = true;
  auto stalled = (*exe)->Execute({x});
  exec_faults_test::hold_late = false;
  ASSERT_FALSE(stalled.ok());
  EXPECT_EQ(stalled.status().code(), XLA_FFI_Error_Code_DEADLINE_EXCEEDED);
  // The run's copy of x and its result z, which the late call reads and
  // the abandoned run would have written.
  const int64_t copies =
      static_cast<int64_t>(x.size_bytes() + (*exe)->result_shape().byte_size());
  EXPECT_EQ(held_bytes(), copies);
  // Freed as the call completes, with no further run to reuse the instance.
  EXPECT_EQ(exec_faults_test::ReleaseHeld(), 1u);
  EXPECT_EQ(held_bytes(), 0);
  auto after = (*exe)->Execute({x});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)[0].ToVector<float>(), (std::vector<float>{4, 6, 8, 10}));
}

ffi::Span<const void* const> Args(const void* const (&leaves)[1]) {
  return ffi::Span<const void* const>(leaves, 1);
}
ffi::Span<void* const> Results(void* const (&leaves)[1]) {
  return ffi::Span<void* const>(leaves, 1);
}

TEST(ExecutorFaults, ExecuteRawNotifyingReportsEachAbandonedCallOnceDone) {
  CompileOptions options;
  options.custom_call_timeout = std::chrono::milliseconds(20);
  auto exe = CompileCalling("kf.late", options);
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  constexpr int kRuns = 3;
  // The caller's buffers of each timed-out run, and whether it was told.
  // Each argument is freed when its run is reported: ASan would catch a
  // report coming before the late call's last read.
  std::vector<std::unique_ptr<std::vector<float>>> xs;
  std::vector<std::vector<float>> ys;
  std::atomic<int> told[kRuns] = {};
  exec_faults_test::hold_late = true;
  for (int run = 0; run < kRuns; ++run) {
    xs.push_back(std::make_unique<std::vector<float>>(
        std::vector<float>{1.0f * run, 2, 3, 4}));
    ys.push_back(std::vector<float>(4, -7.0f));
    const void* arguments[] = {xs.back()->data()};
    void* results[] = {ys.back().data()};
    Status status = (*exe)->ExecuteRawNotifying(
        Args(arguments), Results(results), [&xs, &told, run] {
          xs[static_cast<size_t>(run)].reset();
          ++told[run];
        });
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_DEADLINE_EXCEEDED)
        << status.ToString();
  }
  exec_faults_test::hold_late = false;
  // A run that completes is never reported.
  std::vector<float> x = {1, 2, 3, 4}, y(4);
  const void* arguments[] = {x.data()};
  void* results[] = {y.data()};
  std::atomic<int> told_ok{0};
  ASSERT_TRUE((*exe)
                  ->ExecuteRawNotifying(Args(arguments), Results(results),
                                        [&] { ++told_ok; })
                  .ok());
  EXPECT_EQ(y, (std::vector<float>{4, 6, 8, 10}));
  // Still running: not one reported, so the caller keeps every buffer (ASan
  // would catch the late reads below had the test freed them).
  for (int run = 0; run < kRuns; ++run) EXPECT_EQ(told[run], 0) << run;
  EXPECT_EQ(exec_faults_test::ReleaseHeld(), static_cast<size_t>(kRuns));
  for (int run = 0; run < kRuns; ++run) {
    EXPECT_EQ(told[run], 1) << run;
    EXPECT_EQ(xs[static_cast<size_t>(run)], nullptr) << run;
    // The run gave up before its last op: its result leaf was never written.
    EXPECT_EQ(ys[run], std::vector<float>(4, -7.0f)) << run;
  }
  EXPECT_EQ(told_ok, 0);
}

// Two f32[256,256] temporaries (256 KiB each) live at once: a and b (the
// reverses read other indices than they write, so neither is computed in
// place).
constexpr const char* kTemporaries = R"(HloModule temporaries
ENTRY main {
  x = f32[256,256] parameter(0)
  a = f32[256,256] negate(x)
  b = f32[256,256] reverse(a), dimensions={0}
  c = f32[256,256] add(a, b)
  ROOT d = f32[256,256] reverse(c), dimensions={1}
}
)";

TEST(ExecutorFaults, MemoryLimitFailsCompileWithTheFigures) {
  CompileOptions options;
  options.memory_limit_bytes = 300 * 1024;
  auto refused = CompileForTest(ParseHloForTest(kTemporaries), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("the program's buffers need 524288 bytes, over the "
                        "memory limit of 307200 bytes"));
  options.memory_limit_bytes = 512 * 1024;
  EXPECT_TRUE(CompileForTest(ParseHloForTest(kTemporaries), options).ok());
  options.memory_limit_bytes = -1;
  EXPECT_TRUE(CompileForTest(ParseHloForTest(kTemporaries), options).ok());
  EXPECT_GT(cpu::PhysicalMemoryBytes(), 0);
}

}  // namespace
}  // namespace xffi::test
