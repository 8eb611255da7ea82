// gather and scatter in the forms JAX emits: x[i], x[idx_array], x[i, j],
// vmapped indexing (batching dims), .at[].set / .at[].add, with XLA's
// clamping (gather) and skipping (scatter) of out-of-bounds indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernel_test_util.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using testing_util::BinaryRegion;
using testing_util::F32;
using testing_util::OpUnderTest;
using testing_util::RunOne;
using testing_util::S32;
using testing_util::TestRegionRunner;

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

Instruction* Gather(OpUnderTest& t, const Shape& operand, const Shape& indices,
                    const Shape& out, GatherDimensionNumbers dn,
                    std::vector<int64_t> slice_sizes) {
  auto* x = t.Param(operand);
  auto* i = t.Param(indices);
  auto* g = t.Op(Opcode::kGather, out, {x, i});
  g->gather_dimension_numbers = std::move(dn);
  g->gather_slice_sizes = std::move(slice_sizes);
  return g;
}

TEST(GatherKernel, RowByScalarIndexClamps) {
  // x[i] for x: f32[5,3]
  OpUnderTest t;
  GatherDimensionNumbers dn;
  dn.offset_dims = {0};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 0;
  auto* g = Gather(t, F32({5, 3}), S32({1}), F32({3}), dn, {1, 3});
  Literal x = Literal::FromVector<float>({5, 3}, Iota(15));
  Literal i = Literal::Vector<int32_t>({2});
  EXPECT_EQ(RunOne(*g, {&x, &i}).ToVector<float>(),
            (std::vector<float>{6, 7, 8}));
  Literal past = Literal::Vector<int32_t>({7});  // clamps to 4
  EXPECT_EQ(RunOne(*g, {&x, &past}).ToVector<float>(),
            (std::vector<float>{12, 13, 14}));
  Literal negative = Literal::Vector<int32_t>({-2});  // clamps to 0
  EXPECT_EQ(RunOne(*g, {&x, &negative}).ToVector<float>(),
            (std::vector<float>{0, 1, 2}));
}

TEST(GatherKernel, RowsByIndexArray) {
  // x[idx] for idx: s32[3] (JAX adds a trailing index vector dim).
  OpUnderTest t;
  GatherDimensionNumbers dn;
  dn.offset_dims = {1};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  auto* g = Gather(t, F32({5, 3}), S32({3, 1}), F32({3, 3}), dn, {1, 3});
  Literal x = Literal::FromVector<float>({5, 3}, Iota(15));
  Literal idx = Literal::FromVector<int32_t>({3, 1}, {4, 0, 4});
  EXPECT_EQ(RunOne(*g, {&x, &idx}).ToVector<float>(),
            (std::vector<float>{12, 13, 14, 0, 1, 2, 12, 13, 14}));
}

TEST(GatherKernel, PointsAndWindowsByIndexPairs) {
  Literal x = Literal::FromVector<float>({3, 4}, Iota(12));
  Literal idx = Literal::FromVector<int64_t>({2, 2}, {1, 2, 2, 3});
  {  // x[idx[:, 0], idx[:, 1]]
    OpUnderTest t;
    GatherDimensionNumbers dn;
    dn.collapsed_slice_dims = {0, 1};
    dn.start_index_map = {0, 1};
    dn.index_vector_dim = 1;
    auto* g = Gather(t, F32({3, 4}), Shape::Array(ElementType::kS64, {2, 2}),
                     F32({2}), dn, {1, 1});
    EXPECT_EQ(RunOne(*g, {&x, &idx}).ToVector<float>(),
              (std::vector<float>{6, 11}));
  }
  {  // windows of 2 along dim 1: the second start (2, 3) clamps to (2, 2)
    OpUnderTest t;
    GatherDimensionNumbers dn;
    dn.offset_dims = {1};
    dn.collapsed_slice_dims = {0};
    dn.start_index_map = {0, 1};
    dn.index_vector_dim = 1;
    auto* g = Gather(t, F32({3, 4}), Shape::Array(ElementType::kS64, {2, 2}),
                     F32({2, 2}), dn, {1, 2});
    EXPECT_EQ(RunOne(*g, {&x, &idx}).ToVector<float>(),
              (std::vector<float>{6, 7, 10, 11}));
  }
}

// Picks one element per row of a 2-D operand: dim 0 a batching dim, the
// start index along dim 1 (vmapped x[i], take_along_axis(axis=1)).
GatherDimensionNumbers RowPoints(int64_t index_vector_dim) {
  GatherDimensionNumbers dn;
  dn.collapsed_slice_dims = {1};
  dn.operand_batching_dims = {0};
  dn.start_indices_batching_dims = {0};
  dn.start_index_map = {1};
  dn.index_vector_dim = index_vector_dim;
  return dn;
}

TEST(GatherKernel, BatchingDims) {
  // vmap(lambda row, i: row[i])(x, idx): x f32[2,4], idx s32[2,1].
  OpUnderTest t;
  auto* g = Gather(t, F32({2, 4}), S32({2, 1}), F32({2}), RowPoints(1), {1, 1});
  Literal x = Literal::FromVector<float>({2, 4}, Iota(8));
  Literal idx = Literal::FromVector<int32_t>({2, 1}, {3, 1});
  EXPECT_EQ(RunOne(*g, {&x, &idx}).ToVector<float>(),
            (std::vector<float>{3, 5}));
}

TEST(GatherKernel, TakeAlongAxisOnThreadsClampsLikeOneThread) {
  // jnp.take_along_axis(x, idx, axis=1) as JAX lowers it: x f32[300, 500],
  // idx s32[300, 700, 1] (batching dim 0), some indices out of range.
  const int64_t rows = 300, cols = 500, picks = 700;
  OpUnderTest t;
  auto* g = Gather(t, F32({rows, cols}), S32({rows, picks, 1}),
                   F32({rows, picks}), RowPoints(2), {1, 1});
  Literal x = Literal::FromVector<float>({rows, cols}, Iota(rows * cols));
  std::vector<int32_t> idx(static_cast<size_t>(rows * picks));
  for (size_t e = 0; e < idx.size(); ++e)
    idx[e] = static_cast<int32_t>((e * 7919) % (cols + 40)) - 20;
  Literal li = Literal::FromVector<int32_t>({rows, picks, 1}, idx);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*g);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  for (int threads : {0, 1, 3}) {
    Literal out =
        testing_util::RunOnThreads(*kernel, {&x, &li}, g->shape(), threads);
    std::vector<float> got = out.ToVector<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < picks; ++j) {
        const int64_t i = std::clamp<int64_t>(
            idx[static_cast<size_t>(r * picks + j)], 0, cols - 1);
        ASSERT_EQ(got[static_cast<size_t>(r * picks + j)],
                  static_cast<float>(r * cols + i))
            << r << ", " << j << " threads " << threads;
      }
  }
}

TEST(GatherKernel, RejectsWrongSliceSizes) {
  OpUnderTest t;
  GatherDimensionNumbers dn;
  dn.offset_dims = {0};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  auto* g = Gather(t, F32({5, 3}), S32({1}), F32({3}), dn, {1});
  StatusOr<Kernel> k = MakeStructuralKernel(*g);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("(gather)"), std::string::npos);
  EXPECT_NE(k.status().message().find("slice_sizes has 1 entries"),
            std::string::npos)
      << k.status().message();
}

Instruction* Scatter(OpUnderTest& t, const Shape& operand, const Shape& indices,
                     const Shape& updates, ScatterDimensionNumbers dn,
                     Computation* region) {
  auto* x = t.Param(operand);
  auto* i = t.Param(indices);
  auto* u = t.Param(updates);
  auto* s = t.Op(Opcode::kScatter, operand, {x, i, u});
  s->scatter_dimension_numbers = std::move(dn);
  s->AppendCalledComputation(region);
  return s;
}

ScatterDimensionNumbers PointScatter(int64_t index_vector_dim) {
  ScatterDimensionNumbers dn;
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = index_vector_dim;
  return dn;
}

TEST(ScatterKernel, AtIndexSet) {
  // x.at[2].set(9)
  auto set = BinaryRegion(Opcode::kParameter, ElementType::kF32);
  OpUnderTest t;
  auto* s = Scatter(t, F32({5}), S32({1}), F32({}), PointScatter(0), set.get());
  Literal x = Literal::FromVector<float>({5}, Iota(5));
  Literal i = Literal::Vector<int32_t>({2});
  Literal v = Literal::Scalar<float>(9);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*s, {&x, &i, &v}, &runner).ToVector<float>(),
            (std::vector<float>{0, 1, 9, 3, 4}));
  Literal far = Literal::Vector<int32_t>({5});  // out of bounds: dropped
  EXPECT_EQ(RunOne(*s, {&x, &far, &v}, &runner).ToVector<float>(), Iota(5));
  EXPECT_EQ(runner.calls, 0);
}

TEST(ScatterKernel, AtIndexArrayAddAccumulatesDuplicatesAndSkipsOutOfBounds) {
  // x.at[idx].add(u) with idx = [1, 3, 1, 7, -1]
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  auto* s =
      Scatter(t, F32({5}), S32({5, 1}), F32({5}), PointScatter(1), add.get());
  Literal x = Literal::FromVector<float>({5}, Iota(5));
  Literal idx = Literal::FromVector<int32_t>({5, 1}, {1, 3, 1, 7, -1});
  Literal u = Literal::Vector<float>({10, 20, 30, 40, 50});
  EXPECT_EQ(RunOne(*s, {&x, &idx, &u}).ToVector<float>(),
            (std::vector<float>{0, 41, 2, 23, 4}));
}

TEST(ScatterKernel, ManyDuplicateIndicesAddInOrder) {
  // x.at[idx].add(u): 50000 int32 updates into 64 slots (every slot hit
  // many times), a tenth of them out of bounds.
  const int64_t n = 50000, slots = 64;
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kS32);
  OpUnderTest t;
  auto* s = Scatter(t, S32({slots}), S32({n, 1}), S32({n}), PointScatter(1),
                    add.get());
  std::vector<int32_t> idx(static_cast<size_t>(n)), u(static_cast<size_t>(n));
  std::vector<int32_t> want(static_cast<size_t>(slots), 5);
  for (int64_t e = 0; e < n; ++e) {
    idx[static_cast<size_t>(e)] =
        static_cast<int32_t>((e * 37) % (slots + slots / 10)) - slots / 20;
    u[static_cast<size_t>(e)] = static_cast<int32_t>(e % 1000) - 500;
    const int32_t i = idx[static_cast<size_t>(e)];
    if (i >= 0 && i < slots)
      want[static_cast<size_t>(i)] += u[static_cast<size_t>(e)];
  }
  Literal x = Literal::FromVector<int32_t>(
      {slots}, std::vector<int32_t>(static_cast<size_t>(slots), 5));
  Literal li = Literal::FromVector<int32_t>({n, 1}, idx);
  Literal lu = Literal::FromVector<int32_t>({n}, u);
  EXPECT_EQ(RunOne(*s, {&x, &li, &lu}).ToVector<int32_t>(), want);
}

TEST(ScatterKernel, RowWindowsSetAndSkipWindowsThatDoNotFit) {
  // x.at[idx].set(rows) for x f32[4,3]; then 2-row windows along dim 0.
  auto set = BinaryRegion(Opcode::kParameter, ElementType::kF32);
  {
    OpUnderTest t;
    ScatterDimensionNumbers dn = PointScatter(1);
    dn.update_window_dims = {1};
    auto* s = Scatter(t, F32({4, 3}), S32({2, 1}), F32({2, 3}), dn, set.get());
    Literal x = Literal::FromVector<float>({4, 3}, Iota(12));
    Literal idx = Literal::FromVector<int32_t>({2, 1}, {3, 0});
    Literal rows = Literal::FromVector<float>({2, 3}, {-1, -2, -3, -4, -5, -6});
    EXPECT_EQ(RunOne(*s, {&x, &idx, &rows}).ToVector<float>(),
              (std::vector<float>{-4, -5, -6, 3, 4, 5, 6, 7, 8, -1, -2, -3}));
  }
  {
    OpUnderTest t;
    ScatterDimensionNumbers dn;
    dn.update_window_dims = {1, 2};
    dn.scatter_dims_to_operand_dims = {0};
    dn.index_vector_dim = 1;
    auto* s =
        Scatter(t, F32({4, 3}), S32({2, 1}), F32({2, 2, 3}), dn, set.get());
    Literal x = Literal::FromVector<float>({4, 3}, Iota(12));
    // Start 3 leaves no room for 2 rows: that window is skipped whole.
    Literal idx = Literal::FromVector<int32_t>({2, 1}, {3, 1});
    Literal rows = Literal::FromVector<float>(
        {2, 2, 3}, {-1, -1, -1, -1, -1, -1, -7, -8, -9, -10, -11, -12});
    EXPECT_EQ(
        RunOne(*s, {&x, &idx, &rows}).ToVector<float>(),
        (std::vector<float>{0, 1, 2, -7, -8, -9, -10, -11, -12, 9, 10, 11}));
  }
}

// Two-row windows over a result big enough to split across the pool: each
// task owns a range of the result and walks every window, so duplicate
// starts, overlapping windows and skipped ones combine in the updates'
// order on any thread count, as a serial loop does.
TEST(ScatterKernel, OverlappingRowWindowsOnThreadsCombineInOrder) {
  const int64_t rows = 2048, cols = 96, starts = 600;
  std::vector<int32_t> idx(static_cast<size_t>(starts));
  for (int64_t k = 0; k < starts; ++k)
    idx[static_cast<size_t>(k)] =
        static_cast<int32_t>((k * 389) % (rows + 8)) - 4;
  std::vector<float> updates(static_cast<size_t>(starts * 2 * cols));
  for (size_t e = 0; e < updates.size(); ++e)
    updates[e] = static_cast<float>(e % 977) * 0.5f - 100.0f;
  for (Opcode combine : {Opcode::kParameter, Opcode::kAdd}) {
    auto region = BinaryRegion(combine, ElementType::kF32);
    OpUnderTest t;
    ScatterDimensionNumbers dn;
    dn.update_window_dims = {1, 2};
    dn.scatter_dims_to_operand_dims = {0};
    dn.index_vector_dim = 1;
    auto* s = Scatter(t, F32({rows, cols}), S32({starts, 1}),
                      F32({starts, 2, cols}), dn, region.get());
    std::vector<float> want = Iota(rows * cols);
    for (int64_t k = 0; k < starts; ++k) {
      const int64_t start = idx[static_cast<size_t>(k)];
      if (start < 0 || start > rows - 2) continue;  // skipped whole
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          float& o = want[static_cast<size_t>((start + r) * cols + c)];
          const float u = updates[static_cast<size_t>((k * 2 + r) * cols + c)];
          o = combine == Opcode::kAdd ? o + u : u;
        }
    }
    Literal x = Literal::FromVector<float>({rows, cols}, Iota(rows * cols));
    Literal li = Literal::FromVector<int32_t>({starts, 1}, idx);
    Literal lu = Literal::FromVector<float>({starts, 2, cols}, updates);
    StatusOr<Kernel> kernel = MakeStructuralKernel(*s);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    for (int threads : {0, 1, 2, 3})
      EXPECT_EQ(testing_util::RunOnThreads(*kernel, {&x, &li, &lu}, s->shape(),
                                           threads)
                    .ToVector<float>(),
                want)
          << "threads " << threads << ", add " << (combine == Opcode::kAdd);
  }
}

// Builds the kernel of `scatter` and expects `want` from it with no pool and
// on 1, 2 and 4 threads.
void ExpectOnThreads(const Instruction& scatter, std::vector<Literal*> operands,
                     const std::vector<float>& want, const std::string& what) {
  StatusOr<Kernel> kernel = MakeStructuralKernel(scatter);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  for (int threads : {0, 1, 2, 4})
    EXPECT_EQ(
        testing_util::RunOnThreads(*kernel, operands, scatter.shape(), threads)
            .ToVector<float>(),
        want)
        << what << ", threads " << threads;
}

// The serial meaning of a set of `window_rows`-row windows into a
// rows x cols operand: windows that do not fit are skipped, and a row set
// twice keeps the last update.
std::vector<float> SerialRowSet(int64_t rows, int64_t cols,
                                const std::vector<int32_t>& starts,
                                int64_t window_rows,
                                const std::vector<float>& updates) {
  std::vector<float> want = Iota(rows * cols);
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t start = starts[k];
    if (start < 0 || start > rows - window_rows) continue;
    std::copy_n(updates.begin() + static_cast<int64_t>(k) * window_rows * cols,
                window_rows * cols, want.begin() + start * cols);
  }
  return want;
}

// Sets of whole rows big enough to split across the pool: when no row is
// written twice each task copies its own rows, from the update owning it
// or else from the operand; when some row is (duplicates, also among
// several-row windows that overlap) the serial loop keeps the last writer.
// Either way every thread count gives the serial result.
TEST(ScatterKernel, RowSetsOnThreadsGiveTheSerialResult) {
  const int64_t rows = 2048, cols = 128;
  struct Case {
    const char* what;
    int64_t window_rows;
    bool unique_flag;
    std::vector<int32_t> starts;
  };
  std::vector<Case> cases;
  auto permuted = [&](int64_t count, int64_t step, int64_t shift) {
    std::vector<int32_t> v(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k)
      v[static_cast<size_t>(k)] =
          static_cast<int32_t>((k * step + shift) % rows);
    return v;
  };
  // 1001 distinct rows (step 389 is prime to 2048): odd update count.
  cases.push_back({"unique", 1, false, permuted(1001, 389, 7)});
  cases.push_back({"unique, flag given", 1, true, permuted(1001, 389, 7)});
  std::vector<int32_t> dup = permuted(1001, 389, 7);
  dup[900] = dup[3];  // one row written twice: the later update wins
  cases.push_back({"one duplicate", 1, false, dup});
  // unique_indices=true that lies: still the serial last writer.
  cases.push_back({"duplicate, flag given", 1, true, dup});
  // Out-of-bounds starts are skipped, so repeating them is no duplicate.
  std::vector<int32_t> far = permuted(777, 389, 11);
  for (size_t k = 0; k < far.size(); k += 5)
    far[k] = k % 10 == 0 ? -1 : static_cast<int32_t>(rows + 3);
  cases.push_back({"out of bounds skipped", 1, false, far});
  // Two-row windows at even starts are disjoint; at 0 and 1 they overlap.
  std::vector<int32_t> even(301);
  for (size_t k = 0; k < even.size(); ++k)
    even[k] = static_cast<int32_t>((k * 389 * 2) % rows);
  cases.push_back({"two-row windows", 2, false, even});
  std::vector<int32_t> odd = even;
  odd[150] = static_cast<int32_t>(odd[20] + 1);
  cases.push_back({"overlapping two-row windows", 2, false, odd});
  auto set = BinaryRegion(Opcode::kParameter, ElementType::kF32);
  for (const Case& c : cases) {
    const int64_t n = static_cast<int64_t>(c.starts.size());
    std::vector<float> updates(static_cast<size_t>(n * c.window_rows * cols));
    for (size_t e = 0; e < updates.size(); ++e)
      updates[e] = -1.0f - static_cast<float>(e % 4099);
    OpUnderTest t;
    ScatterDimensionNumbers dn;
    dn.scatter_dims_to_operand_dims = {0};
    dn.index_vector_dim = 1;
    Shape update_shape = F32({n, c.window_rows, cols});
    if (c.window_rows == 1) {  // .at[rows].set: the row dim is inserted
      dn.inserted_window_dims = {0};
      dn.update_window_dims = {1};
      update_shape = F32({n, cols});
    } else {
      dn.update_window_dims = {1, 2};
    }
    auto* s =
        Scatter(t, F32({rows, cols}), S32({n, 1}), update_shape, dn, set.get());
    s->unique_indices = c.unique_flag;
    Literal x = Literal::FromVector<float>({rows, cols}, Iota(rows * cols));
    Literal li = Literal::FromVector<int32_t>({n, 1}, c.starts);
    Literal lu = Literal::FromVector<float>(update_shape.dims(), updates);
    ExpectOnThreads(*s, {&x, &li, &lu},
                    SerialRowSet(rows, cols, c.starts, c.window_rows, updates),
                    c.what);
  }
}

// Rows of several dims (x f32[R, 4, 8] .at[idx].set(u f32[n, 4, 8])), and
// rows under a batching dim, whose slots interleave with the batch.
TEST(ScatterKernel, RowSetsOfSeveralDimsAndBatchesOnThreads) {
  const int64_t rows = 1500, a = 4, b = 8, n = 333;
  auto set = BinaryRegion(Opcode::kParameter, ElementType::kF32);
  {
    OpUnderTest t;
    ScatterDimensionNumbers dn;
    dn.inserted_window_dims = {0};
    dn.update_window_dims = {1, 2};
    dn.scatter_dims_to_operand_dims = {0};
    dn.index_vector_dim = 1;
    auto* s = Scatter(t, F32({rows, a, b}), S32({n, 1}), F32({n, a, b}), dn,
                      set.get());
    std::vector<int32_t> idx(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      idx[static_cast<size_t>(k)] = static_cast<int32_t>((k * 7) % rows);
    std::vector<float> u(static_cast<size_t>(n * a * b));
    for (size_t e = 0; e < u.size(); ++e) u[e] = -static_cast<float>(e);
    Literal x = Literal::FromVector<float>({rows, a, b}, Iota(rows * a * b));
    Literal li = Literal::FromVector<int32_t>({n, 1}, idx);
    Literal lu = Literal::FromVector<float>({n, a, b}, u);
    ExpectOnThreads(*s, {&x, &li, &lu}, SerialRowSet(rows, a * b, idx, 1, u),
                    "rows of two dims");
  }
  {
    // vmap over 3 batches of x f32[3, R, 32]: batch j sets row idx[j, k].
    const int64_t batches = 3, cols = 32, per = 101;
    OpUnderTest t;
    ScatterDimensionNumbers dn;
    dn.inserted_window_dims = {1};
    dn.input_batching_dims = {0};
    dn.scatter_indices_batching_dims = {0};
    dn.update_window_dims = {2};
    dn.scatter_dims_to_operand_dims = {1};
    dn.index_vector_dim = 2;
    auto* s = Scatter(t, F32({batches, rows, cols}), S32({batches, per, 1}),
                      F32({batches, per, cols}), dn, set.get());
    std::vector<int32_t> idx(static_cast<size_t>(batches * per));
    for (size_t k = 0; k < idx.size(); ++k)  // the same rows in each batch
      idx[k] = static_cast<int32_t>(((k % per) * 13 + 5) % rows);
    std::vector<float> u(static_cast<size_t>(batches * per * cols));
    for (size_t e = 0; e < u.size(); ++e) u[e] = -static_cast<float>(e);
    std::vector<float> want = Iota(batches * rows * cols);
    for (int64_t j = 0; j < batches; ++j)
      for (int64_t k = 0; k < per; ++k)
        std::copy_n(
            u.begin() + (j * per + k) * cols, cols,
            want.begin() +
                (j * rows + idx[static_cast<size_t>(j * per + k)]) * cols);
    Literal x = Literal::FromVector<float>({batches, rows, cols},
                                           Iota(batches * rows * cols));
    Literal li = Literal::FromVector<int32_t>({batches, per, 1}, idx);
    Literal lu = Literal::FromVector<float>({batches, per, cols}, u);
    ExpectOnThreads(*s, {&x, &li, &lu}, want, "batched");
  }
}

TEST(ScatterKernel, BatchingDims) {
  // vmap(lambda row, i, v: row.at[i].add(v)): x f32[2,4], idx s32[2,1].
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kS32);
  OpUnderTest t;
  ScatterDimensionNumbers dn;
  dn.inserted_window_dims = {1};
  dn.input_batching_dims = {0};
  dn.scatter_indices_batching_dims = {0};
  dn.scatter_dims_to_operand_dims = {1};
  dn.index_vector_dim = 1;
  auto* s = Scatter(t, S32({2, 4}), S32({2, 1}), S32({2}), dn, add.get());
  Literal x = Literal::FromVector<int32_t>({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  Literal idx = Literal::FromVector<int32_t>({2, 1}, {2, 0});
  Literal u = Literal::Vector<int32_t>({100, 200});
  EXPECT_EQ(RunOne(*s, {&x, &idx, &u}).ToVector<int32_t>(),
            (std::vector<int32_t>{0, 1, 102, 3, 204, 5, 6, 7}));
}

TEST(ScatterKernel, SubtractRegionAsScalarProgram) {
  // A combiner no typed fast path covers: old - update.
  auto sub = BinaryRegion(Opcode::kSubtract, ElementType::kF32);
  OpUnderTest t;
  auto* s =
      Scatter(t, F32({4}), S32({3, 1}), F32({3}), PointScatter(1), sub.get());
  Literal x = Literal::FromVector<float>({4}, {10, 10, 10, 10});
  Literal idx = Literal::FromVector<int32_t>({3, 1}, {0, 0, 3});
  Literal u = Literal::Vector<float>({1, 2, 4});
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*s, {&x, &idx, &u}, &runner).ToVector<float>(),
            (std::vector<float>{7, 10, 10, 6}));
  EXPECT_EQ(runner.calls, 0);
}

TEST(ScatterKernel, RegionThroughTheRunner) {
  // fmod(old, update): fmod(fmod(10, 4), 3) = 2 at 0; fmod(10, 4) = 2 at 3.
  auto rem = BinaryRegion(Opcode::kRemainder, ElementType::kF32);
  OpUnderTest t;
  auto* s =
      Scatter(t, F32({4}), S32({3, 1}), F32({3}), PointScatter(1), rem.get());
  Literal x = Literal::FromVector<float>({4}, {10, 10, 10, 10});
  Literal idx = Literal::FromVector<int32_t>({3, 1}, {0, 0, 3});
  Literal u = Literal::Vector<float>({4, 3, 4});
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*s, {&x, &idx, &u}, &runner).ToVector<float>(),
            (std::vector<float>{2, 10, 10, 2}));
  EXPECT_EQ(runner.calls, 3);
}

// x.at[idx].mul/min/max(u) with idx = [1, 3, 1, 4]: duplicates combine in
// order, index 4 is out of bounds for x of 4 elements and is dropped.
template <typename T>
void CheckMulMinMax(ElementType type) {
  SCOPED_TRACE(std::string(ElementTypeName(type)));
  const Shape shape = Shape::Array(type, {4});
  const Shape updates = Shape::Array(type, {4});
  Literal x = Literal::FromVector<T>({4}, {5, 6, 7, 8});
  Literal idx = Literal::FromVector<int32_t>({4, 1}, {1, 3, 1, 4});
  Literal u = Literal::FromVector<T>({4}, {2, 9, 3, 1});
  struct Case {
    Opcode op;
    std::vector<T> expected;
  };
  for (const Case& c : {Case{Opcode::kMultiply, {5, 36, 7, 72}},
                        Case{Opcode::kMinimum, {5, 2, 7, 8}},
                        Case{Opcode::kMaximum, {5, 6, 7, 9}}}) {
    auto region = BinaryRegion(c.op, type);
    OpUnderTest t;
    auto* s =
        Scatter(t, shape, S32({4, 1}), updates, PointScatter(1), region.get());
    TestRegionRunner runner;
    EXPECT_EQ(RunOne(*s, {&x, &idx, &u}, &runner).template ToVector<T>(),
              c.expected)
        << OpcodeName(c.op);
    EXPECT_EQ(runner.calls, 0);
  }
}

TEST(ScatterKernel, AtIndexMulMinMaxAcrossTypes) {
  CheckMulMinMax<float>(ElementType::kF32);
  CheckMulMinMax<double>(ElementType::kF64);
  CheckMulMinMax<int8_t>(ElementType::kS8);
  CheckMulMinMax<int32_t>(ElementType::kS32);
  CheckMulMinMax<uint32_t>(ElementType::kU32);
  CheckMulMinMax<int64_t>(ElementType::kS64);
}

TEST(ScatterKernel, UniqueAndSortedIndexFlagsAreAccepted) {
  // x.at[jnp.array([0, 2])].add(u, unique_indices=True,
  // indices_are_sorted=True): the flags are promises that change nothing.
  for (auto [sorted, unique] : {std::pair{true, true}, std::pair{true, false},
                                std::pair{false, true}}) {
    for (Opcode op : {Opcode::kAdd, Opcode::kParameter}) {
      auto region = BinaryRegion(op, ElementType::kF32);
      OpUnderTest t;
      auto* s = Scatter(t, F32({3}), S32({2, 1}), F32({2}), PointScatter(1),
                        region.get());
      s->indices_are_sorted = sorted;
      s->unique_indices = unique;
      Literal x = Literal::Vector<float>({1, 1, 1});
      Literal idx = Literal::FromVector<int32_t>({2, 1}, {0, 2});
      Literal u = Literal::Vector<float>({10, 20});
      EXPECT_EQ(RunOne(*s, {&x, &idx, &u}).ToVector<float>(),
                op == Opcode::kAdd ? (std::vector<float>{11, 1, 21})
                                   : (std::vector<float>{10, 1, 20}));
    }
  }
}

TEST(ScatterKernel, TwoOperandsWithTupleRegion) {
  // A variadic scatter: (values, counts).at[idx].add((u, 1)) in one op.
  auto region = std::make_unique<Computation>("region");
  {
    Shape f = F32({}), i = S32({});
    std::vector<Instruction*> p;
    for (const Shape* s : {&f, &i, &f, &i}) {
      p.push_back(region->AddInstruction(Opcode::kParameter, *s, {},
                                         "p" + std::to_string(p.size())));
      p.back()->parameter_number = static_cast<int64_t>(p.size() - 1);
    }
    auto* sum = region->AddInstruction(Opcode::kAdd, f, {p[0], p[2]}, "sum");
    auto* count =
        region->AddInstruction(Opcode::kAdd, i, {p[1], p[3]}, "count");
    region->set_root(region->AddInstruction(
        Opcode::kTuple, Shape::Tuple({f, i}), {sum, count}, "root"));
  }
  OpUnderTest t;
  auto* values = t.Param(F32({3}));
  auto* counts = t.Param(S32({3}));
  auto* idx = t.Param(S32({4, 1}));
  auto* uv = t.Param(F32({4}));
  auto* uc = t.Param(S32({4}));
  auto* s = t.Op(Opcode::kScatter, Shape::Tuple({F32({3}), S32({3})}),
                 {values, counts, idx, uv, uc});
  s->scatter_dimension_numbers = PointScatter(1);
  s->AppendCalledComputation(region.get());
  StatusOr<Kernel> kernel = MakeStructuralKernel(*s);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal v = Literal::Vector<float>({0, 0, 0});
  Literal c = Literal::Vector<int32_t>({0, 0, 0});
  Literal i = Literal::FromVector<int32_t>({4, 1}, {2, 0, 2, 2});
  Literal u = Literal::Vector<float>({1.5f, 4, 2, 0.5f});
  Literal ones = Literal::Vector<int32_t>({1, 1, 1, 1});
  Literal v_out(F32({3})), c_out(S32({3}));
  TestRegionRunner runner;
  ASSERT_TRUE(testing_util::RunKernel(*kernel, {&v, &c, &i, &u, &ones},
                                      {&v_out, &c_out}, &runner)
                  .ok());
  EXPECT_EQ(v_out.ToVector<float>(), (std::vector<float>{4, 0, 4}));
  EXPECT_EQ(c_out.ToVector<int32_t>(), (std::vector<int32_t>{1, 0, 3}));
  EXPECT_EQ(runner.calls, 0);
}

}  // namespace
}  // namespace xffi::cpu
