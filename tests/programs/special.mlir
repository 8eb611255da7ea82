module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}) {
    %0 = chlo.erf %arg0 : tensor<8xf32> -> tensor<8xf32>
    %1 = chlo.erf_inv %arg0 : tensor<8xf32> -> tensor<8xf32>
    %2 = chlo.lgamma %arg1 : tensor<8xf32> -> tensor<8xf32>
    %3 = chlo.digamma %arg1 : tensor<8xf32> -> tensor<8xf32>
    %4 = chlo.erfc %arg0 : tensor<8xf32> -> tensor<8xf32>
    return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
}
