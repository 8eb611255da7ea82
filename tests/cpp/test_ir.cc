// The IR's containers: opcode tables, computations, modules and cloning.
#include "xffi/program/ir.h"

#include <gtest/gtest.h>

namespace xffi {
namespace {

TEST(OpcodeTest, NamesInBothSpellings) {
  EXPECT_EQ(OpcodeName(Opcode::kCustomCall), "custom-call");
  EXPECT_EQ(StableHloOpcodeName(Opcode::kCustomCall), "stablehlo.custom_call");
  EXPECT_EQ(OpcodeFromName("dynamic-update-slice"),
            Opcode::kDynamicUpdateSlice);
  EXPECT_EQ(OpcodeFromStableHloName("stablehlo.broadcast_in_dim"),
            Opcode::kBroadcast);
  EXPECT_EQ(OpcodeFromStableHloName("chlo.lgamma"), Opcode::kLgamma);
  EXPECT_EQ(OpcodeFromStableHloName(""), std::nullopt);
  EXPECT_EQ(StableHloOpcodeName(Opcode::kParameter), "");
  EXPECT_EQ(OpcodeFromName("frobnicate"), std::nullopt);
  EXPECT_TRUE(IsElementwiseUnary(Opcode::kDigamma));
  EXPECT_FALSE(IsElementwiseUnary(Opcode::kAdd));
  EXPECT_TRUE(IsElementwiseBinary(Opcode::kCompare));
  EXPECT_FALSE(IsElementwiseBinary(Opcode::kSelect));
}

TEST(OpcodeTest, ComparisonNames) {
  EXPECT_EQ(ComparisonDirectionName(ComparisonDirection::kGe), "GE");
  EXPECT_EQ(ComparisonDirectionFromName("LT"), ComparisonDirection::kLt);
  EXPECT_EQ(ComparisonTypeFromName("TOTALORDER"), ComparisonType::kTotalOrder);
  EXPECT_EQ(ComparisonTypeFromName("totalorder"), std::nullopt);
}

TEST(LocationTest, Text) {
  EXPECT_EQ((Location{"f.mlir", 3, 7, ""}).ToString(), "f.mlir:3:7");
  EXPECT_EQ((Location{"", 3, 7, ""}).ToString(), "line 3:7");
  EXPECT_EQ((Location{"", 0, 0, "jit(f)/add"}).ToString(), "jit(f)/add");
  EXPECT_EQ((Location{"f.mlir", 3, 7, "jit(f)/add"}).ToString(),
            "f.mlir:3:7 (jit(f)/add)");
  EXPECT_EQ(Location{}.ToString(), "unknown location");
}

Module MakeModule() {
  Module module("m");
  auto body = std::make_unique<Computation>("add");
  Shape scalar = Shape::Scalar(ElementType::kF32);
  Instruction* a = body->AddInstruction(Opcode::kParameter, scalar, {}, "a");
  Instruction* b = body->AddInstruction(Opcode::kParameter, scalar, {}, "b");
  b->parameter_number = 1;
  body->set_root(body->AddInstruction(Opcode::kAdd, scalar, {a, b}));
  Computation* add = module.AddComputation(std::move(body));

  auto main = std::make_unique<Computation>("main");
  Shape vec = Shape::Array(ElementType::kF32, {4});
  Instruction* x = main->AddInstruction(Opcode::kParameter, vec, {}, "x");
  Instruction* zero = main->AddInstruction(Opcode::kConstant, scalar);
  zero->literal = Literal::Scalar<float>(0);
  Instruction* sum = main->AddInstruction(Opcode::kReduce, scalar, {x, zero});
  sum->dimensions = {0};
  sum->AppendCalledComputation(add);
  sum->set_location(Location{"p.mlir", 5, 10, ""});
  main->set_root(sum);
  module.set_entry(module.AddComputation(std::move(main)));
  return module;
}

TEST(ModuleTest, ComputationsAndParameters) {
  Module module = MakeModule();
  Computation* add = module.FindComputation("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->parent(), &module);
  EXPECT_EQ(add->num_parameters(), 2);
  EXPECT_EQ(add->parameter(1)->name(), "b");
  EXPECT_EQ(add->parameter(2), nullptr);
  EXPECT_EQ(add->parameters()[0]->name(), "a");
  EXPECT_EQ(module.FindComputation("nope"), nullptr);
  // Unnamed instructions get opcode.index names.
  EXPECT_EQ(module.entry()->instructions()[1]->name(), "constant.1");
  EXPECT_EQ(module.entry()->root()->Describe(),
            "'reduce.2' (reduce) in computation 'main' at p.mlir:5:10");
}

TEST(ModuleTest, CloneIsDeep) {
  Module module = MakeModule();
  Module copy = module.Clone();
  ASSERT_NE(copy.entry(), nullptr);
  EXPECT_NE(copy.entry(), module.entry());
  EXPECT_EQ(copy.entry()->name(), "main");
  Instruction* root = copy.entry()->root();
  EXPECT_EQ(root->parent(), copy.entry());
  EXPECT_EQ(root->operand(0), copy.entry()->instructions()[0].get());
  EXPECT_EQ(root->called_computations()[0], copy.FindComputation("add"));
  EXPECT_EQ(root->dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(copy.entry()->instructions()[1]->literal,
            Literal::Scalar<float>(0));
  EXPECT_EQ(copy.FindComputation("add")->root()->operand(1)->parameter_number,
            1);
}

TEST(ModuleTest, RemoveInstructionsIf) {
  Module module = MakeModule();
  Computation* main = module.entry();
  main->AddInstruction(Opcode::kConstant, Shape::Scalar(ElementType::kS32), {},
                       "dead");
  main->RemoveInstructionsIf(
      [](const Instruction* i) { return i->name() == "dead"; });
  EXPECT_EQ(main->instruction_count(), 3);
}

}  // namespace
}  // namespace xffi
