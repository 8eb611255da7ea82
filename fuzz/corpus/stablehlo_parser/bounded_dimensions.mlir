module @bounded {
  func.func @main(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>) -> (tensor<?xf32, #stablehlo.bounds<8>>, tensor<i32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>>
    %2 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
    return %1, %2 : tensor<?xf32, #stablehlo.bounds<8>>, tensor<i32>
  }
}
