module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<6xf32>) -> (tensor<6xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<6xcomplex<f32>>
    %1 = stablehlo.multiply %0, %0 : tensor<6xcomplex<f32>>
    %2 = stablehlo.real %0 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %3 = stablehlo.imag %0 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %4 = stablehlo.negate %3 : tensor<6xf32>
    %5 = stablehlo.complex %2, %4 : tensor<6xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<6xcomplex<f32>>
    %7 = stablehlo.add %0, %6 : tensor<6xcomplex<f32>>
    %8 = stablehlo.divide %5, %7 : tensor<6xcomplex<f32>>
    %9 = stablehlo.add %1, %8 : tensor<6xcomplex<f32>>
    %10 = stablehlo.abs %9 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %11 = stablehlo.real %9 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %12 = stablehlo.imag %9 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %13 = stablehlo.add %11, %12 : tensor<6xf32>
    %14 = stablehlo.exponential %0 : tensor<6xcomplex<f32>>
    return %9, %10, %13, %14 : tensor<6xcomplex<f32>>, tensor<6xf32>, tensor<6xf32>, tensor<6xcomplex<f32>>
  }
}
