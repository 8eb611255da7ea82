module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["rows"=4]> {stablehlo.mesh = {axes = [{name = "rows", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"rows"}, {}]>] out_shardings=[<@mesh, [{"rows"}, {}]>] manual_axes={"rows"} (%arg1: tensor<2x16xf32>) {
      %1 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x16xf32>) -> tensor<2x64xf32>
      %2 = "stablehlo.reduce_scatter"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %20 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %20 : tensor<f32>
      }) : (tensor<2x64xf32>) -> tensor<2x16xf32>
      %3 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %4 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %5 = stablehlo.slice %arg1 [0:1, 0:16] : (tensor<2x16xf32>) -> tensor<1x16xf32>
      %6 = stablehlo.reshape %5 : (tensor<1x16xf32>) -> tensor<16xf32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %8 = "stablehlo.all_gather"(%7) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1x16xf32>) -> tensor<4x16xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
      %10 = stablehlo.multiply %3, %9 : tensor<2x16xf32>
      %11 = stablehlo.add %2, %10 : tensor<2x16xf32>
      %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
      %13 = stablehlo.multiply %4, %12 : tensor<2x16xf32>
      %14 = stablehlo.add %11, %13 : tensor<2x16xf32>
      %15 = stablehlo.slice %8 [1:4:2, 0:16] : (tensor<4x16xf32>) -> tensor<2x16xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %16 = stablehlo.reduce(%15 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<2x16xf32>, tensor<f32>) -> tensor<16xf32>
      %17 = stablehlo.broadcast_in_dim %16, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<2x16xf32>
      %19 = stablehlo.add %14, %18 : tensor<2x16xf32>
      sdy.return %19 : tensor<2x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
