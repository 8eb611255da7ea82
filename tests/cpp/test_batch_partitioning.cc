// The batch-partition pass (src/passes/batch_partitioning.h): in a program
// whose parameter is sharded along its leading dimension, a custom call
// registered as batch partitionable runs once per device on that device's
// block (its frame has the block's shape), and the blocks' results make the
// global result; the same call unregistered, or on an unsharded operand,
// runs once on the whole array. Programs in StableHLO (mhlo.sharding,
// sdy.sharding) and HLO (sharding=), as JAX lowers jax.jit with
// in_shardings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "passes/batch_partitioning.h"
#include "xffi/ffi.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/partitioning.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace bp_test {

std::mutex seen_mutex;
std::vector<std::vector<int64_t>> seen;  // the shape of x at each call

// Every element of the result is the number of rows the call was given.
ffi::Error Rows(ffi::AnyBuffer x, ffi::Result<ffi::Buffer<ffi::S64>> rows) {
  std::vector<int64_t> dims(x.dimensions().begin(), x.dimensions().end());
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(dims);
  }
  std::fill_n(rows->typed_data(), rows->element_count(), dims.at(0));
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(
    kRows, Rows,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::Buffer<ffi::S64>>());

// Each row's sum, and the number of rows the call was given: values that
// depend on the data, to check that padded blocks give the right rows.
ffi::Error RowSums(ffi::Buffer<ffi::F32> x,
                   ffi::Result<ffi::Buffer<ffi::F32>> sums,
                   ffi::Result<ffi::Buffer<ffi::S64>> rows) {
  const int64_t n = x.dimensions()[0];
  const int64_t width = n == 0 ? 0 : x.element_count() / n;
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.emplace_back(x.dimensions().begin(), x.dimensions().end());
  }
  for (int64_t i = 0; i < n; ++i) {
    float sum = 0;
    for (int64_t j = 0; j < width; ++j) sum += x.typed_data()[i * width + j];
    sums->typed_data()[i] = sum;
    rows->typed_data()[i] = n;
  }
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kRowSums, RowSums,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::S64>>());

// Two operands: records both shapes (XLA hands a call every operand split
// as the common batch sharding says, so they have the same blocks), and
// gives each element of its block the block's first index, row-major.
ffi::Error Pair(ffi::AnyBuffer a, ffi::AnyBuffer b,
                ffi::Result<ffi::Buffer<ffi::S64>> out) {
  std::vector<int64_t> dims(a.dimensions().begin(), a.dimensions().end());
  dims.insert(dims.end(), b.dimensions().begin(), b.dimensions().end());
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(dims);
  }
  const float* first = static_cast<const float*>(a.untyped_data());
  std::fill_n(out->typed_data(), out->element_count(),
              static_cast<int64_t>(first[0]));
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kPair, Pair,
                    ffi::Ffi::Bind()
                        .Arg<ffi::AnyBuffer>()
                        .Arg<ffi::AnyBuffer>()
                        .Ret<ffi::Buffer<ffi::S64>>());

void Register() {
  static const bool done = [] {
    XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, kRows, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("bp.rows", "Host", bundle).ok());
    EXPECT_TRUE(xffi::RegisterHandler("bp.whole", "Host", bundle).ok());
    // Called with two batch dimensions (the calls say so).
    EXPECT_TRUE(xffi::RegisterHandler("bp.rows2", "Host", bundle).ok());
    EXPECT_TRUE(xffi::RegisterBatchPartitionable("bp.rows2").ok());
    XLA_FFI_Handler_Bundle pair{nullptr, nullptr, nullptr, kPair, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("bp.pair", "Host", pair).ok());
    EXPECT_TRUE(xffi::RegisterBatchPartitionable("bp.pair").ok());
    XLA_FFI_Handler_Bundle sums{nullptr, nullptr, nullptr, kRowSums, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("bp.row_sums", "Host", sums).ok());
    EXPECT_TRUE(xffi::RegisterBatchPartitionable("bp.row_sums").ok());
    EXPECT_TRUE(xffi::RegisterBatchPartitionable("bp.rows").ok());
    // again: harmless
    EXPECT_TRUE(xffi::RegisterBatchPartitionable("bp.rows").ok());
    return true;
  }();
  (void)done;
}

std::vector<std::vector<int64_t>> TakeSeen() {
  std::lock_guard<std::mutex> lock(seen_mutex);
  std::vector<std::vector<int64_t>> out;
  out.swap(seen);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace bp_test

namespace xffi {
namespace {

using Dims = std::vector<std::vector<int64_t>>;

// What JAX's lowerings write on a call with one batch dimension (XLA reads
// the number from the call).
const char kOneBatchDim[] =
    ", mhlo.frontend_attributes = {num_batch_dims = \"1\"}";

// @main(x: f32[8,3] with `arg_attributes`) -> the call's s64[8] result.
std::string StableHlo(const std::string& target,
                      const std::string& arg_attributes,
                      const std::string& mesh = "",
                      const std::string& call_attributes = kOneBatchDim) {
  return "module @m attributes {mhlo.num_partitions = 4 : i32} {\n" + mesh +
         "  func.func public @main(%x: tensor<8x3xf32> " + arg_attributes +
         ") -> tensor<8xi64> {\n"
         "    %0 = stablehlo.custom_call @" +
         target + "(%x) {api_version = 4 : i32" + call_attributes +
         "} : (tensor<8x3xf32>) -> "
         "tensor<8xi64>\n"
         "    return %0 : tensor<8xi64>\n  }\n}\n";
}

// Parses, compiles and runs `text` (StableHLO or HLO) on `args`.
StatusOr<std::vector<Literal>> RunProgram(const std::string& text,
                                          std::vector<Literal> args) {
  bp_test::Register();
  bp_test::TakeSeen();
  StatusOr<Module> module = ParseProgram(text, "bp.program");
  if (!module.ok()) return module.status();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  if (!exe.ok()) return exe.status();
  return (*exe)->Execute(std::move(args));
}

StatusOr<std::vector<int64_t>> RunRows(const std::string& text,
                                       std::vector<int64_t> x_dims = {8, 3}) {
  StatusOr<std::vector<Literal>> out =
      RunProgram(text, {Literal::FromVector<float>(
                           std::move(x_dims), std::vector<float>(24, 1.0f))});
  if (!out.ok()) return out.status();
  return (*out)[0].ToVector<int64_t>();
}

TEST(BatchPartitioning, RunsOncePerDeviceOnItsBlockUnderGspmdShardings) {
  auto rows = RunRows(
      StableHlo("bp.rows", "{mhlo.sharding = \"{devices=[2,1]<=[2]}\"}"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
}

TEST(BatchPartitioning, ShardyShardingsAndReplicatedDevicesRunToo) {
  // Rows over "b" (2 blocks), replicated over "r": four devices, two blocks.
  // Devices that share a block compute the same values, so one call per
  // block is left of a call without side effects; one with side effects
  // runs on each of the four devices, as under XLA.
  const std::string sharding =
      "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}";
  const std::string mesh = "  sdy.mesh @mesh = <[\"b\"=2, \"r\"=2]>\n";
  auto rows = RunRows(StableHlo("bp.rows", sharding, mesh));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
  rows = RunRows(
      StableHlo("bp.rows", sharding, mesh,
                std::string(kOneBatchDim) + ", has_side_effect = true"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}, {4, 3}, {4, 3}}));
  // Four blocks of rows over both axes.
  rows =
      RunRows(StableHlo("bp.rows",
                        "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\", \"r\"}, "
                        "{}]>}",
                        "  sdy.mesh @mesh = <[\"b\"=2, \"r\"=2]>\n"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 2));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{2, 3}, {2, 3}, {2, 3}, {2, 3}}));
}

TEST(BatchPartitioning, HloParameterShardings) {
  auto rows = RunRows(
      "HloModule m, num_partitions=2\n"
      "ENTRY main {\n"
      "  x = f32[8,3]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}\n"
      "  ROOT c = s64[8]{0} custom-call(x), custom_call_target=\"bp.rows\", "
      "api_version=API_VERSION_TYPED_FFI, "
      "frontend_attributes={num_batch_dims=\"1\"}\n"
      "}\n");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
}

TEST(BatchPartitioning, TheShardingReachesTheCallThroughElementwiseOps) {
  auto rows = RunRows(
      "module @m {\n"
      "  func.func public @main(%x: tensor<8x3xf32> {mhlo.sharding = "
      "\"{devices=[2,1]<=[2]}\"}) -> tensor<8xi64> {\n"
      "    %y = stablehlo.multiply %x, %x : tensor<8x3xf32>\n"
      "    %z = stablehlo.negate %y : tensor<8x3xf32>\n"
      "    %0 = stablehlo.custom_call @bp.rows(%z) {api_version = 4 : i32, "
      "mhlo.frontend_attributes = {num_batch_dims = \"1\"}} : "
      "(tensor<8x3xf32>) -> tensor<8xi64>\n"
      "    return %0 : tensor<8xi64>\n  }\n}\n");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
  // Through a transpose too: the parameter's columns are the call's rows.
  rows = RunRows(
      "module @m {\n"
      "  func.func public @main(%x: tensor<3x8xf32> {mhlo.sharding = "
      "\"{devices=[1,2]<=[2]}\"}) -> tensor<8xi64> {\n"
      "    %y = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x8xf32>) -> "
      "tensor<8x3xf32>\n"
      "    %0 = stablehlo.custom_call @bp.rows(%y) {api_version = 4 : i32, "
      "mhlo.frontend_attributes = {num_batch_dims = \"1\"}} : "
      "(tensor<8x3xf32>) -> tensor<8xi64>\n"
      "    return %0 : tensor<8xi64>\n  }\n}\n",
      {3, 8});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
}

// Under Shardy (the call carries its sdy.sharding_rule, as JAX writes it
// for a batch-partitionable call) a call on a whole operand takes the split
// of the out_sharding its result reaches, through the ops after it, as
// Shardy's propagation gives it (jax 0.10.2, 4 CPU devices: cholesky of
// f32[4,3,3] in P(), out P("x") runs on f32[1,3,3]); under GSPMD (no
// rule) it runs whole, as XLA runs it there.
std::string BackwardProgram(const std::string& rule,
                            const std::string& out_sharding,
                            const std::string& after = "") {
  return "module @m attributes {mhlo.num_partitions = 4 : i32} {\n"
         "  sdy.mesh @mesh = <[\"x\"=4]>\n"
         "  func.func public @main(%x: tensor<8x3xf32> {sdy.sharding = "
         "#sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8xi64> {sdy.sharding = " +
         out_sharding +
         "}) {\n"
         "    %0 = stablehlo.custom_call @bp.rows(%x) {api_version = 4 : i32, "
         "mhlo.frontend_attributes = {num_batch_dims = \"1\"}" +
         rule + "} : (tensor<8x3xf32>) -> tensor<8xi64>\n" + after +
         "    return %1 : tensor<8xi64>\n  }\n}\n";
}

TEST(BatchPartitioning, ShardySplitsACallFromTheResultShardingItReaches) {
  const std::string rule =
      ", sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=8, "
      "j=3}, custom>";
  const std::string split = "#sdy.sharding<@mesh, [{\"x\"}]>";
  // Through an elementwise op, a reshape pair and a transpose-free chain.
  const std::string after =
      "    %a = stablehlo.add %0, %0 : tensor<8xi64>\n"
      "    %r = stablehlo.reshape %a : (tensor<8xi64>) -> tensor<4x2xi64>\n"
      "    %1 = stablehlo.reshape %r : (tensor<4x2xi64>) -> tensor<8xi64>\n";
  StatusOr<std::vector<Literal>> out =
      RunProgram(BackwardProgram(rule, split, after),
                 {Literal::FromVector<float>({8, 3}, std::vector<float>(24))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Each device's call had 2 rows, added to itself.
  EXPECT_EQ((*out)[0].ToVector<int64_t>(), std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{2, 3}, {2, 3}, {2, 3}, {2, 3}}));
  // The rule is kept where XLA's HLO keeps it, and the HLO text splits the
  // same way.
  StatusOr<Module> parsed =
      ParseProgram(BackwardProgram(rule, split,
                                   "    %1 = stablehlo.negate %0 : "
                                   "tensor<8xi64>\n"),
                   "bp.mlir");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string hlo = PrintHlo(*parsed);
  EXPECT_NE(hlo.find("xla.sdy.sharding_rule=\"#sdy.op_sharding_rule<([i, "
                     "j])->([i]) {i=8, j=3}, custom>\""),
            std::string::npos)
      << hlo;
  auto rows = RunRows(hlo);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, -2));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{2, 3}, {2, 3}, {2, 3}, {2, 3}}));

  const std::string negate = "    %1 = stablehlo.negate %0 : tensor<8xi64>\n";
  // GSPMD's text (no rule): whole.
  rows = RunRows(BackwardProgram("", split, negate));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, -8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
  // A replicated out_sharding, or a result reached through an op xffi does
  // not follow back (a reverse): whole.
  rows = RunRows(BackwardProgram(rule, "#sdy.sharding<@mesh, [{}]>", negate));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
  rows = RunRows(BackwardProgram(
      rule, split,
      "    %1 = stablehlo.reverse %0, dims = [0] : tensor<8xi64>\n"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
}

// The walk back from the results visits each value once: a long chain
// whose values each have several users (40 steps of four ops, 3^40 paths)
// splits the call as a short one does, at once.
TEST(BatchPartitioning, ShardyFollowsLongChainsWithManyUsers) {
  const std::string rule =
      ", sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i]) {i=8, "
      "j=3}, custom>";
  std::string chain;
  std::string previous = "%0";
  for (int k = 0; k < 40; ++k) {
    const std::string n = std::to_string(k);
    chain += "    %a" + n + " = stablehlo.add " + previous + ", " + previous +
             " : tensor<8xi64>\n";
    chain += "    %b" + n + " = stablehlo.multiply " + previous + ", %a" + n +
             " : tensor<8xi64>\n";
    chain += "    %d" + n + " = stablehlo.subtract %a" + n + ", " + previous +
             " : tensor<8xi64>\n";
    previous = "%v" + n;
    chain += "    " + previous + " = stablehlo.add %b" + n + ", %d" + n +
             " : tensor<8xi64>\n";
  }
  chain += "    %1 = stablehlo.negate " + previous + " : tensor<8xi64>\n";
  auto rows =
      RunRows(BackwardProgram(rule, "#sdy.sharding<@mesh, [{\"x\"}]>", chain));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{2, 3}, {2, 3}, {2, 3}, {2, 3}}));
}

TEST(BatchPartitioning, OtherCallsAndUnsplitOperandsRunWhole) {
  // Not registered: XLA gathers the operand and runs the call whole.
  auto rows = RunRows(
      StableHlo("bp.whole", "{mhlo.sharding = \"{devices=[2,1]<=[2]}\"}"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
  // Replicated, or split along another dimension only.
  for (const char* sharding :
       {"{mhlo.sharding = \"{replicated}\"}",
        "{mhlo.sharding = \"{devices=[1,2]<=[2]}\"}", ""}) {
    rows = RunRows(StableHlo("bp.rows", sharding));
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, std::vector<int64_t>(8, 8)) << sharding;
    EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}})) << sharding;
  }
}

// 0, 1, 2, ... in `dims`.
Literal Iota(std::vector<int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<float> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return Literal::FromVector<float>(std::move(dims), values);
}

// An HLO module on up to four devices: `computations`, then an entry of `entry`
// lines.
std::string Hlo(const std::string& entry,
                const std::string& computations = "") {
  return "HloModule m, num_partitions=4\n" + computations + "ENTRY main {\n" +
         entry + "}\n";
}

// The line "  `name` = `result` custom-call(`operand`)" of `target`, with
// `num_batch_dims` as its frontend attribute (none when empty).
std::string CallLine(const std::string& name, const std::string& result,
                     const std::string& operand, const std::string& target,
                     const std::string& num_batch_dims = "1") {
  return "  " + name + " = " + result + " custom-call(" + operand +
         "), custom_call_target=\"" + target +
         "\", api_version=API_VERSION_TYPED_FFI" +
         (num_batch_dims.empty() ? ""
                                 : ", frontend_attributes={num_batch_dims=\"" +
                                       num_batch_dims + "\"}") +
         "\n";
}

// An HLO module whose entry takes x: `x_shape` with `sharding` and returns
// bp.rows2's s64 `result_shape` of it.
std::string Rows2Hlo(const std::string& x_shape, const std::string& sharding,
                     const std::string& result_shape) {
  return Hlo("  x = f32" + x_shape + " parameter(0), sharding=" + sharding +
             "\n" +
             CallLine("ROOT c", "s64" + result_shape, "x", "bp.rows2", "2"));
}

TEST(BatchPartitioning, SplitsEveryBatchDimensionTheRegistrationNames) {
  // bp.rows2 has two batch dimensions: either may be split; the third is
  // gathered, as XLA does (jax with 2 CPU devices: f32[4,6,3] sharded on
  // its second dimension reaches the call as f32[4,3,3]).
  struct Case {
    std::string sharding;
    Dims seen;
    int64_t rows;
  };
  for (const Case& c : std::vector<Case>{
           {"{devices=[2,1,1]<=[2]}", {{2, 6, 3}, {2, 6, 3}}, 2},
           {"{devices=[1,2,1]<=[2]}", {{4, 3, 3}, {4, 3, 3}}, 4},
           {"{devices=[2,2,1]<=[4]}", Dims(4, {2, 3, 3}), 2},
           {"{devices=[1,1,2]<=[2]}", {{4, 6, 3}}, 4},
           {"{devices=[2,1,2]<=[4]}", {{2, 6, 3}, {2, 6, 3}}, 2},
       }) {
    auto out =
        RunProgram(Rows2Hlo("[4,6,3]", c.sharding, "[4,6]"), {Iota({4, 6, 3})});
    ASSERT_TRUE(out.ok()) << c.sharding << ": " << out.status().ToString();
    EXPECT_EQ((*out)[0].ToVector<int64_t>(), std::vector<int64_t>(24, c.rows))
        << c.sharding;
    EXPECT_EQ(bp_test::TakeSeen(), c.seen) << c.sharding;
  }
}

TEST(BatchPartitioning, ValuesWithNoMoreDimensionsThanBatchDimensions) {
  // An operand with only batch dimensions does not decide the split (XLA
  // calls it replicated): f32[4,6] under bp.rows2 runs whole.
  auto out = RunProgram(Rows2Hlo("[4,6]", "{devices=[2,1]<=[2]}", "[4,6]"),
                        {Iota({4, 6})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 6}}));
  // Nor does it for one batch dimension: f32[8] under bp.rows.
  out = RunProgram(
      Hlo("  x = f32[8] parameter(0), sharding={devices=[2]<=[2]}\n" +
          CallLine("ROOT c", "s64[8]", "x", "bp.rows")),
      {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<int64_t>(), std::vector<int64_t>(8, 8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8}}));
  // A result with fewer dimensions than batch dimensions: whole.
  out = RunProgram(Rows2Hlo("[4,6,3]", "{devices=[2,1,1]<=[2]}", "[4]"),
                   {Iota({4, 6, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<int64_t>(), std::vector<int64_t>(4, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 6, 3}}));
}

// Row sums of `rows` x 3 iota values, as the whole call computes them.
std::vector<float> WholeRowSums(int64_t rows, int64_t first_row = 0) {
  std::vector<float> sums;
  for (int64_t i = first_row; i < first_row + rows; ++i)
    sums.push_back(static_cast<float>(3 * (3 * i + 1)));
  return sums;
}

TEST(BatchPartitioning, AnUnevenSplitIsPaddedToWholeBlocks) {
  // 8 rows in 3 blocks: every device's block has 3 rows (the last one row
  // of padding), as XLA pads; the results are cut back to 8 rows.
  auto rows = RunRows(
      StableHlo("bp.rows", "{mhlo.sharding = \"{devices=[3,1]<=[3]}\"}"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 3));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{3, 3}, {3, 3}, {3, 3}}));
  // 5 rows of a sharded parameter's 8 (a slice keeps the split, as in XLA:
  // jax with 2 devices runs the call on f32[3,3] blocks), with two results.
  struct Case {
    int64_t start, limit, block;
  };
  for (const Case& c : {Case{0, 5, 3}, Case{1, 8, 4}, Case{0, 1, 1}}) {
    const int64_t n = c.limit - c.start;
    const std::string rows_shape = "[" + std::to_string(n) + "]";
    auto out = RunProgram(
        Hlo("  x = f32[8,3] parameter(0), sharding={devices=[2,1]<=[2]}\n"
            "  y = f32[" +
            std::to_string(n) + ",3] slice(x), slice={[" +
            std::to_string(c.start) + ":" + std::to_string(c.limit) +
            "], [0:3]}\n" +
            CallLine("ROOT c", "(f32" + rows_shape + ", s64" + rows_shape + ")",
                     "y", "bp.row_sums")),
        {Iota({8, 3})});
    ASSERT_TRUE(out.ok()) << n << ": " << out.status().ToString();
    // The root's tuple elements are the program's results.
    const std::vector<Literal>& results = *out;
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].ToVector<float>(), WholeRowSums(n, c.start)) << n;
    EXPECT_EQ(results[1].ToVector<int64_t>(),
              std::vector<int64_t>(static_cast<size_t>(n), c.block))
        << n;
    EXPECT_EQ(bp_test::TakeSeen(), Dims(2, {c.block, 3})) << n;
  }
}

TEST(BatchPartitioning, TheShardingReachesTheCallThroughBroadcastsAndReshapes) {
  // f32[8] split in two, broadcast to f32[8,3]; f32[8,3,2] split in two,
  // reshaped to f32[8,6].
  auto out = RunProgram(
      Hlo("  x = f32[8] parameter(0), sharding={devices=[2]<=[2]}\n"
          "  y = f32[8,3] broadcast(x), dimensions={0}\n" +
          CallLine("ROOT c", "(f32[8], s64[8])", "y", "bp.row_sums")),
      {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> want;
  for (int i = 0; i < 8; ++i) want.push_back(3.0f * static_cast<float>(i));
  EXPECT_EQ((*out).at(0).ToVector<float>(), want);
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
  out = RunProgram(
      Hlo("  x = f32[8,3,2] parameter(0), sharding={devices=[2,1,1]<=[2]}\n"
          "  y = f32[8,6] reshape(x)\n" +
          CallLine("ROOT c", "s64[8]", "y", "bp.rows")),
      {Iota({8, 3, 2})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Each device's call had 2 rows, added to itself.
  EXPECT_EQ((*out)[0].ToVector<int64_t>(), std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 6}, {4, 6}}));
  // Reshapes that merge or split dimensions: followed while each block stays
  // whole rows, as XLA follows them (jax with 2 CPU devices: [4,18] split
  // on rows reaches a call as [8,3,3] blocks of [4,3,3]; [4,2,9] split on
  // its second dimension is gathered first).
  struct Case {
    std::vector<int64_t> x;
    std::string sharding;
    std::vector<int64_t> y;
    Dims seen;
  };
  auto text = [](const std::vector<int64_t>& dims) {
    std::string out = "[";
    for (size_t d = 0; d < dims.size(); ++d)
      out += (d ? "," : "") + std::to_string(dims[d]);
    return out + "]";
  };
  for (const Case& c : std::vector<Case>{
           {{8, 3}, "{devices=[2,1]<=[2]}", {4, 6}, {{2, 6}, {2, 6}}},
           {{4, 6}, "{devices=[2,1]<=[2]}", {8, 3}, {{4, 3}, {4, 3}}},
           {{16, 3}, "{devices=[2,1]<=[2]}", {8, 2, 3}, Dims(2, {4, 2, 3})},
           {{4, 2, 3}, "{devices=[1,2,1]<=[2]}", {8, 3}, {{8, 3}}},
       }) {
    out = RunProgram(
        Hlo("  x = f32" + text(c.x) + " parameter(0), sharding=" + c.sharding +
            "\n  y = f32" + text(c.y) + " reshape(x)\n" +
            CallLine("ROOT c", "s64" + text({c.y[0]}), "y", "bp.rows")),
        {Iota(c.x)});
    ASSERT_TRUE(out.ok()) << text(c.x) << ": " << out.status().ToString();
    EXPECT_EQ(bp_test::TakeSeen(), c.seen) << text(c.x) << " -> " << text(c.y);
  }
}

TEST(BatchPartitioning, CallsInFunctionsLoopBodiesAndBranchesSplit) {
  // In a called function (JAX's nested jax.jit), on a sharded parameter's
  // values: the function is inlined and the call split, as under XLA.
  auto out = RunProgram(
      Hlo("  x = f32[8,3] parameter(0), sharding={devices=[2,1]<=[2]}\n"
          "  ROOT r = (f32[8], s64[8]) call(x), to_apply=callee\n",
          "callee {\n"
          "  p = f32[8,3] parameter(0)\n" +
              CallLine("ROOT c", "(f32[8], s64[8])", "p", "bp.row_sums") +
              "}\n"),
      {Iota({8, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out).at(0).ToVector<float>(), WholeRowSums(8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));

  // In a loop body the state has the sharding of its initial value, and
  // the call splits as XLA splits it (jax with 2 CPU devices: a call in a
  // fori_loop's body runs on f32[4,3,3] blocks of f32[8,3,3]); also when the
  // body calls a function that makes it (XLA inlines first).
  const std::string direct =
      CallLine("c", "(f32[8], s64[8])", "x", "bp.row_sums");
  const std::string through_function =
      "  c = (f32[8], s64[8]) call(x), to_apply=rows_of\n";
  for (const std::string& call : {direct, through_function}) {
    out = RunProgram(
        Hlo("  x = f32[8,3] parameter(0), sharding={devices=[2,1]<=[2]}\n"
            "  zero = s32[] constant(0)\n"
            "  fz = f32[] constant(0)\n"
            "  acc = f32[8] broadcast(fz), dimensions={}\n"
            "  init = (s32[], f32[8,3], f32[8]) tuple(zero, x, acc)\n"
            "  w = (s32[], f32[8,3], f32[8]) while(init), condition=cond, "
            "body=body\n"
            "  ROOT sums = f32[8] get-tuple-element(w), index=2\n",
            "rows_of {\n"
            "  p = f32[8,3] parameter(0)\n" +
                CallLine("ROOT c", "(f32[8], s64[8])", "p", "bp.row_sums") +
                "}\n"
                "cond {\n"
                "  s = (s32[], f32[8,3], f32[8]) parameter(0)\n"
                "  i = s32[] get-tuple-element(s), index=0\n"
                "  two = s32[] constant(2)\n"
                "  ROOT lt = pred[] compare(i, two), direction=LT\n"
                "}\n"
                "body {\n"
                "  s = (s32[], f32[8,3], f32[8]) parameter(0)\n"
                "  i = s32[] get-tuple-element(s), index=0\n"
                "  x = f32[8,3] get-tuple-element(s), index=1\n"
                "  acc = f32[8] get-tuple-element(s), index=2\n" +
                call +
                "  sums = f32[8] get-tuple-element(c), index=0\n"
                "  next = f32[8] add(acc, sums)\n"
                "  one = s32[] constant(1)\n"
                "  j = s32[] add(i, one)\n"
                "  ROOT t = (s32[], f32[8,3], f32[8]) tuple(j, x, next)\n"
                "}\n"),
        {Iota({8, 3})});
    ASSERT_TRUE(out.ok()) << call << out.status().ToString();
    std::vector<float> twice = WholeRowSums(8);
    for (float& v : twice) v *= 2;
    EXPECT_EQ((*out)[0].ToVector<float>(), twice) << call;
    EXPECT_EQ(bp_test::TakeSeen(), Dims(4, {4, 3})) << call;
  }

  // A loop-carried value that starts whole (zeros) and takes the split
  // argument's rows in the body: XLA gives the state the more specific of
  // the two shardings, and the call on it splits (jax 0.10.2 with 2 CPU
  // devices: triangular_solve on a fori_loop carry started with
  // jnp.zeros_like(x) and updated by + x runs on f32[4,4,4] blocks of
  // f32[8,4,4]).
  out = RunProgram(
      Hlo("  x = f32[8,3] parameter(0), sharding={devices=[2,1]<=[2]}\n"
          "  zero = s32[] constant(0)\n"
          "  fz = f32[] constant(0)\n"
          "  carry = f32[8,3] broadcast(fz), dimensions={}\n"
          "  acc = f32[8] broadcast(fz), dimensions={}\n"
          "  init = (s32[], f32[8,3], f32[8,3], f32[8]) tuple(zero, carry, x, "
          "acc)\n"
          "  w = (s32[], f32[8,3], f32[8,3], f32[8]) while(init), "
          "condition=cond, body=body\n"
          "  ROOT sums = f32[8] get-tuple-element(w), index=3\n",
          "cond {\n"
          "  s = (s32[], f32[8,3], f32[8,3], f32[8]) parameter(0)\n"
          "  i = s32[] get-tuple-element(s), index=0\n"
          "  two = s32[] constant(2)\n"
          "  ROOT lt = pred[] compare(i, two), direction=LT\n"
          "}\n"
          "body {\n"
          "  s = (s32[], f32[8,3], f32[8,3], f32[8]) parameter(0)\n"
          "  i = s32[] get-tuple-element(s), index=0\n"
          "  carry = f32[8,3] get-tuple-element(s), index=1\n"
          "  x = f32[8,3] get-tuple-element(s), index=2\n"
          "  acc = f32[8] get-tuple-element(s), index=3\n" +
              CallLine("c", "(f32[8], s64[8])", "carry", "bp.row_sums") +
              "  sums = f32[8] get-tuple-element(c), index=0\n"
              "  next = f32[8] add(acc, sums)\n"
              "  grown = f32[8,3] add(carry, x)\n"
              "  one = s32[] constant(1)\n"
              "  j = s32[] add(i, one)\n"
              "  ROOT t = (s32[], f32[8,3], f32[8,3], f32[8]) tuple(j, grown, "
              "x, "
              "next)\n"
              "}\n"),
      {Iota({8, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Trip 1 sums zeros, trip 2 the argument's rows.
  EXPECT_EQ((*out)[0].ToVector<float>(), WholeRowSums(8));
  EXPECT_EQ(bp_test::TakeSeen(), Dims(4, {4, 3}));

  // In a conditional's branch, on what the conditional passes it (here an
  // array; JAX's branches take a tuple, which the loop above covers).
  const std::string branches =
      Hlo("  x = f32[8,3] parameter(0), sharding={devices=[2,1]<=[2]}\n"
          "  k = s32[] parameter(1)\n"
          "  ROOT r = (f32[8], s64[8]) conditional(k, x, x), "
          "branch_computations={split, twice}\n",
          "split {\n"
          "  p = f32[8,3] parameter(0)\n" +
              CallLine("ROOT c", "(f32[8], s64[8])", "p", "bp.row_sums") +
              "}\n"
              "twice {\n"
              "  p = f32[8,3] parameter(0)\n"
              "  q = f32[8,3] add(p, p)\n" +
              CallLine("ROOT c", "(f32[8], s64[8])", "q", "bp.row_sums", "") +
              "}\n");
  out = RunProgram(branches, {Iota({8, 3}), Literal::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out).at(0).ToVector<float>(), WholeRowSums(8));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
  // The other branch's call has no num_batch_dims: whole.
  out = RunProgram(branches, {Iota({8, 3}), Literal::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
}

// Operands split differently: the split is their shardings merged as
// XLA's FindCommonSharding merges them. Each case's shardings are what JAX
// 0.10.2 lowers for lax.linalg.triangular_solve(a, b) (two batch
// dimensions, a and b f32[8,8,4,4]) with in_shardings on a mesh of 4
// ("x"=2, "y"=2) or 8 ("x", "y", "z" = 2) CPU devices, and each block is
// the one XLA gave lapack_strsm_ffi in the compiled program (GSPMD and
// Shardy alike).
TEST(BatchPartitioning, DifferentlySplitOperandsMergeAsXlaMergesThem) {
  struct Case {
    int devices;
    const char *a, *b;  // their mhlo.sharding
    std::vector<int64_t> block;
  };
  const char* rows_x4 = "{devices=[2,1,1,1,2]<=[4] last_tile_dim_replicate}";
  const char* rows_x8 = "{devices=[2,1,1,1,4]<=[8] last_tile_dim_replicate}";
  const std::vector<Case> cases = {
      // ("x"), (None, "y"): split on both.
      {4,
       rows_x4,
       "{devices=[1,2,1,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {4, 4}},
      // ("x"), (None, "x"): one axis cannot split both: a's split.
      {4,
       rows_x4,
       "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}",
       {4, 8}},
      // ("x"), (): a replicated operand after a split one: the first's.
      {4, rows_x4, "{replicated}", {4, 8}},
      {4,
       "{replicated}",
       "{devices=[2,1,1,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {4, 8}},
      // (None, None, "x"): a's batch dimensions are whole: b's split.
      {4,
       "{devices=[1,1,2,1,2]<=[4] last_tile_dim_replicate}",
       "{devices=[2,1,1,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {4, 8}},
      // ("x", "y") uses every device: nothing merges into it.
      {4,
       "{devices=[2,2,1,1]<=[4]}",
       "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}",
       {4, 4}},
      {8,
       rows_x8,
       "{devices=[1,2,1,1,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}",
       {4, 4}},
      {8,
       rows_x8,
       "{devices=[2,2,1,1,2]<=[8] last_tile_dim_replicate}",
       {4, 4}},
      {8,
       "{devices=[2,2,1,1,2]<=[8] last_tile_dim_replicate}",
       rows_x8,
       {4, 4}},
      // ("x"), ("y"): the same count of blocks on other devices: a's.
      {8,
       rows_x8,
       "{devices=[2,1,1,1,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}",
       {4, 8}},
      {8,
       "{devices=[1,2,1,1,4]<=[8] last_tile_dim_replicate}",
       "{devices=[2,1,1,1,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}",
       {4, 4}},
      {8,
       rows_x8,
       "{devices=[1,2,1,1,4]<=[8] last_tile_dim_replicate}",
       {4, 8}},
      // (("x", "y")), (None, "z"); ("x"), (None, ("y", "z")).
      {8,
       "{devices=[4,1,1,1,2]<=[8] last_tile_dim_replicate}",
       "{devices=[1,2,1,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
       {2, 4}},
      {8,
       rows_x8,
       "{devices=[1,4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}",
       {4, 2}},
      {8,
       "{devices=[2,1,1,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
       "{devices=[1,2,1,1,4]<=[8] last_tile_dim_replicate}",
       {4, 4}},
  };
  std::vector<float> a(8 * 8 * 4 * 4);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i / 16);  // the batch index, row-major
  for (const Case& c : cases) {
    const std::string text =
        "module @m attributes {mhlo.num_partitions = " +
        std::to_string(c.devices) +
        " : i32} {\n"
        "  func.func public @main(%a: tensor<8x8x4x4xf32> {mhlo.sharding = \"" +
        c.a + "\"}, %b: tensor<8x8x4x4xf32> {mhlo.sharding = \"" + c.b +
        "\"}) -> tensor<8x8xi64> {\n"
        "    %0 = stablehlo.custom_call @bp.pair(%a, %b) {api_version = 4 : "
        "i32, mhlo.frontend_attributes = {num_batch_dims = \"2\"}} : "
        "(tensor<8x8x4x4xf32>, tensor<8x8x4x4xf32>) -> tensor<8x8xi64>\n"
        "    return %0 : tensor<8x8xi64>\n  }\n}\n";
    StatusOr<std::vector<Literal>> out =
        RunProgram(text, {Literal::FromVector<float>({8, 8, 4, 4}, a),
                          Literal::FromVector<float>(
                              {8, 8, 4, 4}, std::vector<float>(a.size(), 1))});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const std::vector<int64_t> block = {c.block[0], c.block[1], 4, 4};
    std::vector<int64_t> both = block;
    both.insert(both.end(), block.begin(), block.end());
    const size_t blocks = static_cast<size_t>(64 / (c.block[0] * c.block[1]));
    EXPECT_EQ(bp_test::TakeSeen(), Dims(blocks, both)) << c.a << " " << c.b;
    // Every element holds the first batch index of its block.
    const std::vector<int64_t> got = (*out)[0].ToVector<int64_t>();
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 8; ++j)
        EXPECT_EQ(got[static_cast<size_t>(i * 8 + j)],
                  i / c.block[0] * c.block[0] * 8 + j / c.block[1] * c.block[1])
            << c.a << " " << c.b << " at " << i << "," << j;
  }
}

TEST(BatchPartitioning, TheRegistryKeepsNames) {
  bp_test::Register();
  EXPECT_TRUE(IsBatchPartitionable("bp.rows"));
  EXPECT_FALSE(IsBatchPartitionable("bp.whole"));
  std::vector<std::string> names = ListBatchPartitionable();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::count(names.begin(), names.end(), "bp.rows"), 1);
  Status bad = RegisterBatchPartitionable("");
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(), ::testing::HasSubstr("the target name is empty"));
}

TEST(BatchPartitioning, TheCallsFrontendAttributeGivesItsBatchDimensions) {
  // XLA reads num_batch_dims from each call as absl::SimpleAtoi reads a
  // number; absent, not a number, or below 1: the call runs whole.
  struct Case {
    std::string num_batch_dims;
    Dims seen;
  };
  for (const Case& c : std::vector<Case>{
           {"", {{4, 6, 3}}},
           {"0", {{4, 6, 3}}},
           {"-1", {{4, 6, 3}}},
           {"two", {{4, 6, 3}}},
           {"1x", {{4, 6, 3}}},
           {"1", {{2, 6, 3}, {2, 6, 3}}},
           {" +1 ", {{2, 6, 3}, {2, 6, 3}}},
           {"2", Dims(4, {2, 3, 3})},
       }) {
    auto out = RunProgram(
        Hlo("  x = f32[4,6,3] parameter(0), sharding={devices=[2,2,1]<=[4]}\n" +
            CallLine("ROOT c", "s64[4,6]", "x", "bp.rows2", c.num_batch_dims)),
        {Iota({4, 6, 3})});
    ASSERT_TRUE(out.ok()) << c.num_batch_dims << ": "
                          << out.status().ToString();
    EXPECT_EQ(bp_test::TakeSeen(), c.seen) << "'" << c.num_batch_dims << "'";
  }
}

TEST(BatchPartitioning, ThePassSaysWhetherItChangedTheModule) {
  bp_test::Register();
  StatusOr<Module> module = ParseProgram(
      StableHlo("bp.rows", "{mhlo.sharding = \"{devices=[4,1]<=[4]}\"}"),
      "bp.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  StatusOr<bool> changed = passes::BatchPartitioning().Run(*module);
  ASSERT_TRUE(changed.ok() && *changed);
  int manual = 0;
  for (const auto& c : module->computations())
    for (const auto& inst : c->instructions())
      manual += inst->opcode() == Opcode::kManualComputation;
  EXPECT_EQ(manual, 1);
  EXPECT_TRUE(VerifyModule(*module).ok());
  changed = passes::BatchPartitioning().Run(*module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);  // the call now lives in the body
}

}  // namespace
}  // namespace xffi
