// jax.jit(lambda x, i: lax.fori_loop(0, 3, lambda k, c: c * x + i, x)).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1, %iterArg_1 = %c, %iterArg_2 = %arg0) : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<2xf32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg, %iterArg_0, %iterArg_2) : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %2, %1 : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<2xf32>
    }
    return %0#3 : tensor<2xf32>
  }
  func.func private @closed_call(%arg0: tensor<2xf32>, %arg1: tensor<f32>, %arg2: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %arg2, %arg0 : tensor<2xf32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %3 = stablehlo.add %0, %2 : tensor<2xf32>
    return %3 : tensor<2xf32>
  }
}
