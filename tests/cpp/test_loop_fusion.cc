// The loop fusion pass (src/passes/loop_fusion.h): which ops it fuses, where
// it must not, and that fused programs compute what unfused ones do (JAX-
// lowered programs included).
#include "passes/loop_fusion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion_test_util.h"
#include "xffi/program/text.h"

namespace xffi::passes {
namespace {

using fusion_test::FirstDifference;
using fusion_test::OpcodesOf;
using fusion_test::OpsOf;
using fusion_test::Parse;
using fusion_test::RandomF32;
using fusion_test::RunText;

int64_t FuseAndCheck(Module& module) {
  return fusion_test::FuseAndCheck(module, FuseLoops);
}

constexpr std::string_view kChain = R"(HloModule m

ENTRY %main (p0: f32[64], p1: f32[64]) -> f32[64] {
  %p0 = f32[64] parameter(0)
  %p1 = f32[64] parameter(1)
  %add = f32[64] add(%p0, %p1)
  %exp = f32[64] exponential(%add)
  %two = f32[] constant(2)
  %b = f32[64] broadcast(%two), dimensions={}
  ROOT %mul = f32[64] multiply(%exp, %b)
}
)";

TEST(LoopFusion, AChainBecomesOneFusion) {
  Module module = Parse(kChain);
  EXPECT_EQ(FuseAndCheck(module), 1);
  const Computation& entry = *module.entry();
  ASSERT_EQ(entry.root()->opcode(), Opcode::kFusion);
  EXPECT_EQ(entry.instruction_count(), 3);  // two parameters and the fusion
  const Computation& fused = *entry.root()->called_computations()[0];
  EXPECT_THAT(OpcodesOf(fused),
              ::testing::UnorderedElementsAre(
                  Opcode::kAdd, Opcode::kExp, Opcode::kConstant,
                  Opcode::kBroadcast, Opcode::kMultiply));
  EXPECT_EQ(fused.root()->opcode(), Opcode::kMultiply);
  std::vector<Literal> args = {RandomF32({64}, 1), RandomF32({64}, 2)};
  auto fused_out = RunText(kChain, args, true);
  auto plain_out = RunText(kChain, args, false);
  ASSERT_TRUE(fused_out.ok()) << fused_out.status().message();
  ASSERT_TRUE(plain_out.ok()) << plain_out.status().message();
  EXPECT_EQ(FirstDifference((*fused_out)[0], (*plain_out)[0]), "");
}

TEST(LoopFusion, AValueAlsoNeededOutsideIsNotRecomputed) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[8]) -> (f32[8], f32[8]) {
  %p = f32[8] parameter(0)
  %exp = f32[8] exponential(%p)
  %neg = f32[8] negate(%exp)
  %mul = f32[8] multiply(%neg, %neg)
  ROOT %t = (f32[8], f32[8]) tuple(%exp, %mul)
}
)");
  EXPECT_EQ(FuseAndCheck(module), 1);
  const Computation& entry = *module.entry();
  ASSERT_EQ(OpsOf(entry, Opcode::kExp).size(), 1u);
  std::vector<const Instruction*> fusions = OpsOf(entry, Opcode::kFusion);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->operand(0)->opcode(), Opcode::kExp);
  EXPECT_THAT(OpcodesOf(*fusions[0]->called_computations()[0]),
              ::testing::ElementsAre(Opcode::kNegate, Opcode::kMultiply));
}

TEST(LoopFusion, SideEffectingCustomCallReadsAnUnfusedValue) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8] parameter(0)
  %exp = f32[8] exponential(%p)
  %log = f32[8] custom-call(%exp), custom_call_target="log_it", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI
  %neg = f32[8] negate(%exp)
  ROOT %mul = f32[8] multiply(%neg, %log)
}
)");
  FuseAndCheck(module);
  const Computation& entry = *module.entry();
  std::vector<const Instruction*> calls = OpsOf(entry, Opcode::kCustomCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]->operand(0)->opcode(), Opcode::kExp);
  EXPECT_EQ(OpsOf(entry, Opcode::kExp).size(), 1u);
  // negate and multiply fuse after the custom call; the call stays between
  // its operand and its user.
  std::vector<const Instruction*> fusions = OpsOf(entry, Opcode::kFusion);
  ASSERT_EQ(fusions.size(), 1u);
  std::vector<const Instruction*> operands(fusions[0]->operands().begin(),
                                           fusions[0]->operands().end());
  EXPECT_THAT(operands,
              ::testing::UnorderedElementsAre(calls[0], calls[0]->operand(0)));
}

TEST(LoopFusion, ComputationsACustomCallReadsStayAsWritten) {
  Module module = Parse(R"(HloModule m
%body (a: f32[8]) -> f32[8] {
  %a = f32[8] parameter(0)
  %e = f32[8] exponential(%a)
  ROOT %n = f32[8] negate(%e)
}
ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8] parameter(0)
  ROOT %c = f32[8] custom-call(%p), custom_call_target="runs_body", called_computations={%body}, api_version=API_VERSION_TYPED_FFI
}
)");
  EXPECT_EQ(FuseAndCheck(module), 0);
  const Computation* body = module.FindComputation("body");
  ASSERT_NE(body, nullptr);
  EXPECT_THAT(OpcodesOf(*body),
              ::testing::ElementsAre(Opcode::kExp, Opcode::kNegate));
}

TEST(LoopFusion, AValueACustomCallAliasesIsNotFused) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8] parameter(0)
  %add = f32[8] add(%p, %p)
  %exp = f32[8] exponential(%add)
  ROOT %c = f32[8] custom-call(%exp), custom_call_target="in_place", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_TYPED_FFI
}
)");
  EXPECT_EQ(FuseAndCheck(module), 0);
  EXPECT_EQ(module.entry()->root()->operand(0)->opcode(), Opcode::kExp);
}

TEST(LoopFusion, LoopBodiesFuseReducersDoNot) {
  Module module = Parse(R"(HloModule m
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  %s = f32[] add(%x, %y)
  ROOT %m = f32[] multiply(%s, %s)
}
%cond (c: (s32[], f32[16])) -> pred[] {
  %c = (s32[], f32[16]) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (b: (s32[], f32[16])) -> (s32[], f32[16]) {
  %b = (s32[], f32[16]) parameter(0)
  %i = s32[] get-tuple-element(%b), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %v = f32[16] get-tuple-element(%b), index=1
  %t = f32[16] tanh(%v)
  %half = f32[] constant(0.5)
  %h = f32[16] broadcast(%half), dimensions={}
  %w = f32[16] multiply(%t, %h)
  ROOT %r = (s32[], f32[16]) tuple(%next, %w)
}
ENTRY %main (p: f32[16]) -> (f32[], f32[16]) {
  %p = f32[16] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[16]) tuple(%zero, %p)
  %loop = (s32[], f32[16]) while(%init), condition=%cond, body=%body
  %v = f32[16] get-tuple-element(%loop), index=1
  %z = f32[] constant(0)
  %sum = f32[] reduce(%v, %z), dimensions={0}, to_apply=%add
  ROOT %out = (f32[], f32[16]) tuple(%sum, %v)
}
)");
  EXPECT_GE(FuseAndCheck(module), 1);
  const Computation* body = module.FindComputation("body");
  ASSERT_NE(body, nullptr);
  std::vector<const Instruction*> fusions = OpsOf(*body, Opcode::kFusion);
  ASSERT_FALSE(fusions.empty());
  bool tanh_fused = false;
  for (const Instruction* fusion : fusions)
    tanh_fused |=
        !OpsOf(*fusion->called_computations()[0], Opcode::kTanh).empty();
  EXPECT_TRUE(tanh_fused);
  // Scalar chains (the counter, the condition) stay as they are.
  const Computation* cond = module.FindComputation("cond");
  ASSERT_NE(cond, nullptr);
  EXPECT_TRUE(OpsOf(*cond, Opcode::kFusion).empty());
  const Computation* reducer = module.FindComputation("add");
  ASSERT_NE(reducer, nullptr);
  EXPECT_THAT(OpcodesOf(*reducer),
              ::testing::ElementsAre(Opcode::kAdd, Opcode::kMultiply));
}

TEST(LoopFusion, AnExpensiveProducerIsNotRecomputedPerBroadcastElement) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[8], q: f32[8,16]) -> f32[8,16] {
  %p = f32[8] parameter(0)
  %q = f32[8,16] parameter(1)
  %e = f32[8] exponential(%p)
  %b = f32[8,16] broadcast(%e), dimensions={0}
  ROOT %m = f32[8,16] multiply(%b, %q)
}
)");
  EXPECT_EQ(FuseAndCheck(module), 1);
  const Computation& entry = *module.entry();
  EXPECT_EQ(OpsOf(entry, Opcode::kExp).size(), 1u);
  const Instruction* fusion = entry.root();
  ASSERT_EQ(fusion->opcode(), Opcode::kFusion);
  EXPECT_THAT(OpcodesOf(*fusion->called_computations()[0]),
              ::testing::ElementsAre(Opcode::kBroadcast, Opcode::kMultiply));
}

TEST(LoopFusion, CheapGeneratorsAreCopiedIntoEachFusion) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[8], q: f32[8]) -> (f32[8], f32[8]) {
  %p = f32[8] parameter(0)
  %q = f32[8] parameter(1)
  %c = f32[] constant(3)
  %b = f32[8] broadcast(%c), dimensions={}
  %x = f32[8] multiply(%p, %b)
  %y = f32[8] add(%q, %b)
  ROOT %t = (f32[8], f32[8]) tuple(%x, %y)
}
)");
  EXPECT_EQ(FuseAndCheck(module), 2);
  const Computation& entry = *module.entry();
  EXPECT_TRUE(OpsOf(entry, Opcode::kBroadcast).empty());
  for (const Instruction* fusion : OpsOf(entry, Opcode::kFusion)) {
    EXPECT_EQ(fusion->operand_count(), 1);
    EXPECT_EQ(
        OpsOf(*fusion->called_computations()[0], Opcode::kBroadcast).size(),
        1u);
  }
}

// Two outputs read one xor: both fusions compute it (XLA duplicates cheap
// producers the same way), so nothing is written between them; the results
// match the unfused program.
TEST(LoopFusion, ACheapProducerOfTwoFusionsIsComputedInEach) {
  constexpr std::string_view kText = R"(HloModule m
ENTRY %main (p: u32[64], q: u32[64]) -> (u32[64], u32[64]) {
  %p = u32[64] parameter(0)
  %q = u32[64] parameter(1)
  %x = u32[64] xor(%p, %q)
  %a = u32[64] add(%x, %p)
  %m = u32[64] multiply(%x, %q)
  ROOT %t = (u32[64], u32[64]) tuple(%a, %m)
}
)";
  Module module = Parse(kText);
  EXPECT_EQ(FuseAndCheck(module), 2);
  const Computation& entry = *module.entry();
  EXPECT_TRUE(OpsOf(entry, Opcode::kXor).empty());
  std::vector<const Instruction*> fusions = OpsOf(entry, Opcode::kFusion);
  ASSERT_EQ(fusions.size(), 2u);
  for (const Instruction* fusion : fusions) {
    EXPECT_EQ(OpsOf(*fusion->called_computations()[0], Opcode::kXor).size(),
              1u);
    for (const Instruction* operand : fusion->operands())
      EXPECT_EQ(operand->opcode(), Opcode::kParameter);
  }
  Literal p(Shape::Array(ElementType::kU32, {64}));
  Literal q(Shape::Array(ElementType::kU32, {64}));
  for (int64_t i = 0; i < 64; ++i) {
    p.data<uint32_t>()[i] = static_cast<uint32_t>(i * 2654435761u);
    q.data<uint32_t>()[i] = static_cast<uint32_t>(i * 40503u + 7);
  }
  std::vector<Literal> args;
  args.push_back(std::move(p));
  args.push_back(std::move(q));
  auto fused_out = RunText(kText, args, true);
  auto plain_out = RunText(kText, args, false);
  ASSERT_TRUE(fused_out.ok()) << fused_out.status().message();
  ASSERT_TRUE(plain_out.ok()) << plain_out.status().message();
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(FirstDifference((*fused_out)[i], (*plain_out)[i]), "");
}

// An exp read by two fusions is not computed twice: it stays its own op.
TEST(LoopFusion, AnExpensiveProducerOfTwoFusionsIsNotComputedTwice) {
  Module module = Parse(R"(HloModule m
ENTRY %main (p: f32[64], q: f32[64]) -> (f32[64], f32[64]) {
  %p = f32[64] parameter(0)
  %q = f32[64] parameter(1)
  %e = f32[64] exponential(%p)
  %a = f32[64] add(%e, %q)
  %n = f32[64] negate(%a)
  %m = f32[64] multiply(%e, %q)
  %s = f32[64] sqrt(%m)
  ROOT %t = (f32[64], f32[64]) tuple(%n, %s)
}
)");
  EXPECT_EQ(FuseAndCheck(module), 2);
  const Computation& entry = *module.entry();
  EXPECT_EQ(OpsOf(entry, Opcode::kExp).size(), 1u);
  for (const Instruction* fusion : OpsOf(entry, Opcode::kFusion))
    EXPECT_TRUE(OpsOf(*fusion->called_computations()[0], Opcode::kExp).empty());
}

// take_along_axis's form: a gather of one-element slices joins its
// consumer, and the producer of its indices joins with it; the producer of
// the gathered operand does not (it would be evaluated at random points),
// nor does a gather of wider slices (its own kernel copies blocks).
TEST(LoopFusion, PointGatherFusesWithItsIndicesNotItsOperand) {
  const std::string text = R"(HloModule m
ENTRY %main (x: f32[16,32], i: s32[16,8]) -> (f32[16,8], f32[16,8,4]) {
  %x = f32[16,32] parameter(0)
  %i = s32[16,8] parameter(1)
  %e = f32[16,32] exponential(%x)
  %one = s32[] constant(1)
  %ones = s32[16,8] broadcast(%one), dimensions={}
  %a = s32[16,8] add(%i, %ones)
  %r = s32[16,8,1] reshape(%a)
  %g = f32[16,8] gather(%e, %r), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
  %n = f32[16,8] negate(%g)
  %ri = s32[16,8,1] reshape(%i)
  %w = f32[16,8,4] gather(%e, %ri), offset_dims={2}, collapsed_slice_dims={}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,4}
  %m = f32[16,8,4] negate(%w)
  ROOT %t = (f32[16,8], f32[16,8,4]) tuple(%n, %m)
}
)";
  Module module = Parse(text);
  FuseAndCheck(module);
  const Computation& entry = *module.entry();
  // The wide gather and the exponential stay outside any fusion.
  ASSERT_EQ(OpsOf(entry, Opcode::kGather).size(), 1u);
  EXPECT_EQ(OpsOf(entry, Opcode::kGather)[0]->gather_slice_sizes,
            (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(OpsOf(entry, Opcode::kExp).size(), 1u);
  const Instruction* point = nullptr;
  for (const Instruction* fusion : OpsOf(entry, Opcode::kFusion))
    if (!OpsOf(*fusion->called_computations()[0], Opcode::kGather).empty())
      point = fusion;
  ASSERT_NE(point, nullptr);
  EXPECT_THAT(OpcodesOf(*point->called_computations()[0]),
              ::testing::IsSupersetOf({Opcode::kAdd, Opcode::kReshape,
                                       Opcode::kGather, Opcode::kNegate}));
  std::vector<Literal> args = {RandomF32({16, 32}, 3)};
  Literal indices(Shape::Array(ElementType::kS32, {16, 8}));
  for (int64_t k = 0; k < 16 * 8; ++k)
    indices.data<int32_t>()[k] = static_cast<int32_t>(k * 7 % 41) - 4;
  args.push_back(std::move(indices));
  auto fused_out = RunText(text, args, true);
  auto plain_out = RunText(text, args, false);
  ASSERT_TRUE(fused_out.ok()) << fused_out.status().message();
  ASSERT_TRUE(plain_out.ok()) << plain_out.status().message();
  for (size_t r = 0; r < 2; ++r)
    EXPECT_EQ(FirstDifference((*fused_out)[r], (*plain_out)[r]), "") << r;
}

TEST(LoopFusion, FusionsStayWithinTheSizeBound) {
  std::string text =
      "HloModule m\nENTRY %main (p: f32[4]) -> f32[4] {\n"
      "  %p = f32[4] parameter(0)\n  %n0 = f32[4] negate(%p)\n";
  const int kChainLength = 150;
  for (int i = 1; i < kChainLength; ++i)
    text += "  %n" + std::to_string(i) + " = f32[4] negate(%n" +
            std::to_string(i - 1) + ")\n";
  text +=
      "  ROOT %r = f32[4] abs(%n" + std::to_string(kChainLength - 1) + ")\n}\n";
  Module module = Parse(text);
  EXPECT_EQ(FuseAndCheck(module), 3);
  for (const Instruction* fusion : OpsOf(*module.entry(), Opcode::kFusion))
    EXPECT_LE(fusion->called_computations()[0]->instruction_count() - 1,
              kMaxFusedInstructions);
}

// JAX's HLO text spells erf_inv (jax.random.normal) as a polynomial whose
// every coefficient is a select between two broadcast constants: about as
// many generators as computing ops. The bound counts the computing ones, so
// such a chain stays one fusion, as chlo.erf_inv in the StableHLO text does,
// instead of splitting into fusions that pass arrays through memory.
TEST(LoopFusion, BroadcastConstantsDoNotCountTowardTheSizeBound) {
  std::string text =
      "HloModule m\nENTRY %main (p: f32[16]) -> f32[16] {\n"
      "  %p = f32[16] parameter(0)\n"
      "  %zero = f32[] constant(0)\n"
      "  %zeros = f32[16] broadcast(%zero), dimensions={}\n"
      "  %w = pred[16] compare(%p, %zeros), direction=LT\n"
      "  %v0 = f32[16] negate(%p)\n";
  const int kSteps = 20;  // 2 computing ops and 4 generators per step
  for (int i = 1; i <= kSteps; ++i) {
    const std::string k = std::to_string(i);
    const std::string prev = "%v" + std::to_string(i - 1);
    text += "  %a" + k + " = f32[] constant(" + k + ")\n";
    text += "  %b" + k + " = f32[] constant(-" + k + ".5)\n";
    text += "  %ba" + k + " = f32[16] broadcast(%a" + k + "), dimensions={}\n";
    text += "  %bb" + k + " = f32[16] broadcast(%b" + k + "), dimensions={}\n";
    text += "  %c" + k + " = f32[16] select(%w, %ba" + k + ", %bb" + k + ")\n";
    text += "  %m" + k + " = f32[16] multiply(" + prev + ", %c" + k + ")\n";
    text += "  %v" + k + " = f32[16] add(%m" + k + ", %p)\n";
  }
  text += "  ROOT %r = f32[16] abs(%v" + std::to_string(kSteps) + ")\n}\n";
  Module module = Parse(text);
  EXPECT_EQ(FuseAndCheck(module), 1);
  const std::vector<const Instruction*> fusions =
      OpsOf(*module.entry(), Opcode::kFusion);
  ASSERT_EQ(fusions.size(), 1u);
  // Every op but the parameter is inside: more than the bound in all.
  EXPECT_GT(fusions[0]->called_computations()[0]->instruction_count(),
            kMaxFusedInstructions);
  std::vector<Literal> args = {RandomF32({16}, 4)};
  auto fused_out = RunText(text, args, true);
  auto plain_out = RunText(text, args, false);
  ASSERT_TRUE(fused_out.ok()) << fused_out.status().message();
  ASSERT_TRUE(plain_out.ok()) << plain_out.status().message();
  EXPECT_EQ(FirstDifference((*fused_out)[0], (*plain_out)[0]), "");
}

// jax.jit(f).lower(...).as_text() of JAX 0.10.2, f as named.
// jax.nn.softmax(x, axis=-1) on f32[8,1000].
constexpr std::string_view kSoftmax = R"(
module @jit_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x1000xf32>) -> (tensor<8x1000xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x1000xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x1000xf32>
    %6 = stablehlo.exponential %5 : tensor<8x1000xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x1000xf32>
    %10 = stablehlo.divide %6, %9 : tensor<8x1000xf32>
    return %10 : tensor<8x1000xf32>
  }
}
)";

// Layer norm: (x - mean) * rsqrt(var + 1e-5) * g + b over the last axis.
constexpr std::string_view kLayerNorm = R"(
module @jit_layernorm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x300xf32>, %arg1: tensor<300xf32>, %arg2: tensor<300xf32>) -> (tensor<4x300xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x300xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_0 = stablehlo.constant dense<3.000000e+02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x300xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x300xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<4x300xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x300xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<4x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x300xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<4x300xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<4x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<4x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x300xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<4x300xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<300xf32>) -> tensor<1x300xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (tensor<1x300xf32>) -> tensor<4x300xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<4x300xf32>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<300xf32>) -> tensor<1x300xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<1x300xf32>) -> tensor<4x300xf32>
    %23 = stablehlo.add %20, %22 : tensor<4x300xf32>
    return %23 : tensor<4x300xf32>
  }
}
)";

// jnp.where(x > 0.5, jnp.tanh(x) * 2.0 + y.T, -x) on f32[70,130], f32[130,70].
constexpr std::string_view kWhereTranspose = R"(
module @jit_chain attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<70x130xf32>, %arg1: tensor<130x70xf32>) -> (tensor<70x130xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<70x130xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<70x130xf32>, tensor<70x130xf32>) -> tensor<70x130xi1>
    %2 = stablehlo.tanh %arg0 : tensor<70x130xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<70x130xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<70x130xf32>
    %5 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<130x70xf32>) -> tensor<70x130xf32>
    %6 = stablehlo.add %4, %5 : tensor<70x130xf32>
    %7 = stablehlo.negate %arg0 : tensor<70x130xf32>
    %8 = call @_where(%1, %6, %7) : (tensor<70x130xi1>, tensor<70x130xf32>, tensor<70x130xf32>) -> tensor<70x130xf32>
    return %8 : tensor<70x130xf32>
  }
  func.func private @_where(%arg0: tensor<70x130xi1>, %arg1: tensor<70x130xf32>, %arg2: tensor<70x130xf32>) -> tensor<70x130xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<70x130xi1>, tensor<70x130xf32>
    return %0 : tensor<70x130xf32>
  }
}
)";

// x[1:, ::2][::-1] * 3.0 + 1.0 on f32[9,20].
constexpr std::string_view kSliceReverse = R"(
module @jit_slices attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9x20xf32>) -> (tensor<8x10xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:9, 0:20:2] : (tensor<9x20xf32>) -> tensor<8x10xf32>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<8x10xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x10xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<8x10xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x10xf32>
    %5 = stablehlo.add %3, %4 : tensor<8x10xf32>
    return %5 : tensor<8x10xf32>
  }
}
)";

struct JaxCase {
  const char* name;
  std::string_view text;
  std::vector<std::vector<int64_t>> parameters;
  int64_t min_fusions;
};

TEST(LoopFusion, JaxProgramsFuseAndComputeTheSame) {
  const JaxCase cases[] = {
      {"softmax", kSoftmax, {{8, 1000}}, 2},
      {"layernorm", kLayerNorm, {{4, 300}, {300}, {300}}, 3},
      {"where_transpose", kWhereTranspose, {{70, 130}, {130, 70}}, 2},
      {"slice_reverse", kSliceReverse, {{9, 20}}, 1},
  };
  for (const JaxCase& c : cases) {
    SCOPED_TRACE(c.name);
    Module module = Parse(c.text);
    EXPECT_GE(FuseAndCheck(module), c.min_fusions) << PrintHlo(module);
    std::vector<Literal> args;
    for (size_t i = 0; i < c.parameters.size(); ++i)
      args.push_back(RandomF32(c.parameters[i], static_cast<uint32_t>(i + 7)));
    auto plain = RunText(c.text, args, false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    for (int threads : {1, 4}) {
      auto fused = RunText(c.text, args, true, threads);
      ASSERT_TRUE(fused.ok()) << fused.status().message();
      EXPECT_EQ(FirstDifference((*fused)[0], (*plain)[0]), "")
          << "threads " << threads;
    }
  }
}

}  // namespace
}  // namespace xffi::passes
