// jax.jit(lambda x: (x << 2, x >> 1, lax.shift_right_logical(x, 1), lax.population_count(x), lax.clz(x), ~x, x % 3, x ** 2)).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi32>) -> (tensor<3xi32> {jax.result_info = "result[0]"}, tensor<3xi32> {jax.result_info = "result[1]"}, tensor<3xi32> {jax.result_info = "result[2]"}, tensor<3xi32> {jax.result_info = "result[3]"}, tensor<3xi32> {jax.result_info = "result[4]"}, tensor<3xi32> {jax.result_info = "result[5]"}, tensor<3xi32> {jax.result_info = "result[6]"}, tensor<3xi32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %1 = stablehlo.shift_left %arg0, %0 : tensor<3xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %3 = stablehlo.shift_right_arithmetic %arg0, %2 : tensor<3xi32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.shift_right_logical %arg0, %4 : tensor<3xi32>
    %6 = stablehlo.popcnt %arg0 : tensor<3xi32>
    %7 = stablehlo.count_leading_zeros %arg0 : tensor<3xi32>
    %8 = stablehlo.not %arg0 : tensor<3xi32>
    %c_2 = stablehlo.constant dense<3> : tensor<i32>
    %9 = call @remainder(%arg0, %c_2) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %10 = stablehlo.multiply %arg0, %arg0 : tensor<3xi32>
    return %1, %3, %5, %6, %7, %8, %9, %10 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
  }
  func.func private @remainder(%arg0: tensor<3xi32>, %arg1: tensor<i32>) -> tensor<3xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<3xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<3xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    %12 = stablehlo.and %11, %6 : tensor<3xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %14 = stablehlo.add %4, %13 : tensor<3xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<3xi1>, tensor<3xi32>
    return %15 : tensor<3xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
