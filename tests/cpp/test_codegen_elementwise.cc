// Generated elementwise kernels (src/cpu/codegen/emitter.cc) against the
// template kernels (src/cpu/elementwise_ops.h): every op and element type,
// over edge values (NaN, infinities, -0, subnormals, INT_MIN, INT_MAX,
// shift amounts at and past the width) and random ones, give the same
// values; and the ops the generator covers are generated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "codegen_test_util.h"

namespace xffi {
namespace {

using codegen_test::FirstDifference;
using codegen_test::FirstDifferenceWithin;
using codegen_test::ProgramRun;
using codegen_test::RunProgram;

constexpr ElementType kTypes[] = {
    ElementType::kPred, ElementType::kS8,   ElementType::kS16,
    ElementType::kS32,  ElementType::kS64,  ElementType::kU8,
    ElementType::kU16,  ElementType::kU32,  ElementType::kU64,
    ElementType::kF16,  ElementType::kBF16, ElementType::kF32,
    ElementType::kF64};

bool IsFloat(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 ||
         type == ElementType::kF32 || type == ElementType::kF64;
}

std::vector<double> FloatEdges() {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {0.0,     -0.0,    inf,    -inf,   nan,          -nan,          1e-45,
          -1e-45,  1.2e-38, 1e-310, 1.0,    -1.0,         0.5,           -0.5,
          1.5,     2.5,     -2.5,   3.0,    1e10,         -1e10,         3e38,
          127.9,   128.0,   255.5,  -129.0, 2147483648.0, -2147483649.0, 9.3e18,
          65504.0, 65520.0, 0.1,    -7.3,   40000.0,      -1e300,        1e300,
          6.0,     88.5,    -88.5,  709.0};
}

std::vector<int64_t> IntEdges() {
  return {0,
          1,
          -1,
          2,
          -2,
          3,
          7,
          8,
          15,
          16,
          31,
          32,
          33,
          63,
          64,
          65,
          127,
          128,
          -128,
          255,
          256,
          -129,
          32767,
          -32768,
          65535,
          std::numeric_limits<int32_t>::max(),
          std::numeric_limits<int32_t>::min(),
          4294967295LL,
          std::numeric_limits<int64_t>::max(),
          std::numeric_limits<int64_t>::min(),
          0x5555555555555555LL,
          5,
          -7};
}

// Bit patterns of f16 and bf16 edge values: zeros, infinities, quiet and
// signalling NaNs, subnormals, the largest finite, ties, ordinary values.
std::vector<uint16_t> HalfEdges(ElementType type) {
  if (type == ElementType::kF16)
    return {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x0001,
            0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3800, 0x4100, 0xc100,
            0x7bff, 0xfbff, 0x4248, 0x5640, 0x3555, 0x2e66, 0xc880, 0x4900};
  return {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x0001,
          0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x3f00, 0x4020, 0xc020,
          0x7f7f, 0xff7f, 0x4049, 0x42c8, 0x3eab, 0x3dcd, 0xc110, 0x4f00};
}

// Element i of the first operand is edge i % n, of the second edge i / n
// (every pair once), then values from a fixed random sequence.
Literal Edges(ElementType type, int64_t n, bool second) {
  Literal literal(Shape::Array(type, {n}));
  auto* out = static_cast<unsigned char*>(literal.data());
  const size_t width = ElementByteSize(type);
  uint64_t state = second ? 0x9e3779b97f4a7c15ULL : 0x2545f4914f6cdd1dULL;
  auto random = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 11;
  };
  const std::vector<double> floats = FloatEdges();
  const std::vector<int64_t> ints = IntEdges();
  const std::vector<uint16_t> halves =
      type == ElementType::kF16 || type == ElementType::kBF16
          ? HalfEdges(type)
          : std::vector<uint16_t>{};
  const size_t count = IsFloat(type)
                           ? (halves.empty() ? floats.size() : halves.size())
                           : ints.size();
  for (int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<size_t>(i);
    const bool edge = u < count * count;
    const size_t k = second ? u / count : u % count;
    unsigned char* at = out + u * width;
    if (type == ElementType::kPred) {
      at[0] = static_cast<unsigned char>(edge ? ints[k] & 1 : random() & 1);
    } else if (!halves.empty()) {
      uint16_t bits = edge ? halves[k] : static_cast<uint16_t>(random());
      std::memcpy(at, &bits, 2);
    } else if (IsFloat(type)) {
      double v = edge ? floats[k]
                      : static_cast<double>(random() % 20000) / 1000.0 - 10.0;
      if (type == ElementType::kF32) {
        float f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
      } else {
        std::memcpy(at, &v, 8);
      }
    } else {
      uint64_t bits = edge ? static_cast<uint64_t>(ints[k]) : random();
      if (!edge && (random() & 1)) bits %= 70;  // small: shifts, powers
      std::memcpy(at, &bits, width);
    }
  }
  return literal;
}

constexpr int64_t kElements = 2048;

std::string Program(ElementType in, ElementType out, const std::string& op,
                    int arity, const std::string& attributes = "") {
  const std::string t =
      std::string(ElementTypeName(in)) + "[" + std::to_string(kElements) + "]";
  const std::string r =
      std::string(ElementTypeName(out)) + "[" + std::to_string(kElements) + "]";
  std::string text = "HloModule m\nENTRY %main (a: " + t +
                     (arity == 2 ? ", b: " + t : "") + ") -> " + r + " {\n";
  text += "  %a = " + t + " parameter(0)\n";
  if (arity == 2) text += "  %b = " + t + " parameter(1)\n";
  text += "  ROOT %r = " + r + " " + op + "(%a" + (arity == 2 ? ", %b" : "") +
          ")" + attributes + "\n}\n";
  return text;
}

// Four units in the last place of f32 and f64; f16 and bf16 results
// computed in f32 may round one place the other way.
double Tolerance(ElementType type) {
  switch (type) {
    case ElementType::kF16:
      return 0x1p-10;
    case ElementType::kBF16:
      return 0x1p-7;
    case ElementType::kF32:
      return 0x1p-21;
    default:
      return 0x1p-50;
  }
}

const std::set<std::string> kApproximate = {
    "tanh",   "exponential",  "logistic",
    "log",    "log-plus-one", "sine",
    "cosine", "erf-inv",      "exponential-minus-one"};

// Runs `text` both ways; compares when the template kernels take it.
// Returns whether they did.
// `approximate`: the op is computed by other means than the template
// kernel's libm call (tanh: XLA's rational approximation; exp, log, log1p,
// sin, cos and the logistic function in plain IR, cpu/codegen/
// math_emitter.h; all vectorise), within a few units in the last place.
bool ExpectSame(const std::string& text, int arity, ElementType type,
                bool expect_generated, bool approximate = false) {
  std::vector<Literal> args;
  args.push_back(Edges(type, kElements, false));
  if (arity == 2) args.push_back(Edges(type, kElements, true));
  StatusOr<ProgramRun> plain = RunProgram(text, args, /*codegen=*/false);
  if (!plain.ok()) return false;  // the op does not take this type
  StatusOr<ProgramRun> generated = RunProgram(text, args, /*codegen=*/true);
  EXPECT_TRUE(generated.ok()) << generated.status().message() << "\n" << text;
  if (!generated.ok()) return true;
  EXPECT_EQ(plain->generated_kernels, 0);
  if (expect_generated) {
    EXPECT_EQ(generated->generated_kernels, 1) << text;
  }
  if (approximate && IsFloat(generated->results[0].shape().element_type())) {
    EXPECT_EQ(FirstDifferenceWithin(generated->results[0], plain->results[0],
                                    Tolerance(type)),
              "")
        << text;
  } else {
    EXPECT_EQ(FirstDifference(generated->results[0], plain->results[0]), "")
        << text;
  }
  return true;
}

// Ops the generator leaves to the template kernels.
const std::set<std::string> kNotGenerated = {
    "lgamma", "digamma", "bessel-i1e", "next-after", "polygamma", "zeta"};

TEST(CodegenElementwise, UnaryOpsMatchTemplateKernels) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const char* ops[] = {"abs",
                       "negate",
                       "sign",
                       "not",
                       "floor",
                       "ceil",
                       "round-nearest-afz",
                       "round-nearest-even",
                       "exponential",
                       "exponential-minus-one",
                       "log",
                       "log-plus-one",
                       "logistic",
                       "sqrt",
                       "rsqrt",
                       "cbrt",
                       "tanh",
                       "sine",
                       "cosine",
                       "tan",
                       "popcnt",
                       "count-leading-zeros",
                       "real",
                       "imag",
                       "erf",
                       "erfc",
                       "asin",
                       "acos",
                       "atan",
                       "asinh",
                       "acosh",
                       "atanh",
                       "sinh",
                       "cosh",
                       "conj",
                       "erf-inv",
                       "lgamma"};
  int compared = 0;
  for (ElementType type : kTypes)
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + std::string(ElementTypeName(type)));
      compared +=
          ExpectSame(Program(type, type, op, 1), 1, type,
                     kNotGenerated.count(op) == 0, kApproximate.count(op) != 0);
    }
  for (ElementType type : kTypes)
    for (const char* op : {"is-finite", "is-inf", "is-pos-inf", "is-neg-inf"})
      compared +=
          ExpectSame(Program(type, ElementType::kPred, op, 1), 1, type, true);
  EXPECT_GE(compared, 193);  // the supported combinations ran
}

TEST(CodegenElementwise, BinaryOpsMatchTemplateKernels) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const char* ops[] = {"add",
                       "subtract",
                       "multiply",
                       "divide",
                       "remainder",
                       "power",
                       "maximum",
                       "minimum",
                       "and",
                       "or",
                       "xor",
                       "shift-left",
                       "shift-right-arithmetic",
                       "shift-right-logical",
                       "atan2",
                       "mulhi",
                       "next-after"};
  int compared = 0;
  for (ElementType type : kTypes)
    for (const char* op : ops) {
      SCOPED_TRACE(std::string(op) + " " + std::string(ElementTypeName(type)));
      compared +=
          ExpectSame(Program(type, type, op, 2), 2, type,
                     kNotGenerated.count(op) == 0, kApproximate.count(op) != 0);
    }
  EXPECT_GT(compared, 120);
}

TEST(CodegenElementwise, ComparesMatchTemplateKernels) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  int compared = 0;
  for (ElementType type : kTypes)
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      std::vector<std::string> kinds = {""};
      if (IsFloat(type)) kinds.push_back(", type=TOTALORDER");
      if (!IsFloat(type) && type != ElementType::kPred) {
        kinds.push_back(", type=SIGNED");
        kinds.push_back(", type=UNSIGNED");
      }
      for (const std::string& kind : kinds) {
        SCOPED_TRACE(std::string(direction) + kind + " " +
                     std::string(ElementTypeName(type)));
        compared +=
            ExpectSame(Program(type, ElementType::kPred, "compare", 2,
                               ", direction=" + std::string(direction) + kind),
                       2, type, true);
      }
    }
  EXPECT_GE(compared, 150);
}

TEST(CodegenElementwise, ConvertsMatchTemplateKernels) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  int compared = 0;
  for (ElementType from : kTypes)
    for (ElementType to : kTypes) {
      SCOPED_TRACE(std::string(ElementTypeName(from)) + " -> " +
                   std::string(ElementTypeName(to)));
      // A convert to the same type is no op at all once simplified.
      compared +=
          ExpectSame(Program(from, to, "convert", 1), 1, from, from != to);
      if (from != ElementType::kPred && to != ElementType::kPred &&
          ElementByteSize(from) == ElementByteSize(to))
        compared += ExpectSame(Program(from, to, "bitcast-convert", 1), 1, from,
                               from != to);
    }
  // Every pair converts; bitcasts pair 2 one-byte, 4 two-byte, 3 four-byte
  // and 3 eight-byte types.
  EXPECT_EQ(compared, 13 * 13 + 2 * 2 + 4 * 4 + 3 * 3 + 3 * 3);
}

TEST(CodegenElementwise, SelectAndClampWithScalarOperands) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (ElementType type : kTypes) {
    const std::string t = std::string(ElementTypeName(type));
    const std::string n = std::to_string(kElements);
    SCOPED_TRACE(t);
    const std::string text =
        "HloModule m\nENTRY %main (a: " + t + "[" + n + "], b: " + t + "[" + n +
        "], lo: " + t + "[], p: pred[" + n + "]) -> " + t + "[" + n +
        "] {\n  %a = " + t + "[" + n + "] parameter(0)\n  %b = " + t + "[" + n +
        "] parameter(1)\n  %lo = " + t + "[] parameter(2)\n  %p = pred[" + n +
        "] parameter(3)\n  %c = " + t + "[" + n +
        "] clamp(%lo, %a, %b)\n  ROOT %s = " + t + "[" + n +
        "] select(%p, %c, %b)\n}\n";
    std::vector<Literal> args;
    args.push_back(Edges(type, kElements, false));
    args.push_back(Edges(type, kElements, true));
    Literal low = Edges(type, 8, true);
    Literal scalar(Shape::Array(type, {}));
    std::memcpy(scalar.data(),
                static_cast<const unsigned char*>(low.data()) +
                    7 * ElementByteSize(type),
                ElementByteSize(type));
    args.push_back(std::move(scalar));
    args.push_back(Edges(ElementType::kPred, kElements, false));
    StatusOr<ProgramRun> plain = RunProgram(text, args, false, /*fuse=*/false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    StatusOr<ProgramRun> generated =
        RunProgram(text, args, true, /*fuse=*/false);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    EXPECT_EQ(generated->generated_kernels, 2);
    EXPECT_EQ(FirstDifference(generated->results[0], plain->results[0]), "");
  }
}

// Units in the last place between two finite values of one float type, or
// 0 when both are the same NaN class / infinity; a large number when one is
// NaN or infinite and the other is not.
int64_t UlpDistance(double x, double y, ElementType type) {
  if (std::isnan(x) || std::isnan(y))
    return std::isnan(x) == std::isnan(y) ? 0 : 1 << 30;
  if (x == y) return 0;
  if (!std::isfinite(x) || !std::isfinite(y)) return 1 << 30;
  auto ordered = [&](double v) -> int64_t {
    if (type == ElementType::kF32) {
      const float f = static_cast<float>(v);
      int32_t i;
      std::memcpy(&i, &f, 4);
      return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : i;
    }
    int64_t i;
    std::memcpy(&i, &v, 8);
    return i < 0 ? -(i & 0x7fffffffffffffffLL) : i;
  };
  const int64_t d = ordered(x) - ordered(y);
  return d < 0 ? -d : d;
}

// Every 2^11-th f32 bit pattern (both signs: 2^22 values, every binade
// densely) or, for f64, 2^20 values spread over every binade.
Literal DenseSweep(ElementType type) {
  const int64_t n = type == ElementType::kF32 ? int64_t{1} << 21 : 1 << 20;
  Literal literal(Shape::Array(type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (type == ElementType::kF32) {
      uint32_t bits = static_cast<uint32_t>(i) << 11 | 0x155;
      std::memcpy(static_cast<char*>(literal.data()) + 4 * i, &bits, 4);
    } else {
      uint64_t bits = static_cast<uint64_t>(i) << 44 | 0x5555555555ULL;
      std::memcpy(static_cast<char*>(literal.data()) + 8 * i, &bits, 8);
    }
  }
  return literal;
}

// The transcendental functions math_emitter.h computes in IR and the
// largest distance, in units in the last place, from the template kernels
// (glibc's libm) that the header states (f64: with room to spare).
struct MathCase {
  ElementType type;
  const char* op;
  int64_t max_ulps;
};
constexpr MathCase kEmittedMath[] = {
    {ElementType::kF32, "log", 1},
    {ElementType::kF32, "log-plus-one", 1},
    {ElementType::kF32, "sine", 1},
    {ElementType::kF32, "cosine", 1},
    {ElementType::kF32, "erf-inv", 2},
    {ElementType::kF32, "exponential", 1},
    {ElementType::kF32, "tanh", 0},
    {ElementType::kF32, "logistic", 3},
    {ElementType::kF64, "exponential", 4},
    {ElementType::kF64, "log", 4},
    {ElementType::kF64, "sine", 4},
    {ElementType::kF64, "cosine", 4},
    {ElementType::kF64, "log-plus-one", 4},
    {ElementType::kF64, "exponential-minus-one", 4},
    {ElementType::kF64, "tanh", 4}};

// tanh of a subnormal: the emitted function (as XLA's) gives x, the
// template kernel's Eigen arithmetic flushes it to 0 under DAZ.
bool TemplateFlushes(const MathCase& c, double input) {
  const double magnitude = std::fabs(input);
  return std::string_view(c.op) == "tanh" && magnitude > 0 &&
         magnitude < (c.type == ElementType::kF32
                          ? std::numeric_limits<float>::min()
                          : std::numeric_limits<double>::min());
}

// The program applying `c`'s op to one parameter of n elements.
std::string MathProgram(const MathCase& c, int64_t n) {
  const std::string t =
      std::string(ElementTypeName(c.type)) + "[" + std::to_string(n) + "]";
  return "HloModule m\nENTRY %main (a: " + t + ") -> " + t + " {\n  %a = " + t +
         " parameter(0)\n  ROOT %r = " + t + " " + c.op + "(%a)\n}\n";
}

// The transcendental functions math_emitter.h computes in IR, against the
// template kernels (glibc's libm) over a dense sweep of the whole range:
// the largest distance in units in the last place, which the header states.
TEST(CodegenElementwise, EmittedMathWithinStatedUlpsOfLibm) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  for (const MathCase& c : kEmittedMath) {
    SCOPED_TRACE(std::string(c.op) + " " +
                 std::string(ElementTypeName(c.type)));
    Literal sweep = DenseSweep(c.type);
    const int64_t n = sweep.shape().num_elements();
    const std::string text = MathProgram(c, n);
    std::vector<Literal> args;
    args.push_back(std::move(sweep));
    StatusOr<ProgramRun> plain = RunProgram(text, args, false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    StatusOr<ProgramRun> generated = RunProgram(text, args, true);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    EXPECT_EQ(generated->generated_kernels, 1);
    int64_t worst = 0;
    size_t worst_at = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (TemplateFlushes(c, codegen_test::FloatAt(args[0], i))) continue;
      const int64_t d =
          UlpDistance(codegen_test::FloatAt(generated->results[0], i),
                      codegen_test::FloatAt(plain->results[0], i), c.type);
      if (d > worst) worst = d, worst_at = i;
    }
    std::printf("%s %s: max %lld ulp from libm\n", c.op,
                std::string(ElementTypeName(c.type)).c_str(),
                static_cast<long long>(worst));
    EXPECT_LE(worst, c.max_ulps)
        << "at element " << worst_at << ": "
        << codegen_test::FloatAt(args[0], worst_at) << " -> "
        << codegen_test::FloatAt(generated->results[0], worst_at) << " vs "
        << codegen_test::FloatAt(plain->results[0], worst_at);
  }
}

// Values at the edges of the emitted functions' ranges and reductions, in
// T, each with both neighbours and both signs: zeros, subnormals, the
// smallest normal, the largest finite; sin/cos's bound 2^20 (above it,
// the call), odd multiples of pi/4 (where the quadrant changes) and the
// values nearest multiples of pi/2 (where x - n pi/2 cancels most), up to
// the bound; the small-argument shortcuts (2^-12, 2^-27, 2^-29); log's
// mantissa split at sqrt(2) and log1p's pole at -1; exp's and tanh's
// clamps and overflow thresholds; large arguments. Then inf and NaN.
template <typename T>
std::vector<T> RangeEdges() {
  const double pi = 3.14159265358979323846;
  std::vector<double> seeds = {0,
                               1,
                               0.5,
                               2,
                               0x1p20,
                               0x1p-12,
                               0x1p-27,
                               0x1p-29,
                               0x1p-53,
                               std::sqrt(2.0),
                               std::sqrt(0.5),
                               88.72283935546875,
                               89,
                               90,
                               103.97,
                               110,
                               709.782712893384,
                               745.2,
                               1000,
                               1100,
                               7.90531110763549805,
                               0.0004,
                               20,
                               40,
                               1e10,
                               1e30,
                               std::numeric_limits<T>::min(),
                               std::numeric_limits<T>::denorm_min(),
                               std::numeric_limits<T>::max()};
  for (double k : {1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 101.0, 1001.0,
                   100001.0, 1335001.0})
    seeds.push_back(k * pi / 4);
  for (double n :
       {1.0,  2.0,  3.0,  4.0,   5.0,    6.0,     7.0,      8.0,      9.0,
        10.0, 11.0, 12.0, 13.0,  14.0,   15.0,    16.0,     17.0,     18.0,
        19.0, 20.0, 99.0, 355.0, 1000.0, 13176.0, 100000.0, 600000.0, 667000.0})
    seeds.push_back(n * pi / 2);
  std::vector<T> edges;
  const T inf = std::numeric_limits<T>::infinity();
  for (double seed : seeds)
    for (T v : {static_cast<T>(seed), std::nextafter(static_cast<T>(seed), inf),
                std::nextafter(static_cast<T>(seed), T(0))}) {
      edges.push_back(v);
      edges.push_back(-v);
    }
  edges.push_back(inf);
  edges.push_back(-inf);
  edges.push_back(std::numeric_limits<T>::quiet_NaN());
  edges.push_back(-std::numeric_limits<T>::quiet_NaN());
  return edges;
}

// Every third of n elements is an edge value (until they run out), the
// others ordinary values of a normal distribution: the edges' blocks mix
// both kinds, as a real array would.
template <typename T>
Literal EdgesAmongOrdinary(ElementType type, std::vector<int64_t> dims) {
  const std::vector<T> edges = RangeEdges<T>();
  std::mt19937 random(11);
  std::normal_distribution<T> normal(0, 3);
  Literal literal(Shape::Array(type, dims));
  const int64_t n = literal.shape().num_elements();
  T* values = static_cast<T*>(literal.data());
  for (int64_t i = 0; i < n; ++i) {
    const size_t edge = static_cast<size_t>(i / 3);
    values[i] =
        i % 3 == 0 && edge < edges.size() ? edges[edge] : normal(random);
  }
  return literal;
}

// The same functions at the edges of their ranges: NaN, infinities and
// zeros (with their sign) exactly as libm gives them, the rest within the
// sweep's bound.
TEST(CodegenElementwise, EmittedMathAtTheEdgesOfItsRanges) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  constexpr int64_t n = 2048;
  for (const MathCase& c : kEmittedMath) {
    SCOPED_TRACE(std::string(c.op) + " " +
                 std::string(ElementTypeName(c.type)));
    std::vector<Literal> args;
    args.push_back(c.type == ElementType::kF32
                       ? EdgesAmongOrdinary<float>(c.type, {n})
                       : EdgesAmongOrdinary<double>(c.type, {n}));
    const std::string text = MathProgram(c, n);
    StatusOr<ProgramRun> plain = RunProgram(text, args, false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    StatusOr<ProgramRun> generated = RunProgram(text, args, true);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    EXPECT_EQ(generated->generated_kernels, 1);
    int64_t exact_classes = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      const double input = codegen_test::FloatAt(args[0], i);
      const double got = codegen_test::FloatAt(generated->results[0], i);
      const double want = codegen_test::FloatAt(plain->results[0], i);
      if (TemplateFlushes(c, input)) continue;
      if (std::isnan(want) || std::isinf(want) || want == 0) {
        ++exact_classes;
        EXPECT_TRUE(std::isnan(got) ? std::isnan(want)
                                    : got == want && std::signbit(got) ==
                                                         std::signbit(want))
            << "element " << i << ": " << input << " -> " << got << " vs "
            << want;
        continue;
      }
      EXPECT_LE(UlpDistance(got, want, c.type), c.max_ulps)
          << "element " << i << ": " << input << " -> " << got << " vs "
          << want;
    }
    EXPECT_GT(exact_classes, 3);  // NaN and infinities at least
  }
}

// f32 sin and cos in a kernel whose rows are split at a concatenate
// (separate element loops, no pass for special elements, as in a
// reduction's loop): still generated, and the large arguments, reduced
// there in vector integer arithmetic rather than by libm, within the same
// 1 ulp of libm, over the dense sweep of every binade and over the range
// edges; inf and NaN give NaN.
TEST(CodegenElementwise, SineAndCosineInRowsSplitAtConcatenate) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  Literal sweep = DenseSweep(ElementType::kF32);
  Literal edges = EdgesAmongOrdinary<float>(ElementType::kF32, {2048});
  for (const Literal* values : {&sweep, &edges}) {
    const int64_t n = values->shape().num_elements();
    const int64_t rows = n / 1024;
    const std::string a = "f32[" + std::to_string(rows) + ",1024]";
    const std::string r = "f32[" + std::to_string(rows) + ",2048]";
    SCOPED_TRACE(a);
    const std::string text = "HloModule m\nENTRY %main (a: " + a + ") -> " + r +
                             " {\n  %a = " + a + " parameter(0)\n  %s = " + a +
                             " sine(%a)\n  %c = " + a +
                             " cosine(%a)\n  ROOT %r = " + r +
                             " concatenate(%s, %c), dimensions={1}\n}\n";
    std::vector<Literal> args;
    args.emplace_back(Shape::Array(ElementType::kF32, {rows, 1024}));
    std::memcpy(args[0].data(), values->data(), values->size_bytes());
    StatusOr<ProgramRun> plain = RunProgram(text, args, false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    StatusOr<ProgramRun> generated = RunProgram(text, args, true);
    ASSERT_TRUE(generated.ok()) << generated.status().message();
    EXPECT_EQ(generated->generated_kernels, 1);
    int64_t worst = 0, large = 0;
    for (int64_t i = 0; i < rows * 2048; ++i) {
      const size_t at = static_cast<size_t>(i);
      const double got = codegen_test::FloatAt(generated->results[0], at);
      const double want = codegen_test::FloatAt(plain->results[0], at);
      const double input = codegen_test::FloatAt(
          args[0], static_cast<size_t>(i / 2048 * 1024 + i % 1024));
      if (std::fabs(input) > 0x1p20) ++large;
      const int64_t d = UlpDistance(got, want, ElementType::kF32);
      EXPECT_LE(d, 1) << "element " << i << ": " << input << " -> " << got
                      << " vs " << want;
      worst = std::max(worst, d);
      if (d > 1) break;
    }
    std::printf("sin, cos beside a concatenate: max %lld ulp from libm\n",
                static_cast<long long>(worst));
    EXPECT_GT(large, 30);
  }
}

// A complex literal's parts as a real literal twice as long (for the
// comparisons, which read real types).
Literal Parts(const Literal& complex) {
  const ElementType part = complex.shape().element_type() == ElementType::kC64
                               ? ElementType::kF32
                               : ElementType::kF64;
  Literal parts(Shape::Array(part, {2 * complex.shape().num_elements()}));
  std::memcpy(parts.data(), complex.data(), complex.size_bytes());
  return parts;
}

// Complex values whose parts run over every pair of float edge values.
Literal ComplexEdges(ElementType type, bool second) {
  const ElementType part =
      type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
  Literal re = Edges(part, kElements, second);
  Literal im = Edges(part, kElements, !second);
  Literal out(Shape::Array(type, {kElements}));
  const size_t width = ElementByteSize(part);
  auto* to = static_cast<unsigned char*>(out.data());
  for (size_t i = 0; i < static_cast<size_t>(kElements); ++i) {
    std::memcpy(to + 2 * i * width,
                static_cast<const unsigned char*>(re.data()) + i * width,
                width);
    std::memcpy(to + (2 * i + 1) * width,
                static_cast<const unsigned char*>(im.data()) + i * width,
                width);
  }
  return out;
}

// Complex ops, generated, against the template kernels: the same values
// (the generator computes with the template kernels' formulas, or calls
// what they leave to the C library, or for c64 division computes what
// __divsc3 rounds to), but for c64 exp (see complex_emitter.h).
TEST(CodegenElementwise, ComplexOpsMatchTemplateKernels) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  struct Case {
    std::string op;
    int arity;
    ElementType in, out;
    std::string attributes;
  };
  int compared = 0;
  for (ElementType type : {ElementType::kC64, ElementType::kC128}) {
    const ElementType part =
        type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    const ElementType other =
        type == ElementType::kC64 ? ElementType::kC128 : ElementType::kC64;
    std::vector<Case> cases = {
        {"negate", 1, type, type, ""},
        {"conj", 1, type, type, ""},
        {"real", 1, type, part, ""},
        {"imag", 1, type, part, ""},
        {"abs", 1, type, part, ""},
        {"exponential", 1, type, type, ""},
        {"add", 2, type, type, ""},
        {"subtract", 2, type, type, ""},
        {"multiply", 2, type, type, ""},
        {"divide", 2, type, type, ""},
        {"compare", 2, type, ElementType::kPred, ", direction=EQ"},
        {"compare", 2, type, ElementType::kPred, ", direction=NE"},
        {"convert", 1, type, other, ""},
        {"convert", 1, type, part, ""},
        {"convert", 1, type, ElementType::kPred, ""},
        {"convert", 1, type, ElementType::kS32, ""},
        {"convert", 1, part, type, ""},
        {"convert", 1, ElementType::kS64, type, ""},
        {"convert", 1, ElementType::kF16, type, ""},
        {"complex", 2, part, type, ""}};
    for (const Case& c : cases) {
      SCOPED_TRACE(c.op + c.attributes + " " +
                   std::string(ElementTypeName(c.in)) + " -> " +
                   std::string(ElementTypeName(c.out)));
      std::vector<Literal> args;
      for (int i = 0; i < c.arity; ++i)
        args.push_back(IsComplexType(c.in) ? ComplexEdges(c.in, i == 1)
                                           : Edges(c.in, kElements, i == 1));
      const std::string text =
          Program(c.in, c.out, c.op, c.arity, c.attributes);
      StatusOr<ProgramRun> plain = RunProgram(text, args, false);
      ASSERT_TRUE(plain.ok()) << plain.status().message() << "\n" << text;
      StatusOr<ProgramRun> generated = RunProgram(text, args, true);
      ASSERT_TRUE(generated.ok()) << generated.status().message();
      EXPECT_EQ(generated->generated_kernels, 1) << text;
      const Literal& x = generated->results[0];
      const Literal& y = plain->results[0];
      // c64 exp: generated f32 exp, sin and cos where the C library's cexpf
      // calls its own (a few units in the last place).
      const bool approximate =
          c.op == "exponential" && type == ElementType::kC64;
      EXPECT_EQ(approximate ? FirstDifferenceWithin(Parts(x), Parts(y), 0x1p-20)
                : IsComplexType(c.out) ? FirstDifference(Parts(x), Parts(y))
                                       : FirstDifference(x, y),
                "")
          << text;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 40);
}

// c64 elements that need the C library (zero divisors, infinite or NaN
// parts, exp's large parts) beside ordinary ones, at every lane position
// of a vector and in some blocks only, over a thread split, in a flat loop
// and in a loop over rows: the vectorised loop leaves them to a
// recomputation of their block, which gives the template kernels' values
// for them and, for the ordinary elements of that block, the very bits the
// vector loop gives when no element is special.
TEST(CodegenElementwise, SpecialC64ElementsAmongOrdinaryOnes) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  constexpr int64_t n = 8192;
  const std::string t = "c64[" + std::to_string(n) + "]";
  auto program = [&](const std::string& root) {
    return "HloModule m\nENTRY %main (a: " + t + ", b: " + t + ") -> " + t +
           " {\n  %a = " + t + " parameter(0)\n  %b = " + t +
           " parameter(1)\n" + root + "}\n";
  };
  const std::string divide = program("  ROOT %r = " + t + " divide(%a, %b)\n");
  const std::string mixed =
      program("  %p = " + t + " multiply(%a, %b)\n  %e = " + t +
              " exponential(%a)\n  %c = " + t + " conj(%b)\n  %q = " + t +
              " multiply(%e, %c)\n  %d = " + t +
              " divide(%q, %b)\n  ROOT %r = " + t + " add(%p, %d)\n");
  // Every 33rd element, so over 32 of them every position modulo any
  // vector width, in the first quarter and the last third only.
  auto special = [](int64_t i) {
    return i % 33 == 0 && (i < 2112 || i >= 5400);
  };
  std::mt19937 random(7);
  std::uniform_real_distribution<float> part(-2, 2);
  std::vector<float> a(2 * n), b(2 * n);
  for (float& v : a) v = part(random);
  for (float& v : b) v = part(random);
  auto literal = [&](const std::vector<float>& parts,
                     const std::vector<int64_t>& dims) {
    Literal out(Shape::Array(ElementType::kC64, dims));
    std::memcpy(out.data(), parts.data(), parts.size() * sizeof(float));
    return out;
  };
  const std::vector<float> a0 = a, b0 = b;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < n; ++i) {
    if (!special(i)) continue;
    float* z = &a[2 * i];
    switch ((i / 33) % 5) {
      case 0:  // zero divisor
        b[2 * i] = b[2 * i + 1] = 0;
        break;
      case 1:
        z[0] = inf;
        break;
      case 2:
        z[1] = nan;
        break;
      case 3:  // e^re overflows
        z[0] = 100;
        break;
      default:  // beyond the generated sine's range
        z[1] = 3e6f;
        break;
    }
  }
  // The same elements as rows of 128, one operand reversed along them:
  // a kernel with a loop over each row, the block a row.
  const std::string m = "c64[64,128]";
  const std::string rows =
      "HloModule m\nENTRY %main (a: " + m + ", b: " + m + ") -> " + m +
      " {\n  %a = " + m + " parameter(0)\n  %b = " + m +
      " parameter(1)\n  %v = " + m + " reverse(%a), dimensions={1}\n" +
      "  ROOT %r = " + m + " divide(%v, %b)\n}\n";
  auto mirrored = [&](int64_t i) {
    return special(i) || special(i - i % 128 + 127 - i % 128);
  };
  struct Run {
    std::string text;
    std::vector<int64_t> dims;
    std::function<bool(int64_t)> touched;  // by a special element
    bool exact;
  };
  const std::vector<Run> runs = {{divide, {n}, special, true},
                                 {mixed, {n}, special, false},
                                 {rows, {64, 128}, mirrored, true}};
  for (const Run& run : runs) {
    SCOPED_TRACE(run.text);
    const std::vector<Literal> args = {literal(a, run.dims),
                                       literal(b, run.dims)};
    const std::vector<Literal> ordinary = {literal(a0, run.dims),
                                           literal(b0, run.dims)};
    StatusOr<ProgramRun> plain = RunProgram(run.text, args, false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    StatusOr<ProgramRun> one = RunProgram(run.text, args, true, true, 1);
    StatusOr<ProgramRun> split = RunProgram(run.text, args, true, true, 3);
    StatusOr<ProgramRun> none = RunProgram(run.text, ordinary, true, true, 3);
    ASSERT_TRUE(one.ok() && split.ok() && none.ok());
    EXPECT_EQ(split->generated_kernels, 1);
    const Literal& x = split->results[0];
    EXPECT_EQ(FirstDifference(Parts(one->results[0]), Parts(x)), "");
    // c64 exp computes ordinary elements with the generated f32 exp, sin
    // and cos (see ComplexOpsMatchTemplateKernels); the sum may cancel.
    EXPECT_EQ(run.exact
                  ? FirstDifference(Parts(x), Parts(plain->results[0]))
                  : FirstDifferenceWithin(Parts(x), Parts(plain->results[0]),
                                          0x1p-18, /*floor=*/1),
              "");
    const auto* got = static_cast<const uint32_t*>(x.data());
    const auto* alone = static_cast<const uint32_t*>(none->results[0].data());
    int64_t differing = 0, specials = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (run.touched(i)) {
        ++specials;
        continue;
      }
      if (got[2 * i] != alone[2 * i] || got[2 * i + 1] != alone[2 * i + 1])
        ++differing;
    }
    EXPECT_EQ(differing, 0);
    EXPECT_GT(specials, 100);
  }
}

}  // namespace
}  // namespace xffi
