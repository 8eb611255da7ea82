// Wall time per execution of programs under xffi, measured in process:
// each program is parsed and compiled once, run a few times to warm up, then
// timed in batches of Executable::ExecuteRaw calls on buffers allocated once
// (what an embedding application pays per execution). Prints one JSON
// object per program on stdout, for bench/programs/run.py:
//   {"program": "tests/programs/dot.mlir", "seconds": 1.2e-06, "runs": 4096,
//    "kernel_seconds": 8.1e-07, "thunks": 5, "ops": [["dot.6 (dot)",
//    7.9e-07], ...]}
//   {"program": "...", "error": "..."}
//
//   bench_programs [--plugin LIB]... [--min-time SECONDS] PROGRAM...
//
// Inputs are PROGRAM's siblings STEM.in_0.npy, STEM.in_1.npy, ... (the
// corpus layout). "seconds" is the median over 5 batches of the mean time
// per execution within a batch; a batch runs until it has taken at least
// min-time / 5 (default min-time 0.5 s). A program whose first run takes
// longer than that runs in fewer batches of one run each, without further
// warm-up (bench/workloads/run.py has some that take seconds).
//
// The split between kernels and the executor comes from more runs of the
// same executable, each under an execution trace (xffi/program/trace.h):
// "kernel_seconds" is the time per execution spent in the spans of the
// kernels and fusions the executor runs (generated kernels included; the
// ops of a fusion that runs as a call count in the fusion's time, and a
// kernel's regions, such as a reduce body, in the kernel's), measured over
// min-time / 5; the rest of "seconds" is the executor's own (thunk
// dispatch, control flow, copies, custom calls). "ops" lists the 6 kernels
// that took longest, per execution. Recording a span costs a few hundred
// nanoseconds, which "profiled_seconds" includes and kernel_seconds does
// not.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/npy.h"
#include "compiler/compiler.h"
#include "cpu/executor.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/program/trace.h"
#include "xffi/runtime/plugin.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Json(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void Report(const std::string& program, const std::string& error) {
  std::printf("{\"program\": %s, \"error\": %s}\n", Json(program).c_str(),
              Json(error).c_str());
  std::fflush(stdout);
}

// Adds to `seconds` ("name (opcode)" -> total) the time of each kernel and
// fusion span of `trace` (one execution's) that is not inside another: a
// fusion that runs as the call of its fused computation has the spans of
// its ops inside its own. Spans are recorded as they end, so a span's inner
// spans (one level deeper) come right before it.
void AddKernelSpans(const xffi::ExecutionTrace& trace,
                    std::map<std::string, double>* seconds) {
  struct Open {
    int depth;
    bool kernel;
  };
  std::vector<Open> enclosing;
  const std::vector<xffi::TraceSpan>& spans = trace.spans();
  for (size_t i = spans.size(); i-- > 0;) {
    const xffi::TraceSpan& span = spans[i];
    while (!enclosing.empty() && enclosing.back().depth >= span.depth)
      enclosing.pop_back();
    const bool kernel = span.category == "kernel" || span.category == "fusion";
    const bool inside =
        std::any_of(enclosing.begin(), enclosing.end(),
                    [](const Open& open) { return open.kernel; });
    if (kernel && !inside) {
      // span.op is "%name = opcode".
      const size_t equals = span.op.find(" = ");
      const std::string opcode = equals == std::string::npos
                                     ? span.category
                                     : span.op.substr(equals + 3);
      (*seconds)[span.name + " (" + opcode + ")"] +=
          static_cast<double>(span.duration_ns) * 1e-9;
    }
    enclosing.push_back({span.depth, kernel});
  }
}

// The calls of one executable on fixed buffers.
class Runner {
 public:
  Runner(xffi::Executable* exe, const std::vector<xffi::Literal>& arguments)
      : exe_(exe) {
    for (const xffi::Literal& argument : arguments) {
      argument_leaves_.push_back(argument.data());
    }
    for (const xffi::Shape* leaf : exe->result_shape().Leaves()) {
      results_.emplace_back(*leaf);
    }
    for (xffi::Literal& result : results_) {
      result_leaves_.push_back(result.shape().IsArray() ? result.data()
                                                        : nullptr);
    }
  }

  xffi::Status Run() {
    return exe_->ExecuteRaw(
        xffi::ffi::Span<const void* const>(argument_leaves_.data(),
                                           argument_leaves_.size()),
        xffi::ffi::Span<void* const>(result_leaves_.data(),
                                     result_leaves_.size()));
  }

  // Runs until `seconds` have passed; the mean time per run, or an error.
  xffi::StatusOr<std::pair<double, int64_t>> Batch(double seconds) {
    int64_t runs = 0;
    auto start = Clock::now();
    double elapsed = 0;
    do {
      if (xffi::Status status = Run(); !status.ok()) return status;
      ++runs;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    return std::make_pair(elapsed / static_cast<double>(runs), runs);
  }

 private:
  xffi::Executable* exe_;
  std::vector<const void*> argument_leaves_;
  std::vector<xffi::Literal> results_;
  std::vector<void*> result_leaves_;
};

void Bench(const std::string& program, double min_time) {
  std::ifstream file(program, std::ios::binary);
  if (!file) return Report(program, "cannot open the file");
  std::string text((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());
  xffi::StatusOr<xffi::Module> module = xffi::ParseProgram(text, program);
  if (!module.ok()) return Report(program, module.status().ToString());
  auto exe = xffi::Compile(std::move(*module));
  if (!exe.ok()) return Report(program, exe.status().ToString());
  const std::vector<xffi::Shape>& parameters = (*exe)->parameter_shapes();
  std::vector<xffi::Literal> arguments;
  fs::path stem = fs::path(program).replace_extension("");
  for (size_t k = 0; k < parameters.size(); ++k) {
    std::string path = stem.string() + ".in_" + std::to_string(k) + ".npy";
    auto input = xffi::ReadNpyFile(path, parameters[k].element_type());
    if (!input.ok()) return Report(program, input.status().ToString());
    arguments.push_back(std::move(*input));
  }

  Runner runner(exe->get(), arguments);
  auto first = runner.Batch(0);
  if (!first.ok()) return Report(program, first.status().ToString());
  // A program slower than a batch's share of min-time (the workload suite
  // has some that take seconds) gets no further warm-up, and only as many
  // one-run batches as min-time holds, at least one.
  constexpr int kBatches = 5;
  const bool slow = first->first * kBatches > min_time;
  const int batches =
      slow ? std::clamp(static_cast<int>(min_time / first->first), 1, kBatches)
           : kBatches;
  for (int i = 0; i < (slow ? 0 : 2); ++i) {
    if (xffi::Status status = runner.Run(); !status.ok()) {
      return Report(program, status.ToString());
    }
  }
  std::vector<double> per_run;
  int64_t total_runs = 0;
  for (int batch = 0; batch < batches; ++batch) {
    auto mean = runner.Batch(min_time / kBatches);
    if (!mean.ok()) return Report(program, mean.status().ToString());
    per_run.push_back(mean->first);
    total_runs += mean->second;
  }
  std::sort(per_run.begin(), per_run.end());

  // The same executable again, each run traced (the trace times generated
  // kernels and fusions as well as the ops' own kernels).
  std::map<std::string, double> profile;
  auto traced_batch =
      [&](double seconds) -> xffi::StatusOr<std::pair<double, int64_t>> {
    int64_t runs = 0;
    auto start = Clock::now();
    double elapsed = 0;
    do {
      xffi::ExecutionTrace trace;
      {
        xffi::TraceScope scope(&trace);
        if (xffi::Status status = runner.Run(); !status.ok()) return status;
      }
      AddKernelSpans(trace, &profile);
      ++runs;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    return std::make_pair(elapsed / static_cast<double>(runs), runs);
  };
  auto measured = traced_batch(min_time / kBatches);
  if (!measured.ok()) return Report(program, measured.status().ToString());
  const double runs = static_cast<double>(measured->second);
  std::vector<std::pair<double, std::string>> ops;
  double kernel_seconds = 0;
  for (const auto& [op, seconds] : profile) {
    ops.push_back({seconds / runs, op});
    kernel_seconds += seconds / runs;
  }
  std::sort(ops.rbegin(), ops.rend());
  std::string top;
  for (size_t i = 0; i < ops.size() && i < 6; ++i) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.4g", ops[i].first);
    top += std::string(i > 0 ? ", " : "") + "[" + Json(ops[i].second) + ", " +
           seconds + "]";
  }
  xffi::cpu::ExecutorStats stats = xffi::cpu::GetExecutorStats(**exe);
  std::printf(
      "{\"program\": %s, \"seconds\": %.6g, \"runs\": %lld, "
      "\"kernel_seconds\": %.6g, \"profiled_seconds\": %.6g, \"thunks\": "
      "%lld, \"ops\": [%s]}\n",
      Json(program).c_str(), per_run[per_run.size() / 2],
      static_cast<long long>(total_runs), kernel_seconds, measured->first,
      static_cast<long long>(stats.thunks), top.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.5;
  std::vector<std::string> programs;
  std::vector<std::shared_ptr<const xffi::Plugin>> plugins;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc) {
      auto plugin = xffi::Plugin::Load(argv[++i]);
      if (!plugin.ok()) {
        std::fprintf(stderr, "bench_programs: %s\n",
                     plugin.status().ToString().c_str());
        return 1;
      }
      plugins.push_back(*plugin);
    } else if (arg == "--min-time" && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr,
                   "usage: bench_programs [--plugin LIB]... [--min-time S] "
                   "PROGRAM...\n");
      return 2;
    } else {
      programs.push_back(arg);
    }
  }
  for (const std::string& program : programs) Bench(program, min_time);
  return 0;
}
