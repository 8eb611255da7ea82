// PrintHlo: what it writes parses back to the same program.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace xffi
