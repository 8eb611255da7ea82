// jax.jit(lambda x: jax.ffi.ffi_call('old_target', jax.ShapeDtypeStruct(x.shape, x.dtype), custom_call_api_version=2, legacy_backend_config='opaque"str')(x)).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @old_target(%arg0) {api_version = 2 : i32, backend_config = "opaque\22str", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
