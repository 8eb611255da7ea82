module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]> {stablehlo.mesh = {axes = [{name = "a", size = 2 : i64}, {name = "b", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<4x16xf32>) {
      %1 = stablehlo.sine %arg1 : tensor<4x16xf32>
      %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<4x16xf32>
      %3 = sdy.manual_computation(%2) in_shardings=[<@mesh, [{}, {"b"}]>] out_shardings=[<@mesh, [{}, {"b"}]>] manual_axes={"b"} (%arg2: tensor<4x8xf32>) {
        %15 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
        ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
          %25 = stablehlo.add %arg3, %arg4 : tensor<f32>
          stablehlo.return %25 : tensor<f32>
        }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
        %c = stablehlo.constant dense<1> : tensor<ui32>
        %c_0 = stablehlo.constant dense<2> : tensor<ui32>
        %16 = stablehlo.partition_id : tensor<ui32>
        %17 = stablehlo.divide %16, %c : tensor<ui32>
        %18 = stablehlo.remainder %17, %c_0 : tensor<ui32>
        %19 = stablehlo.convert %18 : (tensor<ui32>) -> tensor<i32>
        %20 = stablehlo.convert %19 : (tensor<i32>) -> tensor<f32>
        %cst = stablehlo.constant dense<1.000000e+02> : tensor<f32>
        %21 = stablehlo.multiply %20, %cst : tensor<f32>
        %22 = stablehlo.convert %21 : tensor<f32>
        %23 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
        %24 = stablehlo.add %15, %23 : tensor<4x8xf32>
        sdy.return %24 : tensor<4x8xf32>
      } : (tensor<4x16xf32>) -> tensor<4x16xf32>
      %4 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %15 = stablehlo.add %arg2, %arg3 : tensor<f32>
        %16 = sdy.sharding_constraint %15 <@mesh, []> : tensor<f32>
        stablehlo.return %16 : tensor<f32>
      }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
      %5 = sdy.sharding_constraint %4 <@mesh, [{}, {"b"}]> : tensor<4x16xf32>
      %6 = stablehlo.add %3, %5 : tensor<4x16xf32>
      %7 = sdy.sharding_constraint %6 <@mesh, [{}, {"b"}]> : tensor<4x16xf32>
      %8 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] manual_axes={"b"} () {
        %c = stablehlo.constant dense<2> : tensor<ui32>
        %c_0 = stablehlo.constant dense<2> : tensor<ui32>
        %15 = stablehlo.partition_id : tensor<ui32>
        %16 = stablehlo.divide %15, %c : tensor<ui32>
        %17 = stablehlo.remainder %16, %c_0 : tensor<ui32>
        %18 = stablehlo.convert %17 : (tensor<ui32>) -> tensor<i32>
        sdy.return %18 : tensor<i32>
      } : () -> tensor<i32>
      %9 = stablehlo.convert %8 : (tensor<i32>) -> tensor<f32>
      %10 = sdy.sharding_constraint %9 <@mesh, []> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
      %12 = sdy.sharding_constraint %11 <@mesh, [{}, {"b"}]> : tensor<4x16xf32>
      %13 = stablehlo.add %7, %12 : tensor<4x16xf32>
      %14 = sdy.sharding_constraint %13 <@mesh, [{}, {"b"}]> : tensor<4x16xf32>
      sdy.return %14 : tensor<4x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
