module @jit_norm_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x128xf32>, %arg1: tensor<128x128xf32>, %arg2: tensor<128xf32>) -> (tensor<16x128xf32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.custom_call @rms_norm(%arg0) {backend_config = "", mhlo.backend_config = {eps = 9.99999974E-6 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %2 = stablehlo.multiply %1, %1 : tensor<16x128xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<16x128xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<16x128xf32>
    %6 = stablehlo.add %1, %5 : tensor<16x128xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<16x128xf32>
    %9 = stablehlo.tanh %8 : tensor<16x128xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %11 = stablehlo.add %10, %9 : tensor<16x128xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<16x128xf32>
    %14 = stablehlo.multiply %1, %13 : tensor<16x128xf32>
    %15 = stablehlo.reshape %14 : (tensor<16x128xf32>) -> tensor<2048xf32>
    %16 = stablehlo.custom_call @do_custom_call(%arg2, %15) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    %17 = stablehlo.reshape %16 : (tensor<2048xf32>) -> tensor<16x128xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_3) applies stablehlo.maximum across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %20 = stablehlo.maximum %19, %18 : tensor<16xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x128xf32>
    %23 = stablehlo.subtract %17, %22 : tensor<16x128xf32>
    %24 = stablehlo.exponential %23 : tensor<16x128xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x128xf32>
    %28 = stablehlo.divide %24, %27 : tensor<16x128xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_6) applies stablehlo.maximum across dimensions = [1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>
    return %28, %29 : tensor<16x128xf32>, tensor<16xf32>
  }
}
