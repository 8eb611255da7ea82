"builtin.module"() <{sym_name = "g"}> ({
  "func.func"() <{function_type = (tensor<i1>, tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<i32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%p: tensor<i1>, %x: tensor<3xf32>, %i: tensor<i32>):
    %0:2 = "stablehlo.if"(%p) ({
      %c = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      "stablehlo.return"(%x, %c) : (tensor<3xf32>, tensor<i32>) -> ()
    }, {
      %n = "stablehlo.negate"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%n, %i) : (tensor<3xf32>, tensor<i32>) -> ()
    }) : (tensor<i1>) -> (tensor<3xf32>, tensor<i32>)
    %1 = "stablehlo.case"(%i) ({
      "stablehlo.return"(%0#0) : (tensor<3xf32>) -> ()
    }, {
      %s = "stablehlo.sine"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%s) : (tensor<3xf32>) -> ()
    }) : (tensor<i32>) -> tensor<3xf32>
    %z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %2:2 = "stablehlo.while"(%z, %1) ({
    ^bb0(%a: tensor<i32>, %b: tensor<3xf32>):
      %l = "stablehlo.compare"(%a, %i) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%l) : (tensor<i1>) -> ()
    }, {
    ^bb0(%a: tensor<i32>, %b: tensor<3xf32>):
      %o = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %n = "stablehlo.add"(%a, %o) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %m = "stablehlo.multiply"(%b, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%n, %m) : (tensor<i32>, tensor<3xf32>) -> ()
    }) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
    "func.return"(%2#1, %0#1) : (tensor<3xf32>, tensor<i32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32} : () -> ()
