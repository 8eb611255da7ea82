// jax.jit(lambda a, b: (a @ b, jnp.einsum('bij,bjk->bik', a[None], b[None]))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> (tensor<2x4xf32> {jax.result_info = "result[0]"}, tensor<1x2x4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %3 = stablehlo.dot_general %1, %2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
    return %0, %3 : tensor<2x4xf32>, tensor<1x2x4xf32>
  }
}
