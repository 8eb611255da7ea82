module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["rows"=4]> {stablehlo.mesh = {axes = [{name = "rows", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"rows"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"rows"}, {}]>] out_shardings=[<@mesh, [{"rows"}, {}]>] manual_axes={"rows"} (%arg1: tensor<2x16xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:3 = stablehlo.while(%iterArg = %arg1, %iterArg_5 = %c, %iterArg_6 = %arg1) : tensor<2x16xf32>, tensor<i32>, tensor<2x16xf32>
      cond {
        %c_7 = stablehlo.constant dense<3> : tensor<i32>
        %13 = stablehlo.compare LT, %iterArg_5, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %13 : tensor<i1>
      } do {
        %13 = func.call @closed_call(%iterArg, %iterArg_6) : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
        %c_7 = stablehlo.constant dense<1> : tensor<i32>
        %14 = stablehlo.add %iterArg_5, %c_7 : tensor<i32>
        stablehlo.return %iterArg, %14, %13 : tensor<2x16xf32>, tensor<i32>, tensor<2x16xf32>
      }
      %c_0 = stablehlo.constant dense<1> : tensor<ui32>
      %c_1 = stablehlo.constant dense<4> : tensor<ui32>
      %2 = stablehlo.partition_id : tensor<ui32>
      %3 = stablehlo.divide %2, %c_0 : tensor<ui32>
      %4 = stablehlo.remainder %3, %c_1 : tensor<ui32>
      %5 = stablehlo.convert %4 : (tensor<ui32>) -> tensor<i32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %5, %c_2 : tensor<i32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %7:3 = stablehlo.while(%iterArg = %6, %iterArg_5 = %c_3, %iterArg_6 = %1#2) : tensor<i32>, tensor<i32>, tensor<2x16xf32>
      cond {
        %13 = stablehlo.convert %iterArg_5 : tensor<i32>
        %14 = stablehlo.compare LT, %13, %iterArg, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %14 : tensor<i1>
      } do {
        %c_7 = stablehlo.constant dense<1> : tensor<i32>
        %13 = stablehlo.add %iterArg_5, %c_7 : tensor<i32>
        %cst_8 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
        %14 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
        %15 = stablehlo.multiply %iterArg_6, %14 : tensor<2x16xf32>
        %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %16 = stablehlo.reduce(%iterArg_6 init: %cst_9) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x16xf32>, tensor<f32>) -> tensor<f32>
        %cst_10 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
        %17 = stablehlo.divide %16, %cst_10 : tensor<f32>
        %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
        %19 = stablehlo.add %15, %18 : tensor<2x16xf32>
        stablehlo.return %iterArg, %13, %19 : tensor<i32>, tensor<i32>, tensor<2x16xf32>
      }
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %8 = stablehlo.reduce(%7#2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x16xf32>, tensor<f32>) -> tensor<f32>
      %cst_4 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %9 = stablehlo.divide %8, %cst_4 : tensor<f32>
      %10 = "stablehlo.all_reduce"(%9) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %13 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %13 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<2x16xf32>
      %12 = stablehlo.add %7#2, %11 : tensor<2x16xf32>
      sdy.return %12 : tensor<2x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<2x16xf32>, %arg1: tensor<2x16xf32>) -> tensor<2x16xf32> {
    %0 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %1 = stablehlo.add %0, %arg0 : tensor<2x16xf32>
    return %1 : tensor<2x16xf32>
  }
}
