// How dot_general's library products are cut into tasks
// (cpu/gemm_blocking.h): the cuts the workloads' shapes get, the invariants
// every cut keeps, and that a product cut either way has the same values
// on one thread and on four.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/dnnl_gemm.h"
#include "cpu/gemm_blocking.h"
#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks cover the result exactly once, report their own counts and (the
// chosen ones) keep the alignment.
void ExpectValid(const GemmBlocks& b, int64_t m, int64_t n,
                 bool aligned = true) {
  ASSERT_GE(b.rows, 1);
  ASSERT_GE(b.cols, 1);
  EXPECT_LE(b.rows, m);
  EXPECT_LE(b.cols, n);
  EXPECT_EQ(b.row_blocks, CeilDiv(m, b.rows));
  EXPECT_EQ(b.col_blocks, CeilDiv(n, b.cols));
  if (!aligned) return;
  if (b.rows != m) {
    EXPECT_EQ(b.rows % 16, 0) << b.rows;
  }
  if (b.cols != n) {
    EXPECT_EQ(b.cols % 64, 0) << b.cols;
  }
}

// The cut in full: block sizes and counts.
void ExpectBlocks(const GemmBlocks& b, int64_t rows, int64_t cols,
                  int64_t row_blocks, int64_t col_blocks) {
  EXPECT_EQ(b.rows, rows);
  EXPECT_EQ(b.cols, cols);
  EXPECT_EQ(b.row_blocks, row_blocks);
  EXPECT_EQ(b.col_blocks, col_blocks);
}

TEST(GemmBlocking, MlpProductsReadTheLargeOperandOnce) {
  // mlp_gelu's first product: b (1024 x 2048, 8 MB) is read by one row
  // block instead of four; a (2 MB) four times.
  ExpectBlocks(ChooseGemmBlocks(1, 512, 1024, 2048), 512, 512, 1, 4);
  // The second: a [512, 2048] and b [2048, 1024] read equally often
  // either way (2 x 2 or 1 x 4); the tie goes to the wider columns.
  ExpectBlocks(ChooseGemmBlocks(1, 512, 2048, 1024), 256, 512, 2, 2);
  // The rule it replaced cut both into four blocks of 128 rows.
  ExpectBlocks(RowGemmBlocks(1, 512, 2048), 128, 2048, 4, 1);
}

TEST(GemmBlocking, TallProductsSplitTheRows) {
  // vit_encoder_infer's [2048, 192] x [192, 768]: b is small, a is not;
  // a is read once.
  ExpectBlocks(ChooseGemmBlocks(1, 2048, 192, 768), 512, 768, 4, 1);
}

TEST(GemmBlocking, BatchesAreTasksAlready) {
  // Attention's 32 products of [128, 64] x [64, 128]: whole matrices.
  ExpectBlocks(ChooseGemmBlocks(32, 128, 64, 128), 128, 128, 1, 1);
  // Two members of a product worth four tasks: each cut in two.
  GemmBlocks two = ChooseGemmBlocks(2, 512, 1024, 512);
  ExpectValid(two, 512, 512);
  EXPECT_EQ(two.row_blocks * two.col_blocks, 2);
}

TEST(GemmBlocking, SmallProductsStayWhole) {
  // An RNN cell's [32, 256] x [256, 256]: 2^21 multiply-adds, two tasks at
  // most; columns the only dimension with room.
  GemmBlocks cell = ChooseGemmBlocks(1, 32, 256, 256);
  ExpectValid(cell, 32, 256);
  EXPECT_LE(cell.row_blocks * cell.col_blocks, 2);
  ExpectBlocks(ChooseGemmBlocks(1, 16, 16, 64), 16, 64, 1, 1);
  // Rows and columns too few to cut four ways: the most the minimums
  // allow (one row block of 8, two column blocks of 64).
  ExpectBlocks(ChooseGemmBlocks(1, 8, 65536, 128), 8, 64, 1, 2);
}

TEST(GemmBlocking, LargeProductsGetMoreTasks) {
  // 2^36 multiply-adds: one task per 2^29 of them, 128.
  GemmBlocks b = ChooseGemmBlocks(1, 4096, 4096, 4096);
  ExpectValid(b, 4096, 4096);
  EXPECT_GE(b.row_blocks * b.col_blocks, 128);
  EXPECT_LE(b.row_blocks * b.col_blocks, 144);
  // Square operands: cut about as finely both ways.
  EXPECT_LE(b.row_blocks, 2 * b.col_blocks);
  EXPECT_LE(b.col_blocks, 2 * b.row_blocks);
}

TEST(GemmBlocking, EveryShapeGetsAValidCut) {
  for (int64_t batch : {1, 3, 16})
    for (int64_t m : {1, 15, 16, 17, 100, 512, 1000, 3000})
      for (int64_t n : {1, 63, 64, 65, 300, 2048})
        for (int64_t k : {1, 64, 4096}) {
          SCOPED_TRACE(testing::Message()
                       << batch << " x " << m << " x " << k << " x " << n);
          ExpectValid(ChooseGemmBlocks(batch, m, k, n), m, n);
          ExpectValid(RowGemmBlocks(batch, m, n), m, n, /*aligned=*/false);
        }
}

// Sets which cut dot kernels take for one scope.
class WithCut {
 public:
  explicit WithCut(bool chosen) : had_(ChosenGemmBlocksEnabled()) {
    SetChosenGemmBlocksEnabled(chosen);
  }
  ~WithCut() { SetChosenGemmBlocksEnabled(had_); }
  WithCut(const WithCut&) = delete;
  WithCut& operator=(const WithCut&) = delete;

 private:
  bool had_;
};

// A product both cuts split (the chosen one into row and column blocks,
// the older into 128-row blocks), run on no pool and on pools of one and
// three threads: within a cut the same bits, since the blocks depend on
// the shapes only; across the cuts the same values within float rounding
// (a library's sums may depend on the block it is given); and the
// product's values against a double loop.
TEST(GemmBlocking, ResultsDoNotDependOnThreads) {
  const int64_t m = 1024, k = 512, n = 1536;
  const GemmBlocks cut = ChooseGemmBlocks(1, m, k, n);
  ASSERT_GT(cut.row_blocks, 1);
  ASSERT_GT(cut.col_blocks, 1);
  std::vector<float> a(m * k), b(k * n);
  uint32_t x = 7;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return static_cast<float>(x >> 9) / 8388608.0f - 0.5f;
  };
  for (float& e : a) e = next();
  for (float& e : b) e = next();
  testing_util::OpUnderTest t;
  auto* lhs = t.Param(testing_util::F32({m, k}));
  auto* rhs = t.Param(testing_util::F32({k, n}));
  auto* d = t.Op(Opcode::kDot, testing_util::F32({m, n}), {lhs, rhs});
  d->dot_dimension_numbers = {{}, {}, {1}, {0}};
  Literal la = Literal::FromVector<float>({m, k}, a);
  Literal lb = Literal::FromVector<float>({k, n}, b);
  std::vector<std::vector<float>> per_cut;
  for (bool chosen : {true, false}) {
    SCOPED_TRACE(chosen ? "chosen cut" : "128-row cut");
    WithCut with(chosen);
    StatusOr<Kernel> kernel = MakeStructuralKernel(*d);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    std::vector<float> first;
    for (int threads : {0, 1, 3}) {
      std::vector<float> got =
          testing_util::RunOnThreads(*kernel, {&la, &lb}, d->shape(), threads)
              .ToVector<float>();
      if (first.empty()) {
        first = std::move(got);
        continue;
      }
      EXPECT_EQ(
          std::memcmp(got.data(), first.data(), got.size() * sizeof(float)), 0)
          << "threads " << threads;
    }
    // Elements from the corner blocks and the middle.
    for (int64_t i : {int64_t{0}, int64_t{511}, int64_t{1023}})
      for (int64_t j : {int64_t{0}, int64_t{700}, int64_t{1535}}) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p)
          want += static_cast<double>(a[i * k + p]) * b[p * n + j];
        EXPECT_NEAR(first[i * n + j], want, 1e-3) << i << ", " << j;
      }
    per_cut.push_back(std::move(first));
  }
  for (size_t i = 0; i < per_cut[0].size(); ++i)
    ASSERT_NEAR(per_cut[0][i], per_cut[1][i], 1e-4) << "element " << i;
}

// 8-bit products through oneDNN's s8 GEMM: 256-row blocks, or 64 with
// XFFI_GEMM_BLOCKS=rows. Their sums are exact, so both cuts and every
// thread count give the exact product.
TEST(GemmBlocking, ByteProductsAreExactUnderBothCuts) {
  if (!DnnlGemmS8Exact()) GTEST_SKIP() << "no oneDNN VNNI GEMM here";
  const int64_t m = 600, k = 300, n = 200;
  std::vector<int8_t> a(m * k), b(k * n);
  uint32_t x = 3;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    return static_cast<int8_t>(x >> 24);
  };
  for (int8_t& e : a) e = next();
  for (int8_t& e : b) e = next();
  std::vector<int32_t> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      want[i * n + j] = sum;
    }
  testing_util::OpUnderTest t;
  auto* lhs = t.Param(Shape::Array(ElementType::kS8, {m, k}));
  auto* rhs = t.Param(Shape::Array(ElementType::kS8, {k, n}));
  auto* d =
      t.Op(Opcode::kDot, Shape::Array(ElementType::kS32, {m, n}), {lhs, rhs});
  d->dot_dimension_numbers = {{}, {}, {1}, {0}};
  Literal la = Literal::FromVector<int8_t>({m, k}, a);
  Literal lb = Literal::FromVector<int8_t>({k, n}, b);
  for (bool chosen : {true, false}) {
    WithCut with(chosen);
    StatusOr<Kernel> kernel = MakeStructuralKernel(*d);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    for (int threads : {0, 3})
      EXPECT_EQ(
          testing_util::RunOnThreads(*kernel, {&la, &lb}, d->shape(), threads)
              .ToVector<int32_t>(),
          want)
          << (chosen ? "chosen cut" : "64-row cut") << ", threads " << threads;
  }
}

}  // namespace
}  // namespace xffi::cpu
