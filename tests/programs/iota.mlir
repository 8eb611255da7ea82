module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<3x4xi32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<3x4xf32>
    %3 = stablehlo.add %arg0, %2 : tensor<3x4xf32>
    %4 = stablehlo.iota dim = 0 : tensor<12xi32>
    %5 = stablehlo.reshape %4 : (tensor<12xi32>) -> tensor<3x4xi32>
    return %3, %5 : tensor<3x4xf32>, tensor<3x4xi32>
  }
}
