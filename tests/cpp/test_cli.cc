// The `xffi` command, run as a user runs it: exit statuses, help, errors,
// inspect on the example libraries, and `run` on corpus programs (which
// needs the StableHLO parser and the compiler; those cases skip, saying
// why, while xffi cannot run the program yet).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "cli/npy.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/plugin.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr together
};

Outcome Xffi(const std::string& args) {
  std::string command = std::string(XFFI_CLI) + " " + args + " 2>&1";
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    outcome.output.append(buffer, n);
  }
  int status = pclose(pipe);
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

std::string Corpus(const std::string& file) {
  return std::string(XFFI_CORPUS_DIR) + "/" + file;
}

std::string Slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

// Whether this build can parse, compile and run `program` at all; the
// tests of `xffi run` on real programs skip until it can.
std::string CannotRun(const std::string& program) {
  for (const char* plugin :
       {XFFI_EXAMPLE_RMS_NORM, XFFI_EXAMPLE_DO_CUSTOM_CALL}) {
    if (auto loaded = Plugin::Load(plugin); !loaded.ok()) {
      return loaded.status().ToString();
    }
  }
  StatusOr<Module> module =
      ParseProgram(Slurp(Corpus(program)), Corpus(program));
  if (!module.ok()) return module.status().ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  if (!exe.ok()) return exe.status().ToString();
  return "";
}

#define SKIP_UNLESS_RUNNABLE(program)                                     \
  if (std::string why = CannotRun(program); !why.empty()) {               \
    GTEST_SKIP() << "xffi cannot compile " << program << " yet: " << why; \
  }

TEST(CliTest, HelpDescribesEveryCommandAndOption) {
  Outcome top = Xffi("--help");
  EXPECT_EQ(top.status, 0);
  EXPECT_THAT(top.output, HasSubstr("run PROGRAM"));
  EXPECT_THAT(top.output, HasSubstr("inspect LIB"));
  EXPECT_THAT(top.output, HasSubstr("Example:"));

  Outcome run = Xffi("run --help");
  EXPECT_EQ(run.status, 0);
  for (const char* option :
       {"--plugin LIB", "--input FILE.npy", "--output-dir DIR", "--repeat N",
        "--expect FILE.npy", "--tolerance T", "--help",
        "Example:", "Exit status:"}) {
    EXPECT_THAT(run.output, HasSubstr(option));
  }
  EXPECT_EQ(Xffi("help run").output, run.output);

  Outcome inspect = Xffi("inspect -h");
  EXPECT_EQ(inspect.status, 0);
  EXPECT_THAT(inspect.output, HasSubstr("usage: xffi inspect LIB..."));
  EXPECT_THAT(inspect.output, HasSubstr("Example:"));
}

TEST(CliTest, UsageErrorsExitTwo) {
  struct Case {
    const char* args;
    const char* message;
  } cases[] = {
      {"", "usage: xffi COMMAND"},
      {"frobnicate", "unknown command 'frobnicate'"},
      {"run", "no PROGRAM given"},
      {"run a.mlir --repeat 0", "--repeat expects a positive integer, got '0'"},
      {"run a.mlir --repeat=x", "--repeat expects a positive integer"},
      {"run a.mlir --input", "--input needs a value"},
      {"run a.mlir --frob 1", "unknown option '--frob'"},
      {"run a.mlir b.mlir", "more than one PROGRAM given"},
      {"run a.mlir --tolerance -1", "--tolerance expects a number >= 0"},
      {"inspect", "no LIB given"},
      {"inspect --frob", "unknown option '--frob'"},
  };
  for (const Case& c : cases) {
    Outcome outcome = Xffi(c.args);
    EXPECT_EQ(outcome.status, 2) << c.args;
    EXPECT_THAT(outcome.output, HasSubstr(c.message)) << c.args;
  }
}

TEST(CliTest, MissingFilesExitOneNamingThem) {
  Outcome program = Xffi("run /nonexistent/p.mlir");
  EXPECT_EQ(program.status, 1);
  EXPECT_THAT(program.output, HasSubstr("/nonexistent/p.mlir: cannot open"));

  Outcome plugin =
      Xffi("run " + Corpus("dot.mlir") + " --plugin /nonexistent/lib.so");
  EXPECT_EQ(plugin.status, 1);
  EXPECT_THAT(plugin.output,
              HasSubstr("cannot load plugin /nonexistent/lib.so"));

  Outcome inspect = Xffi("inspect /nonexistent/lib.so");
  EXPECT_EQ(inspect.status, 1);
  EXPECT_THAT(inspect.output, HasSubstr("cannot load /nonexistent/lib.so"));
}

TEST(CliTest, InspectListsTypedHandlersWithSignatures) {
  Outcome outcome = Xffi(std::string("inspect ") + XFFI_EXAMPLE_RMS_NORM + " " +
                         XFFI_EXAMPLE_DO_CUSTOM_CALL);
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("  registered (1):\n    Host ffi rms_norm [api 0.3, "
                        "traits none, stages execute] execute(Attr<float> "
                        "eps, Buffer<F32> arg0) -> (Buffer<F32>)\n"));
  EXPECT_THAT(outcome.output,
              HasSubstr("  exported (1):\n    Host ffi RmsNorm [api 0.3"));
  EXPECT_THAT(outcome.output,
              HasSubstr("Host ffi do_custom_call [api 0.3, traits none, "
                        "stages execute] execute(Buffer<F32, 1> arg0, "
                        "Buffer<F32, 1> arg1) -> (Buffer<F32, 1>)"));
}

TEST(CliTest, InspectListsLegacyTargets) {
  Outcome outcome =
      Xffi(std::string("inspect ") + XFFI_EXAMPLE_DO_CUSTOM_CALL_LEGACY);
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("registered (3):"));
  EXPECT_THAT(outcome.output,
              HasSubstr("Host legacy do_custom_call_status [api 2 "
                        "(STATUS_RETURNING)] void(void* out, const void** in, "
                        "XlaCustomCallStatus* status)"));
  EXPECT_THAT(outcome.output, HasSubstr("exported (0):"));
}

TEST(CliTest, RunWritesResultsAndChecksThem) {
  SKIP_UNLESS_RUNNABLE("dot.mlir");
  std::string dir = ::testing::TempDir() + "/xffi_cli_test_dot";
  std::filesystem::remove_all(dir);
  std::string inputs;
  std::string expects;
  for (int k = 0; k < 3; ++k) {
    inputs += " --input " + Corpus("dot.in_" + std::to_string(k) + ".npy");
  }
  for (int k = 0; k < 4; ++k) {
    expects += " --expect " + Corpus("dot.out_" + std::to_string(k) + ".npy");
  }
  Outcome outcome = Xffi("run " + Corpus("dot.mlir") + inputs +
                         " --output-dir " + dir + " --repeat 3" + expects);
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("dot.mlir (StableHLO): 4 result(s)"));
  EXPECT_THAT(outcome.output, HasSubstr("result 0: f32[4,5]"));
  EXPECT_THAT(outcome.output, HasSubstr("result 2: f32[] = "));
  EXPECT_THAT(outcome.output, HasSubstr("over 3 run(s)"));
  EXPECT_THAT(outcome.output,
              HasSubstr("PASS: all 4 result(s) match the expected values"));
  // The files hold the printed results: a:4x6 @ b:6x5.
  StatusOr<Literal> written = ReadNpyFile(dir + "/result_0.npy");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->shape().ToString(false), "f32[4,5]");

  // Expecting the wrong values fails, naming the result.
  Outcome wrong =
      Xffi("run " + Corpus("dot.mlir") + inputs + " --expect " +
           Corpus("dot.out_3.npy") + " --expect " + Corpus("dot.out_1.npy") +
           " --expect " + Corpus("dot.out_2.npy") + " --expect " +
           Corpus("dot.out_0.npy"));
  EXPECT_EQ(wrong.status, 1);
  EXPECT_THAT(wrong.output, HasSubstr("result 0 DIFFERS from"));
  EXPECT_THAT(wrong.output, HasSubstr("FAIL: 3 of 4 result(s) differ"));
  std::filesystem::remove_all(dir);
}

TEST(CliTest, InputMismatchesNameTheInput) {
  SKIP_UNLESS_RUNNABLE("dot.mlir");
  Outcome missing =
      Xffi("run " + Corpus("dot.mlir") + " --input " + Corpus("dot.in_0.npy"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output,
              HasSubstr("expects 3 input(s), got 1; give one --input "
                        "FILE.npy per parameter, in order:\n"
                        "  input 0: f32[4,6]\n  input 1: f32[6,5]\n"
                        "  input 2: f32[6]"));

  Outcome swapped =
      Xffi("run " + Corpus("dot.mlir") + " --input " + Corpus("dot.in_1.npy") +
           " --input " + Corpus("dot.in_0.npy") + " --input " +
           Corpus("dot.in_2.npy"));
  EXPECT_EQ(swapped.status, 1);
  EXPECT_THAT(swapped.output,
              HasSubstr("input 0 (" + Corpus("dot.in_1.npy") +
                        "): the program expects f32[4,6], the file holds "
                        "f32[6,5]"));

  Outcome dtype =
      Xffi("run " + Corpus("dot.mlir") + " --input " +
           Corpus("dot_int.in_0.npy") + " --input " + Corpus("dot.in_1.npy") +
           " --input " + Corpus("dot.in_2.npy"));
  EXPECT_EQ(dtype.status, 1);
  EXPECT_THAT(dtype.output, HasSubstr("input 0 ("));
  EXPECT_THAT(dtype.output, HasSubstr("the file holds s32[3,4]"));
}

TEST(CliTest, RunsCustomCallsFromPlugins) {
  SKIP_UNLESS_RUNNABLE("cc_mixed.mlir");
  std::string plugins = std::string(" --plugin ") + XFFI_EXAMPLE_RMS_NORM +
                        " --plugin " + XFFI_EXAMPLE_DO_CUSTOM_CALL;
  std::string args = " --input " + Corpus("cc_mixed.in_0.npy") + " --input " +
                     Corpus("cc_mixed.in_1.npy") + " --input " +
                     Corpus("cc_mixed.in_2.npy") + " --expect " +
                     Corpus("cc_mixed.out_0.npy") + " --expect " +
                     Corpus("cc_mixed.out_1.npy");
  for (const char* text : {"cc_mixed.mlir", "cc_mixed.hlo"}) {
    Outcome outcome = Xffi("run " + Corpus(text) + plugins + args);
    EXPECT_EQ(outcome.status, 0) << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("PASS")) << text;
  }
  // Without the plugins the targets do not resolve.
  Outcome bare = Xffi("run " + Corpus("cc_mixed.mlir") + args);
  EXPECT_EQ(bare.status, 1);
  EXPECT_THAT(bare.output, HasSubstr("rms_norm"));
  EXPECT_THAT(bare.output, Not(HasSubstr("PASS")));
}

}  // namespace
}  // namespace xffi
