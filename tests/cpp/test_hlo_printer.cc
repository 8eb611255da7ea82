// PrintHlo: what it writes parses back to the same program.
#include <gtest/gtest.h>

#include <string>

#include "hlo_test_util.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using hlo_test::DiffModules;
using hlo_test::ReadSample;

TEST(HloPrinter, SamplesReachAFixedPoint) {
  for (const char* name : hlo_test::kSamples) {
    SCOPED_TRACE(name);
    StatusOr<Module> first = ParseHlo(ReadSample(name), name);
    ASSERT_TRUE(first.ok()) << first.status().message();
    std::string printed = PrintHlo(*first);
    StatusOr<Module> second = ParseHlo(printed, name);
    ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
    EXPECT_EQ(DiffModules(*first, *second), "") << printed;
    EXPECT_EQ(PrintHlo(*second), printed);
  }
}

// Parses `text`, checks that its printed form holds `piece`, and reads
// that back to the same module, printed the same.
void ExpectFrontendAttributesPrintedAs(const char* text,
                                       const std::string& piece) {
  StatusOr<Module> first = ParseHlo(text);
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::string printed = PrintHlo(*first);
  EXPECT_NE(printed.find(piece), std::string::npos) << printed;
  StatusOr<Module> second = ParseHlo(printed);
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(DiffModules(*first, *second), "") << printed;
  EXPECT_EQ(second->entry()->root()->frontend_attributes,
            first->entry()->root()->frontend_attributes);
  EXPECT_EQ(PrintHlo(*second), printed);
}

TEST(HloPrinter, FrontendAttributesRoundTrip) {
  // Sorted by key, as XLA prints them.
  ExpectFrontendAttributesPrintedAs(
      R"(HloModule fa
ENTRY %e (a: f32[4,2]) -> f32[4,2] {
  %a = f32[4,2]{1,0} parameter(0), frontend_attributes={x="y,z"}
  ROOT %c = f32[4,2]{1,0} custom-call(%a), custom_call_target="f", frontend_attributes={num_batch_dims="1","odd key"="a\"b\n",raw={k = 1}}
}
)",
      R"(frontend_attributes={num_batch_dims="1","odd key"="a\"b\n",raw={k = 1}})");
}

// A value that is one {...} group prints bare, any other quoted, as jaxlib
// 0.10.2's HLO printer writes these values (read from quoted StableHLO
// strings, printed by its mlir_module_to_xla_computation), except that one
// with blanks around the group stays quoted, which XLA's would drop.
TEST(HloPrinter, FrontendAttributeValuesQuotedAsXlaQuotesThem) {
  ExpectFrontendAttributesPrintedAs(
      R"(HloModule fa
ENTRY %e (a: f32[2]) -> f32[2] {
  ROOT %a = f32[2]{0} parameter(0), frontend_attributes={a="{x}b",b="{\"}\"}",c="{",d="{}",e="{a}}",f="{{a}",g=" {a}",i="{\"\\\"}\"}",j="{a(}"}
}
)",
      R"(frontend_attributes={a="{x}b",b={"}"},c="{",d={},e="{a}}",f="{{a}",g=" {a}",i={"\"}"},j="{a(}"})");
}

std::string ResultShardings(const Module& module) {
  std::string out;
  for (const auto& s : module.entry()->result_shardings())
    out += (s.has_value() ? s->ToString() : "none") + ";";
  return out;
}

// The entry's result shardings print as its ROOT's sharding (a tuple's one
// per element, {unknown} for a result without one), which reads back to
// the same shardings: from StableHLO's result attributes and from HLO.
TEST(HloPrinter, ResultShardingsRoundTrip) {
  StatusOr<Module> first = ParseStableHlo(R"(
module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%x: tensor<8x4xf32>) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<8x4xf32>, tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"a", "b"}]>}) {
    %0 = stablehlo.negate %x : tensor<8x4xf32>
    return %0, %x, %0 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}
)",
                                          "r.mlir");
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string want =
      "{devices=[4,1]0,1,2,3};none;{devices=[1,4]0,1,2,3};";
  EXPECT_EQ(ResultShardings(*first), want);
  std::string printed = PrintHlo(*first);
  EXPECT_NE(printed.find("sharding={{devices=[4,1]0,1,2,3}, {unknown}, "
                         "{devices=[1,4]0,1,2,3}}"),
            std::string::npos)
      << printed;
  StatusOr<Module> second = ParseHlo(printed, "r.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(ResultShardings(*second), want);
  EXPECT_TRUE(VerifyModule(*second).ok());
  EXPECT_EQ(PrintHlo(*second), printed);

  // One result: the ROOT's own sharding= line.
  StatusOr<Module> single = ParseStableHlo(
      "func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32> "
      "{mhlo.sharding = \"{devices=[2,2]<=[4] last_tile_dim_replicate}\"}) {\n"
      "  %0 = stablehlo.negate %x : tensor<4xf32>\n"
      "  return %0 : tensor<4xf32>\n}\n",
      "s.mlir");
  ASSERT_TRUE(single.ok()) << single.status().message();
  printed = PrintHlo(*single);
  const size_t root = printed.find("  ROOT ");
  ASSERT_NE(root, std::string::npos) << printed;
  const std::string root_line =
      printed.substr(root, printed.find('\n', root) - root);
  EXPECT_NE(root_line.find(" negate("), std::string::npos) << printed;
  EXPECT_NE(root_line.find(", sharding={devices=[2,2]0,1,2,3 "
                           "last_tile_dim_replicate}"),
            std::string::npos)
      << printed;
  second = ParseHlo(printed, "s.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(ResultShardings(*second), ResultShardings(*single));
  EXPECT_EQ(ResultShardings(*second),
            "{devices=[2,2]0,1,2,3 last_tile_dim_replicate};");
}

// jax.jit(lambda a: a, in_shardings=A, out_shardings=B): the root is the
// parameter, whose sharding is A, while the result's is B. HLO gives an op
// one sharding, so the ROOT is a copy carrying B (XLA writes a tuple and a
// get-tuple-element); both read back as they were, and the copy computes
// what the root did.
TEST(HloPrinter, AResultShardingUnlikeTheRootsOwnIsACopysSharding) {
  StatusOr<Module> first = ParseStableHlo(
      "module @m attributes {mhlo.num_partitions = 4 : i32} {\n"
      "  func.func public @main(%a: tensor<8x4xf32> {mhlo.sharding = "
      "\"{devices=[4,1]<=[4]}\"}) -> (tensor<8x4xf32> {mhlo.sharding = "
      "\"{devices=[1,4]<=[4]}\"}) {\n"
      "    return %a : tensor<8x4xf32>\n  }\n}\n",
      "p.mlir");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(ResultShardings(*first), "{devices=[1,4]0,1,2,3};");
  std::string printed = PrintHlo(*first);
  EXPECT_NE(printed.find("  %a.1 = f32[8,4] parameter(0), "
                         "sharding={devices=[4,1]0,1,2,3}"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("  ROOT %a.1.result = f32[8,4] copy(%a.1), "
                         "sharding={devices=[1,4]0,1,2,3}"),
            std::string::npos)
      << printed;
  StatusOr<Module> second = ParseHlo(printed, "p.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_TRUE(VerifyModule(*second).ok());
  EXPECT_EQ(ResultShardings(*second), ResultShardings(*first));
  const Instruction* root = second->entry()->root();
  EXPECT_EQ(root->opcode(), Opcode::kCopy);
  ASSERT_EQ(root->operand_count(), 1);
  ASSERT_TRUE(root->operand(0)->sharding.has_value());
  EXPECT_EQ(root->operand(0)->sharding->ToString(), "{devices=[4,1]0,1,2,3}");
  // A fixed point from there on: the copy has no sharding of its own.
  EXPECT_EQ(PrintHlo(*second), printed);

  // The same for a tuple of results, one of them the parameter: the tuple
  // has no sharding of its own, so it carries the results' as before.
  StatusOr<Module> tuple = ParseStableHlo(
      "module @m attributes {mhlo.num_partitions = 4 : i32} {\n"
      "  func.func public @main(%a: tensor<8x4xf32> {mhlo.sharding = "
      "\"{devices=[4,1]<=[4]}\"}) -> (tensor<8x4xf32> {mhlo.sharding = "
      "\"{devices=[1,4]<=[4]}\"}, tensor<8x4xf32>) {\n"
      "    return %a, %a : tensor<8x4xf32>, tensor<8x4xf32>\n  }\n}\n",
      "t.mlir");
  ASSERT_TRUE(tuple.ok()) << tuple.status().message();
  printed = PrintHlo(*tuple);
  EXPECT_EQ(printed.find(" copy("), std::string::npos) << printed;
  second = ParseHlo(printed, "t.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(ResultShardings(*second), ResultShardings(*tuple));

  // A root whose own sharding is the results' needs no copy.
  StatusOr<Module> same = ParseStableHlo(
      "func.func public @main(%a: tensor<8xf32> {mhlo.sharding = "
      "\"{devices=[4]<=[4]}\"}) -> (tensor<8xf32> {mhlo.sharding = "
      "\"{devices=[4]<=[4]}\"}) {\n  return %a : tensor<8xf32>\n}\n",
      "same.mlir");
  ASSERT_TRUE(same.ok()) << same.status().message();
  printed = PrintHlo(*same);
  EXPECT_EQ(printed.find(" copy("), std::string::npos) << printed;
  EXPECT_NE(printed.find("ROOT %a.1 = f32[8] parameter(0), "
                         "sharding={devices=[4]0,1,2,3}"),
            std::string::npos)
      << printed;
}

// XLA's own form of the same case (jaxlib 0.10.2's as_text("hlo") of
// jax.jit(lambda a: a, in_shardings=A, out_shardings=B) under GSPMD): the
// ROOT get-tuple-element's sharding is the result's.
TEST(HloPrinter, XlasTupleFormOfADifferentResultShardingReadsTheSame) {
  StatusOr<Module> first = ParseHlo(
      R"(HloModule jit__lambda, entry_computation_layout={(f32[8,4]{1,0})->f32[8,4]{1,0}}
ENTRY main.1 {
  a.1 = f32[8,4]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  tuple.1 = (f32[8,4]{1,0}) tuple(a.1), sharding={{devices=[4,1]<=[4]}}
  ROOT get-tuple-element.1 = f32[8,4]{1,0} get-tuple-element(tuple.1), index=0, sharding={devices=[1,4]<=[4]}
}
)",
      "x.hlo");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(ResultShardings(*first), "{devices=[1,4]0,1,2,3};");
  EXPECT_EQ(first->entry()->parameter(0)->sharding->ToString(),
            "{devices=[4,1]0,1,2,3}");
  std::string printed = PrintHlo(*first);
  StatusOr<Module> second = ParseHlo(printed, "x2.hlo");
  ASSERT_TRUE(second.ok()) << second.status().message() << "\n" << printed;
  EXPECT_EQ(DiffModules(*first, *second), "") << printed;
  EXPECT_EQ(ResultShardings(*second), ResultShardings(*first));
}

}  // namespace
}  // namespace xffi
