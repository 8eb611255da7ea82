module @concatenate {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x5xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.custom_call @cli_mark(%arg0) {api_version = 4 : i32, has_side_effect = true, mhlo.backend_config = {}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.concatenate %0, %arg1, dim = 0 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<4x3xf32>
    return %1 : tensor<4x3xf32>
  }
}
