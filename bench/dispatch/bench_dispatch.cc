// Decode + dispatch time per call: the same handler bodies (cases.h) bound
// with xffi's ffi.h and with jaxlib's official FFI 0.3 ffi.h, called
// directly through their XLA_FFI_Handler pointers (no runtime in between)
// on identical call frames built once with xffi's harness. After the usual
// table, prints the ratio xffi/XLA per case (medians when repeated).
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "xffi/c_api.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

#include "cases.h"

#define XFFI_BENCH_DECLARE(name)                                 \
  extern "C" XLA_FFI_Error* BenchXla_##name(XLA_FFI_CallFrame*); \
  extern "C" XLA_FFI_Error* BenchXffi_##name(XLA_FFI_CallFrame*);
XFFI_BENCH_CASES(XFFI_BENCH_DECLARE)
#undef XFFI_BENCH_DECLARE

namespace {

using xffi::testing::CallFrame;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Dictionary;

float buffer_storage[8][16];

CallFrame BufferFrame(int count) {
  CallFrameBuilder builder;
  for (int i = 0; i < count; ++i) builder.Arg(buffer_storage[i], {4, 4});
  return builder.Build();
}

CallFrame ScalarFrame() {
  CallFrameBuilder builder;
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    builder.Attr("i32_" + n, int32_t{i});
    builder.Attr("i64_" + n, int64_t{i});
    builder.Attr("f32_" + n, static_cast<float>(i));
    builder.Attr("f64_" + n, static_cast<double>(i));
  }
  return builder.Build();
}

CallFrame StructFrame() {
  CallFrameBuilder builder;
  for (int i = 0; i < 4; ++i) {
    Dictionary tuple;
    tuple.Set("a", int32_t{i}).Set("b", int32_t{i + 1});
    tuple.Set("c", int32_t{i + 2}).Set("d", int32_t{i + 3});
    builder.Attr("t" + std::to_string(i), tuple);
  }
  return builder.Build();
}

CallFrame EnumFrame() {
  CallFrameBuilder builder;
  for (int i = 0; i < 5; ++i) {
    builder.Attr("e" + std::to_string(i), int32_t{i % 3});
  }
  return builder.Build();
}

CallFrame FrameFor(const std::string& name) {
  if (name == "AnyBufferX1" || name == "BufferF32R2X1") return BufferFrame(1);
  if (name == "AnyBufferX4" || name == "BufferF32R2X4") return BufferFrame(4);
  if (name == "AnyBufferX8" || name == "BufferF32R2X8") return BufferFrame(8);
  if (name == "ScalarAttrsX16") return ScalarFrame();
  if (name == "StructAttrsX4") return StructFrame();
  return EnumFrame();
}

// One frame per case, shared by both bindings. What a runtime fills in at
// call time (api, stage; no context is needed by these handlers) is set
// once here.
std::map<std::string, CallFrame>& Frames() {
  static auto* frames = new std::map<std::string, CallFrame>();
  return *frames;
}

std::string TakeMessage(XLA_FFI_Error* error) {
  const XLA_FFI_Api* api = xffi::GetApi();
  XLA_FFI_Error_GetDetails_Args details{};
  details.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  details.error = error;
  api->XLA_FFI_Error_GetDetails(&details);
  std::string message = details.message ? details.message : "";
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  api->XLA_FFI_Error_Destroy(&destroy);
  return message;
}

void Dispatch(benchmark::State& state, XLA_FFI_Handler* handler,
              XLA_FFI_CallFrame* frame) {
  if (XLA_FFI_Error* error = handler(frame)) {
    // Should never happen: the frames match the bindings.
    state.SkipWithError(TakeMessage(error).c_str());
    return;
  }
  for (auto _ : state) {
    XLA_FFI_Error* error = handler(frame);
    benchmark::DoNotOptimize(error);
  }
}

void RegisterCase(const std::string& name, XLA_FFI_Handler* xla,
                  XLA_FFI_Handler* xffi_handler) {
  CallFrame& frame = Frames().emplace(name, FrameFor(name)).first->second;
  XLA_FFI_CallFrame* raw = frame.get();
  raw->api = xffi::GetApi();
  raw->stage = XLA_FFI_ExecutionStage_EXECUTE;
  benchmark::RegisterBenchmark(("xla/" + name).c_str(), Dispatch, xla, raw);
  benchmark::RegisterBenchmark(("xffi/" + name).c_str(), Dispatch, xffi_handler,
                               raw);
}

// Prints the usual console output, then xffi/XLA per case from the median
// CPU time (or the single run's, without repetitions).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median =
          run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      const bool single =
          run.run_type == Run::RT_Iteration && run.repetitions <= 1;
      if (!median && !single) continue;
      const std::string& full = run.run_name.function_name;
      const size_t slash = full.find('/');
      if (slash == std::string::npos) continue;
      times_[full.substr(slash + 1)][full.substr(0, slash)] =
          run.GetAdjustedCPUTime();
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-16s %12s %12s %12s\n", "case", "xla ns", "xffi ns",
                "xffi/xla");
    for (const auto& [name, by_binding] : times_) {
      auto xla = by_binding.find("xla");
      auto ours = by_binding.find("xffi");
      if (xla == by_binding.end() || ours == by_binding.end()) continue;
      std::printf("%-16s %12.2f %12.2f %12.3f\n", name.c_str(), xla->second,
                  ours->second, ours->second / xla->second);
    }
  }

 private:
  std::map<std::string, std::map<std::string, double>> times_;
};

}  // namespace

int main(int argc, char** argv) {
#define XFFI_BENCH_REGISTER(name) \
  RegisterCase(#name, BenchXla_##name, BenchXffi_##name);
  XFFI_BENCH_CASES(XFFI_BENCH_REGISTER)
#undef XFFI_BENCH_REGISTER
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
