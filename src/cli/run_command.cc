// `xffi run`: parse, compile and execute a program on .npy inputs.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/compare.h"
#include "cli/npy.h"
#include "cli/program_file.h"
#include "cpu/executor.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/program/trace.h"
#include "xffi/runtime/plugin.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cli {

const char kRunHelp[] =
    "usage: xffi run PROGRAM [--plugin LIB]... [--input FILE.npy]...\n"
    "                [--output-dir DIR] [--repeat N] [--format F]\n"
    "                [--expect FILE.npy]... [--tolerance T]\n"
    "                [--dump-after PASS]... [--threads N] [--profile FILE]\n"
    "                [--memory-limit SIZE] [--custom-call-timeout SECONDS]\n"
    "                [--platform host|sim|cuda]\n"
    "\n"
    "Compiles PROGRAM and runs it on the CPU (the Host platform), or on a\n"
    "GPU (--platform cuda) or xffi's simulated GPU (--platform sim).\n"
    "\n"
    "  PROGRAM             a text file: HLO when it starts with 'HloModule'\n"
    "                      (as jax.jit(f).lower(...).as_text(\"hlo\") "
    "prints),\n"
    "                      otherwise StableHLO (as .as_text() prints)\n"
    "  --plugin LIB        load the handler library LIB (a .so) before\n"
    "                      compiling, so the custom-call targets it registers\n"
    "                      resolve; repeat for several libraries. A name\n"
    "                      without '/' is a file in the current directory\n"
    "                      (not looked up on the loader's search path)\n"
    "  --input FILE.npy    the next entry parameter, in order: one --input "
    "per\n"
    "                      parameter; its shape and dtype must match the\n"
    "                      parameter's (bfloat16/float8 files saved by NumPy\n"
    "                      as raw '<V2'/'<V1' take the parameter's type). A\n"
    "                      shape-polymorphic program (jax.export with\n"
    "                      symbolic dimensions: `?` in its types) is refined\n"
    "                      to the inputs' shapes before it compiles\n"
    "  --output-dir DIR    write the results as DIR/result_0.npy, "
    "result_1.npy,\n"
    "                      ... (DIR is created if missing); without it "
    "nothing\n"
    "                      is written\n"
    "  --repeat N          execute N times (default 1); the first run also\n"
    "                      runs the handlers' instantiate/prepare/initialize\n"
    "                      stages and is reported on its own, the others as\n"
    "                      min, median and mean per execution; the results\n"
    "                      are the last run's\n"
    "  --format F          auto (default), stablehlo or hlo: how to read\n"
    "                      PROGRAM\n"
    "  --expect FILE.npy   the expected value of the next result, in order "
    "(one\n"
    "                      per result): each result is compared with its "
    "file\n"
    "                      and a PASS or FAIL line is printed; a mismatch "
    "exits 1\n"
    "  --tolerance T       for --expect: floats match when |got - want| <=\n"
    "                      T * (1 + |want|) (default per type: f32 1e-5, f64\n"
    "                      1e-12, f16 2e-3, bf16 1.6e-2, 8-bit floats 0.25);\n"
    "                      integers and booleans always match exactly\n"
    "  --dump-after PASS   write the program as HLO text to standard error\n"
    "                      after the compile pass PASS (spmd-emulation, which\n"
    "                      runs a program written for several devices on one,\n"
    "                      inline, which replaces calls by their callees'\n"
    "                      ops, simplify, which removes exact identities\n"
    "                      and folds small constants, cse,\n"
    "                      which merges ops that compute the same, dce,\n"
    "                      which removes unread ops, reduction-fusion,\n"
    "                      which fuses reduces with their producers and\n"
    "                      siblings, or fusion, which groups elementwise\n"
    "                      chains into loop fusions), or after\n"
    "                      every pass with 'all'; repeat for several; the\n"
    "                      module is verified after each pass that changed\n"
    "                      it\n"
    "  --threads N         split the kernels' work across N threads (the\n"
    "                      default: one per hardware thread); handlers see\n"
    "                      a pool of N threads\n"
    "  --memory-limit SIZE refuse to compile a program whose buffers need\n"
    "                      more than SIZE bytes (suffixes K, M, G: powers of\n"
    "                      1024; 'none': no limit); the default is the\n"
    "                      machine's physical memory\n"
    "  --custom-call-timeout SECONDS\n"
    "                      fail the run when an asynchronous custom call has\n"
    "                      not completed after SECONDS (default: wait)\n"
    "  --platform P        host (default): the CPU; cuda: GPU 0, with the\n"
    "                      handlers plugins register for CUDA; sim: the\n"
    "                      same on SimDevice, a simulated GPU (kernels run\n"
    "                      by their host code; see README)\n"
    "  --profile FILE      write a timeline of the last execution to FILE as\n"
    "                      Chrome/Perfetto trace events (JSON; open it in\n"
    "                      ui.perfetto.dev or chrome://tracing): one span per\n"
    "                      kernel, fusion, copy and custom call (named by its\n"
    "                      target), with while/conditional/call spans around\n"
    "                      their bodies' and each op's name and location\n"
    "  -h, --help          show this text\n"
    "\n"
    "Every option also accepts the --option=VALUE form.\n"
    "\n"
    "Prints the program's format, each input and each result (index, dtype\n"
    "and shape, the values of small results, the file written), the parse\n"
    "and compile times and the time per execution.\n"
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
    "match its parameter, the run failed, a result could not be written or\n"
    "differs from its --expect file; 2 bad usage.\n";

namespace {

struct RunOptions {
  std::string program;
  std::vector<std::string> plugins;
  std::vector<std::string> inputs;
  std::string output_dir;
  int repeat = 1;
  FormatChoice format = FormatChoice::kAuto;
  std::vector<std::string> expected;
  std::optional<double> tolerance;
  std::vector<std::string> dump_after;
  int threads = 0;                 // 0: one per hardware thread
  int64_t memory_limit = 0;        // CompileOptions::memory_limit_bytes
  double custom_call_timeout = 0;  // seconds; 0: none
  std::string profile;
  std::string platform = "host";  // host, sim or cuda
};

// "123", "64K", "512M", "2G" (powers of 1024) or "none" (-1); nullopt when
// malformed.
std::optional<int64_t> ParseSize(const std::string& value) {
  if (value == "none") return -1;
  char* end = nullptr;
  double number = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || !(number > 0)) return std::nullopt;
  double scale = 1;
  std::string suffix(end);
  if (suffix == "K" || suffix == "k") {
    scale = 1024.0;
  } else if (suffix == "M" || suffix == "m") {
    scale = 1024.0 * 1024;
  } else if (suffix == "G" || suffix == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (!suffix.empty()) {
    return std::nullopt;
  }
  double bytes = number * scale;
  if (bytes < 1 || bytes > 9.0e18) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

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

bool IsOption(const std::string& name) {
  for (const char* option :
       {"--plugin", "--input", "--output-dir", "--expect", "--format",
        "--tolerance", "--repeat", "--dump-after", "--threads", "--profile",
        "--memory-limit", "--custom-call-timeout", "--platform"}) {
    if (name == option) return true;
  }
  return false;
}

// Applies one option; returns -1 on success, else the usage error's status.
int SetOption(const std::string& name, const std::string& value,
              RunOptions* options) {
  if (name == "--plugin") {
    options->plugins.push_back(value);
  } else if (name == "--input") {
    options->inputs.push_back(value);
  } else if (name == "--output-dir") {
    options->output_dir = value;
  } else if (name == "--expect") {
    options->expected.push_back(value);
  } else if (name == "--profile") {
    options->profile = value;
  } else if (name == "--dump-after") {
    options->dump_after.push_back(value);
  } else if (name == "--format") {
    std::optional<FormatChoice> format = ParseFormatChoice(value);
    if (!format.has_value()) {
      return Usage("--format expects auto, stablehlo or hlo, got '" + value +
                   "'");
    }
    options->format = *format;
  } else if (name == "--tolerance") {
    char* end = nullptr;
    double tolerance = std::strtod(value.c_str(), &end);
    if (*end != '\0' || !(tolerance >= 0)) {
      return Usage("--tolerance expects a number >= 0, got '" + value + "'");
    }
    options->tolerance = tolerance;
  } else if (name == "--repeat") {
    char* end = nullptr;
    long repeat = std::strtol(value.c_str(), &end, 10);
    if (*end != '\0' || repeat < 1 || repeat > 1000000000) {
      return Usage("--repeat expects a positive integer, got '" + value + "'");
    }
    options->repeat = static_cast<int>(repeat);
  } else if (name == "--threads") {
    char* end = nullptr;
    long threads = std::strtol(value.c_str(), &end, 10);
    if (*end != '\0' || threads < 1 || threads > 4096) {
      return Usage("--threads expects an integer from 1 to 4096, got '" +
                   value + "'");
    }
    options->threads = static_cast<int>(threads);
  } else if (name == "--platform") {
    if (value != "host" && value != "sim" && value != "cuda")
      return Usage("--platform expects host, sim or cuda, got '" + value + "'");
    options->platform = value;
  } else if (name == "--memory-limit") {
    std::optional<int64_t> limit = ParseSize(value);
    if (!limit.has_value()) {
      return Usage(
          "--memory-limit expects a size in bytes (with an optional K, M or "
          "G suffix) or 'none', got '" +
          value + "'");
    }
    options->memory_limit = *limit;
  } else if (name == "--custom-call-timeout") {
    char* end = nullptr;
    double seconds = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !(seconds > 0) ||
        seconds > 1.0e6) {
      return Usage(
          "--custom-call-timeout expects a number of seconds > 0, "
          "got '" +
          value + "'");
    }
    options->custom_call_timeout = seconds;
  } else {
    return Usage("unknown option '" + name + "'");
  }
  return -1;
}

// Returns -1 on success, else the exit status (help or usage error).
int ParseArgs(const std::vector<std::string>& args, RunOptions* options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kRunHelp, stdout);
      return kExitOk;
    }
    if (arg.rfind("--", 0) == 0) {
      std::string name = arg, value;
      size_t equals = arg.find('=');
      if (equals != std::string::npos) {
        name = arg.substr(0, equals);
        value = arg.substr(equals + 1);
      } else {
        // Checked before taking a value, so "--frob x" names --frob.
        if (!IsOption(name)) return Usage("unknown option '" + name + "'");
        if (i + 1 >= args.size()) return Usage(name + " needs a value");
        value = args[++i];
      }
      if (value.empty()) return Usage(name + " needs a non-empty value");
      if (int status = SetOption(name, value, options); status >= 0) {
        return status;
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

std::string ParameterList(const std::vector<Shape>& shapes) {
  std::string text;
  for (size_t i = 0; i < shapes.size(); ++i) {
    text += "\n  input " + std::to_string(i) + ": " +
            shapes[i].ToString(/*print_layout=*/false);
  }
  return text;
}

std::string Preview(const Literal& literal) {
  constexpr size_t kMaxChars = 72;
  if (!literal.shape().IsArray() || literal.shape().num_elements() > 64) {
    return "";
  }
  std::string text = literal.ValueToString();
  if (text.size() > kMaxChars) return "";
  return " = " + text;
}

// Three or four significant digits in the unit that suits the value.
std::string Duration(double seconds) {
  char text[32];
  if (seconds >= 1) {
    std::snprintf(text, sizeof text, "%.3f s", seconds);
  } else if (seconds >= 1e-3) {
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.3f us", seconds * 1e6);
  }
  return text;
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Reads input i, checked against parameter i.
StatusOr<Literal> ReadInput(const RunOptions& options,
                            const std::vector<Shape>& parameters, size_t i) {
  const Shape& want = parameters[i];
  const std::string& path = options.inputs[i];
  const std::string which = "input " + std::to_string(i) + " (" + path + ")";
  if (!want.IsArray()) {
    return InvalidArgument(which + ": parameter " + std::to_string(i) + " is " +
                           want.ToString(false) +
                           "; only array parameters can be read from .npy "
                           "files");
  }
  StatusOr<Literal> value = ReadNpyFile(path, want.element_type());
  if (!value.ok()) {
    return Status(value.status().code(), "input " + std::to_string(i) + ": " +
                                             value.status().message());
  }
  if (!value->shape().Compatible(want.WithoutLayout())) {
    return InvalidArgument(which + ": parameter " + std::to_string(i) + " is " +
                           want.ToString(false) + ", the file holds " +
                           value->shape().ToString(false));
  }
  return value;
}

// A shape-polymorphic program's argument shapes: its parameters' element
// types with the dimensions of the input files.
StatusOr<ParseOptions> ShapesOfInputs(const RunOptions& options,
                                      const Module& module) {
  std::vector<Instruction*> parameters = module.entry()->parameters();
  std::vector<Shape> declared;
  for (const Instruction* p : parameters) declared.push_back(p->shape());
  if (options.inputs.size() != parameters.size())
    return InvalidArgument(
        options.program + " takes " + std::to_string(parameters.size()) +
        " parameter(s), got " + std::to_string(options.inputs.size()) +
        " --input file(s); give one per parameter, in "
        "order:" +
        ParameterList(declared));
  ParseOptions refine;
  refine.argument_shapes.emplace();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Shape& want = declared[i];
    if (!want.IsArray())
      return InvalidArgument("input " + std::to_string(i) + ": parameter " +
                             std::to_string(i) + " is " + want.ToString(false) +
                             "; only array parameters can be read from .npy "
                             "files");
    StatusOr<Literal> value =
        ReadNpyFile(options.inputs[i], want.element_type());
    if (!value.ok())
      return Status(value.status().code(), "input " + std::to_string(i) + ": " +
                                               value.status().message());
    refine.argument_shapes->push_back(
        Shape::Array(want.element_type(), value->shape().dims()));
  }
  return refine;
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
    if (!want.ok()) {
      return Fail("--expect for result " + std::to_string(i) + ": " +
                  want.status().message());
    }
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

void PrintTimes(double first, std::vector<double> others) {
  if (others.empty()) {
    std::printf("execute: %s (1 run)\n", Duration(first).c_str());
    return;
  }
  std::sort(others.begin(), others.end());
  size_t n = others.size();
  double median =
      n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
  double mean = std::accumulate(others.begin(), others.end(), 0.0) /
                static_cast<double>(n);
  std::printf(
      "execute: first run %s; then min %s, median %s, mean %s per "
      "execution over %zu run(s)\n",
      Duration(first).c_str(), Duration(others.front()).c_str(),
      Duration(median).c_str(), Duration(mean).c_str(), n);
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  RunOptions options;
  if (int status = ParseArgs(args, &options); status >= 0) return status;

  StatusOr<std::string> text = ReadProgram(options.program);
  if (!text.ok()) return Fail(text.status().message());

  std::vector<std::shared_ptr<const Plugin>> plugins;
  for (const std::string& path : options.plugins) {
    StatusOr<std::shared_ptr<const Plugin>> plugin =
        Plugin::Load(CommandLinePluginPath(path));
    if (!plugin.ok()) {
      return Fail("--plugin " + path +
                  ": cannot load the library: " + plugin.status().message());
    }
    plugins.push_back(*plugin);
  }

  auto start = std::chrono::steady_clock::now();
  ProgramFormat format = ProgramFormat::kStableHlo;
  StatusOr<Module> module =
      ParseProgramText(*text, options.program, options.format, &format);
  if (!module.ok()) return Fail(module.status().message());
  if (IsShapePolymorphic(*module)) {
    // Its `?` dimensions take the sizes of the input files.
    StatusOr<ParseOptions> refine = ShapesOfInputs(options, *module);
    if (!refine.ok()) return Fail(refine.status().message());
    module = ParseProgramText(*text, options.program, options.format, &format,
                              *refine);
    if (!module.ok()) return Fail(module.status().message());
  }
  double parse_seconds = Since(start);
  start = std::chrono::steady_clock::now();
  CompileOptions compile_options;
  compile_options.intra_op_threads = options.threads;
  compile_options.memory_limit_bytes = options.memory_limit;
  if (options.platform != "host") {
    compile_options.platform = Platform::kCuda;
    compile_options.simulated_device = options.platform == "sim";
  }
  compile_options.custom_call_timeout =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(options.custom_call_timeout));
  if (!options.dump_after.empty()) {
    compile_options.dump_after = options.dump_after;
    compile_options.verify_after_each_pass = true;
  }
  StatusOr<std::unique_ptr<Executable>> executable =
      Compile(std::move(*module), compile_options);
  if (!executable.ok()) {
    return Fail(options.program + ": " + executable.status().message());
  }
  double compile_seconds = Since(start);
  Executable& exe = **executable;

  const std::vector<Shape>& parameters = exe.parameter_shapes();
  if (options.inputs.size() != parameters.size()) {
    return Fail(options.program + " takes " +
                std::to_string(parameters.size()) + " parameter(s), got " +
                std::to_string(options.inputs.size()) +
                " --input file(s); give one per parameter, in order:" +
                ParameterList(parameters));
  }
  std::vector<Literal> arguments;
  std::vector<const void*> argument_leaves;
  for (size_t i = 0; i < parameters.size(); ++i) {
    StatusOr<Literal> value = ReadInput(options, parameters, i);
    if (!value.ok()) return Fail(value.status().message());
    arguments.push_back(std::move(*value));
  }
  for (const Literal& argument : arguments) {
    argument_leaves.push_back(argument.data());
  }

  // Every run writes into the same result buffers: the times are the
  // executor's own, without allocating or copying results.
  std::vector<Literal> results;
  std::vector<void*> result_leaves;
  for (const Shape* leaf : exe.result_shape().Leaves()) {
    results.emplace_back(*leaf);
  }
  for (Literal& result : results) {
    result_leaves.push_back(result.shape().IsArray() ? result.data() : nullptr);
  }
  double first_seconds = 0;
  std::vector<double> times;
  ExecutionTrace trace;
  for (int run = 0; run < options.repeat; ++run) {
    std::optional<TraceScope> traced;
    if (!options.profile.empty() && run == options.repeat - 1)
      traced.emplace(&trace);
    start = std::chrono::steady_clock::now();
    Status status = exe.ExecuteRaw(
        ffi::Span<const void* const>(argument_leaves.data(),
                                     argument_leaves.size()),
        ffi::Span<void* const>(result_leaves.data(), result_leaves.size()));
    double seconds = Since(start);
    if (!status.ok()) {
      return Fail(options.program + ": execution " + std::to_string(run + 1) +
                  " of " + std::to_string(options.repeat) +
                  " failed: " + status.message());
    }
    if (run == 0) {
      first_seconds = seconds;
    } else {
      times.push_back(seconds);
    }
  }
  if (!options.profile.empty()) {
    std::ofstream file(options.profile, std::ios::binary);
    file << trace.ToChromeTraceJson();
    file.close();
    if (!file) {
      return Fail("--profile " + options.profile +
                  ": cannot write the file: " + std::strerror(errno));
    }
  }

  if (!options.output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.output_dir, error);
    if (error) {
      return Fail("--output-dir " + options.output_dir +
                  ": cannot create the directory: " + error.message());
    }
  }
  std::printf("%s (%s%s): %zu parameter(s), %zu result(s)\n",
              options.program.c_str(),
              format == ProgramFormat::kHlo ? "HLO" : "StableHLO",
              options.format == FormatChoice::kAuto ? ", detected" : "",
              parameters.size(), results.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::printf("  input %zu: %s <- %s\n", i,
                arguments[i].shape().ToString(false).c_str(),
                options.inputs[i].c_str());
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Literal& result = results[i];
    std::string where;
    if (!options.output_dir.empty() && result.shape().IsArray()) {
      std::string path = (std::filesystem::path(options.output_dir) /
                          ("result_" + std::to_string(i) + ".npy"))
                             .string();
      if (Status status = WriteNpyFile(path, result); !status.ok()) {
        return Fail("--output-dir: " + status.message());
      }
      where = " -> " + path;
    }
    std::printf("  result %zu: %s%s%s\n", i,
                result.shape().ToString(false).c_str(), Preview(result).c_str(),
                where.c_str());
  }
  const ThreadPool* pool = exe.context().thread_pool();
  std::printf("parse: %s, compile: %s; %d thread(s)\n",
              Duration(parse_seconds).c_str(),
              Duration(compile_seconds).c_str(),
              pool == nullptr ? 1 : pool->num_threads());
  // What of the compile time went to generated code (src/cpu/codegen/).
  const cpu::ExecutorStats stats = cpu::GetExecutorStats(exe);
  if (stats.generated_kernels > 0)
    std::printf("generated kernels: %lld, compiled in %s\n",
                static_cast<long long>(stats.generated_kernels),
                Duration(stats.codegen_seconds).c_str());
  // The memory the program holds between runs (what peak-memory figures
  // are made of, beside the arguments and results).
  if (stats.computations > 0)
    std::printf(
        "buffers: %s arena over %lld computation(s), %s without "
        "reuse\n",
        Bytes(stats.arena_bytes).c_str(),
        static_cast<long long>(stats.computations),
        Bytes(stats.unshared_arena_bytes).c_str());
  PrintTimes(first_seconds, std::move(times));
  if (!options.profile.empty()) {
    std::printf("profile: %zu span(s) of execution %d written to %s\n",
                trace.spans().size(), options.repeat, options.profile.c_str());
  }
  return options.expected.empty() ? kExitOk : Check(options, results);
}

}  // namespace xffi::cli
