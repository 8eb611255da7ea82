module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<f32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.compare GT, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %6 = stablehlo.negate %arg0 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %6 = stablehlo.exponential %arg0 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.compare LT, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.add %arg0, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.multiply %arg0, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    return %2, %5 : tensor<5xf32>, tensor<5xf32>
  }
}
