module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}, %arg1: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {"a"}]>}) -> (tensor<4x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"b"}]>}, tensor<8x8xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, tensor<8x16xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {"a"}]>}) {
    %0:3 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"a"}, {"b"}]>, <@mesh, [{"b"}, {"a"}]>] out_shardings=[<@mesh, [{}, {"b"}]>, <@mesh, [{"a"}, {}]>, <@mesh, [{"b"}, {"a"}]>] manual_axes={"a", "b"} (%arg2: tensor<4x8xf32>, %arg3: tensor<4x8xf32>) {
      %1 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %19 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %19 : tensor<f32>
      }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %2 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %19 = stablehlo.add %arg4, %arg5 : tensor<f32>
        stablehlo.return %19 : tensor<f32>
      }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c = stablehlo.constant dense<2> : tensor<ui32>
      %c_0 = stablehlo.constant dense<2> : tensor<ui32>
      %3 = stablehlo.partition_id : tensor<ui32>
      %4 = stablehlo.divide %3, %c : tensor<ui32>
      %5 = stablehlo.remainder %4, %c_0 : tensor<ui32>
      %6 = stablehlo.convert %5 : (tensor<ui32>) -> tensor<i32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %c_1, %6 : tensor<i32>
      %8 = stablehlo.convert %7 : (tensor<i32>) -> tensor<f32>
      %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %10 = stablehlo.multiply %2, %9 : tensor<4x8xf32>
      %11 = "stablehlo.collective_permute"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<ui32>
      %c_3 = stablehlo.constant dense<2> : tensor<ui32>
      %12 = stablehlo.partition_id : tensor<ui32>
      %13 = stablehlo.divide %12, %c_2 : tensor<ui32>
      %14 = stablehlo.remainder %13, %c_3 : tensor<ui32>
      %15 = stablehlo.convert %14 : (tensor<ui32>) -> tensor<i32>
      %16 = stablehlo.convert %15 : (tensor<i32>) -> tensor<f32>
      %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
      %18 = stablehlo.add %11, %17 : tensor<4x8xf32>
      sdy.return %1, %10, %18 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
    } : (tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x16xf32>)
    return %0#0, %0#1, %0#2 : tensor<4x16xf32>, tensor<8x8xf32>, tensor<8x16xf32>
  }
}
