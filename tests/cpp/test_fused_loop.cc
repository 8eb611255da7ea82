// The CPU's tile-by-tile evaluator of loop fusions (src/cpu/fused_loop.h):
// every way it reads a value (streamed, computed, gathered through index
// maps, computed whole first) gives the bytes the unfused ops give, on one
// thread and across the pool, for full tiles and the last partial one.
#include "cpu/fused_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fusion_test_util.h"
#include "passes/loop_fusion.h"
#include "xffi/program/text.h"

namespace xffi::cpu {
namespace {

using fusion_test::ExpectSameAsUnfused;
using fusion_test::RandomF32;
using fusion_test::RunText;

std::pair<int, int> EvaluatedFusions(std::string_view text) {
  return fusion_test::EvaluatedFusions(
      text, [](Module& module) { return passes::FuseLoops(module); },
      [](const Instruction& op) { return MakeFusedLoopKernel(op); });
}

// 300 x 257 elements: several tiles, a partial last one, and enough for
// the pool to split; a row, a scalar and a size-1 column broadcast.
constexpr std::string_view kStreamsAndBroadcasts = R"(HloModule m
ENTRY %main (x: f32[300,257], row: f32[257], s: f32[], col: f32[300,1]) -> f32[300,257] {
  %x = f32[300,257] parameter(0)
  %row = f32[257] parameter(1)
  %s = f32[] parameter(2)
  %col = f32[300,1] parameter(3)
  %e = f32[300,257] exponential(%x)
  %r = f32[300,257] broadcast(%row), dimensions={1}
  %em = f32[300,257] multiply(%e, %r)
  %c = f32[300,257] broadcast(%col), dimensions={0,1}
  %m = f32[300,257] multiply(%em, %c)
  %sb = f32[300,257] broadcast(%s), dimensions={}
  %a = f32[300,257] add(%m, %sb)
  %half = f32[] constant(0.5)
  %hb = f32[300,257] broadcast(%half), dimensions={}
  %gt = pred[300,257] compare(%x, %hb), direction=GT
  %n = f32[300,257] negate(%a)
  ROOT %w = f32[300,257] select(%gt, %a, %n)
}
)";

TEST(FusedLoop, StreamsComputesAndBroadcastsAcrossTiles) {
  EXPECT_EQ(EvaluatedFusions(kStreamsAndBroadcasts), std::make_pair(1, 1));
  ExpectSameAsUnfused(kStreamsAndBroadcasts,
                      {RandomF32({300, 257}, 1), RandomF32({257}, 2),
                       RandomF32({}, 3), RandomF32({300, 1}, 10)});
}

constexpr std::string_view kIndexMaps = R"(HloModule m
ENTRY %main (x: f32[40,60], y: f32[61,20]) -> f32[30,20] {
  %x = f32[40,60] parameter(0)
  %y = f32[61,20] parameter(1)
  %t = f32[60,40] transpose(%x), dimensions={1,0}
  %s = f32[30,20] slice(%t), slice={[1:60:2], [10:30]}
  %v = f32[30,20] reverse(%s), dimensions={0,1}
  %ys = f32[30,20] slice(%y), slice={[0:60:2], [0:20]}
  %yr = f32[30,20] reverse(%ys), dimensions={1}
  %m = f32[30,20] multiply(%v, %yr)
  ROOT %l = f32[30,20] tanh(%m)
}
)";

TEST(FusedLoop, TransposeSliceAndReverseChainsAreGathered) {
  EXPECT_EQ(EvaluatedFusions(kIndexMaps), std::make_pair(1, 1));
  ExpectSameAsUnfused(kIndexMaps,
                      {RandomF32({40, 60}, 4), RandomF32({61, 20}, 5)});
}

constexpr std::string_view kWholeValues = R"(HloModule m
ENTRY %main (x: f32[100], y: f32[98], p: pred[], lo: f32[], hi: f32[]) -> f32[100] {
  %x = f32[100] parameter(0)
  %y = f32[98] parameter(1)
  %p = pred[] parameter(2)
  %lo = f32[] parameter(3)
  %hi = f32[] parameter(4)
  %i = s32[100] iota(), iota_dimension=0
  %f = f32[100] convert(%i)
  %z = f32[] constant(0)
  %padded = f32[100] pad(%y, %z), padding=1_1
  %a = f32[100] add(%f, %padded)
  %c = f32[100] clamp(%lo, %a, %hi)
  %xs = f32[10,10] reshape(%x)
  %xt = f32[10,10] transpose(%xs), dimensions={1,0}
  %xf = f32[100] reshape(%xt)
  ROOT %s = f32[100] select(%p, %c, %xf)
}
)";

TEST(FusedLoop, IotaPadScalarOperandsAndReshapes) {
  EXPECT_EQ(EvaluatedFusions(kWholeValues), std::make_pair(1, 1));
  Literal lo = Literal::Scalar<float>(-1.0f),
          hi = Literal::Scalar<float>(40.0f);
  for (bool p : {true, false}) {
    SCOPED_TRACE(p);
    ExpectSameAsUnfused(kWholeValues, {RandomF32({100}, 6), RandomF32({98}, 7),
                                       Literal::Scalar<bool>(p), lo, hi});
  }
}

// Iotas of several dimensions are read as broadcasts of their values
// along one dimension (never computed whole): along each dimension, in an
// integer and a float type, over several tiles and a partial one.
constexpr std::string_view kIotasOfSeveralDimensions = R"(HloModule m
ENTRY %main (x: f32[7,300,5]) -> f32[7,300,5] {
  %x = f32[7,300,5] parameter(0)
  %i0 = s32[7,300,5] iota(), iota_dimension=0
  %i1 = f32[7,300,5] iota(), iota_dimension=1
  %i2 = s32[7,300,5] iota(), iota_dimension=2
  %f0 = f32[7,300,5] convert(%i0)
  %f2 = f32[7,300,5] convert(%i2)
  %a = f32[7,300,5] multiply(%x, %i1)
  %b = f32[7,300,5] add(%a, %f0)
  %c = f32[7,300,5] multiply(%f2, %f2)
  ROOT %d = f32[7,300,5] subtract(%b, %c)
}
)";

TEST(FusedLoop, IotasOfSeveralDimensionsAreGatheredFromOneRow) {
  EXPECT_EQ(EvaluatedFusions(kIotasOfSeveralDimensions), std::make_pair(1, 1));
  ExpectSameAsUnfused(kIotasOfSeveralDimensions, {RandomF32({7, 300, 5}, 16)});
}

constexpr std::string_view kMixedTypes = R"(HloModule m
ENTRY %main (x: f32[5000], b: bf16[5000]) -> (s32[5000], bf16[5000]) {
  %x = f32[5000] parameter(0)
  %b = bf16[5000] parameter(1)
  %k = f32[] constant(100)
  %kb = f32[5000] broadcast(%k), dimensions={}
  %m = f32[5000] multiply(%x, %kb)
  %i = s32[5000] convert(%m)
  %bits = s32[5000] bitcast-convert(%x)
  %shift = s32[] constant(3)
  %sb = s32[5000] broadcast(%shift), dimensions={}
  %sh = s32[5000] shift-right-logical(%bits, %sb)
  %o = s32[5000] xor(%i, %sh)
  %bs = bf16[5000] sine(%b)
  %bb = bf16[5000] multiply(%bs, %b)
  ROOT %t = (s32[5000], bf16[5000]) tuple(%o, %bb)
}
)";

TEST(FusedLoop, IntegerBitcastAndBf16Chains) {
  EXPECT_EQ(EvaluatedFusions(kMixedTypes), std::make_pair(2, 2));
  Literal b(Shape::Array(ElementType::kBF16, {5000}));
  Literal x = RandomF32({5000}, 8);
  for (int64_t i = 0; i < 5000; ++i)  // bf16: the high half of an f32
    b.data<uint16_t>()[i] = static_cast<uint16_t>(
        std::bit_cast<uint32_t>(x.data<float>()[i]) >> 16);
  ExpectSameAsUnfused(kMixedTypes, {std::move(x), std::move(b)});
}

// As jnp's scatter indices: computed, then given a trailing dimension of
// size 1 (a broadcast that keeps every element's linear index).
constexpr std::string_view kUnitDimensions = R"(HloModule m
ENTRY %main (x: s32[9000]) -> s32[9000,1] {
  %x = s32[9000] parameter(0)
  %zero = s32[] constant(0)
  %zb = s32[9000] broadcast(%zero), dimensions={}
  %lt = pred[9000] compare(%x, %zb), direction=LT
  %n = s32[] constant(100)
  %nb = s32[9000] broadcast(%n), dimensions={}
  %wrapped = s32[9000] add(%x, %nb)
  %index = s32[9000] select(%lt, %wrapped, %x)
  ROOT %column = s32[9000,1] broadcast(%index), dimensions={0}
}
)";

TEST(FusedLoop, ABroadcastInsertingUnitDimensionsStreams) {
  EXPECT_EQ(EvaluatedFusions(kUnitDimensions), std::make_pair(1, 1));
  Literal x(Shape::Array(ElementType::kS32, {9000}));
  for (int32_t i = 0; i < 9000; ++i) x.data<int32_t>()[i] = i % 200 - 100;
  ExpectSameAsUnfused(kUnitDimensions, {x});
}

TEST(FusedLoop, ATupleResultIsLeftToTheCall) {
  // A multi-output loop fusion written by hand: the evaluator declines,
  // the executor runs the fused computation as a call.
  constexpr std::string_view kTwoOutputs = R"(HloModule m
%fused (a: f32[6]) -> (f32[6], f32[6]) {
  %a = f32[6] parameter(0)
  %n = f32[6] negate(%a)
  %e = f32[6] exponential(%a)
  ROOT %t = (f32[6], f32[6]) tuple(%n, %e)
}
ENTRY %main (x: f32[6]) -> (f32[6], f32[6]) {
  %x = f32[6] parameter(0)
  ROOT %f = (f32[6], f32[6]) fusion(%x), kind=kLoop, calls=%fused
}
)";
  StatusOr<Module> module = ParseHlo(kTwoOutputs, "test");
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<Kernel> kernel = MakeFusedLoopKernel(*module->entry()->root());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  Literal x = RandomF32({6}, 9);
  auto out = RunText(kTwoOutputs, {x}, false);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ((*out)[0].data<float>()[i], -x.data<float>()[i]);
    EXPECT_FLOAT_EQ((*out)[1].data<float>()[i], std::exp(x.data<float>()[i]));
  }
}

}  // namespace
}  // namespace xffi::cpu
