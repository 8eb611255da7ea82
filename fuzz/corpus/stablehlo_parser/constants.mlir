func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.constant dense<"0x0000C07F0000807F000080FF01000000"> : tensor<4xf32>
  %1 = stablehlo.constant dense<[0x7FF8000000000001, 0xFFF0000000000000, -0.0]> : tensor<3xf64>
  %2 = stablehlo.constant dense<[0x7E00, 0xFC00]> : tensor<2xf16>
  %3 = stablehlo.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %4 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
  %5 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %6 = stablehlo.constant dense<[(1.5, -2.5), (0x7FF8000000000000, 0.0)]> : tensor<2xcomplex<f64>>
  %7 = stablehlo.constant dense<> : tensor<0x3xf32>
  %8 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %9 = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf8E4M3FN>
  %10 = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf8E5M2>
  %11 = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf4E2M1FN>
  %12 = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf8E8M0FNU>
  %13 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %14 = stablehlo.constant dense<[0, 15]> : tensor<2xui4>
  %15 = stablehlo.constant dense<[-1, 0]> : tensor<2xsi1>
  %16 = stablehlo.constant dense<[1, 3]> : tensor<2xui2>
  %17 = stablehlo.constant dense<(1.0,2.0)> : tensor<1xcomplex<f32>>
  %18 = stablehlo.constant dense<1.0e+38> : tensor<2x2xf32>
  %19 = stablehlo.constant dense<"0xFFFF"> : tensor<ui16>
  return %arg0 : tensor<3xf32>
}
