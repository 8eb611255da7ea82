// jax.jit(lambda x, i: lax.fori_loop(0, 3, lambda k, c: c * x + i, x)).lower(...).compiler_ir('stablehlo') printed with print_generic_op_form=True, JAX 0.10.2
"builtin.module"() <{sym_name = "jit__lambda"}> ({
  "func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg3: tensor<2xf32>, %arg4: tensor<f32>):
    %4 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %5:4 = "stablehlo.while"(%arg3, %arg4, %4, %arg3) ({
    ^bb0(%arg9: tensor<2xf32>, %arg10: tensor<f32>, %arg11: tensor<i32>, %arg12: tensor<2xf32>):
      %9 = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
      %10 = "stablehlo.compare"(%arg11, %9) <{compare_type = #stablehlo<comparison_type SIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%10) : (tensor<i1>) -> ()
    }, {
    ^bb0(%arg5: tensor<2xf32>, %arg6: tensor<f32>, %arg7: tensor<i32>, %arg8: tensor<2xf32>):
      %6 = "func.call"(%arg5, %arg6, %arg8) <{callee = @closed_call}> : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
      %7 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %8 = "stablehlo.add"(%arg7, %7) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%arg5, %arg6, %8, %6) : (tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<2xf32>) -> ()
    }) : (tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<2xf32>)
    "func.return"(%5#3) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>, res_attrs = [{}], sym_name = "closed_call", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<f32>, %arg2: tensor<2xf32>):
    %0 = "stablehlo.multiply"(%arg2, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.convert"(%arg1) : (tensor<f32>) -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2xf32>
    %3 = "stablehlo.add"(%0, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%3) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
