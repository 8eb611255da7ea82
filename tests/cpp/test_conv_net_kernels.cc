// select-and-scatter against a naive max-pool gradient written here
// (compiled regions and the RegionRunner path), and the batch-norm kernels
// against their defining properties: training normalises each feature to
// the offset's mean and the scale's spread, inference applies given
// statistics, and grad is the derivative of training (finite differences).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"
#include "pool_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::BinaryRegion;
using testing_util::F32;
using testing_util::OpUnderTest;
using testing_util::PoolInput;
using testing_util::RunKernel;
using testing_util::TestRegionRunner;
using testing_util::Win;
using testing_util::WrappedRegion;

// select(a, b) = f(a) >= f(b), f = identity or (with `remainder`) x mod 7,
// which ScalarProgram does not compile, so the RegionRunner runs it.
std::unique_ptr<Computation> GeRegion(bool remainder) {
  auto c = std::make_unique<Computation>("ge");
  const Shape s = Shape::Scalar(ElementType::kF32);
  Instruction* a = c->AddInstruction(Opcode::kParameter, s, {}, "a");
  a->parameter_number = 0;
  Instruction* b = c->AddInstruction(Opcode::kParameter, s, {}, "b");
  b->parameter_number = 1;
  if (remainder) {
    Instruction* seven = c->AddInstruction(Opcode::kConstant, s, {}, "seven");
    seven->literal = Literal::Scalar<float>(7);
    a = c->AddInstruction(Opcode::kRemainder, s, {a, seven}, "ra");
    b = c->AddInstruction(Opcode::kRemainder, s, {b, seven}, "rb");
  }
  Instruction* ge = c->AddInstruction(
      Opcode::kCompare, Shape::Scalar(ElementType::kPred), {a, b}, "ge");
  ge->comparison_direction = ComparisonDirection::kGe;
  c->set_root(ge);
  return c;
}

struct Pool {
  int64_t rows, cols, size, stride, pad_low, pad_high;
};

void CheckSelectAndScatter(const Pool& p, bool remainder) {
  std::vector<float> x(static_cast<size_t>(p.rows * p.cols));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((static_cast<int64_t>(i) * 5 + 3) % 11);
  const int64_t padded_rows = p.rows + p.pad_low + p.pad_high;
  const int64_t padded_cols = p.cols + p.pad_low + p.pad_high;
  const int64_t out_rows = (padded_rows - p.size) / p.stride + 1;
  const int64_t out_cols = (padded_cols - p.size) / p.stride + 1;
  std::vector<float> source(static_cast<size_t>(out_rows * out_cols));
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = static_cast<float>(i) + 0.5f;

  // The reference: per window, the first element no later one beats.
  auto key = [&](float v) { return remainder ? std::fmod(v, 7.0f) : v; };
  std::vector<float> expected(x.size(), 1.0f);  // the init value
  for (int64_t r = 0; r < out_rows; ++r)
    for (int64_t c = 0; c < out_cols; ++c) {
      int64_t best = -1;
      for (int64_t i = 0; i < p.size; ++i)
        for (int64_t j = 0; j < p.size; ++j) {
          const int64_t xr = r * p.stride + i - p.pad_low;
          const int64_t xc = c * p.stride + j - p.pad_low;
          if (xr < 0 || xr >= p.rows || xc < 0 || xc >= p.cols) continue;
          const int64_t at = xr * p.cols + xc;
          if (best < 0 || !(key(x[static_cast<size_t>(best)]) >=
                            key(x[static_cast<size_t>(at)])))
            best = at;
        }
      if (best >= 0)
        expected[static_cast<size_t>(best)] +=
            source[static_cast<size_t>(r * out_cols + c)];
    }

  OpUnderTest t;
  auto* operand = t.Param(F32({p.rows, p.cols}));
  auto* src = t.Param(F32({out_rows, out_cols}));
  auto* init = t.Param(F32({}));
  auto* op = t.Op(Opcode::kSelectAndScatter, F32({p.rows, p.cols}),
                  {operand, src, init});
  auto select = GeRegion(remainder);
  auto add = BinaryRegion(Opcode::kAdd, ElementType::kF32);
  op->AppendCalledComputation(select.get());
  op->AppendCalledComputation(add.get());
  op->window.assign(2, {p.size, p.stride, p.pad_low, p.pad_high, 1, 1, false});
  Literal lx = Literal::FromVector<float>({p.rows, p.cols}, x);
  Literal ls = Literal::FromVector<float>({out_rows, out_cols}, source);
  Literal li = Literal::Scalar<float>(1.0f);
  TestRegionRunner runner;
  EXPECT_EQ(
      testing_util::RunOne(*op, {&lx, &ls, &li}, &runner).ToVector<float>(),
      expected);
  EXPECT_EQ(runner.calls > 0, remainder);
}

TEST(SelectAndScatterKernel, MaxPoolGradient) {
  CheckSelectAndScatter({6, 8, 2, 2, 0, 0}, false);
}

TEST(SelectAndScatterKernel, OverlappingPaddedWindows) {
  CheckSelectAndScatter({5, 7, 3, 1, 1, 1}, false);
  CheckSelectAndScatter({7, 6, 3, 2, 0, 2}, false);
}

TEST(SelectAndScatterKernel, RegionRunnerPath) {
  CheckSelectAndScatter({5, 6, 3, 2, 1, 1}, true);
}

// --- the row fast path (window_rows.h) against the general path ----------
//
// The same select-and-scatter twice: with compare/add regions (the fast
// path) and with each wrapped in an identity convert, which the general
// path evaluates window by window. Bit for bit on 1, 2 and 3 threads.

// select(a, b) = compare(a, b) in `direction`, wrapped or not.
std::unique_ptr<Computation> SelectRegion(ComparisonDirection direction,
                                          ElementType type, bool wrapped) {
  auto c = std::make_unique<Computation>("select");
  const Shape s = Shape::Scalar(type);
  const Shape pred = Shape::Scalar(ElementType::kPred);
  Instruction* a = c->AddInstruction(Opcode::kParameter, s, {}, "a");
  a->parameter_number = 0;
  Instruction* b = c->AddInstruction(Opcode::kParameter, s, {}, "b");
  b->parameter_number = 1;
  Instruction* cmp = c->AddInstruction(Opcode::kCompare, pred, {a, b}, "cmp");
  cmp->comparison_direction = direction;
  c->set_root(wrapped ? c->AddInstruction(Opcode::kConvert, pred, {cmp}, "same")
                      : cmp);
  return c;
}

template <typename T>
void CheckSelectAgainstGeneral(ElementType type, ComparisonDirection direction,
                               std::vector<int64_t> dims,
                               std::vector<WindowDimension> window) {
  std::vector<int64_t> source_dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    const WindowDimension& w = window[d];
    const int64_t padded = dims[d] + w.padding_low + w.padding_high;
    source_dims.push_back(padded < w.size ? 0
                                          : (padded - w.size) / w.stride + 1);
  }
  const Shape operand_shape = Shape::Array(type, dims);
  const Shape source_shape = Shape::Array(type, source_dims);
  auto count = [](const std::vector<int64_t>& d) {
    return std::accumulate(d.begin(), d.end(), int64_t{1},
                           std::multiplies<int64_t>());
  };
  std::vector<T> operand_values = PoolInput<T>(count(dims), 7);
  // Sources whose sums round differently in another order.
  std::vector<T> source_values(static_cast<size_t>(count(source_dims)));
  for (size_t i = 0; i < source_values.size(); ++i)
    source_values[i] =
        std::is_floating_point_v<T>
            ? static_cast<T>(i % 3 == 0 ? 1e7 + 0.5 * i : 0.3 * (i % 11))
            : static_cast<T>(i * 37 + 11);
  Literal operand = Literal::FromBytes(operand_shape, operand_values.data(),
                                       operand_values.size() * sizeof(T));
  Literal source = Literal::FromBytes(source_shape, source_values.data(),
                                      source_values.size() * sizeof(T));
  const T init_value = static_cast<T>(1);
  Literal init =
      Literal::FromBytes(Shape::Scalar(type), &init_value, sizeof(T));

  std::vector<std::unique_ptr<Computation>> regions;
  auto make = [&](OpUnderTest& t, bool wrapped) {
    auto* o = t.Param(operand_shape);
    auto* src = t.Param(source_shape);
    auto* i = t.Param(Shape::Scalar(type));
    auto* op = t.Op(Opcode::kSelectAndScatter, operand_shape, {o, src, i});
    regions.push_back(SelectRegion(direction, type, wrapped));
    op->AppendCalledComputation(regions.back().get());
    regions.push_back(wrapped ? WrappedRegion(Opcode::kAdd, type)
                              : BinaryRegion(Opcode::kAdd, type));
    op->AppendCalledComputation(regions.back().get());
    op->window = window;
    StatusOr<Kernel> kernel = MakeStructuralKernel(*op);
    EXPECT_TRUE(kernel.ok()) << kernel.status().ToString();
    return kernel.ok() ? *kernel : Kernel();
  };
  OpUnderTest fast_op, general_op;
  const Kernel fast = make(fast_op, false);
  const Kernel general = make(general_op, true);
  if (!fast || !general) return;
  const Literal want = testing_util::RunOnThreads(
      general, {&operand, &source, &init}, operand_shape, 0);
  for (int threads : {0, 2, 3}) {
    const Literal got = testing_util::RunOnThreads(
        fast, {&operand, &source, &init}, operand_shape, threads);
    EXPECT_EQ(testing_util::FirstDifference<T>(got, want, false), "")
        << ElementTypeName(type) << " on " << threads << " threads";
  }
}

TEST(SelectAndScatterKernel, RowsMatchGeneralPathNhwc) {
  using D = ComparisonDirection;
  // Max-pool gradients: 2x2/2 VALID (cnn_train_step), 3x3/2 SAME
  // (overlapping windows adding into one element), 3x3/1 SAME.
  CheckSelectAgainstGeneral<float>(ElementType::kF32, D::kGe, {3, 8, 8, 17},
                                   {Win(1), Win(2, 2), Win(2, 2), Win(1)});
  CheckSelectAgainstGeneral<float>(
      ElementType::kF32, D::kGe, {2, 9, 7, 5},
      {Win(1), Win(3, 2, 1, 1), Win(3, 2, 1, 1), Win(1)});
  CheckSelectAgainstGeneral<double>(
      ElementType::kF64, D::kGt, {2, 6, 7, 3},
      {Win(1), Win(3, 1, 1, 1), Win(3, 1, 1, 1), Win(1)});
  // Min-pool gradient, integers in their own order.
  CheckSelectAgainstGeneral<int32_t>(
      ElementType::kS32, D::kLe, {2, 6, 6, 4},
      {Win(1), Win(2, 2), Win(3, 1, 1, 1), Win(1)});
}

TEST(SelectAndScatterKernel, RowsMatchGeneralPathNchwAndOddShapes) {
  using D = ComparisonDirection;
  CheckSelectAgainstGeneral<float>(ElementType::kF32, D::kGe, {2, 3, 8, 33},
                                   {Win(1), Win(1), Win(2, 2), Win(2, 2)});
  CheckSelectAgainstGeneral<float>(
      ElementType::kF32, D::kGe, {2, 3, 9, 11},
      {Win(1), Win(1), Win(3, 2, 1, 1), Win(3, 2, 1, 1)});
  CheckSelectAgainstGeneral<float>(
      ElementType::kF32, D::kLt, {1, 2, 7, 13},
      {Win(1), Win(1), Win(3, 1, 1, 1), Win(4, 1, 2, 1)});
  // Rank 1; padding wider than the window; windows past the end.
  CheckSelectAgainstGeneral<float>(ElementType::kF32, D::kGe, {40},
                                   {Win(4, 3, 2, 2)});
  CheckSelectAgainstGeneral<float>(ElementType::kF32, D::kGe, {4, 6},
                                   {Win(2, 1, 3, 3), Win(3, 2, 0, 2)});
  CheckSelectAgainstGeneral<uint8_t>(ElementType::kU8, D::kGe, {5, 6},
                                     {Win(2, 2), Win(2, 1)});
}

// Large enough to be split across the pool, overlapping and not.
TEST(SelectAndScatterKernel, RowsSplitAcrossThreadsMatchGeneralPath) {
  using D = ComparisonDirection;
  CheckSelectAgainstGeneral<float>(ElementType::kF32, D::kGe, {4, 32, 32, 16},
                                   {Win(1), Win(2, 2), Win(2, 2), Win(1)});
  CheckSelectAgainstGeneral<float>(
      ElementType::kF32, D::kGe, {4, 8, 33, 32},
      {Win(1), Win(1), Win(3, 2, 1, 1), Win(3, 2, 1, 1)});
}

// x laid out [2, 3, 4], features on dimension 1.
struct BatchNormData {
  std::vector<double> x, scale, offset, dy;
  BatchNormData() {
    for (int i = 0; i < 24; ++i) {
      x.push_back(std::sin(i * 1.7) * 3 + (i % 3));
      dy.push_back(std::cos(i * 0.9));
    }
    scale = {1.5, -0.5, 2.0};
    offset = {0.25, 1.0, -2.0};
  }
};

Shape F64(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF64, std::move(dims));
}

int64_t Feature(int64_t i) { return (i / 4) % 3; }

// batch-norm-training's (output, mean, variance).
std::vector<Literal> Training(const BatchNormData& d, double epsilon) {
  OpUnderTest t;
  auto* x = t.Param(F64({2, 3, 4}));
  auto* s = t.Param(F64({3}));
  auto* o = t.Param(F64({3}));
  auto* bn =
      t.Op(Opcode::kBatchNormTraining,
           Shape::Tuple({F64({2, 3, 4}), F64({3}), F64({3})}), {x, s, o});
  bn->epsilon = static_cast<float>(epsilon);
  bn->feature_index = 1;
  StatusOr<Kernel> kernel = MakeStructuralKernel(*bn);
  EXPECT_TRUE(kernel.ok());
  Literal lx = Literal::FromVector<double>({2, 3, 4}, d.x);
  Literal ls = Literal::FromVector<double>({3}, d.scale);
  Literal lo = Literal::FromVector<double>({3}, d.offset);
  std::vector<Literal> out;
  out.emplace_back(F64({2, 3, 4}));
  out.emplace_back(F64({3}));
  out.emplace_back(F64({3}));
  EXPECT_TRUE(
      RunKernel(*kernel, {&lx, &ls, &lo}, {&out[0], &out[1], &out[2]}).ok());
  return out;
}

TEST(BatchNormKernel, TrainingNormalisesEachFeature) {
  BatchNormData d;
  std::vector<Literal> out = Training(d, 0.0);
  std::vector<double> y = out[0].ToVector<double>();
  std::vector<double> mean = out[1].ToVector<double>();
  std::vector<double> variance = out[2].ToVector<double>();
  for (int64_t f = 0; f < 3; ++f) {
    double m = 0, v = 0, ym = 0, yv = 0;
    for (int64_t i = 0; i < 24; ++i)
      if (Feature(i) == f) m += d.x[static_cast<size_t>(i)] / 8;
    for (int64_t i = 0; i < 24; ++i)
      if (Feature(i) == f) {
        v += std::pow(d.x[static_cast<size_t>(i)] - m, 2) / 8;
        ym += y[static_cast<size_t>(i)] / 8;
      }
    for (int64_t i = 0; i < 24; ++i)
      if (Feature(i) == f)
        yv += std::pow(y[static_cast<size_t>(i)] - ym, 2) / 8;
    EXPECT_NEAR(mean[static_cast<size_t>(f)], m, 1e-12);
    EXPECT_NEAR(variance[static_cast<size_t>(f)], v, 1e-12);
    EXPECT_NEAR(ym, d.offset[static_cast<size_t>(f)], 1e-12);
    EXPECT_NEAR(yv, std::pow(d.scale[static_cast<size_t>(f)], 2), 1e-9);
  }
}

TEST(BatchNormKernel, InferenceAppliesGivenStatistics) {
  BatchNormData d;
  const std::vector<double> mean = {0.5, -1, 2}, variance = {4, 0.25, 1};
  OpUnderTest t;
  std::vector<Instruction*> params = {t.Param(F64({2, 3, 4}))};
  for (int i = 0; i < 4; ++i) params.push_back(t.Param(F64({3})));
  auto* bn = t.Op(Opcode::kBatchNormInference, F64({2, 3, 4}), params);
  bn->epsilon = 0.5f;
  bn->feature_index = 1;
  Literal lx = Literal::FromVector<double>({2, 3, 4}, d.x);
  Literal ls = Literal::FromVector<double>({3}, d.scale);
  Literal lo = Literal::FromVector<double>({3}, d.offset);
  Literal lm = Literal::FromVector<double>({3}, mean);
  Literal lv = Literal::FromVector<double>({3}, variance);
  std::vector<double> y =
      testing_util::RunOne(*bn, {&lx, &ls, &lo, &lm, &lv}).ToVector<double>();
  ASSERT_EQ(y.size(), 24u);
  for (size_t i = 0; i < 24; ++i) {
    const size_t f = static_cast<size_t>(Feature(static_cast<int64_t>(i)));
    EXPECT_NEAR(y[i] * std::sqrt(variance[f] + 0.5),
                (d.x[i] - mean[f]) * d.scale[f] +
                    d.offset[f] * std::sqrt(variance[f] + 0.5),
                1e-12);
  }
}

// grad's results are the derivatives of L = sum(dy * training(x)) with
// respect to x, scale and offset.
TEST(BatchNormKernel, GradIsTheDerivativeOfTraining) {
  BatchNormData d;
  const double epsilon = 0.125;
  auto loss = [&](const BatchNormData& at) {
    std::vector<double> y = Training(at, epsilon)[0].ToVector<double>();
    double sum = 0;
    for (size_t i = 0; i < y.size(); ++i) sum += at.dy[i] * y[i];
    return sum;
  };
  std::vector<Literal> stats = Training(d, epsilon);
  OpUnderTest t;
  std::vector<Instruction*> params = {t.Param(F64({2, 3, 4}))};
  for (int i = 0; i < 3; ++i) params.push_back(t.Param(F64({3})));
  params.push_back(t.Param(F64({2, 3, 4})));
  auto* bn = t.Op(Opcode::kBatchNormGrad,
                  Shape::Tuple({F64({2, 3, 4}), F64({3}), F64({3})}), params);
  bn->epsilon = static_cast<float>(epsilon);
  bn->feature_index = 1;
  StatusOr<Kernel> kernel = MakeStructuralKernel(*bn);
  ASSERT_TRUE(kernel.ok());
  Literal lx = Literal::FromVector<double>({2, 3, 4}, d.x);
  Literal ls = Literal::FromVector<double>({3}, d.scale);
  Literal ldy = Literal::FromVector<double>({2, 3, 4}, d.dy);
  Literal dx(F64({2, 3, 4})), dscale(F64({3})), doffset(F64({3}));
  ASSERT_TRUE(RunKernel(*kernel, {&lx, &ls, &stats[1], &stats[2], &ldy},
                        {&dx, &dscale, &doffset})
                  .ok());
  const double h = 1e-6;
  auto numeric = [&](std::vector<double> BatchNormData::*field, size_t i) {
    BatchNormData up = d, down = d;
    (up.*field)[i] += h;
    (down.*field)[i] -= h;
    return (loss(up) - loss(down)) / (2 * h);
  };
  std::vector<double> gx = dx.ToVector<double>();
  for (size_t i = 0; i < 24; ++i)
    EXPECT_NEAR(gx[i], numeric(&BatchNormData::x, i), 1e-6) << i;
  for (size_t f = 0; f < 3; ++f) {
    EXPECT_NEAR(dscale.ToVector<double>()[f], numeric(&BatchNormData::scale, f),
                1e-6);
    EXPECT_NEAR(doffset.ToVector<double>()[f],
                numeric(&BatchNormData::offset, f), 1e-6);
  }
}

}  // namespace
}  // namespace xffi::cpu
