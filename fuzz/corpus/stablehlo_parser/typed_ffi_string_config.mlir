func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0:2 = stablehlo.custom_call @"my target"(%arg0, %arg0) {api_version = 4 : i32, backend_config = {k = 5 : i16, s = "x\0Ay", w = array<f32: 1.5>, d = dense<[1, 2]> : tensor<2xi64>, n = {a = 7 : ui8}}, has_side_effect = true, called_computations = [@helper], operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>]} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>)
  %1 = stablehlo.custom_call @legacy(%0#0) {api_version = 4 : i32, backend_config = "opaque\22str"} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "stablehlo.custom_call"(%1) <{api_version = #stablehlo<custom_call_api_version API_VERSION_TYPED_FFI>, call_target_name = "gen"}> {mhlo.backend_config = {alpha = 2.000000e+00 : f32}} : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
func.func private @helper(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
