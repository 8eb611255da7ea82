// The device backend's element types and ops beyond the elementwise core
// (f16, bf16, c64, c128; scatter, sort, reduce-window) on SimDevice: each
// program runs on both backends, unfused and fused, and the device's results
// must be the CPU backend's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "compiler/compiler.h"
#include "device/sim_device.h"
#include "device/special_functions.h"
#include "device_backend/device_backend.h"
#include "device_backend/device_executor.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xla_max_min_table.h"

namespace xffi::device_backend {
namespace {

using ::testing::HasSubstr;

class DeviceOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto device = device::SimDevice::Create();
    ASSERT_TRUE(device.ok()) << device.status().message();
    std::shared_ptr<device::Device> shared(std::move(*device));
    DeviceBackendOptions options;
    options.device = [shared](const CompileOptions&)
        -> StatusOr<std::shared_ptr<device::Device>> { return shared; };
    backend_ = std::make_unique<DeviceBackend>(std::move(options));
  }

  StatusOr<std::unique_ptr<Executable>> CompileForDevice(
      const std::string& text, bool fuse_loops = true) {
    StatusOr<Module> module = ParseProgram(text, "program.hlo");
    if (!module.ok()) return module.status();
    CompileOptions options;
    options.platform = Platform::kCuda;
    options.fuse_loops = fuse_loops;
    return compiler::CompileWithBackend(std::move(*module), options, *backend_);
  }

  // `text` on SimDevice (with and without loop fusion) and on the CPU, on
  // `arguments`: every result must match. Returns the device's results.
  std::vector<Literal> ExpectSameAsHost(const std::string& text,
                                        const std::vector<Literal>& arguments,
                                        int64_t* fused_loops = nullptr) {
    StatusOr<Module> module = ParseProgram(text, "program.hlo");
    EXPECT_TRUE(module.ok()) << module.status().message();
    if (!module.ok()) return {};
    auto host = Compile(std::move(*module));
    EXPECT_TRUE(host.ok()) << host.status().message();
    if (!host.ok()) return {};
    StatusOr<std::vector<Literal>> want = (*host)->Execute(arguments);
    EXPECT_TRUE(want.ok()) << want.status().message();
    if (!want.ok()) return {};
    std::vector<Literal> last;
    for (bool fuse : {false, true}) {
      auto device = CompileForDevice(text, fuse);
      EXPECT_TRUE(device.ok()) << device.status().message();
      if (!device.ok()) return {};
      StatusOr<std::vector<Literal>> got = (*device)->Execute(arguments);
      EXPECT_TRUE(got.ok()) << got.status().message();
      if (!got.ok()) return {};
      EXPECT_EQ(got->size(), want->size());
      for (size_t k = 0; k < got->size() && k < want->size(); ++k) {
        Comparison comparison = CompareLiterals((*got)[k], (*want)[k]);
        EXPECT_TRUE(comparison.ok) << (fuse ? "fused" : "unfused") << " result "
                                   << k << ": " << comparison.detail;
      }
      if (fuse && fused_loops != nullptr)
        *fused_loops = GetDeviceExecutorStats(**device).fused_loops;
      last = std::move(*got);
    }
    return last;
  }

  std::unique_ptr<DeviceBackend> backend_;
};

// Deterministic values in [-scale, scale), with a few exact repeats.
std::vector<float> Values(size_t n, float scale, uint32_t seed) {
  std::vector<float> values(n);
  uint32_t state = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = scale * (static_cast<float>(state >> 8) / 8388608.0f - 1.0f);
    if (i % 7 == 3) values[i] = values[i / 2];
  }
  return values;
}

TEST_F(DeviceOpsTest, HalfAndBfloat16ElementwiseAndReduceMatchTheCpu) {
  const std::string text = R"(HloModule narrow
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
maxh {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT m = f16[] maximum(a, b)
}
ENTRY main {
  x = f32[6,40] parameter(0)
  y = f32[6,40] parameter(1)
  h = f16[6,40] convert(x)
  g = f16[6,40] convert(y)
  p = f16[6,40] multiply(h, g)
  q = f16[6,40] add(p, h)
  e = f16[6,40] exponential(g)
  d = f16[6,40] divide(q, e)
  b = bf16[6,40] convert(x)
  c = bf16[6,40] convert(y)
  bs = bf16[6,40] subtract(b, c)
  bt = bf16[6,40] tanh(bs)
  lt = pred[6,40] compare(h, g), direction=LT
  s = f16[6,40] select(lt, d, h)
  big = f32[6,40] multiply(x, x)
  huge = f16[6,40] convert(big)
  ninf = f16[] constant(-inf)
  rows = f16[6] reduce(s, ninf), dimensions={1}, to_apply=maxh
  wide = f32[6,40] convert(bt)
  zero = f32[] constant(0)
  sums = f32[6] reduce(wide, zero), dimensions={1}, to_apply=add
  ROOT t = (f16[6,40], bf16[6,40], f16[6], f32[6], f16[6,40]) tuple(s, bt, rows, sums, huge)
}
)";
  // Products up to 90000 overflow f16 (max 65504) to inf; tiny values are
  // its subnormals.
  std::vector<float> x = Values(240, 300.0f, 1), y = Values(240, 3.0f, 2);
  x[5] = 1e-6f;
  x[6] = -3e-7f;
  y[7] = std::numeric_limits<float>::quiet_NaN();
  int64_t fused = 0;
  std::vector<Literal> results =
      ExpectSameAsHost(text,
                       {Literal::FromVector<float>({6, 40}, x),
                        Literal::FromVector<float>({6, 40}, y)},
                       &fused);
  EXPECT_GT(fused, 0) << "the chains fuse into interpreting kernels";
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].shape().element_type(), ElementType::kF16);
  EXPECT_EQ(results[1].shape().element_type(), ElementType::kBF16);
}

// maximum/minimum of every pair of special values against XLA:CPU's
// (xla_max_min_table.h): a NaN second operand keeps its payload with the
// sign logic of two equal zeros, -0 orders below +0. The device computes
// in double, which quiets a signalling NaN (as a GPU's conversions do):
// only the quiet bit may differ from XLA's.
TEST_F(DeviceOpsTest, MaxMinMatchXlaOnEveryPairOfSpecialValues) {
  const std::string text = R"(HloModule m
ENTRY main {
  a = f32[144] parameter(0)
  b = f32[144] parameter(1)
  x = f32[144] maximum(a, b)
  n = f32[144] minimum(a, b)
  ROOT t = (f32[144], f32[144]) tuple(x, n)
}
)";
  std::vector<uint32_t> a, b;
  for (uint32_t i : test::kXlaF32Values)
    for (uint32_t j : test::kXlaF32Values) {
      a.push_back(i);
      b.push_back(j);
    }
  const Shape shape = Shape::Array(ElementType::kF32, {144});
  std::vector<Literal> args;
  args.push_back(Literal::FromBytes(shape, a.data(), a.size() * 4));
  args.push_back(Literal::FromBytes(shape, b.data(), b.size() * 4));
  for (bool fuse : {false, true}) {
    auto device = CompileForDevice(text, fuse);
    ASSERT_TRUE(device.ok()) << device.status().message();
    StatusOr<std::vector<Literal>> got = (*device)->Execute(args);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), 2u);
    constexpr uint32_t kQuiet = 0x00400000;
    for (size_t k = 0; k < 144; ++k)
      for (int m = 0; m < 2; ++m) {
        const uint32_t want =
            (m == 0 ? test::kXlaF32Max : test::kXlaF32Min)[k / 12][k % 12];
        const uint32_t bits =
            (*got)[static_cast<size_t>(m)].data<uint32_t>()[k];
        const bool nan = (want & 0x7fffffff) > 0x7f800000;
        EXPECT_EQ(nan ? bits | kQuiet : bits, nan ? want | kQuiet : want)
            << (m == 0 ? "maximum" : "minimum") << (fuse ? " fused" : "")
            << std::hex << " of 0x" << a[k] << ", 0x" << b[k];
      }
  }
}

TEST_F(DeviceOpsTest, ComplexElementwiseAndReduceMatchTheCpu) {
  const std::string text = R"(HloModule complex
addc {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY main {
  re = f32[4,16] parameter(0)
  im = f32[4,16] parameter(1)
  z = c64[4,16] complex(re, im)
  w = c64[4,16] multiply(z, z)
  v = c64[4,16] divide(w, z)
  u = c64[4,16] subtract(v, z)
  e = c64[4,16] exponential(u)
  l = c64[4,16] log(z)
  r = c64[4,16] sqrt(z)
  n = c64[4,16] negate(r)
  same = c64[4,16] complex(re, re)
  eq = pred[4,16] compare(z, same), direction=NE
  zeros = f32[4,16] subtract(re, re)
  imaginary = c64[4,16] complex(zeros, im)
  nonzero = pred[4,16] convert(imaginary)
  whole = s32[4,16] convert(z)
  a = f32[4,16] abs(z)
  rp = f32[4,16] real(l)
  ip = f32[4,16] imag(n)
  zero = c64[] constant((0, 0))
  s = c64[4] reduce(z, zero), dimensions={1}, to_apply=addc
  wide = c128[4,16] convert(z)
  d = c128[4,16] multiply(wide, wide)
  ROOT t = (c64[4,16], f32[4,16], f32[4,16], f32[4,16], c64[4], c128[4,16], pred[4,16], pred[4,16], s32[4,16]) tuple(e, a, rp, ip, s, d, eq, nonzero, whole)
}
)";
  ExpectSameAsHost(text,
                   {Literal::FromVector<float>({4, 16}, Values(64, 2, 3)),
                    Literal::FromVector<float>({4, 16}, Values(64, 2, 4))});
}

// Rows scattered with colliding indices and one index out of bounds: a
// window that does not fit is skipped whole, and colliding updates combine
// in the order of their scatter positions on both backends.
// `root` combines a (the operand's value) and b (the update); none: the
// region returns b (a set).
std::string RowScatter(const std::string& type, const std::string& root) {
  return R"(HloModule scatter
combine {
  a = )" +
         type + R"([] parameter(0)
  )" + (root.empty() ? "ROOT " : "") +
         "b = " + type + "[] parameter(1)\n" +
         (root.empty() ? "" : "  ROOT c = " + type + "[] " + root + "\n") +
         R"(}
ENTRY main {
  operand = )" +
         type + R"([5,3] parameter(0)
  indices = s32[6,1] parameter(1)
  updates = )" +
         type + R"([6,3] parameter(2)
  ROOT s = )" +
         type +
         R"([5,3] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)";
}

TEST_F(DeviceOpsTest, ScatterRowsWithCollisionsMatchesTheCpu) {
  const std::vector<Literal> arguments = {
      Literal::FromVector<float>({5, 3}, Values(15, 4, 5)),
      Literal::FromVector<int32_t>({6, 1}, {1, 3, 1, 7, -1, 1}),
      Literal::FromVector<float>({6, 3}, Values(18, 4, 6))};
  for (const char* region :
       {"add(a, b)", "maximum(a, b)", "minimum(a, b)", "multiply(a, b)",
        // set: the last of the colliding updates wins, on both
        "",
        // general regions, interpreted
        "subtract(a, b)", "copy(b)"}) {
    SCOPED_TRACE(region);
    std::vector<Literal> got =
        ExpectSameAsHost(RowScatter("f32", region), arguments);
    ASSERT_EQ(got.size(), 1u);
    // Row 0 has no update; rows 1 and 3 have; -1 and 7 do not fit.
    const float* out = got[0].data<float>();
    const float* operand = arguments[0].data<float>();
    EXPECT_EQ(out[0], operand[0]);
    EXPECT_EQ(out[12], operand[12]);
  }
  // Integer scatter-add with collisions: exact.
  const std::vector<Literal> integers = {
      Literal::FromVector<int32_t>({5, 3}, std::vector<int32_t>(15, 10)),
      Literal::FromVector<int32_t>({6, 1}, {1, 3, 1, 7, -1, 1}),
      Literal::FromVector<int32_t>({6, 3}, std::vector<int32_t>(18, 1))};
  std::vector<Literal> got =
      ExpectSameAsHost(RowScatter("s32", "add(a, b)"), integers);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data<int32_t>()[3], 13);  // row 1: three updates
  EXPECT_EQ(got[0].data<int32_t>()[9], 11);  // row 3: one
}

TEST_F(DeviceOpsTest, ScatterOfElementsAndOverlappingWindowsMatchesTheCpu) {
  // Windows of 2 along the scattered dimension overlap (starts 0, 1, 1, 3):
  // one thread applies them all, in order. Two index vector entries.
  const std::string text = R"(HloModule windows
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  operand = f32[6,4] parameter(0)
  indices = s32[4,2] parameter(1)
  updates = f32[4,2,3] parameter(2)
  ROOT s = f32[6,4] scatter(operand, indices, updates), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}
)";
  ExpectSameAsHost(
      text, {Literal::FromVector<float>({6, 4}, Values(24, 1, 7)),
             Literal::FromVector<int32_t>({4, 2}, {0, 0, 1, 1, 1, 0, 3, 2}),
             Literal::FromVector<float>({4, 2, 3}, Values(24, 1, 8))});
}

TEST_F(DeviceOpsTest, GatherAndScatterWithBatchingDimensionsMatchTheCpu) {
  // take_along_axis and its scatter-add transpose over a batch of 4 rows
  // (the batch is operand dimension 0 and indices dimension 0); index 9 is
  // out of bounds: gather clamps it, scatter skips it.
  const std::string text = R"(HloModule batched
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,6] parameter(0)
  idx = s32[4,3,1] parameter(1)
  upd = f32[4,3] parameter(2)
  g = f32[4,3] gather(x, idx), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
  s = f32[4,6] scatter(x, idx, upd), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
  ROOT t = (f32[4,3], f32[4,6]) tuple(g, s)
}
)";
  ExpectSameAsHost(
      text, {Literal::FromVector<float>({4, 6}, Values(24, 2, 13)),
             Literal::FromVector<int32_t>({4, 3, 1},
                                          {0, 5, 0, 2, 2, 9, 1, 3, 4, 5, 5, 5}),
             Literal::FromVector<float>({4, 3}, Values(12, 2, 14))});
}

TEST_F(DeviceOpsTest, SortWithTotalOrderAndSeveralOperandsMatchesTheCpu) {
  // jnp.sort's comparator (TOTALORDER puts NaN last and -0 before 0) on
  // keys with repeats, carrying an iota: a stable sort keeps equal keys'
  // iota ascending.
  const std::string text = R"(HloModule sort
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
desc {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = f32[3,37] parameter(0)
  i = s32[3,37] iota(), iota_dimension=1
  s = (f32[3,37], s32[3,37]) sort(x, i), dimensions={1}, is_stable=true, to_apply=less
  keys = f32[3,37] get-tuple-element(s), index=0
  order = s32[3,37] get-tuple-element(s), index=1
  y = f32[3,37] parameter(1)
  columns = f32[3,37] sort(y), dimensions={0}, to_apply=desc
  ROOT t = (f32[3,37], s32[3,37], f32[3,37]) tuple(keys, order, columns)
}
)";
  std::vector<float> x = Values(111, 5, 9);
  x[4] = std::numeric_limits<float>::quiet_NaN();
  x[8] = -0.0f;
  x[9] = 0.0f;
  x[10] = -std::numeric_limits<float>::infinity();
  // The GT comparator is a strict weak order only without NaNs.
  std::vector<Literal> got = ExpectSameAsHost(
      text, {Literal::FromVector<float>({3, 37}, x),
             Literal::FromVector<float>({3, 37}, Values(111, 5, 11))});
  ASSERT_EQ(got.size(), 3u);
  const float* keys = got[0].data<float>();
  const int32_t* order = got[1].data<int32_t>();
  EXPECT_TRUE(std::isnan(keys[36])) << "NaN sorts last";
  EXPECT_EQ(keys[0], -std::numeric_limits<float>::infinity());
  for (int row = 0; row < 3; ++row) {
    for (int j = 1; j < 37; ++j) {
      const int at = row * 37 + j;
      if (keys[at - 1] == keys[at] &&
          std::signbit(keys[at]) == std::signbit(keys[at - 1])) {
        EXPECT_LT(order[at - 1], order[at]) << "stable at " << at;
      }
    }
  }
}

TEST_F(DeviceOpsTest, LongRowsMergeSortStablyAlongAStridedDimension) {
  // Rows of 1000 along dimension 0 (a stride of 3 elements): the merge
  // sort's runs cross many widths, the keys repeat (rounded to integers) and
  // two carried operands must follow their key, equal keys in input order.
  const std::string text = R"(HloModule sort
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  e = f32[] parameter(4)
  f = f32[] parameter(5)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[1000,3] parameter(0)
  r = f32[1000,3] round-nearest-even(x)
  i = s32[1000,3] iota(), iota_dimension=0
  ROOT s = (f32[1000,3], s32[1000,3], f32[1000,3]) sort(r, i, x), dimensions={0}, is_stable=true, to_apply=less
}
)";
  std::vector<Literal> got = ExpectSameAsHost(
      text, {Literal::FromVector<float>({1000, 3}, Values(3000, 20, 5))});
  ASSERT_EQ(got.size(), 3u);
  const float* keys = got[0].data<float>();
  const int32_t* order = got[1].data<int32_t>();
  for (int column = 0; column < 3; ++column) {
    for (int j = 1; j < 1000; ++j) {
      const int at = j * 3 + column, before = at - 3;
      ASSERT_LE(keys[before], keys[at]) << "sorted at " << at;
      if (keys[before] == keys[at]) {
        EXPECT_LT(order[before], order[at]) << "stable at " << at;
      }
    }
  }
}

TEST_F(DeviceOpsTest, ManyRowsOfManyLengthsSortInParallelMergePasses) {
  // Rows at the edges of the merge passes' chunks of 128 (33 and 128 sort
  // a row per thread; 129, 256, 257, 300 and 1025 run passes whose last
  // run is short, whose merges span several chunks or whose pass count is
  // odd) and many of them, with repeated keys: the host's stable result,
  // equal keys in input order.
  for (int64_t length : {33, 128, 129, 256, 257, 300, 1025}) {
    SCOPED_TRACE(length);
    const std::string rows = "f32[67," + std::to_string(length) + "]";
    const std::string orders = "s32[67," + std::to_string(length) + "]";
    const std::string text =
        R"(HloModule sort
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = )" +
        rows + R"( parameter(0)
  r = )" +
        rows + R"( round-nearest-even(x)
  i = )" +
        orders + R"( iota(), iota_dimension=1
  ROOT s = ()" +
        rows + ", " + orders +
        R"() sort(r, i), dimensions={1}, is_stable=true, to_apply=less
}
)";
    std::vector<Literal> got = ExpectSameAsHost(
        text,
        {Literal::FromVector<float>(
            {67, length}, Values(static_cast<size_t>(67 * length), 40, 7))});
    ASSERT_EQ(got.size(), 2u);
    const float* keys = got[0].data<float>();
    const int32_t* order = got[1].data<int32_t>();
    for (int64_t row = 0; row < 67; ++row)
      for (int64_t j = 1; j < length; ++j) {
        const int64_t at = row * length + j;
        ASSERT_GE(keys[at - 1], keys[at]) << "descending at " << at;
        if (keys[at - 1] == keys[at]) {
          ASSERT_LT(order[at - 1], order[at]) << "stable at " << at;
        }
      }
  }
}

TEST_F(DeviceOpsTest, SelectAndScatterOfOverlappingPaddedWindowsMatchesTheCpu) {
  // Max-pooling's gradient with overlapping windows (stride < size) and
  // padding, and a min-select with a tie-heavy operand: every operand
  // element sums the sources of the windows that pick it, in window order.
  const std::string text = R"(HloModule sas
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
le {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,9,8,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  zero = f32[] constant(0)
  a = f32[2,9,8,3] select-and-scatter(x, g, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x0_1x0_0}, select=ge, scatter=add
  r = f32[2,9,8,3] round-nearest-even(x)
  h = f32[2,9,8,3] parameter(2)
  b = f32[2,9,8,3] select-and-scatter(r, h, zero), window={size=1x2x3x1 pad=0_0x0_1x1_1x0_0}, select=le, scatter=add
  ROOT t = (f32[2,9,8,3], f32[2,9,8,3]) tuple(a, b)
}
)";
  ExpectSameAsHost(
      text, {Literal::FromVector<float>({2, 9, 8, 3}, Values(432, 3, 12)),
             Literal::FromVector<float>({2, 5, 4, 3}, Values(120, 2, 13)),
             Literal::FromVector<float>({2, 9, 8, 3}, Values(432, 2, 14))});
}

TEST_F(DeviceOpsTest, NegativePaddingAndWideningBitcastsMatchTheCpu) {
  // A pad that cuts (negative low/high, with interior padding) and
  // bitcast-converts that split u64 into u32 pairs and join them back.
  const std::string text = R"(HloModule cut
ENTRY main {
  x = f32[5,7] parameter(0)
  v = f32[] constant(-1)
  p = f32[8,11] pad(x, v), padding=-2_1_1x1_-3_1
  q = f32[1,3] pad(x, v), padding=-4_0x-3_-1
  i = u64[4] iota(), iota_dimension=0
  m = u64[] constant(81985529216486895)
  k = u64[4] broadcast(m), dimensions={}
  w = u64[4] multiply(i, k)
  s = u32[4,2] bitcast-convert(w)
  j = u64[4] bitcast-convert(s)
  ROOT t = (f32[8,11], f32[1,3], u32[4,2], u64[4]) tuple(p, q, s, j)
}
)";
  ExpectSameAsHost(text,
                   {Literal::FromVector<float>({5, 7}, Values(35, 3, 15))});
}

TEST_F(DeviceOpsTest, RngBitGeneratorDrawsTheCpusBitsAndNextState) {
  // THREE_FRY with 32-bit values paired along an odd dimension, with 64-
  // and 8-bit values; PHILOX (and DEFAULT) over 2- and 3-word states, a
  // counter about to carry into the high word, and no values at all.
  const std::string text = R"(HloModule rbg
ENTRY main {
  s2 = u64[2] parameter(0)
  s3 = u64[3] parameter(1)
  a = (u64[2], u32[3,5]) rng-bit-generator(s2), algorithm=rng_three_fry
  b = (u64[2], u64[4]) rng-bit-generator(s2), algorithm=rng_three_fry
  c = (u64[2], u8[2,3]) rng-bit-generator(s2), algorithm=rng_three_fry
  d = (u64[3], u32[7]) rng-bit-generator(s3), algorithm=rng_philox
  e = (u64[2], u64[5]) rng-bit-generator(s2), algorithm=rng_default
  f = (u64[3], u32[0]) rng-bit-generator(s3), algorithm=rng_philox
  ROOT t = ((u64[2], u32[3,5]), (u64[2], u64[4]), (u64[2], u8[2,3]), (u64[3], u32[7]), (u64[2], u64[5]), (u64[3], u32[0])) tuple(a, b, c, d, e, f)
}
)";
  const uint64_t near_carry = ~uint64_t{0} - 1;
  ExpectSameAsHost(
      text, {Literal::FromVector<uint64_t>({2}, {0x0123456789ABCDEFull, 42}),
             Literal::FromVector<uint64_t>({3}, {7, near_carry, 3})});
}

TEST_F(DeviceOpsTest, ReduceWindowPoolingMatchesTheCpu) {
  const std::string text = R"(HloModule pool
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mad {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  h = f32[] constant(0.5)
  p = f32[] multiply(a, h)
  ROOT s = f32[] add(p, b)
}
ENTRY main {
  x = f32[2,9,8,3] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  pool = f32[2,4,4,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x1_1x0_0}, to_apply=max
  avg = f32[2,9,8,3] reduce-window(x, zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0}, to_apply=add
  dil = f32[2,8,7,3] reduce-window(x, zero), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_0x0_0x0_0 lhs_dilate=1x2x2x1 rhs_dilate=1x2x1x1}, to_apply=mad
  ROOT t = (f32[2,4,4,3], f32[2,9,8,3], f32[2,8,7,3]) tuple(pool, avg, dil)
}
)";
  ExpectSameAsHost(
      text, {Literal::FromVector<float>({2, 9, 8, 3}, Values(432, 3, 10))});
}

TEST_F(DeviceOpsTest, ArgmaxAsAReduceOfTwoInputsMatchesTheCpu) {
  // jnp.argmax's region: the larger value (NaN wins), the lower index on
  // ties; over rows (dimension 1) and columns (dimension 0).
  const std::string text = R"(HloModule argmax
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  pick_a = pred[] or(gt, nan)
  eq = pred[] compare(a, b), direction=EQ
  lower = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lower)
  keep = pred[] or(pick_a, tie)
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY main {
  x = f32[5,33] parameter(0)
  rows = s32[5,33] iota(), iota_dimension=1
  cols = s32[5,33] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[5], s32[5]) reduce(x, rows, ninf, zero), dimensions={1}, to_apply=argmax
  c = (f32[33], s32[33]) reduce(x, cols, ninf, zero), dimensions={0}, to_apply=argmax
  ri = s32[5] get-tuple-element(r), index=1
  ci = s32[33] get-tuple-element(c), index=1
  rv = f32[5] get-tuple-element(r), index=0
  ROOT o = (s32[5], s32[33], f32[5]) tuple(ri, ci, rv)
}
)";
  std::vector<float> x = Values(165, 8, 12);
  x[40] = std::numeric_limits<float>::quiet_NaN();
  std::vector<Literal> got =
      ExpectSameAsHost(text, {Literal::FromVector<float>({5, 33}, x)});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].data<int32_t>()[1], 40 - 33) << "NaN wins its row";
}

TEST_F(DeviceOpsTest, ErfPopcntAndClzMatchTheCpu) {
  const std::string text = R"(HloModule bits
ENTRY main {
  x = f32[64] parameter(0)
  i = s32[64] parameter(1)
  e = f32[64] erf(x)
  p = s32[64] popcnt(i)
  c = s32[64] count-leading-zeros(i)
  b = u8[64] convert(i)
  pb = u8[64] popcnt(b)
  cb = u8[64] count-leading-zeros(b)
  ROOT t = (f32[64], s32[64], s32[64], u8[64], u8[64]) tuple(e, p, c, pb, cb)
}
)";
  std::vector<int32_t> integers(64);
  for (int k = 0; k < 64; ++k)
    integers[k] = k < 2 ? k - 1 : (k * 2654435761u) >> (k % 31);
  ExpectSameAsHost(text, {Literal::FromVector<float>({64}, Values(64, 3, 15)),
                          Literal::FromVector<int32_t>({64}, integers)});
}

// The complex functions beyond exp/log/sqrt (trig, hyperbolic and their
// inverses, pow with XLA's 0^0 = 1, rsqrt, logistic, expm1, log1p, sign),
// c64 and c128, against the CPU's std::complex.
TEST_F(DeviceOpsTest, ComplexFunctionsMatchTheCpu) {
  const std::string text = R"(HloModule complex_functions
ENTRY main {
  re = f32[48] parameter(0)
  im = f32[48] parameter(1)
  z = c64[48] complex(re, im)
  s = c64[48] sine(z)
  c = c64[48] cosine(z)
  t = c64[48] tan(z)
  th = c64[48] tanh(z)
  sh = c64[48] sinh(z)
  ch = c64[48] cosh(z)
  as = c64[48] asin(z)
  ac = c64[48] acos(z)
  at = c64[48] atan(z)
  ash = c64[48] asinh(z)
  ach = c64[48] acosh(z)
  ath = c64[48] atanh(z)
  p = c64[48] power(z, s)
  rs = c64[48] rsqrt(z)
  lg = c64[48] logistic(z)
  em = c64[48] exponential-minus-one(z)
  lp = c64[48] log-plus-one(z)
  sg = c64[48] sign(z)
  w = c128[48] convert(z)
  ws = c128[48] sine(w)
  wt = c128[48] tanh(w)
  wa = c128[48] atanh(w)
  wp = c128[48] power(w, ws)
  ROOT r = (c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c64[48], c128[48], c128[48], c128[48], c128[48]) tuple(s, c, t, th, sh, ch, as, ac, at, ash, ach, ath, p, rs, lg, em, lp, sg, ws, wt, wa, wp)
}
)";
  std::vector<float> re = Values(48, 2, 21), im = Values(48, 2, 22);
  re[0] = im[0] = 0;  // 0^0 = 1 and sign(0) = 0
  std::vector<Literal> got =
      ExpectSameAsHost(text, {Literal::FromVector<float>({48}, re),
                              Literal::FromVector<float>({48}, im)});
  ASSERT_EQ(got.size(), 22u);
  EXPECT_EQ(got[12].data<std::complex<float>>()[0], std::complex<float>(1, 0));
}

// chlo's float functions (HLO spells their decompositions; StableHLO
// programs keep them): f32, f64 and, for next_after, the narrow grids.
TEST_F(DeviceOpsTest, ChloFloatFunctionsMatchTheCpu) {
  const std::string text = R"(HloModule chlo_functions
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  one = f32[] constant(1)
  ones = f32[64] broadcast(one), dimensions={}
  xx = f32[64] multiply(x, x)
  above_one = f32[64] add(xx, ones)
  half = f32[] constant(0.5)
  halves = f32[64] broadcast(half), dimensions={}
  positive = f32[64] add(xx, halves)
  as = f32[64] asin(x)
  ac = f32[64] acos(x)
  at = f32[64] atan(y)
  ash = f32[64] asinh(y)
  ach = f32[64] acosh(above_one)
  ath = f32[64] atanh(x)
  sh = f32[64] sinh(y)
  ch = f32[64] cosh(y)
  ec = f32[64] erfc(y)
  ei = f32[64] erf-inv(x)
  lg = f32[64] lgamma(positive)
  na = f32[64] next-after(x, y)
  h = f16[64] convert(x)
  hy = f16[64] convert(y)
  hn = f16[64] next-after(h, hy)
  b = bf16[64] convert(x)
  by = bf16[64] convert(y)
  bn = bf16[64] next-after(b, by)
  d = f64[64] convert(x)
  dy = f64[64] convert(y)
  de = f64[64] erf-inv(d)
  dl = f64[64] lgamma(dy)
  dg = f64[64] digamma(dy)
  fg = f32[64] digamma(y)
  dn = f64[64] next-after(d, dy)
  ROOT r = (f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f32[64], f16[64], bf16[64], f64[64], f64[64], f64[64], f64[64], f32[64]) tuple(as, ac, at, ash, ach, ath, sh, ch, ec, ei, lg, na, hn, bn, de, dl, dn, dg, fg)
}
)";
  std::vector<float> x = Values(64, 0.99f, 23), y = Values(64, 4, 24);
  x[0] = 0;     // next_after from zero: the smallest subnormal towards y
  x[1] = 1;     // erf_inv(1) = inf
  y[2] = x[2];  // next_after(x, x) = x
  std::vector<Literal> got =
      ExpectSameAsHost(text, {Literal::FromVector<float>({64}, x),
                              Literal::FromVector<float>({64}, y)});
  ASSERT_EQ(got.size(), 19u);
  EXPECT_TRUE(std::isinf(got[9].data<float>()[1]));
  EXPECT_EQ(got[11].data<float>()[2], x[2]);
}

// The chlo special functions (device/special_functions.h, one source for
// both backends) give the CPU's bits on SimDevice, fused and unfused, at
// their special points: poles, negative integers, the ends of the domain,
// large arguments, NaN and inf, and for bessel_i1e both sides of 22, where
// its series gives way to the asymptotic expansion. f16 and bf16 go
// through f32 on both. No point has a subnormal result or intermediate the
// CPU's flushed execution would treat differently from the device.
TEST_F(DeviceOpsTest, SpecialFunctionsGiveTheCpusBitsAtSpecialPoints) {
  const std::string text = R"(HloModule special_points
ENTRY main {
  x = f32[32] parameter(0)
  a = f32[32] parameter(1)
  b = f32[32] parameter(2)
  dx = f64[32] parameter(3)
  da = f64[32] parameter(4)
  db = f64[32] parameter(5)
  ei = f32[32] erf-inv(x)
  lg = f32[32] lgamma(x)
  dg = f32[32] digamma(x)
  bi = f32[32] bessel-i1e(x)
  z = f32[32] zeta(a, b)
  pg = f32[32] polygamma(a, b)
  dei = f64[32] erf-inv(dx)
  dlg = f64[32] lgamma(dx)
  ddg = f64[32] digamma(dx)
  dbi = f64[32] bessel-i1e(dx)
  dz = f64[32] zeta(da, db)
  dpg = f64[32] polygamma(da, db)
  h = f16[32] convert(x)
  ha = f16[32] convert(a)
  hb = f16[32] convert(b)
  hbi = f16[32] bessel-i1e(h)
  hz = f16[32] zeta(ha, hb)
  hpg = f16[32] polygamma(ha, hb)
  k = bf16[32] convert(x)
  ka = bf16[32] convert(a)
  kb = bf16[32] convert(b)
  kbi = bf16[32] bessel-i1e(k)
  kz = bf16[32] zeta(ka, kb)
  klg = bf16[32] lgamma(k)
  ROOT r = (f32[32], f32[32], f32[32], f32[32], f32[32], f32[32], f64[32], f64[32], f64[32], f64[32], f64[32], f64[32], f16[32], f16[32], f16[32], bf16[32], bf16[32], bf16[32]) tuple(ei, lg, dg, bi, z, pg, dei, dlg, ddg, dbi, dz, dpg, hbi, hz, hpg, kbi, kz, klg)
}
)";
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Unary points; erf_inv's domain is [-1, 1], the others' the whole line.
  const std::vector<double> x = {
      0,    -0.0, 1,      -1,  0.5,   -0.5, 0.999, -0.9999, 2,     -2,  -3,
      3.5,  -2.5, 1e-3,   10,  21.99, 22,   22.01, -22.5,   50,    700, 1e4,
      1e30, -1e5, -100.5, inf, -inf,  nan,  1.5,   0.25,    -7.75, 30};
  // Binary points: zeta(a, b) at x = 1, at the poles of q (even and odd
  // x), outside the domain, at negative q and huge x or q; polygamma(a, b)
  // of the same pairs (a natural a, or NaN).
  const std::vector<double> a = {1, 2, 4, 3, 2.5, 0.5, 2.5, nan, 2, inf, 2,
                                 2, 3, 2, 3, 10,  7,   2,   4,   1, 1,   2,
                                 3, 4, 5, 0, 1.5, -1,  0,   2,   6, 1};
  const std::vector<double> b = {2.5, 0,    -3,   -2,  -2,   2,    -0.5, 2,
                                 nan, 2,    -inf, inf, -3.5, 1,    1,    0.25,
                                 12,  1e6,  10,   0.5, -2.5, 2.25, 2.25, 10,
                                 0.1, 3.25, 2,    2,   -2,   -0.5, 30,   1e-3};
  ASSERT_EQ(x.size(), 32u);
  ASSERT_EQ(a.size(), 32u);
  ASSERT_EQ(b.size(), 32u);
  auto as_float = [](const std::vector<double>& v) {
    return std::vector<float>(v.begin(), v.end());
  };
  const std::vector<Literal> arguments = {
      Literal::FromVector<float>({32}, as_float(x)),
      Literal::FromVector<float>({32}, as_float(a)),
      Literal::FromVector<float>({32}, as_float(b)),
      Literal::FromVector<double>({32}, x),
      Literal::FromVector<double>({32}, a),
      Literal::FromVector<double>({32}, b)};
  StatusOr<Module> module = ParseProgram(text, "program.hlo");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto host = Compile(std::move(*module));
  ASSERT_TRUE(host.ok()) << host.status().message();
  StatusOr<std::vector<Literal>> want = (*host)->Execute(arguments);
  ASSERT_TRUE(want.ok()) << want.status().message();
  const char* names[] = {"erf_inv f32",     "lgamma f32", "digamma f32",
                         "bessel_i1e f32",  "zeta f32",   "polygamma f32",
                         "erf_inv f64",     "lgamma f64", "digamma f64",
                         "bessel_i1e f64",  "zeta f64",   "polygamma f64",
                         "bessel_i1e f16",  "zeta f16",   "polygamma f16",
                         "bessel_i1e bf16", "zeta bf16",  "lgamma bf16"};
  ASSERT_EQ(want->size(), std::size(names));
  // Which results are of x (the others of the pairs a, b).
  const bool unary[] = {true, true,  true,  true, false, false,
                        true, true,  true,  true, false, false,
                        true, false, false, true, false, true};
  auto bits = [](const Literal& literal, size_t i, size_t width) {
    uint64_t value = 0;
    std::memcpy(&value, static_cast<const uint8_t*>(literal.data()) + i * width,
                width);
    return value;
  };
  for (bool fuse : {false, true}) {
    auto device = CompileForDevice(text, fuse);
    ASSERT_TRUE(device.ok()) << device.status().message();
    StatusOr<std::vector<Literal>> got = (*device)->Execute(arguments);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < got->size(); ++k) {
      const Literal& g = (*got)[k];
      const Literal& w = (*want)[k];
      const size_t width = ElementByteSize(w.shape().element_type());
      ASSERT_EQ(g.size_bytes(), w.size_bytes()) << names[k];
      for (size_t i = 0; i < w.size_bytes() / width; ++i)
        EXPECT_EQ(bits(g, i, width), bits(w, i, width))
            << (fuse ? "fused " : "unfused ") << names[k] << " at "
            << (unary[k] ? "x = " + std::to_string(x[i])
                         : "(" + std::to_string(a[i]) + ", " +
                               std::to_string(b[i]) + ")")
            << ": the device's bits (left) are not the CPU's";
    }
  }
  // The points are special: the CPU's results there are what XLA's are.
  const std::vector<float> bessel = (*want)[3].ToVector<float>();
  EXPECT_EQ(bessel[0], 0.0f);
  EXPECT_FALSE(std::signbit(bessel[0]));
  EXPECT_EQ(bessel[25], 0.0f);          // +inf
  EXPECT_TRUE(std::isnan(bessel[27]));  // NaN
  EXPECT_EQ(bessel[4], -bessel[5]);     // odd
  const std::vector<double> lgamma = (*want)[7].ToVector<double>();
  EXPECT_EQ(lgamma[10], inf);  // the pole at -3
  EXPECT_EQ(lgamma[23], inf);  // and at -1e5
  const std::vector<double> digamma = (*want)[8].ToVector<double>();
  EXPECT_TRUE(std::isnan(digamma[0]));
  EXPECT_TRUE(std::isnan(digamma[10]));
  EXPECT_TRUE(std::isnan(digamma[26]));  // -inf
  EXPECT_EQ(digamma[25], inf);
  const std::vector<double> zeta = (*want)[10].ToVector<double>();
  EXPECT_EQ(zeta[0], inf);                           // x = 1
  EXPECT_EQ(zeta[1], inf);                           // the pole q = 0, x even
  EXPECT_TRUE(std::isnan(zeta[3]));                  // the pole q = -2, x odd
  EXPECT_NEAR(zeta[13], 1.6449340668482264, 1e-15);  // zeta(2) = pi^2/6
  const std::vector<double> polygamma = (*want)[11].ToVector<double>();
  EXPECT_TRUE(std::isnan(polygamma[26]));            // n = 1.5
  EXPECT_TRUE(std::isnan(polygamma[27]));            // n = -1
  EXPECT_EQ(polygamma[25], special::Digamma(3.25));  // n = 0
}

// Variadic scatter and reduce-window (value and index together, as
// argmax-style regions combine them): every operand is updated by one
// region run per element, in the CPU's order.
TEST_F(DeviceOpsTest, VariadicScatterAndReduceWindowMatchTheCpu) {
  const std::string text = R"(HloModule variadic
keep_larger {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lower = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lower)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
ENTRY main {
  x = f32[8,6] parameter(0)
  indices = s32[7,1] parameter(1)
  updates = f32[7,6] parameter(2)
  rows = s32[8,6] iota(), iota_dimension=0
  update_rows = s32[7,6] iota(), iota_dimension=0
  s = (f32[8,6], s32[8,6]) scatter(x, rows, indices, updates, update_rows), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=keep_larger
  flat = s32[8,6] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  w = (f32[4,3], s32[4,3]) reduce-window(x, flat, ninf, zero), window={size=2x2 stride=2x2}, to_apply=keep_larger
  padded = (f32[8,6], s32[8,6]) reduce-window(x, flat, ninf, zero), window={size=3x3 pad=1_1x1_1}, to_apply=keep_larger
  s0 = f32[8,6] get-tuple-element(s), index=0
  s1 = s32[8,6] get-tuple-element(s), index=1
  w0 = f32[4,3] get-tuple-element(w), index=0
  w1 = s32[4,3] get-tuple-element(w), index=1
  p1 = s32[8,6] get-tuple-element(padded), index=1
  ROOT r = (f32[8,6], s32[8,6], f32[4,3], s32[4,3], s32[8,6]) tuple(s0, s1, w0, w1, p1)
}
)";
  // Rows 2 and 5 collide; 9 is out of bounds and skipped whole.
  const std::vector<int32_t> indices = {2, 5, 2, 0, 9, 5, 7};
  std::vector<float> x = Values(48, 4, 25);
  x[13] = x[14];  // a tie inside a window: the lower index wins
  std::vector<Literal> got = ExpectSameAsHost(
      text, {Literal::FromVector<float>({8, 6}, x),
             Literal::FromVector<int32_t>({7, 1}, indices),
             Literal::FromVector<float>({7, 6}, Values(42, 4, 26))});
  ASSERT_EQ(got.size(), 5u);
}

// A region longer than the interpreter's former 32 steps (a combiner and a
// comparator of 40-odd ops) runs on the device instead of being refused; a
// reduce of one input with such a region is interpreted too.
TEST_F(DeviceOpsTest, RegionsOfMoreThan32StepsMatchTheCpu) {
  // ((a + b) * 0.5 + 0.25) repeated: exact in f32 for these inputs.
  std::string chain = "  s0 = f32[] add(a, b)\n";
  std::string last = "s0";
  for (int k = 1; k <= 14; ++k) {
    const std::string m = "m" + std::to_string(k), s = "s" + std::to_string(k);
    chain += "  " + m + " = f32[] multiply(" + last + ", h)\n";
    chain += "  " + s + " = f32[] add(" + m + ", q)\n";
    last = s;
  }
  const std::string text = R"(HloModule long_regions
long_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  h = f32[] constant(0.5)
  q = f32[] constant(0.25)
)" + chain + "  ROOT r = f32[] add(" +
                           last + R"(, a)
}
long_less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  h = f32[] constant(0.5)
  q = f32[] constant(0.25)
)" + chain + "  na = f32[] multiply(a, " +
                           last + R"()
  nb = f32[] multiply(b, )" +
                           last +
                           R"()
  ROOT lt = pred[] compare(na, nb), direction=LT
}
ENTRY main {
  x = f32[4,16] parameter(0)
  zero = f32[] constant(0)
  r = f32[4] reduce(x, zero), dimensions={1}, to_apply=long_add
  w = f32[4,8] reduce-window(x, zero), window={size=1x2 stride=1x2}, to_apply=long_add
  s = f32[4,16] sort(x), dimensions={1}, to_apply=long_less
  ROOT t = (f32[4], f32[4,8], f32[4,16]) tuple(r, w, s)
}
)";
  ExpectSameAsHost(text,
                   {Literal::FromVector<float>({4, 16}, Values(64, 2, 27))});
}

// Point gathers inside loop fusions run in the fused kernel: take_along_axis
// with its index producer (negative indices wrapped) fused and a start out
// of bounds clamped, and a gather of (row, column) pairs whose indices are a
// fusion operand read from memory. Each program is one loop fusion, which
// the device ran op by op before it could evaluate gathers.
TEST_F(DeviceOpsTest, PointGathersInLoopFusionsRunFused) {
  const std::string along_axis = R"(HloModule take_along_axis
ENTRY main {
  x = f32[6,10] parameter(0)
  idx = s32[6,4] parameter(1)
  zero = s32[] constant(0)
  zeros = s32[6,4] broadcast(zero), dimensions={}
  negative = pred[6,4] compare(idx, zeros), direction=LT
  ten = s32[] constant(10)
  tens = s32[6,4] broadcast(ten), dimensions={}
  wrapped = s32[6,4] add(idx, tens)
  fixed = s32[6,4] select(negative, wrapped, idx)
  starts = s32[6,4,1] reshape(fixed)
  g = f32[6,4] gather(x, starts), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}
  two = f32[] constant(2)
  twos = f32[6,4] broadcast(two), dimensions={}
  ROOT y = f32[6,4] multiply(g, twos)
}
)";
  // -1 wraps to 9; 12 and -13 (wrapped to -3) are clamped into [0, 9].
  const std::vector<int32_t> idx = {0, 9, -1, 3,  12, -13, 5, 5,  2, 7, -10, 1,
                                    4, 4, 8,  -2, 6,  0,   3, 11, 1, 2, 3,   4};
  int64_t fused_loops = 0;
  std::vector<Literal> got =
      ExpectSameAsHost(along_axis,
                       {Literal::FromVector<float>({6, 10}, Values(60, 4, 28)),
                        Literal::FromVector<int32_t>({6, 4}, idx)},
                       &fused_loops);
  EXPECT_EQ(fused_loops, 1);

  const std::string pairs = R"(HloModule point_pairs
ENTRY main {
  x = f32[5,7] parameter(0)
  ij = s32[9,2] parameter(1)
  y = f32[9] parameter(2)
  g = f32[9] gather(x, ij), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}
  ROOT s = f32[9] subtract(g, y)
}
)";
  const std::vector<int32_t> ij = {0, 0, 4, 6, 2, 3, 7, 1, -1,
                                   2, 3, 9, 1, 1, 4, 0, 0, 6};
  ExpectSameAsHost(pairs,
                   {Literal::FromVector<float>({5, 7}, Values(35, 4, 29)),
                    Literal::FromVector<int32_t>({9, 2}, ij),
                    Literal::FromVector<float>({9}, Values(9, 1, 30))},
                   &fused_loops);
  EXPECT_EQ(fused_loops, 1);
}

TEST_F(DeviceOpsTest, TopKLargestAndSmallestMatchTheCpu) {
  // Repeats (ties go to the lower index), NaN (the largest), -0 and +0.
  const std::string rows = R"(HloModule topk
ENTRY main {
  x = f32[3,40] parameter(0)
  i = s32[3,40] parameter(1)
  h = f16[3,40] convert(x)
  a = (f32[3,5], s32[3,5]) topk(x), k=5, largest=true
  b = (f16[3,4], s32[3,4]) topk(h), k=4, largest=false
  c = (s32[3,40], s32[3,40]) topk(i), k=40, largest=true
  av = f32[3,5] get-tuple-element(a), index=0
  ai = s32[3,5] get-tuple-element(a), index=1
  bv = f16[3,4] get-tuple-element(b), index=0
  bi = s32[3,4] get-tuple-element(b), index=1
  ci = s32[3,40] get-tuple-element(c), index=1
  ROOT t = (f32[3,5], s32[3,5], f16[3,4], s32[3,4], s32[3,40]) tuple(av, ai, bv, bi, ci)
}
)";
  std::vector<float> x = Values(120, 4, 16);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  x[50] = -0.0f;
  x[51] = 0.0f;
  x[52] = -0.0f;
  std::vector<int32_t> integers(120);
  for (int k = 0; k < 120; ++k) integers[k] = (k * 7) % 11 - 5;
  std::vector<Literal> got =
      ExpectSameAsHost(rows, {Literal::FromVector<float>({3, 40}, x),
                              Literal::FromVector<int32_t>({3, 40}, integers)});
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[1].data<int32_t>()[0], 3) << "NaN ranks first";
}

TEST_F(DeviceOpsTest, WhatItStillLacksIsRefusedAtCompileNamingOpAndPlace) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {R"(HloModule sort5
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  e = f32[] parameter(4)
  f = f32[] parameter(5)
  g = f32[] parameter(6)
  h = f32[] parameter(7)
  i = f32[] parameter(8)
  j = f32[] parameter(9)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[8] parameter(0)
  ROOT s = (f32[8], f32[8], f32[8], f32[8], f32[8]) sort(x, x, x, x, x), dimensions={0}, to_apply=less
}
)",
       "the device backend cannot run op 's' (sort) in computation 'main' at "
       "program.hlo:17:8: more than 4 operands"},
      {R"(HloModule maxc
ENTRY main {
  x = c64[8] parameter(0)
  ROOT m = c64[8] maximum(x, x)
}
)",
       "complex operands are not implemented for this op"},
  };
  for (const Case& c : cases) {
    auto device = CompileForDevice(c.text);
    ASSERT_FALSE(device.ok()) << c.text;
    EXPECT_EQ(device.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
    EXPECT_THAT(device.status().message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace xffi::device_backend
