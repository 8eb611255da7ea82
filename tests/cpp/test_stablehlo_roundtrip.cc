// Round trips through the HLO printer: every program of the corpus
// (tests/programs, as JAX printed it) and every parser sample, StableHLO and
// HLO alike, is parsed, printed with PrintHlo and parsed back with ParseHlo;
// the two modules must be the same program (same ops in the same order,
// shapes with layouts, op fields, constants bit for bit, custom-call configs,
// locations), and printing the copy must give the same text again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hlo_test_util.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Case {
  std::string path;
  bool stablehlo;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << fs::path(c.path).filename().string();
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* dir : {"/tests/programs", "/tests/cpp/data/stablehlo",
                          "/tests/cpp/data/hlo"}) {
    std::vector<std::string> paths;
    for (const auto& entry :
         fs::directory_iterator(std::string(XFFI_SOURCE_DIR) + dir)) {
      std::string ext = entry.path().extension().string();
      if (ext == ".mlir" || ext == ".hlo") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const std::string& path : paths)
      cases.push_back({path, fs::path(path).extension() == ".mlir"});
  }
  return cases;
}

// The printer makes names HLO can read ("<lambda>" becomes "_lambda_"), so
// names are compared through their position instead.
void UseCanonicalNames(Module& module) {
  module.set_name("module");
  for (size_t c = 0; c < module.computations().size(); ++c) {
    Computation& computation = *module.computations()[c];
    computation.set_name("c" + std::to_string(c));
    for (size_t i = 0; i < computation.instructions().size(); ++i)
      computation.instructions()[i]->set_name("i" + std::to_string(i));
  }
}

class RoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(RoundTrip, PrintedTextParsesToTheSameProgram) {
  const Case& c = GetParam();
  std::string text = ReadFile(c.path);
  ASSERT_FALSE(text.empty()) << c.path;
  std::string name = fs::path(c.path).filename().string();
  StatusOr<Module> original =
      c.stablehlo ? ParseStableHlo(text, name) : ParseHlo(text, name);
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  std::string printed = PrintHlo(*original);
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString() << "\n" << printed;
  Status verified = VerifyModule(*reparsed);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  std::string reprinted = PrintHlo(*reparsed);
  EXPECT_EQ(reprinted, printed);
  UseCanonicalNames(*original);
  UseCanonicalNames(*reparsed);
  std::string diff = hlo_test::DiffModules(*original, *reparsed);
  EXPECT_EQ(diff, "") << printed;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, RoundTrip, ::testing::ValuesIn(AllCases()),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = fs::path(info.param.path).filename().string();
      std::string dir = fs::path(info.param.path).parent_path().filename();
      std::string out = dir + "_" + name;
      for (char& ch : out)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return out;
    });

TEST(RoundTripCoverage, TheCorpusIsThere) {
  size_t programs = 0;
  for (const Case& c : AllCases())
    if (c.path.find("/tests/programs/") != std::string::npos) ++programs;
  // 35 programs, each as StableHLO and as HLO.
  EXPECT_GE(programs, 70u);
}

}  // namespace
}  // namespace xffi
