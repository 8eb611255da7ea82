module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x2xf32>, %arg1: tensor<i32>, %arg2: tensor<4xi32>, %arg3: tensor<4x2xf32>) -> (tensor<6x2xf32> {jax.result_info = "result[0]"}, tensor<6x2xf32> {jax.result_info = "result[1]"}, tensor<6x2xf32> {jax.result_info = "result[2]"}, tensor<6x2xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %5 = "stablehlo.scatter"(%arg0, %3, %4) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      stablehlo.return %arg5 : tensor<f32>
    }) : (tensor<6x2xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<6x2xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %7 = stablehlo.compare LT, %arg2, %6, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.add %arg2, %8 : tensor<4xi32>
    %10 = stablehlo.select %7, %9, %arg2 : tensor<4xi1>, tensor<4xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %12 = "stablehlo.scatter"(%arg0, %11, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %24 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<6x2xf32>, tensor<4x1xi32>, tensor<4x2xf32>) -> tensor<6x2xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %14 = stablehlo.compare LT, %arg2, %13, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_4 = stablehlo.constant dense<6> : tensor<i32>
    %15 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %16 = stablehlo.add %arg2, %15 : tensor<4xi32>
    %17 = stablehlo.select %14, %16, %arg2 : tensor<4xi1>, tensor<4xi32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %19 = "stablehlo.scatter"(%arg0, %18, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %24 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<6x2xf32>, tensor<4x1xi32>, tensor<4x2xf32>) -> tensor<6x2xf32>
    %c_5 = stablehlo.constant dense<2> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %c_6 = stablehlo.constant dense<1> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %22 = stablehlo.concatenate %20, %21, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %cst_7 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %23 = "stablehlo.scatter"(%arg0, %22, %cst_7) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>, unique_indices = true}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %24 = stablehlo.multiply %arg4, %arg5 : tensor<f32>
      stablehlo.return %24 : tensor<f32>
    }) : (tensor<6x2xf32>, tensor<2xi32>, tensor<f32>) -> tensor<6x2xf32>
    return %5, %12, %19, %23 : tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
  }
}
