// Wall time per execution of programs under xffi, measured in process:
// each program is parsed and compiled once, run a few times to warm up, then
// timed in batches. Prints one JSON object per program on stdout, for
// bench/programs/run.py:
//   {"program": "tests/programs/dot.mlir", "seconds": 1.2e-06, "runs": 4096}
//   {"program": "...", "error": "..."}
//
//   bench_programs [--plugin LIB]... [--min-time SECONDS] PROGRAM...
//
// Inputs are PROGRAM's siblings STEM.in_0.npy, STEM.in_1.npy, ... (the
// corpus layout). The figure is the median over 5 batches of the mean time
// per execution within a batch; a batch runs until it has taken at least
// min-time / 5 (default min-time 0.5 s).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cli/npy.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
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
  for (int i = 0; i < 3; ++i) {
    auto out = (*exe)->Execute(arguments);
    if (!out.ok()) return Report(program, out.status().ToString());
  }
  constexpr int kBatches = 5;
  std::vector<double> per_run;
  int64_t total_runs = 0;
  for (int batch = 0; batch < kBatches; ++batch) {
    int64_t runs = 0;
    auto start = Clock::now();
    double elapsed = 0;
    do {
      auto out = (*exe)->Execute(arguments);
      if (!out.ok()) return Report(program, out.status().ToString());
      ++runs;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < min_time / kBatches);
    per_run.push_back(elapsed / static_cast<double>(runs));
    total_runs += runs;
  }
  std::sort(per_run.begin(), per_run.end());
  std::printf("{\"program\": %s, \"seconds\": %.6g, \"runs\": %lld}\n",
              Json(program).c_str(), per_run[kBatches / 2],
              static_cast<long long>(total_runs));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double min_time = 0.5;
  std::vector<std::string> programs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc) {
      auto plugin = xffi::Plugin::Load(argv[++i]);
      if (!plugin.ok()) {
        std::fprintf(stderr, "bench_programs: %s\n",
                     plugin.status().ToString().c_str());
        return 1;
      }
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
