// jax.jit(lambda p, x: lax.cond(p > 0, lambda: x * 2, lambda: x - 1)).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.compare GT, %arg0, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %4 = stablehlo.subtract %arg1, %3 : tensor<3xf32>
      stablehlo.return %4 : tensor<3xf32>
    }, {
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %4 = stablehlo.multiply %arg1, %3 : tensor<3xf32>
      stablehlo.return %4 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}
