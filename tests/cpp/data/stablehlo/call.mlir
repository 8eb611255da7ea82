// jax.jit(lambda x: (lambda inner: inner(x) + inner(x + 1))(jax.jit(lambda v: v * 3))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.add %arg0, %1 : tensor<3xf32>
    %3 = call @"<lambda>"(%2) : (tensor<3xf32>) -> tensor<3xf32>
    %4 = stablehlo.add %0, %3 : tensor<3xf32>
    return %4 : tensor<3xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
