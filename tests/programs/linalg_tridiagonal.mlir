module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6xf32>, %arg1: tensor<2x6xf32>, %arg2: tensor<2x6xf32>, %arg3: tensor<2x6x2xf32>, %arg4: tensor<5xf32>, %arg5: tensor<4xf32>) -> (tensor<2x6x2xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5x5xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = "stablehlo.scatter"(%arg0, %0, %1) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      stablehlo.return %arg7 : tensor<f32>
    }) : (tensor<2x6xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<2x6xf32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %5 = "stablehlo.scatter"(%arg2, %3, %4) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
    ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
      stablehlo.return %arg7 : tensor<f32>
    }) : (tensor<2x6xf32>, tensor<1xi32>, tensor<2xf32>) -> tensor<2x6xf32>
    %6:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%2, %arg1, %5, %arg3) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [2], operand_index = 2, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [3], operand_index = 3, operand_tuple_indices = []>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, k], [i, l], [i, m, n])->([i, o], [i, p], [i, q], [i, r, s], [i]) {i=2, j=6, k=6, l=6, m=6, n=2, o=6, p=6, q=6, r=6, s=2}, custom>} : (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6x2xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6x2xf32>, tensor<2xi32>)
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %8 = stablehlo.compare EQ, %6#4, %7, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_3 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x6x2xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x6x2xi1>
    %12 = stablehlo.select %11, %6#3, %10 : tensor<2x6x2xi1>, tensor<2x6x2xf32>
    %13:2 = call @eigh_tridiagonal(%arg4, %arg5) : (tensor<5xf32>, tensor<4xf32>) -> (tensor<5xf32>, tensor<5x5xf32>)
    %14 = stablehlo.abs %13#1 : tensor<5x5xf32>
    return %12, %13#0, %14 : tensor<2x6x2xf32>, tensor<5xf32>, tensor<5x5xf32>
  }
  func.func private @eigh_tridiagonal(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> (tensor<5xf32>, tensor<5x5xf32>) {
    %c = stablehlo.constant dense<42> : tensor<i32>
    %c_0 = stablehlo.constant dense<32> : tensor<i32>
    %0 = stablehlo.shift_right_logical %c, %c_0 : tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %c_1 = stablehlo.constant dense<-1> : tensor<i32>
    %3 = stablehlo.and %c, %c_1 : tensor<i32>
    %4 = stablehlo.convert %3 : (tensor<i32>) -> tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %6 = stablehlo.concatenate %2, %5, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    %7 = stablehlo.abs %arg1 : tensor<4xf32>
    %8 = chlo.square %arg1 : tensor<4xf32> -> tensor<4xf32>
    %9 = stablehlo.slice %7 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %10 = stablehlo.slice %7 [0:3] : (tensor<4xf32>) -> tensor<3xf32>
    %11 = stablehlo.slice %7 [1:4] : (tensor<4xf32>) -> tensor<3xf32>
    %12 = stablehlo.add %10, %11 : tensor<3xf32>
    %13 = stablehlo.slice %7 [3:4] : (tensor<4xf32>) -> tensor<1xf32>
    %14 = stablehlo.concatenate %9, %12, %13, dim = 0 : (tensor<1xf32>, tensor<3xf32>, tensor<1xf32>) -> tensor<5xf32>
    %15 = stablehlo.add %arg0, %14 : tensor<5xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %17 = stablehlo.subtract %arg0, %14 : tensor<5xf32>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_2) applies stablehlo.minimum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %19 = stablehlo.abs %18 : tensor<f32>
    %20 = stablehlo.abs %16 : tensor<f32>
    %21 = stablehlo.maximum %19, %20 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %22 = stablehlo.reduce(%8 init: %cst_3) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.maximum %cst_4, %22 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.17549449E-38> : tensor<f32>
    %24 = stablehlo.multiply %cst_5, %23 : tensor<f32>
    %25 = stablehlo.slice %7 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %26 = stablehlo.reshape %25 : (tensor<1xf32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %27 = stablehlo.multiply %cst_6, %26 : tensor<f32>
    %28 = chlo.square %27 : tensor<f32> -> tensor<f32>
    %cst_7 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %29 = stablehlo.multiply %cst_7, %21 : tensor<f32>
    %30 = stablehlo.iota dim = 0 : tensor<5xi32>
    %cst_8 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<2.100000e+00> : tensor<f32>
    %31 = stablehlo.multiply %cst_8, %cst_9 : tensor<f32>
    %cst_10 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %32 = stablehlo.multiply %31, %cst_10 : tensor<f32>
    %33 = stablehlo.multiply %32, %21 : tensor<f32>
    %34 = stablehlo.subtract %18, %33 : tensor<f32>
    %cst_11 = stablehlo.constant dense<4.200000e+00> : tensor<f32>
    %35 = stablehlo.multiply %cst_11, %24 : tensor<f32>
    %36 = stablehlo.subtract %34, %35 : tensor<f32>
    %37 = stablehlo.add %16, %33 : tensor<f32>
    %cst_12 = stablehlo.constant dense<2.100000e+00> : tensor<f32>
    %38 = stablehlo.multiply %cst_12, %24 : tensor<f32>
    %39 = stablehlo.add %37, %38 : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %41 = stablehlo.broadcast_in_dim %39, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %42 = stablehlo.add %41, %40 : tensor<5xf32>
    %cst_13 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %44 = stablehlo.multiply %43, %42 : tensor<5xf32>
    %45 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %46 = stablehlo.broadcast_in_dim %28, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %47:10 = stablehlo.while(%iterArg = %29, %iterArg_39 = %arg0, %iterArg_40 = %46, %iterArg_41 = %8, %iterArg_42 = %45, %iterArg_43 = %30, %iterArg_44 = %c_14, %iterArg_45 = %40, %iterArg_46 = %44, %iterArg_47 = %41) : tensor<f32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xi32>, tensor<i32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
    cond {
      %c_48 = stablehlo.constant dense<24> : tensor<i32>
      %120 = stablehlo.compare LT, %iterArg_44, %c_48, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %121 = stablehlo.subtract %iterArg_47, %iterArg_45 : tensor<5xf32>
      %cst_49 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %122 = stablehlo.reduce(%121 init: %cst_49) applies stablehlo.maximum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      %123 = stablehlo.compare LT, %iterArg, %122, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_50 = stablehlo.constant dense<false> : tensor<i1>
      %124 = stablehlo.broadcast_in_dim %c_50, dims = [] : (tensor<i1>) -> tensor<i1>
      %125 = stablehlo.compare NE, %120, %124, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %126 = stablehlo.convert %125 : tensor<i1>
      %127 = stablehlo.and %126, %123 : tensor<i1>
      stablehlo.return %127 : tensor<i1>
    } do {
      %c_48 = stablehlo.constant dense<0> : tensor<i32>
      %120 = stablehlo.broadcast_in_dim %c_48, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %c_49 = stablehlo.constant dense<1> : tensor<i32>
      %121 = stablehlo.broadcast_in_dim %c_49, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %122 = stablehlo.slice %iterArg_39 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
      %123 = stablehlo.reshape %122 : (tensor<1xf32>) -> tensor<f32>
      %124 = stablehlo.broadcast_in_dim %123, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %125 = stablehlo.subtract %124, %iterArg_46 : tensor<5xf32>
      %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %126 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %127 = stablehlo.compare LT, %125, %126, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %128 = func.call @_where(%127, %121, %120) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %129 = stablehlo.slice %iterArg_39 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
      %130 = stablehlo.reshape %129 : (tensor<1xf32>) -> tensor<f32>
      %131 = stablehlo.broadcast_in_dim %130, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %132 = stablehlo.compare EQ, %131, %iterArg_46, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %133 = func.call @_where_0(%132, %iterArg_40, %125) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %134 = stablehlo.slice %iterArg_39 [1:2] : (tensor<5xf32>) -> tensor<1xf32>
      %135 = stablehlo.reshape %134 : (tensor<1xf32>) -> tensor<f32>
      %136 = stablehlo.slice %iterArg_41 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
      %137 = stablehlo.reshape %136 : (tensor<1xf32>) -> tensor<f32>
      %138 = stablehlo.broadcast_in_dim %137, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %139 = stablehlo.divide %138, %133 : tensor<5xf32>
      %140 = stablehlo.broadcast_in_dim %135, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %141 = stablehlo.subtract %140, %139 : tensor<5xf32>
      %142 = stablehlo.subtract %141, %iterArg_46 : tensor<5xf32>
      %143 = stablehlo.compare LE, %142, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_51 = stablehlo.constant dense<1> : tensor<i32>
      %144 = stablehlo.broadcast_in_dim %c_51, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %145 = stablehlo.add %128, %144 : tensor<5xi32>
      %146 = func.call @_where(%143, %145, %128) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %147 = stablehlo.compare LE, %142, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %148 = stablehlo.negate %iterArg_42 : tensor<5xf32>
      %149 = stablehlo.minimum %142, %148 : tensor<5xf32>
      %150 = func.call @_where_0(%147, %149, %142) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %151 = stablehlo.slice %iterArg_39 [2:3] : (tensor<5xf32>) -> tensor<1xf32>
      %152 = stablehlo.reshape %151 : (tensor<1xf32>) -> tensor<f32>
      %153 = stablehlo.slice %iterArg_41 [1:2] : (tensor<4xf32>) -> tensor<1xf32>
      %154 = stablehlo.reshape %153 : (tensor<1xf32>) -> tensor<f32>
      %155 = stablehlo.broadcast_in_dim %154, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %156 = stablehlo.divide %155, %150 : tensor<5xf32>
      %157 = stablehlo.broadcast_in_dim %152, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %158 = stablehlo.subtract %157, %156 : tensor<5xf32>
      %159 = stablehlo.subtract %158, %iterArg_46 : tensor<5xf32>
      %160 = stablehlo.compare LE, %159, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_52 = stablehlo.constant dense<1> : tensor<i32>
      %161 = stablehlo.broadcast_in_dim %c_52, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %162 = stablehlo.add %146, %161 : tensor<5xi32>
      %163 = func.call @_where(%160, %162, %146) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %164 = stablehlo.compare LE, %159, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %165 = stablehlo.negate %iterArg_42 : tensor<5xf32>
      %166 = stablehlo.minimum %159, %165 : tensor<5xf32>
      %167 = func.call @_where_0(%164, %166, %159) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %168 = stablehlo.slice %iterArg_39 [3:4] : (tensor<5xf32>) -> tensor<1xf32>
      %169 = stablehlo.reshape %168 : (tensor<1xf32>) -> tensor<f32>
      %170 = stablehlo.slice %iterArg_41 [2:3] : (tensor<4xf32>) -> tensor<1xf32>
      %171 = stablehlo.reshape %170 : (tensor<1xf32>) -> tensor<f32>
      %172 = stablehlo.broadcast_in_dim %171, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %173 = stablehlo.divide %172, %167 : tensor<5xf32>
      %174 = stablehlo.broadcast_in_dim %169, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %175 = stablehlo.subtract %174, %173 : tensor<5xf32>
      %176 = stablehlo.subtract %175, %iterArg_46 : tensor<5xf32>
      %177 = stablehlo.compare LE, %176, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_53 = stablehlo.constant dense<1> : tensor<i32>
      %178 = stablehlo.broadcast_in_dim %c_53, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %179 = stablehlo.add %163, %178 : tensor<5xi32>
      %180 = func.call @_where(%177, %179, %163) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %181 = stablehlo.compare LE, %176, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %182 = stablehlo.negate %iterArg_42 : tensor<5xf32>
      %183 = stablehlo.minimum %176, %182 : tensor<5xf32>
      %184 = func.call @_where_0(%181, %183, %176) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %185 = stablehlo.slice %iterArg_39 [4:5] : (tensor<5xf32>) -> tensor<1xf32>
      %186 = stablehlo.reshape %185 : (tensor<1xf32>) -> tensor<f32>
      %187 = stablehlo.slice %iterArg_41 [3:4] : (tensor<4xf32>) -> tensor<1xf32>
      %188 = stablehlo.reshape %187 : (tensor<1xf32>) -> tensor<f32>
      %189 = stablehlo.broadcast_in_dim %188, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %190 = stablehlo.divide %189, %184 : tensor<5xf32>
      %191 = stablehlo.broadcast_in_dim %186, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %192 = stablehlo.subtract %191, %190 : tensor<5xf32>
      %193 = stablehlo.subtract %192, %iterArg_46 : tensor<5xf32>
      %194 = stablehlo.compare LE, %193, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_54 = stablehlo.constant dense<1> : tensor<i32>
      %195 = stablehlo.broadcast_in_dim %c_54, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %196 = stablehlo.add %180, %195 : tensor<5xi32>
      %197 = func.call @_where(%194, %196, %180) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %198 = stablehlo.compare LE, %193, %iterArg_42, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %199 = stablehlo.negate %iterArg_42 : tensor<5xf32>
      %200 = stablehlo.minimum %193, %199 : tensor<5xf32>
      %201 = func.call @_where_0(%198, %200, %193) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %c_55 = stablehlo.constant dense<5> : tensor<i32>
      %202:7 = stablehlo.while(%iterArg_58 = %iterArg_39, %iterArg_59 = %iterArg_41, %iterArg_60 = %iterArg_46, %iterArg_61 = %iterArg_42, %iterArg_62 = %c_55, %iterArg_63 = %201, %iterArg_64 = %197) : tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<5xi32>
      cond {
        %c_65 = stablehlo.constant dense<5> : tensor<i32>
        %211 = stablehlo.compare LT, %iterArg_62, %c_65, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %211 : tensor<i1>
      } do {
        %c_65 = stablehlo.constant dense<0> : tensor<i32>
        %211 = stablehlo.add %iterArg_62, %c_65 : tensor<i32>
        %c_66 = stablehlo.constant dense<0> : tensor<i32>
        %212 = stablehlo.compare LT, %211, %c_66, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %213 = stablehlo.convert %211 : tensor<i32>
        %c_67 = stablehlo.constant dense<5> : tensor<i32>
        %214 = stablehlo.add %213, %c_67 : tensor<i32>
        %215 = stablehlo.select %212, %214, %211 : tensor<i1>, tensor<i32>
        %216 = stablehlo.dynamic_slice %iterArg_58, %215, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %217 = stablehlo.reshape %216 : (tensor<1xf32>) -> tensor<f32>
        %c_68 = stablehlo.constant dense<1> : tensor<i32>
        %218 = stablehlo.subtract %211, %c_68 : tensor<i32>
        %c_69 = stablehlo.constant dense<0> : tensor<i32>
        %219 = stablehlo.compare LT, %218, %c_69, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %220 = stablehlo.convert %218 : tensor<i32>
        %c_70 = stablehlo.constant dense<4> : tensor<i32>
        %221 = stablehlo.add %220, %c_70 : tensor<i32>
        %222 = stablehlo.select %219, %221, %218 : tensor<i1>, tensor<i32>
        %223 = stablehlo.dynamic_slice %iterArg_59, %222, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %224 = stablehlo.reshape %223 : (tensor<1xf32>) -> tensor<f32>
        %225 = stablehlo.broadcast_in_dim %224, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %226 = stablehlo.divide %225, %iterArg_63 : tensor<5xf32>
        %227 = stablehlo.broadcast_in_dim %217, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %228 = stablehlo.subtract %227, %226 : tensor<5xf32>
        %229 = stablehlo.subtract %228, %iterArg_60 : tensor<5xf32>
        %230 = stablehlo.compare LE, %229, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_71 = stablehlo.constant dense<1> : tensor<i32>
        %231 = stablehlo.broadcast_in_dim %c_71, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %232 = stablehlo.add %iterArg_64, %231 : tensor<5xi32>
        %233 = func.call @_where(%230, %232, %iterArg_64) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %234 = stablehlo.compare LE, %229, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %235 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %236 = stablehlo.minimum %229, %235 : tensor<5xf32>
        %237 = func.call @_where_0(%234, %236, %229) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_72 = stablehlo.constant dense<1> : tensor<i32>
        %238 = stablehlo.add %iterArg_62, %c_72 : tensor<i32>
        %c_73 = stablehlo.constant dense<0> : tensor<i32>
        %239 = stablehlo.compare LT, %238, %c_73, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %240 = stablehlo.convert %238 : tensor<i32>
        %c_74 = stablehlo.constant dense<5> : tensor<i32>
        %241 = stablehlo.add %240, %c_74 : tensor<i32>
        %242 = stablehlo.select %239, %241, %238 : tensor<i1>, tensor<i32>
        %243 = stablehlo.dynamic_slice %iterArg_58, %242, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %244 = stablehlo.reshape %243 : (tensor<1xf32>) -> tensor<f32>
        %c_75 = stablehlo.constant dense<1> : tensor<i32>
        %245 = stablehlo.subtract %238, %c_75 : tensor<i32>
        %c_76 = stablehlo.constant dense<0> : tensor<i32>
        %246 = stablehlo.compare LT, %245, %c_76, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %247 = stablehlo.convert %245 : tensor<i32>
        %c_77 = stablehlo.constant dense<4> : tensor<i32>
        %248 = stablehlo.add %247, %c_77 : tensor<i32>
        %249 = stablehlo.select %246, %248, %245 : tensor<i1>, tensor<i32>
        %250 = stablehlo.dynamic_slice %iterArg_59, %249, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %251 = stablehlo.reshape %250 : (tensor<1xf32>) -> tensor<f32>
        %252 = stablehlo.broadcast_in_dim %251, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %253 = stablehlo.divide %252, %237 : tensor<5xf32>
        %254 = stablehlo.broadcast_in_dim %244, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %255 = stablehlo.subtract %254, %253 : tensor<5xf32>
        %256 = stablehlo.subtract %255, %iterArg_60 : tensor<5xf32>
        %257 = stablehlo.compare LE, %256, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_78 = stablehlo.constant dense<1> : tensor<i32>
        %258 = stablehlo.broadcast_in_dim %c_78, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %259 = stablehlo.add %233, %258 : tensor<5xi32>
        %260 = func.call @_where(%257, %259, %233) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %261 = stablehlo.compare LE, %256, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %262 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %263 = stablehlo.minimum %256, %262 : tensor<5xf32>
        %264 = func.call @_where_0(%261, %263, %256) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_79 = stablehlo.constant dense<2> : tensor<i32>
        %265 = stablehlo.add %iterArg_62, %c_79 : tensor<i32>
        %c_80 = stablehlo.constant dense<0> : tensor<i32>
        %266 = stablehlo.compare LT, %265, %c_80, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %267 = stablehlo.convert %265 : tensor<i32>
        %c_81 = stablehlo.constant dense<5> : tensor<i32>
        %268 = stablehlo.add %267, %c_81 : tensor<i32>
        %269 = stablehlo.select %266, %268, %265 : tensor<i1>, tensor<i32>
        %270 = stablehlo.dynamic_slice %iterArg_58, %269, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %271 = stablehlo.reshape %270 : (tensor<1xf32>) -> tensor<f32>
        %c_82 = stablehlo.constant dense<1> : tensor<i32>
        %272 = stablehlo.subtract %265, %c_82 : tensor<i32>
        %c_83 = stablehlo.constant dense<0> : tensor<i32>
        %273 = stablehlo.compare LT, %272, %c_83, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %274 = stablehlo.convert %272 : tensor<i32>
        %c_84 = stablehlo.constant dense<4> : tensor<i32>
        %275 = stablehlo.add %274, %c_84 : tensor<i32>
        %276 = stablehlo.select %273, %275, %272 : tensor<i1>, tensor<i32>
        %277 = stablehlo.dynamic_slice %iterArg_59, %276, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %278 = stablehlo.reshape %277 : (tensor<1xf32>) -> tensor<f32>
        %279 = stablehlo.broadcast_in_dim %278, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %280 = stablehlo.divide %279, %264 : tensor<5xf32>
        %281 = stablehlo.broadcast_in_dim %271, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %282 = stablehlo.subtract %281, %280 : tensor<5xf32>
        %283 = stablehlo.subtract %282, %iterArg_60 : tensor<5xf32>
        %284 = stablehlo.compare LE, %283, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_85 = stablehlo.constant dense<1> : tensor<i32>
        %285 = stablehlo.broadcast_in_dim %c_85, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %286 = stablehlo.add %260, %285 : tensor<5xi32>
        %287 = func.call @_where(%284, %286, %260) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %288 = stablehlo.compare LE, %283, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %289 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %290 = stablehlo.minimum %283, %289 : tensor<5xf32>
        %291 = func.call @_where_0(%288, %290, %283) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_86 = stablehlo.constant dense<3> : tensor<i32>
        %292 = stablehlo.add %iterArg_62, %c_86 : tensor<i32>
        %c_87 = stablehlo.constant dense<0> : tensor<i32>
        %293 = stablehlo.compare LT, %292, %c_87, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %294 = stablehlo.convert %292 : tensor<i32>
        %c_88 = stablehlo.constant dense<5> : tensor<i32>
        %295 = stablehlo.add %294, %c_88 : tensor<i32>
        %296 = stablehlo.select %293, %295, %292 : tensor<i1>, tensor<i32>
        %297 = stablehlo.dynamic_slice %iterArg_58, %296, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %298 = stablehlo.reshape %297 : (tensor<1xf32>) -> tensor<f32>
        %c_89 = stablehlo.constant dense<1> : tensor<i32>
        %299 = stablehlo.subtract %292, %c_89 : tensor<i32>
        %c_90 = stablehlo.constant dense<0> : tensor<i32>
        %300 = stablehlo.compare LT, %299, %c_90, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %301 = stablehlo.convert %299 : tensor<i32>
        %c_91 = stablehlo.constant dense<4> : tensor<i32>
        %302 = stablehlo.add %301, %c_91 : tensor<i32>
        %303 = stablehlo.select %300, %302, %299 : tensor<i1>, tensor<i32>
        %304 = stablehlo.dynamic_slice %iterArg_59, %303, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %305 = stablehlo.reshape %304 : (tensor<1xf32>) -> tensor<f32>
        %306 = stablehlo.broadcast_in_dim %305, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %307 = stablehlo.divide %306, %291 : tensor<5xf32>
        %308 = stablehlo.broadcast_in_dim %298, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %309 = stablehlo.subtract %308, %307 : tensor<5xf32>
        %310 = stablehlo.subtract %309, %iterArg_60 : tensor<5xf32>
        %311 = stablehlo.compare LE, %310, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_92 = stablehlo.constant dense<1> : tensor<i32>
        %312 = stablehlo.broadcast_in_dim %c_92, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %313 = stablehlo.add %287, %312 : tensor<5xi32>
        %314 = func.call @_where(%311, %313, %287) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %315 = stablehlo.compare LE, %310, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %316 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %317 = stablehlo.minimum %310, %316 : tensor<5xf32>
        %318 = func.call @_where_0(%315, %317, %310) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_93 = stablehlo.constant dense<4> : tensor<i32>
        %319 = stablehlo.add %iterArg_62, %c_93 : tensor<i32>
        %c_94 = stablehlo.constant dense<0> : tensor<i32>
        %320 = stablehlo.compare LT, %319, %c_94, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %321 = stablehlo.convert %319 : tensor<i32>
        %c_95 = stablehlo.constant dense<5> : tensor<i32>
        %322 = stablehlo.add %321, %c_95 : tensor<i32>
        %323 = stablehlo.select %320, %322, %319 : tensor<i1>, tensor<i32>
        %324 = stablehlo.dynamic_slice %iterArg_58, %323, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %325 = stablehlo.reshape %324 : (tensor<1xf32>) -> tensor<f32>
        %c_96 = stablehlo.constant dense<1> : tensor<i32>
        %326 = stablehlo.subtract %319, %c_96 : tensor<i32>
        %c_97 = stablehlo.constant dense<0> : tensor<i32>
        %327 = stablehlo.compare LT, %326, %c_97, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %328 = stablehlo.convert %326 : tensor<i32>
        %c_98 = stablehlo.constant dense<4> : tensor<i32>
        %329 = stablehlo.add %328, %c_98 : tensor<i32>
        %330 = stablehlo.select %327, %329, %326 : tensor<i1>, tensor<i32>
        %331 = stablehlo.dynamic_slice %iterArg_59, %330, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %332 = stablehlo.reshape %331 : (tensor<1xf32>) -> tensor<f32>
        %333 = stablehlo.broadcast_in_dim %332, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %334 = stablehlo.divide %333, %318 : tensor<5xf32>
        %335 = stablehlo.broadcast_in_dim %325, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %336 = stablehlo.subtract %335, %334 : tensor<5xf32>
        %337 = stablehlo.subtract %336, %iterArg_60 : tensor<5xf32>
        %338 = stablehlo.compare LE, %337, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_99 = stablehlo.constant dense<1> : tensor<i32>
        %339 = stablehlo.broadcast_in_dim %c_99, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %340 = stablehlo.add %314, %339 : tensor<5xi32>
        %341 = func.call @_where(%338, %340, %314) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %342 = stablehlo.compare LE, %337, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %343 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %344 = stablehlo.minimum %337, %343 : tensor<5xf32>
        %345 = func.call @_where_0(%342, %344, %337) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_100 = stablehlo.constant dense<5> : tensor<i32>
        %346 = stablehlo.add %iterArg_62, %c_100 : tensor<i32>
        %c_101 = stablehlo.constant dense<0> : tensor<i32>
        %347 = stablehlo.compare LT, %346, %c_101, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %348 = stablehlo.convert %346 : tensor<i32>
        %c_102 = stablehlo.constant dense<5> : tensor<i32>
        %349 = stablehlo.add %348, %c_102 : tensor<i32>
        %350 = stablehlo.select %347, %349, %346 : tensor<i1>, tensor<i32>
        %351 = stablehlo.dynamic_slice %iterArg_58, %350, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %352 = stablehlo.reshape %351 : (tensor<1xf32>) -> tensor<f32>
        %c_103 = stablehlo.constant dense<1> : tensor<i32>
        %353 = stablehlo.subtract %346, %c_103 : tensor<i32>
        %c_104 = stablehlo.constant dense<0> : tensor<i32>
        %354 = stablehlo.compare LT, %353, %c_104, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %355 = stablehlo.convert %353 : tensor<i32>
        %c_105 = stablehlo.constant dense<4> : tensor<i32>
        %356 = stablehlo.add %355, %c_105 : tensor<i32>
        %357 = stablehlo.select %354, %356, %353 : tensor<i1>, tensor<i32>
        %358 = stablehlo.dynamic_slice %iterArg_59, %357, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %359 = stablehlo.reshape %358 : (tensor<1xf32>) -> tensor<f32>
        %360 = stablehlo.broadcast_in_dim %359, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %361 = stablehlo.divide %360, %345 : tensor<5xf32>
        %362 = stablehlo.broadcast_in_dim %352, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %363 = stablehlo.subtract %362, %361 : tensor<5xf32>
        %364 = stablehlo.subtract %363, %iterArg_60 : tensor<5xf32>
        %365 = stablehlo.compare LE, %364, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_106 = stablehlo.constant dense<1> : tensor<i32>
        %366 = stablehlo.broadcast_in_dim %c_106, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %367 = stablehlo.add %341, %366 : tensor<5xi32>
        %368 = func.call @_where(%365, %367, %341) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %369 = stablehlo.compare LE, %364, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %370 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %371 = stablehlo.minimum %364, %370 : tensor<5xf32>
        %372 = func.call @_where_0(%369, %371, %364) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_107 = stablehlo.constant dense<6> : tensor<i32>
        %373 = stablehlo.add %iterArg_62, %c_107 : tensor<i32>
        %c_108 = stablehlo.constant dense<0> : tensor<i32>
        %374 = stablehlo.compare LT, %373, %c_108, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %375 = stablehlo.convert %373 : tensor<i32>
        %c_109 = stablehlo.constant dense<5> : tensor<i32>
        %376 = stablehlo.add %375, %c_109 : tensor<i32>
        %377 = stablehlo.select %374, %376, %373 : tensor<i1>, tensor<i32>
        %378 = stablehlo.dynamic_slice %iterArg_58, %377, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %379 = stablehlo.reshape %378 : (tensor<1xf32>) -> tensor<f32>
        %c_110 = stablehlo.constant dense<1> : tensor<i32>
        %380 = stablehlo.subtract %373, %c_110 : tensor<i32>
        %c_111 = stablehlo.constant dense<0> : tensor<i32>
        %381 = stablehlo.compare LT, %380, %c_111, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %382 = stablehlo.convert %380 : tensor<i32>
        %c_112 = stablehlo.constant dense<4> : tensor<i32>
        %383 = stablehlo.add %382, %c_112 : tensor<i32>
        %384 = stablehlo.select %381, %383, %380 : tensor<i1>, tensor<i32>
        %385 = stablehlo.dynamic_slice %iterArg_59, %384, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %386 = stablehlo.reshape %385 : (tensor<1xf32>) -> tensor<f32>
        %387 = stablehlo.broadcast_in_dim %386, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %388 = stablehlo.divide %387, %372 : tensor<5xf32>
        %389 = stablehlo.broadcast_in_dim %379, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %390 = stablehlo.subtract %389, %388 : tensor<5xf32>
        %391 = stablehlo.subtract %390, %iterArg_60 : tensor<5xf32>
        %392 = stablehlo.compare LE, %391, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_113 = stablehlo.constant dense<1> : tensor<i32>
        %393 = stablehlo.broadcast_in_dim %c_113, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %394 = stablehlo.add %368, %393 : tensor<5xi32>
        %395 = func.call @_where(%392, %394, %368) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %396 = stablehlo.compare LE, %391, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %397 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %398 = stablehlo.minimum %391, %397 : tensor<5xf32>
        %399 = func.call @_where_0(%396, %398, %391) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_114 = stablehlo.constant dense<7> : tensor<i32>
        %400 = stablehlo.add %iterArg_62, %c_114 : tensor<i32>
        %c_115 = stablehlo.constant dense<0> : tensor<i32>
        %401 = stablehlo.compare LT, %400, %c_115, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %402 = stablehlo.convert %400 : tensor<i32>
        %c_116 = stablehlo.constant dense<5> : tensor<i32>
        %403 = stablehlo.add %402, %c_116 : tensor<i32>
        %404 = stablehlo.select %401, %403, %400 : tensor<i1>, tensor<i32>
        %405 = stablehlo.dynamic_slice %iterArg_58, %404, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %406 = stablehlo.reshape %405 : (tensor<1xf32>) -> tensor<f32>
        %c_117 = stablehlo.constant dense<1> : tensor<i32>
        %407 = stablehlo.subtract %400, %c_117 : tensor<i32>
        %c_118 = stablehlo.constant dense<0> : tensor<i32>
        %408 = stablehlo.compare LT, %407, %c_118, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %409 = stablehlo.convert %407 : tensor<i32>
        %c_119 = stablehlo.constant dense<4> : tensor<i32>
        %410 = stablehlo.add %409, %c_119 : tensor<i32>
        %411 = stablehlo.select %408, %410, %407 : tensor<i1>, tensor<i32>
        %412 = stablehlo.dynamic_slice %iterArg_59, %411, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %413 = stablehlo.reshape %412 : (tensor<1xf32>) -> tensor<f32>
        %414 = stablehlo.broadcast_in_dim %413, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %415 = stablehlo.divide %414, %399 : tensor<5xf32>
        %416 = stablehlo.broadcast_in_dim %406, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %417 = stablehlo.subtract %416, %415 : tensor<5xf32>
        %418 = stablehlo.subtract %417, %iterArg_60 : tensor<5xf32>
        %419 = stablehlo.compare LE, %418, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_120 = stablehlo.constant dense<1> : tensor<i32>
        %420 = stablehlo.broadcast_in_dim %c_120, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %421 = stablehlo.add %395, %420 : tensor<5xi32>
        %422 = func.call @_where(%419, %421, %395) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %423 = stablehlo.compare LE, %418, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %424 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %425 = stablehlo.minimum %418, %424 : tensor<5xf32>
        %426 = func.call @_where_0(%423, %425, %418) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_121 = stablehlo.constant dense<8> : tensor<i32>
        %427 = stablehlo.add %iterArg_62, %c_121 : tensor<i32>
        %c_122 = stablehlo.constant dense<0> : tensor<i32>
        %428 = stablehlo.compare LT, %427, %c_122, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %429 = stablehlo.convert %427 : tensor<i32>
        %c_123 = stablehlo.constant dense<5> : tensor<i32>
        %430 = stablehlo.add %429, %c_123 : tensor<i32>
        %431 = stablehlo.select %428, %430, %427 : tensor<i1>, tensor<i32>
        %432 = stablehlo.dynamic_slice %iterArg_58, %431, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %433 = stablehlo.reshape %432 : (tensor<1xf32>) -> tensor<f32>
        %c_124 = stablehlo.constant dense<1> : tensor<i32>
        %434 = stablehlo.subtract %427, %c_124 : tensor<i32>
        %c_125 = stablehlo.constant dense<0> : tensor<i32>
        %435 = stablehlo.compare LT, %434, %c_125, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %436 = stablehlo.convert %434 : tensor<i32>
        %c_126 = stablehlo.constant dense<4> : tensor<i32>
        %437 = stablehlo.add %436, %c_126 : tensor<i32>
        %438 = stablehlo.select %435, %437, %434 : tensor<i1>, tensor<i32>
        %439 = stablehlo.dynamic_slice %iterArg_59, %438, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %440 = stablehlo.reshape %439 : (tensor<1xf32>) -> tensor<f32>
        %441 = stablehlo.broadcast_in_dim %440, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %442 = stablehlo.divide %441, %426 : tensor<5xf32>
        %443 = stablehlo.broadcast_in_dim %433, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %444 = stablehlo.subtract %443, %442 : tensor<5xf32>
        %445 = stablehlo.subtract %444, %iterArg_60 : tensor<5xf32>
        %446 = stablehlo.compare LE, %445, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_127 = stablehlo.constant dense<1> : tensor<i32>
        %447 = stablehlo.broadcast_in_dim %c_127, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %448 = stablehlo.add %422, %447 : tensor<5xi32>
        %449 = func.call @_where(%446, %448, %422) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %450 = stablehlo.compare LE, %445, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %451 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %452 = stablehlo.minimum %445, %451 : tensor<5xf32>
        %453 = func.call @_where_0(%450, %452, %445) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_128 = stablehlo.constant dense<9> : tensor<i32>
        %454 = stablehlo.add %iterArg_62, %c_128 : tensor<i32>
        %c_129 = stablehlo.constant dense<0> : tensor<i32>
        %455 = stablehlo.compare LT, %454, %c_129, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %456 = stablehlo.convert %454 : tensor<i32>
        %c_130 = stablehlo.constant dense<5> : tensor<i32>
        %457 = stablehlo.add %456, %c_130 : tensor<i32>
        %458 = stablehlo.select %455, %457, %454 : tensor<i1>, tensor<i32>
        %459 = stablehlo.dynamic_slice %iterArg_58, %458, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %460 = stablehlo.reshape %459 : (tensor<1xf32>) -> tensor<f32>
        %c_131 = stablehlo.constant dense<1> : tensor<i32>
        %461 = stablehlo.subtract %454, %c_131 : tensor<i32>
        %c_132 = stablehlo.constant dense<0> : tensor<i32>
        %462 = stablehlo.compare LT, %461, %c_132, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %463 = stablehlo.convert %461 : tensor<i32>
        %c_133 = stablehlo.constant dense<4> : tensor<i32>
        %464 = stablehlo.add %463, %c_133 : tensor<i32>
        %465 = stablehlo.select %462, %464, %461 : tensor<i1>, tensor<i32>
        %466 = stablehlo.dynamic_slice %iterArg_59, %465, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %467 = stablehlo.reshape %466 : (tensor<1xf32>) -> tensor<f32>
        %468 = stablehlo.broadcast_in_dim %467, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %469 = stablehlo.divide %468, %453 : tensor<5xf32>
        %470 = stablehlo.broadcast_in_dim %460, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %471 = stablehlo.subtract %470, %469 : tensor<5xf32>
        %472 = stablehlo.subtract %471, %iterArg_60 : tensor<5xf32>
        %473 = stablehlo.compare LE, %472, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_134 = stablehlo.constant dense<1> : tensor<i32>
        %474 = stablehlo.broadcast_in_dim %c_134, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %475 = stablehlo.add %449, %474 : tensor<5xi32>
        %476 = func.call @_where(%473, %475, %449) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %477 = stablehlo.compare LE, %472, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %478 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %479 = stablehlo.minimum %472, %478 : tensor<5xf32>
        %480 = func.call @_where_0(%477, %479, %472) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_135 = stablehlo.constant dense<10> : tensor<i32>
        %481 = stablehlo.add %iterArg_62, %c_135 : tensor<i32>
        %c_136 = stablehlo.constant dense<0> : tensor<i32>
        %482 = stablehlo.compare LT, %481, %c_136, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %483 = stablehlo.convert %481 : tensor<i32>
        %c_137 = stablehlo.constant dense<5> : tensor<i32>
        %484 = stablehlo.add %483, %c_137 : tensor<i32>
        %485 = stablehlo.select %482, %484, %481 : tensor<i1>, tensor<i32>
        %486 = stablehlo.dynamic_slice %iterArg_58, %485, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %487 = stablehlo.reshape %486 : (tensor<1xf32>) -> tensor<f32>
        %c_138 = stablehlo.constant dense<1> : tensor<i32>
        %488 = stablehlo.subtract %481, %c_138 : tensor<i32>
        %c_139 = stablehlo.constant dense<0> : tensor<i32>
        %489 = stablehlo.compare LT, %488, %c_139, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %490 = stablehlo.convert %488 : tensor<i32>
        %c_140 = stablehlo.constant dense<4> : tensor<i32>
        %491 = stablehlo.add %490, %c_140 : tensor<i32>
        %492 = stablehlo.select %489, %491, %488 : tensor<i1>, tensor<i32>
        %493 = stablehlo.dynamic_slice %iterArg_59, %492, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %494 = stablehlo.reshape %493 : (tensor<1xf32>) -> tensor<f32>
        %495 = stablehlo.broadcast_in_dim %494, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %496 = stablehlo.divide %495, %480 : tensor<5xf32>
        %497 = stablehlo.broadcast_in_dim %487, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %498 = stablehlo.subtract %497, %496 : tensor<5xf32>
        %499 = stablehlo.subtract %498, %iterArg_60 : tensor<5xf32>
        %500 = stablehlo.compare LE, %499, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_141 = stablehlo.constant dense<1> : tensor<i32>
        %501 = stablehlo.broadcast_in_dim %c_141, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %502 = stablehlo.add %476, %501 : tensor<5xi32>
        %503 = func.call @_where(%500, %502, %476) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %504 = stablehlo.compare LE, %499, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %505 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %506 = stablehlo.minimum %499, %505 : tensor<5xf32>
        %507 = func.call @_where_0(%504, %506, %499) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_142 = stablehlo.constant dense<11> : tensor<i32>
        %508 = stablehlo.add %iterArg_62, %c_142 : tensor<i32>
        %c_143 = stablehlo.constant dense<0> : tensor<i32>
        %509 = stablehlo.compare LT, %508, %c_143, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %510 = stablehlo.convert %508 : tensor<i32>
        %c_144 = stablehlo.constant dense<5> : tensor<i32>
        %511 = stablehlo.add %510, %c_144 : tensor<i32>
        %512 = stablehlo.select %509, %511, %508 : tensor<i1>, tensor<i32>
        %513 = stablehlo.dynamic_slice %iterArg_58, %512, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %514 = stablehlo.reshape %513 : (tensor<1xf32>) -> tensor<f32>
        %c_145 = stablehlo.constant dense<1> : tensor<i32>
        %515 = stablehlo.subtract %508, %c_145 : tensor<i32>
        %c_146 = stablehlo.constant dense<0> : tensor<i32>
        %516 = stablehlo.compare LT, %515, %c_146, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %517 = stablehlo.convert %515 : tensor<i32>
        %c_147 = stablehlo.constant dense<4> : tensor<i32>
        %518 = stablehlo.add %517, %c_147 : tensor<i32>
        %519 = stablehlo.select %516, %518, %515 : tensor<i1>, tensor<i32>
        %520 = stablehlo.dynamic_slice %iterArg_59, %519, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %521 = stablehlo.reshape %520 : (tensor<1xf32>) -> tensor<f32>
        %522 = stablehlo.broadcast_in_dim %521, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %523 = stablehlo.divide %522, %507 : tensor<5xf32>
        %524 = stablehlo.broadcast_in_dim %514, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %525 = stablehlo.subtract %524, %523 : tensor<5xf32>
        %526 = stablehlo.subtract %525, %iterArg_60 : tensor<5xf32>
        %527 = stablehlo.compare LE, %526, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_148 = stablehlo.constant dense<1> : tensor<i32>
        %528 = stablehlo.broadcast_in_dim %c_148, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %529 = stablehlo.add %503, %528 : tensor<5xi32>
        %530 = func.call @_where(%527, %529, %503) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %531 = stablehlo.compare LE, %526, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %532 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %533 = stablehlo.minimum %526, %532 : tensor<5xf32>
        %534 = func.call @_where_0(%531, %533, %526) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_149 = stablehlo.constant dense<12> : tensor<i32>
        %535 = stablehlo.add %iterArg_62, %c_149 : tensor<i32>
        %c_150 = stablehlo.constant dense<0> : tensor<i32>
        %536 = stablehlo.compare LT, %535, %c_150, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %537 = stablehlo.convert %535 : tensor<i32>
        %c_151 = stablehlo.constant dense<5> : tensor<i32>
        %538 = stablehlo.add %537, %c_151 : tensor<i32>
        %539 = stablehlo.select %536, %538, %535 : tensor<i1>, tensor<i32>
        %540 = stablehlo.dynamic_slice %iterArg_58, %539, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %541 = stablehlo.reshape %540 : (tensor<1xf32>) -> tensor<f32>
        %c_152 = stablehlo.constant dense<1> : tensor<i32>
        %542 = stablehlo.subtract %535, %c_152 : tensor<i32>
        %c_153 = stablehlo.constant dense<0> : tensor<i32>
        %543 = stablehlo.compare LT, %542, %c_153, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %544 = stablehlo.convert %542 : tensor<i32>
        %c_154 = stablehlo.constant dense<4> : tensor<i32>
        %545 = stablehlo.add %544, %c_154 : tensor<i32>
        %546 = stablehlo.select %543, %545, %542 : tensor<i1>, tensor<i32>
        %547 = stablehlo.dynamic_slice %iterArg_59, %546, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %548 = stablehlo.reshape %547 : (tensor<1xf32>) -> tensor<f32>
        %549 = stablehlo.broadcast_in_dim %548, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %550 = stablehlo.divide %549, %534 : tensor<5xf32>
        %551 = stablehlo.broadcast_in_dim %541, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %552 = stablehlo.subtract %551, %550 : tensor<5xf32>
        %553 = stablehlo.subtract %552, %iterArg_60 : tensor<5xf32>
        %554 = stablehlo.compare LE, %553, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_155 = stablehlo.constant dense<1> : tensor<i32>
        %555 = stablehlo.broadcast_in_dim %c_155, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %556 = stablehlo.add %530, %555 : tensor<5xi32>
        %557 = func.call @_where(%554, %556, %530) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %558 = stablehlo.compare LE, %553, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %559 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %560 = stablehlo.minimum %553, %559 : tensor<5xf32>
        %561 = func.call @_where_0(%558, %560, %553) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_156 = stablehlo.constant dense<13> : tensor<i32>
        %562 = stablehlo.add %iterArg_62, %c_156 : tensor<i32>
        %c_157 = stablehlo.constant dense<0> : tensor<i32>
        %563 = stablehlo.compare LT, %562, %c_157, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %564 = stablehlo.convert %562 : tensor<i32>
        %c_158 = stablehlo.constant dense<5> : tensor<i32>
        %565 = stablehlo.add %564, %c_158 : tensor<i32>
        %566 = stablehlo.select %563, %565, %562 : tensor<i1>, tensor<i32>
        %567 = stablehlo.dynamic_slice %iterArg_58, %566, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %568 = stablehlo.reshape %567 : (tensor<1xf32>) -> tensor<f32>
        %c_159 = stablehlo.constant dense<1> : tensor<i32>
        %569 = stablehlo.subtract %562, %c_159 : tensor<i32>
        %c_160 = stablehlo.constant dense<0> : tensor<i32>
        %570 = stablehlo.compare LT, %569, %c_160, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %571 = stablehlo.convert %569 : tensor<i32>
        %c_161 = stablehlo.constant dense<4> : tensor<i32>
        %572 = stablehlo.add %571, %c_161 : tensor<i32>
        %573 = stablehlo.select %570, %572, %569 : tensor<i1>, tensor<i32>
        %574 = stablehlo.dynamic_slice %iterArg_59, %573, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %575 = stablehlo.reshape %574 : (tensor<1xf32>) -> tensor<f32>
        %576 = stablehlo.broadcast_in_dim %575, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %577 = stablehlo.divide %576, %561 : tensor<5xf32>
        %578 = stablehlo.broadcast_in_dim %568, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %579 = stablehlo.subtract %578, %577 : tensor<5xf32>
        %580 = stablehlo.subtract %579, %iterArg_60 : tensor<5xf32>
        %581 = stablehlo.compare LE, %580, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_162 = stablehlo.constant dense<1> : tensor<i32>
        %582 = stablehlo.broadcast_in_dim %c_162, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %583 = stablehlo.add %557, %582 : tensor<5xi32>
        %584 = func.call @_where(%581, %583, %557) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %585 = stablehlo.compare LE, %580, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %586 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %587 = stablehlo.minimum %580, %586 : tensor<5xf32>
        %588 = func.call @_where_0(%585, %587, %580) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_163 = stablehlo.constant dense<14> : tensor<i32>
        %589 = stablehlo.add %iterArg_62, %c_163 : tensor<i32>
        %c_164 = stablehlo.constant dense<0> : tensor<i32>
        %590 = stablehlo.compare LT, %589, %c_164, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %591 = stablehlo.convert %589 : tensor<i32>
        %c_165 = stablehlo.constant dense<5> : tensor<i32>
        %592 = stablehlo.add %591, %c_165 : tensor<i32>
        %593 = stablehlo.select %590, %592, %589 : tensor<i1>, tensor<i32>
        %594 = stablehlo.dynamic_slice %iterArg_58, %593, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %595 = stablehlo.reshape %594 : (tensor<1xf32>) -> tensor<f32>
        %c_166 = stablehlo.constant dense<1> : tensor<i32>
        %596 = stablehlo.subtract %589, %c_166 : tensor<i32>
        %c_167 = stablehlo.constant dense<0> : tensor<i32>
        %597 = stablehlo.compare LT, %596, %c_167, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %598 = stablehlo.convert %596 : tensor<i32>
        %c_168 = stablehlo.constant dense<4> : tensor<i32>
        %599 = stablehlo.add %598, %c_168 : tensor<i32>
        %600 = stablehlo.select %597, %599, %596 : tensor<i1>, tensor<i32>
        %601 = stablehlo.dynamic_slice %iterArg_59, %600, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %602 = stablehlo.reshape %601 : (tensor<1xf32>) -> tensor<f32>
        %603 = stablehlo.broadcast_in_dim %602, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %604 = stablehlo.divide %603, %588 : tensor<5xf32>
        %605 = stablehlo.broadcast_in_dim %595, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %606 = stablehlo.subtract %605, %604 : tensor<5xf32>
        %607 = stablehlo.subtract %606, %iterArg_60 : tensor<5xf32>
        %608 = stablehlo.compare LE, %607, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_169 = stablehlo.constant dense<1> : tensor<i32>
        %609 = stablehlo.broadcast_in_dim %c_169, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %610 = stablehlo.add %584, %609 : tensor<5xi32>
        %611 = func.call @_where(%608, %610, %584) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %612 = stablehlo.compare LE, %607, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %613 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %614 = stablehlo.minimum %607, %613 : tensor<5xf32>
        %615 = func.call @_where_0(%612, %614, %607) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_170 = stablehlo.constant dense<15> : tensor<i32>
        %616 = stablehlo.add %iterArg_62, %c_170 : tensor<i32>
        %c_171 = stablehlo.constant dense<0> : tensor<i32>
        %617 = stablehlo.compare LT, %616, %c_171, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %618 = stablehlo.convert %616 : tensor<i32>
        %c_172 = stablehlo.constant dense<5> : tensor<i32>
        %619 = stablehlo.add %618, %c_172 : tensor<i32>
        %620 = stablehlo.select %617, %619, %616 : tensor<i1>, tensor<i32>
        %621 = stablehlo.dynamic_slice %iterArg_58, %620, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %622 = stablehlo.reshape %621 : (tensor<1xf32>) -> tensor<f32>
        %c_173 = stablehlo.constant dense<1> : tensor<i32>
        %623 = stablehlo.subtract %616, %c_173 : tensor<i32>
        %c_174 = stablehlo.constant dense<0> : tensor<i32>
        %624 = stablehlo.compare LT, %623, %c_174, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %625 = stablehlo.convert %623 : tensor<i32>
        %c_175 = stablehlo.constant dense<4> : tensor<i32>
        %626 = stablehlo.add %625, %c_175 : tensor<i32>
        %627 = stablehlo.select %624, %626, %623 : tensor<i1>, tensor<i32>
        %628 = stablehlo.dynamic_slice %iterArg_59, %627, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %629 = stablehlo.reshape %628 : (tensor<1xf32>) -> tensor<f32>
        %630 = stablehlo.broadcast_in_dim %629, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %631 = stablehlo.divide %630, %615 : tensor<5xf32>
        %632 = stablehlo.broadcast_in_dim %622, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %633 = stablehlo.subtract %632, %631 : tensor<5xf32>
        %634 = stablehlo.subtract %633, %iterArg_60 : tensor<5xf32>
        %635 = stablehlo.compare LE, %634, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_176 = stablehlo.constant dense<1> : tensor<i32>
        %636 = stablehlo.broadcast_in_dim %c_176, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %637 = stablehlo.add %611, %636 : tensor<5xi32>
        %638 = func.call @_where(%635, %637, %611) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %639 = stablehlo.compare LE, %634, %iterArg_61, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %640 = stablehlo.negate %iterArg_61 : tensor<5xf32>
        %641 = stablehlo.minimum %634, %640 : tensor<5xf32>
        %642 = func.call @_where_0(%639, %641, %634) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_177 = stablehlo.constant dense<16> : tensor<i32>
        %643 = stablehlo.add %iterArg_62, %c_177 : tensor<i32>
        stablehlo.return %iterArg_58, %iterArg_59, %iterArg_60, %iterArg_61, %643, %642, %638 : tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<5xi32>
      }
      %203 = stablehlo.compare LE, %202#6, %iterArg_43, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
      %204 = func.call @_where_0(%203, %iterArg_46, %iterArg_45) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %205 = stablehlo.compare GT, %202#6, %iterArg_43, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
      %206 = func.call @_where_0(%205, %iterArg_46, %iterArg_47) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %207 = stablehlo.add %204, %206 : tensor<5xf32>
      %cst_56 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %208 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %209 = stablehlo.multiply %208, %207 : tensor<5xf32>
      %c_57 = stablehlo.constant dense<1> : tensor<i32>
      %210 = stablehlo.add %iterArg_44, %c_57 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %210, %204, %209, %206 : tensor<f32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xi32>, tensor<i32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
    }
    %c_15 = stablehlo.constant dense<0> : tensor<i32>
    %48 = call @_pad(%arg1, %c_15) : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %49 = call @_pad_1(%arg1, %c_16) : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
    %50 = stablehlo.slice %47#8 [1:5] : (tensor<5xf32>) -> tensor<4xf32>
    %51 = stablehlo.slice %47#8 [0:4] : (tensor<5xf32>) -> tensor<4xf32>
    %52 = stablehlo.subtract %50, %51 : tensor<4xf32>
    %53 = stablehlo.slice %47#8 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
    %54 = stablehlo.reshape %53 : (tensor<1xf32>) -> tensor<f32>
    %55 = stablehlo.abs %54 : tensor<f32>
    %56 = stablehlo.slice %47#8 [4:5] : (tensor<5xf32>) -> tensor<1xf32>
    %57 = stablehlo.reshape %56 : (tensor<1xf32>) -> tensor<f32>
    %58 = stablehlo.abs %57 : tensor<f32>
    %59 = stablehlo.maximum %55, %58 : tensor<f32>
    %cst_17 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %60 = stablehlo.sqrt %cst_17 : tensor<f32>
    %61 = stablehlo.multiply %60, %59 : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %61, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %63 = stablehlo.compare LT, %52, %62, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %c_18 = stablehlo.constant dense<false> : tensor<i1>
    %64 = call @_pad_2(%63, %c_18) : (tensor<4xi1>, tensor<i1>) -> tensor<5xi1>
    %c_19 = stablehlo.constant dense<false> : tensor<i1>
    %65 = call @_pad_3(%63, %c_19) : (tensor<4xi1>, tensor<i1>) -> tensor<5xi1>
    %66 = stablehlo.not %64 : tensor<5xi1>
    %67 = stablehlo.and %66, %65 : tensor<5xi1>
    %68 = stablehlo.not %65 : tensor<5xi1>
    %69 = stablehlo.and %64, %68 : tensor<5xi1>
    %70 = call @cumsum(%67) : (tensor<5xi1>) -> tensor<5xi32>
    %c_20 = stablehlo.constant dense<0> : tensor<i32>
    %71 = stablehlo.broadcast_in_dim %c_20, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %c_21 = stablehlo.constant dense<0> : tensor<i32>
    %72 = call @clip(%70, %c_21) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    %c_22 = stablehlo.constant dense<0> : tensor<i32>
    %73 = stablehlo.broadcast_in_dim %c_22, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %74 = stablehlo.compare LT, %72, %73, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_23 = stablehlo.constant dense<3> : tensor<i32>
    %75 = stablehlo.broadcast_in_dim %c_23, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %76 = stablehlo.add %72, %75 : tensor<5xi32>
    %77 = stablehlo.select %74, %76, %72 : tensor<5xi1>, tensor<5xi32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %c_24 = stablehlo.constant dense<1> : tensor<i32>
    %79 = stablehlo.broadcast_in_dim %c_24, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %80 = "stablehlo.scatter"(%71, %78, %79) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %120 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %120 : tensor<i32>
    }) : (tensor<3xi32>, tensor<5x1xi32>, tensor<5xi32>) -> tensor<3xi32>
    %81 = call @cumsum_5(%80) : (tensor<3xi32>) -> tensor<3xi32>
    %c_25 = stablehlo.constant dense<1> : tensor<i32>
    %82 = call @floor_divide(%81, %c_25) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %c_26 = stablehlo.constant dense<5> : tensor<i32>
    %83 = call @remainder(%82, %c_26) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %84 = call @cumsum(%69) : (tensor<5xi1>) -> tensor<5xi32>
    %c_27 = stablehlo.constant dense<0> : tensor<i32>
    %85 = stablehlo.broadcast_in_dim %c_27, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %c_28 = stablehlo.constant dense<0> : tensor<i32>
    %86 = call @clip(%84, %c_28) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    %c_29 = stablehlo.constant dense<0> : tensor<i32>
    %87 = stablehlo.broadcast_in_dim %c_29, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %88 = stablehlo.compare LT, %86, %87, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_30 = stablehlo.constant dense<3> : tensor<i32>
    %89 = stablehlo.broadcast_in_dim %c_30, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %90 = stablehlo.add %86, %89 : tensor<5xi32>
    %91 = stablehlo.select %88, %90, %86 : tensor<5xi1>, tensor<5xi32>
    %92 = stablehlo.broadcast_in_dim %91, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %c_31 = stablehlo.constant dense<1> : tensor<i32>
    %93 = stablehlo.broadcast_in_dim %c_31, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %94 = "stablehlo.scatter"(%85, %92, %93) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %120 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %120 : tensor<i32>
    }) : (tensor<3xi32>, tensor<5x1xi32>, tensor<5xi32>) -> tensor<3xi32>
    %95 = call @cumsum_5(%94) : (tensor<3xi32>) -> tensor<3xi32>
    %c_32 = stablehlo.constant dense<1> : tensor<i32>
    %96 = call @floor_divide(%95, %c_32) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %c_33 = stablehlo.constant dense<5> : tensor<i32>
    %97 = call @remainder(%96, %c_33) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    %c_34 = stablehlo.constant dense<1> : tensor<i32>
    %98 = stablehlo.broadcast_in_dim %c_34, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %99 = stablehlo.add %97, %98 : tensor<3xi32>
    %100 = stablehlo.convert %67 : (tensor<5xi1>) -> tensor<5xi32>
    %c_35 = stablehlo.constant dense<0> : tensor<i32>
    %101 = stablehlo.reduce(%100 init: %c_35) applies stablehlo.add across dimensions = [0] : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
    %102 = stablehlo.iota dim = 0 : tensor<5xi32>
    %103 = call @_normal(%6) : (tensor<2xui32>) -> tensor<5x5xf32>
    %104 = call @norm(%103) : (tensor<5x5xf32>) -> tensor<5x1xf32>
    %105 = stablehlo.broadcast_in_dim %104, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %106 = stablehlo.divide %103, %105 : tensor<5x5xf32>
    %107 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %108 = stablehlo.broadcast_in_dim %47#8, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %109 = stablehlo.broadcast_in_dim %107, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %110 = stablehlo.broadcast_in_dim %108, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %111 = stablehlo.subtract %109, %110 : tensor<5x5xf32>
    %112 = stablehlo.broadcast_in_dim %48, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %113 = stablehlo.broadcast_in_dim %112, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %114 = stablehlo.broadcast_in_dim %49, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %115 = stablehlo.broadcast_in_dim %114, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c_38 = stablehlo.constant dense<0> : tensor<i32>
    %118:11 = stablehlo.while(%iterArg = %113, %iterArg_39 = %111, %iterArg_40 = %115, %iterArg_41 = %83, %iterArg_42 = %99, %iterArg_43 = %102, %iterArg_44 = %101, %iterArg_45 = %c_38, %iterArg_46 = %106, %iterArg_47 = %116, %iterArg_48 = %117) : tensor<5x5xf32>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<3xi32>, tensor<3xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>
    cond {
      %c_49 = stablehlo.constant dense<5> : tensor<i32>
      %120 = stablehlo.compare LT, %iterArg_45, %c_49, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %cst_50 = stablehlo.constant dense<1.100000e+00> : tensor<f32>
      %121 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %122 = stablehlo.multiply %121, %iterArg_48 : tensor<5xf32>
      %123 = stablehlo.compare GE, %iterArg_47, %122, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_51 = stablehlo.constant dense<false> : tensor<i1>
      %124 = stablehlo.reduce(%123 init: %c_51) applies stablehlo.or across dimensions = [0] : (tensor<5xi1>, tensor<i1>) -> tensor<i1>
      %c_52 = stablehlo.constant dense<false> : tensor<i1>
      %125 = stablehlo.broadcast_in_dim %c_52, dims = [] : (tensor<i1>) -> tensor<i1>
      %126 = stablehlo.compare NE, %120, %125, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %127 = stablehlo.convert %126 : tensor<i1>
      %128 = stablehlo.and %127, %124 : tensor<i1>
      stablehlo.return %128 : tensor<i1>
    } do {
      %120 = stablehlo.broadcast_in_dim %iterArg_46, dims = [0, 1] : (tensor<5x5xf32>) -> tensor<5x5x1xf32>
      %121 = stablehlo.custom_call @tridiagonal_solve_perturbed_ffi(%iterArg, %iterArg_39, %iterArg_40, %120) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, k], [i, l], [i, m, n])->([i, o, p]) {i=5, j=5, k=5, l=5, m=5, n=1, o=5, p=1}, custom>} : (tensor<5x5xf32>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<5x5x1xf32>) -> tensor<5x5x1xf32>
      %122 = stablehlo.reshape %121 : (tensor<5x5x1xf32>) -> tensor<5x5xf32>
      %123 = func.call @norm_9(%122) : (tensor<5x5xf32>) -> tensor<5x1xf32>
      %124 = stablehlo.broadcast_in_dim %123, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
      %125 = stablehlo.divide %122, %124 : tensor<5x5xf32>
      %126 = stablehlo.reshape %123 : (tensor<5x1xf32>) -> tensor<5xf32>
      %c_49 = stablehlo.constant dense<0> : tensor<i32>
      %127:6 = stablehlo.while(%iterArg_51 = %iterArg_41, %iterArg_52 = %iterArg_42, %iterArg_53 = %iterArg_43, %iterArg_54 = %c_49, %iterArg_55 = %iterArg_44, %iterArg_56 = %125) : tensor<3xi32>, tensor<3xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5x5xf32>
      cond {
        %129 = stablehlo.compare LT, %iterArg_54, %iterArg_55, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %129 : tensor<i1>
      } do {
        %c_57 = stablehlo.constant dense<1> : tensor<i32>
        %129 = stablehlo.add %iterArg_54, %c_57 : tensor<i32>
        %c_58 = stablehlo.constant dense<0> : tensor<i32>
        %130 = stablehlo.compare LT, %iterArg_54, %c_58, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %131 = stablehlo.convert %iterArg_54 : tensor<i32>
        %c_59 = stablehlo.constant dense<3> : tensor<i32>
        %132 = stablehlo.add %131, %c_59 : tensor<i32>
        %133 = stablehlo.select %130, %132, %iterArg_54 : tensor<i1>, tensor<i32>
        %134 = stablehlo.dynamic_slice %iterArg_51, %133, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
        %135 = stablehlo.reshape %134 : (tensor<1xi32>) -> tensor<i32>
        %c_60 = stablehlo.constant dense<0> : tensor<i32>
        %136 = stablehlo.compare LT, %iterArg_54, %c_60, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %137 = stablehlo.convert %iterArg_54 : tensor<i32>
        %c_61 = stablehlo.constant dense<3> : tensor<i32>
        %138 = stablehlo.add %137, %c_61 : tensor<i32>
        %139 = stablehlo.select %136, %138, %iterArg_54 : tensor<i1>, tensor<i32>
        %140 = stablehlo.dynamic_slice %iterArg_52, %139, sizes = [1] : (tensor<3xi32>, tensor<i32>) -> tensor<1xi32>
        %141 = stablehlo.reshape %140 : (tensor<1xi32>) -> tensor<i32>
        %142 = stablehlo.subtract %141, %135 : tensor<i32>
        %c_62 = stablehlo.constant dense<0> : tensor<i32>
        %143 = func.call @_pad_10(%iterArg_56, %c_62) : (tensor<5x5xf32>, tensor<i32>) -> tensor<10x5xf32>
        %c_63 = stablehlo.constant dense<0> : tensor<i32>
        %144 = stablehlo.compare LT, %135, %c_63, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %c_64 = stablehlo.constant dense<10> : tensor<i32>
        %145 = stablehlo.add %135, %c_64 : tensor<i32>
        %146 = stablehlo.select %144, %145, %135 : tensor<i1>, tensor<i32>
        %c_65 = stablehlo.constant dense<0> : tensor<i32>
        %147 = stablehlo.dynamic_slice %143, %146, %c_65, sizes = [5, 5] : (tensor<10x5xf32>, tensor<i32>, tensor<i32>) -> tensor<5x5xf32>
        %148 = stablehlo.broadcast_in_dim %142, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %149 = stablehlo.compare LT, %iterArg_53, %148, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
        %150 = stablehlo.convert %149 : (tensor<5xi1>) -> tensor<5xf32>
        %151 = stablehlo.broadcast_in_dim %150, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
        %152 = stablehlo.broadcast_in_dim %151, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
        %153 = stablehlo.multiply %147, %152 : tensor<5x5xf32>
        %154 = stablehlo.transpose %153, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
        %155:2 = func.call @qr(%154) : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>)
        %156 = stablehlo.transpose %155#0, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
        %157 = stablehlo.broadcast_in_dim %150, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
        %158 = stablehlo.broadcast_in_dim %157, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
        %159 = stablehlo.multiply %156, %158 : tensor<5x5xf32>
        %cst_66 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
        %160 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<10x5xf32>
        %c_67 = stablehlo.constant dense<0> : tensor<i32>
        %161 = stablehlo.compare LT, %135, %c_67, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %c_68 = stablehlo.constant dense<10> : tensor<i32>
        %162 = stablehlo.add %135, %c_68 : tensor<i32>
        %163 = stablehlo.select %161, %162, %135 : tensor<i1>, tensor<i32>
        %c_69 = stablehlo.constant dense<0> : tensor<i32>
        %164 = stablehlo.dynamic_update_slice %160, %159, %163, %c_69 : (tensor<10x5xf32>, tensor<5x5xf32>, tensor<i32>, tensor<i32>) -> tensor<10x5xf32>
        %165 = stablehlo.slice %164 [0:5, 0:5] : (tensor<10x5xf32>) -> tensor<5x5xf32>
        %166 = stablehlo.broadcast_in_dim %135, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %167 = stablehlo.compare GE, %iterArg_53, %166, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
        %168 = stablehlo.broadcast_in_dim %141, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %169 = stablehlo.compare LT, %iterArg_53, %168, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
        %170 = stablehlo.and %167, %169 : tensor<5xi1>
        %171 = stablehlo.broadcast_in_dim %170, dims = [0] : (tensor<5xi1>) -> tensor<5x1xi1>
        %172 = func.call @_where_11(%171, %165, %iterArg_56) : (tensor<5x1xi1>, tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
        stablehlo.return %iterArg_51, %iterArg_52, %iterArg_53, %129, %iterArg_55, %172 : tensor<3xi32>, tensor<3xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5x5xf32>
      }
      %c_50 = stablehlo.constant dense<1> : tensor<i32>
      %128 = stablehlo.add %iterArg_45, %c_50 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_39, %iterArg_40, %iterArg_41, %iterArg_42, %iterArg_43, %iterArg_44, %128, %127#5, %126, %iterArg_47 : tensor<5x5xf32>, tensor<5x5xf32>, tensor<5x5xf32>, tensor<3xi32>, tensor<3xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>
    }
    %119 = stablehlo.transpose %118#8, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    return %47#8, %119 : tensor<5xf32>, tensor<5x5xf32>
  }
  func.func private @_where(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>, %arg2: tensor<5xi32>) -> tensor<5xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xi32>
    return %0 : tensor<5xi32>
  }
  func.func private @_where_0(%arg0: tensor<5xi1>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @_pad(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1], high = [0], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  }
  func.func private @_pad_1(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  }
  func.func private @_pad_2(%arg0: tensor<4xi1>, %arg1: tensor<i1>) -> tensor<5xi1> {
    %0 = stablehlo.pad %arg0, %arg1, low = [1], high = [0], interior = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<5xi1>
    return %0 : tensor<5xi1>
  }
  func.func private @_pad_3(%arg0: tensor<4xi1>, %arg1: tensor<i1>) -> tensor<5xi1> {
    %0 = stablehlo.pad %arg0, %arg1, low = [0], high = [1], interior = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<5xi1>
    return %0 : tensor<5xi1>
  }
  func.func private @cumsum(%arg0: tensor<5xi1>) -> tensor<5xi32> {
    %0 = stablehlo.convert %arg0 : (tensor<5xi1>) -> tensor<5xi32>
    %1 = call @cumsum_4(%0) : (tensor<5xi32>) -> tensor<5xi32>
    return %1 : tensor<5xi32>
  }
  func.func private @cumsum_4(%arg0: tensor<5xi32>) -> tensor<5xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[4, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 5>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    return %1 : tensor<5xi32>
  }
  func.func private @clip(%arg0: tensor<5xi32>, %arg1: tensor<i32>) -> tensor<5xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<5xi32>
    return %2 : tensor<5xi32>
  }
  func.func private @cumsum_5(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %0 = call @cumsum_6(%arg0) : (tensor<3xi32>) -> tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  func.func private @cumsum_6(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[2, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
    return %1 : tensor<3xi32>
  }
  func.func private @floor_divide(%arg0: tensor<3xi32>, %arg1: tensor<i32>) -> tensor<3xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %1 = stablehlo.divide %arg0, %0 : tensor<3xi32>
    %2 = stablehlo.sign %arg0 : tensor<3xi32>
    %3 = stablehlo.sign %arg1 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %7 = stablehlo.remainder %arg0, %6 : tensor<3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %10 = stablehlo.and %5, %9 : tensor<3xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %12 = stablehlo.subtract %1, %11 : tensor<3xi32>
    %13 = call @_where_7(%10, %12, %1) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    return %13 : tensor<3xi32>
  }
  func.func private @_where_7(%arg0: tensor<3xi1>, %arg1: tensor<3xi32>, %arg2: tensor<3xi32>) -> tensor<3xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3xi1>, tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  func.func private @remainder(%arg0: tensor<3xi32>, %arg1: tensor<i32>) -> tensor<3xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where_8(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<3xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<3xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    %12 = stablehlo.and %11, %6 : tensor<3xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %14 = stablehlo.add %4, %13 : tensor<3xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<3xi1>, tensor<3xi32>
    return %15 : tensor<3xi32>
  }
  func.func private @_where_8(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_normal(%arg0: tensor<2xui32>) -> tensor<5x5xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<2xui32>) -> tensor<5x5xf32>
    return %0 : tensor<5x5xf32>
  }
  func.func private @_normal_real(%arg0: tensor<2xui32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<5x5xf32>
    %1 = chlo.erf_inv %0 : tensor<5x5xf32> -> tensor<5x5xf32>
    %cst_1 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<5x5xf32>
    return %3 : tensor<5x5xf32>
  }
  func.func private @_uniform(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<5x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.iota dim = 0 : tensor<5x5xui64>
    %7 = stablehlo.iota dim = 1 : tensor<5x5xui64>
    %c = stablehlo.constant dense<5> : tensor<ui64>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<5x5xui64>
    %9 = stablehlo.multiply %8, %6 : tensor<5x5xui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<5x5xui64>
    %11 = stablehlo.multiply %10, %7 : tensor<5x5xui64>
    %12 = stablehlo.add %9, %11 : tensor<5x5xui64>
    %c_1 = stablehlo.constant dense<32> : tensor<ui64>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<5x5xui64>
    %14 = stablehlo.shift_right_logical %12, %13 : tensor<5x5xui64>
    %15 = stablehlo.convert %12 : (tensor<5x5xui64>) -> tensor<5x5xui32>
    %16 = stablehlo.convert %14 : (tensor<5x5xui64>) -> tensor<5x5xui32>
    %17:2 = call @threefry2x32(%3, %5, %16, %15) : (tensor<ui32>, tensor<ui32>, tensor<5x5xui32>, tensor<5x5xui32>) -> (tensor<5x5xui32>, tensor<5x5xui32>)
    %18 = stablehlo.xor %17#0, %17#1 : tensor<5x5xui32>
    %c_2 = stablehlo.constant dense<9> : tensor<ui32>
    %19 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %20 = stablehlo.shift_right_logical %18, %19 : tensor<5x5xui32>
    %c_3 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %21 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %22 = stablehlo.or %20, %21 : tensor<5x5xui32>
    %23 = stablehlo.bitcast_convert %22 : (tensor<5x5xui32>) -> tensor<5x5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %25 = stablehlo.subtract %23, %24 : tensor<5x5xf32>
    %26 = stablehlo.subtract %1, %0 : tensor<1x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<5x5xf32>
    %28 = stablehlo.multiply %25, %27 : tensor<5x5xf32>
    %29 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<5x5xf32>
    %30 = stablehlo.add %28, %29 : tensor<5x5xf32>
    %31 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<5x5xf32>
    %32 = stablehlo.maximum %31, %30 : tensor<5x5xf32>
    return %32 : tensor<5x5xf32>
  }
  func.func private @threefry2x32(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<5x5xui32>, %arg3: tensor<5x5xui32>) -> (tensor<5x5xui32>, tensor<5x5xui32>) {
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_0 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<ui32>
    %c_1 = stablehlo.constant dense<466688986> : tensor<ui32>
    %1 = stablehlo.xor %0, %c_1 : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %3 = stablehlo.add %arg2, %2 : tensor<5x5xui32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %5 = stablehlo.add %arg3, %4 : tensor<5x5xui32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %6:9 = stablehlo.while(%iterArg = %c_3, %iterArg_4 = %c_2, %iterArg_5 = %3, %iterArg_6 = %5, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %c_0) : tensor<i32>, tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %c_12 = stablehlo.constant dense<5> : tensor<i32>
      %7 = stablehlo.compare LT, %iterArg, %c_12, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %7:8 = func.call @closed_call(%iterArg_4, %iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11) : (tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %c_12 = stablehlo.constant dense<1> : tensor<i32>
      %8 = stablehlo.add %iterArg, %c_12 : tensor<i32>
      stablehlo.return %8, %7#0, %7#1, %7#2, %7#3, %7#4, %7#5, %7#6, %7#7 : tensor<i32>, tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %6#2, %6#3 : tensor<5x5xui32>, tensor<5x5xui32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<5x5xui32>, %arg2: tensor<5x5xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<5x5xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<5x5xui32>
    %c_0 = stablehlo.constant dense<32> : tensor<ui32>
    %6 = stablehlo.subtract %c_0, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<5x5xui32>
    %9 = stablehlo.or %5, %8 : tensor<5x5xui32>
    %10 = stablehlo.xor %3, %9 : tensor<5x5xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<5x5xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<5x5xui32>
    %c_1 = stablehlo.constant dense<32> : tensor<ui32>
    %16 = stablehlo.subtract %c_1, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<5x5xui32>
    %19 = stablehlo.or %15, %18 : tensor<5x5xui32>
    %20 = stablehlo.xor %13, %19 : tensor<5x5xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<5x5xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<5x5xui32>
    %c_2 = stablehlo.constant dense<32> : tensor<ui32>
    %26 = stablehlo.subtract %c_2, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<5x5xui32>
    %29 = stablehlo.or %25, %28 : tensor<5x5xui32>
    %30 = stablehlo.xor %23, %29 : tensor<5x5xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<5x5xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<5x5xui32>
    %c_3 = stablehlo.constant dense<32> : tensor<ui32>
    %36 = stablehlo.subtract %c_3, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<5x5xui32>
    %39 = stablehlo.or %35, %38 : tensor<5x5xui32>
    %40 = stablehlo.xor %33, %39 : tensor<5x5xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %42 = stablehlo.add %33, %41 : tensor<5x5xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %44 = stablehlo.add %40, %43 : tensor<5x5xui32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %45 = stablehlo.add %arg0, %c_4 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<5x5xui32>
    %48 = stablehlo.add %44, %47 : tensor<5x5xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<5x5xui32>, tensor<5x5xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @norm(%arg0: tensor<5x5xf32>) -> tensor<5x1xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<5x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %3 = stablehlo.sqrt %2 : tensor<5x1xf32>
    return %3 : tensor<5x1xf32>
  }
  func.func private @norm_9(%arg0: tensor<5x5xf32>) -> tensor<5x1xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<5x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %3 = stablehlo.sqrt %2 : tensor<5x1xf32>
    return %3 : tensor<5x1xf32>
  }
  func.func private @_pad_10(%arg0: tensor<5x5xf32>, %arg1: tensor<i32>) -> tensor<10x5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [5, 0], interior = [0, 0] : (tensor<5x5xf32>, tensor<f32>) -> tensor<10x5xf32>
    return %1 : tensor<10x5xf32>
  }
  func.func private @qr(%arg0: tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>) {
    %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m]) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5xf32>)
    %1 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=5, j=5, k=5, l=5, m=5}, custom>} : (tensor<5x5xf32>, tensor<5xf32>) -> tensor<5x5xf32>
    %2 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %4 = stablehlo.add %2, %3 : tensor<5x5xi32>
    %5 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %8 = stablehlo.select %6, %7, %0#0 : tensor<5x5xi1>, tensor<5x5xf32>
    return %1, %8 : tensor<5x5xf32>, tensor<5x5xf32>
  }
  func.func private @_where_11(%arg0: tensor<5x1xi1>, %arg1: tensor<5x5xf32>, %arg2: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<5x1xi1>) -> tensor<5x5xi1>
    %1 = stablehlo.select %0, %arg1, %arg2 : tensor<5x5xi1>, tensor<5x5xf32>
    return %1 : tensor<5x5xf32>
  }
}
