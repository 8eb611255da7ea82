module @jit attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}, %arg1: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<4x16xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}, tensor<8x16xf32> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}, tensor<8x16xf32> {jax.result_info = "result[2]", mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,2]<=[4]}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x16xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x16xf32>) -> tensor<4x16xf32>
    %4:3 = call @shmap_body(%1, %3) : (tensor<4x8xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>, tensor<4x8xf32>)
    %5 = stablehlo.custom_call @Sharding(%4#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<4x8xf32>) -> tensor<4x16xf32>
    %7 = stablehlo.custom_call @Sharding(%4#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<4x16xf32>) -> tensor<8x16xf32>
    %9 = stablehlo.custom_call @Sharding(%4#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {backend_config = "", mhlo.sharding = "{devices=[2,2]<=[4]}"} : (tensor<4x8xf32>) -> tensor<8x16xf32>
    return %6, %8, %10 : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x8xf32>, %arg1: tensor<4x16xf32>) -> (tensor<4x8xf32> {jax.result_info = "[None, ('b',)]"}, tensor<4x16xf32> {jax.result_info = "[('b',), None]"}, tensor<4x8xf32> {jax.result_info = "[('a',), ('b',)]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %19 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %19 : tensor<f32>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<2> : tensor<ui32>
    %2 = stablehlo.partition_id : tensor<ui32>
    %3 = stablehlo.divide %2, %c : tensor<ui32>
    %4 = stablehlo.remainder %3, %c_0 : tensor<ui32>
    %5 = stablehlo.convert %4 : (tensor<ui32>) -> tensor<i32>
    %6 = stablehlo.convert %5 : (tensor<i32>) -> tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %8 = stablehlo.multiply %1, %7 : tensor<4x16xf32>
    %9 = stablehlo.custom_call @rms_norm(%arg0) {backend_config = "", mhlo.backend_config = {eps = 9.99999974E-6 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %10 = "stablehlo.all_gather"(%9) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<4x8xf32>) -> tensor<4x16xf32>
    %11 = stablehlo.slice %10 [0:4, 0:8] : (tensor<4x16xf32>) -> tensor<4x8xf32>
    %c_1 = stablehlo.constant dense<2> : tensor<ui32>
    %c_2 = stablehlo.constant dense<2> : tensor<ui32>
    %12 = stablehlo.partition_id : tensor<ui32>
    %13 = stablehlo.divide %12, %c_1 : tensor<ui32>
    %14 = stablehlo.remainder %13, %c_2 : tensor<ui32>
    %15 = stablehlo.convert %14 : (tensor<ui32>) -> tensor<i32>
    %16 = stablehlo.convert %15 : (tensor<i32>) -> tensor<f32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %18 = stablehlo.add %11, %17 : tensor<4x8xf32>
    return %0, %8, %18 : tensor<4x8xf32>, tensor<4x16xf32>, tensor<4x8xf32>
  }
}
