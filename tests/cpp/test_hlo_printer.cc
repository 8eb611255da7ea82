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

}  // namespace
}  // namespace xffi
