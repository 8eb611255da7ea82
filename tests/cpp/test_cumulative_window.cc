// Cumulative reduce-windows (jnp.cumsum and kin) run as O(n) scans: every
// axis, both directions, the typed and the region paths, against the
// window-by-window definition computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cpu/cumulative_window.h"
#include "kernel_test_util.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using testing_util::BinaryRegion;
using testing_util::OpUnderTest;
using testing_util::RunOne;
using testing_util::TestRegionRunner;

// The window jnp.cumsum(x, axis, reverse) lowers to.
std::vector<WindowDimension> CumulativeWindow(const std::vector<int64_t>& dims,
                                              int64_t axis, bool reverse) {
  std::vector<WindowDimension> window(dims.size());
  WindowDimension& w = window[static_cast<size_t>(axis)];
  w.size = dims[static_cast<size_t>(axis)];
  (reverse ? w.padding_high : w.padding_low) = w.size - 1;
  return window;
}

Instruction* Window(OpUnderTest& t, const Shape& in,
                    std::vector<WindowDimension> window, Computation* region) {
  auto* x = t.Param(in);
  auto* init = t.Param(Shape::Scalar(in.element_type()));
  auto* r = t.Op(Opcode::kReduceWindow, in, {x, init});
  r->window = std::move(window);
  r->AppendCalledComputation(region);
  return r;
}

// The definition: each result element combines init with the input elements
// of its window, first to last along the axis.
template <typename T>
std::vector<T> Windowed(const std::vector<T>& x,
                        const std::vector<int64_t>& dims, int64_t axis,
                        bool reverse, T init,
                        const std::function<T(T, T)>& op) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (static_cast<int64_t>(d) < axis) outer *= dims[d];
    if (static_cast<int64_t>(d) > axis) inner *= dims[d];
  }
  const int64_t n = dims[static_cast<size_t>(axis)];
  std::vector<T> out(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j)
      for (int64_t i = 0; i < n; ++i) {
        T acc = init;
        const int64_t first = reverse ? i : 0, last = reverse ? n - 1 : i;
        for (int64_t k = first; k <= last; ++k)
          acc = op(acc, x[static_cast<size_t>((o * n + k) * inner + j)]);
        out[static_cast<size_t>((o * n + i) * inner + j)] = acc;
      }
  return out;
}

template <typename T>
std::vector<T> Pattern(int64_t count, int64_t modulus, int64_t offset) {
  std::vector<T> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    v[static_cast<size_t>(i)] = static_cast<T>((i * 7919) % modulus - offset);
  return v;
}

template <typename T>
void CheckEveryAxis(ElementType type, Opcode opcode, T init,
                    const std::function<T(T, T)>& op,
                    const std::vector<T>& values,
                    const std::vector<int64_t>& dims) {
  auto region = BinaryRegion(opcode, type);
  for (int64_t axis = 0; axis < static_cast<int64_t>(dims.size()); ++axis)
    for (bool reverse : {false, true}) {
      SCOPED_TRACE("axis " + std::to_string(axis) +
                   (reverse ? " reverse" : " forward"));
      OpUnderTest t;
      Shape shape = Shape::Array(type, dims);
      auto* r =
          Window(t, shape, CumulativeWindow(dims, axis, reverse), region.get());
      std::optional<CumulativeAxis> scan = MatchCumulativeWindow(*r);
      ASSERT_TRUE(scan.has_value());
      EXPECT_EQ(scan->axis, axis);
      EXPECT_EQ(scan->reverse, reverse);
      Literal x = Literal::FromVector<T>(dims, values);
      Literal start = Literal::Scalar<T>(init);
      EXPECT_EQ(RunOne(*r, {&x, &start}).template ToVector<T>(),
                Windowed<T>(values, dims, axis, reverse, init, op));
    }
}

TEST(CumulativeWindow, SumEveryAxisAndDirectionF32) {
  // Small integers: every summation order gives the same bits.
  const std::vector<int64_t> dims{3, 4, 37};
  CheckEveryAxis<float>(
      ElementType::kF32, Opcode::kAdd, 0.0f,
      [](float a, float b) { return a + b; }, Pattern<float>(444, 19, 9), dims);
}

TEST(CumulativeWindow, ProductWrapsS32) {
  CheckEveryAxis<int32_t>(
      ElementType::kS32, Opcode::kMultiply, 1,
      [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) *
                                    static_cast<uint32_t>(b));
      },
      Pattern<int32_t>(120, 9, 4), {5, 24});
}

TEST(CumulativeWindow, MaxAndMinF64WithNaN) {
  std::vector<double> values = Pattern<double>(60, 23, 11);
  values[17] = std::nan("");
  auto max = [](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::nan("");
    return a > b ? a : b;
  };
  auto min = [](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::nan("");
    return a < b ? a : b;
  };
  // NaN != NaN, so compare through the definition's NaN positions.
  for (Opcode opcode : {Opcode::kMaximum, Opcode::kMinimum}) {
    auto region = BinaryRegion(opcode, ElementType::kF64);
    const std::function<double(double, double)> op =
        opcode == Opcode::kMaximum ? std::function<double(double, double)>(max)
                                   : min;
    const double init = opcode == Opcode::kMaximum
                            ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
    for (int64_t axis : {0, 1})
      for (bool reverse : {false, true}) {
        OpUnderTest t;
        auto* r =
            Window(t, Shape::Array(ElementType::kF64, {6, 10}),
                   CumulativeWindow({6, 10}, axis, reverse), region.get());
        Literal x = Literal::FromVector<double>({6, 10}, values);
        Literal start = Literal::Scalar<double>(init);
        std::vector<double> got = RunOne(*r, {&x, &start}).ToVector<double>();
        std::vector<double> want =
            Windowed<double>(values, {6, 10}, axis, reverse, init, op);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << i;
          else
            EXPECT_EQ(got[i], want[i]) << i;
        }
      }
  }
}

TEST(CumulativeWindow, ForwardFloatSumIsBitIdenticalToTheWindows) {
  // Forward, the running scan adds in the window's own order.
  std::vector<float> values(2 * 300);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(static_cast<float>(i)) * 1000.0f + 0.1f;
  auto region = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  OpUnderTest t;
  auto* r = Window(t, testing_util::F32({2, 300}),
                   CumulativeWindow({2, 300}, 1, false), region.get());
  Literal x = Literal::FromVector<float>({2, 300}, values);
  Literal zero = Literal::Scalar<float>(0.5f);
  EXPECT_EQ(RunOne(*r, {&x, &zero}).ToVector<float>(),
            Windowed<float>(values, {2, 300}, 1, false, 0.5f,
                            [](float a, float b) { return a + b; }));
}

TEST(CumulativeWindow, SplitsColumnsAcrossThePool) {
  const std::vector<int64_t> dims{2, 300, 129};
  const int64_t count = 2 * 300 * 129;
  std::vector<int32_t> values = Pattern<int32_t>(count, 101, 50);
  auto region = BinaryRegion(Opcode::kAdd, ElementType::kS32);
  ThreadPool pool(3);
  for (int64_t axis : {1, 2}) {
    OpUnderTest t;
    auto* r = Window(t, Shape::Array(ElementType::kS32, dims),
                     CumulativeWindow(dims, axis, axis == 2), region.get());
    StatusOr<Kernel> kernel = MakeStructuralKernel(*r);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    Literal x = Literal::FromVector<int32_t>(dims, values);
    Literal zero = Literal::Scalar<int32_t>(3);
    Literal out(r->shape());
    std::vector<ArrayView> ins{{&x.shape(), x.data()},
                               {&zero.shape(), zero.data()}};
    std::vector<ArrayView> outs{{&out.shape(), out.data()}};
    KernelArgs args;
    args.operands = ins;
    args.results = outs;
    args.pool = &pool;
    ASSERT_TRUE((*kernel)(args).ok());
    EXPECT_EQ(out.ToVector<int32_t>(),
              Windowed<int32_t>(values, dims, axis, axis == 2, 3,
                                [](int32_t a, int32_t b) { return a + b; }));
  }
}

TEST(CumulativeWindow, AnyRegionForwardCallsItOncePerElement) {
  // fmod is neither associative nor commutative: forward, the scan still
  // applies it in the window's order, once per element.
  auto rem = BinaryRegion(Opcode::kRemainder, ElementType::kF32);
  std::vector<float> values = {7, 5, 3, 9, 4, 6, 2, 8};
  OpUnderTest t;
  auto* r = Window(t, testing_util::F32({2, 4}),
                   CumulativeWindow({2, 4}, 1, false), rem.get());
  Literal x = Literal::FromVector<float>({2, 4}, values);
  Literal hundred = Literal::Scalar<float>(100);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*r, {&x, &hundred}, &runner).ToVector<float>(),
            Windowed<float>(values, {2, 4}, 1, false, 100.0f,
                            [](float a, float b) { return std::fmod(a, b); }));
  EXPECT_EQ(runner.calls, 8);
}

TEST(CumulativeWindow, ReverseWithAnOrderSensitiveRegionStaysWindowed) {
  auto rem = BinaryRegion(Opcode::kRemainder, ElementType::kF32);
  OpUnderTest t;
  auto* r = Window(t, testing_util::F32({4}), CumulativeWindow({4}, 0, true),
                   rem.get());
  EXPECT_FALSE(MakeCumulativeWindowKernel(*r).has_value());
  std::vector<float> values = {7, 5, 3, 9};
  Literal x = Literal::Vector<float>(values);
  Literal hundred = Literal::Scalar<float>(100);
  TestRegionRunner runner;
  EXPECT_EQ(RunOne(*r, {&x, &hundred}, &runner).ToVector<float>(),
            Windowed<float>(values, {4}, 0, true, 100.0f,
                            [](float a, float b) { return std::fmod(a, b); }));
  EXPECT_EQ(runner.calls, 4 + 3 + 2 + 1);
}

// Byte floats round every step, so XLA:CPU's order decides the bytes: a
// scan longer than 16 runs in blocks of 16 whose totals are scanned and
// added back (cumulative_window.cc). Expected bytes: jax 0.10.2,
// lax.cumsum(x) and lax.cumsum(x[::-1], reverse=True) on XLA:CPU for x =
// [16, 0.5 x 19] in f8e4m3fn (16 + 0.5 rounds back to 16, spacing 2).
TEST(CumulativeWindow, ByteFloatSumsInXlasBlocksOf16) {
  constexpr ElementType kE4 = ElementType::kF8E4M3FN;
  auto add = BinaryRegion(Opcode::kAdd, kE4);
  std::vector<uint8_t> x(20, 0x30);  // 0.5
  x[0] = 0x58;                       // 16
  const uint8_t zero = 0;
  Literal init = Literal::FromBytes(Shape::Scalar(kE4), &zero, 1);
  auto run = [&](const std::vector<uint8_t>& values, bool reverse) {
    OpUnderTest t;
    const Shape shape = Shape::Array(kE4, {20});
    auto* r = Window(t, shape, CumulativeWindow({20}, 0, reverse), add.get());
    Literal in = Literal::FromBytes(shape, values.data(), values.size());
    const Literal out = RunOne(*r, {&in, &init});
    const uint8_t* bytes = static_cast<const uint8_t*>(out.data());
    return std::vector<uint8_t>(bytes, bytes + 20);
  };
  // In order every sum stays 16 (0x58); XLA's second block sums its three
  // and four halves first: 16 + 1.5 = 17.5 -> 18 (0x59), 16 + 2 = 18.
  std::vector<uint8_t> forward(20, 0x58);
  forward[18] = forward[19] = 0x59;
  EXPECT_EQ(run(x, false), forward);
  // Reversed: each block's windows fold forward from their own start.
  const std::vector<uint8_t> reverse = {93, 93, 92, 92, 92, 92, 92, 91, 91, 91,
                                        90, 90, 90, 90, 90, 89, 89, 88, 88, 88};
  EXPECT_EQ(run(std::vector<uint8_t>(x.rbegin(), x.rend()), true), reverse);
}

TEST(CumulativeWindow, OtherWindowsAreNotScans) {
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  auto matches = [&](const std::vector<int64_t>& dims,
                     std::vector<WindowDimension> window) {
    OpUnderTest t;
    auto* x = t.Param(testing_util::F32(dims));
    auto* init = t.Param(testing_util::F32({}));
    auto* r = t.Op(Opcode::kReduceWindow, testing_util::F32(dims), {x, init});
    r->window = std::move(window);
    r->AppendCalledComputation(add.get());
    return MatchCumulativeWindow(*r).has_value();
  };
  EXPECT_TRUE(matches({8}, CumulativeWindow({8}, 0, false)));
  // A moving sum of 3: the window does not span the axis.
  std::vector<WindowDimension> moving = CumulativeWindow({8}, 0, false);
  moving[0].size = 3;
  moving[0].padding_low = 2;
  EXPECT_FALSE(matches({8}, moving));
  // Padded on both sides.
  std::vector<WindowDimension> both = CumulativeWindow({8}, 0, false);
  both[0].padding_high = 1;
  EXPECT_FALSE(matches({8}, both));
  // Strided.
  std::vector<WindowDimension> strided = CumulativeWindow({8}, 0, false);
  strided[0].stride = 2;
  EXPECT_FALSE(matches({8}, strided));
  // Two scanned axes.
  std::vector<WindowDimension> two = CumulativeWindow({4, 4}, 0, false);
  two[1] = CumulativeWindow({4, 4}, 1, false)[1];
  EXPECT_FALSE(matches({4, 4}, two));
  // Nothing scanned at all.
  EXPECT_FALSE(matches({4, 4}, std::vector<WindowDimension>(2)));
}

}  // namespace
}  // namespace xffi::cpu
