module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<16x128xf32>, %arg2: tensor<128xf32>) -> (tensor<16xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1 = stablehlo.multiply %arg1, %0 : tensor<16x128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %3 = stablehlo.add %1, %2 : tensor<16x128xf32>
    %4 = stablehlo.custom_call @rms_norm(%3) {backend_config = "", mhlo.backend_config = {eps = 9.99999997E-7 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %5 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %7 = stablehlo.multiply %4, %6 : tensor<16x128xf32>
    %8 = stablehlo.reshape %7 : (tensor<16x128xf32>) -> tensor<2048xf32>
    %9 = stablehlo.custom_call @do_custom_call(%arg0, %8) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    %10 = stablehlo.reshape %9 : (tensor<2048xf32>) -> tensor<16x128xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %11:3 = stablehlo.while(%iterArg = %c_1, %iterArg_4 = %c, %iterArg_5 = %10) : tensor<i32>, tensor<i32>, tensor<16x128xf32>
    cond {
      %c_6 = stablehlo.constant dense<3> : tensor<i32>
      %14 = stablehlo.compare LT, %iterArg, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call(%iterArg_4, %iterArg_5) : (tensor<i32>, tensor<16x128xf32>) -> (tensor<i32>, tensor<16x128xf32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %15 = stablehlo.add %iterArg, %c_6 : tensor<i32>
      stablehlo.return %15, %14#0, %14#1 : tensor<i32>, tensor<i32>, tensor<16x128xf32>
    }
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11#2 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.reduce(%9 init: %cst_3) applies stablehlo.maximum across dimensions = [0] : (tensor<2048xf32>, tensor<f32>) -> tensor<f32>
    return %12, %13 : tensor<16xf32>, tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<16x128xf32>) -> (tensor<i32>, tensor<16x128xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %1 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %2 = stablehlo.multiply %cst, %1 : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %4 = stablehlo.add %arg1, %3 : tensor<16x128xf32>
    %5 = stablehlo.custom_call @rms_norm(%4) {backend_config = "", mhlo.backend_config = {eps = 9.99999974E-6 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0, %5 : tensor<i32>, tensor<16x128xf32>
  }
}
