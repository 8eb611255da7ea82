module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x96xf32>, %arg1: tensor<49xf32>) -> (tensor<4x96xf32> {jax.result_info = "result[0]"}, tensor<4x8x12xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x8x12xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<4x37xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<4x6x9xcomplex<f32>> {jax.result_info = "result[4]"}) {
    %0 = call @fft(%arg0) : (tensor<4x96xf32>) -> tensor<4x49xcomplex<f32>>
    %1 = stablehlo.convert %arg1 : (tensor<49xf32>) -> tensor<49xcomplex<f32>>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<49xcomplex<f32>>) -> tensor<1x49xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x49xcomplex<f32>>) -> tensor<4x49xcomplex<f32>>
    %4 = stablehlo.multiply %0, %3 : tensor<4x49xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = call @_pad(%4, %c) : (tensor<4x49xcomplex<f32>>, tensor<i32>) -> tensor<4x49xcomplex<f32>>
    %6 = call @fft_0(%5) : (tensor<4x49xcomplex<f32>>) -> tensor<4x96xf32>
    %7 = stablehlo.reshape %arg0 : (tensor<4x96xf32>) -> tensor<4x8x12xf32>
    %8 = stablehlo.convert %7 : (tensor<4x8x12xf32>) -> tensor<4x8x12xcomplex<f32>>
    %9 = call @fft_1(%8) : (tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>>
    %cst = stablehlo.constant dense<(5.000000e-01,0.000000e+00)> : tensor<complex<f32>>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x8x12xcomplex<f32>>
    %11 = stablehlo.multiply %9, %10 : tensor<4x8x12xcomplex<f32>>
    %12 = call @fft_2(%11) : (tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>>
    %13 = stablehlo.slice %arg0 [0:4, 0:37] : (tensor<4x96xf32>) -> tensor<4x37xf32>
    %14 = stablehlo.convert %13 : (tensor<4x37xf32>) -> tensor<4x37xcomplex<f32>>
    %15 = call @fft_3(%14) : (tensor<4x37xcomplex<f32>>) -> tensor<4x37xcomplex<f32>>
    %16 = stablehlo.reshape %arg0 : (tensor<4x96xf32>) -> tensor<4x6x16xf32>
    %17 = call @fft_4(%16) : (tensor<4x6x16xf32>) -> tensor<4x6x9xcomplex<f32>>
    return %6, %9, %12, %15, %17 : tensor<4x96xf32>, tensor<4x8x12xcomplex<f32>>, tensor<4x8x12xcomplex<f32>>, tensor<4x37xcomplex<f32>>, tensor<4x6x9xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<4x96xf32>) -> tensor<4x49xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [96] : (tensor<4x96xf32>) -> tensor<4x49xcomplex<f32>>
    return %0 : tensor<4x49xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<4x49xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<4x49xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x49xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4x49xcomplex<f32>>
    return %1 : tensor<4x49xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<4x49xcomplex<f32>>) -> tensor<4x96xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [96] : (tensor<4x49xcomplex<f32>>) -> tensor<4x96xf32>
    return %0 : tensor<4x96xf32>
  }
  func.func private @fft_1(%arg0: tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [8, 12] : (tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>>
    return %0 : tensor<4x8x12xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [8, 12] : (tensor<4x8x12xcomplex<f32>>) -> tensor<4x8x12xcomplex<f32>>
    return %0 : tensor<4x8x12xcomplex<f32>>
  }
  func.func private @fft_3(%arg0: tensor<4x37xcomplex<f32>>) -> tensor<4x37xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [37] : (tensor<4x37xcomplex<f32>>) -> tensor<4x37xcomplex<f32>>
    return %0 : tensor<4x37xcomplex<f32>>
  }
  func.func private @fft_4(%arg0: tensor<4x6x16xf32>) -> tensor<4x6x9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4, 6, 16] : (tensor<4x6x16xf32>) -> tensor<4x6x9xcomplex<f32>>
    return %0 : tensor<4x6x9xcomplex<f32>>
  }
}
