// The `xffi` command, run as a user runs it: exit statuses, help, every
// error path (each message naming the file, flag or parameter at fault),
// inspect on the example and test libraries, and run on corpus programs and
// on small programs calling the test handlers of cli_plugins/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/npy.h"
#include "codegen_test_util.h"
#include "malformed_programs.h"
#include "xffi/program/literal.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

namespace fs = std::filesystem;
using ::testing::ContainsRegex;
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

// A fresh directory per test, removed afterwards. The process id keeps two
// checkouts' test runs on one machine (CI beside a developer's build) from
// removing each other's files.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(::testing::TempDir()) /
        ("xffi_cli_" + std::to_string(::getpid()) + "_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const {
    return (dir_ / name).string();
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  std::string WriteNpy(const std::string& name, const Literal& value) const {
    Status status = WriteNpyFile(Path(name), value);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return Path(name);
  }

  fs::path dir_;
};

Literal F32Vector(const std::vector<float>& values) {
  return Literal::FromBytes(
      Shape::Array(ElementType::kF32, {static_cast<int64_t>(values.size())}),
      values.data(), values.size() * sizeof(float));
}

std::vector<float> F32Values(const Literal& literal) {
  const float* data = literal.data<float>();
  return std::vector<float>(data, data + literal.shape().num_elements());
}

// cli_counter on an f32[4] parameter: x + start + runs of this call site.
const char kCounterProgram[] = R"(module @counter {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @cli_counter(%arg0) {mhlo.backend_config = {start = 10.0 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

const char kFailProgram[] = R"(module @fail {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @cli_fail(%arg0) {mhlo.backend_config = {}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

const char kStallProgram[] = R"(module @stall {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @cli_stall(%arg0) {mhlo.backend_config = {}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

const char kTokenProgram[] = R"(module @token {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: !stablehlo.token) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @cli_counter(%arg0) {mhlo.backend_config = {start = 0.0 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

const std::string kPlugin = std::string(" --plugin ") + XFFI_CLI_HANDLERS;

// The corpus's do_custom_call program (f32[128], f32[2048] -> f32[2048]):
// its only op is the custom call, so it runs whatever kernels exist.
std::string DoCustomCallArgs(const std::string& text = "cc_do_custom_call") {
  return Corpus(text + ".mlir") + " --plugin " + XFFI_EXAMPLE_DO_CUSTOM_CALL +
         " --input " + Corpus("cc_do_custom_call.in_0.npy") + " --input " +
         Corpus("cc_do_custom_call.in_1.npy");
}

TEST_F(CliTest, HelpDescribesEveryCommandAndOption) {
  Outcome top = Xffi("--help");
  EXPECT_EQ(top.status, 0);
  EXPECT_THAT(top.output, HasSubstr("run PROGRAM"));
  EXPECT_THAT(top.output,
              HasSubstr("inspect [--plugin LIB]... [--compile] [--json] "
                        "FILE..."));
  EXPECT_THAT(top.output, HasSubstr("Example:"));

  Outcome run = Xffi("run --help");
  EXPECT_EQ(run.status, 0);
  for (const char* option :
       {"--plugin LIB", "--input FILE.npy", "--output-dir DIR", "--repeat N",
        "--format F", "--expect FILE.npy", "--tolerance T", "--dump-after PASS",
        "--threads N", "--memory-limit SIZE", "--custom-call-timeout",
        "--platform P", "spmd-emulation", "--help",
        "Example:", "Exit status:"}) {
    EXPECT_THAT(run.output, HasSubstr(option));
  }
  // Each option is described once (--platform's paragraph was printed twice).
  for (const char* option :
       {"  --platform P ", "  --threads N ", "  --profile "}) {
    const size_t first = run.output.find(option);
    EXPECT_NE(first, std::string::npos) << option;
    EXPECT_EQ(run.output.find(option, first + 1), std::string::npos) << option;
  }
  EXPECT_EQ(Xffi("help run").output, run.output);
  EXPECT_EQ(Xffi("run a.mlir -h").output, run.output);

  Outcome inspect = Xffi("inspect -h");
  EXPECT_EQ(inspect.status, 0);
  for (const char* option :
       {"usage: xffi inspect [--plugin LIB]... [--compile] [--json]",
        "--plugin LIB", "--compile", "--json", "--format F",
        "Examples:", "Exit status:"})
    EXPECT_THAT(inspect.output, HasSubstr(option));
  EXPECT_EQ(Xffi("help inspect").output, inspect.output);
}

TEST_F(CliTest, UsageErrorsExitTwo) {
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
      {"run a.mlir --input=", "--input needs a non-empty value"},
      {"run a.mlir --frob 1", "unknown option '--frob'"},
      {"run a.mlir --frob", "unknown option '--frob'"},
      {"run a.mlir -x", "unknown option '-x'"},
      {"run a.mlir b.mlir",
       "more than one PROGRAM given ('a.mlir' and 'b.mlir')"},
      {"run a.mlir --tolerance -1", "--tolerance expects a number >= 0"},
      {"run a.mlir --format mhlo",
       "--format expects auto, stablehlo or hlo, got 'mhlo'"},
      {"run a.mlir --threads 0",
       "--threads expects an integer from 1 to 4096, got '0'"},
      {"run a.mlir --threads=two", "--threads expects an integer"},
      {"run a.mlir --memory-limit 12X",
       "--memory-limit expects a size in bytes (with an optional K, M or G "
       "suffix) or 'none', got '12X'"},
      {"run a.mlir --memory-limit=-5", "--memory-limit expects a size"},
      {"run a.mlir --custom-call-timeout 0",
       "--custom-call-timeout expects a number of seconds > 0, got '0'"},
      {"run a.mlir --platform tpu",
       "--platform expects host, sim or cuda, got 'tpu'"},
      {"inspect", "no FILE given"},
      {"inspect --frob", "unknown option '--frob'"},
      {"inspect a.mlir --format xml",
       "--format expects auto, stablehlo or hlo, got 'xml'"},
      {"inspect a.mlir --plugin", "--plugin needs a value"},
      {"inspect a.mlir --json=yes", "unknown option '--json=yes'"},
  };
  for (const Case& c : cases) {
    Outcome outcome = Xffi(c.args);
    EXPECT_EQ(outcome.status, 2) << c.args;
    EXPECT_THAT(outcome.output, HasSubstr(c.message)) << c.args;
  }
}

TEST_F(CliTest, PlatformSimRunsOnTheSimulatedGpuAndCudaNeedsOne) {
  const std::string program = Write("double.hlo", R"(HloModule double
ENTRY main {
  x = f32[3] parameter(0)
  ROOT y = f32[3] add(x, x)
}
)");
  const std::string input = WriteNpy("x.npy", F32Vector({1, 2, 3}));
  const std::string expected = WriteNpy("want.npy", F32Vector({2, 4, 6}));
  Outcome sim = Xffi("run " + program + " --platform sim --input " + input +
                     " --expect " + expected);
  EXPECT_EQ(sim.status, 0) << sim.output;
  Outcome cuda = Xffi("run " + program + " --platform=cuda --input " + input);
  if (cuda.status == 0) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_EQ(cuda.status, 1);
  EXPECT_THAT(cuda.output, HasSubstr("no CUDA device: "));
}

TEST_F(CliTest, MissingFilesExitOneNamingThem) {
  Outcome program = Xffi("run /nonexistent/p.mlir");
  EXPECT_EQ(program.status, 1);
  EXPECT_THAT(program.output,
              HasSubstr("xffi run: error: /nonexistent/p.mlir: cannot open "
                        "the program file (No such file or directory)"));

  Outcome directory = Xffi("run " + dir_.string());
  EXPECT_EQ(directory.status, 1);
  EXPECT_THAT(directory.output,
              HasSubstr(dir_.string() + ": is a directory, not a program"));

  Outcome plugin =
      Xffi("run " + Corpus("dot.mlir") + " --plugin /nonexistent/lib.so");
  EXPECT_EQ(plugin.status, 1);
  EXPECT_THAT(plugin.output,
              HasSubstr("--plugin /nonexistent/lib.so: cannot load the "
                        "library: "));
  EXPECT_THAT(plugin.output, HasSubstr("/nonexistent/lib.so"));

  Outcome input = Xffi("run " + Corpus("cc_do_custom_call.mlir") +
                       " --plugin " + XFFI_EXAMPLE_DO_CUSTOM_CALL +
                       " --input " + Corpus("cc_do_custom_call.in_0.npy") +
                       " --input /nonexistent/x.npy");
  EXPECT_EQ(input.status, 1);
  EXPECT_THAT(input.output,
              HasSubstr("input 1: /nonexistent/x.npy: cannot open the file"));

  Outcome inspect = Xffi("inspect /nonexistent/lib.so");
  EXPECT_EQ(inspect.status, 1);
  EXPECT_THAT(inspect.output, HasSubstr("cannot load /nonexistent/lib.so"));
}

TEST_F(CliTest, PluginsThatFailToLoadShowTheLinkersMessage) {
  Outcome unresolved =
      Xffi("run " + Corpus("dot.mlir") + " --plugin " + XFFI_CLI_UNRESOLVED);
  EXPECT_EQ(unresolved.status, 1);
  EXPECT_THAT(unresolved.output,
              HasSubstr(std::string("--plugin ") + XFFI_CLI_UNRESOLVED +
                        ": cannot load the library: "));
  // dlerror's text: the library and the symbol it lacks.
  EXPECT_THAT(unresolved.output,
              HasSubstr("undefined symbol: "
                        "xffi_cli_test_symbol_nobody_defines"));

  std::string text = Write("not_a_library.so", "just text\n");
  Outcome bogus = Xffi("run " + Corpus("dot.mlir") + " --plugin " + text);
  EXPECT_EQ(bogus.status, 1);
  EXPECT_THAT(bogus.output,
              HasSubstr("--plugin " + text + ": cannot load the library: "));
  EXPECT_THAT(bogus.output, HasSubstr("ELF"));

  Outcome inspect = Xffi(std::string("inspect ") + XFFI_CLI_UNRESOLVED);
  EXPECT_EQ(inspect.status, 1);
  EXPECT_THAT(inspect.output, HasSubstr("undefined symbol: "
                                        "xffi_cli_test_symbol_nobody_defines"));
}

TEST_F(CliTest, ParseErrorsNameFileLineAndColumn) {
  std::string bad = Write("bad.mlir",
                          "module @m {\n  func.func public @main() -> "
                          "tensor<f32> {\n    %0 = stablehlo.frobnicate : "
                          "tensor<f32>\n");
  Outcome outcome = Xffi("run " + bad);
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output, HasSubstr(bad + ":3:"));
  EXPECT_THAT(outcome.output, HasSubstr("stablehlo.frobnicate"));

  // Forcing the other format reads StableHLO as HLO, and says what HLO
  // needed where.
  Outcome forced =
      Xffi("run " + Corpus("cc_do_custom_call.mlir") + " --format=hlo");
  EXPECT_EQ(forced.status, 1);
  EXPECT_THAT(forced.output,
              HasSubstr(Corpus("cc_do_custom_call.mlir") + ":1:1: expected"));
}

TEST_F(CliTest, DetectsTheFormatOrTakesTheOneGiven) {
  Outcome mlir = Xffi("run " + DoCustomCallArgs("cc_do_custom_call"));
  EXPECT_EQ(mlir.status, 0) << mlir.output;
  EXPECT_THAT(mlir.output,
              HasSubstr("cc_do_custom_call.mlir (StableHLO, detected): 2 "
                        "parameter(s), 1 result(s)"));

  std::string hlo_args = Corpus("cc_do_custom_call.hlo") + " --plugin " +
                         XFFI_EXAMPLE_DO_CUSTOM_CALL + " --input " +
                         Corpus("cc_do_custom_call.in_0.npy") + " --input " +
                         Corpus("cc_do_custom_call.in_1.npy");
  Outcome hlo = Xffi("run " + hlo_args);
  EXPECT_EQ(hlo.status, 0) << hlo.output;
  EXPECT_THAT(hlo.output, HasSubstr("cc_do_custom_call.hlo (HLO, detected)"));

  Outcome forced = Xffi("run " + hlo_args + " --format hlo");
  EXPECT_EQ(forced.status, 0) << forced.output;
  EXPECT_THAT(forced.output, HasSubstr("cc_do_custom_call.hlo (HLO): "));
}

// --dump-after writes the program as HLO text after a compile pass, on
// standard error, and the run goes on.
TEST_F(CliTest, DumpAfterWritesTheProgramAfterAPass) {
  std::string args = Corpus("sm_psum_axis_index.mlir") + " --input " +
                     Corpus("sm_psum_axis_index.in_0.npy") + " --expect " +
                     Corpus("sm_psum_axis_index.out_0.npy");
  Outcome one = Xffi("run " + args + " --dump-after spmd-emulation");
  EXPECT_EQ(one.status, 0) << one.output;
  EXPECT_THAT(one.output,
              HasSubstr("// xffi: the module after pass 'spmd-emulation'\n"
                        "HloModule jit"));
  // The shard_map and its all-reduce are plain ops by then.
  EXPECT_THAT(one.output, Not(HasSubstr("all-reduce(")));
  EXPECT_THAT(one.output, Not(HasSubstr("xla.sdy.LocalToGlobalShape")));
  EXPECT_THAT(one.output, Not(HasSubstr("after pass 'dce'")));
  EXPECT_THAT(one.output, HasSubstr("PASS: all 1 result(s) match"));

  Outcome all = Xffi("run " + args + " --dump-after=all");
  EXPECT_EQ(all.status, 0) << all.output;
  size_t emulation = all.output.find("after pass 'spmd-emulation'");
  size_t dce = all.output.find("after pass 'dce'");
  EXPECT_NE(emulation, std::string::npos);
  EXPECT_NE(dce, std::string::npos);
  EXPECT_LT(emulation, dce);

  Outcome unknown = Xffi("run " + args + " --dump-after fuse");
  EXPECT_EQ(unknown.status, 1) << unknown.output;
  EXPECT_THAT(
      unknown.output,
      HasSubstr("no pass named 'fuse' to dump after; the passes "
                "are: batch-partition, spmd-emulation, approx-top-k, "
                "inline, simplify, "
                "cse, float-class-tests, "
                "dce, reduction-tree, reduction-fusion, fusion, dce (or all)"));
}

// After "fusion" the dump holds loop fusions, and it parses back as HLO.
TEST_F(CliTest, DumpAfterFusionShowsFusionsThatParseBack) {
  std::string args = Corpus("layernorm.mlir");
  for (const char* input : {"in_0", "in_1", "in_2"})
    args += " --input " + Corpus(std::string("layernorm.") + input + ".npy");
  args += " --expect " + Corpus("layernorm.out_0.npy");
  Outcome run = Xffi("run " + args + " --dump-after fusion");
  EXPECT_EQ(run.status, 0) << run.output;
  const std::string header = "// xffi: the module after pass 'fusion'\n";
  size_t begin = run.output.find(header);
  ASSERT_NE(begin, std::string::npos) << run.output;
  begin += header.size();
  // The dump ends where a line no HLO module line starts like begins (the
  // run's own report).
  std::string dump;
  size_t at = begin;
  while (at < run.output.size()) {
    size_t eol = run.output.find('\n', at);
    if (eol == std::string::npos) eol = run.output.size();
    std::string line = run.output.substr(at, eol - at);
    bool hlo = line.empty() || line[0] == '%' || line[0] == ' ' ||
               line[0] == '}' || line.rfind("ENTRY", 0) == 0 ||
               line.rfind("HloModule", 0) == 0;
    if (!hlo) break;
    dump += line + "\n";
    at = eol + 1;
  }
  EXPECT_THAT(dump, HasSubstr("kind=kLoop, calls=%fused_computation"));
  StatusOr<Module> reparsed = ParseHlo(dump, "dump");
  EXPECT_TRUE(reparsed.ok()) << reparsed.status().message() << "\n" << dump;
  EXPECT_THAT(run.output, HasSubstr("PASS: all 1 result(s) match"));
}

TEST_F(CliTest, RunWritesResultsAndChecksThem) {
  std::string out = Path("out/nested");
  Outcome outcome =
      Xffi("run " + DoCustomCallArgs() + " --output-dir " + out +
           " --repeat 4 --expect " + Corpus("cc_do_custom_call.out_0.npy"));
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("  input 0: f32[128] <- " +
                        Corpus("cc_do_custom_call.in_0.npy") + "\n"));
  EXPECT_THAT(outcome.output, HasSubstr("  input 1: f32[2048] <- "));
  EXPECT_THAT(outcome.output,
              HasSubstr("  result 0: f32[2048] -> " + out + "/result_0.npy\n"));
  const std::string time = "[0-9]+\\.[0-9]{3} (s|ms|us)";
  EXPECT_THAT(outcome.output, ContainsRegex("\nparse: " + time + ", compile: " +
                                            time + "; [0-9]+ thread\\(s\\)\n"));
  EXPECT_THAT(outcome.output,
              ContainsRegex("\nexecute: first run " + time + "; then min " +
                            time + ", median " + time + ", mean " + time +
                            " per execution over 3 run\\(s\\)\n"));
  EXPECT_THAT(outcome.output, HasSubstr("  result 0 matches " +
                                        Corpus("cc_do_custom_call.out_0.npy")));
  EXPECT_THAT(outcome.output,
              HasSubstr("PASS: all 1 result(s) match the expected values"));

  // The file holds JAX's values: do_custom_call is exact (b[i % 128] + c[i]
  // in f32), so byte for byte.
  StatusOr<Literal> written = ReadNpyFile(out + "/result_0.npy");
  StatusOr<Literal> jax = ReadNpyFile(Corpus("cc_do_custom_call.out_0.npy"));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_TRUE(jax.ok()) << jax.status().ToString();
  EXPECT_EQ(written->shape().ToString(false), "f32[2048]");
  EXPECT_EQ(F32Values(*written), F32Values(*jax));

  // Expecting another file's values fails, naming the result and values.
  Outcome wrong = Xffi("run " + DoCustomCallArgs() + " --expect " +
                       Corpus("cc_do_custom_call.in_1.npy"));
  EXPECT_EQ(wrong.status, 1);
  EXPECT_THAT(wrong.output,
              HasSubstr("result 0 DIFFERS from " +
                        Corpus("cc_do_custom_call.in_1.npy") + ": "));
  EXPECT_THAT(wrong.output, HasSubstr(" of 2048 elements differ: [0] "));
  EXPECT_THAT(wrong.output,
              HasSubstr("FAIL: 1 of 1 result(s) differ from the expected"));

  // A loose enough tolerance accepts it.
  Outcome loose = Xffi("run " + DoCustomCallArgs() + " --tolerance 1e9 " +
                       "--expect " + Corpus("cc_do_custom_call.in_1.npy"));
  EXPECT_EQ(loose.status, 0) << loose.output;
}

TEST_F(CliTest, ExpectErrorsNameTheResult) {
  Outcome count = Xffi("run " + DoCustomCallArgs() + " --expect " +
                       Corpus("cc_do_custom_call.out_0.npy") + " --expect " +
                       Corpus("cc_do_custom_call.out_0.npy"));
  EXPECT_EQ(count.status, 1);
  EXPECT_THAT(count.output,
              HasSubstr("the program has 1 result(s) but 2 --expect file(s) "
                        "were given"));

  Outcome missing =
      Xffi("run " + DoCustomCallArgs() + " --expect /nonexistent/want.npy");
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output,
              HasSubstr("--expect for result 0: /nonexistent/want.npy: "
                        "cannot open the file"));

  Outcome shape = Xffi("run " + DoCustomCallArgs() + " --expect " +
                       Corpus("cc_do_custom_call.in_0.npy"));
  EXPECT_EQ(shape.status, 1);
  EXPECT_THAT(shape.output, HasSubstr("result 0 DIFFERS from " +
                                      Corpus("cc_do_custom_call.in_0.npy") +
                                      ": shape f32[2048], expected f32[128]"));
}

TEST_F(CliTest, InputMismatchesNameTheParameter) {
  std::string program = Corpus("cc_do_custom_call.mlir") + " --plugin " +
                        XFFI_EXAMPLE_DO_CUSTOM_CALL;
  Outcome missing = Xffi("run " + program + " --input " +
                         Corpus("cc_do_custom_call.in_0.npy"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output,
              HasSubstr("takes 2 parameter(s), got 1 --input file(s); give "
                        "one per parameter, in order:\n"
                        "  input 0: f32[128]\n  input 1: f32[2048]\n"));

  std::string in0 = Corpus("cc_do_custom_call.in_0.npy");
  std::string in1 = Corpus("cc_do_custom_call.in_1.npy");
  Outcome swapped =
      Xffi("run " + program + " --input " + in1 + " --input " + in0);
  EXPECT_EQ(swapped.status, 1);
  EXPECT_THAT(swapped.output,
              HasSubstr("input 0 (" + in1 +
                        "): parameter 0 is f32[128], the file holds "
                        "f32[2048]"));

  std::vector<int32_t> ints(2048, 7);
  std::string wrong_type = WriteNpy(
      "ints.npy", Literal::FromBytes(Shape::Array(ElementType::kS32, {2048}),
                                     ints.data(), ints.size() * 4));
  Outcome dtype =
      Xffi("run " + program + " --input " + in0 + " --input " + wrong_type);
  EXPECT_EQ(dtype.status, 1);
  EXPECT_THAT(dtype.output,
              HasSubstr("input 1 (" + wrong_type +
                        "): parameter 1 is f32[2048], the file holds "
                        "s32[2048]"));

  std::string not_npy = Write("text.npy", "not an npy file");
  Outcome garbage =
      Xffi("run " + program + " --input " + not_npy + " --input " + in1);
  EXPECT_EQ(garbage.status, 1);
  EXPECT_THAT(garbage.output, HasSubstr("input 0: " + not_npy + ": "));

  // A token parameter cannot come from a file.
  std::string token = Write("token.mlir", kTokenProgram);
  std::string x = WriteNpy("x.npy", F32Vector({1, 2, 3, 4}));
  Outcome tokens =
      Xffi("run " + token + kPlugin + " --input " + x + " --input " + x);
  EXPECT_EQ(tokens.status, 1);
  EXPECT_THAT(tokens.output,
              HasSubstr("input 1 (" + x +
                        "): parameter 1 is token[]; only array parameters can "
                        "be read from .npy files"));
}

TEST_F(CliTest, RepeatKeepsHandlerStatePerCallSite) {
  // instantiate runs once (value = start = 10), execute every run (+1): the
  // last of three runs returns x + 13, and the summary shows it.
  std::string program = Write("counter.mlir", kCounterProgram);
  std::string x = WriteNpy("x.npy", F32Vector({1, 2, 3, 4}));
  Outcome outcome = Xffi("run " + program + kPlugin + " --input " + x +
                         " --repeat 3 --output-dir " + Path("out"));
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output,
              HasSubstr("  result 0: f32[4] = {14, 15, 16, 17}"));
  EXPECT_THAT(outcome.output, HasSubstr("over 2 run(s)"));
  StatusOr<Literal> written = ReadNpyFile(Path("out/result_0.npy"));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(F32Values(*written), (std::vector<float>{14, 15, 16, 17}));

  Outcome once = Xffi("run " + program + kPlugin + " --input " + x);
  EXPECT_EQ(once.status, 0) << once.output;
  EXPECT_THAT(once.output, HasSubstr("  result 0: f32[4] = {12, 13, 14, 15}"));
  EXPECT_THAT(once.output, HasSubstr(" (1 run)"));
}

// cli_threads on an f32[4] parameter: x + the pool's thread count.
const char kThreadsProgram[] = R"(module @threads {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @cli_threads(%arg0) {mhlo.backend_config = {}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

TEST_F(CliTest, ThreadsSetsTheIntraOpPool) {
  std::string program = Write("threads.mlir", kThreadsProgram);
  std::string x = WriteNpy("x.npy", F32Vector({0, 1, 2, 3}));
  Outcome three =
      Xffi("run " + program + kPlugin + " --input " + x + " --threads 3");
  EXPECT_EQ(three.status, 0) << three.output;
  EXPECT_THAT(three.output, HasSubstr("  result 0: f32[4] = {3, 4, 5, 6}"));
  EXPECT_THAT(three.output, HasSubstr("; 3 thread(s)\n"));

  // Without --threads: one per hardware thread, as XLA:CPU's default.
  const unsigned cores = std::thread::hardware_concurrency();
  Outcome fallback = Xffi("run " + program + kPlugin + " --input " + x);
  EXPECT_EQ(fallback.status, 0) << fallback.output;
  EXPECT_THAT(fallback.output,
              HasSubstr("; " + std::to_string(cores) + " thread(s)\n"));
  EXPECT_THAT(fallback.output,
              HasSubstr("  result 0: f32[4] = {" + std::to_string(cores) +
                        ", " + std::to_string(cores + 1) + ", "));
}

// f32[256,256] values (256 KiB each), one of them alive across both sorts.
const char kTwoTemporariesProgram[] = R"(HloModule temporaries
lt {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT r = pred[] compare(p0, p1), direction=LT
}
ENTRY main {
  x = f32[256,256] parameter(0)
  a = f32[256,256] negate(x)
  b = f32[256,256] sort(a), dimensions={1}, to_apply=lt
  c = f32[256,256] sort(b), dimensions={0}, to_apply=lt
  ROOT d = f32[256,256] add(c, a)
}
)";

TEST_F(CliTest, MemoryLimitRefusesAProgramThatNeedsMore) {
  // Without generated kernels: under ASan, GCC 12's LeakSanitizer crashes
  // its own tracer (signal 11 on a bogus dynamic-TLS range) at the exit of
  // an `xffi run` whose program got two generated kernels — a sanitizer
  // runtime fault (valgrind finds nothing in the release binary), and
  // this test is about the limit, not the kernels.
  codegen_test::ScopedEnv no_codegen("XFFI_CODEGEN", "0");
  std::string program = Write("temporaries.hlo", kTwoTemporariesProgram);
  std::string x =
      WriteNpy("x.npy", Literal::FromVector<float>(
                            {256, 256}, std::vector<float>(256 * 256, 0.0f)));
  Outcome small =
      Xffi("run " + program + " --input " + x + " --memory-limit 64K");
  EXPECT_EQ(small.status, 1) << small.output;
  EXPECT_THAT(small.output, HasSubstr("temporaries.hlo: the program's buffers "
                                      "need "));
  EXPECT_THAT(small.output, HasSubstr("over the memory limit of 65536 bytes"));
  Outcome large =
      Xffi("run " + program + " --input " + x + " --memory-limit 2M");
  EXPECT_EQ(large.status, 0) << large.output;
  // a lives until d; b is sorted into c's buffer, which d, the result,
  // takes over in the caller's memory: a's 256 KiB remain.
  EXPECT_THAT(large.output, HasSubstr("buffers: 256.0 KiB arena over "));
  EXPECT_THAT(large.output, HasSubstr("256.0 KiB without reuse\n"));
  Outcome none =
      Xffi("run " + program + " --input " + x + " --memory-limit none");
  EXPECT_EQ(none.status, 0) << none.output;
}

TEST_F(CliTest, UnresolvedTargetsAndHandlerErrorsNameTheTarget) {
  std::string counter = Write("counter.mlir", kCounterProgram);
  std::string x = WriteNpy("x.npy", F32Vector({1, 2, 3, 4}));
  Outcome bare = Xffi("run " + counter + " --input " + x);
  EXPECT_EQ(bare.status, 1);
  EXPECT_THAT(bare.output, HasSubstr("cli_counter"));
  EXPECT_THAT(bare.output, HasSubstr(counter + ":3:"));

  std::string fail = Write("fail.mlir", kFailProgram);
  Outcome failed = Xffi("run " + fail + kPlugin + " --input " + x);
  EXPECT_EQ(failed.status, 1);
  EXPECT_THAT(failed.output, HasSubstr("execution 1 of 1 failed: "));
  EXPECT_THAT(failed.output, HasSubstr("cli_fail"));
  EXPECT_THAT(failed.output, HasSubstr(fail + ":3:"));
  EXPECT_THAT(failed.output, HasSubstr("cli_fail refuses every input"));
  EXPECT_THAT(failed.output, Not(HasSubstr("result 0:")));
}

TEST_F(CliTest, CustomCallTimeoutBoundsACallThatNeverCompletes) {
  std::string stall = Write("stall.mlir", kStallProgram);
  std::string x = WriteNpy("x.npy", F32Vector({1, 2, 3, 4}));
  Outcome stalled = Xffi("run " + stall + kPlugin + " --input " + x +
                         " --custom-call-timeout 0.1");
  EXPECT_EQ(stalled.status, 1);
  EXPECT_THAT(stalled.output, HasSubstr("execution 1 of 1 failed: "));
  EXPECT_THAT(stalled.output, HasSubstr("custom call 'cli_stall'"));
  EXPECT_THAT(stalled.output, HasSubstr(stall + ":3:"));
  EXPECT_THAT(
      stalled.output,
      HasSubstr("did not complete within the custom-call timeout (0.1"));
}

TEST_F(CliTest, OutputDirectoryThatCannotBeCreated) {
  std::string file = Write("a_file", "x");
  Outcome outcome =
      Xffi("run " + DoCustomCallArgs() + " --output-dir " + file + "/sub");
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output, HasSubstr("--output-dir " + file +
                                        "/sub: cannot create the directory"));
}

TEST_F(CliTest, InspectListsTypedHandlersWithSignatures) {
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

TEST_F(CliTest, InspectShowsStagesTraitsAndExportsOnly) {
  Outcome outcome = Xffi(std::string("inspect ") + XFFI_CLI_HANDLERS);
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("  registered (5):\n"));
  EXPECT_THAT(outcome.output,
              HasSubstr("    Host ffi cli_counter [api 0.3, traits "
                        "COMMAND_BUFFER_COMPATIBLE, stages "
                        "instantiate+execute] execute(Ctx<State<"));
  // The instantiate stage describes itself on the next line.
  EXPECT_THAT(
      outcome.output,
      HasSubstr(
          "Counter>>, Buffer<F32, 1> arg0) -> (Buffer<F32, "
          "1>)\n        instantiate(Attr<float> start) -> ()\n        state "
          "'cli_test.Counter' (id "));
  EXPECT_THAT(outcome.output,
              HasSubstr("), made by the instantiate stage, one per call "
                        "site\n"));
  EXPECT_THAT(outcome.output,
              HasSubstr("    Host ffi cli_fail [api 0.3, traits none, stages "
                        "execute] execute(Buffer<F32, 1> arg0) -> "
                        "(Buffer<F32, 1>)\n"));
  EXPECT_THAT(outcome.output,
              HasSubstr("  exported (1):\n    Host ffi CliExported [api 0.3, "
                        "traits none, stages execute] execute(Buffer<S32> "
                        "arg0) -> (Buffer<S32>)\n"));
}

// Each malformed program exits 1 with the verifier's message naming the op
// and its file:line:column, and its custom call never runs; mended, the
// same program runs it.
TEST_F(CliTest, MalformedProgramsAreRefusedBeforeAnythingRuns) {
  for (const test::MalformedProgram& program : test::MalformedPrograms()) {
    SCOPED_TRACE(program.file);
    std::string text = test::ReadMalformedProgram(program);
    std::string inputs;
    for (size_t i = 0; i < program.inputs.size(); ++i) {
      Shape shape = Shape::Array(ElementType::kF32, program.inputs[i]);
      std::vector<float> values(static_cast<size_t>(shape.num_elements()), 1);
      inputs += " --input " +
                WriteNpy("in" + std::to_string(i) + ".npy",
                         Literal::FromBytes(shape, values.data(),
                                            values.size() * sizeof(float)));
    }
    std::string path = Write(program.file, text);
    Outcome refused = Xffi("run " + path + kPlugin + inputs);
    EXPECT_EQ(refused.status, 1) << refused.output;
    EXPECT_THAT(refused.output,
                ContainsRegex(program.file + ":" +
                              std::to_string(test::LineOfOp(program, text)) +
                              ":[0-9]+: "));
    EXPECT_THAT(refused.output, HasSubstr("(" + program.opcode + ")"));
    EXPECT_THAT(refused.output, HasSubstr(program.why));
    EXPECT_THAT(refused.output, Not(HasSubstr("cli_mark ran")));

    Outcome mended =
        Xffi("run " + Write(program.file, test::Mended(program, text)) +
             kPlugin + inputs);
    EXPECT_EQ(mended.status, 0) << mended.output;
    EXPECT_THAT(mended.output, HasSubstr("cli_mark ran"));
  }
}

TEST_F(CliTest, InspectListsLegacyTargets) {
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

TEST_F(CliTest, InspectRefusesFilesThatAreNotLibraries) {
  std::string text = Write("not_a_library.so", "just text\n");
  Outcome outcome =
      Xffi("inspect " + text + " " + std::string(XFFI_EXAMPLE_RMS_NORM));
  // Each library is reported; one failure makes the status 1.
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output, HasSubstr("cannot load " + text + ": "));
  EXPECT_THAT(outcome.output, HasSubstr("Host ffi rms_norm"));
}

// A program for inspect: a sharded parameter, a typed call with frontend
// attributes, a legacy call, a call no library serves, a loop.
const char kInspectProgram[] =
    R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
    %0 = stablehlo.custom_call @cli_counter(%arg1) {has_side_effect = true, mhlo.backend_config = {start = 10.0 : f32}, mhlo.frontend_attributes = {num_batch_dims = "1"}} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<4xf32>
    %2 = stablehlo.custom_call @nowhere_to_be_found(%arg0) {api_version = 2 : i32, backend_config = "opaque!"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %3 = stablehlo.multiply %1, %1 : tensor<4xf32>
    return %3, %2 : tensor<4xf32>, tensor<8x4xf32>
  }
}
)";

TEST_F(CliTest, InspectDescribesAProgramAndWhatServesItsTargets) {
  std::string program = Write("f.mlir", kInspectProgram);
  Outcome bare = Xffi("inspect " + program);
  EXPECT_EQ(bare.status, 0) << bare.output;
  EXPECT_THAT(bare.output,
              HasSubstr(program + ": StableHLO, module jit_f\n"
                                  "  entry main: 2 parameter(s), 2 "
                                  "result(s)\n"));
  EXPECT_THAT(bare.output,
              HasSubstr("    parameter 0 %arg0.1: f32[8,4], sharding "
                        "{devices=[2,1]0,1}\n    parameter 1 %arg1.3: f32[4]\n"
                        "    result 0: f32[4]\n    result 1: f32[8,4]\n"));
  EXPECT_THAT(bare.output, HasSubstr("  devices: 2 (num_partitions)\n"));
  EXPECT_THAT(bare.output,
              HasSubstr("  custom calls (2), as the Host platform resolves "
                        "them:\n    cli_counter at " +
                        program +
                        ":3:5 in main\n"
                        "        api_version 4 (typed FFI), "
                        "has_side_effect\n"
                        "        attributes {start = 10.0 : f32}\n"
                        "        frontend attributes "
                        "num_batch_dims=\"1\"\n"));
  EXPECT_THAT(bare.output,
              HasSubstr("        does NOT resolve (xffi run would refuse "
                        "the program at compile time): custom call "
                        "'cli_counter'"));
  EXPECT_THAT(bare.output,
              HasSubstr("    nowhere_to_be_found at " + program +
                        ":5:5 in main\n        api_version 2 "
                        "(STATUS_RETURNING), no side effect\n        opaque "
                        "\"opaque!\"\n        does NOT resolve (xffi run "
                        "would refuse the program at compile time): "));
  EXPECT_THAT(bare.output, HasSubstr("  ops: 7 in 1 computation(s): "
                                     "custom-call 2 parameter 2 add 1 "));
  // Given the library, the typed target resolves to it; the other does not.
  Outcome served =
      Xffi("inspect " + program + " --plugin " + XFFI_CLI_HANDLERS);
  EXPECT_EQ(served.status, 0) << served.output;
  EXPECT_THAT(served.output,
              ContainsRegex("resolves: ffi target from [^\n]*" +
                            fs::path(XFFI_CLI_HANDLERS).filename().string()));
  EXPECT_THAT(served.output, HasSubstr("compile time): custom call "
                                       "'nowhere_to_be_found'"));
  // The library named as a FILE before the program serves it too.
  Outcome listed =
      Xffi(std::string("inspect ") + XFFI_CLI_HANDLERS + " " + program);
  EXPECT_EQ(listed.status, 0) << listed.output;
  EXPECT_THAT(listed.output, HasSubstr("registered (5):"));
  EXPECT_THAT(listed.output, HasSubstr("resolves: ffi target from "));
}

TEST_F(CliTest, InspectCompilesAProgramAndReportsFusionsAndBuffers) {
  // The corpus's cc_mixed, both texts, with the example libraries.
  const std::string plugins = std::string(" --plugin ") +
                              XFFI_EXAMPLE_RMS_NORM + " --plugin " +
                              XFFI_EXAMPLE_DO_CUSTOM_CALL;
  for (const char* text : {"cc_mixed.mlir", "cc_mixed.hlo"}) {
    SCOPED_TRACE(text);
    Outcome outcome = Xffi("inspect --compile " + Corpus(text) + plugins);
    EXPECT_EQ(outcome.status, 0) << outcome.output;
    EXPECT_THAT(outcome.output, ContainsRegex("  compiled for the host: [0-9]+ "
                                              "op\\(s\\), [1-9][0-9]* "
                                              "fusion\\(s\\) \\(kLoop "));
    EXPECT_THAT(outcome.output,
                ContainsRegex("    buffers: [0-9.]+ [KM]?i?B arena over "));
    // Each fusion on a line of its own, as many as the summary counts.
    std::smatch summary;
    ASSERT_TRUE(std::regex_search(outcome.output, summary,
                                  std::regex("([0-9]+) fusion\\(s\\)")));
    const std::regex line(
        "\n    fusion [^ ]+ \\(k[A-Za-z]+, in [^)]+\\): [1-9][0-9]* op\\(s\\), "
        "root [a-z-]+, returns [a-z0-9]+\\[");
    const auto lines =
        std::distance(std::sregex_iterator(outcome.output.begin(),
                                           outcome.output.end(), line),
                      std::sregex_iterator());
    EXPECT_EQ(lines, std::stol(summary[1].str())) << outcome.output;
    Outcome json = Xffi("inspect --json --compile " + Corpus(text) + plugins);
    EXPECT_EQ(json.status, 0) << json.output;
    EXPECT_THAT(json.output,
                ContainsRegex("\"fusion_list\":\\[\\{\"name\":\"[^\"]+\","
                              "\"kind\":\"kLoop\",\"computation\":\"[^\"]+\","
                              "\"root\":\"[a-z-]+\",\"ops\":[1-9][0-9]*,"
                              "\"results\":\\[\"[a-z0-9]+\\["));
  }
  // Compiling needs the targets: without the libraries it is an error that
  // names the call's place.
  Outcome unresolved = Xffi("inspect --compile " + Corpus("cc_mixed.mlir"));
  EXPECT_EQ(unresolved.status, 1);
  EXPECT_THAT(unresolved.output, ContainsRegex("cc_mixed.mlir:[0-9]+:[0-9]+"));
}

TEST_F(CliTest, InspectJsonHoldsWhatTheTextSays) {
  std::string program = Write("f.mlir", kInspectProgram);
  Outcome outcome = Xffi("inspect --json --compile " + program + " --plugin " +
                         XFFI_CLI_HANDLERS + " " + XFFI_EXAMPLE_RMS_NORM);
  // nowhere_to_be_found does not resolve: described, then refused.
  EXPECT_EQ(outcome.status, 1) << outcome.output;
  EXPECT_THAT(outcome.output, HasSubstr("\"compile_error\":\"custom call "
                                        "'nowhere_to_be_found' at "));
  EXPECT_THAT(outcome.output, HasSubstr(": does not compile: custom call "
                                        "'nowhere_to_be_found' at "));
  outcome = Xffi("inspect --json " + program + " " + XFFI_EXAMPLE_RMS_NORM +
                 " --plugin " + XFFI_CLI_HANDLERS);
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  const std::string& json = outcome.output;
  EXPECT_EQ(json.front(), '[');
  EXPECT_THAT(json,
              HasSubstr("{\"program\":\"" + program +
                        "\",\"format\":\"stablehlo\",\"module\":"
                        "\"jit_f\",\"entry\":\"main\",\"platform\":\"Host\","
                        "\"parameters\":[{"
                        "\"name\":\"arg0.1\",\"shape\":\"f32[8,4]\","
                        "\"dtype\":\"f32\",\"dims\":[8,4],\"sharding\":"
                        "\"{devices=[2,1]0,1}\",\"location\":{\"file\":"
                        "\"" +
                        program + "\",\"line\":2,\"column\":"));
  EXPECT_THAT(json, HasSubstr("\"num_partitions\":2"));
  EXPECT_THAT(json, HasSubstr("{\"target\":\"cli_counter\",\"computation\":"
                              "\"main\",\"location\":{\"file\":\"" +
                              program +
                              "\",\"line\":3,\"column\":5},\"api_version\":4,"
                              "\"has_side_effect\":true,\"attributes\":\"{"
                              "start = 10.0 : f32}\","
                              "\"frontend_attributes\":{\"num_batch_dims\":"
                              "\"1\"},\"batch_partitionable\":false,"
                              "\"resolution\":\"library\",\"kind\":\"ffi\","
                              "\"library\":\""));
  EXPECT_THAT(json, HasSubstr("\"target\":\"nowhere_to_be_found\""));
  EXPECT_THAT(json, HasSubstr("\"resolution\":\"unresolved\",\"detail\":"));
  EXPECT_THAT(json, HasSubstr("\"by_opcode\":{\"custom-call\":2,"));
  EXPECT_THAT(json,
              HasSubstr("{\"library\":\"" + std::string(XFFI_EXAMPLE_RMS_NORM) +
                        "\",\"origin\":\""));
  EXPECT_THAT(json, HasSubstr("\"registered\":[{\"platform\":\"Host\","
                              "\"kind\":\"ffi\",\"name\":\"rms_norm\","));
  EXPECT_EQ(json.substr(json.size() - 3), "}]\n");
}

TEST_F(CliTest, InspectRefusesBadProgramsNamingTheirPlace) {
  std::string broken = Write("broken.mlir", R"(module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %nope : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)");
  Outcome outcome = Xffi("inspect " + broken);
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output,
              ContainsRegex("xffi inspect: error: " + broken + ":3:[0-9]+: "));
  EXPECT_THAT(outcome.output, HasSubstr("%nope"));
  Outcome missing = Xffi("inspect " + Path("missing.mlir"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output, HasSubstr(Path("missing.mlir") +
                                        ": cannot open the program file"));
  // HLO read as StableHLO fails at its first word.
  std::string hlo = Write("p.hlo",
                          "HloModule m\n\nENTRY e {\n  ROOT p = "
                          "f32[2] parameter(0)\n}\n");
  EXPECT_EQ(Xffi("inspect " + hlo).status, 0);
  Outcome forced = Xffi("inspect --format=stablehlo " + hlo);
  EXPECT_EQ(forced.status, 1);
  EXPECT_THAT(forced.output, HasSubstr(hlo + ":1:1: "));
}

// The lines of `output` that describe results ("    result N: ..."),
// without the names JAX gave them (` "result[0]"`), which HLO has no place
// for.
std::vector<std::string> ResultLines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("    result ", 0) != 0) continue;
    size_t quote = line.find(" \"");
    size_t colon = line.find(':');
    if (quote != std::string::npos && quote < colon)
      line.erase(quote, colon - quote);
    lines.push_back(line);
  }
  return lines;
}

// jax.jit's out_shardings as JAX wrote them into the corpus's sm_grid:
// StableHLO's result sdy.shardings over the 2 x 2 mesh and HLO's ROOT tuple
// sharding describe the same placement.
TEST_F(CliTest, InspectShowsTheResultShardingsTheProgramDeclares) {
  Outcome mlir = Xffi("inspect " + Corpus("sm_grid.mlir"));
  EXPECT_EQ(mlir.status, 0) << mlir.output;
  Outcome hlo = Xffi("inspect " + Corpus("sm_grid.hlo"));
  EXPECT_EQ(hlo.status, 0) << hlo.output;
  // Result 0 is split along "b" (mesh axis 1) in its second dimension and
  // replicated along "a".
  EXPECT_THAT(mlir.output,
              HasSubstr("    result 0 \"result[0]\": f32[4,16], sharding "
                        "{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}\n"));
  const std::vector<std::string> lines = ResultLines(mlir.output);
  EXPECT_EQ(lines.size(), 3u) << mlir.output;
  EXPECT_EQ(ResultLines(hlo.output), lines) << hlo.output;
  for (const std::string& line : lines)
    EXPECT_THAT(line, HasSubstr(", sharding {devices="));

  Outcome json = Xffi("inspect --json " + Corpus("sm_grid.hlo"));
  EXPECT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output,
              HasSubstr("\"results\":[{\"shape\":\"f32[4,16]\",\"dtype\":"
                        "\"f32\",\"dims\":[4,16],\"sharding\":\"{devices=[1,"
                        "2,2]0,2,1,3 last_tile_dim_replicate}\"},"));
  // A program whose results declare none says so with null.
  Outcome plain = Xffi("inspect --json " + Corpus("cc_mixed.mlir"));
  EXPECT_THAT(plain.output, ContainsRegex("\"results\":\\[\\{(\"jax_name\":"
                                          "\"[^\"]+\",)?\"shape\":\"[^"
                                          "\"]+\",\"dtype\":\"[a-z0-9]+\","
                                          "\"dims\":\\[[0-9,]*\\],"
                                          "\"sharding\":null\\}"));
}

TEST_F(CliTest, InspectRefusesAMalformedResultShardingNamingItsPlace) {
  std::string mlir =
      Write("bad_result.mlir",
            "func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32> "
            "{mhlo.sharding = \"{devices=[2]<=[3]}\"}) {\n"
            "  return %x : tensor<4xf32>\n}\n");
  Outcome outcome = Xffi("inspect " + mlir);
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output,
              HasSubstr("xffi inspect: error: " + mlir +
                        ":1:78: mhlo.sharding of result 0:1:2: expected "
                        "devices=[tiles]<=[dims] with as many ids as tiles"));
  std::string hlo = Write("bad_result.hlo",
                          "HloModule m\nENTRY e {\n  a = f32[4]{0} "
                          "parameter(0)\n  ROOT n = f32[4]{0} negate(a), "
                          "sharding={devices=[2]0,1 bogus}\n}\n");
  outcome = Xffi("inspect " + hlo);
  EXPECT_EQ(outcome.status, 1);
  EXPECT_THAT(outcome.output,
              HasSubstr(hlo + ":4:42: sharding:1:17: unknown sharding "
                              "option 'bogus'"));
}

// What serves each call on the platform --platform names, as xffi run
// --platform resolves it: a handler or legacy target registered for that
// platform, xffi's compiler, or nothing (then the error the compile would
// stop at).
const char kPlatformProgram[] =
    R"(func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.custom_call @cli_gpu_ffi(%x) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @cli_gpu_legacy(%0) {api_version = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @cli_mark(%x) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.custom_call @lapack_spotrf_ffi(%x) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
)";

TEST_F(CliTest, InspectResolvesTargetsForThePlatformGiven) {
  std::string program = Write("platform.mlir", kPlatformProgram);
  const std::string plugins = std::string(" --plugin ") + XFFI_CLI_GPU +
                              " --plugin " + XFFI_CLI_HANDLERS;
  const std::string gpu_library = fs::path(XFFI_CLI_GPU).filename().string();
  const std::string refused =
      "does NOT resolve (xffi run would refuse the program at compile "
      "time): ";
  Outcome host = Xffi("inspect " + program + plugins);
  EXPECT_EQ(host.status, 0) << host.output;
  EXPECT_THAT(host.output, HasSubstr("  custom calls (5), as the Host "
                                     "platform resolves them:\n"));
  EXPECT_THAT(host.output,
              HasSubstr(refused + "custom call 'cli_gpu_ffi' at " + program +
                        ":2:3: no handler 'cli_gpu_ffi' (platform Host) is "
                        "registered"));
  EXPECT_THAT(host.output,
              HasSubstr(refused + "custom call 'cli_gpu_legacy' at "));
  EXPECT_THAT(host.output, HasSubstr("resolves: xffi's built-in CPU target"));
  EXPECT_THAT(host.output,
              HasSubstr("handled by xffi: a GSPMD sharding marker"));

  for (const char* platform : {"cuda", "sim"}) {
    SCOPED_TRACE(platform);
    Outcome cuda = Xffi("inspect --platform " + std::string(platform) + " " +
                        program + plugins);
    EXPECT_EQ(cuda.status, 0) << cuda.output;
    EXPECT_THAT(cuda.output, HasSubstr("  custom calls (5), as the CUDA "
                                       "platform resolves them:\n"));
    EXPECT_THAT(cuda.output, ContainsRegex("cli_gpu_ffi at [^\n]*\n[^\n]*\n"
                                           "        resolves: ffi target from "
                                           "[^\n]*" +
                                           gpu_library));
    EXPECT_THAT(cuda.output,
                ContainsRegex("cli_gpu_legacy at [^\n]*\n[^\n]*\n"
                              "        resolves: legacy target from [^\n]*" +
                              gpu_library));
    // A Host handler does not serve CUDA; nor does a built-in CPU target.
    EXPECT_THAT(cuda.output,
                HasSubstr(refused + "custom call 'cli_mark' at " + program +
                          ":4:3: no handler 'cli_mark' (platform CUDA) is "
                          "registered"));
    EXPECT_THAT(
        cuda.output,
        HasSubstr(refused + "custom call 'lapack_spotrf_ffi' at " + program +
                  ":5:3: no handler 'lapack_spotrf_ffi' "
                  "(platform CUDA) is registered (xffi's "
                  "built-in target of that name runs on the "
                  "host only)"));
    EXPECT_THAT(cuda.output,
                HasSubstr("handled by xffi: a GSPMD sharding marker"));
  }

  Outcome json = Xffi("inspect --json --platform=cuda " + program + plugins);
  EXPECT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"entry\":\"main\",\"platform\":"
                                     "\"CUDA\","));
  EXPECT_THAT(
      json.output,
      ContainsRegex("\"target\":\"cli_gpu_legacy\",[^}]*\\}[^}]*\\}[^}]*"
                    "\"resolution\":\"library\",\"kind\":\"legacy\""));
  EXPECT_THAT(json.output,
              ContainsRegex("\"target\":\"cli_mark\",[^}]*\\}[^}]*\\}[^}]*"
                            "\"resolution\":\"unresolved\",\"detail\":\"custom "
                            "call 'cli_mark' at "));
  // xffi run --platform sim stops at the first call no CUDA handler
  // serves, with the message inspect gives for it.
  Outcome run = Xffi("run --platform sim " + program + plugins + " --input " +
                     WriteNpy("x.npy", F32Vector({1, 2, 3, 4})));
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("custom call 'cli_mark' at " + program +
                                    ":4:3: no handler 'cli_mark' (platform "
                                    "CUDA) is registered"));

  Outcome bad = Xffi("inspect --platform tpu " + program);
  EXPECT_EQ(bad.status, 2);
  EXPECT_THAT(bad.output,
              HasSubstr("--platform expects host, cuda or sim, got 'tpu'"));
  Outcome compiled = Xffi("inspect --compile --platform cuda " + program);
  EXPECT_EQ(compiled.status, 2);
  EXPECT_THAT(compiled.output, HasSubstr("--compile describes the host's "
                                         "compilation"));
}

// The end-to-end path with real ops around the custom calls (it needs the
// CPU kernels): the corpus's cc_mixed, both texts.
TEST_F(CliTest, RunsCustomCallsAmongOrdinaryOps) {
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
    EXPECT_THAT(outcome.output, HasSubstr("PASS: all 2 result(s) match"))
        << text;
  }
  // Without the plugins the targets do not resolve.
  Outcome bare = Xffi("run " + Corpus("cc_mixed.mlir") + args);
  EXPECT_EQ(bare.status, 1);
  EXPECT_THAT(bare.output, HasSubstr("rms_norm"));
  EXPECT_THAT(bare.output, Not(HasSubstr("PASS")));
}

// What jax.export writes for x + 1 with x: f32[b], b >= 2 (one function).
const char kPolymorphicProgram[] = R"(module @poly {
  func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %1 = stablehlo.compare  GE, %0, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Expected value >= 2 for dimension variable 'b'; got b = {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.dynamic_broadcast_in_dim %cst, %2, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<?xf32>
    return %4 : tensor<?xf32>
  }
}
)";

TEST_F(CliTest, RunRefinesAPolymorphicProgramFromItsInputs) {
  std::string program = Write("poly.mlir", kPolymorphicProgram);
  for (int n : {2, 5}) {
    std::vector<float> x, want;
    for (int i = 0; i < n; ++i) {
      x.push_back(static_cast<float>(i * 10));
      want.push_back(static_cast<float>(i * 10 + 1));
    }
    std::string tag = std::to_string(n);
    std::string input = WriteNpy("x" + tag + ".npy", F32Vector(x));
    std::string out = Path("out" + tag);
    Outcome outcome =
        Xffi("run " + program + " --input " + input + " --output-dir " + out);
    EXPECT_EQ(outcome.status, 0) << outcome.output;
    EXPECT_THAT(outcome.output,
                HasSubstr("  input 0: f32[" + tag + "] <- " + input));
    StatusOr<Literal> result = ReadNpyFile(out + "/result_0.npy");
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(F32Values(*result), want);
  }
  // The program's own shape assertion refuses b = 1, with its message.
  Outcome bad = Xffi("run " + program + " --input " +
                     WriteNpy("one.npy", F32Vector({7})));
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output,
              HasSubstr("poly.mlir:6:5: Expected value >= 2 for dimension "
                        "variable 'b'; got b = 1"));
  // Without inputs there is nothing to refine it to.
  Outcome none = Xffi("run " + program);
  EXPECT_EQ(none.status, 1);
  EXPECT_THAT(none.output, HasSubstr("takes 1 parameter(s), got 0"));
}

TEST_F(CliTest, InspectShowsAPolymorphicSignature) {
  std::string program = Write("poly.mlir", kPolymorphicProgram);
  Outcome text = Xffi("inspect " + program);
  EXPECT_EQ(text.status, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("  entry main: 1 parameter(s), 1 "
                                     "result(s)\n    parameter 0: f32[?]\n"
                                     "    result 0: f32[?]\n"));
  EXPECT_THAT(text.output, HasSubstr("shape-polymorphic"));
  Outcome json = Xffi("inspect --json " + program);
  EXPECT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output,
              HasSubstr("\"shape_polymorphic\":true,\"parameters\":[{"
                        "\"shape\":\"f32[?]\"}]"));
}

// What jax.jit(f).lower(...).as_text(debug_info=True) writes for
// f(params, x) = ({"out": params["w"] * x}, x): arguments named by their
// locations, results by jax.result_info.
const char kNamedProgram[] = R"(module @jit_f {
  func.func public @main(%arg0: tensor<3xf32> loc("params['w']"), %arg1: tensor<3xf32> loc("x")) -> (tensor<3xf32> {jax.result_info = "result[0]['out']"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<3xf32>
    return %0, %arg1 : tensor<3xf32>, tensor<3xf32>
  }
}
)";

TEST_F(CliTest, InspectShowsTheNamesJaxGaveArgumentsAndResults) {
  std::string program = Write("named.mlir", kNamedProgram);
  Outcome text = Xffi("inspect " + program);
  EXPECT_EQ(text.status, 0) << text.output;
  EXPECT_THAT(text.output,
              HasSubstr("    parameter 0 %arg0.1 \"params['w']\": f32[3]\n"
                        "    parameter 1 %arg1.3 \"x\": f32[3]\n"
                        "    result 0 \"result[0]['out']\": f32[3]\n"
                        "    result 1 \"result[1]\": f32[3]\n"));
  Outcome json = Xffi("inspect --json " + program);
  EXPECT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output,
              HasSubstr("{\"name\":\"arg0.1\",\"jax_name\":\"params['w']\","
                        "\"shape\":\"f32[3]\""));
  EXPECT_THAT(json.output,
              HasSubstr("\"results\":[{\"jax_name\":\"result[0]['out']\","
                        "\"shape\":\"f32[3]\""));
  // HLO says an argument's name as its parameter's op_name, as XLA does,
  // and has no place for a result's.
  Outcome dumped =
      Xffi("run " + program + " --input " +
           WriteNpy("w.npy", F32Vector({1, 2, 3})) + " --input " +
           WriteNpy("x.npy", F32Vector({4, 5, 6})) + " --dump-after inline");
  EXPECT_EQ(dumped.status, 0) << dumped.output;
  size_t start = dumped.output.find("HloModule");
  ASSERT_NE(start, std::string::npos) << dumped.output;
  size_t end = dumped.output.find("\n}\n", start);
  ASSERT_NE(end, std::string::npos) << dumped.output;
  std::string hlo =
      Write("named.hlo", dumped.output.substr(start, end + 3 - start));
  Outcome from_hlo = Xffi("inspect " + hlo);
  EXPECT_EQ(from_hlo.status, 0) << from_hlo.output;
  EXPECT_THAT(from_hlo.output, HasSubstr(" \"params['w']\": f32[3]\n"));
  EXPECT_THAT(from_hlo.output, HasSubstr("    result 0: f32[3]\n"));
}

// Bounded dimensions as XLA's HLO-to-StableHLO converter writes XLA's
// f32[<=8,4] (jaxlib's hlo_to_stablehlo; JAX's own lowering never writes
// bounds): read as their bounds, so the program runs at them, and the ops
// that would set a size below one are refused with their place.
const char kBoundedProgram[] = R"(module @bounded {
  func.func @main(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<?xf32, #stablehlo.bounds<8>> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>>
    return %1 : tensor<?xf32, #stablehlo.bounds<8>>
  }
}
)";

TEST_F(CliTest, RunsABoundedStableHloProgramAtItsBounds) {
  std::string program = Write("bounded.mlir", kBoundedProgram);
  Outcome shown = Xffi("inspect " + program);
  EXPECT_EQ(shown.status, 0) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr("    parameter 0 %arg0.1: f32[8,4]\n"
                                      "    result 0: f32[8]\n"));
  std::vector<float> x, want(8, 0.0f);
  for (int i = 0; i < 32; ++i) {
    x.push_back(static_cast<float>(i) * 0.5f);
    want[static_cast<size_t>(i / 4)] += 2 * x.back();
  }
  Literal input = Literal::FromBytes(Shape::Array(ElementType::kF32, {8, 4}),
                                     x.data(), x.size() * sizeof(float));
  Outcome outcome =
      Xffi("run " + program + " --input " + WriteNpy("x.npy", input) +
           " --output-dir " + Path("out"));
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  StatusOr<Literal> result = ReadNpyFile(Path("out") + "/result_0.npy");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(F32Values(*result), want);
  // A size below the bound is what reading the bound cannot give.
  Outcome smaller = Xffi("run " + program + " --input " +
                         WriteNpy("small.npy", F32Vector({1, 2, 3, 4})));
  EXPECT_EQ(smaller.status, 1);
  EXPECT_THAT(smaller.output, HasSubstr("parameter 0 is f32[8,4], the file "
                                        "holds f32[4]"));
  std::string sizing = kBoundedProgram;
  sizing.replace(sizing.find("stablehlo.add %arg0, %arg0"),
                 std::string("stablehlo.add %arg0, %arg0").size(),
                 "stablehlo.custom_call @SliceToDynamic(%arg0)");
  Outcome refused = Xffi("run " + Write("sizing.mlir", sizing));
  EXPECT_EQ(refused.status, 1);
  EXPECT_THAT(refused.output,
              HasSubstr("sizing.mlir:4:10: stablehlo.custom_call: "
                        "@SliceToDynamic: 'SliceToDynamic' is not supported"));
}

// Every program of tests/programs/polymorphic (jax.export with symbolic
// dimensions), refined to its inputs' shapes and checked against the
// values exported.call computed.
TEST_F(CliTest, RunsThePolymorphicCorpusAgainstJax) {
  const fs::path folder = fs::path(XFFI_CORPUS_DIR) / "polymorphic";
  int programs = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".mlir") continue;
    const std::string base = (folder / entry.path().stem()).string();
    std::string args = "run " + entry.path().string();
    for (int k = 0; fs::exists(base + ".in_" + std::to_string(k) + ".npy"); ++k)
      args += " --input " + base + ".in_" + std::to_string(k) + ".npy";
    for (int k = 0; fs::exists(base + ".out_" + std::to_string(k) + ".npy");
         ++k)
      args += " --expect " + base + ".out_" + std::to_string(k) + ".npy";
    Outcome outcome = Xffi(args);
    EXPECT_EQ(outcome.status, 0) << entry.path() << "\n" << outcome.output;
    EXPECT_THAT(outcome.output, HasSubstr("PASS: all"));
    ++programs;
  }
  EXPECT_GE(programs, 4);
}

}  // namespace
}  // namespace xffi
