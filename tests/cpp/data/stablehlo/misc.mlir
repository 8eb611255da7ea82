// jax.jit(lambda x: (jnp.pad(x, ((1, 2), (0, 1))), jnp.concatenate([x, x], axis=0), x.T, jnp.flip(x, 0), jnp.clip(x, 0, 1), x.astype(jnp.int32), lax.bitcast_convert_type(x, jnp.int32), jnp.where(x > 0, x, 0.0))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<5x4xf32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}, tensor<3x2xf32> {jax.result_info = "result[2]"}, tensor<2x3xf32> {jax.result_info = "result[3]"}, tensor<2x3xf32> {jax.result_info = "result[4]"}, tensor<2x3xi32> {jax.result_info = "result[5]"}, tensor<2x3xi32> {jax.result_info = "result[6]"}, tensor<2x3xf32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = call @_pad(%arg0, %c) : (tensor<2x3xf32>, tensor<i32>) -> tensor<5x4xf32>
    %1 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %3 = call @_flip(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %4 = call @clip(%arg0, %c_0, %c_1) : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    %5 = stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %6 = stablehlo.bitcast_convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %8 = stablehlo.compare GT, %arg0, %7, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = call @_where(%8, %arg0, %cst_2) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %9 : tensor<5x4xf32>, tensor<4x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>
  }
  func.func private @_pad(%arg0: tensor<2x3xf32>, %arg1: tensor<i32>) -> tensor<5x4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0], high = [2, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x4xf32>
    return %1 : tensor<5x4xf32>
  }
  func.func private @_flip(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func private @clip(%arg0: tensor<2x3xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<2x3xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<2x3xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<2x3xf32>
    return %5 : tensor<2x3xf32>
  }
  func.func private @_where(%arg0: tensor<2x3xi1>, %arg1: tensor<2x3xf32>, %arg2: tensor<f32>) -> tensor<2x3xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<2x3xi1>, tensor<2x3xf32>
    return %2 : tensor<2x3xf32>
  }
}
