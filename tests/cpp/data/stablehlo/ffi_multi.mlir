// jax.jit(lambda x: (lambda r: (r[0] * 2, r[1]))(jax.ffi.ffi_call('my_split', (jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32)), input_output_aliases={0: 0}, has_side_effect=True)(x, axis=np.int64(0)))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}) {
    %0:2 = stablehlo.custom_call @my_split(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {axis = 0 : i64}, operand_layouts = [dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %0#0, %1 : tensor<4xf32>
    return %2, %0#1 : tensor<4xf32>, tensor<i32>
  }
}
