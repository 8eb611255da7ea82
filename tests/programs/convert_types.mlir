module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf32>) -> (tensor<12xf16> {jax.result_info = "result[0]"}, tensor<12xbf16> {jax.result_info = "result[1]"}, tensor<12xi8> {jax.result_info = "result[2]"}, tensor<12xui32> {jax.result_info = "result[3]"}, tensor<12xi1> {jax.result_info = "result[4]"}, tensor<12xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<12xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xf16>
    %1 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xbf16>
    %2 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xi8>
    %3 = stablehlo.abs %arg0 : tensor<12xf32>
    %4 = stablehlo.convert %3 : (tensor<12xf32>) -> tensor<12xui32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %6 = stablehlo.compare GT, %arg0, %5, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %7 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xcomplex<f32>>
    %8 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xf16>
    %9 = stablehlo.convert %8 : (tensor<12xf16>) -> tensor<12xf32>
    %10 = stablehlo.convert %arg0 : (tensor<12xf32>) -> tensor<12xbf16>
    %11 = stablehlo.convert %10 : (tensor<12xbf16>) -> tensor<12xf32>
    %12 = stablehlo.add %9, %11 : tensor<12xf32>
    return %0, %1, %2, %4, %6, %7, %12 : tensor<12xf16>, tensor<12xbf16>, tensor<12xi8>, tensor<12xui32>, tensor<12xi1>, tensor<12xcomplex<f32>>, tensor<12xf32>
  }
}
