module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x?xf32>) -> (tensor<4x?xf32> {jax.result_info = "result[0]"}, tensor<4x?xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<-2> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<4x?xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'n'. Using the following polymorphic shapes specifications: args[0].shape = (4, n). Obtained dimension variables: 'n' = {0} from specification 'n' for dimension args[0].shape[1] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = stablehlo.convert %0 : tensor<i32>
    %3 = stablehlo.add %2, %c_0 : tensor<i32>
    %4 = stablehlo.compare GE, %3, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.convert %0 : tensor<i32>
    %6 = stablehlo.add %5, %c_0 : tensor<i32>
    stablehlo.custom_call @shape_assertion(%4, %6, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the symbolic shape constraint n >= 2. Expected 'n - 2' to be greater or equal to 0, but found {0}.  Using the following polymorphic shapes specifications: args[0].shape = (4, n). Obtained dimension variables: 'n' = {1} from specification 'n' for dimension args[0].shape[1] (= {1}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %7:2 = call @_wrapped_jax_export_main(%0, %arg0) : (tensor<i32>, tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
    return %7#0, %7#1 : tensor<4x?xf32>, tensor<4x?xi32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "n"}, %arg1: tensor<4x?xf32>) -> (tensor<4x?xf32> {jax.result_info = "result[0]"}, tensor<4x?xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0:2 = call @divmod(%arg0, %arg0, %c) : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    %1:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg1, %0#0) {api_version = 2 : i32} : (tensor<4x?xf32>, tensor<i32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
    return %1#0, %1#1 : tensor<4x?xf32>, tensor<4x?xi32>
  }
  func.func private @divmod(%arg0: tensor<i32> {jax.global_constant = "n"}, %arg1: tensor<i32>, %arg2: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = call @floor_divide(%arg0, %0, %arg2) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = call @remainder(%arg0, %0, %arg2) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %1, %2 : tensor<i32>, tensor<i32>
  }
  func.func private @floor_divide(%arg0: tensor<i32> {jax.global_constant = "n"}, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.divide %arg1, %arg2 : tensor<i32>
    %1 = stablehlo.sign %arg1 : tensor<i32>
    %2 = stablehlo.sign %arg2 : tensor<i32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.remainder %arg1, %arg2 : tensor<i32>
    %5 = stablehlo.compare NE, %4, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.and %3, %5 : tensor<i1>
    %7 = stablehlo.subtract %0, %c : tensor<i32>
    %8 = call @_where(%arg0, %6, %7, %0) : (tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %8 : tensor<i32>
  }
  func.func private @_where(%arg0: tensor<i32> {jax.global_constant = "n"}, %arg1: tensor<i1>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg1, %arg2, %arg3 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @remainder(%arg0: tensor<i32> {jax.global_constant = "n"}, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = call @_where(%arg0, %0, %c, %arg2) : (tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %2 = stablehlo.remainder %arg1, %1 : tensor<i32>
    %3 = stablehlo.compare NE, %2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.compare LT, %2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.compare LT, %1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %7 = stablehlo.and %6, %3 : tensor<i1>
    %8 = stablehlo.add %2, %1 : tensor<i32>
    %9 = stablehlo.select %7, %8, %2 : tensor<i1>, tensor<i32>
    return %9 : tensor<i32>
  }
}
