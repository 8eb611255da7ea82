// jax.jit(lambda x: (lax.erf(x), lax.erf_inv(x), lax.lgamma(x), lax.digamma(x))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<3xf32> {jax.result_info = "result[3]"}) {
    %0 = chlo.erf %arg0 : tensor<3xf32> -> tensor<3xf32>
    %1 = chlo.erf_inv %arg0 : tensor<3xf32> -> tensor<3xf32>
    %2 = chlo.lgamma %arg0 : tensor<3xf32> -> tensor<3xf32>
    %3 = chlo.digamma %arg0 : tensor<3xf32> -> tensor<3xf32>
    return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
