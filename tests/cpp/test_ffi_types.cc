// The small value types every piece speaks in (ffi/types.h): data type
// helpers, Span, and how a DataType prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <vector>

#include "xffi/ffi.h"

namespace ffi = xffi::ffi;

namespace {

TEST(FfiTypes, RealImagAndComplexPartsOfTypes) {
  static_assert(ffi::ToImag(ffi::C64) == ffi::F32);
  static_assert(ffi::ToImag(ffi::C128) == ffi::F64);
  static_assert(ffi::ToImag(ffi::S32) == ffi::S32);
  static_assert(ffi::ToComplex(ffi::ToImag(ffi::C128)) == ffi::C128);
  EXPECT_EQ(ffi::ToImag(ffi::F16), ffi::F16);
  EXPECT_EQ(ffi::ToReal(ffi::C64), ffi::ToImag(ffi::C64));
}

TEST(FfiTypes, SpanFirstAndLast) {
  std::vector<int64_t> values = {1, 2, 3, 4, 5};
  ffi::Span<const int64_t> span(values);
  EXPECT_THAT(span.first(2), ::testing::ElementsAre(1, 2));
  EXPECT_THAT(span.last(3), ::testing::ElementsAre(3, 4, 5));
  EXPECT_TRUE(span.first(0).empty());
  EXPECT_EQ(span.last(5), span);
  EXPECT_EQ(span.first(5).data(), values.data());
  EXPECT_EQ(span.last(1).data(), values.data() + 4);
}

TEST(FfiTypes, DataTypesPrintTheirNames) {
  std::ostringstream out;
  out << ffi::F32 << " " << ffi::DataType::BF16 << " " << ffi::TOKEN;
  EXPECT_EQ(out.str(), "F32 BF16 TOKEN");
}

}  // namespace
