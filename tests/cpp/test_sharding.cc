// Shardings as IR types (xffi/program/sharding.h): Shardy meshes and tensor
// shardings, the block counts a manual computation splits values into, and
// GSPMD's sharding strings, each written as its text reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "xffi/program/sharding.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

Mesh TwoByThree() {
  Mesh mesh;
  mesh.name = "grid";
  mesh.axis_names = {"a", "b"};
  mesh.axis_sizes = {2, 3};
  return mesh;
}

TEST(Mesh, AxesDevicesAndCoordinates) {
  Mesh mesh = TwoByThree();
  EXPECT_EQ(mesh.device_count(), 6);
  EXPECT_EQ(mesh.AxisIndex("b"), 1);
  EXPECT_EQ(mesh.AxisIndex("c"), -1);
  // Row-major: position 4 is a=1, b=1.
  EXPECT_EQ(mesh.Coordinate(4, 0), 1);
  EXPECT_EQ(mesh.Coordinate(4, 1), 1);
  EXPECT_EQ(mesh.Coordinate(2, 1), 2);
  EXPECT_EQ(mesh.DeviceId(4), 4);
  mesh.device_ids = {5, 4, 3, 2, 1, 0};
  EXPECT_EQ(mesh.DeviceId(4), 1);
}

TEST(Mesh, SameDevicesIgnoresTheName) {
  Mesh a = TwoByThree(), b = TwoByThree();
  b.name = "other";
  EXPECT_TRUE(a.SameDevices(b));
  EXPECT_NE(a, b);
  b.device_ids = {0, 1, 2, 3, 5, 4};
  EXPECT_FALSE(a.SameDevices(b));
}

TEST(Mesh, PrintsAsShardyWritesIt) {
  Mesh mesh = TwoByThree();
  EXPECT_EQ(mesh.ToString(), "<[\"a\"=2, \"b\"=3]>");
  mesh.device_ids = {5, 4, 3, 2, 1, 0};
  EXPECT_EQ(mesh.ToString(),
            "<[\"a\"=2, \"b\"=3], device_ids=[5, 4, 3, 2, 1, 0]>");
}

TEST(TensorSharding, PrintsWithItsMeshByNameOrInline) {
  TensorSharding sharding{{{"a", "b"}, {}}};
  Mesh mesh = TwoByThree();
  EXPECT_EQ(sharding.ToString(mesh), "<@grid, [{\"a\", \"b\"}, {}]>");
  mesh.name.clear();
  EXPECT_EQ(sharding.ToString(mesh),
            "<mesh<[\"a\"=2, \"b\"=3]>, [{\"a\", \"b\"}, {}]>");
  EXPECT_EQ(AxisSetToString({"a", "b"}), "{\"a\", \"b\"}");
  EXPECT_EQ(AxisSetToString({}), "{}");
}

TEST(ManualBlockCounts, CountOnlyTheManualAxes) {
  Mesh mesh = TwoByThree();
  TensorSharding sharding{{{"a"}, {"b"}}};
  StatusOr<std::vector<int64_t>> both =
      ManualBlockCounts(mesh, sharding, {"a", "b"}, 2, "operand 0");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(*both, (std::vector<int64_t>{2, 3}));
  // A free axis leaves the dimension whole.
  StatusOr<std::vector<int64_t>> only_a =
      ManualBlockCounts(mesh, sharding, {"a"}, 2, "operand 0");
  ASSERT_TRUE(only_a.ok());
  EXPECT_EQ(*only_a, (std::vector<int64_t>{2, 1}));
  // Two axes on one dimension multiply.
  StatusOr<std::vector<int64_t>> joined = ManualBlockCounts(
      mesh, TensorSharding{{{"a", "b"}}}, {"a", "b"}, 1, "result 0");
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, (std::vector<int64_t>{6}));
}

TEST(ManualBlockCounts, ErrorsNameTheValueAndTheRule) {
  Mesh mesh = TwoByThree();
  EXPECT_THAT(
      ManualBlockCounts(mesh, TensorSharding{{{"a"}}}, {"a"}, 2, "operand 1")
          .status()
          .message(),
      HasSubstr("the sharding of operand 1 names 1 dimension(s), "
                "the value has 2"));
  EXPECT_THAT(
      ManualBlockCounts(mesh, TensorSharding{{{"z"}}}, {"a"}, 1, "result 0")
          .status()
          .message(),
      HasSubstr("the sharding of result 0 names axis \"z\", which "
                "the mesh does not have"));
  EXPECT_THAT(ManualBlockCounts(mesh, TensorSharding{{{"a"}, {"a"}}}, {"a"}, 2,
                                "operand 0")
                  .status()
                  .message(),
              HasSubstr("uses axis \"a\" twice"));
}

TEST(HloSharding, PrintsEachKindAsHloWritesIt) {
  HloSharding sharding;
  EXPECT_EQ(sharding.ToString(), "{replicated}");
  sharding.kind = HloSharding::Kind::kManual;
  EXPECT_EQ(sharding.ToString(), "{manual}");
  sharding.kind = HloSharding::Kind::kMaximal;
  sharding.devices = {3};
  EXPECT_EQ(sharding.ToString(), "{maximal device=3}");
  sharding.kind = HloSharding::Kind::kTiled;
  sharding.tile_dims = {2, 1, 2};
  sharding.devices = {0, 2, 1, 3};
  sharding.replicated_last = true;
  EXPECT_EQ(sharding.ToString(),
            "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
}

TEST(HloSharding, MarkersAreTheThreeGspmdCustomCalls) {
  for (const char* marker :
       {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})
    EXPECT_TRUE(IsGspmdMarker(marker)) << marker;
  EXPECT_FALSE(IsGspmdMarker("xla.sdy.GlobalToLocalShape"));
  EXPECT_FALSE(IsGspmdMarker("sharding"));
}

}  // namespace
}  // namespace xffi
