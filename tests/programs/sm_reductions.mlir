module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["rows"=4]> {stablehlo.mesh = {axes = [{name = "rows", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}, %arg1: tensor<8x16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) -> (tensor<2x16xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x16xi32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<2x16xi32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0:3 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"rows"}, {}]>, <@mesh, [{"rows"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{}, {}]>] manual_axes={"rows"} (%arg2: tensor<2x16xf32>, %arg3: tensor<2x16xi32>) {
      %1 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %4 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %2 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
        %4 = stablehlo.minimum %arg4, %arg5 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<2x16xi32>) -> tensor<2x16xi32>
      %3 = "stablehlo.all_reduce"(%arg3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
        %4 = stablehlo.add %arg4, %arg5 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<2x16xi32>) -> tensor<2x16xi32>
      sdy.return %1, %2, %3 : tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xi32>
    } : (tensor<8x16xf32>, tensor<8x16xi32>) -> (tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xi32>)
    return %0#0, %0#1, %0#2 : tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xi32>
  }
}
