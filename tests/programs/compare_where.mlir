module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xf32>) -> (tensor<3x5xf32> {jax.result_info = "result[0]"}, tensor<3x5xi1> {jax.result_info = "result[1]"}, tensor<3x5xi1> {jax.result_info = "result[2]"}, tensor<3x5xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<3x5xf32>
    %3 = call @_where(%0, %arg0, %2) : (tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %5 = stablehlo.compare LE, %arg0, %4, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %7 = stablehlo.add %arg1, %6 : tensor<3x5xf32>
    %8 = stablehlo.compare NE, %arg1, %7, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %9 = stablehlo.and %5, %8 : tensor<3x5xi1>
    %10 = stablehlo.negate %3 : tensor<3x5xf32>
    %11 = call @_where(%9, %3, %10) : (tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %12 = stablehlo.log %arg0 : tensor<3x5xf32>
    %13 = stablehlo.is_finite %12 : (tensor<3x5xf32>) -> tensor<3x5xi1>
    %14 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %cst_2 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %15 = call @clip(%arg0, %cst_2, %cst_3) : (tensor<3x5xf32>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
    return %11, %13, %14, %15 : tensor<3x5xf32>, tensor<3x5xi1>, tensor<3x5xi1>, tensor<3x5xf32>
  }
  func.func private @_where(%arg0: tensor<3x5xi1>, %arg1: tensor<3x5xf32>, %arg2: tensor<3x5xf32>) -> tensor<3x5xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x5xi1>, tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
  func.func private @clip(%arg0: tensor<3x5xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<3x5xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<3x5xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<3x5xf32>
    return %5 : tensor<3x5xf32>
  }
}
