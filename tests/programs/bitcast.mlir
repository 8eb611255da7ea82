module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xui32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8xui32>
    %c = stablehlo.constant dense<16> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %2 = stablehlo.shift_right_logical %0, %1 : tensor<8xui32>
    %c_0 = stablehlo.constant dense<2147483648> : tensor<ui32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %4 = stablehlo.xor %0, %3 : tensor<8xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<8xui32>) -> tensor<8xf32>
    return %2, %5 : tensor<8xui32>, tensor<8xf32>
  }
}
