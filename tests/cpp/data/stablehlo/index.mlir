// jax.jit(lambda x, i: (x[i], x[1:3], x[:, i])).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<i32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<2x5xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare LT, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.add %0, %c_0 : tensor<i32>
    %3 = stablehlo.select %1, %2, %0 : tensor<i1>, tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.compare LT, %c_1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<5> : tensor<i32>
    %5 = stablehlo.add %c_3, %c_4 : tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.select %4, %5, %c_5 : tensor<i1>, tensor<i32>
    %7 = stablehlo.dynamic_slice %arg0, %3, %6, sizes = [1, 5] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<1x5xf32>
    %8 = stablehlo.reshape %7 : (tensor<1x5xf32>) -> tensor<5xf32>
    %9 = stablehlo.slice %arg0 [1:3, 0:5] : (tensor<4x5xf32>) -> tensor<2x5xf32>
    %10 = stablehlo.convert %arg1 : tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.compare LT, %c_6, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %c_9 = stablehlo.constant dense<4> : tensor<i32>
    %12 = stablehlo.add %c_8, %c_9 : tensor<i32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.select %11, %12, %c_10 : tensor<i1>, tensor<i32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.compare LT, %10, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_12 = stablehlo.constant dense<5> : tensor<i32>
    %15 = stablehlo.add %10, %c_12 : tensor<i32>
    %16 = stablehlo.select %14, %15, %10 : tensor<i1>, tensor<i32>
    %17 = stablehlo.dynamic_slice %arg0, %13, %16, sizes = [4, 1] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<4x1xf32>
    %18 = stablehlo.reshape %17 : (tensor<4x1xf32>) -> tensor<4xf32>
    return %8, %9, %18 : tensor<5xf32>, tensor<2x5xf32>, tensor<4xf32>
  }
}
