// Structural ops end to end: StableHLO as jax.jit(f).lower(...).as_text()
// prints it (JAX 0.10.2; index normalisation trimmed from the scatters),
// parsed, compiled and run on the CPU. Expected values are JAX's results on
// XLA:CPU. Programs with an op the CPU backend lacks fail with an error
// naming the op and its line:column.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/float_types.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

StatusOr<std::vector<Literal>> RunProgram(
    std::string_view text, const std::vector<Literal>& arguments) {
  StatusOr<Module> module = ParseProgram(text, "test.mlir");
  if (!module.ok()) return module.status();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  if (!exe.ok()) return exe.status();
  return (*exe)->Execute(arguments);
}

Literal Bf16(std::vector<int64_t> dims, const std::vector<float>& values) {
  Literal l(Shape::Array(ElementType::kBF16, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i)
    l.data<uint16_t>()[i] = FloatToBFloat16(values[i]);
  return l;
}

// x.at[i].mul(u), x.at[i].min(u), x.at[i].max(u, indices_are_sorted=True,
// unique_indices=True) for i = [1, 3, 1, 4]: duplicates combine, index 4 is
// out of bounds and dropped.
constexpr std::string_view kScatterOps = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %6 = "stablehlo.scatter"(%arg0, %5, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %21 = stablehlo.multiply %arg3, %arg4 : tensor<f32>
      stablehlo.return %21 : tensor<f32>
    }) : (tensor<4xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<4xf32>
    %13 = "stablehlo.scatter"(%arg0, %5, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %21 = stablehlo.minimum %arg3, %arg4 : tensor<f32>
      stablehlo.return %21 : tensor<f32>
    }) : (tensor<4xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<4xf32>
    %20 = "stablehlo.scatter"(%arg0, %5, %arg2) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %21 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %21 : tensor<f32>
    }) : (tensor<4xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<4xf32>
    return %6, %13, %20 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
)";

TEST(StructuralPrograms, ScatterMulMinMax) {
  auto out = RunProgram(kScatterOps, {Literal::Vector<float>({5, 6, 7, 8}),
                                      Literal::Vector<int32_t>({1, 3, 1, 4}),
                                      Literal::Vector<float>({2, 9, 3, 1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{5, 36, 7, 72}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{5, 2, 7, 8}));
  EXPECT_EQ((*out)[2].ToVector<float>(), (std::vector<float>{5, 6, 7, 9}));
}

// lax.reduce(b, bfloat16(0), lax.add, (0,)): the region runs in bf16, so
// each + 1 after 256 rounds back to 256 (XLA:CPU gives 256 too).
constexpr std::string_view kBf16Reduce = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xbf16>) -> (tensor<bf16> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6xbf16>, tensor<bf16>) -> tensor<bf16>
    return %0 : tensor<bf16>
  }
}
)";

TEST(StructuralPrograms, Bf16ReduceRoundsEveryStep) {
  auto out = RunProgram(kBf16Reduce, {Bf16({6}, {256, 1, 1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(BFloat16ToFloat((*out)[0].data<uint16_t>()[0]), 256.0f);
}

// jnp.argmax(m, axis=1), jnp.argmin(m, axis=0): variadic reduces of
// (value, iota) whose region keeps the first index on ties.
constexpr std::string_view kArgMax = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32>) -> (tensor<2xi32> {jax.result_info = "result[0]"}, tensor<4xi32> {jax.result_info = "result[1]"}) {
    %0 = call @argmax(%arg0) : (tensor<2x4xf32>) -> tensor<2xi32>
    %1 = call @argmin(%arg0) : (tensor<2x4xf32>) -> tensor<4xi32>
    return %0, %1 : tensor<2xi32>, tensor<4xi32>
  }
  func.func private @argmax(%arg0: tensor<2x4xf32>) -> tensor<2xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<2xi32>
  }
  func.func private @argmin(%arg0: tensor<2x4xf32>) -> tensor<4xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<2x4xi32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare LT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<4xi32>
  }
}
)";

TEST(StructuralPrograms, ArgMaxAndArgMinAsVariadicReduces) {
  auto out = RunProgram(
      kArgMax, {Literal::FromVector<float>({2, 4}, {1, 7, 7, 2, 3, -1, 0, 3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<int32_t>(), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ((*out)[1].ToVector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 0}));
}

// jnp.einsum('mkbj,jbkn->bmn', l, r, preferred_element_type=f32) for bf16
// l = ((arange(24)*5) % 7 - 3) as [2,3,2,2], r = ((arange(24)*3) % 5 - 2)
// as [2,2,3,2].
constexpr std::string_view kDotBf16 = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x2x2xbf16>, %arg1: tensor<2x2x3x2xbf16>) -> (tensor<2x2x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [2] x [1], contracting_dims = [3, 1] x [0, 2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x2x2xbf16>, tensor<2x2x3x2xbf16>) -> tensor<2x2x2xf32>
    return %0 : tensor<2x2x2xf32>
  }
}
)";

TEST(StructuralPrograms, DotGeneralOfBf16WithF32Result) {
  std::vector<float> l(24), r(24);
  for (int i = 0; i < 24; ++i) {
    l[i] = static_cast<float>((i * 5) % 7 - 3);
    r[i] = static_cast<float>((i * 3) % 5 - 2);
  }
  auto out =
      RunProgram(kDotBf16, {Bf16({2, 3, 2, 2}, l), Bf16({2, 2, 3, 2}, r)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{1, 1, -4, 8, 1, 1, 1, 6}));
}

// lax.sort((k, a, b), dimension=1, num_keys=1, is_stable=True).
constexpr std::string_view kSort3 = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xi32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2x4xui8>) -> (tensor<2x4xi32> {jax.result_info = "result[0]"}, tensor<2x4xf32> {jax.result_info = "result[1]"}, tensor<2x4xui8> {jax.result_info = "result[2]"}) {
    %0:3 = "stablehlo.sort"(%arg0, %arg1, %arg2) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>, %arg5: tensor<f32>, %arg6: tensor<f32>, %arg7: tensor<ui8>, %arg8: tensor<ui8>):
      %1 = stablehlo.compare LT, %arg3, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<2x4xi32>, tensor<2x4xf32>, tensor<2x4xui8>) -> (tensor<2x4xi32>, tensor<2x4xf32>, tensor<2x4xui8>)
    return %0#0, %0#1, %0#2 : tensor<2x4xi32>, tensor<2x4xf32>, tensor<2x4xui8>
  }
}
)";

TEST(StructuralPrograms, StableSortOfThreeOperands) {
  auto out = RunProgram(
      kSort3,
      {Literal::FromVector<int32_t>({2, 4}, {3, 1, 3, 1, 2, 2, 0, 2}),
       Literal::FromVector<float>({2, 4},
                                  {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5}),
       Literal::FromVector<uint8_t>({2, 4}, {10, 11, 12, 13, 14, 15, 16, 17})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<int32_t>(),
            (std::vector<int32_t>{1, 1, 3, 3, 0, 2, 2, 2}));
  EXPECT_EQ((*out)[1].ToVector<float>(),
            (std::vector<float>{1.5, 3.5, 0.5, 2.5, 6.5, 4.5, 5.5, 7.5}));
  EXPECT_EQ((*out)[2].ToVector<uint8_t>(),
            (std::vector<uint8_t>{11, 13, 10, 12, 16, 14, 15, 17}));
}

// lax.pad(arange(1, 7, dtype=int8).reshape(2, 3), int8(-1),
//         [(1, -1, 1), (-1, 2, 2)])
constexpr std::string_view kPadInt8 = R"(
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xi8>) -> (tensor<3x8xi8> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<-1> : tensor<i8>
    %0 = stablehlo.pad %arg0, %c, low = [1, -1], high = [-1, 2], interior = [1, 2] : (tensor<2x3xi8>, tensor<i8>) -> tensor<3x8xi8>
    return %0 : tensor<3x8xi8>
  }
}
)";

TEST(StructuralPrograms, PadWithNegativeAndInteriorPadding) {
  auto out = RunProgram(
      kPadInt8, {Literal::FromVector<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<int8_t> expected(24, -1);
  expected[8 + 2] = 2;
  expected[8 + 5] = 3;
  EXPECT_EQ((*out)[0].ToVector<int8_t>(), expected);
}

// An op no kernel covers is an error naming the op and its line:column in
// the text.
TEST(StructuralPrograms, UnsupportedOpNamesTheOpAndItsLine) {
  // The CPU factors f16, bf16, f32, f64, c64 and c128 matrices, not 8-bit
  // float ones.
  constexpr std::string_view kCholesky = R"(module @jit_f {
  func.func public @main(%arg0: tensor<2x2xf8E4M3FN>) -> (tensor<2x2xf8E4M3FN>) {
    %0 = stablehlo.cholesky %arg0, lower = true : tensor<2x2xf8E4M3FN>
    return %0 : tensor<2x2xf8E4M3FN>
  }
}
)";
  auto cholesky = RunProgram(
      kCholesky, {Literal(Shape::Array(ElementType::kF8E4M3FN, {2, 2}))});
  ASSERT_FALSE(cholesky.ok());
  EXPECT_NE(cholesky.status().message().find("cholesky"), std::string::npos)
      << cholesky.status().message();
  EXPECT_NE(cholesky.status().message().find("3:5"), std::string::npos)
      << cholesky.status().message();
  // top_k has no kernel for 4-bit integers.
  constexpr std::string_view kTopK = R"(module @jit_f {
  func.func public @main(%arg0: tensor<2x8xi4>) -> (tensor<2x3xi4>, tensor<2x3xi32>) {
    %0:2 = chlo.top_k(%arg0, k = 3) : tensor<2x8xi4> -> (tensor<2x3xi4>, tensor<2x3xi32>)
    return %0#0, %0#1 : tensor<2x3xi4>, tensor<2x3xi32>
  }
}
)";
  auto top_k =
      RunProgram(kTopK, {Literal(Shape::Array(ElementType::kS4, {2, 8}))});
  ASSERT_FALSE(top_k.ok());
  EXPECT_NE(top_k.status().message().find("topk of s4"), std::string::npos)
      << top_k.status().message();
  EXPECT_NE(top_k.status().message().find("3:5"), std::string::npos)
      << top_k.status().message();
}

}  // namespace
}  // namespace xffi
