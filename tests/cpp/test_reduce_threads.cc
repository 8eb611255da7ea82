// Reductions outside fusions on the intra-op pool, and the argmax/argmin
// kernel (cpu/arg_reduce.h): results against NumPy's argmax/argmin rule
// and against the region interpreted element by element, for every axis,
// NaNs, ties and signed zeros; the same with 1 to 4 threads (bit-identical,
// integer and float); float sums to one element identical for any thread
// count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/arg_reduce.h"
#include "cpu/region_util.h"
#include "kernel_test_util.h"
#include "sanitized_build.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using testing_util::BinaryRegion;
using testing_util::OpUnderTest;
using testing_util::RunKernel;
using testing_util::TestRegionRunner;

struct RegionOptions {
  ElementType value = ElementType::kF32;
  ElementType index = ElementType::kS32;
  bool greater = true;
  bool swap_operands = false;  // or/and/compare operands in the other order
  bool tie_break = true;       // without it: not jnp's region
};

// The region jnp.argmax / jnp.argmin lower to (see cpu/arg_reduce.h).
std::unique_ptr<Computation> JaxArgRegion(const RegionOptions& o) {
  auto c = std::make_unique<Computation>("argminmax");
  Shape v = Shape::Scalar(o.value), i = Shape::Scalar(o.index);
  Shape pred = Shape::Scalar(ElementType::kPred);
  Instruction* p[4];
  const Shape* shapes[4] = {&v, &i, &v, &i};
  for (int k = 0; k < 4; ++k) {
    p[k] = c->AddInstruction(Opcode::kParameter, *shapes[k], {},
                             "p" + std::to_string(k));
    p[k]->parameter_number = k;
  }
  auto compare = [&](Instruction* a, Instruction* b, ComparisonDirection d) {
    auto* r = c->AddInstruction(Opcode::kCompare, pred, {a, b}, "cmp");
    r->comparison_direction = d;
    return r;
  };
  auto binary = [&](Opcode op, Instruction* a, Instruction* b) {
    return c->AddInstruction(
        op, pred, o.swap_operands ? std::vector{b, a} : std::vector{a, b},
        "logic");
  };
  const ComparisonDirection order =
      o.greater ? ComparisonDirection::kGt : ComparisonDirection::kLt;
  // compare(acc, x, GT) written as compare(x, acc, LT) when swapped.
  Instruction* ordered = o.swap_operands
                             ? compare(p[2], p[0],
                                       o.greater ? ComparisonDirection::kLt
                                                 : ComparisonDirection::kGt)
                             : compare(p[0], p[2], order);
  Instruction* nan = compare(p[0], p[0], ComparisonDirection::kNe);
  Instruction* pick = binary(Opcode::kOr, ordered, nan);
  Instruction* pick_index = pick;
  if (o.tie_break) {
    Instruction* eq = compare(p[0], p[2], ComparisonDirection::kEq);
    Instruction* lt = compare(p[1], p[3], ComparisonDirection::kLt);
    pick_index = binary(Opcode::kOr, pick, binary(Opcode::kAnd, eq, lt));
  }
  auto* value = c->AddInstruction(Opcode::kSelect, v, {pick, p[0], p[2]}, "v");
  auto* index =
      c->AddInstruction(Opcode::kSelect, i, {pick_index, p[1], p[3]}, "i");
  c->set_root(c->AddInstruction(Opcode::kTuple, Shape::Tuple({v, i}),
                                {value, index}, "t"));
  return c;
}

TEST(ArgReduceRegion, MatchesJaxsRegionInEitherOperandOrder) {
  for (bool greater : {true, false})
    for (bool swap : {false, true}) {
      RegionOptions o;
      o.greater = greater;
      o.swap_operands = swap;
      auto region = JaxArgRegion(o);
      std::optional<ArgReduceRegion> m = MatchArgReduceRegion(region.get());
      ASSERT_TRUE(m.has_value()) << greater << swap;
      EXPECT_EQ(m->greater, greater);
      EXPECT_TRUE(m->accumulator_first);
      EXPECT_TRUE(m->nan_wins);
    }
  RegionOptions no_ties;
  no_ties.tie_break = false;
  EXPECT_FALSE(MatchArgReduceRegion(JaxArgRegion(no_ties).get()).has_value());
  RegionOptions unsigned_index;
  unsigned_index.index = ElementType::kU32;
  EXPECT_FALSE(
      MatchArgReduceRegion(JaxArgRegion(unsigned_index).get()).has_value());
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  EXPECT_FALSE(MatchArgReduceRegion(add.get()).has_value());
}

// Values with ties, signed zeros and (for floats) NaNs.
template <typename T>
std::vector<T> TrickyValues(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) {
    const uint32_t r = rng() % 100;
    if constexpr (std::is_floating_point_v<T>) {
      if (r < 2)
        x = std::numeric_limits<T>::quiet_NaN();
      else if (r < 6)
        x = r % 2 ? T(0) : -T(0);
      else
        x = static_cast<T>(static_cast<int>(rng() % 21) - 10);  // many ties
    } else {
      x = static_cast<T>(rng() % 13);
    }
  }
  return v;
}

// The reduce of (values, iota along `axis`) over `axis` with the jnp
// region, run by the kernel (on `pool`) and by interpreting the region
// element by element in row-major order.
template <typename T>
void CheckArgReduce(ElementType type, std::vector<int64_t> dims, int64_t axis,
                    bool greater, uint32_t seed) {
  SCOPED_TRACE(std::string(ElementTypeName(type)) + " axis " +
               std::to_string(axis) + (greater ? " max" : " min"));
  RegionOptions o;
  o.value = type;
  o.greater = greater;
  auto region = JaxArgRegion(o);
  Shape in = Shape::Array(type, dims);
  Shape idx_shape = Shape::Array(ElementType::kS32, dims);
  std::vector<int64_t> kept;
  for (size_t d = 0; d < dims.size(); ++d)
    if (static_cast<int64_t>(d) != axis) kept.push_back(dims[d]);
  Shape out_v = Shape::Array(type, kept);
  Shape out_i = Shape::Array(ElementType::kS32, kept);
  OpUnderTest t;
  auto* r = t.Op(Opcode::kReduce, Shape::Tuple({out_v, out_i}),
                 {t.Param(in), t.Param(idx_shape), t.Param(Shape::Scalar(type)),
                  t.Param(Shape::Scalar(ElementType::kS32))});
  r->dimensions = {axis};
  r->AppendCalledComputation(region.get());

  const int64_t n = in.num_elements();
  std::vector<T> values = TrickyValues<T>(n, seed);
  std::vector<int32_t> iota(static_cast<size_t>(n));
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  for (int64_t e = 0; e < n; ++e)
    iota[static_cast<size_t>(e)] = static_cast<int32_t>(
        (e / strides[static_cast<size_t>(axis)]) % dims[axis]);
  Literal x = Literal::FromVector<T>(dims, values);
  Literal ix = Literal::FromVector<int32_t>(dims, iota);
  T init = greater ? std::numeric_limits<T>::lowest()
                   : std::numeric_limits<T>::max();
  if constexpr (std::is_floating_point_v<T>)
    init = greater ? -std::numeric_limits<T>::infinity()
                   : std::numeric_limits<T>::infinity();
  Literal v0 = Literal::Scalar<T>(init);
  Literal i0 = Literal::Scalar<int32_t>(0);

  // Reference: the region interpreted per element, in row-major order.
  const int64_t m = out_v.num_elements();
  std::vector<T> want_v(static_cast<size_t>(m), init);
  std::vector<int32_t> want_i(static_cast<size_t>(m), 0);
  TestRegionRunner runner;
  ScalarCombiner combiner(region.get(), {type, ElementType::kS32});
  for (int64_t e = 0; e < n; ++e) {
    int64_t o = 0, scale = 1;
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      const int64_t coord = (e / strides[static_cast<size_t>(d)]) % dims[d];
      if (d == axis) continue;
      o += coord * scale;
      scale *= dims[d];
    }
    void* acc[2] = {&want_v[static_cast<size_t>(o)],
                    &want_i[static_cast<size_t>(o)]};
    const void* in_e[2] = {&values[static_cast<size_t>(e)],
                           &iota[static_cast<size_t>(e)]};
    ASSERT_TRUE(combiner.Combine(&runner, acc, in_e).ok());
  }

  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  for (int threads : {0, 1, 2, 4}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::unique_ptr<ThreadPool> pool;
    if (threads > 0) pool = std::make_unique<ThreadPool>(threads);
    Literal got_v(out_v), got_i(out_i);
    TestRegionRunner unused;
    ASSERT_TRUE(RunKernel(*kernel, {&x, &ix, &v0, &i0}, {&got_v, &got_i},
                          &unused, pool.get())
                    .ok());
    // The typed kernel, not the region, ran.
    EXPECT_EQ(unused.calls, 0);
    EXPECT_EQ(got_i.ToVector<int32_t>(), want_i);
    // Bit patterns, so NaNs and signed zeros compare too.
    std::vector<T> got = got_v.ToVector<T>();
    ASSERT_EQ(got.size(), want_v.size());
    EXPECT_EQ(std::memcmp(got.data(), want_v.data(), got.size() * sizeof(T)),
              0);
    // NumPy's rule for the index: the first NaN, else the first extreme.
    for (int64_t k = 0; k < m && axis == static_cast<int64_t>(dims.size()) - 1;
         ++k) {
      const int64_t len = dims[static_cast<size_t>(axis)];
      const T* row = values.data() + k * len;
      int64_t best = 0;
      for (int64_t j = 0; j < len; ++j) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(row[j])) {
            best = j;
            break;
          }
          if (std::isnan(row[best])) continue;
        }
        if (greater ? row[j] > row[best] : row[j] < row[best]) best = j;
      }
      EXPECT_EQ(got_i.ToVector<int32_t>()[static_cast<size_t>(k)], best)
          << "row " << k;
    }
  }
}

TEST(ArgReduceKernel, EveryAxisAgainstTheRegionAndNumpy) {
  for (bool greater : {true, false}) {
    CheckArgReduce<float>(ElementType::kF32, {37, 300}, 1, greater, 1);
    CheckArgReduce<float>(ElementType::kF32, {300, 37}, 0, greater, 2);
    CheckArgReduce<float>(ElementType::kF32, {5, 60, 7}, 1, greater, 3);
    CheckArgReduce<double>(ElementType::kF64, {64, 129}, 1, greater, 4);
    CheckArgReduce<int32_t>(ElementType::kS32, {64, 129}, 1, greater, 5);
    CheckArgReduce<int8_t>(ElementType::kS8, {129, 64}, 0, greater, 6);
    // (Types the test's region interpreter reads.)
    CheckArgReduce<uint32_t>(ElementType::kU32, {40, 50}, 1, greater, 7);
  }
  // Large enough to be split across threads (kMinChunkNanos at about 1 ns
  // per element: 64 rows of 1024 already split; the reference interprets
  // the region per element, which a sanitized build makes slow).
  const int64_t rows = xffi::testing_util::kSanitizedBuild ? 64 : 512;
  CheckArgReduce<float>(ElementType::kF32, {rows, 1024}, 1, true, 8);
  CheckArgReduce<float>(ElementType::kF32, {1024, rows}, 0, false, 9);
}

TEST(ArgReduceKernel, EmptyReducedDimensionKeepsTheInitValues) {
  auto region = JaxArgRegion({});
  OpUnderTest t;
  auto* r = t.Op(
      Opcode::kReduce,
      Shape::Tuple({testing_util::F32({3}), testing_util::S32({3})}),
      {t.Param(testing_util::F32({3, 0})), t.Param(testing_util::S32({3, 0})),
       t.Param(testing_util::F32({})), t.Param(testing_util::S32({}))});
  r->dimensions = {1};
  r->AppendCalledComputation(region.get());
  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal x(testing_util::F32({3, 0})), ix(testing_util::S32({3, 0}));
  Literal v0 = Literal::Scalar<float>(-1.5f), i0 = Literal::Scalar<int32_t>(7);
  Literal v(testing_util::F32({3})), i(testing_util::S32({3}));
  ASSERT_TRUE(RunKernel(*kernel, {&x, &ix, &v0, &i0}, {&v, &i}).ok());
  EXPECT_EQ(v.ToVector<float>(), (std::vector<float>{-1.5f, -1.5f, -1.5f}));
  EXPECT_EQ(i.ToVector<int32_t>(), (std::vector<int32_t>{7, 7, 7}));
}

Literal RunReduce(ElementType type, const std::vector<int64_t>& dims,
                  std::vector<int64_t> reduce_dims, Opcode op, const Literal& x,
                  const Literal& init, ThreadPool* pool) {
  auto region = BinaryRegion(op, type);
  std::vector<int64_t> kept;
  for (size_t d = 0; d < dims.size(); ++d) {
    bool reduced = false;
    for (int64_t r : reduce_dims) reduced |= r == static_cast<int64_t>(d);
    if (!reduced) kept.push_back(dims[d]);
  }
  OpUnderTest t;
  auto* r =
      t.Op(Opcode::kReduce, Shape::Array(type, kept),
           {t.Param(Shape::Array(type, dims)), t.Param(Shape::Scalar(type))});
  r->dimensions = std::move(reduce_dims);
  r->AppendCalledComputation(region.get());
  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  EXPECT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal out(r->shape());
  Literal xc = x, ic = init;
  EXPECT_TRUE(RunKernel(*kernel, {&xc, &ic}, {&out}, nullptr, pool).ok());
  return out;
}

TEST(ReduceThreads, IntegerReductionsAreIdenticalForAnyThreadCount) {
  const std::vector<int64_t> dims = {96, 70, 33};
  std::mt19937 rng(3);
  std::vector<int32_t> v(96 * 70 * 33);
  for (int32_t& e : v) e = static_cast<int32_t>(rng());  // sums wrap
  Literal x = Literal::FromVector<int32_t>(dims, v);
  Literal zero = Literal::Scalar<int32_t>(0);
  Literal low = Literal::Scalar<int32_t>(std::numeric_limits<int32_t>::min());
  for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
           {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}}) {
    Literal sum1 = RunReduce(ElementType::kS32, dims, axes, Opcode::kAdd, x,
                             zero, nullptr);
    Literal max1 = RunReduce(ElementType::kS32, dims, axes, Opcode::kMaximum, x,
                             low, nullptr);
    for (int threads : {1, 2, 4}) {
      ThreadPool pool(threads);
      EXPECT_EQ(
          RunReduce(ElementType::kS32, dims, axes, Opcode::kAdd, x, zero, &pool)
              .ToVector<int32_t>(),
          sum1.ToVector<int32_t>());
      EXPECT_EQ(RunReduce(ElementType::kS32, dims, axes, Opcode::kMaximum, x,
                          low, &pool)
                    .ToVector<int32_t>(),
                max1.ToVector<int32_t>());
    }
    // Against a plain wrapping sum for the full reduction.
    if (axes.size() == 3) {
      uint32_t total = 0;
      for (int32_t e : v) total += static_cast<uint32_t>(e);
      EXPECT_EQ(sum1.ToVector<int32_t>()[0], static_cast<int32_t>(total));
    }
  }
}

TEST(ReduceThreads, FloatSumToOneElementIsIdenticalForAnyThreadCount) {
  const int64_t n = 1 << 20;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  double exact = 0;
  for (float& e : v) {
    e = dist(rng);
    exact += e;
  }
  Literal x = Literal::FromVector<float>({n}, v);
  Literal zero = Literal::Scalar<float>(0);
  const float serial =
      RunReduce(ElementType::kF32, {n}, {0}, Opcode::kAdd, x, zero, nullptr)
          .ToVector<float>()[0];
  EXPECT_NEAR(serial, exact, 1e-2);
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    const float got =
        RunReduce(ElementType::kF32, {n}, {0}, Opcode::kAdd, x, zero, &pool)
            .ToVector<float>()[0];
    EXPECT_EQ(std::memcmp(&got, &serial, sizeof got), 0) << threads;
  }
  // An init value that is not the identity is combined exactly once.
  Literal ten = Literal::Scalar<float>(10);
  std::vector<float> ones(static_cast<size_t>(n), 1.0f);
  Literal xs = Literal::FromVector<float>({n}, ones);
  ThreadPool pool(2);
  EXPECT_EQ(RunReduce(ElementType::kF32, {n}, {0}, Opcode::kAdd, xs, ten, &pool)
                .ToVector<float>()[0],
            static_cast<float>(n + 10));
}

}  // namespace
}  // namespace xffi::cpu
