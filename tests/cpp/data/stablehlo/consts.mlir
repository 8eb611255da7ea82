// jax.jit(lambda x: (x + jnp.array([np.nan, np.inf, -np.inf, 1.5]), jnp.array([[1, 2], [3, 4]], jnp.int8), jnp.array([True, False]), jnp.array([1 + 2j], jnp.complex64), jnp.array([1, 2], jnp.uint16), jnp.array([1.5], jnp.bfloat16), x + np.arange(120, dtype=np.float32)[:4] * 0 + np.arange(120, dtype=np.float32).reshape(10, 12)[0, :4], np.arange(120, dtype=np.float32).reshape(10, 12) + 0 * x[0])).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<2x2xi8> {jax.result_info = "result[1]"}, tensor<2xi1> {jax.result_info = "result[2]"}, tensor<1xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<2xui16> {jax.result_info = "result[4]"}, tensor<1xbf16> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<10x12xf32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, 1.500000e+00]> : tensor<4xf32>
    %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
    %c_0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %cst_1 = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<1xcomplex<f32>>
    %c_2 = stablehlo.constant dense<[1, 2]> : tensor<2xui16>
    %cst_3 = stablehlo.constant dense<1.500000e+00> : tensor<1xbf16>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C8420000CA420000CC420000CE420000D0420000D2420000D4420000D6420000D8420000DA420000DC420000DE420000E0420000E2420000E4420000E6420000E8420000EA420000EC420000EE42"> : tensor<10x12xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<4xf32>
    %1 = stablehlo.add %arg0, %cst_4 : tensor<4xf32>
    %2 = stablehlo.add %1, %cst_5 : tensor<4xf32>
    %3 = stablehlo.slice %arg0 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %3 : (tensor<1xf32>) -> tensor<f32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.multiply %cst_7, %4 : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<10x12xf32>
    %7 = stablehlo.add %cst_6, %6 : tensor<10x12xf32>
    return %0, %c, %c_0, %cst_1, %c_2, %cst_3, %2, %7 : tensor<4xf32>, tensor<2x2xi8>, tensor<2xi1>, tensor<1xcomplex<f32>>, tensor<2xui16>, tensor<1xbf16>, tensor<4xf32>, tensor<10x12xf32>
  }
}
