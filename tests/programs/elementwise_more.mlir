module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<3x5xi32>) -> (tensor<3x5xf32> {jax.result_info = "result[0]"}, tensor<3x5xf32> {jax.result_info = "result[1]"}, tensor<3x5xf32> {jax.result_info = "result[2]"}, tensor<3x5xi32> {jax.result_info = "result[3]"}, tensor<3x5xf32> {jax.result_info = "result[4]"}, tensor<3x5xi1> {jax.result_info = "result[5]"}) {
    %cst = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x5xf32>
    %2 = stablehlo.round_nearest_afz %1 : tensor<3x5xf32>
    %cst_0 = stablehlo.constant dense<0.693147182> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %4 = stablehlo.multiply %3, %arg0 : tensor<3x5xf32>
    %5 = stablehlo.exponential %4 : tensor<3x5xf32>
    %6 = stablehlo.multiply %arg0, %arg0 : tensor<3x5xf32>
    %7 = stablehlo.multiply %6, %arg0 : tensor<3x5xf32>
    %8 = stablehlo.add %5, %7 : tensor<3x5xf32>
    %9 = stablehlo.multiply %arg0, %arg0 : tensor<3x5xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %11 = stablehlo.divide %10, %9 : tensor<3x5xf32>
    %12 = stablehlo.subtract %8, %11 : tensor<3x5xf32>
    %13 = stablehlo.negate %arg0 : tensor<3x5xf32>
    %14 = stablehlo.exponential %13 : tensor<3x5xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %16 = stablehlo.add %15, %14 : tensor<3x5xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %18 = stablehlo.divide %17, %16 : tensor<3x5xf32>
    %19 = stablehlo.negate %arg0 : tensor<3x5xf32>
    %20 = stablehlo.negate %19 : tensor<3x5xf32>
    %21 = stablehlo.exponential %20 : tensor<3x5xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %23 = stablehlo.add %22, %21 : tensor<3x5xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %25 = stablehlo.divide %24, %23 : tensor<3x5xf32>
    %26 = stablehlo.add %18, %25 : tensor<3x5xf32>
    %27 = stablehlo.popcnt %arg1 : tensor<3x5xi32>
    %28 = stablehlo.count_leading_zeros %arg1 : tensor<3x5xi32>
    %29 = stablehlo.add %27, %28 : tensor<3x5xi32>
    %c = stablehlo.constant dense<7> : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %31 = stablehlo.compare GE, %arg1, %30, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %c_6 = stablehlo.constant dense<-5> : tensor<i32>
    %32 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %33 = stablehlo.compare LT, %arg1, %32, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %34 = stablehlo.and %31, %33 : tensor<3x5xi1>
    %35 = stablehlo.convert %34 : (tensor<3x5xi1>) -> tensor<3x5xi32>
    %36 = stablehlo.add %29, %35 : tensor<3x5xi32>
    %37 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x5xf32>) -> tensor<3x1xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %39 = stablehlo.compare GE, %37, %38, FLOAT : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xi1>
    %cst_8 = stablehlo.constant dense<-7.500000e+00> : tensor<f32>
    %40 = call @_where(%39, %arg0, %cst_8) : (tensor<3x1xi1>, tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %41 = stablehlo.divide %arg0, %arg0 : tensor<3x5xf32>
    %42 = stablehlo.compare NE, %41, %41, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    return %2, %12, %26, %36, %40, %42 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi32>, tensor<3x5xf32>, tensor<3x5xi1>
  }
  func.func private @_where(%arg0: tensor<3x1xi1>, %arg1: tensor<3x5xf32>, %arg2: tensor<f32>) -> tensor<3x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x5xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<3x5xi1>, tensor<3x5xf32>
    return %2 : tensor<3x5xf32>
  }
}
