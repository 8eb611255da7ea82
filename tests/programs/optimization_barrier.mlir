module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<4x3xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %3 = stablehlo.add %arg1, %2 : tensor<4x3xf32>
    %4:2 = stablehlo.optimization_barrier %1, %3 : tensor<4x3xf32>, tensor<4x3xf32>
    %5 = stablehlo.multiply %4#0, %4#1 : tensor<4x3xf32>
    %6 = stablehlo.optimization_barrier %5 : tensor<4x3xf32>
    %7 = stablehlo.subtract %6, %4#0 : tensor<4x3xf32>
    return %7, %4#1 : tensor<4x3xf32>, tensor<4x3xf32>
  }
}
