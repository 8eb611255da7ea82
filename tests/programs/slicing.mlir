module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<4x3xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.slice %arg0 [1:5, 0:8:3] : (tensor<6x8xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.slice %arg0 [0:6, 2:3] : (tensor<6x8xf32>) -> tensor<6x1xf32>
    %2 = stablehlo.reverse %1, dims = [0] : tensor<6x1xf32>
    %3 = stablehlo.reshape %2 : (tensor<6x1xf32>) -> tensor<6xf32>
    %4 = stablehlo.slice %arg0 [2:6, 5:8] : (tensor<6x8xf32>) -> tensor<4x3xf32>
    return %0, %3, %4 : tensor<4x3xf32>, tensor<6xf32>, tensor<4x3xf32>
  }
}
