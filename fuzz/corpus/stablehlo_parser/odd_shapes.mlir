func.func @main(%a: tensor<?x3xf32>, %b: tensor<0xf32>, %c: tensor<1x1x1x1x1x1x1x1xf32>, %d: tensor<4294967296x4294967296xf32>) -> tensor<0xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<65536x65536xf32>
  %1 = stablehlo.iota dim = 1 : tensor<9223372036854775807x2xi32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [0] : (tensor<0xf32>) -> tensor<0xf32>
  return %2 : tensor<0xf32>
}
