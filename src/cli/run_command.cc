// `xffi run`: parse, compile and execute a program on .npy inputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/compare.h"
#include "cli/npy.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/plugin.h"

namespace xffi::cli {

const char kRunHelp[] =
    "usage: xffi run PROGRAM [--plugin LIB]... [--input FILE.npy]...\n"
    "                [--output-dir DIR] [--repeat N] [--expect FILE.npy]...\n"
    "                [--tolerance T]\n"
    "\n"
    "Compiles PROGRAM and runs it on the CPU (the Host platform).\n"
    "\n"
    "  PROGRAM             a text file: HLO when it starts with 'HloModule'\n"
    "                      (as jax.jit(f).lower(...).as_text(\"hlo\") "
    "prints),\n"
    "                      otherwise StableHLO (as .as_text() prints)\n"
    "  --plugin LIB        load the handler library LIB (a .so) before\n"
    "                      compiling, so its custom-call targets resolve;\n"
    "                      repeat for several libraries\n"
    "  --input FILE.npy    the next entry parameter, in order: one --input "
    "per\n"
    "                      parameter; its shape and dtype must match the\n"
    "                      parameter's (bfloat16/float8 files saved by NumPy\n"
    "                      as raw '<V2'/'<V1' take the parameter's type)\n"
    "  --output-dir DIR    write the results as DIR/result_0.npy, "
    "result_1.npy,\n"
    "                      ... (DIR is created if missing); without it "
    "nothing\n"
    "                      is written\n"
    "  --repeat N          execute N times (default 1) and report the "
    "minimum\n"
    "                      and median time per execution; results are the\n"
    "                      last run's\n"
    "  --expect FILE.npy   the expected value of the next result, in order "
    "(one\n"
    "                      per result): each result is compared with its "
    "file\n"
    "                      and a PASS or FAIL line is printed; a mismatch "
    "exits 1\n"
    "  --tolerance T       for --expect: floats match when |got - want| <=\n"
    "                      T * (1 + |want|) (default per type: f32 1e-5, f64\n"
    "                      1e-12, f16 2e-3, bf16 1.6e-2); integers, booleans\n"
    "                      always exactly\n"
    "  -h, --help          show this text\n"
    "\n"
    "Every option also accepts the --option=VALUE form.\n"
    "\n"
    "Prints each result's index, shape and dtype (with the values of small\n"
    "results), the compile time and the time per execution.\n"
    "\n"
    "Example:\n"
    "  xffi run examples/programs/norm_block.mlir \\\n"
    "      --plugin build/release/examples/rms_norm/librms_norm.so \\\n"
    "      --plugin build/release/examples/do_custom_call/"
    "libdo_custom_call.so \\\n"
    "      --input examples/programs/norm_block.in_0.npy \\\n"
    "      --input examples/programs/norm_block.in_1.npy \\\n"
    "      --input examples/programs/norm_block.in_2.npy \\\n"
    "      --expect examples/programs/norm_block.out_0.npy \\\n"
    "      --expect examples/programs/norm_block.out_1.npy \\\n"
    "      --output-dir /tmp/out --repeat 10\n"
    "\n"
    "Exit status: 0 success; 1 the program could not be read, parsed or\n"
    "compiled, a plugin failed to load, an input is missing or does not\n"
    "match, the run failed or a result differs from its --expect file;\n"
    "2 bad usage.\n";

namespace {

struct RunOptions {
  std::string program;
  std::vector<std::string> plugins;
  std::vector<std::string> inputs;
  std::string output_dir;
  int repeat = 1;
  std::vector<std::string> expected;
  std::optional<double> tolerance;
};

int Usage(const std::string& message) {
  std::fprintf(stderr, "xffi run: %s\n(see xffi run --help)\n",
               message.c_str());
  return kExitUsage;
}

int Fail(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "xffi run: error: %s\n", message.c_str());
  return kExitFailure;
}

// Returns -1 on success, else the exit status (help or usage error).
int ParseArgs(const std::vector<std::string>& args, RunOptions* options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kRunHelp, stdout);
      return kExitOk;
    }
    std::string name = arg, value;
    bool has_value = false;
    if (arg.rfind("--", 0) == 0) {
      size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        name = arg.substr(0, equals);
        value = arg.substr(equals + 1);
        has_value = true;
      }
      if (name != "--plugin" && name != "--input" && name != "--output-dir" &&
          name != "--repeat" && name != "--expect" && name != "--tolerance") {
        return Usage("unknown option '" + name + "'");
      }
      if (!has_value) {
        if (i + 1 >= args.size()) return Usage(name + " needs a value");
        value = args[++i];
      }
      if (value.empty()) return Usage(name + " needs a non-empty value");
      if (name == "--plugin") {
        options->plugins.push_back(value);
      } else if (name == "--input") {
        options->inputs.push_back(value);
      } else if (name == "--output-dir") {
        options->output_dir = value;
      } else if (name == "--expect") {
        options->expected.push_back(value);
      } else if (name == "--tolerance") {
        char* end = nullptr;
        double tolerance = std::strtod(value.c_str(), &end);
        if (*end != '\0' || !(tolerance >= 0)) {
          return Usage("--tolerance expects a number >= 0, got '" + value +
                       "'");
        }
        options->tolerance = tolerance;
      } else {
        char* end = nullptr;
        long repeat = std::strtol(value.c_str(), &end, 10);
        if (*end != '\0' || repeat < 1 || repeat > 1000000000) {
          return Usage("--repeat expects a positive integer, got '" + value +
                       "'");
        }
        options->repeat = static_cast<int>(repeat);
      }
    } else if (arg.size() > 1 && arg[0] == '-') {
      return Usage("unknown option '" + arg + "'");
    } else if (options->program.empty()) {
      options->program = arg;
    } else {
      return Usage("more than one PROGRAM given ('" + options->program +
                   "' and '" + arg + "')");
    }
  }
  if (options->program.empty()) return Usage("no PROGRAM given");
  return -1;
}

std::string ExpectedParameters(const std::vector<Shape>& shapes) {
  std::string text;
  for (size_t i = 0; i < shapes.size(); ++i) {
    text += "\n  input " + std::to_string(i) + ": " +
            shapes[i].ToString(/*print_layout=*/false);
  }
  return text;
}

std::string Preview(const Literal& literal) {
  constexpr size_t kMaxChars = 72;
  if (literal.shape().num_elements() > 64) return "";
  std::string text = literal.ValueToString();
  if (text.size() > kMaxChars) return "";
  return " = " + text;
}

std::string Milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f ms", seconds * 1e3);
  return text;
}

// Compares the results with the --expect files; prints one line per result
// and a PASS/FAIL line.
int Check(const RunOptions& options, const std::vector<Literal>& results) {
  if (options.expected.size() != results.size()) {
    return Fail("the program has " + std::to_string(results.size()) +
                " result(s) but " + std::to_string(options.expected.size()) +
                " --expect file(s) were given");
  }
  int failed = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string& path = options.expected[i];
    StatusOr<Literal> want =
        ReadNpyFile(path, results[i].shape().element_type());
    if (!want.ok()) return Fail("--expect " + want.status().message());
    Comparison comparison =
        CompareLiterals(results[i], *want, options.tolerance);
    char error[32];
    std::snprintf(error, sizeof error, "%.3g", comparison.max_error);
    if (comparison.ok) {
      std::printf("  result %zu matches %s (max error %s)\n", i, path.c_str(),
                  error);
    } else {
      ++failed;
      std::printf("  result %zu DIFFERS from %s: %s\n", i, path.c_str(),
                  comparison.detail.c_str());
    }
  }
  if (failed > 0) {
    std::printf("FAIL: %d of %zu result(s) differ from the expected values\n",
                failed, results.size());
    return kExitFailure;
  }
  std::printf("PASS: all %zu result(s) match the expected values\n",
              results.size());
  return kExitOk;
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  RunOptions options;
  if (int status = ParseArgs(args, &options); status >= 0) return status;

  std::ifstream file(options.program, std::ios::binary);
  if (!file) return Fail(options.program + ": cannot open the program file");
  std::string text((std::istreambuf_iterator<char>(file)),
                   std::istreambuf_iterator<char>());

  std::vector<std::shared_ptr<const Plugin>> plugins;
  for (const std::string& path : options.plugins) {
    StatusOr<std::shared_ptr<const Plugin>> plugin = Plugin::Load(path);
    if (!plugin.ok()) {
      return Fail("cannot load plugin " + path + ": " +
                  plugin.status().message());
    }
    plugins.push_back(*plugin);
  }

  using Clock = std::chrono::steady_clock;
  auto compile_start = Clock::now();
  StatusOr<Module> module = ParseProgram(text, options.program);
  if (!module.ok()) return Fail(module.status().message());
  StatusOr<std::unique_ptr<Executable>> executable =
      Compile(std::move(*module));
  if (!executable.ok()) {
    return Fail(options.program + ": " + executable.status().message());
  }
  double compile_seconds =
      std::chrono::duration<double>(Clock::now() - compile_start).count();
  Executable& exe = **executable;

  const std::vector<Shape>& parameters = exe.parameter_shapes();
  if (options.inputs.size() != parameters.size()) {
    return Fail(options.program + " expects " +
                std::to_string(parameters.size()) + " input(s), got " +
                std::to_string(options.inputs.size()) +
                "; give one --input FILE.npy per parameter, in order:" +
                ExpectedParameters(parameters));
  }
  std::vector<Literal> arguments;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Shape& want = parameters[i];
    const std::string& path = options.inputs[i];
    if (!want.IsArray()) {
      return Fail("input " + std::to_string(i) + " is " + want.ToString() +
                  ": only array parameters can be read from .npy files");
    }
    StatusOr<Literal> value = ReadNpyFile(path, want.element_type());
    if (!value.ok()) {
      return Fail("input " + std::to_string(i) + ": " +
                  value.status().message());
    }
    if (!value->shape().Compatible(want.WithoutLayout())) {
      return Fail("input " + std::to_string(i) + " (" + path +
                  "): the program expects " + want.ToString(false) +
                  ", the file holds " + value->shape().ToString(false));
    }
    arguments.push_back(std::move(*value));
  }

  std::vector<double> times;
  std::vector<Literal> results;
  for (int run = 0; run < options.repeat; ++run) {
    auto start = Clock::now();
    StatusOr<std::vector<Literal>> out = exe.Execute(arguments);
    times.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
    if (!out.ok()) {
      return Fail(options.program + ": execution " + std::to_string(run) +
                  " failed: " + out.status().message());
    }
    if (run + 1 == options.repeat) results = std::move(*out);
  }

  if (!options.output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.output_dir, error);
    if (error) {
      return Fail("cannot create output directory " + options.output_dir +
                  ": " + error.message());
    }
  }
  std::printf(
      "%s (%s): %zu result(s)\n", options.program.c_str(),
      DetectProgramFormat(text) == ProgramFormat::kHlo ? "HLO" : "StableHLO",
      results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const Literal& result = results[i];
    std::string where;
    if (!options.output_dir.empty() && result.shape().IsArray()) {
      std::string path = (std::filesystem::path(options.output_dir) /
                          ("result_" + std::to_string(i) + ".npy"))
                             .string();
      if (Status status = WriteNpyFile(path, result); !status.ok()) {
        return Fail(status.message());
      }
      where = " -> " + path;
    }
    std::printf("  result %zu: %s%s%s\n", i,
                result.shape().ToString(false).c_str(), Preview(result).c_str(),
                where.c_str());
  }
  std::sort(times.begin(), times.end());
  double median =
      times.size() % 2 == 1
          ? times[times.size() / 2]
          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::printf("compile: %s\n", Milliseconds(compile_seconds).c_str());
  std::printf("execute: min %s, median %s per execution over %d run(s)\n",
              Milliseconds(times.front()).c_str(), Milliseconds(median).c_str(),
              options.repeat);
  return options.expected.empty() ? kExitOk : Check(options, results);
}

}  // namespace xffi::cli
