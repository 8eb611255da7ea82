// The fusion op in the IR: the verifier's contract for fused computations
// (src/ir/fusion.h), the Builder, and the HLO text round trip (XLA's
// `kind=kLoop, calls=%name` syntax; XLA fusions outside the contract are read
// as calls).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hlo_test_util.h"
#include "xffi/program/builder.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

const Instruction* FindOp(const Module& m, const std::string& name) {
  for (const auto& c : m.computations())
    for (const auto& op : c->instructions())
      if (op->name() == name) return op.get();
  return nullptr;
}

constexpr std::string_view kLoopFusion = R"(HloModule m

%fused_computation (param_0: f32[4], param_1: f32[]) -> f32[4] {
  %param_0 = f32[4] parameter(0)
  %param_1 = f32[] parameter(1)
  %broadcast = f32[4] broadcast(%param_1), dimensions={}
  %multiply = f32[4] multiply(%param_0, %broadcast)
  ROOT %exponential = f32[4] exponential(%multiply)
}

ENTRY %main (x: f32[4], s: f32[]) -> f32[4] {
  %x = f32[4] parameter(0)
  %s = f32[] parameter(1)
  ROOT %fusion = f32[4] fusion(%x, %s), kind=kLoop, calls=%fused_computation
}
)";

TEST(FusionIr, LoopFusionParsesPrintsAndParsesBack) {
  StatusOr<Module> first = ParseHlo(kLoopFusion, "f.hlo");
  ASSERT_TRUE(first.ok()) << first.status().message();
  const Instruction* fusion = FindOp(*first, "fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->opcode(), Opcode::kFusion);
  EXPECT_EQ(fusion->fusion_kind, FusionKind::kLoop);
  ASSERT_EQ(fusion->called_computations().size(), 1u);
  EXPECT_EQ(fusion->called_computations()[0]->name(), "fused_computation");
  std::string printed = PrintHlo(*first);
  EXPECT_THAT(
      printed,
      HasSubstr("fusion(%x, %s), kind=kLoop, calls=%fused_computation"));
  StatusOr<Module> second = ParseHlo(printed, "f.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(hlo_test::DiffModules(*first, *second), "");
  EXPECT_EQ(PrintHlo(*second), printed);
}

TEST(FusionIr, KindAndCallsAreRequired) {
  std::string text(kLoopFusion);
  std::string no_kind = text;
  no_kind.replace(no_kind.find(", kind=kLoop"), 12, "");
  StatusOr<Module> m = ParseHlo(no_kind, "f.hlo");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("kind"));
  std::string bad_kind = text;
  bad_kind.replace(bad_kind.find("kLoop"), 5, "kWide");
  m = ParseHlo(bad_kind, "f.hlo");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("a fusion kind"));
  EXPECT_THAT(m.status().message(), HasSubstr("f.hlo:"));
}

TEST(FusionIr, XlaFusionsOutsideTheContractAreReadAsCalls) {
  // XLA puts reduces in kLoop fusions and writes kOutput ones; xffi's
  // contract admits neither, so they run as calls.
  StatusOr<Module> m = ParseHlo(hlo_test::ReadSample("reduce.compiled.hlo"),
                                "reduce.compiled.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Instruction* iota_reduce = FindOp(*m, "iota_reduce_fusion");
  ASSERT_NE(iota_reduce, nullptr);
  EXPECT_EQ(iota_reduce->opcode(), Opcode::kCall);
  std::string output_kind(kLoopFusion);
  output_kind.replace(output_kind.find("kLoop"), 5, "kOutput");
  m = ParseHlo(output_kind, "f.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(FindOp(*m, "fusion")->opcode(), Opcode::kCall);
}

TEST(FusionIr, VerifierRejectsAFusedDotNamingItAndItsLine) {
  Module module("m");
  auto* fused = module.AddComputation(std::make_unique<Computation>("fused.1"));
  Shape matrix = Shape::Array(ElementType::kF32, {2, 2});
  Instruction* a = fused->AddInstruction(Opcode::kParameter, matrix, {}, "a");
  Instruction* dot =
      fused->AddInstruction(Opcode::kDot, matrix, {a, a}, "dot.2");
  dot->dot_dimension_numbers.lhs_contracting = {1};
  dot->dot_dimension_numbers.rhs_contracting = {0};
  Location where;
  where.file = "f.hlo";
  where.line = 3;
  where.column = 4;
  dot->set_location(where);
  fused->set_root(dot);
  auto* entry = module.AddComputation(std::make_unique<Computation>("main"));
  Instruction* x = entry->AddInstruction(Opcode::kParameter, matrix, {}, "x");
  Instruction* fusion =
      entry->AddInstruction(Opcode::kFusion, matrix, {x}, "fusion");
  fusion->AppendCalledComputation(fused);
  entry->set_root(fusion);
  module.set_entry(entry);
  Status status = VerifyModule(module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("'dot.2' (dot)"));
  EXPECT_THAT(status.message(), HasSubstr("f.hlo:3:4"));
  EXPECT_THAT(status.message(), HasSubstr("cannot hold dot"));
}

TEST(FusionIr, VerifierRejectsLoopValuesOfDifferentDimensions) {
  Module module("m");
  auto* fused = module.AddComputation(std::make_unique<Computation>("fused.1"));
  Shape vector4 = Shape::Array(ElementType::kF32, {4});
  Shape vector2 = Shape::Array(ElementType::kF32, {2});
  Instruction* a = fused->AddInstruction(Opcode::kParameter, vector4, {}, "a");
  Instruction* neg = fused->AddInstruction(Opcode::kNegate, vector4, {a}, "n");
  Instruction* slice = fused->AddInstruction(Opcode::kSlice, vector2, {a}, "s");
  slice->slice_starts = {0};
  slice->slice_limits = {2};
  slice->slice_strides = {1};
  Instruction* tuple = fused->AddInstruction(
      Opcode::kTuple, Shape::Tuple({vector4, vector2}), {neg, slice}, "t");
  fused->set_root(tuple);
  auto* entry = module.AddComputation(std::make_unique<Computation>("main"));
  Instruction* x = entry->AddInstruction(Opcode::kParameter, vector4, {}, "x");
  Instruction* fusion = entry->AddInstruction(
      Opcode::kFusion, Shape::Tuple({vector4, vector2}), {x}, "fusion");
  fusion->AppendCalledComputation(fused);
  entry->set_root(fusion);
  module.set_entry(entry);
  Status status = VerifyModule(module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("'s' (slice)"));
  EXPECT_THAT(status.message(), HasSubstr("share one index space"));
}

TEST(FusionIr, BuilderMakesAFusionAndChecksTheContract) {
  Builder b("main");
  Shape vector = Shape::Array(ElementType::kF32, {3});
  std::unique_ptr<Builder> sub = b.CreateSubBuilder("fused");
  Op p = sub->Parameter(0, vector);
  Computation* fused =
      sub->BuildSubcomputation(sub->Unary(Opcode::kExp, sub->Add(p, p)));
  ASSERT_NE(fused, nullptr) << sub->status().message();
  Op x = b.Parameter(0, vector, "x");
  Op fusion = b.Fusion(FusionKind::kLoop, {x}, fused);
  StatusOr<Module> module = b.Build(fusion);
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ(module->entry()->root()->opcode(), Opcode::kFusion);

  Builder bad("main");
  std::unique_ptr<Builder> bad_sub = bad.CreateSubBuilder("fused");
  Op q = bad_sub->Parameter(0, Shape::Array(ElementType::kF32, {2, 2}));
  Computation* with_dot = bad_sub->BuildSubcomputation(bad_sub->Dot(q, q));
  ASSERT_NE(with_dot, nullptr);
  Op y = bad.Parameter(0, Shape::Array(ElementType::kF32, {2, 2}));
  Op rejected = bad.Fusion(FusionKind::kLoop, {y}, with_dot);
  EXPECT_FALSE(rejected.valid());
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot hold dot"));
}

}  // namespace
}  // namespace xffi
