module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<6x4xf32> {jax.result_info = "result[0]"}, tensor<6x7xf32> {jax.result_info = "result[1]"}, tensor<5x10xf32> {jax.result_info = "result[2]"}, tensor<3x4xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %1 = stablehlo.concatenate %arg0, %arg1, %0, dim = 0 : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<6x4xf32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %2 = call @_pad(%arg0, %cst) : (tensor<3x4xf32>, tensor<f32>) -> tensor<6x7xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %3 = stablehlo.pad %arg0, %cst_0, low = [1, 0], high = [-1, 0], interior = [1, 2] : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x10xf32>
    %4 = call @_flip(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    return %1, %2, %3, %4 : tensor<6x4xf32>, tensor<6x7xf32>, tensor<5x10xf32>, tensor<3x4xf32>
  }
  func.func private @_pad(%arg0: tensor<3x4xf32>, %arg1: tensor<f32>) -> tensor<6x7xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [2, 3], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<6x7xf32>
    return %1 : tensor<6x7xf32>
  }
  func.func private @_flip(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
