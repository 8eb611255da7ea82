// The CPU evaluator of reduction fusions (src/cpu/fused_reduce.h): on every
// reduction layout (rows, columns, one result, a middle axis, several
// dimensions), element type and reducer it takes, a fused program gives the
// bytes the unfused one does, on one thread and across the pool; what it
// does not take runs as a call and still computes the same.
#include "cpu/fused_reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fusion_test_util.h"
#include "passes/reduction_fusion.h"
#include "sanitized_build.h"
#include "xffi/program/text.h"

namespace xffi::cpu {
namespace {

using fusion_test::ExpectSameAsUnfused;
using fusion_test::RandomF32;
using fusion_test::RunText;

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text;
}

std::pair<int, int> EvaluatedFusions(std::string_view text) {
  return fusion_test::EvaluatedFusions(
      text, [](Module& module) { return passes::FuseReductions(module); },
      [](const Instruction& op) { return MakeFusedReduceKernel(op); });
}

// As ExpectSameAsUnfused, but float sums and products may differ from the
// unfused ones within `relative` of max(|value|, `floor`): a reduction of
// few columns long enough to be cut into pieces folds each piece into
// partial results, combined in order. One thread and three still give the
// same bytes.
void ExpectNearUnfused(std::string_view text, const std::vector<Literal>& args,
                       double relative, double floor) {
  auto plain = RunText(text, args, false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  auto one = RunText(text, args, true, 1);
  ASSERT_TRUE(one.ok()) << one.status().message();
  auto three = RunText(text, args, true, 3);
  ASSERT_TRUE(three.ok()) << three.status().message();
  ASSERT_EQ(one->size(), plain->size());
  ASSERT_EQ(three->size(), plain->size());
  for (size_t i = 0; i < plain->size(); ++i) {
    EXPECT_EQ(fusion_test::FirstDifference((*three)[i], (*one)[i]), "")
        << "result " << i;
    EXPECT_EQ(codegen_test::FirstDifferenceWithin((*one)[i], (*plain)[i],
                                                  relative, floor),
              "")
        << "result " << i;
  }
}

// reduce(op, convert(exp(x) * x) to `type`) over `reduced` of x: f32[dims].
std::string ReduceOfProducers(const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& reduced,
                              const std::string& type, const std::string& op,
                              const std::string& init) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < dims.size(); ++d)
    if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) ==
        reduced.end())
      kept.push_back(dims[d]);
  const std::string in = "f32[" + DimsText(dims) + "]";
  const std::string cast = type + "[" + DimsText(dims) + "]";
  const std::string out = type + "[" + DimsText(kept) + "]";
  std::string value = R"(  %e = )" + in + R"( exponential(%x)
  %m = )" + in + R"( multiply(%e, %x)
)";
  if (type == "pred") {
    value += "  %zero = f32[] constant(0)\n  %bz = " + in +
             " broadcast(%zero), dimensions={}\n  %c = " + cast +
             " compare(%m, %bz), direction=GT\n";
  } else {
    value += "  %k = f32[] constant(8)\n  %bk = " + in +
             " broadcast(%k), dimensions={}\n  %s = " + in +
             " multiply(%m, %bk)\n  %c = " + cast + " convert(%s)\n";
  }
  return "HloModule m\n%r (a: " + type + "[], b: " + type + "[]) -> " + type +
         "[] {\n  %a = " + type + "[] parameter(0)\n  %b = " + type +
         "[] parameter(1)\n  ROOT %o = " + type + "[] " + op +
         "(%a, %b)\n}\nENTRY %main (x: " + in + ") -> " + out +
         " {\n  %x = " + in + " parameter(0)\n" + value + "  %init = " + type +
         "[] constant(" + init + ")\n  ROOT %red = " + out +
         " reduce(%c, %init), dimensions={" + DimsText(reduced) +
         "}, to_apply=%r\n}\n";
}

struct Layout {
  const char* name;
  std::vector<int64_t> dims;
  std::vector<int64_t> reduced;
};

const Layout kLayouts[] = {
    {"rows", {37, 3001}, {1}},
    {"short_rows", {5000, 7}, {1}},
    {"long_rows", {3, 20000}, {1}},
    {"columns", {300, 2500}, {0}},
    {"few_columns", {3000, 20}, {0}},
    {"to_one_small", {50, 60}, {0, 1}},
    {"to_one_split", {300, 700}, {0, 1}},
    {"middle_axis", {6, 300, 33}, {1}},
    {"outer_and_inner", {7, 40, 300}, {0, 2}},
    {"two_inner", {30, 20, 50}, {1, 2}},
};

TEST(FusedReduce, EveryLayoutGivesTheUnfusedBytes) {
  for (const Layout& layout : kLayouts) {
    SCOPED_TRACE(layout.name);
    const std::string text =
        ReduceOfProducers(layout.dims, layout.reduced, "f32", "add", "0");
    std::pair<int, int> taken = EvaluatedFusions(text);
    EXPECT_EQ(taken.second, 1);
    EXPECT_EQ(taken.first, 1);
    ExpectSameAsUnfused(text, {RandomF32(layout.dims, 11)});
  }
}

struct ReducerCase {
  std::string type, op, init;
  bool evaluated;
};

const ReducerCase kReducerCases[] = {
    {"f32", "maximum", "-inf", true},
    {"f32", "minimum", "inf", true},
    {"f32", "multiply", "1", true},
    {"f64", "add", "0", true},
    {"s32", "add", "0", true},
    {"s32", "maximum", "-2147483648", true},
    {"u8", "add", "0", true},
    {"s64", "multiply", "1", true},
    {"s32", "and", "-1", true},
    {"pred", "or", "false", true},
    {"pred", "and", "true", true},
    {"f16", "add", "0", false},
    {"bf16", "maximum", "-inf", false},
    // An init value that is not the identity: one piece, in order.
    {"f32", "add", "0.5", true},
};

TEST(FusedReduce, EveryTypeAndReducerGivesTheUnfusedBytes) {
  for (const ReducerCase& c : kReducerCases) {
    // Every layout runs for f32 sums in the tests around this one; here
    // the columns (the largest input) are left to the plain build.
    const std::vector<Layout> layouts =
        xffi::testing_util::kSanitizedBuild
            ? std::vector<Layout>{kLayouts[0], kLayouts[6]}
            : std::vector<Layout>{kLayouts[0], kLayouts[3], kLayouts[6]};
    for (const Layout& layout : layouts) {
      SCOPED_TRACE(c.type + " " + c.op + " " + c.init + " " + layout.name);
      const std::string text =
          ReduceOfProducers(layout.dims, layout.reduced, c.type, c.op, c.init);
      std::pair<int, int> taken = EvaluatedFusions(text);
      EXPECT_EQ(taken.second, 1);
      EXPECT_EQ(taken.first, c.evaluated ? 1 : 0);
      ExpectSameAsUnfused(text, {RandomF32(layout.dims, 12)});
    }
  }
}

TEST(FusedReduce, NaNPropagatesThroughAFusedMaximum) {
  const std::string text =
      ReduceOfProducers({20, 500}, {1}, "f32", "maximum", "-inf");
  Literal x = RandomF32({20, 500}, 13);
  x.data<float>()[3 * 500 + 77] = std::nanf("");
  ExpectSameAsUnfused(text, {x});
  auto fused = RunText(text, {x}, true);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_TRUE(std::isnan((*fused)[0].data<float>()[3]));
  EXPECT_FALSE(std::isnan((*fused)[0].data<float>()[4]));
}

// Sibling reduces and a loop value returned beside them, on each layout.
TEST(FusedReduce, MultiOutputFusionsGiveTheUnfusedBytes) {
  for (const Layout& layout : kLayouts) {
    SCOPED_TRACE(layout.name);
    std::vector<int64_t> kept;
    for (size_t d = 0; d < layout.dims.size(); ++d)
      if (std::find(layout.reduced.begin(), layout.reduced.end(),
                    static_cast<int64_t>(d)) == layout.reduced.end())
        kept.push_back(layout.dims[d]);
    const std::string in = "f32[" + DimsText(layout.dims) + "]";
    const std::string out = "f32[" + DimsText(kept) + "]";
    const std::string dims = DimsText(layout.reduced);
    const std::string text =
        "HloModule m\n%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] "
        "parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, "
        "%b)\n}\n%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] "
        "parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] "
        "maximum(%a, %b)\n}\nENTRY %main (x: " +
        in + ") -> (" + out + ", " + out + ", " + out + ", " + in +
        ") {\n  %x = " + in +
        " parameter(0)\n  %zero = f32[] constant(0)\n  %ninf = f32[] "
        "constant(-inf)\n  %s = " +
        out + " reduce(%x, %zero), dimensions={" + dims +
        "}, to_apply=%add\n  %sq = " + in +
        " multiply(%x, %x)\n  %ss = " + out +
        " reduce(%sq, %zero), dimensions={" + dims +
        "}, to_apply=%add\n  %e = " + in + " exponential(%x)\n  %mx = " + out +
        " reduce(%e, %ninf), dimensions={" + dims +
        "}, to_apply=%max\n  %n = " + in + " negate(%e)\n  ROOT %t = (" + out +
        ", " + out + ", " + out + ", " + in + ") tuple(%s, %ss, %mx, %n)\n}\n";
    std::pair<int, int> taken = EvaluatedFusions(text);
    EXPECT_EQ(taken.second, 1) << text;
    EXPECT_EQ(taken.first, 1);
    ExpectSameAsUnfused(text, {RandomF32(layout.dims, 14)});
  }
}

// jnp.argmax's reduce of exp(x) and an iota, with NaN and ties, on each
// layout: the fold steps each element in the unfused kernel's order.
TEST(FusedReduce, ArgmaxOfProducersGivesTheUnfusedBytes) {
  for (const Layout& layout : kLayouts) {
    if (layout.reduced.size() != 1) continue;  // jnp.argmax takes one axis
    SCOPED_TRACE(layout.name);
    std::vector<int64_t> kept;
    for (size_t d = 0; d < layout.dims.size(); ++d)
      if (static_cast<int64_t>(d) != layout.reduced[0])
        kept.push_back(layout.dims[d]);
    const std::string in = "f32[" + DimsText(layout.dims) + "]";
    const std::string iota = "s32[" + DimsText(layout.dims) + "]";
    const std::string out = "f32[" + DimsText(kept) + "]";
    const std::string idx = "s32[" + DimsText(kept) + "]";
    const std::string text =
        "HloModule m\n%argmax (av: f32[], ai: s32[], bv: f32[], bi: s32[]) -> "
        "(f32[], s32[]) {\n  %av = f32[] parameter(0)\n  %ai = s32[] "
        "parameter(1)\n  %bv = f32[] parameter(2)\n  %bi = s32[] "
        "parameter(3)\n  %gt = pred[] compare(%av, %bv), direction=GT\n  "
        "%nan = pred[] compare(%av, %av), direction=NE\n  %pick = pred[] "
        "or(%gt, %nan)\n  %eq = pred[] compare(%av, %bv), direction=EQ\n  "
        "%lt = pred[] compare(%ai, %bi), direction=LT\n  %tie = pred[] "
        "and(%eq, %lt)\n  %picki = pred[] or(%pick, %tie)\n  %v = f32[] "
        "select(%pick, %av, %bv)\n  %i = s32[] select(%picki, %ai, %bi)\n  "
        "ROOT %t = (f32[], s32[]) tuple(%v, %i)\n}\nENTRY %main (x: " +
        in + ") -> " + idx + " {\n  %x = " + in +
        " parameter(0)\n  %f = f32[] constant(4)\n  %bf = " + in +
        " broadcast(%f), dimensions={}\n  %fl = " + in +
        " multiply(%x, %bf)\n  %r = " + in +
        " round-nearest-even(%fl)\n  %iota = " + iota +
        " iota(), iota_dimension=" + std::to_string(layout.reduced[0]) +
        "\n  %ninf = f32[] constant(-inf)\n  %zero = s32[] constant(0)\n  "
        "%red = (" +
        out + ", " + idx +
        ") reduce(%r, %iota, %ninf, %zero), "
        "dimensions={" +
        DimsText(layout.reduced) + "}, to_apply=%argmax\n  ROOT %ix = " + idx +
        " get-tuple-element(%red), index=1\n}\n";
    std::pair<int, int> taken = EvaluatedFusions(text);
    EXPECT_EQ(taken.second, 1) << text;
    EXPECT_EQ(taken.first, 1);
    // Rounded values tie often; a NaN must win where it is; rows of
    // negative values only must beat the -inf init.
    Literal x = RandomF32(layout.dims, 15);
    x.data<float>()[x.shape().num_elements() / 3] = std::nanf("");
    ExpectSameAsUnfused(text, {x});
    for (int64_t e = 0; e < x.shape().num_elements(); ++e)
      x.data<float>()[e] -= 3.0f;
    ExpectSameAsUnfused(text, {x});
  }
}

// Column reductions of 1 to 255 columns (batch norm's statistics keep its
// channels): tiles of whole rows, in pieces of 64Ki elements folded into
// partial results (one piece: each column in order), for every reducer and
// type: the unfused bytes but for float sums and products of several
// pieces, and the same bytes on one thread and on three. A column is a
// reduction to one element.
TEST(FusedReduce, FewColumnsGiveTheUnfusedBytes) {
  std::vector<ReducerCase> cases(std::begin(kReducerCases),
                                 std::end(kReducerCases));
  cases.push_back({"f32", "add", "0", true});
  if (xffi::testing_util::kSanitizedBuild)
    cases = {cases.back(), cases[4], cases[9]};
  for (int64_t columns :
       xffi::testing_util::SweepValues<int64_t>({1, 3, 16, 64, 255}, {3, 64})) {
    // 1500 rows: several tiles and a partial one (one piece for one
    // column); from 3 columns, inputs too large for XLA's in-order windows
    // (passes/reduction_tree.h), so the fused reduce is the whole fold.
    const std::vector<int64_t> dims = {1500, columns};
    for (const ReducerCase& c : cases) {
      SCOPED_TRACE(c.type + " " + c.op + " " + c.init + " columns " +
                   std::to_string(columns));
      const std::string text =
          ReduceOfProducers(dims, {0}, c.type, c.op, c.init);
      std::pair<int, int> taken = EvaluatedFusions(text);
      EXPECT_EQ(taken.second, 1);
      EXPECT_EQ(taken.first, c.evaluated ? 1 : 0);
      const bool pieces = 1500 * columns > 64 * 1024;
      const bool float_fold = (c.type == "f32" || c.type == "f64") &&
                              (c.op == "add" || c.op == "multiply");
      if (pieces && float_fold && c.evaluated)
        ExpectNearUnfused(text, {RandomF32(dims, 16)}, 1e-4, 1000.0);
      else
        ExpectSameAsUnfused(text, {RandomF32(dims, 16)});
    }
  }
}

// Batch norm's statistics and a gradient-like sum over N, H and W of an
// NHWC activation, with the normalised values returned beside them: two
// pieces of whole rows, within f32 rounding of the unfused sums and of an
// f64 reference, the same bytes on one thread and three.
TEST(FusedReduce, BatchNormStatisticsGiveTheUnfusedBytes) {
  // 8 * 12 * 13 rows of 64 channels: 19 full tiles of 64 rows and one of
  // 32.
  const std::string text = R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[8,12,13,64], mean: f32[64]) -> (f32[64], f32[64], f32[64], f32[8,12,13,64]) {
  %x = f32[8,12,13,64] parameter(0)
  %mean = f32[64] parameter(1)
  %zero = f32[] constant(0)
  %s = f32[64] reduce(%x, %zero), dimensions={0,1,2}, to_apply=%add
  %sq = f32[8,12,13,64] multiply(%x, %x)
  %ss = f32[64] reduce(%sq, %zero), dimensions={0,1,2}, to_apply=%add
  %bm = f32[8,12,13,64] broadcast(%mean), dimensions={3}
  %d = f32[8,12,13,64] subtract(%x, %bm)
  %dx = f32[8,12,13,64] multiply(%d, %x)
  %g = f32[64] reduce(%dx, %zero), dimensions={0,1,2}, to_apply=%add
  ROOT %t = (f32[64], f32[64], f32[64], f32[8,12,13,64]) tuple(%s, %ss, %g, %d)
}
)";
  std::pair<int, int> taken = EvaluatedFusions(text);
  EXPECT_EQ(taken.second, 1);
  EXPECT_EQ(taken.first, 1);
  const Literal x = RandomF32({8, 12, 13, 64}, 17);
  const Literal mean = RandomF32({64}, 18);
  ExpectNearUnfused(text, {x, mean}, 1e-4, 100.0);
  auto fused = RunText(text, {x, mean}, true, 3);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  ASSERT_EQ(fused->size(), 4u);
  const float* xs = x.data<float>();
  const float* ms = mean.data<float>();
  const int64_t rows = 8 * 12 * 13;
  for (int64_t c = 0; c < 64; ++c) {
    double s = 0, ss = 0, g = 0, magnitude = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double v = xs[r * 64 + c];
      s += v;
      ss += v * v;
      g += (v - ms[c]) * v;
      magnitude += std::fabs(v) + std::fabs((v - ms[c]) * v);
    }
    // In-order f32 sums of `rows` terms: within rows * eps of the terms'
    // magnitudes.
    const double bound = 1e-7 * static_cast<double>(rows) * magnitude;
    EXPECT_NEAR((*fused)[0].data<float>()[c], s, bound) << c;
    EXPECT_NEAR((*fused)[1].data<float>()[c], ss, bound) << c;
    EXPECT_NEAR((*fused)[2].data<float>()[c], g, bound) << c;
  }
  EXPECT_EQ((*fused)[3].data<float>()[5 * 64 + 7], xs[5 * 64 + 7] - ms[7]);
}

// XFFI_FUSED_REDUCE_FEW_COLUMNS=0 (for A/B measurements) refuses fewer
// than 256 columns, as before tiles spanned rows: the fusion runs as a
// call, with the same bytes.
TEST(FusedReduce, FewColumnsRefusedWhenTurnedOff) {
  codegen_test::ScopedEnv refuse("XFFI_FUSED_REDUCE_FEW_COLUMNS", "0");
  for (int64_t columns : {64, 256}) {
    SCOPED_TRACE(columns);
    const std::vector<int64_t> dims = {300, columns};
    const std::string text = ReduceOfProducers(dims, {0}, "f32", "add", "0");
    std::pair<int, int> taken = EvaluatedFusions(text);
    EXPECT_EQ(taken.second, 1);
    EXPECT_EQ(taken.first, columns < 256 ? 0 : 1);
    ExpectSameAsUnfused(text, {RandomF32(dims, 19)});
  }
}

}  // namespace
}  // namespace xffi::cpu
