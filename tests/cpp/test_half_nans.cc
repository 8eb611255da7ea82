// f16 and bf16 NaNs (and a few finite values) against XLA:CPU, bit for bit
// (xla_half_nan_table.h, written by xla_half_nan_table.py from jax.jit):
// every conversion that touches f16 or bf16, the f16/bf16 elementwise ops
// that produce NaNs and their max/min reductions, each on every path that
// computes it: the template kernels, the fused loop's tile evaluator,
// generated code for a lone op and for a fusion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "ir/float_types.h"
#include "xla_half_nan_table.h"

namespace xffi {
namespace {

using codegen_test::ProgramRun;
using codegen_test::RunProgram;

struct Path {
  const char* name;
  bool codegen;
  bool fuse;
};

// Generated code is only offered when the build has it; the runs without
// it are then the same as the template kernels'.
constexpr Path kPaths[] = {{"kernels", false, false},
                           {"fused loop", false, true},
                           {"generated op", true, false},
                           {"generated fusion", true, true}};

ElementType TypeOf(const std::string& name) {
  std::optional<ElementType> type = ElementTypeFromName(name);
  EXPECT_TRUE(type.has_value()) << name;
  return type.value_or(ElementType::kF32);
}

// `bits` (the low bytes of each) as a literal of `type`.
Literal FromBits(ElementType type, const std::vector<uint64_t>& bits,
                 std::vector<int64_t> dims) {
  const size_t size = ElementByteSize(type);
  std::vector<unsigned char> bytes(bits.size() * size);
  for (size_t i = 0; i < bits.size(); ++i)
    std::memcpy(bytes.data() + i * size, &bits[i], size);  // little-endian
  return Literal::FromBytes(Shape::Array(type, std::move(dims)), bytes.data(),
                            bytes.size());
}

uint64_t BitsAt(const Literal& literal, size_t i) {
  const size_t size = ElementByteSize(literal.shape().element_type());
  uint64_t bits = 0;
  std::memcpy(&bits,
              static_cast<const unsigned char*>(literal.data()) + i * size,
              size);
  return bits;
}

std::string Hex(uint64_t bits) {
  std::ostringstream out;
  out << "0x" << std::hex << bits;
  return out.str();
}

// Runs `text` on every path; `check(path, result)` compares (path.codegen:
// generated kernels ran, which a build without the code generator has not).
template <typename Check>
void OnEveryPath(const std::string& text, const std::vector<Literal>& args,
                 Check check) {
  for (const Path& path : kPaths) {
    StatusOr<ProgramRun> run = RunProgram(text, args, path.codegen, path.fuse);
    ASSERT_TRUE(run.ok()) << path.name << ": " << run.status().message() << "\n"
                          << text;
    ASSERT_EQ(run->results.size(), 1u);
    check(
        Path{path.name, path.codegen && run->generated_kernels > 0, path.fuse},
        run->results[0]);
  }
}

// A program computing %r from its parameters (`params`, `body`, `args`):
// the op alone, or inside a loop fusion, through a select with an all-true
// predicate (which passes the bits on) added here.
std::string Program(std::string params, std::string body,
                    std::vector<Literal>& args, const std::string& result,
                    int64_t n, bool through_select) {
  if (!through_select)
    return "HloModule m\nENTRY %main (" + params + ") -> " + result + " {\n" +
           body + "  ROOT %out = " + result + " copy(%r)\n}\n";
  const std::string count = std::to_string(n);
  const std::string scalar = result.substr(0, result.find('['));
  params += ", p: pred[" + count + "]";
  body += "  %p = pred[" + count + "] parameter(" +
          std::to_string(args.size()) + ")\n  %zero = " + scalar +
          "[] constant(0)\n  %keep = " + result +
          " broadcast(%zero), dimensions={}\n";
  Literal all(Shape::Array(ElementType::kPred, {n}));
  std::memset(all.data(), 1, static_cast<size_t>(n));
  args.push_back(std::move(all));
  return "HloModule m\nENTRY %main (" + params + ") -> " + result + " {\n" +
         body + "  ROOT %out = " + result + " select(%p, %r, %keep)\n}\n";
}

TEST(HalfNans, ConversionsMatchXla) {
  for (const test::XlaConvertCase& c : test::kXlaConverts) {
    SCOPED_TRACE(std::string(c.from) + " -> " + c.to);
    const ElementType from = TypeOf(c.from);
    const int64_t n = static_cast<int64_t>(c.count);
    const std::string in = std::string(c.from) + "[" + std::to_string(n) + "]";
    const std::string out = std::string(c.to) + "[" + std::to_string(n) + "]";
    for (bool select : {false, true}) {
      std::vector<Literal> args;
      args.push_back(
          FromBits(from, std::vector<uint64_t>(c.in, c.in + c.count), {n}));
      const std::string text = Program(
          "x: " + in,
          "  %x = " + in + " parameter(0)\n  %r = " + out + " convert(%x)\n",
          args, out, n, select);
      OnEveryPath(text, args, [&](const Path& path, const Literal& result) {
        for (size_t i = 0; i < c.count; ++i)
          EXPECT_EQ(Hex(BitsAt(result, i)), Hex(c.out[i]))
              << path.name << (select ? " (fused with a select)" : "")
              << ": convert of " << Hex(c.in[i]);
      });
    }
  }
}

// `bits` of `type` as HLO literal text (a NaN with its payload).
std::string LiteralText(ElementType type, uint64_t bits) {
  const FloatBitLayout layout = FloatBitLayoutOf(type);
  const double value = DecodeFloatBits(type, bits);
  const std::string sign = (bits & layout.sign_mask) != 0 ? "-" : "";
  if (std::isnan(value)) {
    std::ostringstream out;
    out << sign << "nan(0x" << std::hex << (bits & layout.mantissa_mask())
        << ")";
    return out.str();
  }
  if (std::isinf(value)) return sign + "inf";
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// The conversions of constants: the values are in the program text, where
// the simplifier and the code generator (which writes them into its IR,
// for LLVM to fold) see them; constant folding leaves NaNs and the 16-bit
// floats to the kernels.
TEST(HalfNans, ConversionsOfConstantsMatchXla) {
  int checked = 0;
  for (const test::XlaConvertCase& c : test::kXlaConverts) {
    const std::string from_name = c.from;
    if (from_name != "f32" && from_name != "f64" && from_name != "f16" &&
        from_name != "bf16")
      continue;
    SCOPED_TRACE(from_name + " -> " + c.to);
    const ElementType from = TypeOf(c.from);
    const int64_t n = static_cast<int64_t>(c.count);
    std::string values;
    for (size_t i = 0; i < c.count; ++i)
      values += (i == 0 ? "" : ", ") + LiteralText(from, c.in[i]);
    const std::string in = from_name + "[" + std::to_string(n) + "]";
    const std::string out = std::string(c.to) + "[" + std::to_string(n) + "]";
    std::vector<Literal> args;
    const std::string text = Program("",
                                     "  %x = " + in + " constant({" + values +
                                         "})\n  %r = " + out + " convert(%x)\n",
                                     args, out, n, /*through_select=*/false);
    OnEveryPath(text, args, [&](const Path& path, const Literal& result) {
      for (size_t i = 0; i < c.count; ++i)
        EXPECT_EQ(Hex(BitsAt(result, i)), Hex(c.out[i]))
            << path.name << ": convert of the constant " << Hex(c.in[i]);
    });
    ++checked;
  }
  // The ten pairs of f16, bf16, f32 and f64; f16 and bf16 to the nine
  // byte floats.
  EXPECT_EQ(checked, 28);
}

// What a path gives where XLA's bits are `xla` for input `in`. Generated
// code holds f16 values widened to float, which quiets a signalling NaN as
// it is read: its f16 negate and abs of one give the quiet NaN, where
// XLA's (on the bits, as the template kernels) keep it signalling (a
// difference tests/programs/COVERAGE.md lists).
uint64_t Expected(const Path& path, const test::XlaHalfOpCase& c, uint64_t in,
                  uint64_t xla) {
  const std::string op = c.op;
  const bool signalling = (in & 0x7fffu) > 0x7c00u && (in & 0x0200u) == 0;
  if (path.codegen && std::string(c.type) == "f16" &&
      (op == "negate" || op == "abs") && signalling)
    return xla | 0x0200u;
  return xla;
}

// An op of the table on its values (binary: every pair), alone and fused.
void ExpectOpMatchesXla(const test::XlaHalfOpCase& c) {
  SCOPED_TRACE(std::string(c.type) + " " + c.op);
  const ElementType type = TypeOf(c.type);
  const size_t count = c.binary ? c.count * c.count : c.count;
  std::vector<uint64_t> a, b;
  for (size_t i = 0; i < count; ++i) {
    a.push_back(c.values[c.binary ? i / c.count : i]);
    b.push_back(c.values[i % c.count]);
  }
  const int64_t n = static_cast<int64_t>(count);
  const std::string t = c.type;
  const std::string shape = t + "[" + std::to_string(n) + "]";
  const std::string op = c.op;
  for (bool select : {false, true}) {
    std::string body = "  %a = " + shape + " parameter(0)\n  %b = " + shape +
                       " parameter(1)\n";
    if (op == "clamp")
      body += "  %lo = " + t + "[] constant(-1)\n  %hi = " + t +
              "[] constant(1)\n  %blo = " + shape +
              " broadcast(%lo), dimensions={}\n  %bhi = " + shape +
              " broadcast(%hi), dimensions={}\n  %r = " + shape +
              " clamp(%blo, %a, %bhi)\n";
    else if (c.binary)
      body += "  %r = " + shape + " " + op + "(%a, %b)\n";
    else
      body += "  %r = " + shape + " " + op + "(%a)\n";
    std::vector<Literal> args;
    args.push_back(FromBits(type, a, {n}));
    args.push_back(FromBits(type, b, {n}));
    const std::string text =
        Program("a: " + shape + ", b: " + shape, body, args, shape, n, select);
    OnEveryPath(text, args, [&](const Path& path, const Literal& result) {
      for (size_t i = 0; i < count; ++i) {
        const uint64_t got = BitsAt(result, i);
        // Where XLA's vectorised loop gives another NaN at other places
        // (bf16 add and multiply of two NaNs of opposite signs), either.
        const uint64_t want = got == c.other[i] && c.other[i] != c.out[i]
                                  ? c.other[i]
                                  : Expected(path, c, a[i], c.out[i]);
        EXPECT_EQ(Hex(got), Hex(want))
            << path.name << (select ? " (fused with a select)" : "") << ": "
            << op << " of " << Hex(a[i])
            << (c.binary ? ", " + Hex(b[i]) : std::string());
      }
    });
  }
}

// A reduction of [a, b] pairs, over rows and over columns, and a
// reduce-window over rows (windows of 2), from XLA's init (-inf for max,
// +inf for min, as jnp.max and jnp.min start).
void ExpectReductionMatchesXla(const test::XlaHalfOpCase& c) {
  SCOPED_TRACE(std::string(c.type) + " " + c.op);
  const std::string op = c.op;
  const ElementType type = TypeOf(c.type);
  const bool max = op.find("maximum") != std::string::npos;
  const bool window = op.rfind("window-", 0) == 0;
  const size_t count = c.count * c.count;
  const std::string t = c.type;
  const std::string n = std::to_string(count);
  const int64_t pairs = static_cast<int64_t>(count);
  for (bool rows : {true, false}) {
    if (window && !rows) continue;
    const std::string in = t + (rows ? "[" + n + ",2]" : "[2," + n + "]");
    const std::string out = t + (window ? "[" + n + ",1]" : "[" + n + "]");
    std::vector<uint64_t> bits;
    if (rows) {
      for (size_t i = 0; i < count; ++i) {
        bits.push_back(c.values[i / c.count]);
        bits.push_back(c.values[i % c.count]);
      }
    } else {
      for (size_t i = 0; i < count; ++i) bits.push_back(c.values[i / c.count]);
      for (size_t i = 0; i < count; ++i) bits.push_back(c.values[i % c.count]);
    }
    const std::string reduce =
        window ? " reduce-window(%x, %init), window={size=1x2}"
               : std::string(" reduce(%x, %init), dimensions={") +
                     (rows ? "1" : "0") + "}";
    const std::string text =
        "HloModule m\n%combine (p0: " + t + "[], p1: " + t + "[]) -> " + t +
        "[] {\n  %p0 = " + t + "[] parameter(0)\n  %p1 = " + t +
        "[] parameter(1)\n  ROOT %m = " + t + "[] " +
        (max ? "maximum" : "minimum") +
        "(%p0, %p1)\n}\n\nENTRY %main (x: " + in + ") -> " + out +
        " {\n  %x = " + in + " parameter(0)\n  %init = " + t + "[] constant(" +
        (max ? "-inf" : "inf") + ")\n  ROOT %r = " + out + reduce +
        ", to_apply=%combine\n}\n";
    std::vector<Literal> args;
    args.push_back(FromBits(type, bits,
                            rows ? std::vector<int64_t>{pairs, 2}
                                 : std::vector<int64_t>{2, pairs}));
    OnEveryPath(text, args, [&](const Path& path, const Literal& result) {
      for (size_t i = 0; i < count; ++i)
        EXPECT_EQ(Hex(BitsAt(result, i)), Hex(c.out[i]))
            << path.name << (rows ? " rows" : " columns") << ": " << op
            << " of " << Hex(c.values[i / c.count]) << ", "
            << Hex(c.values[i % c.count]);
    });
  }
}

bool IsReduction(const test::XlaHalfOpCase& c) {
  const std::string op = c.op;
  return op.rfind("reduce-", 0) == 0 || op.rfind("window-", 0) == 0;
}

TEST(HalfNans, ElementwiseOpsMatchXla) {
  for (const test::XlaHalfOpCase& c : test::kXlaHalfOps)
    if (!IsReduction(c)) ExpectOpMatchesXla(c);
}

TEST(HalfNans, MaxMinReductionsMatchXla) {
  for (const test::XlaHalfOpCase& c : test::kXlaHalfOps)
    if (IsReduction(c)) ExpectReductionMatchesXla(c);
}

}  // namespace
}  // namespace xffi
