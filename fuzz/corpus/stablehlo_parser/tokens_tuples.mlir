func.func @main(%t: !stablehlo.token, %p: tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> (!stablehlo.token, tensor<i32>, tuple<tensor<2xf32>, tensor<2xf32>>) {
  %0 = stablehlo.after_all %t, %t : !stablehlo.token
  %1 = stablehlo.get_tuple_element %p[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %2 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<i32>>) -> tensor<i32>
  %3 = stablehlo.get_tuple_element %p[0] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tensor<2xf32>
  %4 = stablehlo.tuple %3, %3 : tuple<tensor<2xf32>, tensor<2xf32>>
  %5:2 = stablehlo.optimization_barrier %3, %2 : tensor<2xf32>, tensor<i32>
  return %0, %5#1, %4 : !stablehlo.token, tensor<i32>, tuple<tensor<2xf32>, tensor<2xf32>>
}
