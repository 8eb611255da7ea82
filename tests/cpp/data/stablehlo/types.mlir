// jax.jit(lambda a, b, c, d, e, f: (a, b, c, d, e, f)).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf16>, %arg1: tensor<2xf8E4M3FN>, %arg2: tensor<2xui8>, %arg3: tensor<2xi16>, %arg4: tensor<2xi1>, %arg5: tensor<2xf8E5M2>) -> (tensor<2xf16> {jax.result_info = "result[0]"}, tensor<2xf8E4M3FN> {jax.result_info = "result[1]"}, tensor<2xui8> {jax.result_info = "result[2]"}, tensor<2xi16> {jax.result_info = "result[3]"}, tensor<2xi1> {jax.result_info = "result[4]"}, tensor<2xf8E5M2> {jax.result_info = "result[5]"}) {
    return %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 : tensor<2xf16>, tensor<2xf8E4M3FN>, tensor<2xui8>, tensor<2xi16>, tensor<2xi1>, tensor<2xf8E5M2>
  }
}
