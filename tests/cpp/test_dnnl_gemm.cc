// oneDNN's GEMMs as the CPU kernels call them (cpu/dnnl_gemm.h): row-major
// f32 products with either operand transposed against a double-precision
// loop, s8/u8 x s8 products at the byte extremes exactly and wrapping past
// INT32_MAX, and the switch that leaves every product to the other paths.
// In a build without oneDNN every call reports that it computed nothing
// (test_dnnl_gemm.cmake also compiles both oneDNN sources as such a build
// does).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cpu/dnnl_gemm.h"

namespace xffi::cpu {
namespace {

uint32_t Next(uint32_t& x) {
  x = x * 1664525u + 1013904223u;
  return x;
}

TEST(DnnlGemm, SgemmEveryTransposeAgainstALoop) {
  if (!HaveDnnl()) GTEST_SKIP() << "no oneDNN in this build or XFFI_DNNL=0";
  const int64_t m = 37, n = 53, k = 71;
  std::vector<float> a(m * k), b(k * n);
  uint32_t x = 1;
  for (float& e : a) e = static_cast<float>(Next(x) >> 20) / 4096.0f - 0.5f;
  for (float& e : b) e = static_cast<float>(Next(x) >> 20) / 4096.0f - 0.5f;
  for (bool a_t : {false, true})
    for (bool b_t : {false, true}) {
      // a_t: a stored [k, m]; b_t: b stored [n, k] (same numbers).
      auto a_at = [&](int64_t i, int64_t p) {
        return a_t ? a[p * m + i] : a[i * k + p];
      };
      auto b_at = [&](int64_t p, int64_t j) {
        return b_t ? b[j * k + p] : b[p * n + j];
      };
      // A leading dimension past the row, so strides are honoured.
      const int64_t ldc = n + 3;
      std::vector<float> c(m * ldc, -7.0f);
      ASSERT_TRUE(DnnlSgemm(a_t, b_t, m, n, k, a.data(), a_t ? m : k, b.data(),
                            b_t ? k : n, c.data(), ldc));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = 0;
          for (int64_t p = 0; p < k; ++p)
            want += static_cast<double>(a_at(i, p)) * b_at(p, j);
          ASSERT_NEAR(c[i * ldc + j], want, 1e-4) << i << ", " << j;
        }
      for (int64_t i = 0; i < m; ++i)  // the gap after each row untouched
        ASSERT_EQ(c[i * ldc + n], -7.0f);
    }
}

TEST(DnnlGemm, ByteProductsAreExactAndWrap) {
  if (!DnnlGemmS8Exact()) GTEST_SKIP() << "no oneDNN VNNI GEMM here";
  // 140000 products of -128 * -128: 2293760000, past INT32_MAX; of 255 *
  // -128 (u8): -4569600000, past INT32_MIN.
  const int64_t m = 3, n = 5, k = 140000;
  std::vector<uint8_t> a(m * k);
  std::vector<int8_t> b(n * k);  // stored [n, k]
  uint32_t x = 3;
  for (bool a_signed : {true, false}) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        a[i * k + p] = i == 2 ? static_cast<uint8_t>(Next(x) >> 24)
                              : (a_signed ? 0x80 : 0xff);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        b[j * k + p] = j == 4 ? static_cast<int8_t>(Next(x) >> 24)
                              : static_cast<int8_t>(j % 2 ? 127 : -128);
    std::vector<int32_t> c(m * n);
    ASSERT_TRUE(DnnlGemmS8(a_signed, true, m, n, k, a.data(), k, b.data(), k,
                           c.data(), n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint32_t want = 0;
        for (int64_t p = 0; p < k; ++p) {
          const int32_t av = a_signed ? static_cast<int8_t>(a[i * k + p])
                                      : static_cast<int32_t>(a[i * k + p]);
          want += static_cast<uint32_t>(av * b[j * k + p]);
        }
        ASSERT_EQ(c[i * n + j], static_cast<int32_t>(want))
            << (a_signed ? "s8" : "u8") << " " << i << ", " << j;
      }
  }
}

TEST(DnnlGemm, SwitchedOffComputesNothing) {
  const bool had = HaveDnnl();
  SetDnnlEnabled(false);
  EXPECT_FALSE(HaveDnnl());
  EXPECT_FALSE(DnnlGemmS8Exact());
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4, -1.0f);
  EXPECT_FALSE(
      DnnlSgemm(false, false, 2, 2, 2, a.data(), 2, b.data(), 2, c.data(), 2));
  EXPECT_EQ(c, std::vector<float>(4, -1.0f));
  std::vector<uint8_t> ab(4, 1);
  std::vector<int8_t> bb(4, 1);
  std::vector<int32_t> cb(4, -1);
  EXPECT_FALSE(DnnlGemmS8(true, false, 2, 2, 2, ab.data(), 2, bb.data(), 2,
                          cb.data(), 2));
  EXPECT_EQ(cb, std::vector<int32_t>(4, -1));
  SetDnnlEnabled(had);
  EXPECT_EQ(HaveDnnl(), had);
}

}  // namespace
}  // namespace xffi::cpu
