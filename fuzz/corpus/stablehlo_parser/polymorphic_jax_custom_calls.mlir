func.func public @main(%arg0: tensor<2xui64>, %arg1: tensor<3x?xf32>) -> (tensor<2xui64>, tensor<?x3xui32>, tensor<3x?xf32>, tensor<3x?xi32>, tensor<3x?xf32>) {
  %d = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %d1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%arg0, %s) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %k = stablehlo.divide %d, %c2 : tensor<i32>
  %1:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg1, %k) {api_version = 2 : i32} : (tensor<3x?xf32>, tensor<i32>) -> (tensor<3x?xf32>, tensor<3x?xi32>)
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = "stablehlo.while"(%c0, %arg1) ({
  ^bb0(%i: tensor<i32>, %x: tensor<3x?xf32>):
    %lt = "stablehlo.compare"(%i, %d) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%j: tensor<i32>, %y: tensor<3x?xf32>):
    %n = stablehlo.add %y, %y : tensor<3x?xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %j1 = stablehlo.add %j, %c1 : tensor<i32>
    "stablehlo.return"(%j1, %n) : (tensor<i32>, tensor<3x?xf32>) -> ()
  }) : (tensor<i32>, tensor<3x?xf32>) -> (tensor<i32>, tensor<3x?xf32>)
  return %0#0, %0#1, %1#0, %1#1, %w#1 : tensor<2xui64>, tensor<?x3xui32>, tensor<3x?xf32>, tensor<3x?xi32>, tensor<3x?xf32>
}
