module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>) -> (tensor<4x6xf32> {jax.result_info = "result[0]"}, tensor<4x6xf32> {jax.result_info = "result[1]"}, tensor<4x3x2xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
    %4 = stablehlo.transpose %arg0, dims = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3x2xf32>
    %6 = stablehlo.multiply %4, %5 : tensor<4x3x2xf32>
    return %1, %3, %6 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x3x2xf32>
  }
}
