// The device backend on SimDevice: programs with GPU custom calls and core
// ops give the Host executor's results; the faults a GPU program can have
// (host access to device memory, a missing synchronisation, an asynchronous
// error) show up; what the device cannot run is refused at compile time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "cli/npy.h"
#include "compiler/compiler.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"
#include "device_backend/device_executor.h"
#include "device_backend_test_util.h"
#include "xffi/custom_call_status.h"
#include "xffi/ffi.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/registry.h"

extern "C" XLA_FFI_Error* DoCustomCallSim(XLA_FFI_CallFrame* frame);
extern "C" XLA_FFI_Error* RmsNormSim(XLA_FFI_CallFrame* frame);
extern "C" void do_custom_call_legacy_sim(void* stream, void** buffers,
                                          const char* opaque, size_t opaque_len,
                                          XlaCustomCallStatus* status);

namespace xffi::device_backend {
namespace {

namespace fs = std::filesystem;
namespace ffi = xffi::ffi;
using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

XLA_FFI_Handler_Bundle ExecuteOnly(XLA_FFI_Handler* handler) {
  return XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, handler, nullptr};
}

// Compiles for CUDA on one SimDevice the test can look into.
using DeviceExecutorTest = testing::SimDeviceBackendTest;

// Both executors on the same arguments; every result within the default
// tolerance of the other's.
void ExpectSameResults(Executable& device, Executable& host,
                       const std::vector<Literal>& arguments,
                       const std::string& what) {
  StatusOr<std::vector<Literal>> on_device = device.Execute(arguments);
  ASSERT_TRUE(on_device.ok()) << what << ": " << on_device.status().message();
  StatusOr<std::vector<Literal>> on_host = host.Execute(arguments);
  ASSERT_TRUE(on_host.ok()) << what << ": " << on_host.status().message();
  ASSERT_EQ(on_device->size(), on_host->size()) << what;
  for (size_t k = 0; k < on_host->size(); ++k) {
    Comparison comparison = CompareLiterals((*on_device)[k], (*on_host)[k]);
    EXPECT_TRUE(comparison.ok)
        << what << " result " << k << ": " << comparison.detail;
  }
}

std::vector<Literal> ReadInputs(const std::string& stem,
                                const std::vector<Shape>& parameters) {
  std::vector<Literal> arguments;
  for (size_t k = 0; k < parameters.size(); ++k) {
    StatusOr<Literal> input =
        ReadNpyFile(stem + ".in_" + std::to_string(k) + ".npy",
                    parameters[k].element_type());
    EXPECT_TRUE(input.ok()) << input.status().message();
    if (input.ok()) arguments.push_back(std::move(*input));
  }
  return arguments;
}

// The GPU examples' SimDevice builds serve the CUDA platform, the CPU
// examples the Host one, under the same target names (registering the same
// handler again is a no-op).
void RegisterExampleHandlers() {
  ASSERT_TRUE(
      RegisterHandler("rms_norm", "CUDA", ExecuteOnly(RmsNormSim)).ok());
  ASSERT_TRUE(
      RegisterHandler("do_custom_call", "CUDA", ExecuteOnly(DoCustomCallSim))
          .ok());
  for (const char* path : {XFFI_EXAMPLE_RMS_NORM, XFFI_EXAMPLE_DO_CUSTOM_CALL})
    ASSERT_TRUE(Plugin::Load(path).ok()) << path;
}

TEST_F(DeviceExecutorTest, NormBlockWithGpuCustomCallsMatchesHostAndJax) {
  RegisterExampleHandlers();
  const std::string stem = std::string(XFFI_EXAMPLE_PROGRAMS) + "/norm_block";
  const std::string text = Slurp(stem + ".hlo");
  auto device = CompileForDevice(text);
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto host = CompileForHost(text);
  ASSERT_TRUE(host.ok()) << host.status().message();
  std::vector<Literal> arguments =
      ReadInputs(stem, (*device)->parameter_shapes());
  ExpectSameResults(**device, **host, arguments, "norm_block");

  StatusOr<std::vector<Literal>> results = (*device)->Execute(arguments);
  ASSERT_TRUE(results.ok());
  for (size_t k = 0; k < results->size(); ++k) {
    StatusOr<Literal> want =
        ReadNpyFile(stem + ".out_" + std::to_string(k) + ".npy",
                    (*results)[k].shape().element_type());
    ASSERT_TRUE(want.ok());
    Comparison comparison = CompareLiterals((*results)[k], *want);
    EXPECT_TRUE(comparison.ok)
        << "vs JAX, result " << k << ": " << comparison.detail;
  }
  DeviceExecutorStats stats = GetDeviceExecutorStats(**device);
  EXPECT_GT(stats.device_bytes, 0u);
  EXPECT_GT(stats.thunks, 0);
  // Its GELU chain is a loop fusion: one interpreting kernel.
  EXPECT_GT(stats.fused_loops, 0);
}

// Every corpus program gives the Host executor's results on the device
// except those calling a custom-call target with no CUDA handler (the CPU's
// LAPACK targets: 18 of the 150 forms), which are refused at compile time,
// never run. No op of the corpus is refused any more: an UNIMPLEMENTED
// refusal fails here. Both forms of each program count: the HLO (XLA's
// decompositions of the chlo functions) and the StableHLO (the chlo ops
// themselves, bessel_i1e, zeta and polygamma included).
TEST_F(DeviceExecutorTest, CorpusProgramsItCompilesMatchTheHostExecutor) {
  RegisterExampleHandlers();
  int ran = 0, refused = 0;
  std::vector<fs::path> programs;
  for (const auto& entry : fs::directory_iterator(XFFI_CORPUS_DIR))
    if (entry.path().extension() == ".hlo" ||
        entry.path().extension() == ".mlir")
      programs.push_back(entry.path());
  std::sort(programs.begin(), programs.end());
  for (const fs::path& path : programs) {
    const std::string text = Slurp(path.string());
    const std::string stem = (path.parent_path() / path.stem()).string();
    auto host = CompileForHost(text);
    if (!host.ok()) continue;  // needs a plugin: test_program_corpus's part
    auto device = CompileForDevice(text);
    if (!device.ok()) {
      // Refused: only for a handler not registered for CUDA.
      EXPECT_EQ(device.status().code(), XLA_FFI_Error_Code_NOT_FOUND)
          << path << ": " << device.status().message();
      EXPECT_THAT(device.status().message(),
                  HasSubstr("(platform CUDA) is registered"))
          << path;
      if (std::getenv("XFFI_DEVICE_REFUSALS") != nullptr)
        std::cout << path.filename().string() << ": "
                  << device.status().message() << "\n";
      ++refused;
      continue;
    }
    std::vector<Literal> arguments =
        ReadInputs(stem, (*device)->parameter_shapes());
    ExpectSameResults(**device, **host, arguments, path.filename().string());
    ++ran;
  }
  std::cout << "device backend on SimDevice: " << ran << " of " << ran + refused
            << " corpus programs ran and matched the host; " << refused
            << " refused at compile time\n";
  RecordProperty("ran", ran);
  RecordProperty("refused", refused);
  EXPECT_GT(ran, 0);
}

TEST_F(DeviceExecutorTest, WhileAndConditionalReadTheirPredicateBack) {
  const std::string text = R"(HloModule loops

cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[4] add(x, x)
  ROOT t = (s32[], f32[4]) tuple(next, y)
}

double {
  p = f32[4] parameter(0)
  ROOT d = f32[4] multiply(p, p)
}

negate {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  which = pred[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  r = f32[4] get-tuple-element(loop), index=1
  ROOT c = f32[4] conditional(which, r, r), true_computation=double, false_computation=negate
}
)";
  auto device = CompileForDevice(text);
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto host = CompileForHost(text);
  ASSERT_TRUE(host.ok()) << host.status().message();
  for (bool which : {true, false}) {
    std::vector<Literal> arguments;
    arguments.push_back(Literal::FromVector<float>({4}, {1, -2, 0.5f, 3}));
    arguments.push_back(Literal::FromVector<bool>({}, {which}));
    ExpectSameResults(**device, **host, arguments,
                      which ? "true branch" : "false branch");
  }
  StatusOr<std::vector<Literal>> result =
      (*device)->Execute({Literal::FromVector<float>({4}, {1, -2, 0.5f, 3}),
                          Literal::FromVector<bool>({}, {false})});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)[0].data<float>()[1], 64.0f);  // -(-2 * 2^5)
}

// A while condition of scalar ops is computed on the host from its leaves
// read back (no condition kernels); one that reads a tensor still runs on
// the device. Both give the host executor's results.
TEST_F(DeviceExecutorTest, ScalarLoopConditionsAreComputedOnTheHost) {
  const std::string loop = R"(HloModule loops
scalar_cond {
  s = (s32[], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  e = f32[] get-tuple-element(s), index=2
  n = s32[] constant(6)
  lt = pred[] compare(i, n), direction=LT
  tol = f32[] constant(100)
  big = pred[] compare(e, tol), direction=LT
  ROOT both = pred[] and(lt, big)
}
tensor_cond {
  s = (s32[], f32[4], f32[]) parameter(0)
  x = f32[4] get-tuple-element(s), index=1
  zero = f32[] constant(0)
  r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  limit = f32[] constant(50)
  ROOT lt = pred[] compare(r, limit), direction=LT
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
body {
  s = (s32[], f32[4], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  e = f32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[4] add(x, x)
  three = f32[] constant(3)
  f = f32[] multiply(e, three)
  ROOT t = (s32[], f32[4], f32[]) tuple(next, y, f)
}
ENTRY main {
  x = f32[4] parameter(0)
  e = f32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[]) tuple(zero, x, e)
  loop = (s32[], f32[4], f32[]) while(init), condition=CONDITION, body=body
  ROOT r = f32[4] get-tuple-element(loop), index=1
}
)";
  for (const char* condition : {"scalar_cond", "tensor_cond"}) {
    std::string text = loop;
    text.replace(text.find("CONDITION"), 9, condition);
    auto device = CompileForDevice(text);
    ASSERT_TRUE(device.ok()) << device.status().message();
    auto host = CompileForHost(text);
    ASSERT_TRUE(host.ok()) << host.status().message();
    EXPECT_EQ(GetDeviceExecutorStats(**device).host_conditions,
              std::string(condition) == "scalar_cond" ? 1 : 0);
    // The scalar condition stops on e (1 -> 3 -> 9 -> 27 -> 81 -> 243),
    // or on i when e starts small.
    for (float e : {1.0f, 0.01f}) {
      std::vector<Literal> arguments;
      arguments.push_back(Literal::FromVector<float>({4}, {1, -2, 0.5f, 3}));
      arguments.push_back(Literal::FromVector<float>({}, {e}));
      ExpectSameResults(**device, **host, arguments, condition);
    }
  }
}

TEST_F(DeviceExecutorTest, LegacyGpuTargetGetsTheStreamAndOpaque) {
  ASSERT_TRUE(
      RegisterLegacyTarget("devexec_legacy_add",
                           reinterpret_cast<void*>(&do_custom_call_legacy_sim),
                           "CUDA", LegacyApiVersion::kStatusReturningUnified)
          .ok());
  const std::string text = R"(HloModule legacy
ENTRY main {
  b = f32[128] parameter(0)
  c = f32[300] parameter(1)
  ROOT a = f32[300] custom-call(b, c), custom_call_target="devexec_legacy_add", api_version=API_VERSION_STATUS_RETURNING_UNIFIED, backend_config="300"
}
)";
  auto device = CompileForDevice(text);
  ASSERT_TRUE(device.ok()) << device.status().message();
  std::vector<float> b(128), c(300);
  for (int i = 0; i < 128; ++i) b[i] = 0.5f * i;
  for (int i = 0; i < 300; ++i) c[i] = 1000.0f + i;
  StatusOr<std::vector<Literal>> result =
      (*device)->Execute({Literal::FromVector<float>({128}, b),
                          Literal::FromVector<float>({300}, c)});
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ((*result)[0].data<float>()[i], b[i % 128] + c[i]) << i;
}

TEST_F(DeviceExecutorTest, UnsupportedOpIsRefusedAtCompileNamingOpAndPlace) {
  const std::string text = R"(HloModule unsupported
ENTRY main {
  x = f32[4,4] parameter(0)
  ROOT s = f32[4,4] cholesky(x), lower=true
}
)";
  auto device = CompileForDevice(text);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_THAT(device.status().message(),
              HasSubstr("the device backend cannot run op 's' (cholesky) in "
                        "computation 'main' at program.hlo:4:8"));
  EXPECT_EQ(device_->bytes_in_use(), 0u) << "nothing allocated";
}

// Handlers that misbehave in the ways a GPU handler can.
ffi::Error InjectAsyncErrorImpl(device::Stream* stream,
                                ffi::Result<ffi::Buffer<ffi::F32>> out) {
  (void)out;
  auto& sim = static_cast<device::SimDevice&>(stream->device());
  Status injected =
      sim.InjectAsyncError(*stream, Internal("illegal address"), false);
  if (!injected.ok()) return ffi::Error::Internal(injected.message());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(InjectAsyncError, InjectAsyncErrorImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

TEST_F(DeviceExecutorTest, AsyncErrorOfACustomCallNamesTheTarget) {
  ASSERT_TRUE(RegisterHandler("devexec_async_error", "CUDA",
                              ExecuteOnly(InjectAsyncError))
                  .ok());
  auto failing = CompileForDevice(R"(HloModule async
ENTRY main {
  ROOT y = f32[4] custom-call(), custom_call_target="devexec_async_error", api_version=API_VERSION_TYPED_FFI
}
)");
  ASSERT_TRUE(failing.ok()) << failing.status().message();
  StatusOr<std::vector<Literal>> result = (*failing)->Execute({});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(result.status().message(),
              HasSubstr("custom call 'devexec_async_error' at program.hlo:3:"));
  EXPECT_THAT(result.status().message(), HasSubstr("illegal address"));

  // Not sticky: the device still runs programs.
  auto fine = CompileForDevice(R"(HloModule fine
ENTRY main {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
}
)");
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  StatusOr<std::vector<Literal>> sum =
      (*fine)->Execute({Literal::FromVector<float>({2}, {1, 2})});
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ((*sum)[0].data<float>()[1], 4.0f);
}

// Enqueues work that succeeds: zeros its result on the stream.
ffi::Error ZeroOnStreamImpl(device::Stream* stream,
                            ffi::Result<ffi::Buffer<ffi::F32>> out) {
  Status zeroed = stream->Memset(out->untyped_data(), 0, out->size_bytes());
  if (!zeroed.ok()) return ffi::Error::Internal(zeroed.message());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(ZeroOnStream, ZeroOnStreamImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

// Two calls, one failing asynchronously: the error names the one whose work
// failed, in either order, though the host waits only at the run's end.
TEST_F(DeviceExecutorTest, AsyncErrorNamesTheFailingCallOfSeveral) {
  ASSERT_TRUE(RegisterHandler("devexec_async_error", "CUDA",
                              ExecuteOnly(InjectAsyncError))
                  .ok());
  ASSERT_TRUE(
      RegisterHandler("devexec_zero", "CUDA", ExecuteOnly(ZeroOnStream)).ok());
  auto program = [](const char* first, const char* second) {
    return std::string(R"(HloModule two
ENTRY main {
  a = f32[4] custom-call(), custom_call_target=")") +
           first + R"(", api_version=API_VERSION_TYPED_FFI
  b = f32[4] custom-call(), custom_call_target=")" +
           second + R"(", api_version=API_VERSION_TYPED_FFI
  ROOT s = f32[4] add(a, b)
}
)";
  };
  struct Case {
    const char* first;
    const char* second;
    const char* blamed;
    const char* spared;
  };
  for (const Case& c : {Case{"devexec_zero", "devexec_async_error",
                             "custom call 'devexec_async_error' at "
                             "program.hlo:4:",
                             "devexec_zero"},
                        Case{"devexec_async_error", "devexec_zero",
                             "custom call 'devexec_async_error' at "
                             "program.hlo:3:",
                             "devexec_zero"}}) {
    auto exe = CompileForDevice(program(c.first, c.second));
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    for (int run = 0; run < 2; ++run) {  // the events are reused
      const device::SimDevice::HostSynchronizations before =
          device_->host_synchronizations();
      StatusOr<std::vector<Literal>> result = (*exe)->Execute({});
      ASSERT_FALSE(result.ok()) << c.first;
      EXPECT_EQ(result.status().code(), XLA_FFI_Error_Code_INTERNAL);
      EXPECT_THAT(result.status().message(), HasSubstr(c.blamed));
      EXPECT_THAT(result.status().message(), HasSubstr("illegal address"));
      EXPECT_THAT(result.status().message(),
                  ::testing::Not(HasSubstr(c.spared)));
      // The run's own wait found the error; the other is the failed run's
      // cleanup.
      EXPECT_EQ(device_->host_synchronizations().stream - before.stream, 2);
    }
  }
}

// The loop's condition read-back is the first wait after the failing call:
// it names the call, not the loop.
TEST_F(DeviceExecutorTest, AsyncErrorInALoopBodyNamesTheCall) {
  ASSERT_TRUE(RegisterHandler("devexec_async_error", "CUDA",
                              ExecuteOnly(InjectAsyncError))
                  .ok());
  auto exe = CompileForDevice(R"(HloModule loop
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  e = f32[4] custom-call(), custom_call_target="devexec_async_error", api_version=API_VERSION_TYPED_FFI
  ROOT t = (s32[], f32[4]) tuple(j, e)
}
ENTRY main {
  z = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  StatusOr<std::vector<Literal>> result =
      (*exe)->Execute({Literal::FromVector<float>({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(
      result.status().message(),
      HasSubstr("custom call 'devexec_async_error' at program.hlo:13:"));
  EXPECT_THAT(result.status().message(), HasSubstr("illegal address"));
}

// Custom calls and core ops between them: the host waits once, at the end
// of the run (it used to wait after each call), and the results are right.
TEST_F(DeviceExecutorTest, NoHostWaitBetweenCustomCalls) {
  RegisterExampleHandlers();
  auto exe = CompileForDevice(R"(HloModule chain
ENTRY main {
  b = f32[128] parameter(0)
  c = f32[300] parameter(1)
  a = f32[300] custom-call(b, c), custom_call_target="do_custom_call", api_version=API_VERSION_TYPED_FFI
  m = f32[300] multiply(a, a)
  ROOT d = f32[300] custom-call(b, m), custom_call_target="do_custom_call", api_version=API_VERSION_TYPED_FFI
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<float> b(128), c(300);
  for (int i = 0; i < 128; ++i) b[i] = 0.25f * i;
  for (int i = 0; i < 300; ++i) c[i] = 3.0f - i;
  const device::SimDevice::HostSynchronizations before =
      device_->host_synchronizations();
  StatusOr<std::vector<Literal>> result =
      (*exe)->Execute({Literal::FromVector<float>({128}, b),
                       Literal::FromVector<float>({300}, c)});
  ASSERT_TRUE(result.ok()) << result.status().message();
  const device::SimDevice::HostSynchronizations after =
      device_->host_synchronizations();
  EXPECT_EQ(after.stream - before.stream, 1);
  EXPECT_EQ(after.event - before.event, 0);
  EXPECT_EQ(after.device - before.device, 0);
  for (int i = 0; i < 300; ++i) {
    const float a = b[i % 128] + c[i];
    ASSERT_EQ((*result)[0].data<float>()[i], b[i % 128] + a * a) << i;
  }
}

// Copies x to y on a stream of its own; joins the caller's stream with an
// event only when told to.
struct CopyKernel {
  const float* x;
  float* y;
  int64_t n;
  void operator()(int64_t i) const {
    if (i < n) y[i] = x[i];
  }
  template <typename Visit>
  void VisitDevicePointers(Visit&& visit) {
    visit(x);
    visit(y);
  }
};

// Kept alive past the call: the side stream's work must still be queued
// when the handler returns (a stream's destructor would complete it). The
// test releases them before its device goes away.
std::vector<std::unique_ptr<device::Stream>> side_streams;
std::vector<std::unique_ptr<device::Event>> side_events;

ffi::Error SideStreamCopyImpl(device::Stream* stream, ffi::Buffer<ffi::F32> x,
                              ffi::Result<ffi::Buffer<ffi::F32>> y, bool join) {
  device::Device& dev = stream->device();
  auto side = dev.CreateStream();
  auto event = dev.CreateEvent();
  if (!side.ok() || !event.ok()) return ffi::Error::Internal("no stream");
  // The side stream must not start before the caller's stream produced x.
  (void)stream->RecordEvent(**event);
  (void)(*side)->WaitEvent(**event);
  const int64_t n = static_cast<int64_t>(x.element_count());
  Status launched =
      device::LaunchFunctor(**side, "devexec_copy", {1, 64},
                            CopyKernel{x.typed_data(), y->typed_data(), n});
  if (!launched.ok()) return ffi::Error::Internal(launched.message());
  if (join) {
    auto done = dev.CreateEvent();
    if (!done.ok()) return ffi::Error::Internal("no event");
    (void)(*side)->RecordEvent(**done);
    (void)stream->WaitEvent(**done);
    side_events.push_back(std::move(*done));
  }
  side_streams.push_back(std::move(*side));
  side_events.push_back(std::move(*event));
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(SideStreamCopy, SideStreamCopyImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>()
                        .Attr<bool>("join"));

// A target that copies its operand's bytes to its result, on the device
// (a functor on the call's stream) and on the host: what it returns shows
// the layouts it was handed.
ffi::Error CopyBytesOnDeviceImpl(device::Stream* stream,
                                 ffi::Buffer<ffi::F32> x,
                                 ffi::Result<ffi::Buffer<ffi::F32>> y) {
  const int64_t n = static_cast<int64_t>(x.element_count());
  Status launched =
      device::LaunchFunctor(*stream, "devexec_copy_bytes", {(n + 63) / 64, 64},
                            CopyKernel{x.typed_data(), y->typed_data(), n});
  if (!launched.ok()) return ffi::Error::Internal(launched.message());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(CopyBytesOnDevice, CopyBytesOnDeviceImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>());
ffi::Error CopyBytesOnHostImpl(ffi::Buffer<ffi::F32> x,
                               ffi::Result<ffi::Buffer<ffi::F32>> y) {
  std::copy(x.typed_data(), x.typed_data() + x.element_count(),
            y->typed_data());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(
    CopyBytesOnHost, CopyBytesOnHostImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// A target asking for column-major operands or results gets them: the
// operand is relaid into its layout before the call and the result out of
// its layout after, on the device as on the host (a byte copy of a
// column-major operand is its transpose).
TEST_F(DeviceExecutorTest, CustomCallLayoutsAreRelaidAroundTheCall) {
  ASSERT_TRUE(RegisterHandler("devexec_copy_bytes", "CUDA",
                              ExecuteOnly(CopyBytesOnDevice))
                  .ok());
  ASSERT_TRUE(RegisterHandler("devexec_copy_bytes", "Host",
                              ExecuteOnly(CopyBytesOnHost))
                  .ok());
  const std::string text = R"(HloModule layouts
ENTRY main {
  x = f32[3,5] parameter(0)
  t = f32[5,3] custom-call(x), custom_call_target="devexec_copy_bytes", operand_layout_constraints={f32[3,5]{0,1}}, api_version=API_VERSION_TYPED_FFI
  c = f32[5,3]{0,1} custom-call(x), custom_call_target="devexec_copy_bytes", operand_layout_constraints={f32[3,5]{1,0}}, api_version=API_VERSION_TYPED_FFI
  ROOT r = (f32[5,3], f32[5,3]) tuple(t, c)
}
)";
  auto device = CompileForDevice(text);
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto host = CompileForHost(text);
  ASSERT_TRUE(host.ok()) << host.status().message();
  std::vector<float> x(15);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k);
  const std::vector<Literal> arguments = {
      Literal::FromVector<float>({3, 5}, x)};
  ExpectSameResults(**device, **host, arguments, "layouts");
  StatusOr<std::vector<Literal>> got = (*device)->Execute(arguments);
  ASSERT_TRUE(got.ok()) << got.status().message();
  // t is x transposed: t[j][i] = x[i][j].
  EXPECT_EQ((*got)[0].data<float>()[1 * 3 + 2], x[2 * 5 + 1]);
  // c's bytes are x's, read column-major: c[a][b] sits at a + 5 b.
  EXPECT_EQ((*got)[1].data<float>()[1 * 3 + 2], x[1 + 5 * 2]);
}

TEST_F(DeviceExecutorTest, AMissingSynchronisationGivesPoisonedResults) {
  ASSERT_TRUE(
      RegisterHandler("devexec_side_copy", "CUDA", ExecuteOnly(SideStreamCopy))
          .ok());
  auto program = [](bool join) {
    return std::string(R"(HloModule side
ENTRY main {
  x = f32[3] parameter(0)
  two = f32[3] add(x, x)
  ROOT y = f32[3] custom-call(two), custom_call_target="devexec_side_copy", api_version=API_VERSION_TYPED_FFI, backend_config={join = )") +
           (join ? "true" : "false") + "}\n}\n";
  };
  const std::vector<Literal> arguments = {
      Literal::FromVector<float>({3}, {1, 2, 3})};
  auto joined = CompileForDevice(program(true));
  ASSERT_TRUE(joined.ok()) << joined.status().message();
  StatusOr<std::vector<Literal>> good = (*joined)->Execute(arguments);
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ((*good)[0].data<float>()[2], 6.0f);

  // Without the join the result is read back before the side stream ran:
  // SimDevice's poison (0xFF bytes, a NaN) comes back, every time.
  auto unjoined = CompileForDevice(program(false));
  ASSERT_TRUE(unjoined.ok()) << unjoined.status().message();
  StatusOr<std::vector<Literal>> bad = (*unjoined)->Execute(arguments);
  ASSERT_TRUE(bad.ok()) << bad.status().message();
  EXPECT_TRUE(std::isnan((*bad)[0].data<float>()[0]));
  // While the executables' device memory still exists: a stream's
  // destructor runs its queued copy, and must run before the device's.
  side_streams.clear();
  side_events.clear();
}

ffi::Error ReadOnHostImpl(ffi::Buffer<ffi::F32> x,
                          ffi::Result<ffi::Buffer<ffi::F32>> y) {
  // Wrong on a GPU: x is device memory.
  volatile float first = x.typed_data()[0];
  (void)first;
  (void)y;
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(
    ReadOnHost, ReadOnHostImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

TEST_F(DeviceExecutorTest, AHandlerReadingDeviceMemoryOnTheHostFaults) {
  ASSERT_TRUE(
      RegisterHandler("devexec_read_on_host", "CUDA", ExecuteOnly(ReadOnHost))
          .ok());
  auto exe = CompileForDevice(R"(HloModule host_read
ENTRY main {
  x = f32[3] parameter(0)
  ROOT y = f32[3] custom-call(x), custom_call_target="devexec_read_on_host", api_version=API_VERSION_TYPED_FFI
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        (void)(*exe)->Execute({Literal::FromVector<float>({3}, {1, 2, 3})});
      },
      "");
}

TEST_F(DeviceExecutorTest, CommandBufferCompatibleCallsAreCapturedOnce) {
  ASSERT_TRUE(RegisterHandler("devexec_graph_add", "CUDA",
                              ExecuteOnly(DoCustomCallSim),
                              XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE)
                  .ok());
  ASSERT_TRUE(
      RegisterHandler("devexec_eager_add", "CUDA", ExecuteOnly(DoCustomCallSim))
          .ok());
  auto program = [](const char* target) {
    return std::string(R"(HloModule graph
ENTRY main {
  b = f32[128] parameter(0)
  c = f32[300] parameter(1)
  a = f32[300] custom-call(b, c), custom_call_target=")") +
           target + R"(", api_version=API_VERSION_TYPED_FFI
  ROOT d = f32[300] multiply(a, a)
}
)";
  };
  for (const char* target : {"devexec_graph_add", "devexec_eager_add"}) {
    auto exe = CompileForDevice(program(target));
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    for (int run = 0; run < 3; ++run) {
      std::vector<float> b(128), c(300);
      for (int i = 0; i < 128; ++i) b[i] = 0.5f * i + run;
      for (int i = 0; i < 300; ++i) c[i] = i - 7.0f * run;
      // New arguments each run: a replay must read them, not the first's.
      StatusOr<std::vector<Literal>> result =
          (*exe)->Execute({Literal::FromVector<float>({128}, b),
                           Literal::FromVector<float>({300}, c)});
      ASSERT_TRUE(result.ok()) << result.status().message();
      for (int i = 0; i < 300; ++i) {
        const float a = b[i % 128] + c[i];
        ASSERT_EQ((*result)[0].data<float>()[i], a * a) << target << " " << i;
      }
    }
    DeviceExecutorStats stats = GetDeviceExecutorStats(**exe);
    const bool graph = std::string(target) == "devexec_graph_add";
    EXPECT_EQ(stats.graph_captures, graph ? 1 : 0) << target;
    EXPECT_EQ(stats.graph_replays, graph ? 2 : 0) << target;
  }
}

// An initialize stage that allocates device memory, as a handler's state
// set-up does: Allocate and Free would synchronise, which no capture
// allows.
int allocating_initializations = 0;
ffi::Error AllocatingInitializeImpl(ffi::ScratchAllocator scratch) {
  ++allocating_initializations;
  if (!scratch.Allocate(1024)) return scratch.last_error();
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(AllocatingInitialize, AllocatingInitializeImpl,
                    ffi::Ffi::BindInitialize().Ctx<ffi::ScratchAllocator>());

TEST_F(DeviceExecutorTest, StagesBeforeExecuteRunOnceOutsideTheCapture) {
  // Captured as a command buffer: its stages before execute run at the first
  // run before the capture (they used to run inside it, where the
  // allocation failed the run), and only execute is recorded.
  ASSERT_TRUE(RegisterHandler(
                  "devexec_graph_initialize", "CUDA",
                  XLA_FFI_Handler_Bundle{nullptr, nullptr, AllocatingInitialize,
                                         DoCustomCallSim, nullptr},
                  XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE)
                  .ok());
  auto exe = CompileForDevice(R"(HloModule graph
ENTRY main {
  b = f32[128] parameter(0)
  c = f32[300] parameter(1)
  ROOT a = f32[300] custom-call(b, c), custom_call_target="devexec_graph_initialize", api_version=API_VERSION_TYPED_FFI
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  allocating_initializations = 0;
  for (int run = 0; run < 3; ++run) {
    std::vector<float> b(128), c(300);
    for (int i = 0; i < 128; ++i) b[i] = 0.25f * i - run;
    for (int i = 0; i < 300; ++i) c[i] = i + 3.0f * run;
    StatusOr<std::vector<Literal>> result =
        (*exe)->Execute({Literal::FromVector<float>({128}, b),
                         Literal::FromVector<float>({300}, c)});
    ASSERT_TRUE(result.ok())
        << "run " << run << ": " << result.status().message();
    for (int i = 0; i < 300; ++i)
      ASSERT_EQ((*result)[0].data<float>()[i], b[i % 128] + c[i]) << i;
  }
  EXPECT_EQ(allocating_initializations, 1);
  DeviceExecutorStats stats = GetDeviceExecutorStats(**exe);
  EXPECT_EQ(stats.graph_captures, 1);
  EXPECT_EQ(stats.graph_replays, 2);
  EXPECT_EQ(device_->bytes_in_use(), stats.device_bytes)
      << "the stage's allocation was not given back";
}

ffi::Error SynchronizeInsideImpl(device::Stream* stream,
                                 ffi::Result<ffi::Buffer<ffi::F32>> out) {
  (void)out;
  Status synced = stream->Synchronize();
  if (!synced.ok()) return ffi::Error::Internal(synced.message());
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(SynchronizeInside, SynchronizeInsideImpl,
                    ffi::Ffi::Bind()
                        .Ctx<ffi::PlatformStream<device::Stream*>>()
                        .Ret<ffi::Buffer<ffi::F32>>());

TEST_F(DeviceExecutorTest, ACaptureModeViolationFailsTheRunNamingTheTarget) {
  // Claims the trait, then synchronises: not allowed while capturing.
  ASSERT_TRUE(RegisterHandler("devexec_sync_inside", "CUDA",
                              ExecuteOnly(SynchronizeInside),
                              XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE)
                  .ok());
  auto exe = CompileForDevice(R"(HloModule violation
ENTRY main {
  ROOT y = f32[4] custom-call(), custom_call_target="devexec_sync_inside", api_version=API_VERSION_TYPED_FFI
}
)");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  StatusOr<std::vector<Literal>> result = (*exe)->Execute({});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("custom call 'devexec_sync_inside'"));
  EXPECT_THAT(result.status().message(), HasSubstr("captur"));
  EXPECT_EQ(GetDeviceExecutorStats(**exe).graph_captures, 0);
}

TEST(DeviceBackend, CompileForCudaOnSimDeviceThroughTheRegistry) {
  StatusOr<Module> module = ParseHlo(R"(HloModule registry
ENTRY main {
  x = f32[2,3] parameter(0)
  t = f32[3,2] transpose(x), dimensions={1,0}
  c = f32[] constant(0)
  ROOT r = f32[3] reduce(t, c), dimensions={1}, to_apply=add
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status().message();
  CompileOptions options;
  options.platform = Platform::kCuda;
  options.simulated_device = true;
  auto exe = Compile(std::move(*module), options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto result =
      (*exe)->Execute({Literal::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ((*result)[0].data<float>()[0], 5.0f);
  EXPECT_EQ((*result)[0].data<float>()[2], 9.0f);

  // The same through ExecuteRaw, on host pointers.
  const float x[6] = {1, 2, 3, 4, 5, 6};
  float sums[3] = {0, 0, 0};
  std::vector<const void*> arguments = {x};
  std::vector<void*> results = {sums};
  Status raw = (*exe)->ExecuteRaw(arguments, results);
  ASSERT_TRUE(raw.ok()) << raw.message();
  EXPECT_EQ(sums[1], 7.0f);
}

TEST(DeviceBackend, CudaWithoutAGpuFailsWithOneClearError) {
  StatusOr<Module> module = ParseHlo(R"(HloModule gpu
ENTRY main {
  ROOT x = f32[2] parameter(0)
}
)");
  ASSERT_TRUE(module.ok());
  CompileOptions options;
  options.platform = Platform::kCuda;
  auto exe = Compile(std::move(*module), options);
  if (exe.ok()) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_EQ(exe.status().code(), XLA_FFI_Error_Code_UNAVAILABLE);
  EXPECT_THAT(exe.status().message(),
              HasSubstr("Compile for CUDA: no CUDA device: "));
}

}  // namespace
}  // namespace xffi::device_backend
