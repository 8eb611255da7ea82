module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["rows"=4]> {stablehlo.mesh = {axes = [{name = "rows", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}, %arg1: tensor<2x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"rows"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"rows"}, {}]>] manual_axes={"rows"} (%arg2: tensor<2x16xf32>, %arg3: tensor<2x16xf32>) {
      %1 = func.call @"<lambda>"(%arg2) : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
      %3 = stablehlo.multiply %arg2, %2 : tensor<2x16xf32>
      %4 = func.call @"<lambda>"(%3) : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %5 = stablehlo.add %1, %4 : tensor<2x16xf32>
      %6 = stablehlo.add %5, %arg3 : tensor<2x16xf32>
      sdy.return %6 : tensor<2x16xf32>
    } : (tensor<8x16xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<2x16xf32>) -> tensor<2x16xf32> {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
    %2 = stablehlo.divide %0, %1 : tensor<2x16xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<2x16xf32>
    return %3 : tensor<2x16xf32>
  }
}
