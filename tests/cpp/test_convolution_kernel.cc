// convolution against a naive reference written here: the StableHLO
// specification's formula evaluated per result element over the operands'
// own layouts, across layouts, 1-3 spatial dimensions, strides, padding
// (negative too), lhs/rhs dilation, reversal, feature and batch groups and
// element types. The kernel packs, groups and GEMMs; the reference does none
// of that.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu/dnnl_gemm.h"
#include "cpu/index_util.h"
#include "ir/float_types.h"
#include "ir/shape_inference.h"
#include "kernel_test_util.h"
#include "xffi/runtime/thread_pool.h"

namespace xffi::cpu {
namespace {

using testing_util::OpUnderTest;
using testing_util::RunKernel;

struct Case {
  std::vector<int64_t> lhs_dims, rhs_dims;
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  int64_t feature_groups = 1, batch_groups = 1;
};

// Element i of each operand: small integers, so every type holds them
// exactly and sums stay exact in f32.
double Value(int64_t i, int salt) {
  return static_cast<double>((i * (7 + salt) + salt) % 9) - 4;
}

Literal Fill(ElementType type, const std::vector<int64_t>& dims, int salt) {
  Literal literal(Shape::Array(type, dims));
  const int64_t n = Product(dims);
  char* data = static_cast<char*>(literal.data());
  const size_t size = ElementByteSize(type);
  for (int64_t i = 0; i < n; ++i) {
    const double v = Value(i, salt);
    char* p = data + i * static_cast<int64_t>(size);
    switch (type) {
      case ElementType::kF32:
        *reinterpret_cast<float*>(p) = static_cast<float>(v);
        break;
      case ElementType::kF64:
        *reinterpret_cast<double*>(p) = v;
        break;
      case ElementType::kF16:
        *reinterpret_cast<uint16_t*>(p) = FloatToHalf(static_cast<float>(v));
        break;
      case ElementType::kBF16:
        *reinterpret_cast<uint16_t*>(p) =
            FloatToBFloat16(static_cast<float>(v));
        break;
      case ElementType::kS8:
        *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v);
        break;
      case ElementType::kS32:
        *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
        break;
      case ElementType::kC64:
        *reinterpret_cast<std::complex<float>*>(p) = {
            static_cast<float>(v), static_cast<float>(Value(i, salt + 1))};
        break;
      default:
        ADD_FAILURE() << "no filler for this type";
    }
  }
  return literal;
}

std::complex<double> Read(const Literal& literal, int64_t i) {
  const char* p =
      static_cast<const char*>(literal.data()) +
      i * static_cast<int64_t>(ElementByteSize(literal.shape().element_type()));
  switch (literal.shape().element_type()) {
    case ElementType::kF32:
      return *reinterpret_cast<const float*>(p);
    case ElementType::kF64:
      return *reinterpret_cast<const double*>(p);
    case ElementType::kF16:
      return HalfToFloat(*reinterpret_cast<const uint16_t*>(p));
    case ElementType::kBF16:
      return BFloat16ToFloat(*reinterpret_cast<const uint16_t*>(p));
    case ElementType::kS8:
      return *reinterpret_cast<const int8_t*>(p);
    case ElementType::kS32:
      return *reinterpret_cast<const int32_t*>(p);
    case ElementType::kC64: {
      auto v = *reinterpret_cast<const std::complex<float>*>(p);
      return {v.real(), v.imag()};
    }
    default:
      return 0;
  }
}

int64_t Offset(const std::vector<int64_t>& dims,
               const std::vector<int64_t>& index) {
  int64_t offset = 0;
  for (size_t d = 0; d < dims.size(); ++d) offset = offset * dims[d] + index[d];
  return offset;
}

// result[o] = sum over the group's input features and the window of
// lhs[dilated, padded position] * rhs[(reversed) window position].
std::vector<std::complex<double>> Reference(const Case& c, const Literal& lhs,
                                            const Literal& rhs,
                                            const Shape& out) {
  const ConvolutionDimensionNumbers& dn = c.dn;
  const size_t spatial = c.window.size();
  const int64_t out_features = out.dim(dn.output_feature_dimension);
  const int64_t out_batch = out.dim(dn.output_batch_dimension);
  const int64_t group_features =
      c.rhs_dims[static_cast<size_t>(dn.kernel_input_feature_dimension)];
  std::vector<std::complex<double>> result;
  std::vector<int64_t> o(static_cast<size_t>(out.rank()), 0);
  if (Product(out.dims()) == 0) return result;
  do {
    const int64_t f = o[static_cast<size_t>(dn.output_feature_dimension)];
    int64_t batch = o[static_cast<size_t>(dn.output_batch_dimension)];
    int64_t first_feature = 0;
    if (c.batch_groups > 1)
      batch += f / (out_features / c.batch_groups) * out_batch;
    if (c.feature_groups > 1)
      first_feature = f / (out_features / c.feature_groups) * group_features;
    std::complex<double> sum = 0;
    std::vector<int64_t> k(spatial, 0), kernel_sizes;
    for (size_t s = 0; s < spatial; ++s)
      kernel_sizes.push_back(
          c.rhs_dims[static_cast<size_t>(dn.kernel_spatial_dimensions[s])]);
    do {
      std::vector<int64_t> li(c.lhs_dims.size()), ri(c.rhs_dims.size());
      bool inside = true;
      for (size_t s = 0; s < spatial; ++s) {
        const WindowDimension& w = c.window[s];
        const int64_t at =
            o[static_cast<size_t>(dn.output_spatial_dimensions[s])] * w.stride +
            k[s] * w.window_dilation - w.padding_low;
        const int64_t in_size =
            c.lhs_dims[static_cast<size_t>(dn.input_spatial_dimensions[s])];
        if (at < 0 || at % w.base_dilation != 0 ||
            at / w.base_dilation >= in_size)
          inside = false;
        li[static_cast<size_t>(dn.input_spatial_dimensions[s])] =
            at / w.base_dilation;
        ri[static_cast<size_t>(dn.kernel_spatial_dimensions[s])] =
            w.window_reversal ? kernel_sizes[s] - 1 - k[s] : k[s];
      }
      if (inside)
        for (int64_t i = 0; i < group_features; ++i) {
          li[static_cast<size_t>(dn.input_batch_dimension)] = batch;
          li[static_cast<size_t>(dn.input_feature_dimension)] =
              first_feature + i;
          ri[static_cast<size_t>(dn.kernel_input_feature_dimension)] = i;
          ri[static_cast<size_t>(dn.kernel_output_feature_dimension)] = f;
          sum += Read(lhs, Offset(c.lhs_dims, li)) *
                 Read(rhs, Offset(c.rhs_dims, ri));
        }
    } while (NextIndex(k, kernel_sizes));
    result.push_back(sum);
  } while (NextIndex(o, out.dims()));
  return result;
}

// Builds the op, infers its result, runs the kernel (on a pool when given)
// and compares with the reference.
void Check(const Case& c, ElementType lhs_type, ElementType rhs_type,
           ElementType result_type, ThreadPool* pool = nullptr) {
  OpUnderTest t;
  Instruction* a = t.Param(Shape::Array(lhs_type, c.lhs_dims));
  Instruction* b = t.Param(Shape::Array(rhs_type, c.rhs_dims));
  Instruction* conv =
      t.Op(Opcode::kConvolution, Shape::Array(result_type, {}), {a, b});
  conv->convolution_dimension_numbers = c.dn;
  conv->window = c.window;
  conv->feature_group_count = c.feature_groups;
  conv->batch_group_count = c.batch_groups;
  StatusOr<Shape> shape = InferShape(*conv);
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  conv->set_shape(*shape);
  Literal lhs = Fill(lhs_type, c.lhs_dims, 1);
  Literal rhs = Fill(rhs_type, c.rhs_dims, 2);
  StatusOr<Kernel> kernel = MakeStructuralKernel(*conv);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal result(*shape);
  std::vector<ArrayView> ins = {{&lhs.shape(), lhs.data()},
                                {&rhs.shape(), rhs.data()}};
  std::vector<ArrayView> outs = {{&result.shape(), result.data()}};
  KernelArgs args;
  args.operands = ins;
  args.results = outs;
  args.pool = pool;
  ASSERT_TRUE((*kernel)(args).ok());
  std::vector<std::complex<double>> expected = Reference(c, lhs, rhs, *shape);
  ASSERT_EQ(static_cast<int64_t>(expected.size()), Product(shape->dims()));
  for (size_t i = 0; i < expected.size(); ++i) {
    std::complex<double> want = expected[i];
    if (result_type == ElementType::kS8)  // wraps as XLA's integers do
      want = static_cast<int8_t>(static_cast<int64_t>(want.real()));
    ASSERT_EQ(Read(result, static_cast<int64_t>(i)), want)
        << "element " << i << " of " << shape->ToString();
  }
}

// NHWC input, HWIO kernel, NHWC result: what Flax writes.
Case Nhwc(int64_t n, int64_t h, int64_t w, int64_t c, int64_t kh, int64_t kw,
          int64_t o) {
  Case k;
  k.lhs_dims = {n, h, w, c};
  k.rhs_dims = {kh, kw, c, o};
  k.dn = {0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
  k.window = {WindowDimension{kh}, WindowDimension{kw}};
  return k;
}

TEST(ConvolutionKernel, NhwcValid) {
  Check(Nhwc(2, 5, 6, 3, 3, 2, 4), ElementType::kF32, ElementType::kF32,
        ElementType::kF32);
}

TEST(ConvolutionKernel, StridesPaddingAndDilations) {
  Case c = Nhwc(2, 7, 6, 3, 3, 2, 4);
  c.window[0] = {3, 2, 1, 2, 2, 1, false};  // size stride pad rhs lhs rev
  c.window[1] = {2, 1, 0, 1, 1, 2, false};
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

TEST(ConvolutionKernel, NegativePaddingAndReversal) {
  Case c = Nhwc(1, 8, 7, 2, 3, 3, 3);
  c.window[0] = {3, 1, -2, 1, 1, 1, true};
  c.window[1] = {3, 2, 2, -1, 1, 1, false};
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// NCHW / OIHW / NCHW: lax.conv's default, which the kernel computes
// channels-first.
TEST(ConvolutionKernel, NchwOihw) {
  Case c;
  c.lhs_dims = {2, 3, 6, 5};
  c.rhs_dims = {4, 3, 3, 2};
  c.dn = {0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
  c.window = {{3, 1, 1, 1, 1, 1, false}, {2, 2, 0, 1, 1, 1, false}};
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  Check(c, ElementType::kBF16, ElementType::kBF16, ElementType::kF32);
  Check(c, ElementType::kS8, ElementType::kS8, ElementType::kS32);
  c.window[0].window_reversal = true;
  c.window[1].base_dilation = 2;
  Check(c, ElementType::kF64, ElementType::kF64, ElementType::kF64);
  // Channels first with feature groups, then with batch groups.
  Case grouped = c;
  grouped.lhs_dims = {2, 6, 6, 5};
  grouped.rhs_dims = {4, 3, 3, 2};
  grouped.feature_groups = 2;
  Check(grouped, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  Case batched = c;
  batched.lhs_dims = {4, 3, 6, 5};
  batched.batch_groups = 2;
  Check(batched, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// Every role on a different position, the result laid out unlike either.
TEST(ConvolutionKernel, ScrambledLayouts) {
  Case c;
  c.lhs_dims = {5, 3, 2, 4};  // [1, f, b, 0]
  c.rhs_dims = {2, 4, 3, 2};  // [1, o, i, 0]
  c.dn = {2, 1, {3, 0}, 2, 1, {3, 0}, 3, 0, {1, 2}};
  c.window = {{2, 1, 0, 1, 1, 1, false}, {2, 2, 1, 0, 1, 1, false}};
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

TEST(ConvolutionKernel, OneAndThreeSpatialDimensions) {
  Case one;
  one.lhs_dims = {2, 9, 3};  // NWC
  one.rhs_dims = {3, 3, 5};  // WIO
  one.dn = {0, 2, {1}, 1, 2, {0}, 0, 2, {1}};
  one.window = {{3, 2, 1, 1, 2, 1, false}};
  Check(one, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  Case three;
  three.lhs_dims = {1, 2, 4, 5, 3};  // NCDHW
  three.rhs_dims = {3, 2, 2, 2, 3};  // OIDHW
  three.dn = {0, 1, {2, 3, 4}, 1, 0, {2, 3, 4}, 0, 1, {2, 3, 4}};
  three.window = {{2, 1, 1, 0, 1, 1, false},
                  {2, 2, 0, 1, 1, 2, false},
                  {3, 1, 1, 1, 1, 1, true}};
  Check(three, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// No spatial dimensions: a matrix product per group.
TEST(ConvolutionKernel, NoSpatialDimensions) {
  Case c;
  c.lhs_dims = {3, 4};
  c.rhs_dims = {4, 5};
  c.dn = {0, 1, {}, 0, 1, {}, 0, 1, {}};
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

TEST(ConvolutionKernel, FeatureGroupsAndDepthwise) {
  Case grouped = Nhwc(2, 5, 5, 6, 3, 3, 4);
  grouped.rhs_dims = {3, 3, 3, 4};  // two groups of three features
  grouped.feature_groups = 2;
  grouped.window[0].padding_low = grouped.window[0].padding_high = 1;
  Check(grouped, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  Case depthwise = Nhwc(1, 6, 6, 4, 3, 3, 8);
  depthwise.rhs_dims = {3, 3, 1, 8};  // channel multiplier 2
  depthwise.feature_groups = 4;
  depthwise.window[1].stride = 2;
  Check(depthwise, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// Depthwise with one output per feature and padding, in f64; a 1x1
// convolution (whose input is its own im2col matrix).
TEST(ConvolutionKernel, DepthwiseAndPointwise) {
  Case depthwise = Nhwc(2, 5, 6, 3, 3, 2, 3);
  depthwise.rhs_dims = {3, 2, 1, 3};
  depthwise.feature_groups = 3;
  depthwise.window[0].padding_low = 2;
  depthwise.window[1].window_dilation = 2;
  Check(depthwise, ElementType::kF64, ElementType::kF64, ElementType::kF64);
  Check(Nhwc(2, 4, 5, 6, 1, 1, 7), ElementType::kF32, ElementType::kF32,
        ElementType::kF32);
}

// What JAX emits for the kernel gradient of a grouped convolution.
TEST(ConvolutionKernel, BatchGroups) {
  Case c = Nhwc(6, 5, 4, 2, 2, 2, 6);
  c.batch_groups = 3;
  c.window[0].padding_high = 1;
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// Transposed convolution: lhs dilation with padding of kernel - 1 and a
// reversed kernel.
TEST(ConvolutionKernel, Transposed) {
  Case c = Nhwc(1, 4, 3, 2, 3, 3, 2);
  for (WindowDimension& w : c.window) {
    w.base_dilation = 2;
    w.padding_low = w.padding_high = 2;
    w.window_reversal = true;
  }
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

TEST(ConvolutionKernel, ElementTypes) {
  Case c = Nhwc(2, 5, 4, 3, 2, 3, 2);
  c.window[0].padding_low = 1;
  c.window[1].base_dilation = 2;
  Check(c, ElementType::kF64, ElementType::kF64, ElementType::kF64);
  Check(c, ElementType::kF16, ElementType::kF16, ElementType::kF16);
  Check(c, ElementType::kBF16, ElementType::kBF16, ElementType::kF32);
  Check(c, ElementType::kS32, ElementType::kS32, ElementType::kS32);
  Check(c, ElementType::kS8, ElementType::kS8, ElementType::kS32);
  Check(c, ElementType::kS8, ElementType::kS8, ElementType::kS8);
  Check(c, ElementType::kC64, ElementType::kC64, ElementType::kC64);
}

TEST(ConvolutionKernel, EmptyOperands) {
  Case no_batch = Nhwc(0, 4, 4, 2, 2, 2, 3);
  Check(no_batch, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  Case no_features = Nhwc(2, 4, 4, 0, 2, 2, 3);  // the result is zeros
  Check(no_features, ElementType::kF32, ElementType::kF32, ElementType::kF32);
}

// Large enough that the packing splits into blocks and runs on the pool.
TEST(ConvolutionKernel, LargeOnThreadPool) {
  ThreadPool pool(2);
  Case c = Nhwc(4, 40, 40, 16, 3, 3, 8);
  c.window[0].padding_low = c.window[0].padding_high = 1;
  c.window[1].stride = 2;
  Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32, &pool);
}

// Layers in the layouts oneDNN's convolution reads in place (NCHW/OIHW
// grouped, strided and dilated; NHWC/HWIO padded and strided).
std::vector<Case> OneDnnLayers() {
  Case nchw;
  nchw.lhs_dims = {3, 16, 12, 11};
  nchw.rhs_dims = {24, 8, 3, 3};
  nchw.dn = {0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
  nchw.window = {{3, 1, 1, 1, 1, 1, false}, {3, 2, 2, 1, 2, 1, false}};
  nchw.feature_groups = 2;
  Case nhwc = Nhwc(3, 13, 10, 32, 3, 3, 40);
  nhwc.window[0].padding_low = nhwc.window[0].padding_high = 1;
  nhwc.window[1].stride = 2;
  return {nchw, nhwc};
}

// f32 convolutions go through oneDNN when the build has it; the same
// layers, and batch groups, with it switched off (im2col with OpenBLAS's or
// Eigen's GEMM, as in a build without oneDNN).
TEST(ConvolutionKernel, WithoutOneDnn) {
  const bool had = HaveDnnl();
  SetDnnlEnabled(false);
  ThreadPool pool(2);
  for (const Case& c : OneDnnLayers())
    Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32, &pool);
  Case batched = Nhwc(6, 5, 4, 2, 2, 2, 6);
  batched.batch_groups = 3;
  Check(batched, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  SetDnnlEnabled(had);
}

// The same layers with random values: with oneDNN the same bits on any
// number of threads (one batch element per task), and within rounding of
// the im2col path.
TEST(ConvolutionKernel, OneDnnMatchesIm2colOnRandomLayers) {
  for (const Case& c : OneDnnLayers()) {
    OpUnderTest t;
    Instruction* a = t.Param(Shape::Array(ElementType::kF32, c.lhs_dims));
    Instruction* b = t.Param(Shape::Array(ElementType::kF32, c.rhs_dims));
    Instruction* conv =
        t.Op(Opcode::kConvolution, Shape::Array(ElementType::kF32, {}), {a, b});
    conv->convolution_dimension_numbers = c.dn;
    conv->window = c.window;
    conv->feature_group_count = c.feature_groups;
    StatusOr<Shape> shape = InferShape(*conv);
    ASSERT_TRUE(shape.ok()) << shape.status().ToString();
    conv->set_shape(*shape);
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> value(-1, 1);
    auto random = [&](const std::vector<int64_t>& dims) {
      std::vector<float> v(static_cast<size_t>(Product(dims)));
      for (float& e : v) e = value(gen);
      return Literal::FromVector<float>(dims, v);
    };
    Literal lhs = random(c.lhs_dims), rhs = random(c.rhs_dims);
    StatusOr<Kernel> library = MakeStructuralKernel(*conv);
    ASSERT_TRUE(library.ok()) << library.status().ToString();
    const bool had = HaveDnnl();
    SetDnnlEnabled(false);
    StatusOr<Kernel> im2col = MakeStructuralKernel(*conv);
    SetDnnlEnabled(had);
    ASSERT_TRUE(im2col.ok()) << im2col.status().ToString();
    const std::vector<float> want =
        testing_util::RunOnThreads(*im2col, {&lhs, &rhs}, *shape, 0)
            .ToVector<float>();
    std::vector<float> first;
    for (int threads : {0, 1, 3}) {
      std::vector<float> got =
          testing_util::RunOnThreads(*library, {&lhs, &rhs}, *shape, threads)
              .ToVector<float>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4) << "element " << i;
      // oneDNN's results do not depend on the pool; the im2col path's may
      // (OpenBLAS's sgemm on row blocks measured last-bit differences).
      if (first.empty()) {
        first = got;
      } else if (HaveDnnl()) {
        EXPECT_EQ(got, first) << "threads " << threads;
      }
    }
  }
}

// Random small cases: random layouts, sizes, windows and groups.
TEST(ConvolutionKernel, RandomCases) {
  std::mt19937 gen(12);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  };
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t spatial = pick(1, 3);
    const int64_t rank = spatial + 2;
    auto permutation = [&] {
      std::vector<int64_t> p(static_cast<size_t>(rank));
      std::iota(p.begin(), p.end(), 0);
      std::shuffle(p.begin(), p.end(), gen);
      return p;
    };
    std::vector<int64_t> lp = permutation(), kp = permutation(),
                         op = permutation();
    Case c;
    c.dn.input_batch_dimension = lp[0];
    c.dn.input_feature_dimension = lp[1];
    c.dn.kernel_input_feature_dimension = kp[0];
    c.dn.kernel_output_feature_dimension = kp[1];
    c.dn.output_batch_dimension = op[0];
    c.dn.output_feature_dimension = op[1];
    const int64_t mode = pick(0, 2);  // plain, feature groups, batch groups
    const int64_t groups = mode == 0 ? 1 : pick(2, 3);
    if (mode == 1) c.feature_groups = groups;
    if (mode == 2) c.batch_groups = groups;
    const int64_t batch = pick(1, 2) * (mode == 2 ? groups : 1);
    const int64_t group_features = pick(1, 3);
    const int64_t features = group_features * (mode == 1 ? groups : 1);
    const int64_t out_features = pick(1, 2) * groups;
    c.lhs_dims.assign(static_cast<size_t>(rank), 0);
    c.rhs_dims.assign(static_cast<size_t>(rank), 0);
    c.lhs_dims[static_cast<size_t>(lp[0])] = batch;
    c.lhs_dims[static_cast<size_t>(lp[1])] = features;
    c.rhs_dims[static_cast<size_t>(kp[0])] = group_features;
    c.rhs_dims[static_cast<size_t>(kp[1])] = out_features;
    for (int64_t s = 0; s < spatial; ++s) {
      c.dn.input_spatial_dimensions.push_back(lp[static_cast<size_t>(s + 2)]);
      c.dn.kernel_spatial_dimensions.push_back(kp[static_cast<size_t>(s + 2)]);
      c.dn.output_spatial_dimensions.push_back(op[static_cast<size_t>(s + 2)]);
      const int64_t in = pick(1, 6), k = pick(1, 3);
      c.lhs_dims[static_cast<size_t>(lp[static_cast<size_t>(s + 2)])] = in;
      c.rhs_dims[static_cast<size_t>(kp[static_cast<size_t>(s + 2)])] = k;
      WindowDimension w;
      w.size = k;
      w.stride = pick(1, 2);
      w.base_dilation = pick(1, 2);
      w.window_dilation = pick(1, 2);
      const int64_t dilated_in = (in - 1) * w.base_dilation + 1;
      const int64_t dilated_k = (k - 1) * w.window_dilation + 1;
      // Keep at least one window position: negative padding only as far
      // as the input allows.
      w.padding_low = pick(-1, 2);
      w.padding_high = pick(-1, 2);
      while (dilated_in + w.padding_low + w.padding_high < dilated_k) {
        ++w.padding_low;
        ++w.padding_high;
      }
      w.window_reversal = pick(0, 1) == 1;
      c.window.push_back(w);
    }
    Check(c, ElementType::kF32, ElementType::kF32, ElementType::kF32);
  }
}

}  // namespace
}  // namespace xffi::cpu
