// jax.jit(lambda x, y: jax.ffi.ffi_call('my_add', jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y, n=np.int32(3), mode='fast', eps=np.float32(1e-5), scale=2.5, flag=True, dims=np.array([1, 2], np.int64), nested={'a': np.uint8(7)})).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @my_add(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {dims = dense<[1, 2]> : tensor<2xi64>, eps = 9.99999974E-6 : f32, flag = true, mode = "fast", n = 3 : i32, nested = {a = 7 : ui8}, scale = 2.500000e+00 : f64}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
