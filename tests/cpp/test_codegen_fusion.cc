// Generated loop-fusion kernels (src/cpu/codegen/emitter.cc): fusions that
// read through index maps (broadcasts of rows, columns and scalars,
// reshapes, transposes, slices, reverses, iota) and producers computed
// again in two fusions give what the tile evaluator gives, on one thread
// and split across the pool; a fusion the generator does not cover still
// runs, on the evaluator.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "fusion_test_util.h"
#include "xla_max_min_table.h"

namespace xffi {
namespace {

using codegen_test::FirstDifference;
using codegen_test::FirstDifferenceWithin;
using codegen_test::ProgramRun;
using codegen_test::RunProgram;
using fusion_test::RandomF32;

// Runs `text` fused, with and without generated code, on 1, 2 and 3
// threads; returns the kernels generated. `relative`: how far float results
// may be apart, relative to their magnitude or 1 (generated tanh, log1p and
// expm1 are approximations).
int64_t ExpectSameAsEvaluator(const std::string& text,
                              const std::vector<Literal>& args,
                              double relative = 0) {
  StatusOr<ProgramRun> plain = RunProgram(text, args, /*codegen=*/false);
  EXPECT_TRUE(plain.ok()) << plain.status().message();
  if (!plain.ok()) return -1;
  int64_t generated_kernels = -1;
  for (int threads : {1, 2, 3}) {
    StatusOr<ProgramRun> generated =
        RunProgram(text, args, /*codegen=*/true, /*fuse=*/true, threads);
    EXPECT_TRUE(generated.ok()) << generated.status().message();
    if (!generated.ok()) return -1;
    generated_kernels = generated->generated_kernels;
    EXPECT_EQ(generated->results.size(), plain->results.size());
    for (size_t i = 0; i < plain->results.size(); ++i)
      EXPECT_EQ(relative == 0
                    ? FirstDifference(generated->results[i], plain->results[i])
                    : FirstDifferenceWithin(generated->results[i],
                                            plain->results[i], relative, 1.0),
                "")
          << "result " << i << ", threads " << threads;
  }
  return generated_kernels;
}

// A row, a scalar and a size-1 column broadcast into one 300x257 loop
// (rows of an odd length: the vectorised body and its remainder).
TEST(CodegenFusion, RowColumnAndScalarBroadcasts) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (x: f32[300,257], row: f32[257], s: f32[], col: f32[300,1]) -> f32[300,257] {
  %x = f32[300,257] parameter(0)
  %row = f32[257] parameter(1)
  %s = f32[] parameter(2)
  %col = f32[300,1] parameter(3)
  %r = f32[300,257] broadcast(%row), dimensions={1}
  %c = f32[300,257] broadcast(%col), dimensions={0,1}
  %sb = f32[300,257] broadcast(%s), dimensions={}
  %d = f32[300,257] subtract(%x, %r)
  %q = f32[300,257] multiply(%d, %d)
  %m = f32[300,257] maximum(%q, %c)
  %root = f32[300,257] sqrt(%m)
  %l = pred[300,257] compare(%x, %sb), direction=LT
  %sum = f32[300,257] add(%root, %sb)
  ROOT %w = f32[300,257] select(%l, %sum, %d)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({300, 257}, 1));
  args.push_back(RandomF32({257}, 2));
  args.push_back(RandomF32({}, 3));
  args.push_back(RandomF32({300, 1}, 4));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

TEST(CodegenFusion, ColumnBroadcastOfAVector) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (x: f32[64,100], col: f32[64]) -> f32[64,100] {
  %x = f32[64,100] parameter(0)
  %col = f32[64] parameter(1)
  %c = f32[64,100] broadcast(%col), dimensions={0}
  %d = f32[64,100] multiply(%x, %c)
  ROOT %t = f32[64,100] tanh(%d)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({64, 100}, 5));
  args.push_back(RandomF32({64}, 6));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args, 0x1p-20), 1);
}

TEST(CodegenFusion, TransposeSliceReverseReshapeAndIota) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (x: f32[40,60], y: f32[30,40]) -> f32[30,40] {
  %x = f32[40,60] parameter(0)
  %y = f32[30,40] parameter(1)
  %s = f32[40,30] slice(%x), slice={[0:40], [1:60:2]}
  %t = f32[30,40] transpose(%s), dimensions={1,0}
  %r = f32[30,40] reverse(%y), dimensions={0,1}
  %a = f32[30,40] add(%t, %r)
  %flat = f32[1200] reshape(%a)
  %i = s32[1200] iota(), iota_dimension=0
  %f = f32[1200] convert(%i)
  %m = f32[1200] multiply(%flat, %f)
  %back = f32[30,40] reshape(%m)
  %j = s32[30,40] iota(), iota_dimension=1
  %g = f32[30,40] convert(%j)
  ROOT %o = f32[30,40] subtract(%back, %g)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({40, 60}, 7));
  args.push_back(RandomF32({30, 40}, 8));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

// f16 and bf16 round to their precision after every op, as the template
// kernels do: a chain whose float result would differ.
TEST(CodegenFusion, HalfPrecisionChainsRoundAfterEveryOp) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (const char* type : {"f16", "bf16"}) {
    const std::string t = type;
    const std::string text = "HloModule m\nENTRY %main (x: " + t +
                             "[4096], y: " + t + "[4096]) -> " + t +
                             "[4096] {\n  %x = " + t +
                             "[4096] parameter(0)\n  %y = " + t +
                             "[4096] parameter(1)\n  %m = " + t +
                             "[4096] multiply(%x, %y)\n  %a = " + t +
                             "[4096] add(%m, %x)\n  %e = " + t +
                             "[4096] exponential(%a)\n  ROOT %d = " + t +
                             "[4096] divide(%e, %y)\n}\n";
    std::vector<Literal> args;
    for (uint32_t seed : {9u, 10u}) {
      Literal f = RandomF32({4096}, seed);
      Literal half(Shape::Array(
          t == "f16" ? ElementType::kF16 : ElementType::kBF16, {4096}));
      auto* bits = static_cast<uint16_t*>(half.data());
      for (int64_t i = 0; i < 4096; ++i) {
        // A float of the form the type holds exactly: its top 16 bits
        // (bf16), or a small f16 built from them.
        uint32_t u;
        std::memcpy(&u, f.data<float>() + i, 4);
        bits[i] = t == "bf16" ? static_cast<uint16_t>(u >> 16)
                              : static_cast<uint16_t>((u >> 16) & 0xbfff);
      }
      args.push_back(std::move(half));
    }
    SCOPED_TRACE(t);
    EXPECT_EQ(ExpectSameAsEvaluator(text, args, t == "f16" ? 0x1p-8 : 0x1p-5),
              1);
  }
}

// Generated maximum and minimum against XLA:CPU's results for every pair of
// special values (xla_max_min_table.h), bit for bit: a NaN second operand
// keeps its payload with the sign logic of two equal zeros.
template <typename Bits, size_t N>
void ExpectGeneratedMaxMinMatchXla(const std::string& type,
                                   const Bits (&values)[N],
                                   const Bits (&max)[N][N],
                                   const Bits (&min)[N][N]) {
  const std::string shape = type + "[" + std::to_string(N * N) + "]";
  const std::string text =
      "HloModule m\nENTRY %main (a: " + shape + ", b: " + shape + ") -> (" +
      shape + ", " + shape + ") {\n  %a = " + shape +
      " parameter(0)\n  %b = " + shape + " parameter(1)\n  %x = " + shape +
      " maximum(%a, %b)\n  %n = " + shape +
      " minimum(%a, %b)\n  %nx = " + shape + " negate(%x)\n  %nn = " + shape +
      " negate(%n)\n  ROOT %t = (" + shape + ", " + shape +
      ") tuple(%nx, %nn)\n}\n";
  const ElementType element =
      type == "f32" ? ElementType::kF32 : ElementType::kF64;
  std::vector<Bits> a, b;
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      a.push_back(values[i]);
      b.push_back(values[j]);
    }
  std::vector<Literal> args;
  for (const std::vector<Bits>* v : {&a, &b})
    args.push_back(
        Literal::FromBytes(Shape::Array(element, {static_cast<int64_t>(N * N)}),
                           v->data(), v->size() * sizeof(Bits)));
  EXPECT_GE(ExpectSameAsEvaluator(text, args), 1);
  StatusOr<ProgramRun> run = RunProgram(text, args, /*codegen=*/true);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->results.size(), 2u);
  constexpr Bits kSign = Bits{1} << (8 * sizeof(Bits) - 1);
  for (size_t k = 0; k < N * N; ++k) {
    // The fusion negates each result (so it is a loop, not a lone op).
    EXPECT_EQ(run->results[0].data<Bits>()[k] ^ kSign, max[k / N][k % N])
        << "maximum " << type << std::hex << " of 0x" << a[k] << ", 0x" << b[k];
    EXPECT_EQ(run->results[1].data<Bits>()[k] ^ kSign, min[k / N][k % N])
        << "minimum " << type << std::hex << " of 0x" << a[k] << ", 0x" << b[k];
  }
}

TEST(CodegenFusion, MaxMinMatchXlaOnEveryPairOfSpecialValues) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  ExpectGeneratedMaxMinMatchXla("f32", test::kXlaF32Values, test::kXlaF32Max,
                                test::kXlaF32Min);
  ExpectGeneratedMaxMinMatchXla("f64", test::kXlaF64Values, test::kXlaF64Max,
                                test::kXlaF64Min);
}

TEST(CodegenFusion, IntegerChainWithConstants) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (x: u32[8192]) -> u32[8192] {
  %x = u32[8192] parameter(0)
  %k13 = u32[] constant(13)
  %b13 = u32[8192] broadcast(%k13), dimensions={}
  %s1 = u32[8192] shift-left(%x, %b13)
  %x1 = u32[8192] xor(%x, %s1)
  %k17 = u32[] constant(17)
  %b17 = u32[8192] broadcast(%k17), dimensions={}
  %s2 = u32[8192] shift-right-logical(%x1, %b17)
  %x2 = u32[8192] xor(%x1, %s2)
  %table = u32[4] constant({1, 2, 3, 4})
  %tb = u32[2048,4] broadcast(%table), dimensions={1}
  %tf = u32[8192] reshape(%tb)
  %p = u32[8192] popcnt(%x2)
  ROOT %o = u32[8192] add(%p, %tf)
}
)";
  Literal x(Shape::Array(ElementType::kU32, {8192}));
  for (int64_t i = 0; i < 8192; ++i)
    x.data<uint32_t>()[i] = static_cast<uint32_t>(i * 2654435761u);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

// Pad is not generated: the fusion runs on the evaluator, still right.
TEST(CodegenFusion, UncoveredFusionFallsBackToEvaluator) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (x: f32[60,60]) -> f32[60,60] {
  %x = f32[60,60] parameter(0)
  %e = f32[60,60] exponential(%x)
  %g = f32[60,60] lgamma(%e)
  ROOT %n = f32[60,60] negate(%g)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({60, 60}, 11));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 0);
}

// Pad (edges, interior and a negative low edge), concatenate (three
// operands, one a broadcast) and dynamic-slice (starts in range, past the
// end and negative: clamped as XLA clamps them) in one fused loop each,
// generated, against the evaluator (the generated exp and sin are within
// a few ulp of its).
TEST(CodegenFusion, PadConcatenateAndDynamicSlice) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string pad = R"(HloModule m
ENTRY %main (x: f32[60,70], v: f32[]) -> f32[125,77] {
  %x = f32[60,70] parameter(0)
  %v = f32[] parameter(1)
  %e = f32[60,70] exponential(%x)
  %p = f32[125,77] pad(%e, %v), padding=3_3_1x-2_9
  ROOT %n = f32[125,77] negate(%p)
}
)";
  std::vector<Literal> pad_args;
  pad_args.push_back(RandomF32({60, 70}, 21));
  pad_args.push_back(RandomF32({}, 22));
  EXPECT_EQ(ExpectSameAsEvaluator(pad, pad_args, 1e-6), 1);

  const std::string concatenate = R"(HloModule m
ENTRY %main (a: f32[40,30], b: f32[40,5], c: f32[40]) -> f32[40,57] {
  %a = f32[40,30] parameter(0)
  %b = f32[40,5] parameter(1)
  %c = f32[40] parameter(2)
  %sa = f32[40,30] sine(%a)
  %cb = f32[40,22] broadcast(%c), dimensions={0}
  %k = f32[40,57] concatenate(%sa, %b, %cb), dimensions={1}
  ROOT %m = f32[40,57] multiply(%k, %k)
}
)";
  std::vector<Literal> concatenate_args;
  concatenate_args.push_back(RandomF32({40, 30}, 23));
  concatenate_args.push_back(RandomF32({40, 5}, 24));
  concatenate_args.push_back(RandomF32({40}, 25));
  EXPECT_EQ(ExpectSameAsEvaluator(concatenate, concatenate_args, 1e-6), 1);

  for (int32_t row : {0, 7, 100, -5}) {
    SCOPED_TRACE("start row " + std::to_string(row));
    const std::string dynamic_slice = R"(HloModule m
ENTRY %main (x: f32[50,64], i: s32[], j: u32[]) -> f32[20,48] {
  %x = f32[50,64] parameter(0)
  %i = s32[] parameter(1)
  %j = u32[] parameter(2)
  %ji = s32[] convert(%j)
  %d = f32[20,48] dynamic-slice(%x, %i, %ji), dynamic_slice_sizes={20,48}
  ROOT %t = f32[20,48] tanh(%d)
}
)";
    std::vector<Literal> args;
    args.push_back(RandomF32({50, 64}, 26));
    Literal i(Shape::Array(ElementType::kS32, {}));
    *i.data<int32_t>() = row;
    args.push_back(std::move(i));
    Literal j(Shape::Array(ElementType::kU32, {}));
    *j.data<uint32_t>() = static_cast<uint32_t>(row * 3);
    args.push_back(std::move(j));
    // The fusion, and the convert of a start index on its own.
    EXPECT_EQ(ExpectSameAsEvaluator(dynamic_slice, args, 1e-6), 2);
  }
}

// Indices of `type` in [-5, limit + 5): some below zero and some past
// the end, which the gather clamps (unsigned types wrap the negative ones
// to huge values, clamped to the end).
Literal PointIndices(ElementType type, std::vector<int64_t> dims, int64_t limit,
                     uint32_t seed) {
  Literal literal(Shape::Array(type, std::move(dims)));
  uint32_t state = seed * 2654435761u + 7;
  const size_t size = ElementByteSize(type);
  for (int64_t k = 0; k < literal.shape().num_elements(); ++k) {
    state = state * 1664525u + 1013904223u;
    const int64_t value =
        static_cast<int64_t>((state >> 8) % static_cast<uint32_t>(limit + 10)) -
        5;
    // Little-endian: the low bytes of the two's-complement value.
    std::memcpy(
        static_cast<char*>(literal.data()) + static_cast<size_t>(k) * size,
        &value, size);
  }
  return literal;
}

// take_along_axis's gather (one-element slices, an operand batching dim)
// fused with the producer of its indices and its consumer, generated, for
// every integer index type, against the evaluator (which runs the gather's
// own kernel); then gathers without batching dims: a start vector of two
// (index_vector_dim last and first) and a kept slice dim of size 1.
TEST(CodegenFusion, PointGatherWithItsIndexProducer) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (ElementType type :
       {ElementType::kS8, ElementType::kS16, ElementType::kS32,
        ElementType::kS64, ElementType::kU8, ElementType::kU16,
        ElementType::kU32, ElementType::kU64}) {
    const std::string t(ElementTypeName(type));
    SCOPED_TRACE(t);
    const std::string text =
        "HloModule m\nENTRY %main (x: f32[37,50], i: " + t +
        "[37,20]) -> f32[37,20] {\n  %x = f32[37,50] parameter(0)\n  %i = " +
        t + "[37,20] parameter(1)\n  %c = " + t +
        "[] constant(1)\n  %cb = " + t +
        "[37,20] broadcast(%c), dimensions={}\n  %a = " + t +
        "[37,20] add(%i, %cb)\n  %r = " + t +
        "[37,20,1] reshape(%a)\n  %g = f32[37,20] gather(%x, %r), "
        "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, "
        "operand_batching_dims={0}, start_indices_batching_dims={0}, "
        "index_vector_dim=2, slice_sizes={1,1}\n  ROOT %n = f32[37,20] "
        "negate(%g)\n}\n";
    std::vector<Literal> args;
    args.push_back(RandomF32({37, 50}, 31));
    args.push_back(PointIndices(type, {37, 20}, 50, 32));
    EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
  }
  const std::string last = R"(HloModule m
ENTRY %main (x: f32[30,40], i: s32[25,2]) -> f32[25] {
  %x = f32[30,40] parameter(0)
  %i = s32[25,2] parameter(1)
  %g = f32[25] gather(%x, %i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=1, slice_sizes={1,1}
  ROOT %n = f32[25] negate(%g)
}
)";
  std::vector<Literal> last_args;
  last_args.push_back(RandomF32({30, 40}, 33));
  last_args.push_back(PointIndices(ElementType::kS32, {25, 2}, 40, 34));
  EXPECT_EQ(ExpectSameAsEvaluator(last, last_args), 1);
  const std::string first = R"(HloModule m
ENTRY %main (x: f32[30,40], i: s64[2,25]) -> f32[25,1] {
  %x = f32[30,40] parameter(0)
  %i = s64[2,25] parameter(1)
  %g = f32[25,1] gather(%x, %i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}
  ROOT %n = f32[25,1] negate(%g)
}
)";
  std::vector<Literal> first_args;
  first_args.push_back(RandomF32({30, 40}, 35));
  first_args.push_back(PointIndices(ElementType::kS64, {2, 25}, 40, 36));
  EXPECT_EQ(ExpectSameAsEvaluator(first, first_args), 1);
}

// Outputs too small to split run whole; larger ones split by rows or
// elements, on whatever chunks the pool takes: the same values.
TEST(CodegenFusion, SplitsAcrossThreadsBySizes) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (int64_t rows : {1, 3, 97, 1000}) {
    const std::string d = std::to_string(rows);
    const std::string text =
        "HloModule m\nENTRY %main (x: f32[" + d +
        ",129], v: f32[129]) -> f32[" + d + ",129] {\n  %x = f32[" + d +
        ",129] parameter(0)\n  %v = f32[129] "
        "parameter(1)\n  %b = f32[" +
        d + ",129] broadcast(%v), dimensions={1}\n  %s = f32[" + d +
        ",129] sine(%x)\n  ROOT %m = f32[" + d + ",129] multiply(%s, %b)\n}\n";
    std::vector<Literal> args;
    args.push_back(RandomF32({rows, 129}, 12));
    args.push_back(RandomF32({129}, 13));
    SCOPED_TRACE(rows);
    EXPECT_EQ(ExpectSameAsEvaluator(text, args, 0x1p-20), 1);
  }
}

// Threefry's rounds: two u32 outputs sharing every add, rotate and xor.
// Loop fusion computes the shared ops in both fusions (each generated),
// which must still match the evaluator bit for bit, with rotate amounts
// read from operands (0 and 32 included: shifts by 32 give 0 in XLA).
TEST(CodegenFusion, SharedIntegerRoundsInTwoFusions) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  std::string text = R"(HloModule m
ENTRY %main (a: u32[4099], b: u32[4099], r: u32[4], q: u32[4]) -> (u32[4099], u32[4099]) {
  %a = u32[4099] parameter(0)
  %b = u32[4099] parameter(1)
  %r = u32[4] parameter(2)
  %q = u32[4] parameter(3)
)";
  std::string x0 = "%a", x1 = "%b";
  for (int round = 0; round < 4; ++round) {
    const std::string n = std::to_string(round);
    const std::string at =
        "slice={[" + n + ":" + std::to_string(round + 1) + "]}\n";
    text += "  %rs" + n + " = u32[1] slice(%r), " + at;
    text += "  %qs" + n + " = u32[1] slice(%q), " + at;
    text += "  %ra" + n + " = u32[] reshape(%rs" + n + ")\n";
    text += "  %rb" + n + " = u32[] reshape(%qs" + n + ")\n";
    text +=
        "  %la" + n + " = u32[4099] broadcast(%ra" + n + "), dimensions={}\n";
    text +=
        "  %lb" + n + " = u32[4099] broadcast(%rb" + n + "), dimensions={}\n";
    text += "  %s" + n + " = u32[4099] add(" + x0 + ", " + x1 + ")\n";
    text += "  %l" + n + " = u32[4099] shift-left(" + x1 + ", %la" + n + ")\n";
    text += "  %h" + n + " = u32[4099] shift-right-logical(" + x1 + ", %lb" +
            n + ")\n";
    text += "  %o" + n + " = u32[4099] or(%l" + n + ", %h" + n + ")\n";
    text += "  %x" + n + " = u32[4099] xor(%s" + n + ", %o" + n + ")\n";
    x0 = "%s" + n;
    x1 = "%x" + n;
  }
  text +=
      "  ROOT %t = (u32[4099], u32[4099]) tuple(" + x0 + ", " + x1 + ")\n}\n";
  for (const std::vector<uint32_t>& amounts :
       {std::vector<uint32_t>{13, 15, 26, 6}, {0, 32, 31, 1}}) {
    Literal a(Shape::Array(ElementType::kU32, {4099}));
    Literal b(Shape::Array(ElementType::kU32, {4099}));
    for (int64_t i = 0; i < 4099; ++i) {
      a.data<uint32_t>()[i] = static_cast<uint32_t>(i * 2654435761u);
      b.data<uint32_t>()[i] = static_cast<uint32_t>(~i * 40503u);
    }
    Literal r(Shape::Array(ElementType::kU32, {4}));
    Literal q(Shape::Array(ElementType::kU32, {4}));
    for (int k = 0; k < 4; ++k) {
      r.data<uint32_t>()[k] = amounts[static_cast<size_t>(k)];
      q.data<uint32_t>()[k] = 32 - amounts[static_cast<size_t>(k)];
    }
    std::vector<Literal> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    args.push_back(std::move(r));
    args.push_back(std::move(q));
    EXPECT_EQ(ExpectSameAsEvaluator(text, args), 2);
  }
}

// A fusion whose root concatenates along the minor dimension is generated
// as one element loop per operand (emitter.cc, SplitsRowsAtConcatenate):
// operands through a dynamic slice at a run-time step (in range, past the
// end, negative), a product shared by two of them, a plain parameter, a
// broadcast and an empty slice, in a rank-3 row loop; the same values as
// the evaluator and as the single loop that selects among all operands
// (XFFI_CODEGEN_SPLIT_CONCAT=0), on 1, 2 and 3 threads.
TEST(CodegenFusion, ConcatenateRootWrittenOperandByOperand) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (s: f32[6,2,3,40], a: f32[2,3,40], b: f32[2,3,17], c: f32[2,3], i: s32[]) -> f32[2,3,137] {
  %s = f32[6,2,3,40] parameter(0)
  %a = f32[2,3,40] parameter(1)
  %b = f32[2,3,17] parameter(2)
  %c = f32[2,3] parameter(3)
  %i = s32[] parameter(4)
  %zero = s32[] constant(0)
  %d = f32[1,2,3,40] dynamic-slice(%s, %i, %zero, %zero, %zero), dynamic_slice_sizes={1,2,3,40}
  %x = f32[2,3,40] reshape(%d)
  %p = f32[2,3,40] multiply(%x, %a)
  %q = f32[2,3,40] add(%p, %a)
  %r = f32[2,3,40] subtract(%q, %x)
  %cb = f32[2,3,40] broadcast(%c), dimensions={0,1}
  %e = f32[2,3,0] slice(%a), slice={[0:2], [0:3], [0:0]}
  ROOT %k = f32[2,3,137] concatenate(%p, %b, %e, %r, %cb), dimensions={2}
}
)";
  for (int32_t step : {0, 4, 9, -2}) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<Literal> args;
    args.push_back(RandomF32({6, 2, 3, 40}, 51));
    args.push_back(RandomF32({2, 3, 40}, 52));
    args.push_back(RandomF32({2, 3, 17}, 53));
    args.push_back(RandomF32({2, 3}, 54));
    Literal i(Shape::Array(ElementType::kS32, {}));
    *i.data<int32_t>() = step;
    args.push_back(std::move(i));
    EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
    StatusOr<ProgramRun> split = RunProgram(text, args, /*codegen=*/true);
    ASSERT_TRUE(split.ok()) << split.status().message();
    codegen_test::ScopedEnv off("XFFI_CODEGEN_SPLIT_CONCAT", "0");
    StatusOr<ProgramRun> selecting = RunProgram(text, args, /*codegen=*/true);
    ASSERT_TRUE(selecting.ok()) << selecting.status().message();
    ASSERT_EQ(split->results.size(), 1u);
    ASSERT_EQ(selecting->results.size(), 1u);
    EXPECT_EQ(FirstDifference(split->results[0], selecting->results[0]), "");
  }
}

// The LSTM gradient's loop body in small: per step, saved activations read
// at the step through dynamic slices, four gate gradients concatenated
// along the minor dimension (a fusion whose result a dot and a
// dynamic-update-slice into a carried stack both read), eight steps; the
// generated split loops against the evaluator on 1, 2 and 3 threads.
TEST(CodegenFusion, GateGradientConcatenateInAWhileLoop) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
body {
  state = (s32[], f32[8,4,64], f32[8,4,64], f32[4,64], f32[8,4,256], f32[256,64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  gs = f32[8,4,64] get-tuple-element(state), index=1
  os = f32[8,4,64] get-tuple-element(state), index=2
  dh = f32[4,64] get-tuple-element(state), index=3
  out = f32[8,4,256] get-tuple-element(state), index=4
  w = f32[256,64] get-tuple-element(state), index=5
  zero = s32[] constant(0)
  g1 = f32[1,4,64] dynamic-slice(gs, i, zero, zero), dynamic_slice_sizes={1,4,64}
  g = f32[4,64] reshape(g1)
  o1 = f32[1,4,64] dynamic-slice(os, i, zero, zero), dynamic_slice_sizes={1,4,64}
  o = f32[4,64] reshape(o1)
  m = f32[4,64] multiply(dh, g)
  n = f32[4,64] multiply(m, o)
  s = f32[4,64] add(m, o)
  t = f32[4,64] subtract(dh, n)
  cat = f32[4,256] concatenate(m, n, s, t), dimensions={1}
  row = f32[1,4,256] reshape(cat)
  updated = f32[8,4,256] dynamic-update-slice(out, row, i, zero, zero)
  next_dh = f32[4,64] dot(cat, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT result = (s32[], f32[8,4,64], f32[8,4,64], f32[4,64], f32[8,4,256], f32[256,64]) tuple(next, gs, os, next_dh, updated, w)
}
cond {
  state = (s32[], f32[8,4,64], f32[8,4,64], f32[4,64], f32[8,4,256], f32[256,64]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  gs = f32[8,4,64] parameter(0)
  os = f32[8,4,64] parameter(1)
  dh = f32[4,64] parameter(2)
  w = f32[256,64] parameter(3)
  zero = s32[] constant(0)
  zf = f32[] constant(0)
  out = f32[8,4,256] broadcast(zf), dimensions={}
  init = (s32[], f32[8,4,64], f32[8,4,64], f32[4,64], f32[8,4,256], f32[256,64]) tuple(zero, gs, os, dh, out, w)
  loop = (s32[], f32[8,4,64], f32[8,4,64], f32[4,64], f32[8,4,256], f32[256,64]) while(init), condition=cond, body=body
  last = f32[4,64] get-tuple-element(loop), index=3
  stack = f32[8,4,256] get-tuple-element(loop), index=4
  ROOT r = (f32[4,64], f32[8,4,256]) tuple(last, stack)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({8, 4, 64}, 61));
  args.push_back(RandomF32({8, 4, 64}, 62));
  args.push_back(RandomF32({4, 64}, 63));
  args.push_back(RandomF32({256, 64}, 64));
  EXPECT_GE(ExpectSameAsEvaluator(text, args), 1);
}

}  // namespace
}  // namespace xffi
