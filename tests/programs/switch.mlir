module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg1, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %6 = stablehlo.add %arg0, %5 : tensor<4xf32>
      stablehlo.return %6 : tensor<4xf32>
    }, {
      %5 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
      stablehlo.return %5 : tensor<4xf32>
    }, {
      %5 = stablehlo.cosine %arg0 : tensor<4xf32>
      stablehlo.return %5 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.subtract %arg1, %c_1 : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.clamp %c_2, %2, %c_3 : tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %6 = stablehlo.add %arg0, %5 : tensor<4xf32>
      stablehlo.return %6 : tensor<4xf32>
    }, {
      %5 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
      stablehlo.return %5 : tensor<4xf32>
    }, {
      %5 = stablehlo.cosine %arg0 : tensor<4xf32>
      stablehlo.return %5 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %1, %4 : tensor<4xf32>, tensor<4xf32>
  }
}
