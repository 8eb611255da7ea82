module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x5x3xf32>, %arg1: tensor<3x3x3x3xf32>) -> (tensor<2x8x10x3xf32> {jax.result_info = "result[0]"}, tensor<2x9x7x3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x5x3xf32>, tensor<3x3x3x3xf32>) -> tensor<2x8x10x3xf32>
    %1 = stablehlo.reverse %arg1, dims = [0] : tensor<3x3x3x3xf32>
    %2 = stablehlo.reverse %1, dims = [1] : tensor<3x3x3x3xf32>
    %3 = stablehlo.transpose %2, dims = [0, 1, 3, 2] : (tensor<3x3x3x3xf32>) -> tensor<3x3x3x3xf32>
    %4 = stablehlo.convolution(%arg0, %3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [2, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x5x3xf32>, tensor<3x3x3x3xf32>) -> tensor<2x9x7x3xf32>
    return %0, %4 : tensor<2x8x10x3xf32>, tensor<2x9x7x3xf32>
  }
}
