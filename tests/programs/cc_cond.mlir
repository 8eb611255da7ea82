module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>, %arg2: tensor<128xf32>, %arg3: tensor<2048xf32>) -> (tensor<8x16xf32> {jax.result_info = "result[0]"}, tensor<2048xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare GT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      %5 = stablehlo.negate %arg0 : tensor<8x16xf32>
      %6 = stablehlo.custom_call @rms_norm(%5) {backend_config = "", mhlo.backend_config = {eps = 5.000000e-01 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<8x16xf32>) -> tensor<8x16xf32>
      stablehlo.return %6 : tensor<8x16xf32>
    }, {
      %5 = stablehlo.custom_call @rms_norm(%arg0) {backend_config = "", mhlo.backend_config = {eps = 9.99999974E-6 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<8x16xf32>) -> tensor<8x16xf32>
      stablehlo.return %5 : tensor<8x16xf32>
    }) : (tensor<i32>) -> tensor<8x16xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %3 = stablehlo.clamp %c_0, %arg1, %c_1 : tensor<i32>
    %4 = "stablehlo.case"(%3) ({
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2048xf32>
      %6 = stablehlo.multiply %arg3, %5 : tensor<2048xf32>
      stablehlo.return %6 : tensor<2048xf32>
    }, {
      %5 = stablehlo.custom_call @do_custom_call(%arg2, %arg3) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
      stablehlo.return %5 : tensor<2048xf32>
    }, {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128xf32>
      %6 = stablehlo.multiply %arg2, %5 : tensor<128xf32>
      %7 = stablehlo.custom_call @do_custom_call(%6, %arg3) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
      stablehlo.return %7 : tensor<2048xf32>
    }) : (tensor<i32>) -> tensor<2048xf32>
    return %2, %4 : tensor<8x16xf32>, tensor<2048xf32>
  }
}
