// reduce and reduce-window against NumPy: fast paths (one add/max/min/and
// region), regions compiled as ScalarPrograms (a variadic argmax) and the
// RegionRunner path (a remainder region).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"
#include "pool_test_util.h"
#include "xla_max_min_table.h"

namespace xffi::cpu {
namespace {

using testing_util::BinaryRegion;
using testing_util::F32;
using testing_util::OpUnderTest;
using testing_util::PoolInput;
using testing_util::RunOne;
using testing_util::S32;
using testing_util::TestRegionRunner;
using testing_util::Win;
using testing_util::WrappedRegion;

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

Instruction* Reduce(OpUnderTest& t, const Shape& in, const Shape& out,
                    std::vector<int64_t> dims, Computation* region) {
  auto* x = t.Param(in);
  auto* init = t.Param(Shape::Scalar(in.element_type()));
  auto* r = t.Op(Opcode::kReduce, out, {x, init});
  r->dimensions = std::move(dims);
  r->AppendCalledComputation(region);
  return r;
}

TEST(ReduceKernel, SumOverSeveralDims) {
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  auto* outer = Reduce(t, F32({2, 3, 4}), F32({3}), {0, 2}, add.get());
  auto* middle = Reduce(t, F32({2, 3, 4}), F32({2, 4}), {1}, add.get());
  auto* first = Reduce(t, F32({2, 3, 4}), F32({3, 4}), {0}, add.get());
  auto* all = Reduce(t, F32({2, 3, 4}), F32({}), {0, 1, 2}, add.get());
  Literal x = Literal::FromVector<float>({2, 3, 4}, Iota(24));
  Literal zero = Literal::Scalar<float>(0);
  Literal ten = Literal::Scalar<float>(10);
  // np.arange(24).reshape(2,3,4).sum(axis=...)
  EXPECT_EQ(RunOne(*outer, {&x, &zero}).ToVector<float>(),
            (std::vector<float>{60, 92, 124}));
  EXPECT_EQ(RunOne(*middle, {&x, &zero}).ToVector<float>(),
            (std::vector<float>{12, 15, 18, 21, 48, 51, 54, 57}));
  EXPECT_EQ(
      RunOne(*first, {&x, &zero}).ToVector<float>(),
      (std::vector<float>{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34}));
  // The init value is combined once per result element.
  EXPECT_EQ(RunOne(*all, {&x, &ten}).ToVector<float>(),
            (std::vector<float>{286}));
}

TEST(ReduceKernel, LongContiguousSum) {
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  auto* r = Reduce(t, F32({2, 1000}), F32({2}), {1}, add.get());
  Literal x = Literal::FromVector<float>({2, 1000}, Iota(2000));
  Literal zero = Literal::Scalar<float>(0);
  // sum(range(1000)), sum(range(1000, 2000))
  EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<float>(),
            (std::vector<float>{499500, 1499500}));
}

TEST(ReduceKernel, MaxAndMinOfIntegers) {
  // Operands in the region's root swapped: still the fast path.
  auto max = BinaryRegion(Opcode::kMaximum, ElementType::kS32, /*swap=*/true);
  auto min = BinaryRegion(Opcode::kMinimum, ElementType::kS32);
  OpUnderTest t;
  auto* rmax = Reduce(t, S32({3, 4}), S32({3}), {1}, max.get());
  auto* rmin = Reduce(t, S32({3, 4}), S32({4}), {0}, min.get());
  Literal y = Literal::FromVector<int32_t>(
      {3, 4}, {-5, 2, -2, 5, 1, -3, 4, 0, -4, 3, -1, -5});
  Literal lowest = Literal::Scalar<int32_t>(INT32_MIN);
  Literal highest = Literal::Scalar<int32_t>(INT32_MAX);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*rmax, {&y, &lowest}, &runner).ToVector<int32_t>(),
            (std::vector<int32_t>{5, 4, 3}));
  EXPECT_EQ(RunOne(*rmin, {&y, &highest}, &runner).ToVector<int32_t>(),
            (std::vector<int32_t>{-5, -3, -2, -5}));
  EXPECT_EQ(runner.calls, 0);
}

TEST(ReduceKernel, MaxPropagatesNaN) {
  auto max = BinaryRegion(Opcode::kMaximum, ElementType::kF32);
  OpUnderTest t;
  auto* r = Reduce(t, F32({2, 3}), F32({2}), {1}, max.get());
  Literal x = Literal::FromVector<float>({2, 3}, {1, NAN, 3, 4, 5, 6});
  Literal init = Literal::Scalar<float>(-INFINITY);
  std::vector<float> out = RunOne(*r, {&x, &init}).ToVector<float>();
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], 6);
}

// XLA:CPU's own reduce emitter orders -0 below +0 (jax 0.10.2: jnp.max of
// [0., -0., 0., -0.] is 0., jnp.min is -0.), whichever zero comes last; f32
// and f64 take the fast path, the rows long enough for its vector lanes.
TEST(ReduceKernel, MaxAndMinOfSignedZerosFollowTheTotalOrder) {
  for (Opcode opcode : {Opcode::kMaximum, Opcode::kMinimum}) {
    auto region = BinaryRegion(opcode, ElementType::kF32);
    OpUnderTest t;
    auto* r = Reduce(t, F32({3, 20}), F32({3}), {1}, region.get());
    std::vector<float> x(60);
    for (int i = 0; i < 20; ++i) {
      x[i] = i % 2 == 0 ? 0.0f : -0.0f;       // ends with -0
      x[20 + i] = i % 2 == 0 ? -0.0f : 0.0f;  // ends with +0
      x[40 + i] = opcode == Opcode::kMaximum ? -0.0f : 0.0f;
    }
    Literal in = Literal::FromVector<float>({3, 20}, x);
    Literal init = Literal::Scalar<float>(
        opcode == Opcode::kMaximum ? -INFINITY : INFINITY);
    std::vector<float> out = RunOne(*r, {&in, &init}).ToVector<float>();
    const bool min = opcode == Opcode::kMinimum;
    EXPECT_EQ(std::signbit(out[0]), min) << OpcodeName(opcode);
    EXPECT_EQ(std::signbit(out[1]), min) << OpcodeName(opcode);
    EXPECT_EQ(std::signbit(out[2]), !min) << OpcodeName(opcode);
  }
}

// XLA:CPU's max/min of every pair of special values (xla_max_min_table.h)
// as a reduce sees them: rows [a, b] (the scalar loop), rows of 20 with a
// and b in the same vector lane (the fast path's eight lanes), and columns
// [a; b] (element-wise folds); the other values and the init are the
// identity, so each result is region(a, b).
template <typename F, typename Bits, size_t N>
void ExpectXlaMaxMinReduces(ElementType type, const Bits (&values)[N],
                            const Bits (&max)[N][N], const Bits (&min)[N][N]) {
  constexpr int64_t kPairs = static_cast<int64_t>(N * N);
  for (Opcode opcode : {Opcode::kMaximum, Opcode::kMinimum}) {
    const bool is_max = opcode == Opcode::kMaximum;
    const F identity = is_max ? -std::numeric_limits<F>::infinity()
                              : std::numeric_limits<F>::infinity();
    auto region = BinaryRegion(opcode, type);
    Literal init = Literal::Scalar<F>(identity);
    // (row length, position of b, reduce the rows (else the columns)).
    for (auto [length, b_at, rows] :
         {std::tuple{2, 1, true}, std::tuple{20, 8, true},
          std::tuple{2, 1, false}}) {
      std::vector<F> x(static_cast<size_t>(kPairs * length), identity);
      for (int64_t k = 0; k < kPairs; ++k) {
        const Bits a = values[k / N], b = values[k % N];
        const int64_t a_index = rows ? k * length : k;
        const int64_t b_index = rows ? k * length + b_at : b_at * kPairs + k;
        std::memcpy(&x[static_cast<size_t>(a_index)], &a, sizeof(F));
        std::memcpy(&x[static_cast<size_t>(b_index)], &b, sizeof(F));
      }
      const std::vector<int64_t> dims =
          rows ? std::vector<int64_t>{kPairs, length}
               : std::vector<int64_t>{length, kPairs};
      OpUnderTest t;
      auto* r =
          Reduce(t, Shape::Array(type, dims), Shape::Array(type, {kPairs}),
                 {rows ? 1 : 0}, region.get());
      Literal in = Literal::FromVector<F>(dims, x);
      const Literal out = RunOne(*r, {&in, &init});
      for (int64_t k = 0; k < kPairs; ++k) {
        Bits got;
        std::memcpy(&got, out.data<F>() + k, sizeof(F));
        const Bits expected = is_max ? max[k / N][k % N] : min[k / N][k % N];
        EXPECT_EQ(got, expected)
            << OpcodeName(opcode) << " " << ElementTypeName(type)
            << (rows ? " rows of " : " columns of ") << length << std::hex
            << " of 0x" << values[k / N] << ", 0x" << values[k % N];
      }
    }
  }
}

TEST(ReduceKernel, MaxAndMinMatchXlaOnEveryPairOfSpecialValues) {
  ExpectXlaMaxMinReduces<float>(ElementType::kF32, test::kXlaF32Values,
                                test::kXlaF32Max, test::kXlaF32Min);
  ExpectXlaMaxMinReduces<double>(ElementType::kF64, test::kXlaF64Values,
                                 test::kXlaF64Max, test::kXlaF64Min);
}

TEST(ReduceKernel, PredAllAndAny) {
  auto all = BinaryRegion(Opcode::kAnd, ElementType::kPred);
  auto any = BinaryRegion(Opcode::kOr, ElementType::kPred);
  Shape p = Shape::Array(ElementType::kPred, {2, 3});
  Shape p2 = Shape::Array(ElementType::kPred, {2});
  OpUnderTest t;
  auto* ra = Reduce(t, p, p2, {1}, all.get());
  auto* ro = Reduce(t, p, p2, {1}, any.get());
  Literal x =
      Literal::FromVector<bool>({2, 3}, {true, true, true, false, false, true});
  Literal yes = Literal::Scalar<bool>(true), no = Literal::Scalar<bool>(false);
  EXPECT_EQ(RunOne(*ra, {&x, &yes}).ToVector<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(RunOne(*ro, {&x, &no}).ToVector<bool>(),
            (std::vector<bool>{true, true}));
}

// (value, index) pairs: keeps the larger value (the later one on ties).
std::unique_ptr<Computation> ArgMaxRegion() {
  auto c = std::make_unique<Computation>("argmax");
  Shape f = Shape::Scalar(ElementType::kF32),
        s = Shape::Scalar(ElementType::kS32);
  Shape pred = Shape::Scalar(ElementType::kPred);
  Instruction* p[4];
  const Shape* shapes[4] = {&f, &s, &f, &s};
  for (int i = 0; i < 4; ++i) {
    p[i] = c->AddInstruction(Opcode::kParameter, *shapes[i], {},
                             "p" + std::to_string(i));
    p[i]->parameter_number = i;
  }
  auto* gt = c->AddInstruction(Opcode::kCompare, pred, {p[0], p[2]}, "gt");
  gt->comparison_direction = ComparisonDirection::kGt;
  auto* v = c->AddInstruction(Opcode::kSelect, f, {gt, p[0], p[2]}, "v");
  auto* i = c->AddInstruction(Opcode::kSelect, s, {gt, p[1], p[3]}, "i");
  c->set_root(
      c->AddInstruction(Opcode::kTuple, Shape::Tuple({f, s}), {v, i}, "t"));
  return c;
}

TEST(ReduceKernel, VariadicArgMaxAsScalarProgram) {
  auto region = ArgMaxRegion();
  OpUnderTest t;
  auto* v = t.Param(F32({3, 4}));
  auto* idx = t.Param(S32({3, 4}));
  auto* vi = t.Param(F32({}));
  auto* ii = t.Param(S32({}));
  auto* r = t.Op(Opcode::kReduce, Shape::Tuple({F32({3}), S32({3})}),
                 {v, idx, vi, ii});
  r->dimensions = {1};
  r->AppendCalledComputation(region.get());
  Literal values = Literal::FromVector<float>(
      {3, 4}, {-5, 2, -2, 5, 1, -3, 4, 0, -4, 3, -1, -5});
  Literal indices = Literal::FromVector<int32_t>(
      {3, 4}, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
  Literal v0 = Literal::Scalar<float>(-INFINITY);
  Literal i0 = Literal::Scalar<int32_t>(-1);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal max_out(F32({3})), arg_out(S32({3}));
  TestRegionRunner runner;
  ASSERT_TRUE(testing_util::RunKernel(*kernel, {&values, &indices, &v0, &i0},
                                      {&max_out, &arg_out}, &runner)
                  .ok());
  EXPECT_EQ(max_out.ToVector<float>(), (std::vector<float>{5, 4, 3}));
  // np.argmax(y, axis=1)
  EXPECT_EQ(arg_out.ToVector<int32_t>(), (std::vector<int32_t>{3, 2, 1}));
  // Compiled, so the RegionRunner is never called (nor needed).
  EXPECT_EQ(runner.calls, 0);
  Literal max_again(F32({3})), arg_again(S32({3}));
  ASSERT_TRUE(testing_util::RunKernel(*kernel, {&values, &indices, &v0, &i0},
                                      {&max_again, &arg_again})
                  .ok());
  EXPECT_EQ(arg_again.ToVector<int32_t>(), (std::vector<int32_t>{3, 2, 1}));
}

TEST(ReduceKernel, RegionOutsideScalarProgramsRunsThroughTheRunner) {
  // fmod(acc, x) over rows: fmod(fmod(100, 7), 5) = 2, fmod(fmod(100, 30),
  // 6) = 4.
  auto rem = BinaryRegion(Opcode::kRemainder, ElementType::kF32);
  OpUnderTest t;
  auto* r = Reduce(t, F32({2, 2}), F32({2}), {1}, rem.get());
  Literal x = Literal::FromVector<float>({2, 2}, {7, 5, 30, 6});
  Literal init = Literal::Scalar<float>(100);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*r, {&x, &init}, &runner).ToVector<float>(),
            (std::vector<float>{2, 4}));
  EXPECT_EQ(runner.calls, 4);

  // Without a runner that path is an error naming the op.
  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  ASSERT_TRUE(kernel.ok());
  Literal out(F32({2}));
  Status s = testing_util::RunKernel(*kernel, {&x, &init}, {&out});
  EXPECT_EQ(s.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_NE(s.message().find("'op' (reduce): no region runner"),
            std::string::npos)
      << s.message();
}

TEST(ReduceKernel, RejectsRegionOfTheWrongType) {
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kS32);
  OpUnderTest t;
  auto* r = Reduce(t, F32({3}), F32({}), {0}, add.get());
  StatusOr<Kernel> k = MakeStructuralKernel(*r);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("(reduce)"), std::string::npos);
  EXPECT_NE(k.status().message().find("parameter 0 is not a f32 scalar"),
            std::string::npos)
      << k.status().message();
}

Instruction* ReduceWindow(OpUnderTest& t, const Shape& in, const Shape& out,
                          std::vector<WindowDimension> window,
                          Computation* region) {
  auto* x = t.Param(in);
  auto* init = t.Param(Shape::Scalar(in.element_type()));
  auto* r = t.Op(Opcode::kReduceWindow, out, {x, init});
  r->window = std::move(window);
  r->AppendCalledComputation(region);
  return r;
}

TEST(ReduceWindowKernel, CumulativeSum) {
  // jnp.cumsum as XLA writes it: a window as long as the input, padded low.
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kS32);
  OpUnderTest t;
  WindowDimension w;
  w.size = 5;
  w.padding_low = 4;
  auto* r = ReduceWindow(t, S32({5}), S32({5}), {w}, add.get());
  Literal x = Literal::Vector<int32_t>({3, 1, 4, 1, 5});
  Literal zero = Literal::Scalar<int32_t>(0);
  EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<int32_t>(),
            (std::vector<int32_t>{3, 4, 8, 9, 14}));
}

TEST(ReduceWindowKernel, MaxPool2x2) {
  auto max = BinaryRegion(Opcode::kMaximum, ElementType::kF32);
  OpUnderTest t;
  WindowDimension w;
  w.size = 2;
  w.stride = 2;
  auto* r = ReduceWindow(t, F32({4, 4}), F32({2, 2}), {w, w}, max.get());
  Literal x = Literal::FromVector<float>({4, 4}, Iota(16));
  Literal lowest = Literal::Scalar<float>(-INFINITY);
  EXPECT_EQ(RunOne(*r, {&x, &lowest}).ToVector<float>(),
            (std::vector<float>{5, 7, 13, 15}));
}

TEST(ReduceWindowKernel, BaseAndWindowDilation) {
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  WindowDimension base;  // input [a, _, b, _, c], windows of 2
  base.size = 2;
  base.base_dilation = 2;
  auto* r1 = ReduceWindow(t, F32({3}), F32({4}), {base}, add.get());
  WindowDimension holes;  // x[o] + x[o + 2]
  holes.size = 2;
  holes.window_dilation = 2;
  auto* r2 = ReduceWindow(t, F32({5}), F32({3}), {holes}, add.get());
  Literal abc = Literal::Vector<float>({1, 10, 100});
  Literal x = Literal::Vector<float>({1, 2, 3, 4, 5});
  Literal zero = Literal::Scalar<float>(0);
  EXPECT_EQ(RunOne(*r1, {&abc, &zero}).ToVector<float>(),
            (std::vector<float>{1, 10, 10, 100}));
  EXPECT_EQ(RunOne(*r2, {&x, &zero}).ToVector<float>(),
            (std::vector<float>{4, 6, 8}));
}

TEST(ReduceWindowKernel, VariadicArgMaxAsScalarProgram) {
  auto region = ArgMaxRegion();
  OpUnderTest t;
  auto* v = t.Param(F32({4}));
  auto* idx = t.Param(S32({4}));
  auto* vi = t.Param(F32({}));
  auto* ii = t.Param(S32({}));
  auto* r = t.Op(Opcode::kReduceWindow, Shape::Tuple({F32({3}), S32({3})}),
                 {v, idx, vi, ii});
  WindowDimension w;
  w.size = 2;
  r->window = {w};
  r->AppendCalledComputation(region.get());
  Literal values = Literal::Vector<float>({1, 5, 2, 3});
  Literal indices = Literal::Vector<int32_t>({0, 1, 2, 3});
  Literal v0 = Literal::Scalar<float>(-INFINITY);
  Literal i0 = Literal::Scalar<int32_t>(-1);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal max_out(F32({3})), arg_out(S32({3}));
  TestRegionRunner runner;
  ASSERT_TRUE(testing_util::RunKernel(*kernel, {&values, &indices, &v0, &i0},
                                      {&max_out, &arg_out}, &runner)
                  .ok());
  EXPECT_EQ(max_out.ToVector<float>(), (std::vector<float>{5, 5, 3}));
  EXPECT_EQ(arg_out.ToVector<int32_t>(), (std::vector<int32_t>{1, 1, 3}));
  EXPECT_EQ(runner.calls, 0);
}

TEST(ReduceWindowKernel, RegionThroughTheRunner) {
  // Windows of 2 with stride 1 over [7, 5, 3], init 100, fmod(acc, x):
  // fmod(fmod(100, 7), 5) = 2, fmod(fmod(100, 5), 3) = 0.
  auto rem = BinaryRegion(Opcode::kRemainder, ElementType::kF32);
  OpUnderTest t;
  auto* x = t.Param(F32({3}));
  auto* init = t.Param(F32({}));
  auto* r = t.Op(Opcode::kReduceWindow, F32({2}), {x, init});
  WindowDimension w;
  w.size = 2;
  r->window = {w};
  r->AppendCalledComputation(rem.get());
  Literal in = Literal::Vector<float>({7, 5, 3});
  Literal hundred = Literal::Scalar<float>(100);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*r, {&in, &hundred}, &runner).ToVector<float>(),
            (std::vector<float>{2, 0}));
  EXPECT_EQ(runner.calls, 4);
}

TEST(ReduceWindowKernel, PaddingStridesAndWindowDilationTogether) {
  // lax.reduce_window(arange(20.).reshape(4, 5), 0., add, (3, 2), (2, 2),
  //                   ((1, 1), (0, 1)), window_dilation=(1, 2))
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  WindowDimension rows, cols;
  rows.size = 3;
  rows.stride = 2;
  rows.padding_low = rows.padding_high = 1;
  cols.size = 2;
  cols.stride = 2;
  cols.padding_high = 1;
  cols.window_dilation = 2;
  auto* r = ReduceWindow(t, F32({4, 5}), F32({2, 2}), {rows, cols}, add.get());
  Literal x = Literal::FromVector<float>({4, 5}, Iota(20));
  Literal zero = Literal::Scalar<float>(0);
  EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<float>(),
            (std::vector<float>{14, 22, 66, 78}));
}

TEST(ReduceWindowKernel, BaseDilationWithPaddingAndStride) {
  // lax.reduce_window(arange(20.).reshape(4, 5), -inf, max, (2, 2), (1, 3),
  //                   ((1, 0), (2, 2)), base_dilation=(2, 1)): windows
  // holding only padding or dilation holes give the init value.
  auto max = BinaryRegion(Opcode::kMaximum, ElementType::kF32);
  OpUnderTest t;
  WindowDimension rows, cols;
  rows.size = 2;
  rows.padding_low = 1;
  rows.base_dilation = 2;
  cols.size = 2;
  cols.stride = 3;
  cols.padding_low = cols.padding_high = 2;
  auto* r = ReduceWindow(t, F32({4, 5}), F32({7, 3}), {rows, cols}, max.get());
  Literal x = Literal::FromVector<float>({4, 5}, Iota(20));
  Literal lowest = Literal::Scalar<float>(-INFINITY);
  const float inf = INFINITY;
  EXPECT_EQ(
      RunOne(*r, {&x, &lowest}).ToVector<float>(),
      (std::vector<float>{-inf, 2,  4,  -inf, 2,  4,  -inf, 7,  9, -inf, 7, 9,
                          -inf, 12, 14, -inf, 12, 14, -inf, 17, 19}));
}

TEST(ReduceWindowKernel, Int8SumWithPaddingAndStride) {
  // lax.reduce_window(int8 [3,1,4,1,5,9,2,6], 0, add, (3,), (2,), ((1, 1),))
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kS8);
  OpUnderTest t;
  WindowDimension w;
  w.size = 3;
  w.stride = 2;
  w.padding_low = w.padding_high = 1;
  Shape in = Shape::Array(ElementType::kS8, {8});
  auto* r =
      ReduceWindow(t, in, Shape::Array(ElementType::kS8, {4}), {w}, add.get());
  Literal x = Literal::FromVector<int8_t>({8}, {3, 1, 4, 1, 5, 9, 2, 6});
  Literal zero = Literal::Scalar<int8_t>(0);
  EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<int8_t>(),
            (std::vector<int8_t>{4, 6, 15, 17}));
}

// --- pooling fast path (window_rows.h) against the general path ----------
//
// The same reduce-window twice: with a one-op region (the fast path) and
// with that op wrapped in an identity convert, which no fast path matches,
// so the ScalarProgram general path evaluates it window by window. The
// results must agree bit for bit on 1, 2 and 3 threads.

int64_t WindowedExtent(int64_t in, const WindowDimension& w) {
  const int64_t padded = (in == 0 ? 0 : (in - 1) * w.base_dilation + 1) +
                         w.padding_low + w.padding_high;
  const int64_t extent = (w.size - 1) * w.window_dilation + 1;
  return padded < extent ? 0 : (padded - extent) / w.stride + 1;
}

template <typename T>
void CheckPoolAgainstGeneral(ElementType type, Opcode opcode,
                             std::vector<int64_t> dims,
                             std::vector<WindowDimension> window, T init) {
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < dims.size(); ++d)
    out_dims.push_back(WindowedExtent(dims[d], window[d]));
  const Shape in = Shape::Array(type, dims);
  const Shape out = Shape::Array(type, out_dims);
  auto fast_region = BinaryRegion(opcode, type);
  auto general_region = WrappedRegion(opcode, type);
  OpUnderTest fast_op, general_op;
  auto* fast = ReduceWindow(fast_op, in, out, window, fast_region.get());
  auto* general =
      ReduceWindow(general_op, in, out, window, general_region.get());
  const int64_t count = std::accumulate(dims.begin(), dims.end(), int64_t{1},
                                        std::multiplies<int64_t>());
  std::vector<T> values =
      PoolInput<T>(count, static_cast<uint32_t>(dims.size()));
  if constexpr (std::is_integral_v<T>)
    if (type == ElementType::kPred)
      for (T& v : values) v = static_cast<T>(v & 1);
  Literal x = Literal::FromBytes(in, values.data(), values.size() * sizeof(T));
  Literal start = Literal::FromBytes(Shape::Scalar(type), &init, sizeof(T));
  StatusOr<Kernel> general_kernel = MakeStructuralKernel(*general);
  StatusOr<Kernel> fast_kernel = MakeStructuralKernel(*fast);
  ASSERT_TRUE(general_kernel.ok()) << general_kernel.status().ToString();
  ASSERT_TRUE(fast_kernel.ok()) << fast_kernel.status().ToString();
  const Literal want =
      testing_util::RunOnThreads(*general_kernel, {&x, &start}, out, 0);
  for (int threads : {0, 2, 3}) {
    const Literal got =
        testing_util::RunOnThreads(*fast_kernel, {&x, &start}, out, threads);
    const bool any_nan = opcode == Opcode::kAdd || opcode == Opcode::kMultiply;
    EXPECT_EQ(testing_util::FirstDifference<T>(got, want, any_nan), "")
        << ElementTypeName(type) << " " << OpcodeName(opcode) << " on "
        << threads << " threads";
  }
}

TEST(ReduceWindowKernel, PoolingNhwcMatchesGeneralPath) {
  const float lowest = -std::numeric_limits<float>::infinity();
  // Max-pool 2x2/2 VALID (cnn_train_step), 3x3/2 SAME, 3x3/1 SAME, odd
  // spatial sizes leaving a remainder.
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kMaximum, {3, 8, 8, 17},
      {Win(1), Win(2, 2), Win(2, 2), Win(1)}, lowest);
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kMaximum, {2, 9, 7, 5},
      {Win(1), Win(3, 2, 1, 1), Win(3, 2, 1, 1), Win(1)}, lowest);
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kAdd, {2, 7, 6, 19},
      {Win(1), Win(3, 1, 1, 1), Win(3, 1, 1, 1), Win(1)}, 0.0f);
  CheckPoolAgainstGeneral<double>(ElementType::kF64, Opcode::kMinimum,
                                  {2, 5, 6, 3},
                                  {Win(1), Win(2, 1), Win(4, 1, 2, 1), Win(1)},
                                  std::numeric_limits<double>::infinity());
}

TEST(ReduceWindowKernel, PoolingNchwMatchesGeneralPath) {
  const float lowest = -std::numeric_limits<float>::infinity();
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kMaximum, {2, 3, 8, 33},
      {Win(1), Win(1), Win(2, 2), Win(2, 2)}, lowest);
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kMaximum, {2, 3, 9, 11},
      {Win(1), Win(1), Win(3, 2, 1, 1), Win(3, 2, 1, 1)}, lowest);
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kAdd, {1, 2, 6, 37},
      {Win(1), Win(1), Win(3, 1, 1, 1), Win(4, 1, 2, 1)}, 0.5f);
  // Window dilation along the run; padding wider than the window.
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kMinimum, {2, 4, 10},
      {Win(1), Win(2, 1, 0, 0, 2), Win(3, 2, 4, 3, 2)}, 1.0f);
}

TEST(ReduceWindowKernel, PoolingIntegersPredAndOddShapesMatchGeneralPath) {
  CheckPoolAgainstGeneral<int8_t>(ElementType::kS8, Opcode::kAdd, {3, 6, 5},
                                  {Win(1), Win(3, 1, 1, 1), Win(2, 2)},
                                  int8_t{0});
  CheckPoolAgainstGeneral<uint8_t>(ElementType::kU8, Opcode::kMaximum,
                                   {4, 4, 9}, {Win(2, 2), Win(2, 2), Win(1)},
                                   uint8_t{0});
  CheckPoolAgainstGeneral<int32_t>(ElementType::kS32, Opcode::kMinimum, {5, 7},
                                   {Win(3, 2, 1, 1), Win(2, 1)},
                                   std::numeric_limits<int32_t>::max());
  CheckPoolAgainstGeneral<int64_t>(ElementType::kS64, Opcode::kMultiply, {6, 4},
                                   {Win(2, 2), Win(1)}, int64_t{1});
  CheckPoolAgainstGeneral<uint8_t>(ElementType::kPred, Opcode::kOr, {4, 6},
                                   {Win(2, 1), Win(3, 3, 0, 1)}, uint8_t{0});
  // Rank 1 and 0; base dilation on an outer dimension (rows) and on the
  // run (the old window loop); an empty result.
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kMaximum, {50},
                                 {Win(4, 3, 2, 2)}, -1.0f);
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kAdd, {}, {}, 2.0f);
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kMaximum, {5, 6},
                                 {Win(2, 1, 1, 0, 1, 2), Win(1)}, -5.0f);
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kAdd, {5, 6},
                                 {Win(2), Win(2, 1, 1, 0, 1, 2)}, 0.0f);
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kAdd, {2, 3},
                                 {Win(1), Win(5)}, 0.0f);
}

// Large enough to be split across the pool (rows of NHWC channels).
TEST(ReduceWindowKernel, PoolingSplitAcrossThreadsMatchesGeneralPath) {
  CheckPoolAgainstGeneral<float>(ElementType::kF32, Opcode::kMaximum,
                                 {4, 32, 32, 16},
                                 {Win(1), Win(2, 2), Win(2, 2), Win(1)},
                                 -std::numeric_limits<float>::infinity());
  CheckPoolAgainstGeneral<float>(
      ElementType::kF32, Opcode::kAdd, {4, 16, 32, 32},
      {Win(1), Win(1), Win(3, 1, 1, 1), Win(3, 1, 1, 1)}, 0.0f);
}

// Sums over one axis for integer and double types: s8 wraps as XLA's does,
// u32 and s64 keep their full range.
TEST(ReduceKernel, SumAcrossTypes) {
  {
    auto add = BinaryRegion(Opcode::kAdd, ElementType::kS8);
    OpUnderTest t;
    Shape in = Shape::Array(ElementType::kS8, {2, 3});
    auto* r =
        Reduce(t, in, Shape::Array(ElementType::kS8, {2}), {1}, add.get());
    Literal x = Literal::FromVector<int8_t>({2, 3}, {100, 27, 1, -128, -1, 5});
    Literal zero = Literal::Scalar<int8_t>(0);
    // 128 wraps to -128; -129 + 5 = -124 (wrapping through 127)
    EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<int8_t>(),
              (std::vector<int8_t>{-128, -124}));
  }
  {
    auto add = BinaryRegion(Opcode::kAdd, ElementType::kU32);
    OpUnderTest t;
    Shape in = Shape::Array(ElementType::kU32, {3});
    auto* r =
        Reduce(t, in, Shape::Array(ElementType::kU32, {}), {0}, add.get());
    Literal x = Literal::Vector<uint32_t>({4000000000u, 200000000u, 7});
    Literal zero = Literal::Scalar<uint32_t>(0);
    EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<uint32_t>(),
              (std::vector<uint32_t>{4200000007u}));
  }
  {
    auto max = BinaryRegion(Opcode::kMaximum, ElementType::kS64);
    OpUnderTest t;
    Shape in = Shape::Array(ElementType::kS64, {2, 2});
    auto* r =
        Reduce(t, in, Shape::Array(ElementType::kS64, {2}), {0}, max.get());
    Literal x = Literal::FromVector<int64_t>(
        {2, 2}, {int64_t{1} << 40, -3, (int64_t{1} << 40) + 1, -5});
    Literal lowest = Literal::Scalar<int64_t>(INT64_MIN);
    EXPECT_EQ(RunOne(*r, {&x, &lowest}).ToVector<int64_t>(),
              (std::vector<int64_t>{(int64_t{1} << 40) + 1, -3}));
  }
  {
    auto add = BinaryRegion(Opcode::kAdd, ElementType::kF64);
    OpUnderTest t;
    Shape in = Shape::Array(ElementType::kF64, {3});
    auto* r =
        Reduce(t, in, Shape::Array(ElementType::kF64, {}), {0}, add.get());
    // 2^24 + 1 + 1 is exact in any order in double; f32 would lose the ones
    Literal x = Literal::Vector<double>({16777216, 1, 1});
    Literal zero = Literal::Scalar<double>(0);
    EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<double>(),
              (std::vector<double>{16777218}));
  }
}

}  // namespace
}  // namespace xffi::cpu
