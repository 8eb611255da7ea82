func.func @main(%x: tensor<4x5xf32>, %i: tensor<i32>, %k: tensor<2xi32>) -> (tensor<5xf32>, tensor<2x5xf32>, tensor<f32>, tensor<5x4xf32>) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %i, %c, sizes = [1, 5] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<1x5xf32>
  %1 = stablehlo.reshape %0 : (tensor<1x5xf32>) -> tensor<5xf32>
  %2 = stablehlo.slice %x [1:3, 0:5:1] : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<f32>
  %4 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x5xf32>) -> tensor<5x4xf32>
  %5 = stablehlo.dot_general %x, %4, batching_dims = [] x [], contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf32>, tensor<5x4xf32>) -> tensor<4x4xf32>
  %6 = stablehlo.pad %x, %z, low = [1, 0], high = [0, -1], interior = [0, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<5x4xf32>
  %7 = stablehlo.iota dim = 0 : tensor<4xi32>
  %8 = stablehlo.compare LT, %7, %7, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %9 = stablehlo.select %8, %7, %7 : tensor<4xi1>, tensor<4xi32>
  %10 = stablehlo.clamp %c, %i, %c : tensor<i32>
  %11 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<8x5xf32>
  %12 = stablehlo.reverse %x, dims = [0] : tensor<4x5xf32>
  %13 = stablehlo.bitcast_convert %x : (tensor<4x5xf32>) -> tensor<4x5xi32>
  %14 = stablehlo.convert %13 : (tensor<4x5xi32>) -> tensor<4x5xf16>
  %15 = stablehlo.dynamic_update_slice %x, %0, %i, %c : (tensor<4x5xf32>, tensor<1x5xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  %16 = chlo.erf %x : tensor<4x5xf32> -> tensor<4x5xf32>
  %17 = chlo.square %x : tensor<4x5xf32> -> tensor<4x5xf32>
  %18 = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<3x3xf32>
  %19 = "stablehlo.gather"(%x, %k) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x5xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %1, %2, %3, %6 : tensor<5xf32>, tensor<2x5xf32>, tensor<f32>, tensor<5x4xf32>
}
