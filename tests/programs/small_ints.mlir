module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x6xui8>, %arg1: tensor<3x6xi8>, %arg2: tensor<3x6xui16>, %arg3: tensor<3x6xi16>, %arg4: tensor<3x6xui32>) -> (tensor<3x6xui8> {jax.result_info = "result[0]"}, tensor<3x6xi8> {jax.result_info = "result[1]"}, tensor<3x6xui16> {jax.result_info = "result[2]"}, tensor<3x6xi16> {jax.result_info = "result[3]"}, tensor<3x6xui32> {jax.result_info = "result[4]"}, tensor<3x6xi8> {jax.result_info = "result[5]"}, tensor<3x6xui32> {jax.result_info = "result[6]"}, tensor<3x6xi1> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<3> : tensor<ui8>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui8>) -> tensor<3x6xui8>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x6xui8>
    %c_0 = stablehlo.constant dense<7> : tensor<ui8>
    %2 = call @floor_divide(%arg0, %c_0) : (tensor<3x6xui8>, tensor<ui8>) -> tensor<3x6xui8>
    %3 = stablehlo.add %1, %2 : tensor<3x6xui8>
    %c_1 = stablehlo.constant dense<9> : tensor<ui8>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui8>) -> tensor<3x6xui8>
    %5 = stablehlo.shift_right_logical %arg0, %4 : tensor<3x6xui8>
    %6 = stablehlo.subtract %3, %5 : tensor<3x6xui8>
    %c_2 = stablehlo.constant dense<5> : tensor<i8>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %8 = stablehlo.multiply %arg1, %7 : tensor<3x6xi8>
    %c_3 = stablehlo.constant dense<2> : tensor<i8>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %10 = stablehlo.shift_right_arithmetic %arg1, %9 : tensor<3x6xi8>
    %11 = stablehlo.subtract %8, %10 : tensor<3x6xi8>
    %12 = stablehlo.abs %arg1 : tensor<3x6xi8>
    %13 = stablehlo.add %11, %12 : tensor<3x6xi8>
    %c_4 = stablehlo.constant dense<3> : tensor<i8>
    %14 = call @remainder(%arg1, %c_4) : (tensor<3x6xi8>, tensor<i8>) -> tensor<3x6xi8>
    %15 = stablehlo.add %13, %14 : tensor<3x6xi8>
    %c_5 = stablehlo.constant dense<40000> : tensor<ui16>
    %16 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui16>) -> tensor<3x6xui16>
    %17 = stablehlo.maximum %arg2, %16 : tensor<3x6xui16>
    %c_6 = stablehlo.constant dense<100> : tensor<ui16>
    %18 = call @floor_divide_0(%arg2, %c_6) : (tensor<3x6xui16>, tensor<ui16>) -> tensor<3x6xui16>
    %19 = stablehlo.subtract %17, %18 : tensor<3x6xui16>
    %c_7 = stablehlo.constant dense<3> : tensor<ui16>
    %20 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui16>) -> tensor<3x6xui16>
    %21 = stablehlo.shift_left %arg2, %20 : tensor<3x6xui16>
    %22 = stablehlo.add %19, %21 : tensor<3x6xui16>
    %c_8 = stablehlo.constant dense<100> : tensor<i16>
    %23 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i16>) -> tensor<3x6xi16>
    %24 = stablehlo.minimum %arg3, %23 : tensor<3x6xi16>
    %c_9 = stablehlo.constant dense<7> : tensor<i16>
    %25 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i16>) -> tensor<3x6xi16>
    %26 = stablehlo.multiply %24, %25 : tensor<3x6xi16>
    %c_10 = stablehlo.constant dense<-50> : tensor<i16>
    %c_11 = stablehlo.constant dense<50> : tensor<i16>
    %27 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i16>) -> tensor<3x6xi16>
    %28 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i16>) -> tensor<3x6xi16>
    %29 = stablehlo.clamp %27, %arg3, %28 : tensor<3x6xi16>
    %30 = stablehlo.add %26, %29 : tensor<3x6xi16>
    %c_12 = stablehlo.constant dense<1000> : tensor<ui32>
    %31 = call @floor_divide_1(%arg4, %c_12) : (tensor<3x6xui32>, tensor<ui32>) -> tensor<3x6xui32>
    %c_13 = stablehlo.constant dense<2147483648> : tensor<ui32>
    %32 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %33 = stablehlo.compare GT, %arg4, %32, UNSIGNED : (tensor<3x6xui32>, tensor<3x6xui32>) -> tensor<3x6xi1>
    %34 = stablehlo.convert %33 : (tensor<3x6xi1>) -> tensor<3x6xui32>
    %35 = stablehlo.add %31, %34 : tensor<3x6xui32>
    %c_14 = stablehlo.constant dense<65537> : tensor<ui32>
    %36 = call @remainder_2(%arg4, %c_14) : (tensor<3x6xui32>, tensor<ui32>) -> tensor<3x6xui32>
    %37 = stablehlo.add %35, %36 : tensor<3x6xui32>
    %38 = stablehlo.convert %arg0 : (tensor<3x6xui8>) -> tensor<3x6xi16>
    %39 = stablehlo.convert %arg1 : (tensor<3x6xi8>) -> tensor<3x6xi16>
    %40 = stablehlo.multiply %38, %39 : tensor<3x6xi16>
    %41 = stablehlo.add %40, %arg3 : tensor<3x6xi16>
    %42 = stablehlo.convert %41 : (tensor<3x6xi16>) -> tensor<3x6xi8>
    %43 = stablehlo.convert %arg2 : (tensor<3x6xui16>) -> tensor<3x6xf32>
    %44 = stablehlo.convert %arg4 : (tensor<3x6xui32>) -> tensor<3x6xf32>
    %45 = stablehlo.add %43, %44 : tensor<3x6xf32>
    %46 = stablehlo.convert %45 : (tensor<3x6xf32>) -> tensor<3x6xui32>
    %47 = stablehlo.convert %arg2 : (tensor<3x6xui16>) -> tensor<3x6xui8>
    %48 = stablehlo.compare GE, %arg0, %47, UNSIGNED : (tensor<3x6xui8>, tensor<3x6xui8>) -> tensor<3x6xi1>
    return %6, %15, %22, %30, %37, %42, %46, %48 : tensor<3x6xui8>, tensor<3x6xi8>, tensor<3x6xui16>, tensor<3x6xi16>, tensor<3x6xui32>, tensor<3x6xi8>, tensor<3x6xui32>, tensor<3x6xi1>
  }
  func.func private @floor_divide(%arg0: tensor<3x6xui8>, %arg1: tensor<ui8>) -> tensor<3x6xui8> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui8>) -> tensor<3x6xui8>
    %1 = stablehlo.divide %arg0, %0 : tensor<3x6xui8>
    return %1 : tensor<3x6xui8>
  }
  func.func private @remainder(%arg0: tensor<3x6xi8>, %arg1: tensor<i8>) -> tensor<3x6xi8> {
    %c = stablehlo.constant dense<0> : tensor<i8>
    %0 = stablehlo.compare EQ, %arg1, %c, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i8>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<i8>, tensor<i8>) -> tensor<i8>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %3 = stablehlo.remainder %arg0, %2 : tensor<3x6xi8>
    %c_1 = stablehlo.constant dense<0> : tensor<i8>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %5 = stablehlo.compare NE, %3, %4, SIGNED : (tensor<3x6xi8>, tensor<3x6xi8>) -> tensor<3x6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i8>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %7 = stablehlo.compare LT, %3, %6, SIGNED : (tensor<3x6xi8>, tensor<3x6xi8>) -> tensor<3x6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i8>
    %8 = stablehlo.compare LT, %1, %c_3, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<i1>) -> tensor<3x6xi1>
    %10 = stablehlo.compare NE, %7, %9, UNSIGNED : (tensor<3x6xi1>, tensor<3x6xi1>) -> tensor<3x6xi1>
    %11 = stablehlo.and %10, %5 : tensor<3x6xi1>
    %12 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i8>) -> tensor<3x6xi8>
    %13 = stablehlo.add %3, %12 : tensor<3x6xi8>
    %14 = stablehlo.select %11, %13, %3 : tensor<3x6xi1>, tensor<3x6xi8>
    return %14 : tensor<3x6xi8>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i8>, %arg2: tensor<i8>) -> tensor<i8> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i8>
    return %0 : tensor<i8>
  }
  func.func private @floor_divide_0(%arg0: tensor<3x6xui16>, %arg1: tensor<ui16>) -> tensor<3x6xui16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui16>) -> tensor<3x6xui16>
    %1 = stablehlo.divide %arg0, %0 : tensor<3x6xui16>
    return %1 : tensor<3x6xui16>
  }
  func.func private @floor_divide_1(%arg0: tensor<3x6xui32>, %arg1: tensor<ui32>) -> tensor<3x6xui32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %1 = stablehlo.divide %arg0, %0 : tensor<3x6xui32>
    return %1 : tensor<3x6xui32>
  }
  func.func private @remainder_2(%arg0: tensor<3x6xui32>, %arg1: tensor<ui32>) -> tensor<3x6xui32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.compare EQ, %arg1, %c, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %1 = call @_where_3(%0, %c_0, %arg1) : (tensor<i1>, tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<3x6xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %5 = stablehlo.compare NE, %3, %4, UNSIGNED : (tensor<3x6xui32>, tensor<3x6xui32>) -> tensor<3x6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %7 = stablehlo.compare LT, %3, %6, UNSIGNED : (tensor<3x6xui32>, tensor<3x6xui32>) -> tensor<3x6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<ui32>
    %8 = stablehlo.compare LT, %1, %c_3, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<i1>) -> tensor<3x6xi1>
    %10 = stablehlo.compare NE, %7, %9, UNSIGNED : (tensor<3x6xi1>, tensor<3x6xi1>) -> tensor<3x6xi1>
    %11 = stablehlo.and %10, %5 : tensor<3x6xi1>
    %12 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<3x6xui32>
    %13 = stablehlo.add %3, %12 : tensor<3x6xui32>
    %14 = stablehlo.select %11, %13, %3 : tensor<3x6xi1>, tensor<3x6xui32>
    return %14 : tensor<3x6xui32>
  }
  func.func private @_where_3(%arg0: tensor<i1>, %arg1: tensor<ui32>, %arg2: tensor<ui32>) -> tensor<ui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<ui32>
    return %0 : tensor<ui32>
  }
}
