#include "cpu/int8_dot.h"

#include <algorithm>

#include "cpu/parallel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define XFFI_INT8_DOT_AVX2 1
#endif

namespace xffi::cpu {
namespace {

constexpr int64_t kDepthAlign = 16;
// Result rows and columns one micro-kernel call computes: 4 x 2 accumulators
// plus the 6 vectors loaded per step fit AVX2's 16 registers.
constexpr int64_t kRows = 4, kCols = 2;

// Portable: one result element at a time.
void DotsScalar(const int16_t* a, const int16_t* bt, int64_t rows, int64_t n,
                int64_t kp, uint32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      uint32_t sum = 0;
      for (int64_t p = 0; p < kp; ++p)
        sum += static_cast<uint32_t>(static_cast<int32_t>(a[i * kp + p]) *
                                     static_cast<int32_t>(bt[j * kp + p]));
      c[i * ldc + j] = sum;
    }
}

#ifdef XFFI_INT8_DOT_AVX2
__attribute__((target("avx2"))) inline uint32_t HorizontalSum(__m256i v) {
  __m128i s =
      _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(s));
}

template <int R, int C>
__attribute__((target("avx2"))) void MicroAvx2(const int16_t* a,
                                               const int16_t* bt, int64_t kp,
                                               uint32_t* c, int64_t ldc) {
  __m256i acc[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) acc[i][j] = _mm256_setzero_si256();
  for (int64_t p = 0; p < kp; p += kDepthAlign) {
    __m256i b[C];
    for (int j = 0; j < C; ++j)
      b[j] =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bt + j * kp + p));
    for (int i = 0; i < R; ++i) {
      const __m256i av =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i * kp + p));
      for (int j = 0; j < C; ++j)
        acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(av, b[j]));
    }
  }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) c[i * ldc + j] = HorizontalSum(acc[i][j]);
}

template <int R>
void RowsAvx2(const int16_t* a, const int16_t* bt, int64_t n, int64_t kp,
              uint32_t* c, int64_t ldc) {
  int64_t j = 0;
  for (; j + kCols <= n; j += kCols)
    MicroAvx2<R, kCols>(a, bt + j * kp, kp, c + j, ldc);
  for (; j < n; ++j) MicroAvx2<R, 1>(a, bt + j * kp, kp, c + j, ldc);
}

void DotsAvx2(const int16_t* a, const int16_t* bt, int64_t rows, int64_t n,
              int64_t kp, uint32_t* c, int64_t ldc) {
  int64_t i = 0;
  for (; i + kRows <= rows; i += kRows)
    RowsAvx2<kRows>(a + i * kp, bt, n, kp, c + i * ldc, ldc);
  for (; i < rows; ++i) RowsAvx2<1>(a + i * kp, bt, n, kp, c + i * ldc, ldc);
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

}  // namespace

int64_t Int8DotPaddedDepth(int64_t k) {
  return (k + kDepthAlign - 1) / kDepthAlign * kDepthAlign;
}

void Int16RowDots(const int16_t* a, const int16_t* bt, int64_t m, int64_t n,
                  int64_t kp, uint32_t* c, ThreadPool* pool) {
  auto dots = DotsScalar;
#ifdef XFFI_INT8_DOT_AVX2
  if (HasAvx2()) dots = DotsAvx2;
#endif
  // Blocks of kRows rows; a multiply-add of 16 products costs about 0.1 ns.
  const int64_t blocks = (m + kRows - 1) / kRows;
  const double block_nanos =
      static_cast<double>(kRows * n) * static_cast<double>(kp) / 16 * 0.1;
  ParallelFor(pool, blocks, block_nanos, [&](int64_t begin, int64_t end) {
    const int64_t row = begin * kRows;
    const int64_t rows = std::min(m, end * kRows) - row;
    dots(a + row * kp, bt, rows, n, kp, c + row * n, n);
  });
}

}  // namespace xffi::cpu
