// Shape refinement of shape-polymorphic StableHLO (ParseOptions::
// argument_shapes): modules written as jax.export writes them for symbolic
// dimensions, refined to concrete shapes and run; JAX's shape assertions;
// one specialisation per call signature; and the errors (a failing
// assertion, a shape that depends on data, a shape that does not match,
// and an unrefined program reaching the verifier).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "executor_test_util.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using test::CompileAndRun;
using ::testing::HasSubstr;

StatusOr<Module> Refine(const std::string& text, std::vector<Shape> shapes) {
  ParseOptions options;
  options.argument_shapes = std::move(shapes);
  return ParseStableHlo(text, "poly.mlir", options);
}

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}

int64_t CountOps(const Module& module, Opcode opcode) {
  int64_t n = 0;
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions())
      n += op->opcode() == opcode ? 1 : 0;
  return n;
}

const Instruction* FirstOp(const Module& module, Opcode opcode) {
  for (const auto& computation : module.computations())
    for (const auto& op : computation->instructions())
      if (op->opcode() == opcode) return op.get();
  return nullptr;
}

std::vector<float> Range(int64_t n) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// What jax.export writes for f(x) = x + 1 with x: f32[b, 4], b >= 2: main
// reads b, checks it, and passes it to the wrapped function, which builds
// the broadcast's shape from it.
const char kAddOne[] =
    R"(module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32>) -> (tensor<?x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<2> : tensor<i64>
    %2 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "Expected value >= 2 for dimension variable 'b'. Obtained b = {0} from args[0].shape[0] (= {0}); {{literal braces}}.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = call @_wrapped_jax_export_main(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %3 : tensor<?x4xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<4> : tensor<1xi32>
    %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %3 = stablehlo.dynamic_broadcast_in_dim %cst, %2, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %4 = stablehlo.add %arg1, %3 : tensor<?x4xf32>
    return %4 : tensor<?x4xf32>
  }
}
)";

TEST(ShapeRefinementTest, JaxExportRunsAtSeveralBatchSizes) {
  for (int64_t b : {2, 3, 7}) {
    StatusOr<Module> module = Refine(kAddOne, {F32({b, 4})});
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    EXPECT_FALSE(IsShapePolymorphic(*module));
    EXPECT_EQ(module->entry()->root()->shape(), F32({b, 4}));
    // The assertion held and is gone; the broadcast is a static one.
    EXPECT_EQ(CountOps(*module, Opcode::kCustomCall), 0);
    const Instruction* broadcast = FirstOp(*module, Opcode::kBroadcast);
    ASSERT_NE(broadcast, nullptr);
    EXPECT_EQ(broadcast->shape(), F32({b, 4}));
    std::vector<float> x = Range(b * 4);
    std::vector<Literal> out = CompileAndRun(
        std::move(*module), {Literal::FromVector<float>({b, 4}, x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> want;
    for (float v : x) want.push_back(v + 1);
    EXPECT_EQ(out[0].ToVector<float>(), want);
  }
}

TEST(ShapeRefinementTest, FailingAssertionCarriesJaxsMessage) {
  StatusOr<Module> module = Refine(kAddOne, {F32({1, 4})});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(module.status().message(),
              HasSubstr("poly.mlir:7:5: Expected value >= 2 for dimension "
                        "variable 'b'. Obtained b = 1 from args[0].shape[0] "
                        "(= 1); {literal braces}."));
}

TEST(ShapeRefinementTest, UnrefinedProgramParsesButTheVerifierRefusesIt) {
  StatusOr<Module> module = ParseStableHlo(kAddOne, "poly.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_TRUE(IsShapePolymorphic(*module));
  EXPECT_EQ(module->entry()->parameters()[0]->shape().ToString(), "f32[?,4]");
  StatusOr<std::unique_ptr<Executable>> exe =
      test::CompileForTest(std::move(*module));
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(),
              HasSubstr("at poly.mlir:2:26: value has the dynamic shape "
                        "f32[?,4]"));
  EXPECT_THAT(exe.status().message(), HasSubstr("argument_shapes"));
}

TEST(ShapeRefinementTest, GivenShapesMustMatchTheDeclaredTypes) {
  StatusOr<Module> wrong_dim = Refine(kAddOne, {F32({3, 5})});
  ASSERT_FALSE(wrong_dim.ok());
  EXPECT_THAT(wrong_dim.status().message(),
              HasSubstr("poly.mlir:2:26: argument 0 (%arg0) of @main is "
                        "tensor<?x4xf32>, refined to tensor<3x5xf32>"));
  StatusOr<Module> wrong_type =
      Refine(kAddOne, {Shape::Array(ElementType::kF64, {3, 4})});
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_THAT(wrong_type.status().message(), HasSubstr("argument 0 (%arg0)"));
  StatusOr<Module> wrong_count = Refine(kAddOne, {F32({3, 4}), F32({3, 4})});
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_THAT(wrong_count.status().message(),
              HasSubstr("@main takes 1 argument(s), 2 were given"));
  StatusOr<Module> dynamic = Refine(kAddOne, {F32({kDynamicDimension, 4})});
  ASSERT_FALSE(dynamic.ok());
  EXPECT_THAT(dynamic.status().message(),
              HasSubstr("argument shape 0 (f32[?,4]) is not a static"));
}

TEST(ShapeRefinementTest, StaticProgramTakesOnlyItsOwnShapes) {
  const char kStatic[] =
      R"(func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.negate %x : tensor<3xf32>
    return %0 : tensor<3xf32>
  })";
  StatusOr<Module> same = Refine(kStatic, {F32({3})});
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  StatusOr<Module> other = Refine(kStatic, {F32({4})});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(),
              HasSubstr("argument 0 is f32[3], the given shape is f32[4]"));
}

// Each dynamic op of a symbolic length b, checked against what the static
// ops compute.
const char kDynamicOps[] =
    R"(func.func public @main(%arg0: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x2xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>) {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %d1, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %h = stablehlo.divide %d, %c2 : tensor<i32>
  %h1 = stablehlo.reshape %h : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %s = stablehlo.concatenate %h1, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %arg0, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %sl = stablehlo.real_dynamic_slice %arg0, %one, %d1, %one : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %hi = stablehlo.constant dense<2> : tensor<1xi32>
  %in = stablehlo.constant dense<0> : tensor<1xi32>
  %p = stablehlo.dynamic_pad %arg0, %zero, %one, %hi, %in : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %cat = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %sum = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  return %iota, %r, %sl, %p, %cat, %sum : tensor<?xf32>, tensor<?x2xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>
}
)";

TEST(ShapeRefinementTest, DynamicOpsBecomeTheirStaticForms) {
  const int64_t b = 6;
  StatusOr<Module> module = Refine(kDynamicOps, {F32({b})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_FALSE(IsShapePolymorphic(*module));
  const Shape& root = module->entry()->root()->shape();
  EXPECT_EQ(root.ToString(false),
            "(f32[6], f32[3,2], f32[5], f32[9], f32[12], f32[])");
  const Instruction* pad = FirstOp(*module, Opcode::kPad);
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->padding[0].low, 1);
  EXPECT_EQ(pad->padding[0].high, 2);
  std::vector<float> x = Range(b);
  std::vector<Literal> out =
      CompileAndRun(std::move(*module), {Literal::FromVector<float>({b}, x)});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].ToVector<float>(), x);
  EXPECT_EQ(out[1].shape(), F32({3, 2}));
  EXPECT_EQ(out[1].ToVector<float>(), x);
  EXPECT_EQ(out[2].ToVector<float>(), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(out[3].ToVector<float>(),
            (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 0, 0}));
  std::vector<float> twice = x;
  twice.insert(twice.end(), x.begin(), x.end());
  EXPECT_EQ(out[4].ToVector<float>(), twice);
  EXPECT_EQ(out[5].ToVector<float>(), (std::vector<float>{15}));
}

TEST(ShapeRefinementTest, DynamicGatherTakesItsSliceSizes) {
  const char kGather[] =
      R"(func.func public @main(%arg0: tensor<3x?xf32>, %arg1: tensor<2x1xi32>) -> tensor<2x?xf32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %sizes = stablehlo.concatenate %c1, %d1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %g = "stablehlo.dynamic_gather"(%arg0, %arg1, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<3x?xf32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x?xf32>
  return %g : tensor<2x?xf32>
}
)";
  StatusOr<Module> module =
      Refine(kGather, {F32({3, 2}), Shape::Array(ElementType::kS32, {2, 1})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const Instruction* gather = FirstOp(*module, Opcode::kGather);
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->gather_slice_sizes, (std::vector<int64_t>{1, 2}));
  std::vector<Literal> out = CompileAndRun(
      std::move(*module), {Literal::FromVector<float>({3, 2}, Range(6)),
                           Literal::FromVector<int32_t>({2, 1}, {2, 0})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{4, 5, 0, 1}));
}

TEST(ShapeRefinementTest, DynamicConvTakesItsPadding) {
  // Padding (1, 1) on both spatial dimensions, given as an operand.
  const char kConv[] =
      R"(func.func public @main(%arg0: tensor<?x1x3x3xf32>, %arg1: tensor<1x1x3x3xf32>) -> tensor<?x1x3x3xf32> {
  %pad = stablehlo.constant dense<1> : tensor<2x2xi32>
  %0 = stablehlo.dynamic_conv(%arg0, %arg1, %pad) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<2x2xi32>) -> tensor<?x1x3x3xf32>
  return %0 : tensor<?x1x3x3xf32>
}
)";
  StatusOr<Module> module =
      Refine(kConv, {F32({2, 1, 3, 3}), F32({1, 1, 3, 3})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const Instruction* conv = FirstOp(*module, Opcode::kConvolution);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->shape(), F32({2, 1, 3, 3}));
  ASSERT_EQ(conv->window.size(), 2u);
  EXPECT_EQ(conv->window[0].padding_low, 1);
  EXPECT_EQ(conv->window[1].padding_high, 1);
  // A 3x3 kernel of ones over ones: each output sums the ones in reach.
  std::vector<Literal> out = CompileAndRun(
      std::move(*module),
      {Literal::FromVector<float>({2, 1, 3, 3}, std::vector<float>(18, 1)),
       Literal::FromVector<float>({1, 1, 3, 3}, std::vector<float>(9, 1))});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> image = {4, 6, 4, 6, 9, 6, 4, 6, 4};
  std::vector<float> want = image;
  want.insert(want.end(), image.begin(), image.end());
  EXPECT_EQ(out[0].ToVector<float>(), want);
}

TEST(ShapeRefinementTest, CustomCallShapeOperandsGiveItsResultShape) {
  const char kCall[] =
      R"(func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %0 = stablehlo.custom_call @poly_target(%arg0, %d1) {api_version = 4 : i32, indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
)";
  StatusOr<Module> module = Refine(kCall, {F32({5})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  const Instruction* call = FirstOp(*module, Opcode::kCustomCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->custom_call.target, "poly_target");
  EXPECT_EQ(call->operand_count(), 1);
  EXPECT_EQ(call->shape(), F32({5}));
}

TEST(ShapeRefinementTest, WhileLoopRunsASymbolicTripCount) {
  const char kLoop[] =
      R"(func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%iterArg = %c0, %iterArg_0 = %arg0) : tensor<i32>, tensor<?xf32>
   cond {
    %lt = stablehlo.compare  LT, %iterArg, %d,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %b = stablehlo.dynamic_broadcast_in_dim %one, %d1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %n = stablehlo.add %iterArg_0, %b : tensor<?xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %i = stablehlo.add %iterArg, %c1 : tensor<i32>
    stablehlo.return %i, %n : tensor<i32>, tensor<?xf32>
  }
  return %w#1 : tensor<?xf32>
}
)";
  StatusOr<Module> module = Refine(kLoop, {F32({3})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_FALSE(IsShapePolymorphic(*module));
  std::vector<Literal> out = CompileAndRun(
      std::move(*module), {Literal::FromVector<float>({3}, {0, 10, 20})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{3, 13, 23}));
}

const char kTwoCalls[] =
    R"(func.func public @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = call @double(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = call @double(%b) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = call @double(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
func.func private @double(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
)";

TEST(ShapeRefinementTest, FunctionsAreSpecialisedPerSignature) {
  StatusOr<Module> two = Refine(kTwoCalls, {F32({2}), F32({3})});
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->computations().size(), 3u);  // main, double x2
  EXPECT_EQ(CountOps(*two, Opcode::kCall), 3);
  std::vector<Literal> out = CompileAndRun(
      std::move(*two), {Literal::FromVector<float>({2}, {1, 2}),
                        Literal::FromVector<float>({3}, {3, 4, 5})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(out[1].ToVector<float>(), (std::vector<float>{6, 8, 10}));
  EXPECT_EQ(out[2].ToVector<float>(), (std::vector<float>{2, 4}));
  StatusOr<Module> one = Refine(kTwoCalls, {F32({2}), F32({2})});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->computations().size(), 2u);  // main, double once
}

TEST(ShapeRefinementTest, ShapeThatDependsOnDataNamesTheOp) {
  const char kData[] =
      R"(func.func public @main(%arg0: tensor<f32>, %arg1: tensor<1xi32>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
)";
  StatusOr<Module> module =
      Refine(kData, {F32({}), Shape::Array(ElementType::kS32, {1})});
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("poly.mlir:2:8: stablehlo.dynamic_broadcast_in_dim: "
                        "the output shape (operand 1) is not known after "
                        "shape refinement: it depends on the data"));
}

TEST(ShapeRefinementTest, AssertionOnDataIsRefused) {
  const char kData[] =
      R"(func.func public @main(%arg0: tensor<i1>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
  stablehlo.custom_call @shape_assertion(%arg0) {api_version = 2 : i32, error_message = "never", has_side_effect = true} : (tensor<i1>) -> ()
  return %arg1 : tensor<?xf32>
}
)";
  StatusOr<Module> module =
      Refine(kData, {Shape::Array(ElementType::kPred, {}), F32({2})});
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("poly.mlir:2:3: stablehlo.custom_call: the shape "
                        "assertion's condition is not known"));
}

TEST(ShapeRefinementTest, StaticOpWithAnOpenResultIsAnError) {
  // A reshape's result is what its type says: `?` there cannot be refined.
  const char kReshape[] =
      R"(func.func public @main(%arg0: tensor<?xf32>) -> tensor<?x1xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<?xf32>) -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}
)";
  StatusOr<Module> module = Refine(kReshape, {F32({4})});
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("poly.mlir:2:8: stablehlo.reshape: cannot refine the "
                        "result type tensor<?x1xf32>"));
}

TEST(ShapeRefinementTest, IntegerArithmeticOnDimensionsFolds) {
  // b*2 + 1, b // 2 (floor for b >= 0), max and select, as JAX computes
  // dimension expressions.
  const char kExpr[] =
      R"(func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xi32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %m = stablehlo.multiply %d, %c2 : tensor<i32>
  %a = stablehlo.add %m, %c1 : tensor<i32>
  %q = stablehlo.divide %d, %c2 : tensor<i32>
  %gt = stablehlo.compare  GT, %a, %q,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %s = stablehlo.select %gt, %a, %q : tensor<i1>, tensor<i32>
  %n = stablehlo.maximum %s, %c1 : tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %r = stablehlo.dynamic_iota %n1, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
)";
  StatusOr<Module> module = Refine(kExpr, {F32({5})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ(module->entry()->root()->shape(),
            Shape::Array(ElementType::kS32, {11}));
}

// JAX's custom call for rng_bit_generator with a symbolic output shape
// (jax.random under shape polymorphism): refined, it is the static op and
// draws the same bits from the same state.
TEST(ShapeRefinementTest, DynamicRngBitGeneratorIsTheStaticOp) {
  const char kDynamic[] =
      R"(func.func public @main(%arg0: tensor<2xui64>, %arg1: tensor<?x3xf32>) -> (tensor<2xui64>, tensor<?x3xui32>) {
  %d = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %d1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%arg0, %s) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<?x3xui32>
}
)";
  const char kStatic[] =
      R"(func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>) {
  %0:2 = "stablehlo.rng_bit_generator"(%arg0) <{rng_algorithm = #stablehlo<rng_algorithm DEFAULT>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<4x3xui32>
}
)";
  const Shape state = Shape::Array(ElementType::kU64, {2});
  StatusOr<Module> module = Refine(kDynamic, {state, F32({4, 3})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_FALSE(IsShapePolymorphic(*module));
  EXPECT_EQ(CountOps(*module, Opcode::kCustomCall), 0);
  const Instruction* rng = FirstOp(*module, Opcode::kRngBitGenerator);
  ASSERT_NE(rng, nullptr);
  EXPECT_EQ(rng->operand_count(), 1);
  EXPECT_EQ(rng->shape().ToString(false), "(u64[2], u32[4,3])");
  StatusOr<Module> reference = ParseStableHlo(kStatic, "static.mlir");
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  Literal seed = Literal::FromVector<uint64_t>({2}, {42, 7});
  std::vector<Literal> got =
      CompileAndRun(std::move(*module),
                    {seed, Literal::FromVector<float>({4, 3}, Range(12))});
  std::vector<Literal> want = CompileAndRun(std::move(*reference), {seed});
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(got[0].ToVector<uint64_t>(), want[0].ToVector<uint64_t>());
  EXPECT_EQ(got[1].ToVector<uint32_t>(), want[1].ToVector<uint32_t>());
  EXPECT_NE(got[0].ToVector<uint64_t>(), seed.ToVector<uint64_t>());
}

// jax.lax.top_k(x, x.shape[-1] // 2) on a symbolic last dimension.
const char kDynamicTopK[] =
    R"(func.func public @main(%arg0: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
  %d = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %k = stablehlo.divide %d, %c2 : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %k) {api_version = 2 : i32} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xi32>
}
)";

TEST(ShapeRefinementTest, DynamicTopKTakesKFromTheShape) {
  StatusOr<Module> module = Refine(kDynamicTopK, {F32({2, 6})});
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_FALSE(IsShapePolymorphic(*module));
  const Instruction* top_k = FirstOp(*module, Opcode::kTopK);
  ASSERT_NE(top_k, nullptr);
  EXPECT_EQ(top_k->top_k, 3);
  EXPECT_TRUE(top_k->top_k_largest);
  EXPECT_EQ(top_k->operand_count(), 1);
  std::vector<float> x = {5, 1, 4, 2, 6, 0, 0, 1, 2, 3, 4, 5};
  std::vector<Literal> out = CompileAndRun(
      std::move(*module), {Literal::FromVector<float>({2, 6}, x)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), F32({2, 3}));
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{6, 5, 4, 5, 4, 3}));
  EXPECT_EQ(out[1].ToVector<int32_t>(),
            (std::vector<int32_t>{4, 0, 2, 5, 4, 3}));
}

TEST(ShapeRefinementTest, DynamicTopKWithAnUnknownOrTooLargeKNamesTheOp) {
  const char kData[] =
      R"(func.func public @main(%arg0: tensor<2x?xf32>, %arg1: tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %arg1) {api_version = 2 : i32} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xi32>
}
)";
  StatusOr<Module> data =
      Refine(kData, {F32({2, 6}), Shape::Array(ElementType::kS32, {})});
  ASSERT_FALSE(data.ok());
  EXPECT_THAT(data.status().message(),
              HasSubstr("poly.mlir:2:10: stablehlo.custom_call: k (operand 1) "
                        "is not known after shape refinement"));
  const char kLarge[] =
      R"(func.func public @main(%arg0: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
  %k = stablehlo.constant dense<9> : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %k) {api_version = 2 : i32} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xi32>
}
)";
  StatusOr<Module> large = Refine(kLarge, {F32({2, 6})});
  ASSERT_FALSE(large.ok());
  EXPECT_THAT(large.status().message(),
              HasSubstr("poly.mlir:3:10: stablehlo.custom_call: k is 9, "
                        "outside [0, 6], the operand's last dimension"));
}

// The loop of WhileLoopRunsASymbolicTripCount in the generic form, whose
// regions declare their block arguments with `?`.
const char kGenericLoop[] =
    R"(func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = "stablehlo.while"(%c0, %arg0) ({
  ^bb0(%i: tensor<i32>, %x: tensor<?xf32>):
    %lt = "stablehlo.compare"(%i, %d) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%j: tensor<i32>, %y: tensor<?xf32>):
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %b = stablehlo.dynamic_broadcast_in_dim %one, %d1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %n = stablehlo.add %y, %b : tensor<?xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j1 = stablehlo.add %j, %c1 : tensor<i32>
    "stablehlo.return"(%j1, %NEXT) : (tensor<i32>, tensor<?xf32>) -> ()
  }) : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>)
  return %w#1 : tensor<?xf32>
}
)";

std::string GenericLoop(const std::string& next) {
  std::string text = kGenericLoop;
  text.replace(text.find("%NEXT"), 5, next);
  return text;
}

TEST(ShapeRefinementTest, GenericWhileLoopVariablesTakeTheirInitialShapes) {
  for (int64_t b : {2, 4}) {
    StatusOr<Module> module = Refine(GenericLoop("%n"), {F32({b})});
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    EXPECT_FALSE(IsShapePolymorphic(*module));
    const Instruction* loop = FirstOp(*module, Opcode::kWhile);
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->shape().ToString(false),
              "(s32[], f32[" + std::to_string(b) + "])");
    std::vector<float> x = Range(b);
    std::vector<Literal> out =
        CompileAndRun(std::move(*module), {Literal::FromVector<float>({b}, x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> want;
    for (float v : x) want.push_back(v + static_cast<float>(b));
    EXPECT_EQ(out[0].ToVector<float>(), want);
  }
}

TEST(ShapeRefinementTest, LoopWhoseShapeChangesPerIterationIsRefused) {
  // The body doubles the loop variable's length: no static loop has it.
  std::string text = GenericLoop("%cat");
  text.replace(text.find("    %c1 ="), 0,
               "    %cat = stablehlo.concatenate %n, %n, dim = 0 : "
               "(tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n");
  StatusOr<Module> module = Refine(text, {F32({3})});
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.status().message(),
              HasSubstr("poly.mlir:17:5: loop variable 1 starts as "
                        "tensor<3xf32>, the body returns tensor<6xf32>: its "
                        "shape changes from one iteration to the next"));
}

}  // namespace
}  // namespace xffi
