// Generated reduction-fusion kernels (src/cpu/codegen/reduce_emitter.cc):
// every reducer on every type it folds, over edge values, against the
// fused evaluator (XFFI_CODEGEN=0); rows, columns (few columns in row
// pieces) and a reduced middle dimension; extra outputs and sibling
// reduces; argmax/argmin; the same bytes on any number of threads; and
// fusions it leaves to the evaluator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "fusion_test_util.h"
#include "passes/reduction_tree.h"
#include "sanitized_build.h"

namespace xffi {
namespace {

using codegen_test::FirstDifference;
using codegen_test::FirstDifferenceWithin;
using codegen_test::ProgramRun;
using codegen_test::RunProgram;
using fusion_test::RandomF32;

// Runs `text` on the evaluator and with generated code on 1, 2 and 3
// threads. The generated results must be the same bytes on every thread
// count and match the evaluator's exactly, or within `relative` of their
// magnitude or `floor` (sums in another order; a tiny `relative` compares
// exactly but for the sign of zero). Returns the generated kernels; the
// generated results in `generated_results` when given.
int64_t ExpectSameAsEvaluator(
    const std::string& text, const std::vector<Literal>& args,
    double relative = 0, double floor = 0,
    std::vector<Literal>* generated_results = nullptr) {
  StatusOr<ProgramRun> plain = RunProgram(text, args, /*codegen=*/false);
  EXPECT_TRUE(plain.ok()) << plain.status().message();
  if (!plain.ok()) return -1;
  int64_t generated_kernels = -1;
  std::vector<Literal> first;
  for (int threads : {1, 2, 3}) {
    StatusOr<ProgramRun> generated =
        RunProgram(text, args, /*codegen=*/true, /*fuse=*/true, threads);
    EXPECT_TRUE(generated.ok()) << generated.status().message();
    if (!generated.ok()) return -1;
    generated_kernels = generated->generated_kernels;
    EXPECT_EQ(generated->results.size(), plain->results.size());
    if (generated->results.size() != plain->results.size()) return -1;
    for (size_t i = 0; i < plain->results.size(); ++i) {
      const Literal& got = generated->results[i];
      EXPECT_EQ(relative == 0 ? FirstDifference(got, plain->results[i])
                              : FirstDifferenceWithin(got, plain->results[i],
                                                      relative, floor),
                "")
          << "result " << i << ", threads " << threads;
      if (first.size() <= i) {
        first.push_back(got);
      } else {
        EXPECT_EQ(std::memcmp(first[i].data(), got.data(), got.size_bytes()), 0)
            << "result " << i << " differs between 1 and " << threads
            << " threads";
      }
    }
  }
  if (generated_results != nullptr) *generated_results = std::move(first);
  return generated_kernels;
}

// The evaluator's fast max/min (region_util.h) give either zero for a
// tie of -0 and +0, by order; generated code, as XLA's maximum/minimum
// (elementwise_ops.h), orders -0 below +0 in any order.
constexpr double kZeroSignFree = 1e-300;

bool SignBitAt(const Literal& literal, size_t i) {
  if (literal.shape().element_type() == ElementType::kF64) {
    double v;
    std::memcpy(&v, static_cast<const char*>(literal.data()) + 8 * i, 8);
    return std::signbit(v);
  }
  float v;
  std::memcpy(&v, static_cast<const char*>(literal.data()) + 4 * i, 4);
  return std::signbit(v);
}

// A module's start with the f32 add region most programs here reduce with.
const std::string kHeader =
    "HloModule m\n"
    R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(%a, %b)
}
)";

std::string TypeName(ElementType type) {
  return std::string(ElementTypeName(type));
}

// Deterministic values of `type`: floats in [-2, 2] (or near 1 for
// products) with NaN, infinities and signed zeros in the first rows;
// integers from every bit pattern; pred mostly `mostly_true`.
Literal EdgeValues(ElementType type, int64_t rows, int64_t n, bool product,
                   bool mostly_true, uint32_t seed) {
  Literal literal(Shape::Array(type, {rows, n}));
  auto* bytes = static_cast<unsigned char*>(literal.data());
  uint32_t state = seed * 2654435761u + 7;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state;
  };
  const size_t width = ElementByteSize(type);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      unsigned char* at = bytes + static_cast<size_t>(r * n + i) * width;
      const double unit = static_cast<double>(next() >> 8) / 16777216.0;
      double v = product ? 0.98 + 0.04 * unit : unit * 4.0 - 2.0;
      // Row 0: a NaN; 1: +inf; 2: both infinities; 3: only -0;
      // 4: -0 and +0 only.
      if (r == 0 && i == n / 2) v = std::nan("");
      if (r == 1 && i == n - 1) v = INFINITY;
      if (r == 2 && i == 0) v = -INFINITY;
      if (r == 2 && i == n - 1) v = INFINITY;
      if (r == 3) v = -0.0;
      if (r == 4) v = (i % 3 == 1) ? 0.0 : -0.0;
      if (type == ElementType::kF32) {
        const auto f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
      } else if (type == ElementType::kF64) {
        std::memcpy(at, &v, 8);
      } else if (type == ElementType::kPred) {
        *at = (next() % 16 != 0) == mostly_true ? 1 : 0;
      } else {
        for (size_t b = 0; b < width; ++b)
          at[b] = static_cast<unsigned char>(next() >> 24);
      }
    }
  }
  return literal;
}

// A scalar of `type`: the reducer's identity-ish start, or any value.
Literal InitValue(ElementType type, const std::string& op) {
  Literal literal(Shape::Array(type, {}));
  auto* bytes = static_cast<unsigned char*>(literal.data());
  const size_t width = ElementByteSize(type);
  std::memset(bytes, 0, width);
  const bool ones = op == "and" || (op == "minimum" && !IsFloatingType(type));
  if (type == ElementType::kF32) {
    const float v = op == "multiply"  ? 1.0f
                    : op == "maximum" ? -INFINITY
                    : op == "minimum" ? INFINITY
                                      : 0.0f;
    std::memcpy(bytes, &v, 4);
  } else if (type == ElementType::kF64) {
    const double v = op == "multiply"  ? 1.0
                     : op == "maximum" ? -INFINITY
                     : op == "minimum" ? INFINITY
                                       : 0.0;
    std::memcpy(bytes, &v, 8);
  } else if (type == ElementType::kPred) {
    bytes[0] = ones || op == "multiply" ? 1 : 0;
  } else if (ones) {
    std::memset(bytes, 0xff, width);
  } else if (op == "multiply") {
    bytes[0] = 3;  // odd: products do not all become zero
  }
  return literal;
}

// x -> unary producer -> reduce over the minor dimension.
std::string RowReduceText(ElementType type, const std::string& op, int64_t rows,
                          int64_t n) {
  const std::string t = TypeName(type);
  const std::string producer = IsFloatingType(type) ? "negate" : "not";
  const std::string shape =
      t + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string out = t + "[" + std::to_string(rows) + "]";
  return "HloModule m\n%red (a: " + t + "[], b: " + t + "[]) -> " + t +
         "[] {\n  %a = " + t + "[] parameter(0)\n  %b = " + t +
         "[] parameter(1)\n  ROOT %r = " + t + "[] " + op +
         "(%a, %b)\n}\nENTRY %main (x: " + shape + ", init: " + t + "[]) -> " +
         out + " {\n  %x = " + shape + " parameter(0)\n  %init = " + t +
         "[] parameter(1)\n  %p = " + shape + " " + producer +
         "(%x)\n  ROOT %s = " + out + " reduce(%p, %init), dimensions={1}, " +
         "to_apply=%red\n}\n";
}

TEST(CodegenReduce, EveryReducerAndTypeOverEdgeValues) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const ElementType types[] = {
      ElementType::kPred, ElementType::kS8,  ElementType::kS32,
      ElementType::kS64,  ElementType::kU8,  ElementType::kU32,
      ElementType::kU64,  ElementType::kF32, ElementType::kF64};
  for (ElementType type : types) {
    for (const std::string op :
         {"add", "multiply", "maximum", "minimum", "and", "or"}) {
      if (IsFloatingType(type) && (op == "and" || op == "or")) continue;
      for (int64_t n :
           testing_util::SweepValues<int64_t>({4097, 64, 3, 1}, {64, 3})) {
        SCOPED_TRACE(TypeName(type) + " " + op + " n=" + std::to_string(n));
        std::vector<Literal> args;
        args.push_back(EdgeValues(type, 7, n, op == "multiply",
                                  op == "and" || op == "minimum", 11));
        args.push_back(InitValue(type, op));
        const bool is_float = IsFloatingType(type);
        const bool sums = is_float && (op == "add" || op == "multiply");
        const bool extremes = is_float && !sums;
        std::vector<Literal> results;
        const int64_t kernels =
            ExpectSameAsEvaluator(RowReduceText(type, op, 7, n), args,
                                  sums       ? 1e-6
                                  : extremes ? kZeroSignFree
                                             : 0,
                                  sums ? 2.0 * n : 0, &results);
        // Row 4 holds only -0 and +0 (generated where n >= 4).
        if (extremes && n >= 4 && !results.empty()) {
          EXPECT_EQ(SignBitAt(results[0], 4), op == "minimum");
        }
        // Rows shorter than 4 are not fused (reduction_fusion.cc); pred
        // add and multiply have no typed fold (a call runs them).
        const bool pred_arithmetic =
            type == ElementType::kPred && (op == "add" || op == "multiply");
        // Small float sums of rows longer than 32 take XLA's windows
        // (passes/reduction_tree.h): the producer, a reduce-window and the
        // reduce of what it leaves.
        const bool windowed = op == "add" && n > passes::kReductionTreeWindow &&
                              passes::ReducesInXlaOrder(type, 7 * n);
        if (n >= 4 && !pred_arithmetic) {
          EXPECT_EQ(kernels, windowed ? 3 : 1);
        }
      }
    }
  }
}

// Softmax's shape: an extra output (the exponentials, returned too) and a
// reduce of them over rows of an odd length, with a row broadcast.
TEST(CodegenReduce, ExtraOutputsAndBroadcastRow) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text =
      kHeader +
      R"(ENTRY %main (x: f32[33,3001], m: f32[33]) -> (f32[33,3001], f32[33]) {
  %x = f32[33,3001] parameter(0)
  %m = f32[33] parameter(1)
  %mb = f32[33,3001] broadcast(%m), dimensions={0}
  %d = f32[33,3001] subtract(%x, %mb)
  %e = f32[33,3001] exponential(%d)
  %zero = f32[] constant(0)
  %s = f32[33] reduce(%e, %zero), dimensions={1}, to_apply=%add
  ROOT %t = (f32[33,3001], f32[33]) tuple(%e, %s)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({33, 3001}, 1));
  args.push_back(RandomF32({33}, 2));
  // Generated exp is a polynomial (a few ulp from libm's).
  EXPECT_EQ(ExpectSameAsEvaluator(text, args, 1e-5, 1.0), 1);
}

// A layer norm's statistics: sum, sum of squares and max of one array in
// one tuple-root fusion, over rows and over columns.
std::string SiblingText(bool columns) {
  const std::string dims = columns ? "{0}" : "{1}";
  const std::string out = columns ? "f32[300]" : "f32[129]";
  std::string text = kHeader + R"(%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] maximum(%a, %b)
}
ENTRY %main (x: f32[129,300]) -> (OUT, OUT, OUT) {
  %x = f32[129,300] parameter(0)
  %zero = f32[] constant(0)
  %low = f32[] constant(-inf)
  %s = OUT reduce(%x, %zero), dimensions=DIMS, to_apply=%add
  %q = f32[129,300] multiply(%x, %x)
  %s2 = OUT reduce(%q, %zero), dimensions=DIMS, to_apply=%add
  %a = f32[129,300] abs(%x)
  %m = OUT reduce(%a, %low), dimensions=DIMS, to_apply=%max
  ROOT %t = (OUT, OUT, OUT) tuple(%s, %s2, %m)
}
)";
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"OUT", out}, {"DIMS", dims}})
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key))
      text.replace(at, key.size(), value);
  return text;
}

TEST(CodegenReduce, SiblingReducesOverRows) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  std::vector<Literal> args;
  args.push_back(RandomF32({129, 300}, 3));
  EXPECT_GE(ExpectSameAsEvaluator(SiblingText(false), args, 1e-6, 600.0), 1);
}

// Columns fold down each column in order, as the evaluator does: the
// same bytes.
TEST(CodegenReduce, SiblingReducesOverColumns) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  std::vector<Literal> args;
  args.push_back(RandomF32({129, 300}, 4));
  EXPECT_GE(ExpectSameAsEvaluator(SiblingText(true), args), 1);
}

// Column reductions of integers and float max/min with NaN and signed
// zeros, exactly; a reduced middle dimension.
TEST(CodegenReduce, ColumnsAndMiddleDimensionOverEdgeValues) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (ElementType type :
       {ElementType::kF32, ElementType::kF64, ElementType::kS32,
        ElementType::kU8, ElementType::kPred}) {
    for (const std::string op : {"or", "maximum", "minimum"}) {
      if (IsFloatingType(type) && op == "or") continue;
      for (bool middle : {false, true}) {
        SCOPED_TRACE(TypeName(type) + " " + op + (middle ? " middle" : ""));
        const std::string t = TypeName(type);
        const std::string producer = IsFloatingType(type) ? "negate" : "not";
        // x: [7, 1030] read as [7, 1030] (columns: reduce dim 0) or
        // [7, 5, 206] (reduce dim 1).
        const std::string in = middle ? t + "[7,5,206]" : t + "[7,1030]";
        const std::string out = middle ? t + "[7,206]" : t + "[1030]";
        const std::string text =
            "HloModule m\n%red (a: " + t + "[], b: " + t + "[]) -> " + t +
            "[] {\n  %a = " + t + "[] parameter(0)\n  %b = " + t +
            "[] parameter(1)\n  ROOT %r = " + t + "[] " + op +
            "(%a, %b)\n}\nENTRY %main (x: " + t + "[7,1030], init: " + t +
            "[]) -> " + out + " {\n  %x = " + t +
            "[7,1030] parameter(0)\n  %init = " + t +
            "[] parameter(1)\n  %y = " + in + " reshape(%x)\n  %p = " + in +
            " " + producer + "(%y)\n  ROOT %s = " + out +
            " reduce(%p, %init), dimensions={" + (middle ? "1" : "0") +
            "}, to_apply=%red\n}\n";
        std::vector<Literal> args;
        args.push_back(EdgeValues(type, 7, 1030, false, op == "minimum", 5));
        args.push_back(InitValue(type, op));
        EXPECT_EQ(ExpectSameAsEvaluator(
                      text, args, IsFloatingType(type) ? kZeroSignFree : 0),
                  1);
      }
    }
  }
}

// The bits of `literal`'s one element as an HLO constant's text.
std::string ScalarText(const Literal& literal) {
  const ElementType type = literal.shape().element_type();
  const auto* bytes = static_cast<const unsigned char*>(literal.data());
  if (type == ElementType::kF32 || type == ElementType::kF64) {
    const double v =
        type == ElementType::kF32
            ? static_cast<double>(*reinterpret_cast<const float*>(bytes))
            : *reinterpret_cast<const double*>(bytes);
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return std::to_string(v);
  }
  if (type == ElementType::kPred) return bytes[0] != 0 ? "true" : "false";
  uint64_t raw = 0;
  std::memcpy(&raw, bytes, ElementByteSize(type));
  if (IsSignedIntegralType(type)) {
    const int bits = static_cast<int>(8 * ElementByteSize(type));
    const auto value = static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
    return std::to_string(value);
  }
  return std::to_string(raw);
}

// x -> producer -> reduce over dimension 0 of [rows, n], the init a
// parameter or a constant; with `extra`, the producer's values returned
// beside the reduce (a full-size loop value written by the same kernel).
std::string FewColumnText(ElementType type, const std::string& op, int64_t rows,
                          int64_t n, bool extra,
                          const std::string& constant_init) {
  const std::string t = TypeName(type);
  const std::string producer = IsFloatingType(type) ? "negate" : "not";
  const std::string in =
      t + "[" + std::to_string(rows) + "," + std::to_string(n) + "]";
  const std::string out = t + "[" + std::to_string(n) + "]";
  const std::string init =
      constant_init.empty()
          ? "  %init = " + t + "[] parameter(1)\n"
          : "  %init = " + t + "[] constant(" + constant_init + ")\n";
  return "HloModule m\n%red (a: " + t + "[], b: " + t + "[]) -> " + t +
         "[] {\n  %a = " + t + "[] parameter(0)\n  %b = " + t +
         "[] parameter(1)\n  ROOT %r = " + t + "[] " + op +
         "(%a, %b)\n}\nENTRY %main (x: " + in +
         (constant_init.empty() ? ", init: " + t + "[]" : "") + ") -> " +
         (extra ? "(" + out + ", " + in + ")" : out) + " {\n  %x = " + in +
         " parameter(0)\n" + init + "  %p = " + in + " " + producer +
         "(%x)\n  %s = " + out +
         " reduce(%p, %init), dimensions={0}, to_apply=%red\n" +
         (extra ? "  ROOT %t = (" + out + ", " + in + ") tuple(%s, %p)\n"
                : "  ROOT %c = " + out + " copy(%s)\n") +
         "}\n";
}

// Batch norm's column reductions keep few columns (its channels): a
// fusion's reduction of 3 to 255 columns is generated as the evaluator's
// row pieces (at least two here: 64Ki elements each) and the combine of
// their partials, for every reducer on every type code generation folds,
// with and without a full-size loop value returned beside it, the init a
// constant (pieces chosen at compile time) or a parameter (at run time):
// the evaluator's bytes (FirstDifference: a NaN may differ in sign, as
// LLVM folds a negate into the sum's subtraction), the same on 1, 2 and 3
// threads. 256 columns take the column loop, also with the evaluator's
// bytes; one column is one row to the generator.
TEST(CodegenReduce, FewColumnsOverEdgeValues) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const ElementType types[] = {
      ElementType::kPred, ElementType::kS8,  ElementType::kS32,
      ElementType::kS64,  ElementType::kU8,  ElementType::kU32,
      ElementType::kU64,  ElementType::kF32, ElementType::kF64};
  for (ElementType type : types) {
    for (const std::string op :
         {"add", "multiply", "maximum", "minimum", "and", "or"}) {
      if (IsFloatingType(type) && (op == "and" || op == "or")) continue;
      // pred add and multiply have no typed fold (a call runs them).
      if (type == ElementType::kPred && (op == "add" || op == "multiply"))
        continue;
      int variant = 0;
      for (int64_t n : testing_util::SweepValues<int64_t>(
               {1, 3, 16, 64, 128, 255, 256}, {3, 64})) {
        // Each reducer and type with and without the loop value, and
        // with a parameter and a constant init, over the column counts.
        const bool extra = variant % 2 == 1;
        const bool constant = variant / 2 % 2 == 1;
        ++variant;
        SCOPED_TRACE(TypeName(type) + " " + op + " n=" + std::to_string(n) +
                     (extra ? " extra" : "") +
                     (constant ? " constant init" : " parameter init"));
        // At least two pieces of 64Ki elements, the last one short (one
        // column is no few-column reduction: 5000 rows, past the ones XLA
        // folds in order, passes/reduction_tree.h).
        const int64_t rows =
            n == 1 ? 5000 : std::max<int64_t>(1500, 64 * 1024 / n + 7);
        Literal init = InitValue(type, op);
        const std::string text = FewColumnText(
            type, op, rows, n, extra, constant ? ScalarText(init) : "");
        std::vector<Literal> args;
        args.push_back(EdgeValues(type, rows, n, op == "multiply",
                                  op == "and" || op == "minimum", 12));
        if (!constant) args.push_back(std::move(init));
        // One column is one row of `rows` elements to the generator:
        // the row loop's rules (EveryReducerAndTypeOverEdgeValues).
        const bool is_float = IsFloatingType(type);
        const bool sums = is_float && (op == "add" || op == "multiply");
        const double relative = n > 1      ? 0
                                : sums     ? 1e-6
                                : is_float ? kZeroSignFree
                                           : 0;
        EXPECT_EQ(
            ExpectSameAsEvaluator(text, args, relative, sums ? 2.0 * rows : 0),
            1);
      }
    }
  }
}

// Init values that are not the reducer's identity cannot start every
// piece: the evaluator folds every row in one piece from the init value,
// and so does the generated kernel (the split decided at compile time for
// a constant, at run time for a parameter).
TEST(CodegenReduce, FewColumnsWithAnInitThatIsNoIdentity) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (const std::string op : {"add", "maximum"}) {
    for (bool constant : {false, true}) {
      SCOPED_TRACE(op + (constant ? " constant" : " parameter"));
      Literal init(Shape::Array(ElementType::kF32, {}));
      *static_cast<float*>(init.data()) = 0.375f;
      const std::string text = FewColumnText(ElementType::kF32, op, 3000, 64,
                                             true, constant ? "0.375" : "");
      std::vector<Literal> args;
      args.push_back(EdgeValues(ElementType::kF32, 3000, 64, false, false, 3));
      if (!constant) args.push_back(std::move(init));
      EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
    }
  }
}

// Sibling reduces of three element types (partials of 4, 8 and 4 bytes
// per column, each piece's on cache lines of its own) and a loop value,
// over three pieces of 2730 rows.
TEST(CodegenReduce, FewColumnSiblingsOfSeveralTypes) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = kHeader + R"(%add64 (a: f64[], b: f64[]) -> f64[] {
  %a = f64[] parameter(0)
  %b = f64[] parameter(1)
  ROOT %r = f64[] add(%a, %b)
}
%max32 (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %r = s32[] maximum(%a, %b)
}
ENTRY %main (x: f32[6000,24]) -> (f32[24], f64[24], s32[24], f32[6000,24]) {
  %x = f32[6000,24] parameter(0)
  %zero = f32[] constant(0)
  %s = f32[24] reduce(%x, %zero), dimensions={0}, to_apply=%add
  %wide = f64[6000,24] convert(%x)
  %q = f64[6000,24] multiply(%wide, %wide)
  %zero64 = f64[] constant(0)
  %s2 = f64[24] reduce(%q, %zero64), dimensions={0}, to_apply=%add64
  %hundred = f32[] constant(100)
  %h = f32[6000,24] broadcast(%hundred), dimensions={}
  %scaled = f32[6000,24] multiply(%x, %h)
  %i = s32[6000,24] convert(%scaled)
  %low = s32[] constant(-2147483648)
  %m = s32[24] reduce(%i, %low), dimensions={0}, to_apply=%max32
  ROOT %t = (f32[24], f64[24], s32[24], f32[6000,24]) tuple(%s, %s2, %m, %scaled)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({6000, 24}, 26));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

// conv_bn_grad's backward fusion: one 128-column sum of a product with a
// broadcast channel vector beside four full-size values returned (a relu
// mask, its select and two products), and ResNet's statistics (sum, sum
// of squares and max of 64 channels): the evaluator's bytes on 1-3
// threads, from one generated kernel each; XFFI_CODEGEN_FEW_COLUMNS=0
// leaves them to the evaluator.
TEST(CodegenReduce, BatchNormFusionsGiveTheEvaluatorsBytes) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string backward = kHeader + R"(
ENTRY %main (x: f32[8,16,16,128], g: f32[8,16,16,128], m: f32[128], s: f32[128]) -> (f32[128], pred[8,16,16,128], f32[8,16,16,128], f32[8,16,16,128], f32[8,16,16,128]) {
  %x = f32[8,16,16,128] parameter(0)
  %g = f32[8,16,16,128] parameter(1)
  %m = f32[128] parameter(2)
  %s = f32[128] parameter(3)
  %zero = f32[] constant(0)
  %zeros = f32[8,16,16,128] broadcast(%zero), dimensions={}
  %mask = pred[8,16,16,128] compare(%x, %zeros), direction=GT
  %relu = f32[8,16,16,128] select(%mask, %g, %zeros)
  %mb = f32[8,16,16,128] broadcast(%m), dimensions={3}
  %d = f32[8,16,16,128] subtract(%x, %mb)
  %sb = f32[8,16,16,128] broadcast(%s), dimensions={3}
  %scaled = f32[8,16,16,128] multiply(%d, %sb)
  %prod = f32[8,16,16,128] multiply(%relu, %scaled)
  %sum = f32[128] reduce(%prod, %zero), dimensions={0,1,2}, to_apply=%add
  ROOT %t = (f32[128], pred[8,16,16,128], f32[8,16,16,128], f32[8,16,16,128], f32[8,16,16,128]) tuple(%sum, %mask, %relu, %scaled, %prod)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({8, 16, 16, 128}, 21));
  args.push_back(RandomF32({8, 16, 16, 128}, 22));
  args.push_back(RandomF32({128}, 23));
  args.push_back(RandomF32({128}, 24));
  EXPECT_EQ(ExpectSameAsEvaluator(backward, args), 1);

  const std::string statistics =
      kHeader + R"(%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] maximum(%a, %b)
}
ENTRY %main (x: f32[16,32,32,64]) -> (f32[64], f32[64], f32[64]) {
  %x = f32[16,32,32,64] parameter(0)
  %zero = f32[] constant(0)
  %low = f32[] constant(-inf)
  %s = f32[64] reduce(%x, %zero), dimensions={0,1,2}, to_apply=%add
  %q = f32[16,32,32,64] multiply(%x, %x)
  %s2 = f32[64] reduce(%q, %zero), dimensions={0,1,2}, to_apply=%add
  %a = f32[16,32,32,64] abs(%x)
  %m = f32[64] reduce(%a, %low), dimensions={0,1,2}, to_apply=%max
  ROOT %t = (f32[64], f32[64], f32[64]) tuple(%s, %s2, %m)
}
)";
  args.clear();
  args.push_back(RandomF32({16, 32, 32, 64}, 25));
  EXPECT_EQ(ExpectSameAsEvaluator(statistics, args), 1);

  codegen_test::ScopedEnv off("XFFI_CODEGEN_FEW_COLUMNS", "0");
  EXPECT_EQ(ExpectSameAsEvaluator(statistics, args), 0);
}

// Reduced rows of 1000 columns with a reduced middle group of 2 kept
// outer rows: [outer kept][reduced][inner kept] with every part > 1.
TEST(CodegenReduce, OuterReducedAndInnerKept) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text =
      kHeader + R"(ENTRY %main (x: f32[3,40,1000]) -> f32[3,1000] {
  %x = f32[3,40,1000] parameter(0)
  %zero = f32[] constant(0)
  %q = f32[3,40,1000] multiply(%x, %x)
  ROOT %s = f32[3,1000] reduce(%q, %zero), dimensions={1}, to_apply=%add
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({3, 40, 1000}, 6));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

// Reduces that reduction fusion leaves alone (no producer: softmax's row
// max) are generated too, against the unfused reduce kernel; a column sum
// of them the same bytes.
TEST(CodegenReduce, LoneReduces) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = kHeader + R"(%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] maximum(%a, %b)
}
ENTRY %main (x: f32[64,3001]) -> f32[64] {
  %x = f32[64,3001] parameter(0)
  %low = f32[] constant(-inf)
  ROOT %m = f32[64] reduce(%x, %low), dimensions={1}, to_apply=%max
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({64, 3001}, 9));
  // Two: the reduce, and its region's scalar op (compiled for the unfused
  // kernel; the tests offer every op, however small).
  EXPECT_EQ(ExpectSameAsEvaluator(text, args, kZeroSignFree), 2);
  const std::string sum =
      kHeader + R"(ENTRY %main (x: f32[64,3001]) -> f32[3001] {
  %x = f32[64,3001] parameter(0)
  %zero = f32[] constant(0)
  ROOT %s = f32[3001] reduce(%x, %zero), dimensions={0}, to_apply=%add
}
)";
  EXPECT_EQ(ExpectSameAsEvaluator(sum, args), 2);
}

// A reduction to one element: one item, the whole input in one row.
TEST(CodegenReduce, ReductionToOneElement) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
%add (a: f64[], b: f64[]) -> f64[] {
  %a = f64[] parameter(0)
  %b = f64[] parameter(1)
  ROOT %r = f64[] add(%a, %b)
}
ENTRY %main (x: f32[50,77]) -> f64[] {
  %x = f32[50,77] parameter(0)
  %zero = f64[] constant(0)
  %c = f64[50,77] convert(%x)
  ROOT %s = f64[] reduce(%c, %zero), dimensions={0,1}, to_apply=%add
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({50, 77}, 7));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args, 1e-12, 100.0), 1);
}

// The region jnp.argmax/argmin lower to (arg_reduce.h), on values of
// `v` and indices of `i`: `direction` GT (argmax) or LT, with the NaN test
// when `nan_wins`.
std::string ArgRegionText(const std::string& v, const std::string& i,
                          const std::string& direction, bool nan_wins) {
  const std::string pick = nan_wins ? "%pick" : "%order";
  return "%arg (a: " + v + "[], ai: " + i + "[], b: " + v + "[], bi: " + i +
         "[]) -> (" + v + "[], " + i + "[]) {\n  %a = " + v +
         "[] parameter(0)\n  %ai = " + i + "[] parameter(1)\n  %b = " + v +
         "[] parameter(2)\n  %bi = " + i +
         "[] parameter(3)\n  %order = pred[] compare(%a, %b), direction=" +
         direction + "\n" +
         (nan_wins ? "  %nan = pred[] compare(%a, %a), direction=NE\n"
                     "  %pick = pred[] or(%order, %nan)\n"
                   : "") +
         "  %eq = pred[] compare(%a, %b), direction=EQ\n"
         "  %lower = pred[] compare(%ai, %bi), direction=LT\n"
         "  %tie = pred[] and(%eq, %lower)\n"
         "  %first = pred[] or(" +
         pick + ", %tie)\n  %v = " + v + "[] select(" + pick + ", %a, %b)\n" +
         "  %i = " + i + "[] select(%first, %ai, %bi)\n  ROOT %t = (" + v +
         "[], " + i + "[]) tuple(%v, %i)\n}\n";
}

// Values for argmax/argmin: few distinct ones (many ties), and rows of
// edge cases: NaN in the middle, first, last, everywhere, twice; only -0;
// -0 and +0 mixed; only infinities. Integers: few values and the extremes.
Literal ArgValues(ElementType type, int64_t rows, int64_t n, uint32_t seed) {
  Literal literal(Shape::Array(type, {rows, n}));
  auto* bytes = static_cast<unsigned char*>(literal.data());
  uint32_t state = seed * 2654435761u + 7;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const double kFloats[] = {-2.0, -1.0, -0.0,     0.0,
                            1.0,  2.0,  INFINITY, -INFINITY};
  const int64_t kInts[] = {-3, -1, 0, 1, 3, INT32_MIN, INT32_MAX};
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(r * n + i);
      double v = kFloats[next() % 8];
      const int64_t k = kInts[next() % 7];
      if (r == 0 && i == n / 2) v = std::nan("");
      if (r == 1 && i == 0) v = std::nan("");
      if (r == 2 && i == n - 1) v = -std::nan("");
      if (r == 3) v = std::nan("");
      if (r == 4 && (i == n / 3 || i == n - 1)) v = std::nan("");
      if (r == 5) v = -0.0;
      if (r == 6) v = i % 3 == 1 ? 0.0 : -0.0;
      if (r == 7) v = i % 2 == 0 ? INFINITY : -INFINITY;
      if (type == ElementType::kF32) {
        static_cast<float*>(literal.data())[at] = static_cast<float>(v);
      } else if (type == ElementType::kF64) {
        static_cast<double*>(literal.data())[at] = v;
      } else if (type == ElementType::kS32) {
        static_cast<int32_t*>(literal.data())[at] = static_cast<int32_t>(k);
      } else {  // u8
        bytes[at] = static_cast<unsigned char>(k);
      }
    }
  }
  return literal;
}

// argmax/argmin over rows and columns, fused with a producer and the
// iota, on every covered value and index type and edge values: the
// evaluator's bytes (first index of equal extremes, the first NaN, the
// zero's sign it keeps) on 1, 2 and 3 threads, from one generated kernel.
TEST(CodegenReduce, ArgMaxArgMinOverEdgeValues) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  // Rows too, which are left to the evaluator by default (reduce_emitter.cc).
  codegen_test::ScopedEnv arg_rows("XFFI_CODEGEN_ARG_ROWS", "1");
  for (ElementType type : {ElementType::kF32, ElementType::kF64,
                           ElementType::kS32, ElementType::kU8}) {
    for (const std::string& index : testing_util::SweepValues<std::string>(
             {"s32", "s64"}, {type == ElementType::kF64 ? "s64" : "s32"})) {
      for (const std::string direction : {"GT", "LT"}) {
        for (bool nan_wins : {true, false}) {
          if (!IsFloatingType(type) && !nan_wins) continue;
          for (bool columns : {false, true}) {
            for (int64_t n : testing_util::SweepValues<int64_t>({1, 3, 4, 4097},
                                                                {1, 4097})) {
              const std::string t = TypeName(type);
              SCOPED_TRACE(
                  t + " " + index + " " + direction + (nan_wins ? " nan" : "") +
                  (columns ? " columns" : " rows") + " n=" + std::to_string(n));
              // x: [8, n], reduced over dimension 1 (rows) or 0.
              const std::string in = t + "[8," + std::to_string(n) + "]";
              const std::string out =
                  columns ? "[" + std::to_string(n) + "]" : "[8]";
              const std::string producer =
                  IsFloatingType(type) ? "negate" : "not";
              const std::string text =
                  "HloModule m\n" +
                  ArgRegionText(t, index, direction, nan_wins) +
                  "ENTRY %main (x: " + in + ", init: " + t + "[]) -> (" + t +
                  out + ", " + index + out + ") {\n  %x = " + in +
                  " parameter(0)\n  %init = " + t +
                  "[] parameter(1)\n  %p = " + in + " " + producer +
                  "(%x)\n  %iota = " + index + "[8," + std::to_string(n) +
                  "] iota(), iota_dimension=" + (columns ? "0" : "1") +
                  "\n  %zero = " + index + "[] constant(0)\n  ROOT %r = (" + t +
                  out + ", " + index + out +
                  ") reduce(%p, %iota, %init, %zero), dimensions={" +
                  (columns ? "0" : "1") + "}, to_apply=%arg\n}\n";
              std::vector<Literal> args;
              args.push_back(ArgValues(type, 8, n, 3));
              args.push_back(
                  InitValue(type, direction == "GT" ? "maximum" : "minimum"));
              const int64_t kernels = ExpectSameAsEvaluator(text, args);
              // Reduction fusion takes rows of 4 or more and columns of
              // any count (a [8, 1] input is one row of 8; fewer than 256
              // columns run as one piece: argmax never splits); rows of 1
              // are no reduce at all (reshapes: the negate and the iota
              // are 2 kernels); otherwise the negate, the iota and the
              // lone argmax are 3 kernels.
              int64_t want = n >= 4 ? 1 : n == 1 ? 2 : 3;
              if (columns) want = 1;
              EXPECT_EQ(kernels, want);
            }
          }
        }
      }
    }
  }
}

// An argmax over 30000 rows of 3 columns (two pieces' worth): never
// split (as in the evaluator), one in-order pass.
TEST(CodegenReduce, FewColumnArgMaxOfManyRows) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text =
      "HloModule m\n" + ArgRegionText("f32", "s32", "GT", true) +
      R"(ENTRY %main (x: f32[30000,3]) -> (f32[3], s32[3], f32[30000,3]) {
  %x = f32[30000,3] parameter(0)
  %p = f32[30000,3] negate(%x)
  %iota = s32[30000,3] iota(), iota_dimension=0
  %low = f32[] constant(-inf)
  %zero = s32[] constant(0)
  ROOT %r = (f32[3], s32[3]) reduce(%p, %iota, %low, %zero), dimensions={0}, to_apply=%arg
}
)";
  std::vector<Literal> args;
  args.push_back(ArgValues(ElementType::kF32, 30000, 3, 5));
  EXPECT_EQ(ExpectSameAsEvaluator(text, args), 1);
}

// A lone argmax (its operands computed elsewhere: parameters, indices out
// of order) and argmax beside a max reduce of the same values.
TEST(CodegenReduce, LoneArgMaxAndSiblingReduce) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  auto arg_rows =
      std::make_unique<codegen_test::ScopedEnv>("XFFI_CODEGEN_ARG_ROWS", "1");
  const std::string region = ArgRegionText("f32", "s32", "GT", true);
  const std::string lone =
      "HloModule m\n" + region +
      R"(ENTRY %main (x: f32[9,4097], i: s32[9,4097]) -> (f32[9], s32[9]) {
  %x = f32[9,4097] parameter(0)
  %i = s32[9,4097] parameter(1)
  %low = f32[] constant(-inf)
  %zero = s32[] constant(0)
  ROOT %r = (f32[9], s32[9]) reduce(%x, %i, %low, %zero), dimensions={1}, to_apply=%arg
}
)";
  std::vector<Literal> args;
  args.push_back(ArgValues(ElementType::kF32, 9, 4097, 4));
  // Indices not in order: ties go to the lower one, wherever it is.
  Literal indices(Shape::Array(ElementType::kS32, {9, 4097}));
  for (int64_t k = 0; k < 9 * 4097; ++k)
    static_cast<int32_t*>(indices.data())[k] =
        static_cast<int32_t>((k * 7919) % 5003);
  args.push_back(std::move(indices));
  EXPECT_EQ(ExpectSameAsEvaluator(lone, args), 1);

  const std::string sibling = "HloModule m\n" + region +
                              R"(%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] maximum(%a, %b)
}
ENTRY %main (x: f32[9,4097]) -> (f32[9], s32[9], f32[9]) {
  %x = f32[9,4097] parameter(0)
  %p = f32[9,4097] negate(%x)
  %iota = s32[9,4097] iota(), iota_dimension=1
  %low = f32[] constant(-inf)
  %zero = s32[] constant(0)
  %r = (f32[9], s32[9]) reduce(%p, %iota, %low, %zero), dimensions={1}, to_apply=%arg
  %m = f32[9] reduce(%p, %low), dimensions={1}, to_apply=%max
  %v = f32[9] get-tuple-element(%r), index=0
  %i = s32[9] get-tuple-element(%r), index=1
  ROOT %t = (f32[9], s32[9], f32[9]) tuple(%v, %i, %m)
}
)";
  args.pop_back();
  // Two kernels: the argmax's and the max reduce's (one without argmax).
  EXPECT_EQ(ExpectSameAsEvaluator(sibling, args, kZeroSignFree), 2);
  // By default an argmax over rows runs on the evaluator: only the max's.
  arg_rows.reset();
  EXPECT_EQ(ExpectSameAsEvaluator(sibling, args, kZeroSignFree), 1);
}

// An f16 reduce is not generated: it runs as before (a call), with the
// same results on every thread count.
TEST(CodegenReduce, UncoveredFusionsFallBack) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  std::vector<Literal> args;
  args.push_back(RandomF32({64, 300}, 8));
  const std::string half = R"(HloModule m
%add (a: f16[], b: f16[]) -> f16[] {
  %a = f16[] parameter(0)
  %b = f16[] parameter(1)
  ROOT %r = f16[] add(%a, %b)
}
ENTRY %main (x: f32[64,300]) -> f16[64] {
  %x = f32[64,300] parameter(0)
  %c = f16[64,300] convert(%x)
  %zero = f16[] constant(0)
  ROOT %s = f16[64] reduce(%c, %zero), dimensions={1}, to_apply=%add
}
)";
  // (the convert may be generated inside the call the fusion becomes)
  EXPECT_GE(ExpectSameAsEvaluator(half, args), 0);
}

}  // namespace
}  // namespace xffi
