module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6x3xf32>, %arg1: tensor<3x2xi32>, %arg2: tensor<2x3xi32>, %arg3: tensor<3x3xf32>) -> (tensor<3x3xf32> {jax.result_info = "result[0]"}, tensor<5x2x3x3xf32> {jax.result_info = "result[1]"}, tensor<5x6x1xf32> {jax.result_info = "result[2]"}, tensor<5x6x3xf32> {jax.result_info = "result[3]"}, tensor<5x6x3xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.slice %arg1 [0:3, 0:1] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<3x1xi32>) -> tensor<3xi32>
    %2 = stablehlo.slice %arg1 [0:3, 1:2] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %3 = stablehlo.reshape %2 : (tensor<3x1xi32>) -> tensor<3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.compare LT, %1, %4, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %7 = stablehlo.add %1, %6 : tensor<3xi32>
    %8 = stablehlo.select %5, %7, %1 : tensor<3xi1>, tensor<3xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %10 = stablehlo.compare LT, %3, %9, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_2 = stablehlo.constant dense<6> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %12 = stablehlo.add %3, %11 : tensor<3xi32>
    %13 = stablehlo.select %10, %12, %3 : tensor<3xi1>, tensor<3xi32>
    %14 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %16 = stablehlo.concatenate %14, %15, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
    %17 = "stablehlo.gather"(%arg0, %16) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 3>}> : (tensor<5x6x3xf32>, tensor<3x2xi32>) -> tensor<3x3xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %18 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %19 = stablehlo.compare LT, %arg2, %18, SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
    %c_4 = stablehlo.constant dense<6> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %21 = stablehlo.add %arg2, %20 : tensor<2x3xi32>
    %22 = stablehlo.select %19, %21, %arg2 : tensor<2x3xi1>, tensor<2x3xi32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3x1xi32>
    %24 = "stablehlo.gather"(%arg0, %23) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 3], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 5, 1, 3>}> : (tensor<5x6x3xf32>, tensor<2x3x1xi32>) -> tensor<5x2x3x3xf32>
    %25 = stablehlo.reshape %arg2 : (tensor<2x3xi32>) -> tensor<1x6x1xi32>
    %c_5 = stablehlo.constant dense<3> : tensor<i32>
    %26 = call @remainder(%25, %c_5) : (tensor<1x6x1xi32>, tensor<i32>) -> tensor<1x6x1xi32>
    %27 = call @take_along_axis(%arg0, %26) : (tensor<5x6x3xf32>, tensor<1x6x1xi32>) -> tensor<5x6x1xf32>
    %28 = stablehlo.slice %arg1 [0:3, 0:1] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %29 = stablehlo.reshape %28 : (tensor<3x1xi32>) -> tensor<3xi32>
    %30 = stablehlo.slice %arg1 [0:3, 1:2] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %31 = stablehlo.reshape %30 : (tensor<3x1xi32>) -> tensor<3xi32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %32 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %33 = stablehlo.compare LT, %29, %32, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_7 = stablehlo.constant dense<5> : tensor<i32>
    %34 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %35 = stablehlo.add %29, %34 : tensor<3xi32>
    %36 = stablehlo.select %33, %35, %29 : tensor<3xi1>, tensor<3xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %38 = stablehlo.compare LT, %31, %37, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_9 = stablehlo.constant dense<6> : tensor<i32>
    %39 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %40 = stablehlo.add %31, %39 : tensor<3xi32>
    %41 = stablehlo.select %38, %40, %31 : tensor<3xi1>, tensor<3xi32>
    %42 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %43 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %44 = stablehlo.concatenate %42, %43, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
    %45 = "stablehlo.scatter"(%arg0, %44, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      stablehlo.return %arg5 : tensor<f32>
    }) : (tensor<5x6x3xf32>, tensor<3x2xi32>, tensor<3x3xf32>) -> tensor<5x6x3xf32>
    %46 = stablehlo.slice %arg1 [0:3, 0:1] : (tensor<3x2xi32>) -> tensor<3x1xi32>
    %47 = stablehlo.reshape %46 : (tensor<3x1xi32>) -> tensor<3xi32>
    %48 = stablehlo.slice %arg2 [0:1, 0:3] : (tensor<2x3xi32>) -> tensor<1x3xi32>
    %49 = stablehlo.reshape %48 : (tensor<1x3xi32>) -> tensor<3xi32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %50 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %51 = stablehlo.compare LT, %47, %50, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_11 = stablehlo.constant dense<5> : tensor<i32>
    %52 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %53 = stablehlo.add %47, %52 : tensor<3xi32>
    %54 = stablehlo.select %51, %53, %47 : tensor<3xi1>, tensor<3xi32>
    %c_12 = stablehlo.constant dense<0> : tensor<i32>
    %55 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %56 = stablehlo.compare LT, %49, %55, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_13 = stablehlo.constant dense<3> : tensor<i32>
    %57 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %58 = stablehlo.add %49, %57 : tensor<3xi32>
    %59 = stablehlo.select %56, %58, %49 : tensor<3xi1>, tensor<3xi32>
    %60 = stablehlo.broadcast_in_dim %54, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %61 = stablehlo.broadcast_in_dim %59, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %62 = stablehlo.concatenate %60, %61, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x6xf32>
    %64 = "stablehlo.scatter"(%arg0, %62, %63) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 2], scatter_dims_to_operand_dims = [0, 2], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %65 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %65 : tensor<f32>
    }) : (tensor<5x6x3xf32>, tensor<3x2xi32>, tensor<3x6xf32>) -> tensor<5x6x3xf32>
    return %17, %24, %27, %45, %64 : tensor<3x3xf32>, tensor<5x2x3x3xf32>, tensor<5x6x1xf32>, tensor<5x6x3xf32>, tensor<5x6x3xf32>
  }
  func.func private @remainder(%arg0: tensor<1x6x1xi32>, %arg1: tensor<i32>) -> tensor<1x6x1xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<1x6x1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<1x6x1xi32>, tensor<1x6x1xi32>) -> tensor<1x6x1xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<1x6x1xi32>, tensor<1x6x1xi32>) -> tensor<1x6x1xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<1x6x1xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<1x6x1xi1>, tensor<1x6x1xi1>) -> tensor<1x6x1xi1>
    %12 = stablehlo.and %11, %6 : tensor<1x6x1xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %14 = stablehlo.add %4, %13 : tensor<1x6x1xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<1x6x1xi1>, tensor<1x6x1xi32>
    return %15 : tensor<1x6x1xi32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @take_along_axis(%arg0: tensor<5x6x3xf32>, %arg1: tensor<1x6x1xi32>) -> tensor<5x6x1xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<1x6x1xi32>, tensor<1x6x1xi32>) -> tensor<1x6x1xi1>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<1x6x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<1x6x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<1x6x1xi1>, tensor<1x6x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<1x6x1xi32>) -> tensor<6x1x1xi32>
    %c_1 = stablehlo.constant dense<2> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<6x1x1xi32>, tensor<6x1x1xi32>) -> tensor<6x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<6x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<6x1x1xi32>, tensor<6x1x1xi32>) -> tensor<6x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<6x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<6x1x1xi1>, tensor<i1>) -> tensor<6x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [2], operand_batching_dims = [1], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 5, 1, 1>}> : (tensor<5x6x3xf32>, tensor<6x1x1xi32>) -> tensor<5x6x1xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [1, 2] : (tensor<6x1xi1>) -> tensor<5x6x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x6x1xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<5x6x1xi1>, tensor<5x6x1xf32>
    return %16 : tensor<5x6x1xf32>
  }
}
