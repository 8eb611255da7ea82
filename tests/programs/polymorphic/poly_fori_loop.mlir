module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 3). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0) : (tensor<i32>, tensor<?x3xf32>) -> tensor<3xf32>
    return %2 : tensor<3xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<3> : tensor<i32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1:4 = stablehlo.while(%iterArg = %arg1, %iterArg_3 = %c_1, %iterArg_4 = %arg0, %iterArg_5 = %0) : tensor<?x3xf32>, tensor<i32>, tensor<i32>, tensor<3xf32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_3, %iterArg_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = stablehlo.add %iterArg_3, %c_0 : tensor<i32>
      %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %4 = stablehlo.multiply %iterArg_5, %3 : tensor<3xf32>
      %5 = stablehlo.convert %iterArg_3 : tensor<i32>
      %6 = stablehlo.convert %arg0 : tensor<i32>
      %7 = stablehlo.compare LT, %5, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %8 = stablehlo.add %5, %6 : tensor<i32>
      %9 = stablehlo.select %7, %8, %5 : tensor<i1>, tensor<i32>
      %10 = stablehlo.compare LT, %c_1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %11 = stablehlo.add %c_1, %c : tensor<i32>
      %12 = stablehlo.select %10, %11, %c_1 : tensor<i1>, tensor<i32>
      %13 = stablehlo.dynamic_slice %iterArg, %9, %12, sizes = [1, 3] : (tensor<?x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
      %14 = stablehlo.reshape %13 : (tensor<1x3xf32>) -> tensor<3xf32>
      %15 = stablehlo.add %4, %14 : tensor<3xf32>
      stablehlo.return %iterArg, %2, %iterArg_4, %15 : tensor<?x3xf32>, tensor<i32>, tensor<i32>, tensor<3xf32>
    }
    return %1#3 : tensor<3xf32>
  }
}
