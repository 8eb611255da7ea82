module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64>, %arg1: tensor<3x4xi64>, %arg2: tensor<4xui64>) -> (tensor<3x4xf64> {jax.result_info = "result[0]"}, tensor<3x4xi64> {jax.result_info = "result[1]"}, tensor<4xui64> {jax.result_info = "result[2]"}, tensor<3x4xcomplex<f64>> {jax.result_info = "result[3]"}, tensor<3x4xf64> {jax.result_info = "result[4]"}, tensor<3x4xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.sine %arg0 : tensor<3x4xf64>
    %1 = stablehlo.exponential %arg0 : tensor<3x4xf64>
    %2 = stablehlo.multiply %0, %1 : tensor<3x4xf64>
    %3 = stablehlo.abs %arg0 : tensor<3x4xf64>
    %4 = stablehlo.sqrt %3 : tensor<3x4xf64>
    %5 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf64>) -> tensor<4x3xf64>
    %6 = stablehlo.dot_general %4, %5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf64>, tensor<4x3xf64>) -> tensor<3x3xf64>
    %7 = stablehlo.dot_general %6, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
    %8 = stablehlo.add %2, %7 : tensor<3x4xf64>
    %c = stablehlo.constant dense<3> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %10 = stablehlo.multiply %arg1, %9 : tensor<3x4xi64>
    %c_0 = stablehlo.constant dense<7> : tensor<i64>
    %11 = call @floor_divide(%arg1, %c_0) : (tensor<3x4xi64>, tensor<i64>) -> tensor<3x4xi64>
    %12 = stablehlo.add %10, %11 : tensor<3x4xi64>
    %c_1 = stablehlo.constant dense<5> : tensor<i64>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %14 = stablehlo.shift_right_arithmetic %arg1, %13 : tensor<3x4xi64>
    %15 = stablehlo.subtract %12, %14 : tensor<3x4xi64>
    %16 = call @argmax(%arg0) : (tensor<3x4xf64>) -> tensor<3xi64>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0] : (tensor<3xi64>) -> tensor<3x1xi64>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<3x1xi64>) -> tensor<3x4xi64>
    %19 = stablehlo.add %15, %18 : tensor<3x4xi64>
    %c_2 = stablehlo.constant dense<3> : tensor<ui64>
    %20 = call @floor_divide_0(%arg2, %c_2) : (tensor<4xui64>, tensor<ui64>) -> tensor<4xui64>
    %c_3 = stablehlo.constant dense<60> : tensor<ui64>
    %21 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %22 = stablehlo.shift_right_logical %arg2, %21 : tensor<4xui64>
    %23 = stablehlo.add %20, %22 : tensor<4xui64>
    %c_4 = stablehlo.constant dense<4611686018427387904> : tensor<ui64>
    %24 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %25 = stablehlo.compare GT, %arg2, %24, UNSIGNED : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xi1>
    %26 = stablehlo.convert %25 : (tensor<4xi1>) -> tensor<4xui64>
    %27 = stablehlo.add %23, %26 : tensor<4xui64>
    %28 = stablehlo.negate %arg0 : tensor<3x4xf64>
    %29 = stablehlo.complex %arg0, %28 : tensor<3x4xcomplex<f64>>
    %cst = stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>
    %30 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<3x4xcomplex<f64>>
    %31 = stablehlo.multiply %29, %30 : tensor<3x4xcomplex<f64>>
    %32 = stablehlo.convert %arg1 : (tensor<3x4xi64>) -> tensor<3x4xf64>
    %cst_5 = stablehlo.constant dense<0x4270000000000000> : tensor<f64>
    %33 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<3x4xf64>
    %34 = stablehlo.divide %32, %33 : tensor<3x4xf64>
    %35 = stablehlo.convert %arg0 : (tensor<3x4xf64>) -> tensor<3x4xf32>
    return %8, %19, %27, %31, %34, %35 : tensor<3x4xf64>, tensor<3x4xi64>, tensor<4xui64>, tensor<3x4xcomplex<f64>>, tensor<3x4xf64>, tensor<3x4xf32>
  }
  func.func private @floor_divide(%arg0: tensor<3x4xi64>, %arg1: tensor<i64>) -> tensor<3x4xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %2 = stablehlo.divide %arg0, %1 : tensor<3x4xi64>
    %3 = stablehlo.sign %arg0 : tensor<3x4xi64>
    %4 = stablehlo.sign %0 : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %8 = stablehlo.remainder %arg0, %7 : tensor<3x4xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi1>
    %11 = stablehlo.and %6, %10 : tensor<3x4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3x4xi64>
    %13 = stablehlo.subtract %2, %12 : tensor<3x4xi64>
    %14 = call @_where(%11, %13, %2) : (tensor<3x4xi1>, tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi64>
    return %14 : tensor<3x4xi64>
  }
  func.func private @_where(%arg0: tensor<3x4xi1>, %arg1: tensor<3x4xi64>, %arg2: tensor<3x4xi64>) -> tensor<3x4xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x4xi1>, tensor<3x4xi64>
    return %0 : tensor<3x4xi64>
  }
  func.func private @argmax(%arg0: tensor<3x4xf64>) -> tensor<3xi64> {
    %0 = stablehlo.iota dim = 1 : tensor<3x4xi64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<3x4xf64>, tensor<3x4xi64>, tensor<f64>, tensor<i64>) -> (tensor<3xf64>, tensor<3xi64>)
     reducer(%arg1: tensor<f64>, %arg3: tensor<f64>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f64>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i64>
      stablehlo.return %9, %10 : tensor<f64>, tensor<i64>
    }
    return %1#1 : tensor<3xi64>
  }
  func.func private @floor_divide_0(%arg0: tensor<4xui64>, %arg1: tensor<ui64>) -> tensor<4xui64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %1 = stablehlo.divide %arg0, %0 : tensor<4xui64>
    return %1 : tensor<4xui64>
  }
}
