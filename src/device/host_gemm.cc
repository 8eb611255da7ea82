#include "device/host_gemm.h"

#include <complex>
#include <cstring>

namespace xffi::device {
namespace {

// The 16-bit floats as stored; arithmetic happens in float.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

float Widen(Half h) {
  _Float16 value;  // the compiler's own IEEE binary16, correctly rounded
  std::memcpy(&value, &h.bits, 2);
  return static_cast<float>(value);
}
float Widen(BFloat16 h) {
  const uint32_t bits = uint32_t{h.bits} << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
template <typename T>
T Widen(T value) {
  return value;
}

template <typename Stored, typename Acc>
Stored Narrow(Acc value) {
  if constexpr (std::is_same_v<Stored, Half>) {
    const _Float16 narrow = static_cast<_Float16>(value);
    Half h;
    std::memcpy(&h.bits, &narrow, 2);
    return h;
  } else if constexpr (std::is_same_v<Stored, BFloat16>) {
    uint32_t bits;
    const float f = value;
    std::memcpy(&bits, &f, 4);
    if (f != f) return BFloat16{static_cast<uint16_t>((bits >> 16) | 0x40)};
    // Round to nearest, ties to even, on the 16 bits dropped.
    bits += 0x7FFF + ((bits >> 16) & 1);
    return BFloat16{static_cast<uint16_t>(bits >> 16)};
  } else {
    return static_cast<Stored>(value);
  }
}

// Element (row, col) of one batch member as the product uses it.
template <typename T>
T At(const GemmMatrix& matrix, int64_t b, int64_t row, int64_t col) {
  const T* data = static_cast<const T*>(matrix.data) + b * matrix.batch_stride;
  return matrix.transposed ? data[col * matrix.ld + row]
                           : data[row * matrix.ld + col];
}

template <typename In, typename Out, typename Acc>
void Run(const Gemm& gemm) {
  for (int64_t b = 0; b < gemm.batch; ++b) {
    Out* c = static_cast<Out*>(gemm.c) + b * gemm.c_batch_stride;
    for (int64_t i = 0; i < gemm.m; ++i)
      for (int64_t j = 0; j < gemm.n; ++j) {
        Acc acc{};
        for (int64_t p = 0; p < gemm.k; ++p)
          acc += static_cast<Acc>(Widen(At<In>(gemm.a, b, i, p))) *
                 static_cast<Acc>(Widen(At<In>(gemm.b, b, p, j)));
        c[i * gemm.ldc + j] = Narrow<Out, Acc>(acc);
      }
  }
}

}  // namespace

void RunHostGemm(const Gemm& gemm) {
  const bool f32_result = gemm.c_type == GemmType::kF32;
  switch (gemm.ab_type) {
    case GemmType::kF16:
      return f32_result ? Run<Half, float, float>(gemm)
                        : Run<Half, Half, float>(gemm);
    case GemmType::kBF16:
      return f32_result ? Run<BFloat16, float, float>(gemm)
                        : Run<BFloat16, BFloat16, float>(gemm);
    case GemmType::kF32:
      return Run<float, float, float>(gemm);
    case GemmType::kF64:
      return Run<double, double, double>(gemm);
    case GemmType::kC64:
      return Run<std::complex<float>, std::complex<float>, std::complex<float>>(
          gemm);
    case GemmType::kC128:
      return Run<std::complex<double>, std::complex<double>,
                 std::complex<double>>(gemm);
  }
}

}  // namespace xffi::device
