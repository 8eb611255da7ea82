// VerifyModule: module structure, def-before-use, region signatures, result
// shapes, and the message for each problem.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "xffi/program/builder.h"
#include "xffi/program/ir.h"

namespace xffi {
namespace {

constexpr ElementType F32 = ElementType::kF32;
constexpr ElementType S32 = ElementType::kS32;
constexpr ElementType PRED = ElementType::kPred;

Shape A(ElementType type, std::vector<int64_t> dims) {
  return Shape::Array(type, std::move(dims));
}
Shape S(ElementType type) { return Shape::Scalar(type); }

// Modules assembled by hand, as a parser does, so that they can be wrong.
class VerifierTest : public ::testing::Test {
 protected:
  Computation* NewComputation(std::string name) {
    return module_.AddComputation(
        std::make_unique<Computation>(std::move(name)));
  }
  static Instruction* Param(Computation* c, int64_t number, const Shape& shape,
                            std::string name) {
    Instruction* param =
        c->AddInstruction(Opcode::kParameter, shape, {}, std::move(name));
    param->parameter_number = number;
    return param;
  }
  // A region (a, b) -> a `opcode` b over scalars of `type`.
  Computation* Binary(std::string name, ElementType type, Opcode opcode,
                      ElementType result) {
    Computation* c = NewComputation(std::move(name));
    Instruction* a = Param(c, 0, S(type), "a");
    Instruction* b = Param(c, 1, S(type), "b");
    c->set_root(c->AddInstruction(opcode, S(result), {a, b}, "r"));
    return c;
  }
  // main(x: f32[4]) whose root the test sets.
  Computation* Main() {
    Computation* main = NewComputation("main");
    x_ = Param(main, 0, A(F32, {4}), "x");
    module_.set_entry(main);
    return main;
  }
  std::string Verify() const {
    Status status = VerifyModule(module_);
    if (status.ok()) return "OK";
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    return status.message();
  }

  Module module_{"m"};
  Instruction* x_ = nullptr;
};

TEST_F(VerifierTest, AValidModuleWithARegion) {
  Computation* add = Binary("add", F32, Opcode::kAdd, F32);
  Computation* main = Main();
  Instruction* zero = main->AddInstruction(Opcode::kConstant, S(F32), {}, "z");
  zero->literal = Literal::Scalar<float>(0);
  Instruction* sum = main->AddInstruction(Opcode::kReduce, S(F32), {x_, zero});
  sum->dimensions = {0};
  sum->AppendCalledComputation(add);
  main->set_root(sum);
  EXPECT_EQ(Verify(), "OK");
  EXPECT_TRUE(VerifyModule(module_.Clone()).ok());

  // A declared layout is fine where the inferred shape has none.
  x_->set_shape(Shape::Array(F32, {4}, {0}));
  EXPECT_EQ(Verify(), "OK");

  // The reducer's signature is checked, with the op's location.
  sum->set_location(Location{"p.mlir", 5, 10, ""});
  Param(add, 2, S(F32), "c");
  EXPECT_EQ(Verify(),
            "'reduce.2' (reduce) in computation 'main' at p.mlir:5:10: "
            "reducer 'add' takes 3 parameters, expected 2");
}

TEST_F(VerifierTest, ModuleStructure) {
  EXPECT_EQ(Verify(), "module 'm' has no entry computation");

  Computation stray("stray");
  module_.set_entry(&stray);
  EXPECT_EQ(Verify(),
            "module 'm' entry computation is not one of its "
            "computations");

  Computation* main = Main();
  EXPECT_EQ(Verify(), "computation 'main' has no root");
  main->set_root(x_);
  EXPECT_EQ(Verify(), "OK");

  Computation* other = NewComputation("main");
  other->set_root(Param(other, 0, S(F32), "p"));
  EXPECT_EQ(Verify(), "module 'm' has two computations named 'main'");
  other->set_name("other");
  EXPECT_EQ(Verify(), "OK");

  main->set_root(other->root());
  EXPECT_EQ(Verify(),
            "computation 'main': its root is not one of its instructions");
}

TEST_F(VerifierTest, ParameterNumbering) {
  Computation* main = Main();
  Instruction* y = Param(main, 0, S(F32), "y");
  main->set_root(y);
  EXPECT_EQ(Verify(),
            "computation 'main': parameters 'x' and 'y' both have number 0");
  y->parameter_number = 2;
  EXPECT_EQ(Verify(),
            "computation 'main': parameter 'y' has number 2; its 2 parameters "
            "must be numbered 0..1");
  y->parameter_number = 1;
  EXPECT_EQ(Verify(), "OK");
}

TEST_F(VerifierTest, OperandsAreDefinedEarlierInTheSameComputation) {
  Computation* add = Binary("add", F32, Opcode::kAdd, F32);
  Computation* main = Main();
  Instruction* neg =
      main->AddInstruction(Opcode::kNegate, A(F32, {4}), {x_}, "neg");
  Instruction* later =
      main->AddInstruction(Opcode::kAbs, A(F32, {4}), {x_}, "later");
  main->set_root(later);
  neg->ReplaceOperand(0, later);
  EXPECT_EQ(Verify(),
            "'neg' (negate) in computation 'main': operand 0 'later' is used "
            "before it is defined");

  Instruction* a = add->parameter(0);
  neg->set_shape(S(F32));
  neg->ReplaceOperand(0, a);
  EXPECT_EQ(Verify(),
            "'neg' (negate) in computation 'main': operand 0 'a' belongs to "
            "computation 'add'");

  Computation elsewhere("elsewhere");
  Instruction* foreign = Param(&elsewhere, 0, S(F32), "foreign");
  neg->ReplaceOperand(0, foreign);
  EXPECT_EQ(Verify(),
            "'neg' (negate) in computation 'main': operand 0 is not an "
            "instruction of module 'm'");
}

TEST_F(VerifierTest, CalledComputationsBelongToTheModule) {
  Computation* main = Main();
  Computation outside("outside");
  Param(&outside, 0, A(F32, {4}), "p");
  outside.set_root(outside.parameter(0));
  Instruction* call = main->AddInstruction(Opcode::kCall, A(F32, {4}), {x_});
  call->AppendCalledComputation(&outside);
  main->set_root(call);
  EXPECT_EQ(Verify(),
            "'call.1' (call) in computation 'main': called computation 0 is "
            "not in module 'm'");
}

TEST_F(VerifierTest, ResultShapesMatchInference) {
  Computation* main = Main();
  Instruction* sum =
      main->AddInstruction(Opcode::kAdd, A(F32, {3}), {x_, x_}, "sum");
  main->set_root(sum);
  EXPECT_EQ(Verify(),
            "'sum' (add) in computation 'main': result shape f32[3] does not "
            "match f32[4], the shape its operands give");
  sum->set_shape(Shape::Array(F32, {4}, {1}));
  EXPECT_EQ(Verify(),
            "'sum' (add) in computation 'main': layout of f32[4]{1} is not a "
            "permutation of its dimension numbers");
  sum->set_shape(A(F32, {4}));
  EXPECT_EQ(Verify(), "OK");
  Instruction* bad =
      main->AddInstruction(Opcode::kAdd, A(F32, {4}), {x_}, "bad");
  main->set_root(bad);
  EXPECT_EQ(Verify(),
            "'bad' (add) in computation 'main': takes 2 operands, got 1");
}

// Result shardings (jax.jit's out_shardings) describe the results: one
// per root tuple element, or one for a root that is no tuple; and a copy of
// the module keeps them.
TEST_F(VerifierTest, ResultShardingsCountTheResults) {
  Computation* main = Main();
  Instruction* n =
      main->AddInstruction(Opcode::kNegate, A(F32, {4}), {x_}, "n");
  main->set_root(main->AddInstruction(
      Opcode::kTuple, Shape::Tuple({A(F32, {4}), A(F32, {4})}), {n, x_}, "t"));
  HloSharding tiled;
  tiled.kind = HloSharding::Kind::kTiled;
  tiled.tile_dims = {2};
  tiled.devices = {1, 0};
  main->set_result_shardings({tiled});
  EXPECT_EQ(Verify(),
            "computation 'main' has 2 result(s) and 1 result sharding(s)");
  main->set_result_shardings({std::nullopt, tiled});
  EXPECT_EQ(Verify(), "OK");
  Module copy = module_.Clone();
  ASSERT_EQ(copy.entry()->result_shardings().size(), 2u);
  EXPECT_FALSE(copy.entry()->result_shardings()[0].has_value());
  EXPECT_EQ(copy.entry()->result_shardings()[1], tiled);
  main->set_root(n);
  EXPECT_EQ(Verify(),
            "computation 'main' has 1 result(s) and 2 result sharding(s)");
}

// Result names (jax.jit's jax.result_info) follow the same rule.
TEST_F(VerifierTest, ResultNamesCountTheResults) {
  Computation* main = Main();
  Instruction* n =
      main->AddInstruction(Opcode::kNegate, A(F32, {4}), {x_}, "n");
  main->set_root(main->AddInstruction(
      Opcode::kTuple, Shape::Tuple({A(F32, {4}), A(F32, {4})}), {n, x_}, "t"));
  main->set_result_names({"result[0]"});
  EXPECT_EQ(Verify(),
            "computation 'main' has 2 result(s) and 1 result name(s)");
  main->set_result_names({"result[0]", ""});
  EXPECT_EQ(Verify(), "OK");
  Module copy = module_.Clone();
  EXPECT_EQ(copy.entry()->result_names(),
            (std::vector<std::string>{"result[0]", ""}));
}

TEST_F(VerifierTest, InstructionNamesAreUniqueInAComputation) {
  Computation* main = Main();
  main->set_root(main->AddInstruction(Opcode::kNegate, A(F32, {4}), {x_}, "x"));
  EXPECT_EQ(Verify(), "computation 'main' has two instructions named 'x'");
}

TEST_F(VerifierTest, SortComparatorReturnsPred) {
  Computation* cmp = Binary("cmp", F32, Opcode::kAdd, F32);
  Computation* main = Main();
  Instruction* sort = main->AddInstruction(Opcode::kSort, A(F32, {4}), {x_});
  sort->dimensions = {0};
  sort->AppendCalledComputation(cmp);
  main->set_root(sort);
  EXPECT_EQ(Verify(),
            "'sort.1' (sort) in computation 'main': comparator 'cmp' returns "
            "f32[], expected pred[]");
  cmp->root()->set_shape(S(PRED));
  EXPECT_EQ(Verify(),
            "'r' (add) in computation 'cmp': result shape pred[] does not "
            "match f32[], the shape its operands give");
}

TEST_F(VerifierTest, WhileSignatures) {
  Shape state = Shape::Tuple({S(S32), A(F32, {4})});
  Computation* cond = NewComputation("cond");
  Instruction* cs = Param(cond, 0, state, "s");
  Instruction* counter =
      cond->AddInstruction(Opcode::kGetTupleElement, S(S32), {cs}, "i");
  cond->set_root(counter);
  Computation* body = NewComputation("body");
  body->set_root(Param(body, 0, state, "s"));

  Computation* main = Main();
  Instruction* zero = main->AddInstruction(Opcode::kConstant, S(S32), {}, "z");
  zero->literal = Literal::Scalar<int32_t>(0);
  Instruction* init = main->AddInstruction(Opcode::kTuple, state, {zero, x_});
  Instruction* loop = main->AddInstruction(Opcode::kWhile, state, {init});
  loop->AppendCalledComputation(cond);
  loop->AppendCalledComputation(body);
  main->set_root(loop);
  EXPECT_EQ(Verify(),
            "'while.3' (while) in computation 'main': condition 'cond' "
            "returns s32[], expected pred[]");

  Instruction* limit =
      cond->AddInstruction(Opcode::kConstant, S(S32), {}, "limit");
  limit->literal = Literal::Scalar<int32_t>(3);
  Instruction* lt =
      cond->AddInstruction(Opcode::kCompare, S(PRED), {counter, limit}, "lt");
  lt->comparison_direction = ComparisonDirection::kLt;
  cond->set_root(lt);
  EXPECT_EQ(Verify(), "OK");

  body->set_root(body->AddInstruction(Opcode::kGetTupleElement, A(F32, {4}),
                                      {body->parameter(0)}, "values"));
  body->root()->tuple_index = 1;
  EXPECT_EQ(Verify(),
            "'while.3' (while) in computation 'main': body 'body' returns "
            "f32[4], expected (s32[], f32[4])");
}

TEST_F(VerifierTest, ConditionalBranches) {
  Computation* negate = NewComputation("negate");
  negate->set_root(negate->AddInstruction(
      Opcode::kNegate, A(F32, {4}), {Param(negate, 0, A(F32, {4}), "p")}));
  Computation* zeros = NewComputation("zeros");
  Param(zeros, 0, S(S32), "unused");
  Instruction* zero_value =
      zeros->AddInstruction(Opcode::kConstant, A(F32, {4}), {}, "c");
  zero_value->literal = Literal::Vector<float>({0, 0, 0, 0});
  zeros->set_root(zero_value);

  Computation* main = Main();
  Instruction* index = Param(main, 1, S(S32), "index");
  Instruction* branch = main->AddInstruction(Opcode::kConditional, A(F32, {4}),
                                             {index, x_, index}, "branch");
  branch->AppendCalledComputation(negate);
  branch->AppendCalledComputation(zeros);
  main->set_root(branch);
  EXPECT_EQ(Verify(), "OK");

  branch->ReplaceOperand(2, x_);
  EXPECT_EQ(Verify(),
            "'branch' (conditional) in computation 'main': branch 1 'zeros' "
            "parameter 0 is s32[], expected f32[4]");
  branch->ReplaceOperand(2, index);
  zero_value->literal = Literal::Vector<float>({0, 0});
  zero_value->set_shape(A(F32, {2}));
  EXPECT_EQ(Verify(),
            "'branch' (conditional) in computation 'main': branch 1 'zeros' "
            "returns f32[2], branch 0 'negate' returns f32[4]");
}

TEST_F(VerifierTest, ScatterCombiner) {
  Computation* combine = Binary("combine", S32, Opcode::kAdd, S32);
  Computation* main = Main();
  Instruction* index = Param(main, 1, S(S32), "index");
  Instruction* update = Param(main, 2, S(F32), "update");
  Instruction* scatter = main->AddInstruction(Opcode::kScatter, A(F32, {4}),
                                              {x_, index, update}, "scatter");
  scatter->AppendCalledComputation(combine);
  scatter->scatter_dimension_numbers.inserted_window_dims = {0};
  scatter->scatter_dimension_numbers.scatter_dims_to_operand_dims = {0};
  main->set_root(scatter);
  EXPECT_EQ(Verify(),
            "'scatter' (scatter) in computation 'main': update computation "
            "'combine' parameter 0 is s32[], expected f32[]");
}

TEST_F(VerifierTest, CustomCallAliasesAndLayouts) {
  Computation* main = Main();
  Instruction* call =
      main->AddInstruction(Opcode::kCustomCall, A(F32, {4}), {x_}, "call");
  call->custom_call.target = "in_place";
  call->custom_call.output_operand_aliases = {{{}, 0, {}}};
  call->custom_call.operand_layouts = {Shape::Array(F32, {4}, {0})};
  call->custom_call.result_layouts = {Shape::Array(F32, {4}, {0})};
  main->set_root(call);
  EXPECT_EQ(Verify(), "OK");

  call->custom_call.output_operand_aliases = {{{}, 1, {}}};
  EXPECT_EQ(Verify(),
            "'call' (custom-call \"in_place\") in computation 'main': "
            "output_operand_aliases[0]: operand 1 is out of range (1 "
            "operands)");
  call->custom_call.output_operand_aliases = {};
  call->custom_call.result_layouts = {};
  call->custom_call.operand_layouts = {Shape::Array(F32, {4}, {0}),
                                       Shape::Array(F32, {4}, {0})};
  EXPECT_EQ(Verify(),
            "'call' (custom-call \"in_place\") in computation 'main': has 2 "
            "operand layouts for 1 operands");
}

TEST_F(VerifierTest, RecursionIsRefused) {
  Computation* a = NewComputation("a");
  Computation* b = NewComputation("b");
  Instruction* a_call =
      a->AddInstruction(Opcode::kCall, S(F32), {Param(a, 0, S(F32), "p")});
  a_call->AppendCalledComputation(b);
  a->set_root(a_call);
  Instruction* b_call =
      b->AddInstruction(Opcode::kCall, S(F32), {Param(b, 0, S(F32), "q")});
  b_call->AppendCalledComputation(a);
  b->set_root(b_call);
  Computation* main = NewComputation("main");
  Instruction* main_call = main->AddInstruction(Opcode::kCall, S(F32),
                                                {Param(main, 0, S(F32), "x")});
  main_call->AppendCalledComputation(a);
  main->set_root(main_call);
  module_.set_entry(main);
  EXPECT_EQ(Verify(), "computation 'a' calls itself: 'a' -> 'b' -> 'a'");
}

TEST(VerifierBuilderTest, AMovedModuleStillVerifies) {
  Builder b("main");
  auto sub = b.CreateSubBuilder("max");
  Computation* max = sub->BuildSubcomputation(
      sub->Max(sub->Parameter(0, S(F32)), sub->Parameter(1, S(F32))));
  auto x = b.Parameter(0, A(F32, {3, 4}), "x");
  StatusOr<Module> built =
      b.Build(b.Reduce({x}, {b.ConstantScalar(-1.0f)}, max, {1}));
  ASSERT_TRUE(built.ok()) << built.status().message();
  Module moved = std::move(*built);
  EXPECT_TRUE(VerifyModule(moved).ok());
  EXPECT_EQ(moved.entry()->root()->shape().ToString(), "f32[3]");
}

}  // namespace
}  // namespace xffi
