// convolution, select-and-scatter and HLO's batch-norm ops in the IR and the
// text formats: shape rules (good and bad forms), the verifier's messages,
// the HLO parser's fields and the printer's round trip, and both StableHLO
// forms of a convolution.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hlo_test_util.h"
#include "ir/shape_inference.h"
#include "xffi/program/builder.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}

// NHWC input, HWIO kernel, NHWC result.
ConvolutionDimensionNumbers Nhwc() {
  return {0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
}

std::string ConvShape(const Shape& lhs, const Shape& rhs,
                      std::vector<WindowDimension> window,
                      ConvolutionDimensionNumbers dn, int64_t groups = 1,
                      int64_t batch_groups = 1) {
  Builder b("conv");
  Op conv = b.Convolution(b.Parameter(0, lhs), b.Parameter(1, rhs),
                          std::move(window), dn, groups, batch_groups);
  StatusOr<Module> module = b.Build(conv);
  if (!module.ok()) return "ERROR " + std::string(module.status().message());
  return module->entry()->root()->shape().ToString(false);
}

TEST(ConvolutionShape, Windows) {
  // 8 + 1 + 1 - 3 = 6 / 2 + 1 = 4; (8 - 1) * 2 + 1 = 15 - 1 - 2 = 12,
  // kernel 3 dilated by 2 spans 5: 8.
  EXPECT_EQ(ConvShape(F32({2, 8, 8, 3}), F32({3, 3, 3, 4}),
                      {{3, 2, 1, 1, 1, 1, false}, {3, 1, -1, -2, 2, 2, false}},
                      Nhwc()),
            "f32[2,4,8,4]");
  // No spatial dimensions, groups of features, groups of the batch.
  EXPECT_EQ(
      ConvShape(F32({3, 4}), F32({4, 5}), {}, {0, 1, {}, 0, 1, {}, 0, 1, {}}),
      "f32[3,5]");
  EXPECT_EQ(ConvShape(F32({1, 5, 5, 6}), F32({1, 1, 2, 9}),
                      {WindowDimension{1}, WindowDimension{1}}, Nhwc(), 3),
            "f32[1,5,5,9]");
  EXPECT_EQ(ConvShape(F32({6, 5, 5, 2}), F32({1, 1, 2, 9}),
                      {WindowDimension{1}, WindowDimension{1}}, Nhwc(), 1, 3),
            "f32[2,5,5,9]");
}

TEST(ConvolutionShape, BadForms) {
  const Shape x = F32({2, 8, 8, 3});
  const std::vector<WindowDimension> w3 = {WindowDimension{3},
                                           WindowDimension{3}};
  EXPECT_THAT(ConvShape(x, F32({3, 3, 2, 4}), w3, Nhwc()),
              HasSubstr("kernel input feature size 2 must be the input "
                        "feature size 3 / feature_group_count 1"));
  EXPECT_THAT(ConvShape(x, F32({3, 3, 3, 4}), {WindowDimension{3}}, Nhwc()),
              HasSubstr("window has 1 dimensions, the operands 2 "
                        "spatial dimensions"));
  EXPECT_THAT(ConvShape(x, F32({3, 2, 3, 4}), w3, Nhwc()),
              HasSubstr("window dimension 1 has size 3, the kernel's "
                        "spatial dimension 1 has size 2"));
  ConvolutionDimensionNumbers twice = Nhwc();
  twice.input_spatial_dimensions = {1, 1};
  EXPECT_THAT(ConvShape(x, F32({3, 3, 3, 4}), w3, twice),
              HasSubstr("input dimension 1 is named twice"));
  EXPECT_THAT(ConvShape(x, F32({3, 3, 1, 4}), w3, Nhwc(), 3, 2),
              HasSubstr("feature_group_count 3 and batch_group_count 2 "
                        "cannot both be above 1"));
  EXPECT_THAT(ConvShape(x, F32({3, 3, 3, 4}), w3, Nhwc(), 1, 3),
              HasSubstr("input batch size 2 is not a multiple of "
                        "batch_group_count 3"));
  EXPECT_THAT(
      ConvShape(x, F32({3, 3, 3, 4}),
                {{3, 0, 0, 0, 1, 1, false}, WindowDimension{3}}, Nhwc()),
      HasSubstr("window dimension 0 has stride 0, lhs_dilate "
                "1, rhs_dilate 1; each must be positive"));
  EXPECT_THAT(
      ConvShape(x, F32({3, 3, 3, 4}),
                {{3, 1, -5, -5, 1, 1, false}, WindowDimension{3}}, Nhwc()),
      HasSubstr("padding -5_-5 leaves spatial dimension 0 with "
                "negative size"));
}

// The verifier names the op and where it is.
TEST(ConvolutionShape, VerifierNamesTheOp) {
  StatusOr<Module> m = ParseHlo(R"(HloModule m
ENTRY e {
  x = f32[2,8,8,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  ROOT c = f32[2,6,6,5] convolution(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f
}
)",
                                "m.hlo");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Status verified = VerifyModule(*m);
  ASSERT_FALSE(verified.ok());
  EXPECT_THAT(verified.message(), HasSubstr("f32[2,6,6,4]"));
  EXPECT_THAT(verified.message(), HasSubstr("'c' (convolution)"));
}

TEST(SelectAndScatterShape, GoodAndBad) {
  auto build = [](const Shape& source) -> std::string {
    Builder b("sas");
    const Shape scalar = Shape::Scalar(ElementType::kF32);
    std::unique_ptr<Builder> ge = b.CreateSubBuilder("ge");
    Computation* select = ge->BuildSubcomputation(
        ge->Compare(ge->Parameter(0, scalar), ge->Parameter(1, scalar),
                    ComparisonDirection::kGe));
    std::unique_ptr<Builder> add = b.CreateSubBuilder("add");
    Computation* scatter = add->BuildSubcomputation(
        add->Add(add->Parameter(0, scalar), add->Parameter(1, scalar)));
    Op x = b.Parameter(0, F32({4, 6}));
    Op s = b.Parameter(1, source);
    Op init = b.ConstantScalar<float>(0);
    StatusOr<Module> module = b.Build(b.SelectAndScatter(
        x, select, {{2, 2, 0, 0, 1, 1, false}, {3, 3, 0, 0, 1, 1, false}}, s,
        init, scatter));
    if (!module.ok()) return "ERROR " + std::string(module.status().message());
    return module->entry()->root()->shape().ToString(false);
  };
  EXPECT_EQ(build(F32({2, 2})), "f32[4,6]");
  EXPECT_THAT(build(F32({2, 3})),
              HasSubstr("source f32[2,3] must have the shape of "
                        "the windows' positions, {2,2}"));
}

TEST(BatchNormShape, GoodAndBad) {
  Builder b("bn");
  Op x = b.Parameter(0, F32({2, 3, 4}));
  Op v = b.Parameter(1, F32({3}));
  Op training = b.BatchNormTraining(x, v, v, 1e-3f, 1);
  Op inference = b.BatchNormInference(x, v, v, v, v, 1e-3f, 1);
  Op grad = b.BatchNormGrad(x, v, v, v, x, 1e-3f, 1);
  StatusOr<Module> module = b.Build(b.Tuple({training, inference, grad}));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ(module->entry()->root()->shape().ToString(false),
            "((f32[2,3,4], f32[3], f32[3]), f32[2,3,4], (f32[2,3,4], f32[3], "
            "f32[3]))");
  Builder bad("bn");
  Op y = bad.Parameter(0, F32({2, 3, 4}));
  Op u = bad.Parameter(1, F32({4}));
  StatusOr<Module> refused =
      bad.Build(bad.BatchNormTraining(y, u, u, 1e-3f, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(
      refused.status().message().find("operand 1 must be f32[3], got f32[4]"),
      std::string::npos)
      << refused.status().message();
}

constexpr const char* kHloModule = R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,8,8,6] parameter(0)
  w = f32[3,3,2,6] parameter(1)
  c = f32[2,3,8,6] convolution(x, w), window={size=3x3 stride=2x1 pad=0_-1x2_0 lhs_dilate=1x2 rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=3, operand_precision={high,high}
  y = f32[6,4,8,2] parameter(2)
  k = f32[3,8,1,6] parameter(3)
  g = f32[4,2,2,8] convolution(y, k), window={size=3x1}, dim_labels=f0b1_0o1i->b01f, batch_group_count=2
  s = f32[2,4,4,6] parameter(4)
  z = f32[] constant(0)
  p = f32[2,8,8,6] select-and-scatter(x, s, z), window={size=1x2x2x1 stride=1x2x2x1}, select=ge, scatter=add
  v = f32[6] parameter(5)
  t = (f32[2,8,8,6], f32[6], f32[6]) batch-norm-training(x, v, v), epsilon=0.001, feature_index=3
  i = f32[2,8,8,6] batch-norm-inference(x, v, v, v, v), epsilon=1e-05, feature_index=3
  d = (f32[2,8,8,6], f32[6], f32[6]) batch-norm-grad(x, v, v, v, x), epsilon=0.25, feature_index=3
  ROOT r = (f32[2,3,8,6], f32[4,2,2,8], f32[2,8,8,6], (f32[2,8,8,6], f32[6], f32[6]), f32[2,8,8,6], /*index=5*/(f32[2,8,8,6], f32[6], f32[6])) tuple(c, g, p, t, i, d)
}
)";

const Instruction* Named(const Module& m, const std::string& name) {
  for (const auto& inst : m.entry()->instructions())
    if (inst->name() == name) return inst.get();
  ADD_FAILURE() << "no " << name;
  return nullptr;
}

TEST(ConvNetHlo, ParsesEveryField) {
  StatusOr<Module> m = ParseHlo(kHloModule, "m.hlo");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Instruction* c = Named(*m, "c");
  ASSERT_EQ(c->window.size(), 2u);
  EXPECT_EQ(c->window[0], (WindowDimension{3, 2, 0, -1, 1, 1, true}));
  EXPECT_EQ(c->window[1], (WindowDimension{3, 1, 2, 0, 2, 2, false}));
  EXPECT_EQ(c->convolution_dimension_numbers, Nhwc());
  EXPECT_EQ(c->feature_group_count, 3);
  const Instruction* g = Named(*m, "g");
  // f0b1_0o1i->b01f: input feature 0, spatial 1 and 3, batch 2; kernel
  // spatial 0 and 2, output feature 1, input feature 3.
  EXPECT_EQ(
      g->convolution_dimension_numbers,
      (ConvolutionDimensionNumbers{2, 0, {1, 3}, 3, 1, {0, 2}, 0, 3, {1, 2}}));
  EXPECT_EQ(g->batch_group_count, 2);
  const Instruction* p = Named(*m, "p");
  ASSERT_EQ(p->called_computations().size(), 2u);
  EXPECT_EQ(p->called_computations()[0]->name(), "ge");
  EXPECT_EQ(p->called_computations()[1]->name(), "add");
  EXPECT_EQ(Named(*m, "t")->epsilon, 0.001f);
  EXPECT_EQ(Named(*m, "i")->epsilon, 1e-05f);
  EXPECT_EQ(Named(*m, "d")->feature_index, 3);
}

TEST(ConvNetHlo, PrintsAndParsesBack) {
  StatusOr<Module> first = ParseHlo(kHloModule, "m.hlo");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string printed = PrintHlo(*first);
  StatusOr<Module> second = ParseHlo(printed, "m.hlo");
  ASSERT_TRUE(second.ok()) << second.status().ToString() << "\n" << printed;
  EXPECT_EQ(hlo_test::DiffModules(*first, *second), "") << printed;
  EXPECT_EQ(PrintHlo(*second), printed);
  EXPECT_NE(printed.find("rhs_reversal=1x0"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dim_labels=f0b1_0o1i->b01f"), std::string::npos)
      << printed;
}

std::string HloError(const std::string& attributes) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[2,8,8,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  ROOT c = f32[2,6,6,4] convolution(x, w), )" +
                           attributes + "\n}\n";
  StatusOr<Module> m = ParseHlo(text, "m.hlo");
  EXPECT_FALSE(m.ok()) << attributes;
  return m.ok() ? "" : std::string(m.status().message());
}

TEST(ConvNetHlo, BadAttributes) {
  EXPECT_NE(HloError("window={size=3x3}, dim_labels=b01f_01io")
                .find("dim_labels like b01f_01io->b01f"),
            std::string::npos);
  EXPECT_NE(HloError("window={size=3x3}, dim_labels=b01x_01io->b01f")
                .find("unexpected 'x' in 'b01x'"),
            std::string::npos);
  EXPECT_NE(HloError("window={size=3x3}").find("dim_labels"),
            std::string::npos);
  EXPECT_NE(HloError("window={size=3x3 rhs_reversal=2x0}, "
                     "dim_labels=b01f_01io->b01f")
                .find("rhs_reversal must be 0 or 1, got 2"),
            std::string::npos);
}

std::string Wrap(const std::string& op, const std::string& signature) {
  return "func.func @main" + signature + " {\n" + op + "\n}\n";
}

TEST(ConvNetStableHlo, PrettyAndGenericFormsAgree) {
  const std::string signature =
      "(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x3xf32>) -> "
      "tensor<2x4x5x4xf32>";
  const std::string pretty = Wrap(
      "  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, "
      "i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 2], pad = [[1, -1], "
      "[2, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [true, "
      "false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, "
      "precision_config = [#stablehlo<precision DEFAULT>, "
      "#stablehlo<precision HIGHEST>]} : (tensor<2x3x9x8xf32>, "
      "tensor<4x3x3x3xf32>) -> tensor<2x4x5x4xf32>\n  return %0 : "
      "tensor<2x4x5x4xf32>",
      signature);
  const std::string generic = Wrap(
      "  %0 = \"stablehlo.convolution\"(%x, %w) <{batch_group_count = 1 : "
      "i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, "
      "1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, lhs_dilation = "
      "array<i64: 1, 1>, padding = dense<[[1, -1], [2, 0]]> : "
      "tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, "
      "#stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 2, 1>, "
      "window_reversal = array<i1: true, false>, window_strides = array<i64: "
      "1, 2>}> : (tensor<2x3x9x8xf32>, tensor<4x3x3x3xf32>) -> "
      "tensor<2x4x5x4xf32>\n  return %0 : tensor<2x4x5x4xf32>",
      signature);
  const std::string raw = Wrap(
      "  %0 = \"stablehlo.convolution\"(%x, %w) {dimension_numbers = "
      "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension "
      "= 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension "
      "= 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = "
      "[2, 3], output_batch_dimension = 0, output_feature_dimension = 1, "
      "output_spatial_dimensions = [2, 3]>, padding = dense<[[1, -1], [2, "
      "0]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 2, 1>, "
      "window_reversal = array<i1: true, false>, window_strides = array<i64: "
      "1, 2>} : (tensor<2x3x9x8xf32>, tensor<4x3x3x3xf32>) -> "
      "tensor<2x4x5x4xf32>\n  return %0 : tensor<2x4x5x4xf32>",
      signature);
  std::vector<Module> modules;
  for (const std::string& text : {pretty, generic, raw}) {
    StatusOr<Module> m = ParseStableHlo(text, "t.mlir");
    ASSERT_TRUE(m.ok()) << m.status().ToString() << "\n" << text;
    modules.push_back(std::move(*m));
  }
  const Instruction* conv = modules[0].entry()->root();
  ASSERT_EQ(conv->opcode(), Opcode::kConvolution);
  EXPECT_EQ(conv->window[0], (WindowDimension{3, 1, 1, -1, 2, 1, true}));
  EXPECT_EQ(conv->window[1], (WindowDimension{3, 2, 2, 0, 1, 1, false}));
  EXPECT_EQ(
      conv->convolution_dimension_numbers,
      (ConvolutionDimensionNumbers{0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}}));
  for (size_t i = 1; i < modules.size(); ++i) {
    const Instruction* other = modules[i].entry()->root();
    EXPECT_EQ(other->window, conv->window) << i;
    EXPECT_EQ(other->convolution_dimension_numbers,
              conv->convolution_dimension_numbers)
        << i;
  }
}

TEST(ConvNetStableHlo, BadForms) {
  const std::string signature =
      "(%x: tensor<2x3x9x8xf32>, %w: tensor<4x3x3x3xf32>) -> "
      "tensor<2x4x7x6xf32>";
  auto error = [&](const std::string& dims, const std::string& window) {
    StatusOr<Module> m = ParseStableHlo(
        Wrap("  %0 = stablehlo.convolution(%x, %w) dim_numbers = " + dims +
                 ", window = {" + window +
                 "} : (tensor<2x3x9x8xf32>, tensor<4x3x3x3xf32>) -> "
                 "tensor<2x4x7x6xf32>\n  return %0 : tensor<2x4x7x6xf32>",
             signature),
        "t.mlir");
    EXPECT_FALSE(m.ok());
    return m.ok() ? std::string() : std::string(m.status().message());
  };
  const std::string nchw = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]";
  EXPECT_NE(error(nchw, "stride = [1, 1, 1]")
                .find("window_strides has 3 entries, expected 2"),
            std::string::npos);
  EXPECT_NE(error(nchw, "size = [1, 1]").find("unknown window field 'size'"),
            std::string::npos);
  EXPECT_NE(error("[b, f, 0, 1]x[o, q, 0, 1]->[b, f, 0, 1]", "").find("q"),
            std::string::npos);
}

}  // namespace
}  // namespace xffi
