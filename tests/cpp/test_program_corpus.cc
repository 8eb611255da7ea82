// Every program of tests/programs/ (JAX's own StableHLO and HLO text), parsed,
// compiled and executed by xffi, against the outputs JAX computed on the same
// inputs (tests/programs/generate.py wrote both).
//
// Results are compared as `xffi run --expect` does (src/cli/compare.h:
// integers exact, floats within about 100 ulp of f32 / two ulp of the
// 16-bit types, which is why that file explains the tolerances).
//
// tests/programs/known_failures.txt lists "NAME.EXT reason" for programs
// xffi cannot run yet; those are skipped with the reason and the error they
// give, so the list stays honest: one that starts passing shows as passing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "cli/npy.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/plugin.h"

namespace xffi {
namespace {

namespace fs = std::filesystem;

struct CorpusCase {
  std::string name;       // the program, e.g. "softmax"
  std::string extension;  // "mlir" or "hlo"
};

void PrintTo(const CorpusCase& c, std::ostream* os) {
  *os << c.name << "." << c.extension;
}

std::vector<CorpusCase> AllCases() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(XFFI_CORPUS_DIR)) {
    if (entry.path().extension() == ".mlir") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  std::vector<CorpusCase> cases;
  for (const std::string& name : names) {
    cases.push_back({name, "mlir"});
    cases.push_back({name, "hlo"});
  }
  return cases;
}

std::string CorpusPath(const std::string& file) {
  return (fs::path(XFFI_CORPUS_DIR) / file).string();
}

std::string Slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

// Counts NAME.KIND_0.npy, NAME.KIND_1.npy, ... that exist.
int CountFiles(const std::string& name, const std::string& kind) {
  int count = 0;
  while (fs::exists(
      CorpusPath(name + "." + kind + "_" + std::to_string(count) + ".npy"))) {
    ++count;
  }
  return count;
}

// "" when the program runs and matches JAX's outputs, else what went wrong.
std::string RunCase(const CorpusCase& c) {
  const std::string path = CorpusPath(c.name + "." + c.extension);
  StatusOr<Module> module = ParseProgram(Slurp(path), path);
  if (!module.ok()) return "parse: " + module.status().ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  if (!exe.ok()) return "compile: " + exe.status().ToString();

  const std::vector<Shape>& parameters = (*exe)->parameter_shapes();
  int inputs = CountFiles(c.name, "in");
  if (parameters.size() != static_cast<size_t>(inputs)) {
    return std::to_string(parameters.size()) + " parameters, " +
           std::to_string(inputs) + " input files";
  }
  std::vector<Literal> arguments;
  for (int k = 0; k < inputs; ++k) {
    StatusOr<Literal> input =
        ReadNpyFile(CorpusPath(c.name + ".in_" + std::to_string(k) + ".npy"),
                    parameters[k].element_type());
    if (!input.ok()) return input.status().ToString();
    arguments.push_back(std::move(*input));
  }

  StatusOr<std::vector<Literal>> results = (*exe)->Execute(arguments);
  if (!results.ok()) return "execute: " + results.status().ToString();
  int outputs = CountFiles(c.name, "out");
  if (results->size() != static_cast<size_t>(outputs)) {
    return std::to_string(results->size()) + " results, " +
           std::to_string(outputs) + " expected";
  }
  std::string errors;
  for (int k = 0; k < outputs; ++k) {
    const Literal& got = (*results)[k];
    StatusOr<Literal> want =
        ReadNpyFile(CorpusPath(c.name + ".out_" + std::to_string(k) + ".npy"),
                    got.shape().element_type());
    if (!want.ok()) return want.status().ToString();
    Comparison comparison = CompareLiterals(got, *want);
    if (!comparison.ok) {
      errors += "result " + std::to_string(k) + ": " + comparison.detail + "\n";
    }
  }
  return errors;
}

// NAME.EXT -> reason, from known_failures.txt ('#' starts a comment).
std::map<std::string, std::string> KnownFailures() {
  std::map<std::string, std::string> known;
  std::istringstream lines(Slurp(CorpusPath("known_failures.txt")));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find(' ');
    known[line.substr(0, space)] =
        space == std::string::npos ? "" : line.substr(space + 1);
  }
  return known;
}

class ProgramCorpusTest : public ::testing::TestWithParam<CorpusCase> {
 protected:
  static void SetUpTestSuite() {
    for (const char* path :
         {XFFI_EXAMPLE_RMS_NORM, XFFI_EXAMPLE_DO_CUSTOM_CALL}) {
      auto plugin = Plugin::Load(path);
      ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
    }
  }
};

TEST_P(ProgramCorpusTest, MatchesJax) {
  const CorpusCase& c = GetParam();
  std::string error = RunCase(c);
  if (error.empty()) return;
  static const std::map<std::string, std::string> known = KnownFailures();
  auto it = known.find(c.name + "." + c.extension);
  if (it != known.end()) {
    GTEST_SKIP() << "known failure (" << it->second << "): " << error;
  }
  FAIL() << error;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ProgramCorpusTest,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<CorpusCase>& info) {
                           return info.param.name + "_" + info.param.extension;
                         });

TEST(ProgramCorpusContents, CoversTheIssuesOps) {
  // The generator ran: every program has both texts and at least one input
  // and output, and the custom-call programs hold real custom calls.
  std::vector<CorpusCase> cases = AllCases();
  EXPECT_GE(cases.size(), 60u);
  for (const CorpusCase& c : cases) {
    EXPECT_TRUE(fs::exists(CorpusPath(c.name + "." + c.extension))) << c.name;
    EXPECT_GE(CountFiles(c.name, "out"), 1) << c.name;
  }
  std::string mixed = Slurp(CorpusPath("cc_mixed.mlir"));
  EXPECT_THAT(mixed, ::testing::HasSubstr("stablehlo.custom_call @rms_norm"));
  EXPECT_THAT(mixed, ::testing::HasSubstr("mhlo.backend_config = {eps = "));
  EXPECT_THAT(Slurp(CorpusPath("cc_mixed.hlo")),
              ::testing::HasSubstr("custom_call_target=\"do_custom_call\""));
}

}  // namespace
}  // namespace xffi
