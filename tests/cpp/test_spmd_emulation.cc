// The spmd-emulation pass (src/passes/spmd_emulation.h): shard_map programs
// in StableHLO text (sdy.manual_computation and the collectives in its
// body), in HLO text (the xla.sdy.* custom calls around a call of the body,
// HLO's collectives), in GSPMD's form and built in C++ run on one CPU: each
// device's copy of the body side by side, the collectives as plain ops over
// the copies. The JAX programs of tests/programs/sm_* check the values
// against JAX on four devices; these hand-written ones check the rules one
// at a time, what the rewritten program holds, and every error with its
// line:column. The readers leave the manual computations and collectives
// as ops; Compile verifies the module and runs the pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "passes/spmd_emulation.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

// A module with one mesh and a @main of the given signature and body.
std::string Program(const std::string& mesh, const std::string& signature,
                    const std::string& body) {
  return "module @m attributes {mhlo.num_partitions = 4 : i32} {\n"
         "  sdy.mesh @mesh = " +
         mesh + "\n  func.func public @main" + signature + " {\n" + body +
         "  }\n}\n";
}

// Compiles (the emulation runs there) and runs a module the verifier must
// accept.
StatusOr<std::vector<Literal>> RunModule(Module module,
                                         std::vector<Literal> arguments) {
  Status verified = VerifyModule(module);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(module));
  if (!exe.ok()) return exe.status();
  return (*exe)->Execute(arguments);
}

// StableHLO or HLO text (ParseProgram tells them apart), named `source` in
// messages.
StatusOr<std::vector<Literal>> RunProgram(
    const std::string& text, std::vector<Literal> arguments,
    const std::string& source = "sm.mlir") {
  StatusOr<Module> module = ParseProgram(text, source);
  if (!module.ok()) return module.status();
  return RunModule(std::move(*module), std::move(arguments));
}

// The first error on the way to an executable: the reader's, the
// verifier's or the compiler's (the emulation's among them).
std::string ErrorOf(const std::string& text,
                    const std::string& source = "sm.mlir") {
  StatusOr<Module> module = ParseProgram(text, source);
  if (!module.ok()) return module.status().message();
  Status verified = VerifyModule(*module);
  if (!verified.ok()) return verified.message();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  EXPECT_FALSE(exe.ok()) << text;
  return exe.ok() ? "" : exe.status().message();
}

int CountOpcode(const Module& module, Opcode opcode) {
  int count = 0;
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions())
      if (inst->opcode() == opcode) ++count;
  return count;
}

// The module after the pass, which must have had something to do.
Module Emulated(Module module) {
  StatusOr<bool> changed = passes::SpmdEmulation().Run(module);
  EXPECT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(changed.ok() && *changed);
  Status verified = VerifyModule(module);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  return module;
}

Literal Iota(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = float(i);
  return Literal::FromVector<float>(std::move(dims), values);
}

std::vector<float> Values(const Literal& literal) {
  return literal.ToVector<float>();
}

int CountTarget(const Module& module, const std::string& target) {
  int count = 0;
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions())
      if (inst->opcode() == Opcode::kCustomCall &&
          inst->custom_call.target == target)
        ++count;
  return count;
}

// A body over f32[8] split in 4 blocks of 2 along "x".
std::string RowsProgram(const std::string& body_ops,
                        const std::string& out_sharding = "[{\"x\"}]",
                        const std::string& result = "tensor<8xf32>") {
  return Program("<[\"x\"=4]>", "(%arg0: tensor<8xf32>) -> " + result,
                 "    %0 = sdy.manual_computation(%arg0) "
                 "in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, " +
                     out_sharding +
                     ">] manual_axes={\"x\"} (%v: tensor<2xf32>) {\n" +
                     body_ops + "    } : (tensor<8xf32>) -> " + result +
                     "\n"
                     "    return %0 : " +
                     result + "\n");
}

const char kAllReduceAdd[] =
    "      %s = \"stablehlo.all_reduce\"(%v) <{channel_handle = "
    "#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = "
    "dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({\n"
    "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "        %r = stablehlo.add %a, %b : tensor<f32>\n"
    "        stablehlo.return %r : tensor<f32>\n"
    "      }) : (tensor<2xf32>) -> tensor<2xf32>\n";

TEST(SpmdEmulation, AllReduceSumsTheBlocksOfEveryDevice) {
  std::string text = RowsProgram(std::string(kAllReduceAdd) +
                                 "      sdy.return %s : tensor<2xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Blocks [0,1] [2,3] [4,5] [6,7]: sums 12 and 16, on every device.
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{12, 16, 12, 16, 12, 16, 12, 16}));
}

TEST(SpmdEmulation, NoPlaceholderSurvivesAndCallsRunOncePerDevice) {
  std::string text = RowsProgram(
      "      %c = stablehlo.custom_call @t.scale(%v) {api_version = 4 : i32} "
      ": (tensor<2xf32>) -> tensor<2xf32>\n" +
      std::string(kAllReduceAdd) + "      sdy.return %c : tensor<2xf32>\n");
  StatusOr<Module> parsed = ParseStableHlo(text, "sm.mlir");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  // The reader keeps the ops as the text has them.
  EXPECT_EQ(CountOpcode(*parsed, Opcode::kManualComputation), 1);
  EXPECT_EQ(CountOpcode(*parsed, Opcode::kAllReduce), 1);
  EXPECT_EQ(CountTarget(*parsed, "t.scale"), 1);
  Module module = Emulated(std::move(*parsed));
  EXPECT_EQ(CountTarget(module, "t.scale"), 4);
  EXPECT_EQ(CountOpcode(module, Opcode::kManualComputation), 0);
  EXPECT_EQ(CountOpcode(module, Opcode::kAllReduce), 0);
  // Only @main is left: the body was expanded into it.
  ASSERT_EQ(module.computations().size(), 1u);
}

TEST(SpmdEmulation, PartitionIdIsEachDevicesPosition) {
  std::string text = RowsProgram(
      "      %p = stablehlo.partition_id : tensor<ui32>\n"
      "      %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "      %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> "
      "tensor<2xf32>\n"
      "      %y = stablehlo.multiply %v, %b : tensor<2xf32>\n"
      "      sdy.return %y : tensor<2xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 0, 2, 3, 8, 10, 18, 21}));
}

TEST(SpmdEmulation, DeviceIdsOfTheMeshNumberThePartitions) {
  // Mesh position p holds device device_ids[p]; partition_id is the id.
  std::string text = Program(
      "<[\"x\"=4], device_ids=[3, 2, 1, 0]>",
      "(%arg0: tensor<8xf32>) -> tensor<8xf32>",
      "    %0 = sdy.manual_computation(%arg0) "
      "in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{\"x\"}]>] "
      "manual_axes={\"x\"} (%v: tensor<2xf32>) {\n"
      "      %p = stablehlo.partition_id : tensor<ui32>\n"
      "      %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "      %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> "
      "tensor<2xf32>\n"
      "      sdy.return %b : tensor<2xf32>\n"
      "    } : (tensor<8xf32>) -> tensor<8xf32>\n"
      "    return %0 : tensor<8xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{3, 3, 2, 2, 1, 1, 0, 0}));
}

TEST(SpmdEmulation, CollectivePermuteSendsZerosWhereNoSourceIs) {
  std::string text = RowsProgram(
      "      %s = \"stablehlo.collective_permute\"(%v) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs "
      "= dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : "
      "(tensor<2xf32>) -> tensor<2xf32>\n"
      "      sdy.return %s : tensor<2xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 0, 0, 1, 2, 3, 4, 5}));
}

TEST(SpmdEmulation, GroupsAlongOneAxisOfATwoByTwoMesh) {
  // Mesh a=2 x b=2; devices 0,1 share a=0. Groups {0,2} and {1,3} reduce
  // along "a"; the result is split over "b" only.
  std::string text = Program(
      "<[\"a\"=2, \"b\"=2]>", "(%arg0: tensor<4x2xf32>) -> tensor<2x2xf32>",
      "    %0 = sdy.manual_computation(%arg0) "
      "in_shardings=[<@mesh, [{\"a\"}, {\"b\"}]>] "
      "out_shardings=[<@mesh, [{}, {\"b\"}]>] "
      "manual_axes={\"a\", \"b\"} (%v: tensor<2x1xf32>) {\n"
      "      %s = \"stablehlo.all_reduce\"(%v) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = "
      "dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> "
      "({\n"
      "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "        %r = stablehlo.maximum %a, %b : tensor<f32>\n"
      "        stablehlo.return %r : tensor<f32>\n"
      "      }) : (tensor<2x1xf32>) -> tensor<2x1xf32>\n"
      "      sdy.return %s : tensor<2x1xf32>\n"
      "    } : (tensor<4x2xf32>) -> tensor<2x2xf32>\n"
      "    return %0 : tensor<2x2xf32>\n");
  // x = [[0,1],[2,3],[4,5],[6,7]]: device (a,b) holds rows 2a..2a+1 of
  // column b; the maximum over a is rows 2..3.
  auto out = RunProgram(text, {Iota({4, 2})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 5, 6, 7}));
}

TEST(SpmdEmulation, WithoutAChannelEachDeviceIsItsOwnGroup) {
  // Cross-replica: xffi runs one replica, so nothing is combined.
  std::string text = RowsProgram(
      "      %s = \"stablehlo.all_reduce\"(%v) <{replica_groups = "
      "dense<[[0]]> : tensor<1x1xi64>}> ({\n"
      "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "        %r = stablehlo.add %a, %b : tensor<f32>\n"
      "        stablehlo.return %r : tensor<f32>\n"
      "      }) : (tensor<2xf32>) -> tensor<2xf32>\n"
      "      sdy.return %s : tensor<2xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(SpmdEmulation, ShardingAnnotationsAndAttributesPassThrough) {
  std::string text = Program(
      "<[\"x\"=4]> {stablehlo.mesh = {axes = []}}",
      "(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, "
      "[{\"x\", ?}p1]>}) -> (tensor<8xf32> {sdy.sharding = "
      "#sdy.sharding<@mesh, [{?}]>})",
      "    %c = sdy.sharding_constraint %arg0 <@mesh, [{\"x\"}]> : "
      "tensor<8xf32>\n"
      "    %0 = sdy.manual_computation(%c) "
      "in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{\"x\"}]>] "
      "manual_axes={\"x\"} (%v: tensor<2xf32>) {\n"
      "      sdy.return %v : tensor<2xf32>\n"
      "    } : (tensor<8xf32>) -> tensor<8xf32>\n"
      "    return %0 : tensor<8xf32>\n");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(SpmdEmulation, ACollectiveOutsideAManualComputationIsAnError) {
  std::string text = "func.func @main(%v: tensor<2xf32>) -> tensor<2xf32> {\n" +
                     std::string(kAllReduceAdd) +
                     "  return %s : tensor<2xf32>\n}\n";
  EXPECT_THAT(ErrorOf(text),
              HasSubstr("sm.mlir:2:7: stablehlo.all_reduce: only supported "
                        "inside an sdy.manual_computation"));
}

TEST(SpmdEmulation, ACollectiveInsideACaseBranchIsAnError) {
  std::string text = RowsProgram(
      "      %i = stablehlo.constant dense<0> : tensor<i32>\n"
      "      %s = \"stablehlo.case\"(%i) ({\n"
      "        %p = stablehlo.partition_id : tensor<ui32>\n"
      "        %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "        %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) "
      "-> tensor<2xf32>\n"
      "        stablehlo.return %b : tensor<2xf32>\n"
      "      }) : (tensor<i32>) -> tensor<2xf32>\n"
      "      sdy.return %s : tensor<2xf32>\n");
  EXPECT_THAT(ErrorOf(text),
              HasSubstr("sm.mlir:6:7: conditional: a collective or "
                        "partition_id inside its region is not supported"));
}

TEST(SpmdEmulation, ShardingErrorsNameTheValueAndTheRule) {
  // Unknown mesh.
  std::string unknown = RowsProgram("      sdy.return %v : tensor<2xf32>\n");
  unknown.replace(unknown.find("[<@mesh"), 7, "[<@nope");
  EXPECT_THAT(ErrorOf(unknown),
              HasSubstr("sm.mlir:4:54: sharding names mesh @nope, which is "
                        "not defined"));
  // A dimension that does not split evenly.
  std::string uneven =
      Program("<[\"x\"=4]>", "(%arg0: tensor<6xf32>) -> tensor<6xf32>",
              "    %0 = sdy.manual_computation(%arg0) "
              "in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{}]>] "
              "manual_axes={\"x\"} (%v: tensor<2xf32>) {\n"
              "      sdy.return %v : tensor<2xf32>\n"
              "    } : (tensor<6xf32>) -> tensor<6xf32>\n"
              "    return %0 : tensor<6xf32>\n");
  std::string error = ErrorOf(uneven);
  EXPECT_THAT(error, HasSubstr("sm.mlir:4:5"));
  EXPECT_THAT(error, HasSubstr("operand 0 (f32[6]): dimension 0 does not "
                               "split into 4 equal blocks"));
  // The body takes another block shape than the sharding makes.
  std::string mismatch = RowsProgram("      sdy.return %v : tensor<4xf32>\n");
  mismatch.replace(mismatch.find("(%v: tensor<2xf32>)"), 19,
                   "(%v: tensor<4xf32>)");
  EXPECT_THAT(ErrorOf(mismatch),
              HasSubstr("operand 0 (f32[8]) splits into blocks of f32[2], "
                        "the body takes f32[4]"));
  // A manual axis the mesh does not have.
  std::string axis = RowsProgram("      sdy.return %v : tensor<2xf32>\n");
  axis.replace(axis.find("manual_axes={\"x\"}"), 17, "manual_axes={\"y\"}");
  EXPECT_THAT(ErrorOf(axis),
              HasSubstr("manual axis \"y\" is not an axis of the mesh"));
  // Sub-axes are not read.
  std::string sub = RowsProgram("      sdy.return %v : tensor<2xf32>\n");
  sub.replace(sub.find("[<@mesh, [{\"x\"}]>]"), 19,
              "[<@mesh, [{\"x\":(1)2}]>]");
  EXPECT_THAT(ErrorOf(sub),
              HasSubstr("sm.mlir:4:67: sub-axis shardings (\"axis\":(k)n) "
                        "are not supported"));
}

TEST(SpmdEmulation, CollectiveAttributeErrors) {
  // A region that is not one foldable elementwise op.
  std::string subtract = RowsProgram(std::string(kAllReduceAdd) +
                                     "      sdy.return %s : tensor<2xf32>\n");
  subtract.replace(subtract.find("stablehlo.add %a"), 13, "stablehlo.subtract");
  EXPECT_THAT(ErrorOf(subtract),
              HasSubstr("sm.mlir:5:7: stablehlo.all_reduce: the reduction "
                        "region must return"));
  // Replica ids other than 0 without a channel.
  std::string replicas = RowsProgram(
      "      %s = \"stablehlo.all_reduce\"(%v) <{replica_groups = "
      "dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n"
      "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "        %r = stablehlo.add %a, %b : tensor<f32>\n"
      "        stablehlo.return %r : tensor<f32>\n"
      "      }) : (tensor<2xf32>) -> tensor<2xf32>\n"
      "      sdy.return %s : tensor<2xf32>\n");
  EXPECT_THAT(ErrorOf(replicas),
              HasSubstr("replica_groups names replica 1; xffi runs programs "
                        "with one replica"));
  // A device left out of the groups.
  std::string missing = RowsProgram(std::string(kAllReduceAdd) +
                                    "      sdy.return %s : tensor<2xf32>\n");
  missing.replace(missing.find("dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"), 39,
                  "dense<[[0, 1, 2]]> : tensor<1x3xi64>");
  EXPECT_THAT(ErrorOf(missing),
              HasSubstr("stablehlo.all_reduce: device 3 is in no replica "
                        "group"));
  // A permutation with two sources for one target.
  std::string twice = RowsProgram(
      "      %s = \"stablehlo.collective_permute\"(%v) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs "
      "= dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>}> : "
      "(tensor<2xf32>) -> tensor<2xf32>\n"
      "      sdy.return %s : tensor<2xf32>\n");
  EXPECT_THAT(ErrorOf(twice), HasSubstr("device 1 receives from two sources"));
}

TEST(SpmdEmulation, NestedManualComputationsSplitAlongMoreAxes) {
  // Outer: manual over "a" on rows; inner: manual over "b" on columns, with
  // a sum over "b" (devices {0,1} and {2,3}) and the device's b index.
  std::string text = Program(
      "<[\"a\"=2, \"b\"=2]>", "(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32>",
      "    %0 = sdy.manual_computation(%arg0) "
      "in_shardings=[<@mesh, [{\"a\"}, {}]>] "
      "out_shardings=[<@mesh, [{\"a\"}, {}]>] "
      "manual_axes={\"a\"} (%v: tensor<1x4xf32>) {\n"
      "      %n = sdy.manual_computation(%v) "
      "in_shardings=[<@mesh, [{}, {\"b\"}]>] "
      "out_shardings=[<@mesh, [{}, {\"b\"}]>] "
      "manual_axes={\"b\"} (%w: tensor<1x2xf32>) {\n"
      "        %s = \"stablehlo.all_reduce\"(%w) <{channel_handle = "
      "#stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = "
      "dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> "
      "({\n"
      "        ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "          %r = stablehlo.add %a, %b : tensor<f32>\n"
      "          stablehlo.return %r : tensor<f32>\n"
      "        }) : (tensor<1x2xf32>) -> tensor<1x2xf32>\n"
      "        %p = stablehlo.partition_id : tensor<ui32>\n"
      "        %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "        %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) "
      "-> tensor<1x2xf32>\n"
      "        %t = stablehlo.multiply %k, %k : tensor<1x2xf32>\n"
      "        %y = stablehlo.add %s, %t : tensor<1x2xf32>\n"
      "        sdy.return %y : tensor<1x2xf32>\n"
      "      } : (tensor<1x4xf32>) -> tensor<1x4xf32>\n"
      "      sdy.return %n : tensor<1x4xf32>\n"
      "    } : (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "    return %0 : tensor<2x4xf32>\n");
  // Row a, column block b: the two column blocks of row a summed, plus
  // the square of the device id 2a + b.
  auto out = RunProgram(text, {Iota({2, 4})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{2, 4, 3, 5, 14, 16, 19, 21}));
  // An axis already manual around it cannot be made manual again.
  std::string again = text;
  again.replace(again.find("manual_axes={\"b\"}"), 17, "manual_axes={\"a\"}");
  for (int k = 0; k < 2; ++k)
    again.replace(again.find("[{}, {\"b\"}]"), 11, "[{}, {\"a\"}]");
  EXPECT_THAT(ErrorOf(again),
              HasSubstr("sm.mlir:5:7: sdy.manual_computation: manual axis "
                        "\"a\" is already manual in the enclosing manual "
                        "computation"));
}

// --- HLO text: the same shard_map as JAX prints it with as_text("hlo").

// f32[8] split in 4 blocks of 2; `body_ops` computes ROOT from %v.
std::string HloProgram(const std::string& body_ops,
                       const std::string& mesh = "#sdy.mesh<[\"x\"=4]>") {
  return "HloModule m, frontend_attributes={xla.sdy.meshes={mesh = " + mesh +
         "}}\n"
         "\n"
         "sum {\n"
         "  a = f32[] parameter(0)\n"
         "  b = f32[] parameter(1)\n"
         "  ROOT r = f32[] add(a, b)\n"
         "}\n"
         "\n"
         "body {\n"
         "  v = f32[2] parameter(0)\n" +
         body_ops +
         "}\n"
         "\n"
         "ENTRY main {\n"
         "  x = f32[8] parameter(0)\n"
         "  g = f32[2] custom-call(x), "
         "custom_call_target=\"xla.sdy.GlobalToLocalShape\", "
         "custom_call_has_side_effect=true, "
         "frontend_attributes={xla.sdy.in_shardings=\"#sdy.sharding_per_value<"
         "[<@mesh, [{\\\"x\\\"}]>]>\",xla.sdy.manual_axes=\"#sdy<manual_axes{"
         "\\\"x\\\"}>\"}\n"
         "  c = f32[2] call(g), to_apply=body\n"
         "  l = f32[8] custom-call(c), "
         "custom_call_target=\"xla.sdy.LocalToGlobalShape\", "
         "custom_call_has_side_effect=true, "
         "frontend_attributes={xla.sdy.out_shardings=\"#sdy.sharding_per_"
         "value<[<@mesh, [{\\\"x\\\"}]>]>\",xla.sdy.manual_axes=\"#sdy<manual_"
         "axes{\\\"x\\\"}>\"}\n"
         "  ROOT f = f32[8] custom-call(l), "
         "custom_call_target=\"xla.sdy.FuncResultSharding\", "
         "custom_call_has_side_effect=true\n"
         "}\n";
}

TEST(SpmdEmulationHlo, AllReduceWithIotaReplicaGroups) {
  // [2,2]<=[2,2]T(1,0): groups {0,2} and {1,3}.
  std::string text = HloProgram(
      "  ROOT s = f32[2] all-reduce(v), channel_id=1, "
      "replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, "
      "to_apply=sum\n");
  auto out = RunProgram(text, {Iota({8})}, "sm.hlo");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Devices 0 and 2: [0,1]+[4,5]; devices 1 and 3: [2,3]+[6,7].
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 6, 8, 10, 4, 6, 8, 10}));
  // The flat form: one group of all.
  text = HloProgram(
      "  ROOT s = f32[2] all-reduce(v), channel_id=1, "
      "replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=sum\n");
  out = RunProgram(text, {Iota({8})}, "sm.hlo");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{12, 16, 12, 16, 12, 16, 12, 16}));
}

TEST(SpmdEmulationHlo, PartitionIdCollectivePermuteAndNoPlaceholderLeft) {
  std::string text = HloProgram(
      "  p = u32[] partition-id()\n"
      "  f = f32[] convert(p)\n"
      "  b = f32[2] broadcast(f), dimensions={}\n"
      "  m = f32[2] multiply(v, b)\n"
      "  ROOT s = f32[2] collective-permute(m), channel_id=2, "
      "source_target_pairs={{0,1},{1,2},{2,3},{3,0}}\n");
  StatusOr<Module> module = ParseHlo(text, "sm.hlo");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  // The xla.sdy custom calls and the call of the body became one op.
  EXPECT_EQ(CountOpcode(*module, Opcode::kManualComputation), 1);
  EXPECT_EQ(CountOpcode(*module, Opcode::kCall), 0);
  EXPECT_EQ(CountOpcode(*module, Opcode::kCustomCall), 0);
  Module emulated = Emulated(std::move(*module));
  for (Opcode gone : {Opcode::kManualComputation, Opcode::kPartitionId,
                      Opcode::kCollectivePermute})
    EXPECT_EQ(CountOpcode(emulated, gone), 0) << OpcodeName(gone);
  auto out = RunProgram(text, {Iota({8})}, "sm.hlo");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Device d holds d*[2d, 2d+1] and passes it on to d+1 (3 to 0).
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{18, 21, 0, 0, 2, 3, 8, 10}));
}

TEST(SpmdEmulationHlo, Errors) {
  // A region that subtracts.
  std::string subtract = HloProgram(
      "  ROOT s = f32[2] all-reduce(v), channel_id=1, "
      "replica_groups={{0,1,2,3}}, use_global_device_ids=true, "
      "to_apply=sum\n");
  subtract.replace(subtract.find("add(a, b)"), 9, "subtract(a, b)");
  EXPECT_THAT(ErrorOf(subtract, "sm.hlo"),
              HasSubstr("sm.hlo:11:8: all-reduce: the reduction region must "
                        "return"));
  // A collective without its region.
  EXPECT_THAT(ErrorOf(HloProgram("  ROOT s = f32[2] all-reduce(v), "
                                 "channel_id=1, replica_groups={}\n"),
                      "sm.hlo"),
              HasSubstr("sm.hlo:11:8: 's' (all-reduce) needs attribute "
                        "'to_apply'"));
  // A mesh the module does not define.
  std::string mesh = HloProgram("  ROOT s = f32[2] negate(v)\n");
  mesh.replace(mesh.find("{mesh = "), 8, "{other = ");
  EXPECT_THAT(ErrorOf(mesh, "sm.hlo"),
              HasSubstr("sm.hlo:18:3: 'l': sharding names mesh @mesh, which "
                        "is not defined in the module's xla.sdy.meshes"));
  // Shardy syntax errors point into the attribute.
  std::string axes = HloProgram("  ROOT s = f32[2] negate(v)\n");
  axes.replace(axes.rfind("manual_axes{"), 12, "manual_axis{");
  EXPECT_THAT(ErrorOf(axes, "sm.hlo"),
              HasSubstr("sm.hlo:18:3: 'l' xla.sdy.manual_axes:1:6: expected "
                        "'manual_axes', got 'manual_axis'"));
  // A collective outside any shard_map.
  std::string outside =
      "HloModule m\n"
      "sum {\n"
      "  a = f32[] parameter(0)\n"
      "  b = f32[] parameter(1)\n"
      "  ROOT r = f32[] add(a, b)\n"
      "}\n"
      "ENTRY main {\n"
      "  x = f32[8] parameter(0)\n"
      "  ROOT s = f32[8] all-reduce(x), replica_groups={}, to_apply=sum\n"
      "}\n";
  EXPECT_THAT(ErrorOf(outside, "sm.hlo"),
              HasSubstr("sm.hlo:9:8: all-reduce: only supported inside an "
                        "sdy.manual_computation"));
  // Replica groups of a non-square iota.
  EXPECT_THAT(
      ErrorOf(HloProgram("  ROOT s = f32[2] all-reduce(v), channel_id=1, "
                         "replica_groups=[3,2]<=[4], "
                         "use_global_device_ids=true, to_apply=sum\n"),
              "sm.hlo"),
      HasSubstr("replica_groups: expected [groups,size]<=[dims]"));
  // GlobalToLocalShape whose results feed no body call.
  std::string lone = HloProgram("  ROOT s = f32[2] negate(v)\n");
  lone.replace(lone.find("  c = f32[2] call(g), to_apply=body\n"), 36,
               "  c = f32[2] negate(g)\n");
  EXPECT_THAT(ErrorOf(lone, "sm.hlo"),
              HasSubstr("'l' (xla.sdy.LocalToGlobalShape) must take the "
                        "results of a call of the manual computation's body"));
}

// --- GSPMD's form (JAX with Shardy off): markers around a call of the body.

// f32[8] over 4 devices with `in` and `out` shardings; the body multiplies by
// the partition id and sums over all devices when `psum` is set.
std::string GspmdProgram(const std::string& in, const std::string& out,
                         bool psum, const std::string& module_attributes,
                         const std::string& local = "2") {
  const std::string t = "tensor<" + local + "xf32>";
  std::string body =
      "func.func private @shmap_body(%v: " + t + ") -> " + t +
      " {\n"
      "  %p = stablehlo.partition_id : tensor<ui32>\n"
      "  %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "  %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> " +
      t +
      "\n"
      "  %m = stablehlo.multiply %v, %b : " +
      t + "\n";
  if (psum) {
    std::string reduce = kAllReduceAdd;
    reduce.replace(reduce.find("(%v)"), 4, "(%m)");
    reduce.replace(reduce.find("(tensor<2xf32>) -> tensor<2xf32>"), 32,
                   "(" + t + ") -> " + t);
    body += reduce + "  return %s : " + t + "\n}\n";
  } else {
    body += "  return %m : " + t + "\n}\n";
  }
  return "module @g attributes {" + module_attributes +
         "} {\n"
         "func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
         "  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = \"" +
         in +
         "\"} : (tensor<8xf32>) -> tensor<8xf32>\n"
         "  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) "
         "{mhlo.sharding = \"{manual}\"} : (tensor<8xf32>) -> " +
         t +
         "\n"
         "  %2 = call @shmap_body(%1) : (" +
         t + ") -> " + t +
         "\n"
         "  %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "
         "\"{manual}\"} : (" +
         t + ") -> " + t +
         "\n"
         "  %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) "
         "{mhlo.sharding = \"" +
         out + "\"} : (" + t +
         ") -> tensor<8xf32>\n"
         "  return %4 : tensor<8xf32>\n"
         "}\n" +
         body + "}\n";
}

TEST(SpmdEmulationGspmd, ExplicitTileAssignmentsPlaceEachDevicesBlock) {
  // Tile t of the input goes to device 3 - t; the output's tiles are in
  // device order.
  std::string text =
      GspmdProgram("{devices=[4]3,2,1,0}", "{devices=[4]<=[4]}", false, "");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Device d holds tile 3 - d, [6-2d, 7-2d], times d.
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 0, 4, 5, 4, 6, 0, 3}));
  StatusOr<Module> module = ParseStableHlo(text, "sm.mlir");
  ASSERT_TRUE(module.ok());
  // The reader keeps the markers with their shardings; the pass finds the
  // pattern.
  EXPECT_EQ(CountTarget(*module, "SPMDFullToShardShape"), 1);
  Module emulated = Emulated(std::move(*module));
  for (const char* marker :
       {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})
    EXPECT_EQ(CountTarget(emulated, marker), 0) << marker;
}

TEST(SpmdEmulationGspmd, ReplicatedValuesTakeTheDeviceCountFromTheModule) {
  std::string text = GspmdProgram("{replicated}", "{replicated}", true,
                                  "mhlo.num_partitions = 4 : i32", "8");
  auto out = RunProgram(text, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Every device holds the whole x; the sum of d * x over d = 0..3 is 6x.
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{0, 6, 12, 18, 24, 30, 36, 42}));
}

TEST(SpmdEmulationGspmd, Errors) {
  EXPECT_THAT(
      ErrorOf(GspmdProgram("{replicated}", "{replicated}", false, "", "8")),
      HasSubstr("sm.mlir:5:3: shard_map: every sharding is "
                "replicated, and the program does not say how many "
                "devices it runs on (mhlo.num_partitions)"));
  EXPECT_THAT(
      ErrorOf(GspmdProgram("{devices=[2,2]<=[4] last_tile_dims={manual}}",
                           "{devices=[4]<=[4]}", false, "")),
      HasSubstr("sm.mlir:3:3: Sharding sharding:1:21: partially manual "
                "shardings (last_tile_dims) are not supported"));
  // A marker outside the pattern.
  std::string lone =
      "func.func @main(%x: tensor<8xf32>) -> tensor<2xf32> {\n"
      "  %1 = stablehlo.custom_call @SPMDFullToShardShape(%x) "
      "{mhlo.sharding = \"{manual}\"} : (tensor<8xf32>) -> tensor<2xf32>\n"
      "  return %1 : tensor<2xf32>\n"
      "}\n";
  EXPECT_THAT(ErrorOf(lone),
              HasSubstr("sm.mlir:2:3: SPMDFullToShardShape: not part of a "
                        "shard_map xffi recognizes"));
  // A sharding annotation elsewhere only says where a value lives.
  std::string annotated =
      "func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {\n"
      "  %1 = stablehlo.custom_call @Sharding(%x) "
      "{mhlo.sharding = \"{devices=[4]<=[4]}\"} : (tensor<8xf32>) -> "
      "tensor<8xf32>\n"
      "  return %1 : tensor<8xf32>\n"
      "}\n";
  auto out = RunProgram(annotated, {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// --- Modules built in C++: the pass needs no text.

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}

Computation* Sum(Builder& b) {
  std::unique_ptr<Builder> sum = b.CreateSubBuilder("sum");
  Op x = sum->Parameter(0, F32({}));
  Op y = sum->Parameter(1, F32({}));
  return sum->BuildSubcomputation(sum->Add(x, y));
}

// Each device's block plus the sum of all blocks plus the device's id.
StatusOr<Module> BuiltShardMap() {
  Builder b("built");
  Computation* sum = Sum(b);
  std::unique_ptr<Builder> body = b.CreateSubBuilder("body");
  Op v = body->Parameter(0, F32({2}), "v");
  CollectiveDevices devices;
  devices.replica_groups = {{0, 1, 2, 3}};
  devices.channel_id = 1;
  devices.use_global_device_ids = true;
  Op total = body->AllReduce({v}, sum, devices);
  Op id = body->BroadcastInDim(
      body->Convert(body->PartitionId(), ElementType::kF32), {2}, {});
  Computation* region =
      body->BuildSubcomputation(body->Add(body->Add(v, total), id));
  Op x = b.Parameter(0, F32({8}), "x");
  ManualComputationConfig config;
  config.mesh.name = "mesh";
  config.mesh.axis_names = {"x"};
  config.mesh.axis_sizes = {4};
  config.in_shardings = {TensorSharding{{{"x"}}}};
  config.out_shardings = {TensorSharding{{{"x"}}}};
  config.manual_axes = {"x"};
  return b.Build(b.ManualComputation({x}, region, config));
}

TEST(SpmdEmulationPass, RunsAManualComputationBuiltInCpp) {
  StatusOr<Module> module = BuiltShardMap();
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Module emulated = Emulated(module->Clone());
  for (Opcode gone :
       {Opcode::kManualComputation, Opcode::kAllReduce, Opcode::kPartitionId})
    EXPECT_EQ(CountOpcode(emulated, gone), 0) << OpcodeName(gone);
  // Nothing is left to emulate.
  StatusOr<bool> again = passes::SpmdEmulation().Run(emulated);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  auto out = RunModule(std::move(emulated), {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Blocks [0,1] [2,3] [4,5] [6,7] sum to [12, 16].
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{12, 17, 15, 20, 18, 23, 21, 26}));
  // Compile runs the pass itself.
  out = RunModule(std::move(*module), {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<float>{12, 17, 15, 20, 18, 23, 21, 26}));
}

TEST(SpmdEmulationPass, LeavesAModuleWithoutDevicesAlone) {
  Builder b("plain");
  Op x = b.Parameter(0, F32({4}));
  StatusOr<Module> module = b.Build(b.Unary(Opcode::kNegate, x));
  ASSERT_TRUE(module.ok());
  std::string before = PrintHlo(*module);
  StatusOr<bool> changed = passes::SpmdEmulation().Run(*module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(PrintHlo(*module), before);
}

TEST(SpmdEmulationPass, ErrorsNameTheOpAsTheModuleSpellsIt) {
  Builder b("outside");
  Computation* sum = Sum(b);
  Op x = b.Parameter(0, F32({4}));
  Op reduced = b.AllReduce({x}, sum);
  reduced.instruction()->set_location(Location{"f.hlo", 2, 3, ""});
  StatusOr<Module> module = b.Build(reduced);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  StatusOr<bool> changed = passes::SpmdEmulation().Run(*module);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.status().message(),
              HasSubstr("f.hlo:2:3: all-reduce: only supported inside an "
                        "sdy.manual_computation"));
  module->set_op_spelling(OpSpelling::kStableHlo);
  changed = passes::SpmdEmulation().Run(*module);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.status().message(),
              HasSubstr("f.hlo:2:3: stablehlo.all_reduce: only supported"));

  // A region the emulation cannot fold across devices.
  Builder c("unfoldable");
  std::unique_ptr<Builder> sub = c.CreateSubBuilder("difference");
  Op p = sub->Parameter(0, F32({}));
  Op q = sub->Parameter(1, F32({}));
  Computation* difference = sub->BuildSubcomputation(sub->Sub(p, q));
  Op y = c.Parameter(0, F32({4}));
  Op folded = c.AllReduce({y}, difference);
  folded.instruction()->set_location(Location{"f.hlo", 5, 1, ""});
  module = c.Build(folded);
  ASSERT_TRUE(module.ok());
  changed = passes::SpmdEmulation().Run(*module);
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.status().message(),
              HasSubstr("f.hlo:5:1: all-reduce: the reduction region must "
                        "return"));
}

TEST(SpmdEmulationPass, FindsGspmdMarkersBuiltInCpp) {
  // x tiled over 4 devices in reverse order; the body multiplies each
  // device's block by its id; the result is tiled in device order.
  Builder b("gspmd");
  std::unique_ptr<Builder> body = b.CreateSubBuilder("shmap_body");
  Op v = body->Parameter(0, F32({2}));
  Op id = body->BroadcastInDim(
      body->Convert(body->PartitionId(), ElementType::kF32), {2}, {});
  Computation* region = body->BuildSubcomputation(body->Mul(v, id));
  HloSharding reversed, in_order, manual;
  reversed.kind = in_order.kind = HloSharding::Kind::kTiled;
  reversed.tile_dims = in_order.tile_dims = {4};
  reversed.devices = {3, 2, 1, 0};
  in_order.devices = {0, 1, 2, 3};
  manual.kind = HloSharding::Kind::kManual;
  auto marker = [&](const char* target, Op operand, Shape shape,
                    const HloSharding& sharding) {
    Op op = b.CustomCall(target, {operand}, shape);
    op.instruction()->sharding = sharding;
    return op;
  };
  Op x = b.Parameter(0, F32({8}));
  Op local =
      marker("SPMDFullToShardShape", marker("Sharding", x, F32({8}), reversed),
             F32({2}), manual);
  Op called = b.Call(region, {local});
  Op full =
      marker("SPMDShardToFullShape",
             marker("Sharding", called, F32({2}), manual), F32({8}), in_order);
  StatusOr<Module> module = b.Build(full);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Module emulated = Emulated(std::move(*module));
  EXPECT_EQ(CountOpcode(emulated, Opcode::kCustomCall), 0);
  auto out = RunModule(std::move(emulated), {Iota({8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Device d holds tile 3 - d, [6-2d, 7-2d], times d.
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{0, 0, 4, 5, 4, 6, 0, 3}));
}

// Every shard_map program of the corpus (tests/programs/sm_*, as JAX printed
// them), in both texts: the reader's module verifies, and so does the pass's.
TEST(SpmdEmulationPass, LeavesEveryCorpusShardMapVerified) {
  std::vector<std::string> paths;
  for (const auto& entry :
       std::filesystem::directory_iterator(XFFI_CORPUS_DIR)) {
    std::string name = entry.path().filename().string();
    std::string ext = entry.path().extension().string();
    if (name.rfind("sm_", 0) == 0 && (ext == ".mlir" || ext == ".hlo"))
      paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  ASSERT_GE(paths.size(), 20u);
  for (const std::string& path : paths) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    StatusOr<Module> module = ParseProgram(text.str(), path);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Status verified = VerifyModule(*module);
    EXPECT_TRUE(verified.ok()) << verified.ToString();
    Module emulated = Emulated(std::move(*module));
    EXPECT_EQ(CountOpcode(emulated, Opcode::kManualComputation), 0) << path;
  }
}

}  // namespace
}  // namespace xffi
