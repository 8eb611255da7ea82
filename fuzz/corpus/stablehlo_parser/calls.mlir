func.func public @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0:2 = func.call @pair(%x) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  %1 = call @"quoted \22name\22"(%0#1) : (tensor<2xi32>) -> tensor<2xi32>
  return %1, %0#0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @pair(%y: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = stablehlo.negate %y : tensor<2xi32>
  return %y, %0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @"quoted \22name\22"(%y: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "func.call"(%y) <{callee = @pair2}> : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
func.func private @pair2(%y: tensor<2xi32>) -> tensor<2xi32> {
  return %y : tensor<2xi32>
}
