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

void Register() {
  static const bool done = [] {
    XLA_FFI_Handler_Bundle bundle{nullptr, nullptr, nullptr, kRows, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("bp.rows", "Host", bundle).ok());
    EXPECT_TRUE(xffi::RegisterHandler("bp.whole", "Host", bundle).ok());
    xffi::RegisterBatchPartitionable("bp.rows");
    xffi::RegisterBatchPartitionable("bp.rows");  // again: harmless
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

// @main(x: f32[8,3] with `arg_attributes`) -> the call's s64[8] result.
std::string StableHlo(const std::string& target,
                      const std::string& arg_attributes,
                      const std::string& mesh = "",
                      const std::string& call_attributes = "") {
  return "module @m attributes {mhlo.num_partitions = 4 : i32} {\n" + mesh +
         "  func.func public @main(%x: tensor<8x3xf32> " + arg_attributes +
         ") -> tensor<8xi64> {\n"
         "    %0 = stablehlo.custom_call @" +
         target + "(%x) {api_version = 4 : i32" + call_attributes +
         "} : (tensor<8x3xf32>) -> "
         "tensor<8xi64>\n"
         "    return %0 : tensor<8xi64>\n  }\n}\n";
}

StatusOr<std::vector<int64_t>> RunRows(const std::string& text,
                                       std::vector<int64_t> x_dims = {8, 3}) {
  bp_test::Register();
  bp_test::TakeSeen();
  StatusOr<Module> module = ParseProgram(text, "bp.mlir");
  if (!module.ok()) return module.status();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  if (!exe.ok()) return exe.status();
  std::vector<float> x(24, 1.0f);
  StatusOr<std::vector<Literal>> out =
      (*exe)->Execute({Literal::FromVector<float>(std::move(x_dims), x)});
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
  rows =
      RunRows(StableHlo("bp.rows", sharding, mesh, ", has_side_effect = true"));
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
      "api_version=API_VERSION_TYPED_FFI\n"
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
      "    %0 = stablehlo.custom_call @bp.rows(%z) {api_version = 4 : i32} : "
      "(tensor<8x3xf32>) -> tensor<8xi64>\n"
      "    return %0 : tensor<8xi64>\n  }\n}\n");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, std::vector<int64_t>(8, 4));
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{4, 3}, {4, 3}}));
  // Not through a transpose (XLA's propagation would; xffi's does not).
  rows = RunRows(
      "module @m {\n"
      "  func.func public @main(%x: tensor<3x8xf32> {mhlo.sharding = "
      "\"{devices=[2,1]<=[2]}\"}) -> tensor<8xi64> {\n"
      "    %y = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x8xf32>) -> "
      "tensor<8x3xf32>\n"
      "    %0 = stablehlo.custom_call @bp.rows(%y) {api_version = 4 : i32} : "
      "(tensor<8x3xf32>) -> tensor<8xi64>\n"
      "    return %0 : tensor<8xi64>\n  }\n}\n",
      {3, 8});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
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
  // Three blocks do not divide 8 rows (XLA would pad): whole.
  rows = RunRows(
      StableHlo("bp.rows", "{mhlo.sharding = \"{devices=[3,1]<=[3]}\"}"));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(bp_test::TakeSeen(), (Dims{{8, 3}}));
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
