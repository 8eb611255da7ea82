// jax.jit(lambda x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg0) : tensor<3xf32>, tensor<i32>, tensor<3xf32>
    cond {
      %c_2 = stablehlo.constant dense<5> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_0, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      %2 = stablehlo.multiply %iterArg_1, %iterArg : tensor<3xf32>
      stablehlo.return %iterArg, %1, %2 : tensor<3xf32>, tensor<i32>, tensor<3xf32>
    }
    return %0#1, %0#2 : tensor<i32>, tensor<3xf32>
  }
}
