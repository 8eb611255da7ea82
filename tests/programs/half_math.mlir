module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8xf16>, %arg1: tensor<2x8xbf16>) -> (tensor<2x8xf16> {jax.result_info = "result[0]"}, tensor<2x8xbf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x8xf16>
    %1 = stablehlo.exponential %arg0 : tensor<2x8xf16>
    %2 = stablehlo.add %0, %1 : tensor<2x8xf16>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f16>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<2x8xf16>
    %4 = stablehlo.divide %arg0, %3 : tensor<2x8xf16>
    %5 = stablehlo.subtract %2, %4 : tensor<2x8xf16>
    %6 = stablehlo.multiply %arg1, %arg1 : tensor<2x8xbf16>
    %7 = stablehlo.convert %arg1 : (tensor<2x8xbf16>) -> tensor<2x8xf32>
    %8 = stablehlo.convert %7 : (tensor<2x8xf32>) -> tensor<2x8xbf16>
    %9 = stablehlo.add %6, %8 : tensor<2x8xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<2x8xbf16>
    %11 = stablehlo.subtract %9, %10 : tensor<2x8xbf16>
    return %5, %11 : tensor<2x8xf16>, tensor<2x8xbf16>
  }
}
