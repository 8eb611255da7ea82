// convolution and fft on the device backend (device_backend/convolution.h,
// fft.h), on SimDevice: each program gives the Host executor's results on
// the same arguments, exactly where the values make every sum exact
// (convolution) and within rounding where they cannot (fft's twiddles).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/compare.h"
#include "device_backend/device_executor.h"
#include "device_backend/fft_kernel.h"
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
// float and complex ones run as im2col + the device GEMM (one GEMM batch
// member per group); depthwise ones (a single output feature per group),
// integer and mixed-type ones as the direct functor.
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
    {"depthwise", R"(HloModule c
ENTRY main {
  x = f32[2,7,7,6] parameter(0)
  k = f32[3,3,1,6] parameter(1)
  ROOT c = f32[2,7,7,6] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6
}
)"},
    {"feature_groups_channels_first_reversed", R"(HloModule c
ENTRY main {
  x = f64[2,4,5,5] parameter(0)
  k = f64[6,2,3,3] parameter(1)
  ROOT c = f64[2,6,2,3] convolution(x, k), window={size=3x3 stride=2x1 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01, feature_group_count=2
}
)"},
    // The weight gradient of a depthwise convolution, as JAX writes it.
    {"depthwise_weight_gradient", R"(HloModule c
ENTRY main {
  x = f32[2,6,6,4] parameter(0)
  dy = f32[2,6,6,4] parameter(1)
  ROOT c = f32[3,3,1,4] convolution(x, dy), window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=4
}
)"},
    {"grouped_weight_gradient", R"(HloModule c
ENTRY main {
  x = f32[3,5,5,6] parameter(0)
  dy = f32[3,5,5,6] parameter(1)
  ROOT c = f32[3,3,3,6] convolution(x, dy), window={size=5x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=2
}
)"},
    {"grouped_complex", R"(HloModule c
ENTRY main {
  x = c64[2,8,4] parameter(0)
  k = c64[3,2,6] parameter(1)
  ROOT c = c64[2,8,6] convolution(x, k), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f, feature_group_count=2
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
    // Long lines: radix 2, and Bluestein for a prime.
    {"fft_4096", R"(HloModule f
ENTRY main {
  x = c64[3,4096] parameter(0)
  ROOT f = c64[3,4096] fft(x), fft_type=FFT, fft_length={4096}
}
)"},
    {"ifft_prime_4099", R"(HloModule f
ENTRY main {
  x = c128[2,4099] parameter(0)
  ROOT f = c128[2,4099] fft(x), fft_type=IFFT, fft_length={4099}
}
)"},
    {"rfft_3d_mixed_lengths", R"(HloModule f
ENTRY main {
  x = f32[2,12,7,30] parameter(0)
  ROOT f = c64[2,12,7,16] fft(x), fft_type=RFFT, fft_length={12,7,30}
}
)"},
};

TEST_F(DeviceConvFftTest, FftOfEveryKindMatchesTheHostWithinRounding) {
  for (const ConvCase& c : kFfts) {
    SCOPED_TRACE(c.name);
    ExpectMatchesHost(c.program, 1e-4);
  }
}

// A SimDevice whose streams claim an FFT library, as CudaDevice's do, and
// emulate cuFFT's contract on the host: an unscaled inverse, and a
// complex-to-real transform that clobbers its input. So the device
// backend's library route (the Fft it describes, the copy IRFFT's operand
// gets, XLA's 1/N afterwards) runs here without a GPU.
class FftLibraryStream final : public device::Stream {
 public:
  FftLibraryStream(device::Device& device,
                   std::unique_ptr<device::Stream> inner, int& transforms)
      : device_(device), inner_(std::move(inner)), transforms_(transforms) {}
  ~FftLibraryStream() override { (void)inner_->Synchronize(); }

  device::Device& device() const override { return device_; }
  void* native_handle() override { return inner_->native_handle(); }
  Status CopyHostToDevice(void* d, const void* h, size_t n) override {
    return inner_->CopyHostToDevice(d, h, n);
  }
  Status CopyDeviceToHost(void* h, const void* d, size_t n) override {
    return inner_->CopyDeviceToHost(h, d, n);
  }
  Status CopyDeviceToDevice(void* d, const void* s, size_t n) override {
    return inner_->CopyDeviceToDevice(d, s, n);
  }
  Status Memset(void* d, uint8_t v, size_t n) override {
    return inner_->Memset(d, v, n);
  }
  Status Launch(const device::KernelSpec& k, const device::LaunchDims& dims,
                const void* f) override {
    return inner_->Launch(k, dims, f);
  }
  Status MatrixMultiply(const device::Gemm& gemm) override {
    return inner_->MatrixMultiply(gemm);
  }
  Status AddHostCallback(std::function<void()> callback) override {
    return inner_->AddHostCallback(std::move(callback));
  }
  Status RecordEvent(device::Event& e) override {
    return inner_->RecordEvent(e);
  }
  Status WaitEvent(device::Event& e) override { return inner_->WaitEvent(e); }
  Status Synchronize() override { return inner_->Synchronize(); }
  Status BeginCapture() override { return inner_->BeginCapture(); }
  StatusOr<std::unique_ptr<device::Graph>> EndCapture() override {
    return inner_->EndCapture();
  }
  Status LaunchGraph(device::Graph& g) override {
    return inner_->LaunchGraph(g);
  }

  bool HasFftLibrary() const override { return true; }
  Status Fourier(const device::Fft& fft) override {
    if (Status valid = device::ValidateFft(fft); !valid.ok()) return valid;
    ++transforms_;
    // Through host buffers the stream's own copies fill and drain in order.
    auto in =
        std::make_shared<std::vector<uint8_t>>(device::FftInputBytes(fft));
    auto out =
        std::make_shared<std::vector<uint8_t>>(device::FftOutputBytes(fft));
    auto junk = std::make_shared<std::vector<uint8_t>>(in->size(), 0xff);
    held_.push_back(in);
    held_.push_back(out);
    held_.push_back(junk);
    if (Status s = inner_->CopyDeviceToHost(in->data(), fft.in, in->size());
        !s.ok())
      return s;
    if (Status s = inner_->AddHostCallback(
            [fft, in, out] { HostFourier(fft, in->data(), out->data()); });
        !s.ok())
      return s;
    if (fft.kind == device::FftKind::kComplexToReal)
      if (Status s = inner_->CopyHostToDevice(const_cast<void*>(fft.in),
                                              junk->data(), junk->size());
          !s.ok())
        return s;
    return inner_->CopyHostToDevice(fft.out, out->data(), out->size());
  }

 private:
  // A direct DFT over every axis, unscaled, in double.
  static void HostFourier(const device::Fft& fft, const uint8_t* in,
                          uint8_t* out) {
    using C = std::complex<double>;
    const int rank = fft.rank;
    const int64_t last = fft.lengths[rank - 1];
    const bool r2c = fft.kind == device::FftKind::kRealToComplex;
    const bool c2r = fft.kind == device::FftKind::kComplexToReal;
    const double sign = fft.kind == device::FftKind::kForward || r2c ? -1 : 1;
    int64_t points = 1;
    for (int d = 0; d < rank; ++d) points *= fft.lengths[d];
    const int64_t half = last / 2 + 1;
    auto load = [&](const uint8_t* data, int64_t i, bool complex) {
      auto read = [&](auto* v) {
        return complex ? C(v[2 * i], v[2 * i + 1]) : C(v[i], 0);
      };
      return fft.double_precision ? read(reinterpret_cast<const double*>(data))
                                  : read(reinterpret_cast<const float*>(data));
    };
    for (int64_t b = 0; b < fft.batch; ++b) {
      // The member as a full complex array (Hermitian-extended for c2r).
      std::vector<C> x(static_cast<size_t>(points));
      for (int64_t p = 0; p < points; ++p) {
        const int64_t j = p % last, rest = p / last;
        if (!c2r) {
          x[static_cast<size_t>(p)] = load(in, b * points + p, !r2c);
        } else if (j < half) {
          x[static_cast<size_t>(p)] =
              load(in, b * (points / last) * half + rest * half + j, true);
        }
      }
      if (c2r) {  // the mirror: x[-k] = conj(x[k])
        for (int64_t p = 0; p < points; ++p) {
          if (p % last < half) continue;
          int64_t q = 0, stride = 1, rest = p;
          for (int d = rank - 1; d >= 0; --d) {
            const int64_t n = fft.lengths[d], k = rest % n;
            rest /= n;
            q += ((n - k) % n) * stride;
            stride *= n;
          }
          x[static_cast<size_t>(p)] = std::conj(x[static_cast<size_t>(q)]);
        }
      }
      std::vector<C> y(x.size());
      for (int64_t p = 0; p < points; ++p) {
        C sum = 0;
        for (int64_t q = 0; q < points; ++q) {
          double phase = 0;
          int64_t rp = p, rq = q;
          for (int d = rank - 1; d >= 0; --d) {
            const int64_t n = fft.lengths[d];
            phase += static_cast<double>((rp % n) * (rq % n) % n) / n;
            rp /= n;
            rq /= n;
          }
          sum += x[static_cast<size_t>(q)] *
                 std::polar(1.0, sign * 2 * 3.141592653589793 * phase);
        }
        y[static_cast<size_t>(p)] = sum;
      }
      for (int64_t p = 0; p < points; ++p) {
        const int64_t j = p % last, rest = p / last;
        const C v = y[static_cast<size_t>(p)];
        if (r2c && j >= half) continue;
        const int64_t at =
            r2c ? b * (points / last) * half + rest * half + j : b * points + p;
        auto store = [&](auto* o) {
          using T = std::remove_pointer_t<decltype(o)>;
          if (c2r) {
            o[at] = static_cast<T>(v.real());
          } else {
            o[2 * at] = static_cast<T>(v.real());
            o[2 * at + 1] = static_cast<T>(v.imag());
          }
        };
        if (fft.double_precision)
          store(reinterpret_cast<double*>(out));
        else
          store(reinterpret_cast<float*>(out));
      }
    }
  }

  device::Device& device_;
  std::unique_ptr<device::Stream> inner_;
  int& transforms_;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> held_;
};

class FftLibraryDevice final : public device::Device {
 public:
  explicit FftLibraryDevice(std::shared_ptr<device::Device> inner)
      : inner_(std::move(inner)) {}
  std::string_view name() const override { return "FftLibraryDevice"; }
  int ordinal() const override { return 0; }
  StatusOr<void*> Allocate(size_t size) override {
    return inner_->Allocate(size);
  }
  Status Free(void* data) override { return inner_->Free(data); }
  bool Holds(const void* data, size_t size) override {
    return inner_->Holds(data, size);
  }
  StatusOr<std::unique_ptr<device::Stream>> CreateStream() override {
    StatusOr<std::unique_ptr<device::Stream>> stream = inner_->CreateStream();
    if (!stream.ok()) return stream.status();
    auto wrapped = std::make_unique<FftLibraryStream>(*this, std::move(*stream),
                                                      transforms);
    return std::unique_ptr<device::Stream>(std::move(wrapped));
  }
  StatusOr<std::unique_ptr<device::Event>> CreateEvent() override {
    return inner_->CreateEvent();
  }
  Status SynchronizeEvent(device::Event& event) override {
    return inner_->SynchronizeEvent(event);
  }
  StatusOr<bool> QueryEvent(device::Event& event) override {
    return inner_->QueryEvent(event);
  }
  Status Synchronize() override { return inner_->Synchronize(); }
  bool HasFftLibrary() const override { return true; }

  int transforms = 0;  // Fourier calls on its streams

 private:
  std::shared_ptr<device::Device> inner_;
};

TEST_F(DeviceConvFftTest, OnADeviceWithAnFftLibraryFftsAreOneLibraryCall) {
  auto library = std::make_shared<FftLibraryDevice>(device_);
  DeviceBackendOptions options;
  options.device =
      [library](
          const CompileOptions&) -> StatusOr<std::shared_ptr<device::Device>> {
    return std::shared_ptr<device::Device>(library);
  };
  backend_ = std::make_unique<DeviceBackend>(std::move(options));
  for (const ConvCase& c : kFfts) {
    if (std::string(c.name).find("4099") != std::string::npos ||
        std::string(c.name).find("4096") != std::string::npos ||
        std::string(c.name).find("mixed") != std::string::npos)
      continue;  // the emulation's direct DFT is O(n^2)
    SCOPED_TRACE(c.name);
    ExpectMatchesHost(c.program, 1e-4);
  }
  EXPECT_GT(library->transforms, 0) << "no fft reached the library";
  // IRFFT's operand stays readable after the library clobbered its input.
  ExpectMatchesHost(R"(HloModule f
ENTRY main {
  x = c64[3,5] parameter(0)
  f = f32[3,8] fft(x), fft_type=IRFFT, fft_length={8}
  ROOT t = (f32[3,8], c64[3,5]) tuple(f, x)
}
)",
                    1e-4);
}

// What an fft reserves depends on how its device transforms. The kernels'
// passes share a workspace sized for this transform (its workers times one
// line's work area); a library (cuFFT) brings its own work areas, so only
// IRFFT reserves anything: a copy of its operand, which the library
// overwrites. It used to reserve the kernels' workspace on every device.
TEST_F(DeviceConvFftTest, FftScratchIsSizedForTheTransformAndTheDevice) {
  const char* kFft = R"(HloModule f
ENTRY main {
  x = c64[64,256] parameter(0)
  ROOT f = c64[64,256] fft(x), fft_type=FFT, fft_length={256}
}
)";
  const char* kNegate = R"(HloModule f
ENTRY main {
  x = c64[64,256] parameter(0)
  ROOT f = c64[64,256] negate(x)
}
)";
  const char* kIrfft = R"(HloModule f
ENTRY main {
  x = c64[64,129] parameter(0)
  ROOT f = f32[64,256] fft(x), fft_type=IRFFT, fft_length={256}
}
)";
  auto device_bytes = [&](const char* text) -> size_t {
    auto exe = CompileForDevice(text);
    EXPECT_TRUE(exe.ok()) << exe.status().message();
    return exe.ok() ? GetDeviceExecutorStats(**exe).device_bytes : 0;
  };
  // The same parameter and result without scratch: the block's other part.
  const size_t io_bytes = device_bytes(kNegate);
  ASSERT_EQ(io_bytes, size_t{2} * 64 * 256 * 8);
  // SimDevice: 64 lines of 256 points, 8 lines per worker.
  const size_t workspace =
      size_t{8} * static_cast<size_t>(FftWorkspaceDoubles(256)) * 8;
  EXPECT_EQ(device_bytes(kFft), io_bytes + workspace);
  const size_t irfft_in = size_t{64} * 129 * 8,
               irfft_out = size_t{64} * 256 * 4;
  EXPECT_EQ(device_bytes(kIrfft),
            irfft_in + irfft_out +
                size_t{8} * static_cast<size_t>(FftWorkspaceDoubles(256)) * 8);

  auto library = std::make_shared<FftLibraryDevice>(device_);
  DeviceBackendOptions options;
  options.device =
      [library](
          const CompileOptions&) -> StatusOr<std::shared_ptr<device::Device>> {
    return std::shared_ptr<device::Device>(library);
  };
  backend_ = std::make_unique<DeviceBackend>(std::move(options));
  EXPECT_EQ(device_bytes(kFft), io_bytes);
  EXPECT_EQ(device_bytes(kIrfft), irfft_in + irfft_out + irfft_in);
  // And it still transforms, through the library.
  ExpectMatchesHost(kIrfft, 1e-4);
  EXPECT_GT(library->transforms, 0);
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
