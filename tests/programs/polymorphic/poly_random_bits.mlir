module @jit__lambda attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>, %arg1: tensor<?x3xf32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<?x3xui32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[1].shape = (b, 3). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[1].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2:2 = call @_wrapped_jax_export_main(%0, %arg0, %arg1) : (tensor<i32>, tensor<4xui32>, tensor<?x3xf32>) -> (tensor<4xui32>, tensor<?x3xui32>)
    return %2#0, %2#1 : tensor<4xui32>, tensor<?x3xui32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<4xui32>, %arg2: tensor<?x3xf32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<?x3xui32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<3> : tensor<1xi32>
    %0 = stablehlo.reshape %arg1 : (tensor<4xui32>) -> tensor<2x2xui32>
    %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui32>) -> tensor<2xui64>
    %2 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.concatenate %2, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %4:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%1, %3) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)
    %5 = stablehlo.bitcast_convert %4#0 : (tensor<2xui64>) -> tensor<2x2xui32>
    %6 = stablehlo.reshape %5 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %6, %4#1 : tensor<4xui32>, tensor<?x3xui32>
  }
}
