module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x10xf64>, %arg1: tensor<2x5x7xcomplex<f64>>) -> (tensor<3x6xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<3x10xf64> {jax.result_info = "result[1]"}, tensor<2x5x7xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<2x5x7xcomplex<f64>> {jax.result_info = "result[3]"}, tensor<2x5x12xf64> {jax.result_info = "result[4]"}) {
    %0 = call @fft(%arg0) : (tensor<3x10xf64>) -> tensor<3x6xcomplex<f64>>
    %1 = call @fft(%arg0) : (tensor<3x10xf64>) -> tensor<3x6xcomplex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %2 = call @_pad(%1, %c) : (tensor<3x6xcomplex<f64>>, tensor<i64>) -> tensor<3x6xcomplex<f64>>
    %3 = call @fft_0(%2) : (tensor<3x6xcomplex<f64>>) -> tensor<3x10xf64>
    %4 = call @fft_1(%arg1) : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>>
    %5 = call @fft_2(%arg1) : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %6 = call @_pad_3(%arg1, %c_0) : (tensor<2x5x7xcomplex<f64>>, tensor<i64>) -> tensor<2x5x7xcomplex<f64>>
    %7 = call @fft_4(%6) : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x12xf64>
    return %0, %3, %4, %5, %7 : tensor<3x6xcomplex<f64>>, tensor<3x10xf64>, tensor<2x5x7xcomplex<f64>>, tensor<2x5x7xcomplex<f64>>, tensor<2x5x12xf64>
  }
  func.func private @fft(%arg0: tensor<3x10xf64>) -> tensor<3x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [10] : (tensor<3x10xf64>) -> tensor<3x6xcomplex<f64>>
    return %0 : tensor<3x6xcomplex<f64>>
  }
  func.func private @_pad(%arg0: tensor<3x6xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<3x6xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<3x6xcomplex<f64>>
    return %1 : tensor<3x6xcomplex<f64>>
  }
  func.func private @fft_0(%arg0: tensor<3x6xcomplex<f64>>) -> tensor<3x10xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [10] : (tensor<3x6xcomplex<f64>>) -> tensor<3x10xf64>
    return %0 : tensor<3x10xf64>
  }
  func.func private @fft_1(%arg0: tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [2, 5, 7] : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>>
    return %0 : tensor<2x5x7xcomplex<f64>>
  }
  func.func private @fft_2(%arg0: tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [2, 5, 7] : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x7xcomplex<f64>>
    return %0 : tensor<2x5x7xcomplex<f64>>
  }
  func.func private @_pad_3(%arg0: tensor<2x5x7xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<2x5x7xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<2x5x7xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2x5x7xcomplex<f64>>
    return %1 : tensor<2x5x7xcomplex<f64>>
  }
  func.func private @fft_4(%arg0: tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x12xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [2, 5, 12] : (tensor<2x5x7xcomplex<f64>>) -> tensor<2x5x12xf64>
    return %0 : tensor<2x5x12xf64>
  }
}
