// Collectives (all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute, partition-id, replica-id) and manual computations as
// IR ops: the builder infers their shapes, the verifier refuses what breaks
// their rules naming the op and where it is, the HLO printer writes them so
// that ParseHlo reads the same module back, and the CPU backend refuses one
// that was not emulated, naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cpu/kernel.h"
#include "hlo_test_util.h"
#include "xffi/program/builder.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}

Computation* Sum(Builder& b, const std::string& name = "sum") {
  std::unique_ptr<Builder> sub = b.CreateSubBuilder(name);
  Op x = sub->Parameter(0, F32({}));
  Op y = sub->Parameter(1, F32({}));
  return sub->BuildSubcomputation(sub->Add(x, y));
}

Mesh Rows(const std::string& name = "mesh") {
  Mesh mesh;
  mesh.name = name;
  mesh.axis_names = {"x"};
  mesh.axis_sizes = {4};
  return mesh;
}

// Partition ids of all four devices, through a channel.
CollectiveDevices AllFour() {
  CollectiveDevices devices;
  devices.replica_groups = {{0, 1, 2, 3}};
  devices.channel_id = 1;
  devices.use_global_device_ids = true;
  return devices;
}

const Instruction* Find(const Module& module, Opcode opcode) {
  for (const auto& c : module.computations())
    for (const auto& inst : c->instructions())
      if (inst->opcode() == opcode) return inst.get();
  return nullptr;
}

// A manual computation over f32[8, 4] split in rows along "x", whose body
// holds every collective.
StatusOr<Module> EveryOp() {
  Builder b("every");
  Computation* sum = Sum(b);
  std::unique_ptr<Builder> body = b.CreateSubBuilder("body");
  Op v = body->Parameter(0, F32({2, 4}), "v");
  Op reduced = body->AllReduce({v}, sum, AllFour());
  Op gathered = body->AllGather({reduced}, 0, 4, AllFour());
  Op scattered = body->ReduceScatter({gathered}, sum, 0, 4, AllFour());
  Op swapped = body->AllToAll({scattered}, 1, 1, 4, AllFour());
  Op moved = body->CollectivePermute(swapped, {{0, 1}, {1, 2}, {2, 3}, {3, 0}},
                                     /*channel_id=*/2);
  Op id = body->Convert(body->PartitionId(), ElementType::kF32);
  Op replica = body->Convert(body->ReplicaId(), ElementType::kF32);
  Op scale = body->BroadcastInDim(body->Add(id, replica), {2, 4}, {});
  Computation* region = body->BuildSubcomputation(body->Mul(moved, scale));
  Op x = b.Parameter(0, F32({8, 4}), "x");
  ManualComputationConfig config;
  config.mesh = Rows();
  config.in_shardings = {TensorSharding{{{"x"}, {}}}};
  config.out_shardings = {TensorSharding{{{"x"}, {}}}};
  config.manual_axes = {"x"};
  return b.Build(b.ManualComputation({x}, region, config));
}

TEST(CollectiveOps, TheBuilderInfersEachResultShape) {
  Builder b("shapes");
  Computation* sum = Sum(b);
  Op x = b.Parameter(0, F32({8, 4}));
  EXPECT_EQ(b.AllReduce({x}, sum, AllFour()).shape(), F32({8, 4}));
  EXPECT_EQ(b.AllReduce({x, x}, sum, AllFour()).shape(),
            Shape::Tuple({F32({8, 4}), F32({8, 4})}));
  EXPECT_EQ(b.AllGather({x}, 1, 4, AllFour()).shape(), F32({8, 16}));
  EXPECT_EQ(b.ReduceScatter({x}, sum, 0, 4, AllFour()).shape(), F32({2, 4}));
  EXPECT_EQ(b.AllToAll({x}, 0, 1, 4, AllFour()).shape(), F32({2, 16}));
  EXPECT_EQ(b.CollectivePermute(x, {{0, 1}, {1, 0}}, 1).shape(), F32({8, 4}));
  EXPECT_EQ(b.PartitionId().shape(), Shape::Scalar(ElementType::kU32));
  EXPECT_EQ(b.ReplicaId().shape(), Shape::Scalar(ElementType::kU32));
  EXPECT_TRUE(b.status().ok()) << b.status().ToString();
}

TEST(CollectiveOps, AManualComputationsShapeFollowsItsBodyAndShardings) {
  for (bool split_result : {true, false}) {
    Builder b("manual");
    std::unique_ptr<Builder> body = b.CreateSubBuilder("body");
    Op v = body->Parameter(0, F32({2, 4}));
    Computation* region =
        body->BuildSubcomputation(body->Unary(Opcode::kNegate, v));
    Op x = b.Parameter(0, F32({8, 4}));
    ManualComputationConfig config;
    config.mesh = Rows();
    config.in_shardings = {TensorSharding{{{"x"}, {}}}};
    // Replicated: every device's block is the whole result.
    config.out_shardings = {
        TensorSharding{{split_result ? std::vector<std::string>{"x"}
                                     : std::vector<std::string>{},
                        {}}}};
    config.manual_axes = {"x"};
    Op manual = b.ManualComputation({x}, region, config);
    ASSERT_TRUE(b.status().ok()) << b.status().ToString();
    EXPECT_EQ(manual.shape(), split_result ? F32({8, 4}) : F32({2, 4}));
  }
  StatusOr<Module> every = EveryOp();
  ASSERT_TRUE(every.ok()) << every.status().ToString();
  EXPECT_TRUE(VerifyModule(*every).ok());
}

// Breaks one field of EveryOp's op of `opcode` (placed at f.hlo:3:5) and
// returns the verifier's message.
std::string VerifierError(
    Opcode opcode, const std::function<void(Instruction&, Module&)>& damage) {
  StatusOr<Module> module = EveryOp();
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  if (!module.ok()) return "";
  Instruction* inst = const_cast<Instruction*>(Find(*module, opcode));
  inst->set_location(Location{"f.hlo", 3, 5, ""});
  damage(*inst, *module);
  Status status = VerifyModule(*module);
  EXPECT_FALSE(status.ok()) << OpcodeName(opcode);
  std::string where =
      "(" + std::string(OpcodeName(opcode)) + ") in computation '";
  EXPECT_THAT(status.message(), HasSubstr(where));
  EXPECT_THAT(status.message(), HasSubstr(" at f.hlo:3:5: "));
  return status.message();
}

TEST(CollectiveOps, TheVerifierNamesTheOpItsPlaceAndTheRule) {
  EXPECT_THAT(
      VerifierError(Opcode::kAllReduce,
                    [](Instruction& in, Module&) {
                      in.collective_devices.channel_id = 0;
                    }),
      HasSubstr("use_global_device_ids needs a channel (channel_id > 0)"));
  EXPECT_THAT(
      VerifierError(Opcode::kAllReduce,
                    [](Instruction& in, Module&) {
                      in.collective_devices.replica_groups = {{0, 1}, {1, 2}};
                    }),
      HasSubstr("replica_groups names device 1 twice"));
  EXPECT_THAT(VerifierError(Opcode::kAllGather,
                            [](Instruction& in, Module&) {
                              in.set_shape(F32({7, 4}));
                            }),
              HasSubstr("result 0 f32[7,4] is not operand 0 f32[2,4] with "
                        "dimension 0 multiplied by a number of devices"));
  EXPECT_THAT(
      VerifierError(Opcode::kAllGather,
                    [](Instruction& in, Module&) { in.dimensions = {2}; }),
      HasSubstr("all_gather_dim 2 is out of range for operand 0"));
  EXPECT_THAT(
      VerifierError(Opcode::kReduceScatter,
                    [](Instruction& in, Module& module) {
                      in.ReplaceCalledComputation(
                          0, module.FindComputation("body"));
                    }),
      HasSubstr("reduction 'body' must take two scalars of one type and "
                "return one of the same type"));
  EXPECT_THAT(
      VerifierError(Opcode::kAllToAll,
                    [](Instruction& in, Module&) { in.split_count = 3; }),
      HasSubstr("split_count is 3, replica group 0 has 4 devices"));
  EXPECT_THAT(VerifierError(Opcode::kCollectivePermute,
                            [](Instruction& in, Module&) {
                              in.source_target_pairs = {{0, 1}, {2, 1}};
                            }),
              HasSubstr("device 1 receives from two sources"));
  EXPECT_THAT(
      VerifierError(Opcode::kPartitionId,
                    [](Instruction& in, Module&) { in.set_shape(F32({})); }),
      HasSubstr("does not match u32[]"));
  EXPECT_THAT(VerifierError(Opcode::kManualComputation,
                            [](Instruction& in, Module&) {
                              in.manual_computation.manual_axes = {"y"};
                            }),
              HasSubstr("manual axis \"y\" is not an axis of the mesh"));
  EXPECT_THAT(VerifierError(Opcode::kManualComputation,
                            [](Instruction& in, Module&) {
                              in.manual_computation.mesh.axis_sizes = {3};
                            }),
              HasSubstr("operand 0 (f32[8,4]): dimension 0 does not split "
                        "into 3 equal blocks"));
  EXPECT_THAT(VerifierError(Opcode::kManualComputation,
                            [](Instruction& in, Module&) {
                              in.manual_computation.mesh.axis_sizes = {2};
                            }),
              HasSubstr("operand 0 (f32[8,4]) splits into blocks of "
                        "f32[4,4], the body takes f32[2,4]"));
  EXPECT_THAT(VerifierError(Opcode::kManualComputation,
                            [](Instruction& in, Module&) {
                              in.manual_computation.in_shardings.push_back(
                                  TensorSharding{{{}, {}}});
                            }),
              HasSubstr("1 operand(s), 2 in_sharding(s) and 1 body "
                        "argument(s); they must agree"));
  EXPECT_THAT(
      VerifierError(Opcode::kManualComputation,
                    [](Instruction& in, Module&) {
                      in.manual_computation.mesh.device_ids = {0, 1, 1, 2};
                    }),
      HasSubstr("device_ids must be a permutation of 0..3"));
}

TEST(CollectiveOps, PrintedHloReadsBackToTheSameModule) {
  StatusOr<Module> module = EveryOp();
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  module->set_num_partitions(4);
  std::string printed = PrintHlo(*module);
  for (const char* piece :
       {"num_partitions=4", "xla.sdy.meshes={", "#sdy.mesh<[\"x\"=4]>}",
        "all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(",
        "collective-permute(", "partition-id()", "replica-id()",
        "replica_groups={{0,1,2,3}}", "use_global_device_ids=true",
        "source_target_pairs={{0,1},{1,2},{2,3},{3,0}}",
        "xla.sdy.GlobalToLocalShape", "xla.sdy.LocalToGlobalShape"})
    EXPECT_THAT(printed, HasSubstr(piece));
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString() << "\n" << printed;
  EXPECT_TRUE(VerifyModule(*reparsed).ok());
  EXPECT_EQ(reparsed->num_partitions(), 4);
  EXPECT_EQ(hlo_test::DiffModules(*module, *reparsed,
                                  /*compare_locations=*/false),
            "")
      << printed;
  // Once read, the locations are the text's, and printing is stable.
  std::string reprinted = PrintHlo(*reparsed);
  StatusOr<Module> again = ParseHlo(reprinted, "printed.hlo");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(PrintHlo(*again), reprinted);
}

TEST(CollectiveOps, XffisOwnSpellingsReadBackToo) {
  // An all-to-all that concatenates along another dimension than it
  // splits, a mesh written inline and a GSPMD marker's sharding.
  Builder b("spellings");
  std::unique_ptr<Builder> body = b.CreateSubBuilder("body");
  Op v = body->Parameter(0, F32({4, 2}));
  Op swapped = body->AllToAll({v}, 0, 1, 4, AllFour());
  Computation* region = body->BuildSubcomputation(swapped);
  Op x = b.Parameter(0, F32({16, 2}));
  Op marked = b.CustomCall("Sharding", {x}, F32({16, 2}));
  HloSharding tiled;
  tiled.kind = HloSharding::Kind::kTiled;
  tiled.tile_dims = {4, 1};
  tiled.devices = {3, 2, 1, 0};
  marked.instruction()->sharding = tiled;
  ManualComputationConfig config;
  config.mesh = Rows("");
  config.in_shardings = {TensorSharding{{{"x"}, {}}}};
  config.out_shardings = {TensorSharding{{{"x"}, {}}}};
  config.manual_axes = {"x"};
  StatusOr<Module> module =
      b.Build(b.ManualComputation({marked}, region, config));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::string printed = PrintHlo(*module);
  EXPECT_THAT(printed, HasSubstr("split_dimension=0, concat_dimension=1"));
  EXPECT_THAT(printed, HasSubstr("<mesh<[\\\"x\\\"=4]>, [{\\\"x\\\"}, {}]>"));
  EXPECT_THAT(printed, HasSubstr("sharding={devices=[4,1]3,2,1,0}"));
  EXPECT_THAT(printed, Not(HasSubstr("xla.sdy.meshes")));
  StatusOr<Module> reparsed = ParseHlo(printed, "printed.hlo");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString() << "\n" << printed;
  EXPECT_EQ(hlo_test::DiffModules(*module, *reparsed,
                                  /*compare_locations=*/false),
            "")
      << printed;
}

TEST(CollectiveOps, HloTextCannotWriteAManualComputationAsAnOp) {
  StatusOr<Module> module = ParseHlo(
      "HloModule m\nENTRY e {\n  x = f32[8] parameter(0)\n"
      "  ROOT m = f32[8] manual-computation(x)\n}\n",
      "m.hlo");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("m.hlo:4:19: HLO writes a manual computation as a "
                        "call of its body"));
}

TEST(CollectiveOps, TheCpuBackendRefusesOneNamingIt) {
  Builder b("left");
  Computation* sum = Sum(b);
  Op x = b.Parameter(0, F32({4}));
  Op reduced = b.AllReduce({x}, sum, AllFour());
  reduced.instruction()->set_location(Location{"f.hlo", 7, 3, ""});
  StatusOr<cpu::Kernel> kernel = cpu::MakeKernel(*reduced.instruction());
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(kernel.status().message(),
              HasSubstr("(all-reduce) at f.hlo:7:3 is not supported on CPU"));
}

}  // namespace
}  // namespace xffi
