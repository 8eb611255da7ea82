module @slice {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.custom_call @cli_mark(%arg0) {api_version = 4 : i32, has_side_effect = true, mhlo.backend_config = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.slice %0 [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}
