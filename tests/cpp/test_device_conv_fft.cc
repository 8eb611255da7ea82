// convolution and fft on the device backend (device_backend/convolution.h,
// fft.h), on SimDevice: each program gives the Host executor's results on
// the same arguments, exactly where the values make every sum exact
// (convolution) and within rounding where they cannot (fft's twiddles).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "device_backend_test_util.h"

namespace xffi::device_backend {
namespace {

using ::testing::HasSubstr;

class DeviceConvFftTest : public testing::SimDeviceBackendTest {
 protected:
  void ExpectMatchesHost(const std::string& text,
                         std::optional<double> tolerance) {
    auto device = CompileForDevice(text);
    ASSERT_TRUE(device.ok()) << device.status().message();
    auto host = CompileForHost(text);
    ASSERT_TRUE(host.ok()) << host.status().message();
    std::mt19937 random(11);
    std::vector<Literal> arguments;
    for (const Shape& shape : (*device)->parameter_shapes())
      arguments.push_back(testing::RandomEighths(shape, random));
    StatusOr<std::vector<Literal>> got = (*device)->Execute(arguments);
    ASSERT_TRUE(got.ok()) << got.status().message();
    StatusOr<std::vector<Literal>> want = (*host)->Execute(arguments);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < got->size(); ++k) {
      Comparison comparison = CompareLiterals((*got)[k], (*want)[k], tolerance);
      EXPECT_TRUE(comparison.ok) << "result " << k << ": " << comparison.detail;
    }
  }
};

struct ConvCase {
  const char* name;
  const char* program;
};

// Every layout, window attribute and group form the CPU kernel takes. The
// ungrouped float and complex ones run as im2col + the device GEMM; the
// grouped and integer ones as the direct functor.
const ConvCase kConvolutions[] = {
    {"channels_last_strided_padded", R"(HloModule c
ENTRY main {
  x = f32[2,7,6,3] parameter(0)
  k = f32[3,3,3,4] parameter(1)
  ROOT c = f32[2,4,3,4] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_0}, dim_labels=b01f_01io->b01f
}
)"},
    {"channels_first_dilated", R"(HloModule c
ENTRY main {
  x = f64[2,3,5,4] parameter(0)
  k = f64[4,3,2,3] parameter(1)
  ROOT c = f64[2,4,10,3] convolution(x, k), window={size=2x3 pad=1_1x2_1 lhs_dilate=2x1 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01
}
)"},
    {"negative_padding_reversed_odd_layout", R"(HloModule c
ENTRY main {
  x = f32[9,2,3] parameter(0)
  k = f32[4,3,2] parameter(1)
  ROOT c = f32[2,3,2] convolution(x, k), window={size=4 stride=2 pad=-1_0 rhs_reversal=1}, dim_labels=0bf_0io->f0b
}
)"},
    {"feature_groups", R"(HloModule c
ENTRY main {
  x = f32[2,6,6,4] parameter(0)
  k = f32[3,3,2,6] parameter(1)
  ROOT c = f32[2,6,6,6] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}
)"},
    {"batch_groups", R"(HloModule c
ENTRY main {
  x = f32[4,5,5,3] parameter(0)
  k = f32[3,3,3,6] parameter(1)
  ROOT c = f32[2,6,3,3] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->bf01, batch_group_count=2
}
)"},
    {"integer_3d", R"(HloModule c
ENTRY main {
  x = s32[1,4,3,5,2] parameter(0)
  k = s32[2,2,3,2,3] parameter(1)
  ROOT c = s32[1,3,2,3,3] convolution(x, k), window={size=2x2x3}, dim_labels=b012f_012io->b012f
}
)"},
    {"half_into_f32", R"(HloModule c
ENTRY main {
  x = f16[2,6,2] parameter(0)
  k = f16[3,2,5] parameter(1)
  ROOT c = f32[2,4,5] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f
}
)"},
    {"complex", R"(HloModule c
ENTRY main {
  x = c64[2,8,2] parameter(0)
  k = c64[3,2,3] parameter(1)
  ROOT c = c64[2,8,3] convolution(x, k), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f
}
)"},
};

TEST_F(DeviceConvFftTest, ConvolutionLayoutsWindowsAndGroupsMatchTheHost) {
  for (const ConvCase& c : kConvolutions) {
    SCOPED_TRACE(c.name);
    ExpectMatchesHost(c.program, 0.0);
  }
}

// FFT, IFFT, RFFT and IRFFT over 1-3 dimensions, odd and even lengths,
// c64 and c128.
const ConvCase kFfts[] = {
    {"fft_1d_c64", R"(HloModule f
ENTRY main {
  x = c64[3,16] parameter(0)
  ROOT f = c64[3,16] fft(x), fft_type=FFT, fft_length={16}
}
)"},
    {"ifft_2d_c128_odd", R"(HloModule f
ENTRY main {
  x = c128[2,5,7] parameter(0)
  ROOT f = c128[2,5,7] fft(x), fft_type=IFFT, fft_length={5,7}
}
)"},
    {"fft_3d_c64", R"(HloModule f
ENTRY main {
  x = c64[2,3,4,6] parameter(0)
  ROOT f = c64[2,3,4,6] fft(x), fft_type=FFT, fft_length={3,4,6}
}
)"},
    {"rfft_2d_f32", R"(HloModule f
ENTRY main {
  x = f32[3,4,10] parameter(0)
  ROOT f = c64[3,4,6] fft(x), fft_type=RFFT, fft_length={4,10}
}
)"},
    {"irfft_odd_f64", R"(HloModule f
ENTRY main {
  x = c128[4,5] parameter(0)
  ROOT f = f64[4,9] fft(x), fft_type=IRFFT, fft_length={9}
}
)"},
    {"irfft_3d_f32", R"(HloModule f
ENTRY main {
  x = c64[2,3,5] parameter(0)
  ROOT f = f32[2,3,8] fft(x), fft_type=IRFFT, fft_length={2,3,8}
}
)"},
};

TEST_F(DeviceConvFftTest, FftOfEveryKindMatchesTheHostWithinRounding) {
  for (const ConvCase& c : kFfts) {
    SCOPED_TRACE(c.name);
    ExpectMatchesHost(c.program, 1e-4);
  }
}

TEST_F(DeviceConvFftTest, AComplexConvolutionIntoARealResultIsRefused) {
  auto device = CompileForDevice(R"(HloModule c
ENTRY main {
  x = c64[1,4,1] parameter(0)
  k = c64[2,1,1] parameter(1)
  ROOT c = f32[1,3,1] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f
}
)");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_THAT(device.status().message(),
              HasSubstr("the device backend cannot run op 'c' (convolution) "
                        "in computation 'main' at program.hlo:5:"));
}

}  // namespace
}  // namespace xffi::device_backend
