// jax.jit(lambda x, i: (x.at[i].set(3.0), x.at[i].add(1.0))).lower(...).as_text(), JAX 0.10.2
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<i32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %3 = stablehlo.convert %2 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %5 = "stablehlo.scatter"(%arg0, %4, %cst) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      stablehlo.return %arg3 : tensor<f32>
    }) : (tensor<6xf32>, tensor<1xi32>, tensor<f32>) -> tensor<6xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.compare LT, %arg1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %7 = stablehlo.add %arg1, %c_2 : tensor<i32>
    %8 = stablehlo.select %6, %7, %arg1 : tensor<i1>, tensor<i32>
    %9 = stablehlo.convert %8 : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = "stablehlo.scatter"(%arg0, %10, %cst_3) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %12 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %12 : tensor<f32>
    }) : (tensor<6xf32>, tensor<1xi32>, tensor<f32>) -> tensor<6xf32>
    return %5, %11 : tensor<6xf32>, tensor<6xf32>
  }
}
