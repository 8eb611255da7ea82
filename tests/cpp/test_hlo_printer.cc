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

}  // namespace
}  // namespace xffi
