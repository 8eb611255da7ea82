module @pad {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<5x3xf32> {
    %0 = stablehlo.custom_call @cli_mark(%arg0) {api_version = 4 : i32, has_side_effect = true, mhlo.backend_config = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.pad %0, %cst, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    return %1 : tensor<5x3xf32>
  }
}
