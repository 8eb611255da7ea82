func.func public @main(%arg0: tensor<?xf32>) -> (tensor<?xf32>, tensor<?x2xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>) {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %d1, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %h = stablehlo.divide %d, %c2 : tensor<i32>
  %h1 = stablehlo.reshape %h : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %s = stablehlo.concatenate %h1, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r = stablehlo.dynamic_reshape %arg0, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %sl = stablehlo.real_dynamic_slice %arg0, %one, %d1, %one : (tensor<?xf32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %hi = stablehlo.constant dense<2> : tensor<1xi32>
  %in = stablehlo.constant dense<0> : tensor<1xi32>
  %p = stablehlo.dynamic_pad %arg0, %zero, %one, %hi, %in : (tensor<?xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf32>
  %cat = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %sum = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  return %iota, %r, %sl, %p, %cat, %sum : tensor<?xf32>, tensor<?x2xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>
}
