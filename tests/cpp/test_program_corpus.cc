// Every program of tests/programs/ (JAX's own StableHLO and HLO text), parsed,
// compiled and executed by xffi, against the outputs JAX computed on the same
// inputs (tests/programs/generate.py wrote both).
//
// Results are compared as `xffi run --expect` does (src/cli/compare.h:
// integers exact, floats within about 100 ulp of f32 / two ulp of the
// 16-bit types, which is why that file explains the tolerances).
//
// Every program must pass. kKnownFailures names the few that cannot yet,
// each with the error it must still give: such a case passes only while it
// fails exactly that way, so a fix (or a different failure) is noticed and
// the entry removed. Nothing is skipped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
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
using ::testing::HasSubstr;

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

struct KnownFailure {
  const char* program;  // NAME.EXT
  const char* error;    // a part of the error it gives today
  const char* why;      // what is missing
};

// Programs that do not run yet, each with the error that shows why.
const std::vector<KnownFailure> kKnownFailures = {};

const KnownFailure* FindKnownFailure(const std::string& program) {
  for (const KnownFailure& known : kKnownFailures) {
    if (program == known.program) return &known;
  }
  return nullptr;
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
  const std::string program = c.name + "." + c.extension;
  std::string error = RunCase(c);
  if (const KnownFailure* known = FindKnownFailure(program)) {
    EXPECT_THAT(error, HasSubstr(known->error))
        << program << " is in kKnownFailures (" << known->why
        << ") but no longer fails that way"
        << (error.empty() ? ": it passes now, remove its entry" : "");
    return;
  }
  EXPECT_EQ(error, "") << program;
}

TEST(ProgramCorpusKnownFailures, NameCorpusPrograms) {
  // An entry for a program that does not exist would hide nothing but
  // would never be noticed either.
  for (const KnownFailure& known : kKnownFailures) {
    EXPECT_TRUE(fs::exists(CorpusPath(known.program))) << known.program;
    EXPECT_STRNE(known.error, "") << known.program;
    EXPECT_STRNE(known.why, "") << known.program;
  }
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
  EXPECT_GE(cases.size(), 124u);
  for (const CorpusCase& c : cases) {
    EXPECT_TRUE(fs::exists(CorpusPath(c.name + "." + c.extension))) << c.name;
    EXPECT_GE(CountFiles(c.name, "out"), 1) << c.name;
  }
  // Issue 3's ops, each as JAX 0.10 prints it in at least one program (the
  // HLO twin of each program holds the same ops under HLO's names).
  std::string all_text;
  for (const CorpusCase& c : cases) {
    if (c.extension == "mlir") all_text += Slurp(CorpusPath(c.name + ".mlir"));
  }
  for (const char* op : {"stablehlo.add",
                         "stablehlo.subtract",
                         "stablehlo.multiply",
                         "stablehlo.divide",
                         "stablehlo.remainder",
                         "stablehlo.power",
                         "stablehlo.maximum",
                         "stablehlo.minimum",
                         "stablehlo.and",
                         "stablehlo.or",
                         "stablehlo.xor",
                         "stablehlo.not",
                         "stablehlo.shift_left",
                         "stablehlo.shift_right_arithmetic",
                         "stablehlo.shift_right_logical",
                         "stablehlo.abs",
                         "stablehlo.negate",
                         "stablehlo.sign",
                         "stablehlo.floor",
                         "stablehlo.ceil",
                         "stablehlo.round_nearest_even",
                         "stablehlo.round_nearest_afz",
                         "stablehlo.exponential",
                         "stablehlo.exponential_minus_one",
                         "stablehlo.log",
                         "stablehlo.log_plus_one",
                         "stablehlo.sqrt",
                         "stablehlo.rsqrt",
                         "stablehlo.cbrt",
                         "stablehlo.tanh",
                         "stablehlo.sine",
                         "stablehlo.cosine",
                         "stablehlo.tan",
                         "stablehlo.atan2",
                         "stablehlo.is_finite",
                         "stablehlo.popcnt",
                         "stablehlo.count_leading_zeros",
                         "stablehlo.compare",
                         "stablehlo.select",
                         "stablehlo.clamp",
                         "stablehlo.convert",
                         "stablehlo.bitcast_convert",
                         "stablehlo.broadcast_in_dim",
                         "stablehlo.reshape",
                         "stablehlo.transpose",
                         "stablehlo.iota",
                         "stablehlo.constant",
                         "stablehlo.slice",
                         "stablehlo.dynamic_slice",
                         "stablehlo.dynamic_update_slice",
                         "stablehlo.concatenate",
                         "stablehlo.pad",
                         "stablehlo.reverse",
                         "stablehlo.dot_general",
                         "stablehlo.reduce",
                         "stablehlo.reduce_window",
                         "stablehlo.sort",
                         "stablehlo.gather",
                         "stablehlo.scatter",
                         "stablehlo.while",
                         "stablehlo.case",
                         "call @",
                         "stablehlo.optimization_barrier",
                         "chlo.erf ",
                         "chlo.erf_inv",
                         "chlo.lgamma",
                         "chlo.digamma",
                         "stablehlo.custom_call",
                         "stablehlo.complex",
                         "tensor<3x6xui8>",
                         "tensor<3x6xi8>",
                         "tensor<3x6xui16>",
                         "tensor<3x6xi16>",
                         "xf64>",
                         "xi64>",
                         "xui64>",
                         "complex<f64>",
                         "xf16>",
                         "xbf16>"}) {
    EXPECT_THAT(all_text, HasSubstr(op));
  }
  // shard_map bodies (sm_*) and the collectives in them.
  for (const char* op :
       {"sdy.manual_computation", "\"stablehlo.all_reduce\"",
        "\"stablehlo.all_gather\"", "\"stablehlo.reduce_scatter\"",
        "\"stablehlo.all_to_all\"", "\"stablehlo.collective_permute\"",
        "stablehlo.partition_id"}) {
    EXPECT_THAT(all_text, HasSubstr(op));
  }
  // Linear algebra (linalg_*): jaxlib's LAPACK targets, built into xffi.
  for (const char* target :
       {"@lapack_sgetrf_ffi", "@lapack_strsm_ffi", "@lapack_spotrf_ffi",
        "@lapack_sgeqrf_ffi", "@lapack_sorgqr_ffi", "@lapack_sgesdd_ffi",
        "@lapack_ssyevd_ffi", "@lapack_sgeev_ffi", "@lapack_sgtsv_ffi",
        "@tridiagonal_solve_perturbed_ffi", "@lapack_dgetrf_ffi",
        "@lapack_cheevd_ffi", "@lapack_cpotrf_ffi"}) {
    EXPECT_THAT(all_text, HasSubstr(target));
  }
  std::string mixed = Slurp(CorpusPath("cc_mixed.mlir"));
  EXPECT_THAT(mixed, ::testing::HasSubstr("stablehlo.custom_call @rms_norm"));
  EXPECT_THAT(mixed, ::testing::HasSubstr("mhlo.backend_config = {eps = "));
  EXPECT_THAT(Slurp(CorpusPath("cc_mixed.hlo")),
              ::testing::HasSubstr("custom_call_target=\"do_custom_call\""));
}

}  // namespace
}  // namespace xffi
