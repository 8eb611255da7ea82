// jax.jit(lambda x: lax.optimization_barrier((x, x + 1))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
    %2:2 = stablehlo.optimization_barrier %arg0, %1 : tensor<2xf32>, tensor<2xf32>
    return %2#0, %2#1 : tensor<2xf32>, tensor<2xf32>
  }
}
