module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf32>, %arg1: tensor<6xcomplex<f32>>) -> (tensor<12xf32> {jax.result_info = "result[0]"}, tensor<12xf32> {jax.result_info = "result[1]"}, tensor<12xf32> {jax.result_info = "result[2]"}, tensor<12xf32> {jax.result_info = "result[3]"}, tensor<12xf32> {jax.result_info = "result[4]"}, tensor<12xf32> {jax.result_info = "result[5]"}, tensor<12xf32> {jax.result_info = "result[6]"}, tensor<12xf32> {jax.result_info = "result[7]"}, tensor<12xf32> {jax.result_info = "result[8]"}, tensor<12xf32> {jax.result_info = "result[9]"}, tensor<12xf32> {jax.result_info = "result[10]"}, tensor<12xf32> {jax.result_info = "result[11]"}, tensor<12xf32> {jax.result_info = "result[12]"}, tensor<12xi1> {jax.result_info = "result[13]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[14]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[15]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[16]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[17]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[18]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[19]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[20]"}, tensor<6xcomplex<f32>> {jax.result_info = "result[21]"}) {
    %0 = chlo.asin %arg0 : tensor<12xf32> -> tensor<12xf32>
    %1 = chlo.acos %arg0 : tensor<12xf32> -> tensor<12xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %3 = stablehlo.multiply %arg0, %2 : tensor<12xf32>
    %4 = chlo.atan %3 : tensor<12xf32> -> tensor<12xf32>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<12xf32>
    %7 = chlo.asinh %6 : tensor<12xf32> -> tensor<12xf32>
    %8 = stablehlo.abs %arg0 : tensor<12xf32>
    %cst_1 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<12xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %12 = stablehlo.add %10, %11 : tensor<12xf32>
    %13 = call @arccosh(%12) : (tensor<12xf32>) -> tensor<12xf32>
    %14 = chlo.atanh %arg0 : tensor<12xf32> -> tensor<12xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %16 = stablehlo.multiply %arg0, %15 : tensor<12xf32>
    %17 = chlo.sinh %16 : tensor<12xf32> -> tensor<12xf32>
    %cst_4 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %19 = stablehlo.multiply %arg0, %18 : tensor<12xf32>
    %20 = chlo.cosh %19 : tensor<12xf32> -> tensor<12xf32>
    %cst_5 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %22 = stablehlo.multiply %arg0, %21 : tensor<12xf32>
    %23 = chlo.erfc %22 : tensor<12xf32> -> tensor<12xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %25 = stablehlo.multiply %arg0, %24 : tensor<12xf32>
    %26 = chlo.bessel_i1e %25 : tensor<12xf32> -> tensor<12xf32>
    %27 = stablehlo.abs %arg0 : tensor<12xf32>
    %cst_7 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %29 = stablehlo.multiply %27, %28 : tensor<12xf32>
    %cst_8 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %31 = stablehlo.add %29, %30 : tensor<12xf32>
    %32 = stablehlo.abs %arg0 : tensor<12xf32>
    %cst_9 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %34 = stablehlo.add %32, %33 : tensor<12xf32>
    %35 = chlo.zeta %31, %34 : tensor<12xf32>, tensor<12xf32> -> tensor<12xf32>
    %36 = stablehlo.abs %arg0 : tensor<12xf32>
    %cst_10 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %38 = stablehlo.add %36, %37 : tensor<12xf32>
    %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %40 = chlo.polygamma %39, %38 : tensor<12xf32>, tensor<12xf32> -> tensor<12xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %42 = chlo.next_after %arg0, %41 : tensor<12xf32>, tensor<12xf32> -> tensor<12xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %44 = stablehlo.compare GT, %arg0, %43, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %45 = stablehlo.convert %44 : (tensor<12xi1>) -> tensor<12xf32>
    %46 = stablehlo.divide %arg0, %45 : tensor<12xf32>
    %47 = call @isinf(%46) : (tensor<12xf32>) -> tensor<12xi1>
    %48 = chlo.asin %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %49 = chlo.acos %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %50 = chlo.atan %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %51 = chlo.asinh %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %52 = call @arccosh_0(%arg1) : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
    %53 = chlo.atanh %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %54 = chlo.sinh %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %55 = chlo.cosh %arg1 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    return %0, %1, %4, %7, %13, %14, %17, %20, %23, %26, %35, %40, %42, %47, %48, %49, %50, %51, %52, %53, %54, %55 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xi1>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>
  }
  func.func private @arccosh(%arg0: tensor<12xf32>) -> tensor<12xf32> {
    %0 = chlo.acosh %arg0 : tensor<12xf32> -> tensor<12xf32>
    return %0 : tensor<12xf32>
  }
  func.func private @isinf(%arg0: tensor<12xf32>) -> tensor<12xi1> {
    %0 = stablehlo.abs %arg0 : tensor<12xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %2 = stablehlo.compare EQ, %0, %1, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    return %2 : tensor<12xi1>
  }
  func.func private @arccosh_0(%arg0: tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>> {
    %0 = chlo.acosh %arg0 : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.compare LT, %1, %2, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %4 = stablehlo.negate %0 : tensor<6xcomplex<f32>>
    %5 = call @_where(%3, %4, %0) : (tensor<6xi1>, tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
    return %5 : tensor<6xcomplex<f32>>
  }
  func.func private @_where(%arg0: tensor<6xi1>, %arg1: tensor<6xcomplex<f32>>, %arg2: tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6xi1>, tensor<6xcomplex<f32>>
    return %0 : tensor<6xcomplex<f32>>
  }
}
