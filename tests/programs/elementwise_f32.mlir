module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<4x8xf32>
    %1 = stablehlo.abs %arg1 : tensor<4x8xf32>
    %2 = stablehlo.negate %1 : tensor<4x8xf32>
    %3 = stablehlo.exponential %2 : tensor<4x8xf32>
    %4 = stablehlo.multiply %0, %3 : tensor<4x8xf32>
    %5 = stablehlo.cosine %arg1 : tensor<4x8xf32>
    %6 = stablehlo.add %4, %5 : tensor<4x8xf32>
    %7 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xf32>
    %8 = stablehlo.tanh %7 : tensor<4x8xf32>
    %9 = stablehlo.subtract %6, %8 : tensor<4x8xf32>
    %10 = stablehlo.abs %arg0 : tensor<4x8xf32>
    %11 = stablehlo.sqrt %10 : tensor<4x8xf32>
    %12 = stablehlo.abs %arg1 : tensor<4x8xf32>
    %13 = stablehlo.log_plus_one %12 : tensor<4x8xf32>
    %14 = stablehlo.add %11, %13 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %16 = stablehlo.multiply %arg0, %15 : tensor<4x8xf32>
    %17 = stablehlo.exponential_minus_one %16 : tensor<4x8xf32>
    %18 = stablehlo.subtract %14, %17 : tensor<4x8xf32>
    %19 = stablehlo.negate %arg0 : tensor<4x8xf32>
    %20 = stablehlo.exponential %19 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %22 = stablehlo.add %21, %20 : tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %24 = stablehlo.divide %23, %22 : tensor<4x8xf32>
    %25 = stablehlo.atan2 %arg0, %arg1 : tensor<4x8xf32>
    %26 = stablehlo.multiply %24, %25 : tensor<4x8xf32>
    %27 = stablehlo.multiply %arg1, %arg1 : tensor<4x8xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %29 = stablehlo.add %28, %27 : tensor<4x8xf32>
    %30 = stablehlo.rsqrt %29 : tensor<4x8xf32>
    %31 = stablehlo.add %26, %30 : tensor<4x8xf32>
    %cst_3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %33 = stablehlo.multiply %arg0, %32 : tensor<4x8xf32>
    %34 = stablehlo.floor %33 : tensor<4x8xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %36 = stablehlo.multiply %arg1, %35 : tensor<4x8xf32>
    %37 = stablehlo.ceil %36 : tensor<4x8xf32>
    %38 = stablehlo.add %34, %37 : tensor<4x8xf32>
    %cst_5 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %40 = stablehlo.multiply %arg0, %39 : tensor<4x8xf32>
    %41 = call @round(%40) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %42 = stablehlo.add %38, %41 : tensor<4x8xf32>
    %43 = stablehlo.sign %arg1 : tensor<4x8xf32>
    %44 = stablehlo.add %42, %43 : tensor<4x8xf32>
    %45 = stablehlo.maximum %arg0, %arg1 : tensor<4x8xf32>
    %46 = stablehlo.minimum %arg0, %arg1 : tensor<4x8xf32>
    %47 = stablehlo.subtract %45, %46 : tensor<4x8xf32>
    %48 = stablehlo.abs %arg0 : tensor<4x8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %50 = stablehlo.add %48, %49 : tensor<4x8xf32>
    %51 = stablehlo.power %50, %arg1 : tensor<4x8xf32>
    %52 = stablehlo.add %47, %51 : tensor<4x8xf32>
    %53 = stablehlo.cbrt %arg0 : tensor<4x8xf32>
    %cst_7 = stablehlo.constant dense<3.000000e-01> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %55 = stablehlo.multiply %arg0, %54 : tensor<4x8xf32>
    %56 = stablehlo.tan %55 : tensor<4x8xf32>
    %57 = stablehlo.add %53, %56 : tensor<4x8xf32>
    %58 = stablehlo.abs %arg1 : tensor<4x8xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %60 = stablehlo.add %58, %59 : tensor<4x8xf32>
    %61 = stablehlo.log %60 : tensor<4x8xf32>
    %62 = stablehlo.multiply %arg0, %arg0 : tensor<4x8xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %64 = stablehlo.add %62, %63 : tensor<4x8xf32>
    %65 = stablehlo.divide %61, %64 : tensor<4x8xf32>
    %66 = stablehlo.add %57, %65 : tensor<4x8xf32>
    %67 = stablehlo.add %9, %18 : tensor<4x8xf32>
    %68 = stablehlo.add %67, %31 : tensor<4x8xf32>
    %69 = stablehlo.add %68, %44 : tensor<4x8xf32>
    %70 = stablehlo.add %69, %52 : tensor<4x8xf32>
    %71 = stablehlo.add %70, %66 : tensor<4x8xf32>
    %cst_10 = stablehlo.constant dense<7.500000e-01> : tensor<f32>
    %72 = call @remainder(%arg0, %cst_10) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %73 = stablehlo.add %71, %72 : tensor<4x8xf32>
    return %73 : tensor<4x8xf32>
  }
  func.func private @round(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
  func.func private @remainder(%arg0: tensor<4x8xf32>, %arg1: tensor<f32>) -> tensor<4x8xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<4x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<4x8xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
    %10 = stablehlo.and %9, %4 : tensor<4x8xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %12 = stablehlo.add %2, %11 : tensor<4x8xf32>
    %13 = stablehlo.select %10, %12, %2 : tensor<4x8xi1>, tensor<4x8xf32>
    return %13 : tensor<4x8xf32>
  }
}
