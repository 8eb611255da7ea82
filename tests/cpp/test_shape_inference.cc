// Result-shape inference: every opcode's rule and every way it refuses.
#include "ir/shape_inference.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace xffi {
namespace {

constexpr ElementType F32 = ElementType::kF32;
constexpr ElementType S32 = ElementType::kS32;
constexpr ElementType PRED = ElementType::kPred;

Shape A(ElementType type, std::vector<int64_t> dims) {
  return Shape::Array(type, std::move(dims));
}
Shape S(ElementType type) { return Shape::Scalar(type); }

class ShapeInferenceTest : public ::testing::Test {
 protected:
  ShapeInferenceTest() {
    main_ = module_.AddComputation(std::make_unique<Computation>("main"));
  }

  Instruction* Value(const Shape& shape) {
    Instruction* param = main_->AddInstruction(Opcode::kParameter, shape);
    param->parameter_number = next_parameter_++;
    return param;
  }

  // `opcode` over fresh values of `operand_shapes`, with `declared` as its
  // own shape (what the builder or a parser would set).
  Instruction* Make(Opcode opcode, const std::vector<Shape>& operand_shapes,
                    Shape declared = Shape()) {
    std::vector<Instruction*> operands;
    for (const Shape& shape : operand_shapes) operands.push_back(Value(shape));
    return main_->AddInstruction(opcode, declared, operands);
  }

  // A region with parameters of `params` whose root has shape `root`
  // (inference reads only the signature).
  Computation* Region(std::string name, const std::vector<Shape>& params,
                      const Shape& root) {
    auto region = std::make_unique<Computation>(std::move(name));
    for (size_t i = 0; i < params.size(); ++i) {
      Instruction* param =
          region->AddInstruction(Opcode::kParameter, params[i]);
      param->parameter_number = static_cast<int64_t>(i);
    }
    region->set_root(region->AddInstruction(Opcode::kConstant, root));
    return module_.AddComputation(std::move(region));
  }

  // The inferred shape's text, or "ERROR " and the message.
  static std::string Infer(const Instruction* instruction) {
    StatusOr<Shape> shape = InferShape(*instruction);
    if (!shape.ok()) {
      EXPECT_EQ(shape.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
      return "ERROR " + shape.status().message();
    }
    return shape->ToString();
  }

  Module module_;
  Computation* main_;
  int64_t next_parameter_ = 0;
};

TEST_F(ShapeInferenceTest, ElementwiseUnary) {
  EXPECT_EQ(Infer(Make(Opcode::kExp, {A(F32, {2, 3})})), "f32[2,3]");
  EXPECT_EQ(Infer(Make(Opcode::kNegate, {A(S32, {4})})), "s32[4]");
  EXPECT_EQ(Infer(Make(Opcode::kAbs, {A(ElementType::kC64, {2})})), "f32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kAbs, {A(ElementType::kS8, {2})})), "s8[2]");
  EXPECT_EQ(Infer(Make(Opcode::kReal, {A(ElementType::kC128, {})})), "f64[]");
  EXPECT_EQ(Infer(Make(Opcode::kImag, {A(ElementType::kC64, {3})})), "f32[3]");
  EXPECT_EQ(Infer(Make(Opcode::kReal, {A(F32, {3})})), "f32[3]");
  EXPECT_EQ(Infer(Make(Opcode::kIsFinite, {A(ElementType::kBF16, {5})})),
            "pred[5]");
  EXPECT_EQ(Infer(Make(Opcode::kPopulationCount, {A(ElementType::kU16, {2})})),
            "u16[2]");
  EXPECT_EQ(Infer(Make(Opcode::kClz, {A(S32, {})})), "s32[]");
  EXPECT_EQ(Infer(Make(Opcode::kNot, {A(PRED, {2})})), "pred[2]");
  EXPECT_EQ(Infer(Make(Opcode::kSqrt, {A(ElementType::kC64, {2})})), "c64[2]");
  EXPECT_EQ(Infer(Make(Opcode::kErfInv, {A(F32, {2})})), "f32[2]");

  EXPECT_EQ(Infer(Make(Opcode::kFloor, {A(S32, {2})})),
            "ERROR floor: operand 0 must be floating-point, got s32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kNot, {A(F32, {2})})),
            "ERROR not: operand 0 must be pred, signed integer or unsigned "
            "integer, got f32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kClz, {A(F32, {})})),
            "ERROR count-leading-zeros: operand 0 must be signed integer or "
            "unsigned integer, got f32[]");
  EXPECT_EQ(Infer(Make(Opcode::kIsFinite, {A(S32, {})})),
            "ERROR is-finite: operand 0 must be floating-point, got s32[]");
  EXPECT_EQ(
      Infer(Make(Opcode::kLog, {A(S32, {})})),
      "ERROR log: operand 0 must be floating-point or complex, got s32[]");
  EXPECT_EQ(Infer(Make(Opcode::kExp, {A(F32, {2}), A(F32, {2})})),
            "ERROR exponential: takes 1 operand, got 2");
  EXPECT_EQ(Infer(Make(Opcode::kExp, {Shape::Token()})),
            "ERROR exponential: operand 0 must be an array, got token[]");
}

TEST_F(ShapeInferenceTest, ElementwiseBinaryNeedsIdenticalShapes) {
  EXPECT_EQ(Infer(Make(Opcode::kAdd, {A(F32, {2, 3}), A(F32, {2, 3})})),
            "f32[2,3]");
  EXPECT_EQ(Infer(Make(Opcode::kAnd, {A(PRED, {4}), A(PRED, {4})})), "pred[4]");
  EXPECT_EQ(Infer(Make(Opcode::kShiftLeft,
                       {A(ElementType::kU8, {4}), A(ElementType::kU8, {4})})),
            "u8[4]");
  EXPECT_EQ(Infer(Make(Opcode::kComplex, {A(F32, {2}), A(F32, {2})})),
            "c64[2]");
  EXPECT_EQ(Infer(Make(Opcode::kComplex,
                       {A(ElementType::kF64, {}), A(ElementType::kF64, {})})),
            "c128[]");
  // Layouts do not change the result (which has none).
  EXPECT_EQ(Infer(Make(Opcode::kMultiply,
                       {Shape::Array(F32, {2, 3}, {0, 1}), A(F32, {2, 3})})),
            "f32[2,3]");

  EXPECT_EQ(Infer(Make(Opcode::kAdd, {A(F32, {2}), A(F32, {3})})),
            "ERROR add: operands 0 and 1 must have the same shape, got f32[2] "
            "and f32[3]");
  EXPECT_EQ(Infer(Make(Opcode::kAdd, {A(F32, {2}), A(F32, {})})),
            "ERROR add: operands 0 and 1 must have the same shape, got f32[2] "
            "and f32[]");
  EXPECT_EQ(Infer(Make(Opcode::kSubtract, {A(F32, {2}), A(S32, {2})})),
            "ERROR subtract: operands 0 and 1 must have the same shape, got "
            "f32[2] and s32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kShiftRightLogical, {A(F32, {}), A(F32, {})})),
            "ERROR shift-right-logical: operand 0 must be signed integer or "
            "unsigned integer, got f32[]");
  EXPECT_EQ(Infer(Make(Opcode::kComplex,
                       {A(ElementType::kF16, {}), A(ElementType::kF16, {})})),
            "ERROR complex: parts must be f32 or f64, got f16");
  EXPECT_EQ(Infer(Make(Opcode::kAdd, {A(F32, {})})),
            "ERROR add: takes 2 operands, got 1");
}

TEST_F(ShapeInferenceTest, CompareGivesPred) {
  Instruction* lt = Make(Opcode::kCompare, {A(F32, {3}), A(F32, {3})});
  lt->comparison_direction = ComparisonDirection::kLt;
  EXPECT_EQ(Infer(lt), "pred[3]");
  lt->comparison_type = ComparisonType::kTotalOrder;
  EXPECT_EQ(Infer(lt), "pred[3]");

  Instruction* signed_floats = Make(Opcode::kCompare, {A(F32, {}), A(F32, {})});
  signed_floats->comparison_type = ComparisonType::kSigned;
  EXPECT_EQ(Infer(signed_floats),
            "ERROR compare: comparison type SIGNED does not apply to f32 "
            "operands");
  Instruction* float_ints = Make(Opcode::kCompare, {A(S32, {}), A(S32, {})});
  float_ints->comparison_type = ComparisonType::kFloat;
  EXPECT_EQ(Infer(float_ints),
            "ERROR compare: comparison type FLOAT does not apply to s32 "
            "operands");
  Instruction* unsigned_preds =
      Make(Opcode::kCompare, {A(PRED, {}), A(PRED, {})});
  unsigned_preds->comparison_type = ComparisonType::kUnsigned;
  EXPECT_EQ(Infer(unsigned_preds), "pred[]");
}

TEST_F(ShapeInferenceTest, SelectAndClamp) {
  EXPECT_EQ(Infer(Make(Opcode::kSelect,
                       {A(PRED, {2, 3}), A(F32, {2, 3}), A(F32, {2, 3})})),
            "f32[2,3]");
  EXPECT_EQ(Infer(Make(Opcode::kSelect,
                       {A(PRED, {}), A(S32, {2, 3}), A(S32, {2, 3})})),
            "s32[2,3]");
  EXPECT_EQ(Infer(Make(Opcode::kSelect,
                       {A(PRED, {3}), A(F32, {2, 3}), A(F32, {2, 3})})),
            "ERROR select: predicate pred[3] must be a scalar or match the "
            "selected values' shape f32[2,3]");
  EXPECT_EQ(
      Infer(Make(Opcode::kSelect, {A(S32, {}), A(F32, {2}), A(F32, {2})})),
      "ERROR select: predicate (operand 0) must be pred, got s32[]");
  EXPECT_EQ(
      Infer(Make(Opcode::kSelect, {A(PRED, {}), A(F32, {2}), A(F32, {3})})),
      "ERROR select: operands 1 and 2 must have the same shape, got f32[2] "
      "and f32[3]");

  EXPECT_EQ(Infer(Make(Opcode::kClamp, {A(F32, {}), A(F32, {4}), A(F32, {})})),
            "f32[4]");
  EXPECT_EQ(
      Infer(Make(Opcode::kClamp, {A(F32, {4}), A(F32, {4}), A(F32, {4})})),
      "f32[4]");
  EXPECT_EQ(Infer(Make(Opcode::kClamp, {A(F32, {}), A(F32, {4}), A(F32, {3})})),
            "ERROR clamp: max f32[3] must be a scalar or the operand's shape "
            "f32[4]");
  EXPECT_EQ(
      Infer(Make(Opcode::kClamp, {A(S32, {}), A(F32, {4}), A(F32, {})})),
      "ERROR clamp: min s32[] must be a scalar or the operand's shape f32[4]");
}

TEST_F(ShapeInferenceTest, ConvertAndBitcastConvert) {
  EXPECT_EQ(Infer(Make(Opcode::kConvert, {A(F32, {2, 3})}, S(S32))),
            "s32[2,3]");
  EXPECT_EQ(Infer(Make(Opcode::kConvert, {A(F32, {2})}, Shape())),
            "ERROR convert: the result element type must be an array type, "
            "got invalid[]");
  EXPECT_EQ(Infer(Make(Opcode::kBitcastConvert, {A(F32, {4})}, S(S32))),
            "s32[4]");
  // Narrower: a new minor dimension; wider: the last dimension goes away.
  EXPECT_EQ(
      Infer(Make(Opcode::kBitcastConvert, {A(F32, {4})}, S(ElementType::kU8))),
      "u8[4,4]");
  EXPECT_EQ(Infer(Make(Opcode::kBitcastConvert, {A(ElementType::kU8, {2, 4})},
                       S(F32))),
            "f32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kBitcastConvert, {A(ElementType::kU8, {2, 3})},
                       S(F32))),
            "ERROR bitcast-convert: converting u8[2,3] to f32 needs a last "
            "dimension of size 4");
}

TEST_F(ShapeInferenceTest, Iota) {
  Instruction* iota = Make(Opcode::kIota, {}, A(S32, {4, 5}));
  iota->dimensions = {1};
  EXPECT_EQ(Infer(iota), "s32[4,5]");
  iota->dimensions = {2};
  EXPECT_EQ(Infer(iota),
            "ERROR iota: iota dimension 2 is out of range for rank 2");
  Instruction* pred_iota = Make(Opcode::kIota, {}, A(PRED, {4}));
  pred_iota->dimensions = {0};
  EXPECT_EQ(Infer(pred_iota),
            "ERROR iota: the result must be numeric, got pred[4]");
}

TEST_F(ShapeInferenceTest, BroadcastInDim) {
  Instruction* row = Make(Opcode::kBroadcast, {A(F32, {3})}, A(F32, {2, 3}));
  row->dimensions = {1};
  EXPECT_EQ(Infer(row), "f32[2,3]");
  Instruction* expand =
      Make(Opcode::kBroadcast, {A(F32, {1, 3})}, A(F32, {4, 3}));
  expand->dimensions = {0, 1};
  EXPECT_EQ(Infer(expand), "f32[4,3]");
  Instruction* scalar = Make(Opcode::kBroadcast, {A(F32, {})}, A(F32, {2, 2}));
  EXPECT_EQ(Infer(scalar), "f32[2,2]");

  Instruction* bad_size =
      Make(Opcode::kBroadcast, {A(F32, {3})}, A(F32, {3, 2}));
  bad_size->dimensions = {1};
  EXPECT_EQ(Infer(bad_size),
            "ERROR broadcast: operand dimension 0 has size 3, result "
            "dimension 1 has size 2 (sizes must match or the operand's be 1)");
  Instruction* bad_count =
      Make(Opcode::kBroadcast, {A(F32, {3})}, A(F32, {2, 3}));
  EXPECT_EQ(Infer(bad_count),
            "ERROR broadcast: has 0 broadcast dimensions for operand f32[3] "
            "of rank 1");
  Instruction* out_of_range =
      Make(Opcode::kBroadcast, {A(F32, {3})}, A(F32, {2, 3}));
  out_of_range->dimensions = {2};
  EXPECT_EQ(Infer(out_of_range),
            "ERROR broadcast: broadcast dimensions {2}: dimension 2 is out of "
            "range for rank 2");
}

TEST_F(ShapeInferenceTest, ReshapeKeepsTheElementCount) {
  EXPECT_EQ(Infer(Make(Opcode::kReshape, {A(F32, {2, 3})}, A(F32, {3, 2}))),
            "f32[3,2]");
  EXPECT_EQ(Infer(Make(Opcode::kReshape, {A(F32, {1})}, A(F32, {}))), "f32[]");
  EXPECT_EQ(Infer(Make(Opcode::kReshape, {A(F32, {2, 3})}, A(F32, {4, 2}))),
            "ERROR reshape: operand f32[2,3] has 6 elements, result f32[4,2] "
            "has 8");
}

TEST_F(ShapeInferenceTest, Transpose) {
  Instruction* t = Make(Opcode::kTranspose, {A(F32, {2, 3, 4})});
  t->dimensions = {2, 0, 1};
  EXPECT_EQ(Infer(t), "f32[4,2,3]");
  t->dimensions = {0, 0, 1};
  EXPECT_EQ(Infer(t),
            "ERROR transpose: permutation {0,0,1} repeat dimension 0");
  t->dimensions = {1, 0};
  EXPECT_EQ(Infer(t),
            "ERROR transpose: permutation {1,0} does not have rank 3 of "
            "operand f32[2,3,4]");
}

TEST_F(ShapeInferenceTest, Slice) {
  Instruction* s = Make(Opcode::kSlice, {A(F32, {10, 8})});
  s->slice_starts = {1, 0};
  s->slice_limits = {9, 8};
  s->slice_strides = {3, 2};
  EXPECT_EQ(Infer(s), "f32[3,4]");  // rows 1, 4, 7; columns 0, 2, 4, 6
  s->slice_limits = {11, 8};
  EXPECT_EQ(Infer(s),
            "ERROR slice: dimension 0 of size 10 cannot be sliced [1, 11)");
  s->slice_limits = {9, 8};
  s->slice_strides = {0, 1};
  EXPECT_EQ(Infer(s), "ERROR slice: stride 0 in dimension 0 must be positive");
  s->slice_strides = {1};
  EXPECT_EQ(Infer(s),
            "ERROR slice: starts {1,0}, limits {9,8} and strides {1} must "
            "each have rank 2 of operand f32[10,8]");
}

TEST_F(ShapeInferenceTest, DynamicSliceAndUpdate) {
  Instruction* ds =
      Make(Opcode::kDynamicSlice, {A(F32, {10, 8}), S(S32), S(S32)});
  ds->dynamic_slice_sizes = {2, 8};
  EXPECT_EQ(Infer(ds), "f32[2,8]");
  ds->dynamic_slice_sizes = {2, 9};
  EXPECT_EQ(Infer(ds),
            "ERROR dynamic-slice: slice size 9 in dimension 1 is outside [0, "
            "8]");
  Instruction* float_index =
      Make(Opcode::kDynamicSlice, {A(F32, {10}), S(F32)});
  float_index->dynamic_slice_sizes = {2};
  EXPECT_EQ(Infer(float_index),
            "ERROR dynamic-slice: start index (operand 1) must be an integer "
            "scalar, got f32[]");
  Instruction* mixed = Make(Opcode::kDynamicSlice,
                            {A(F32, {4, 4}), S(S32), S(ElementType::kS64)});
  mixed->dynamic_slice_sizes = {1, 1};
  EXPECT_EQ(Infer(mixed),
            "ERROR dynamic-slice: start indices must share one element type, "
            "got s32[] and s64[]");
  Instruction* missing = Make(Opcode::kDynamicSlice, {A(F32, {4, 4}), S(S32)});
  EXPECT_EQ(Infer(missing), "ERROR dynamic-slice: takes 3 operands, got 2");

  EXPECT_EQ(Infer(Make(Opcode::kDynamicUpdateSlice,
                       {A(F32, {10, 8}), A(F32, {2, 8}), S(S32), S(S32)})),
            "f32[10,8]");
  EXPECT_EQ(Infer(Make(Opcode::kDynamicUpdateSlice,
                       {A(F32, {10, 8}), A(F32, {2, 9}), S(S32), S(S32)})),
            "ERROR dynamic-update-slice: update dimension 1 has size 9, "
            "larger than the operand's 8");
  EXPECT_EQ(Infer(Make(Opcode::kDynamicUpdateSlice,
                       {A(F32, {10}), A(S32, {2}), S(S32)})),
            "ERROR dynamic-update-slice: update s32[2] must have the element "
            "type and rank of operand f32[10]");
}

TEST_F(ShapeInferenceTest, Concatenate) {
  Instruction* c = Make(Opcode::kConcatenate,
                        {A(F32, {2, 3}), A(F32, {4, 3}), A(F32, {1, 3})});
  c->dimensions = {0};
  EXPECT_EQ(Infer(c), "f32[7,3]");
  Instruction* bad =
      Make(Opcode::kConcatenate, {A(F32, {2, 3}), A(F32, {2, 4})});
  bad->dimensions = {0};
  EXPECT_EQ(Infer(bad),
            "ERROR concatenate: operand 1 f32[2,4] does not match operand 0 "
            "f32[2,3] outside dimension 0");
  bad->dimensions = {1};
  EXPECT_EQ(Infer(bad), "f32[2,7]");
  bad->dimensions = {2};
  EXPECT_EQ(Infer(bad),
            "ERROR concatenate: dimension 2 is out of range for rank 2");
}

TEST_F(ShapeInferenceTest, PadWithNegativeAndInteriorPadding) {
  Instruction* p = Make(Opcode::kPad, {A(F32, {3, 5}), S(F32)});
  p->padding = {{1, 2, 1}, {-1, -1, 0}};
  EXPECT_EQ(Infer(p), "f32[8,3]");  // 1 + 3 + 2 interior + 2; 5 - 2
  p->padding = {{0, 0, -1}, {0, 0, 0}};
  EXPECT_EQ(Infer(p),
            "ERROR pad: interior padding -1 in dimension 0 is negative");
  p->padding = {{0, 0, 0}, {-3, -3, 0}};
  EXPECT_EQ(Infer(p),
            "ERROR pad: padding -3_-3_0 leaves dimension 1 of size 5 with "
            "negative size -1");
  EXPECT_EQ(Infer(Make(Opcode::kPad, {A(F32, {3}), S(S32)})),
            "ERROR pad: padding value s32[] must have the element type of "
            "operand f32[3]");
}

TEST_F(ShapeInferenceTest, Reverse) {
  Instruction* r = Make(Opcode::kReverse, {A(F32, {2, 3})});
  r->dimensions = {1, 0};
  EXPECT_EQ(Infer(r), "f32[2,3]");
  r->dimensions = {3};
  EXPECT_EQ(Infer(r),
            "ERROR reverse: dimensions {3}: dimension 3 is out of range for "
            "rank 2");
}

TEST_F(ShapeInferenceTest, GatherRows) {
  // x[i] for a vector of row numbers: jnp.take(x, i, axis=0).
  Instruction* g = Make(Opcode::kGather, {A(F32, {3, 4}), A(S32, {5, 1})});
  GatherDimensionNumbers& dn = g->gather_dimension_numbers;
  dn.offset_dims = {1};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  g->gather_slice_sizes = {1, 4};
  EXPECT_EQ(Infer(g), "f32[5,4]");

  // The index vector dimension may be implicit (== rank).
  Instruction* implicit = Make(Opcode::kGather, {A(F32, {3, 4}), A(S32, {5})});
  implicit->gather_dimension_numbers = dn;
  implicit->gather_slice_sizes = {1, 4};
  EXPECT_EQ(Infer(implicit), "f32[5,4]");

  // Offset dimensions first: the batch dimension goes last.
  dn.offset_dims = {0};
  EXPECT_EQ(Infer(g), "f32[4,5]");
  dn.offset_dims = {1};

  g->gather_slice_sizes = {2, 4};
  EXPECT_EQ(Infer(g),
            "ERROR gather: collapsed slice dimension 0 has slice size 2, not "
            "1");
  g->gather_slice_sizes = {1, 5};
  EXPECT_EQ(Infer(g),
            "ERROR gather: slice size 5 in dimension 1 is outside [0, 4]");
  g->gather_slice_sizes = {1, 4};
  dn.start_index_map = {0, 1};
  EXPECT_EQ(Infer(g),
            "ERROR gather: start_index_map {0,1} has 2 entries, the index "
            "vector has 1");
  dn.start_index_map = {0};
  dn.offset_dims = {};
  EXPECT_EQ(Infer(g),
            "ERROR gather: offset_dims {} has 0 entries, the slice keeps 1 "
            "dimensions");
  dn.offset_dims = {1};
  dn.index_vector_dim = 3;
  EXPECT_EQ(Infer(g),
            "ERROR gather: index_vector_dim 3 is out of range for start "
            "indices s32[5,1]");
  Instruction* float_indices =
      Make(Opcode::kGather, {A(F32, {3, 4}), A(F32, {5, 1})});
  EXPECT_EQ(Infer(float_indices),
            "ERROR gather: start indices must be integers, got f32[5,1]");
}

TEST_F(ShapeInferenceTest, GatherWithBatchingDimensions) {
  // For each b in 2 batches and each of 4 indices, a row of 3 from
  // operand[b]: result[b, i, :] = operand[b, idx[b, i], :].
  Instruction* g =
      Make(Opcode::kGather, {A(F32, {2, 5, 3}), A(S32, {2, 4, 1})});
  GatherDimensionNumbers& dn = g->gather_dimension_numbers;
  dn.offset_dims = {2};
  dn.collapsed_slice_dims = {1};
  dn.operand_batching_dims = {0};
  dn.start_indices_batching_dims = {0};
  dn.start_index_map = {1};
  dn.index_vector_dim = 2;
  g->gather_slice_sizes = {1, 1, 3};
  EXPECT_EQ(Infer(g), "f32[2,4,3]");

  Instruction* mismatch =
      Make(Opcode::kGather, {A(F32, {2, 5, 3}), A(S32, {3, 4, 1})});
  mismatch->gather_dimension_numbers = dn;
  mismatch->gather_slice_sizes = {1, 1, 3};
  EXPECT_EQ(Infer(mismatch),
            "ERROR gather: operand_batching_dims dimension 0 has size 2, "
            "start_indices_batching_dims dimension 0 has size 3");
  dn.start_index_map = {0};
  EXPECT_EQ(Infer(g),
            "ERROR gather: start_index_map {0} names batching dimension 0");
  dn.start_index_map = {1};
  dn.start_indices_batching_dims = {2};
  EXPECT_EQ(Infer(g),
            "ERROR gather: start_indices_batching_dims {2} include "
            "index_vector_dim 2");
}

TEST_F(ShapeInferenceTest, ScatterRows) {
  // x.at[i].add(u) with i: s32[3,1], u: f32[3,4] over x: f32[5,4].
  Computation* add = Region("add", {S(F32), S(F32)}, S(F32));
  Instruction* s =
      Make(Opcode::kScatter, {A(F32, {5, 4}), A(S32, {3, 1}), A(F32, {3, 4})});
  s->AppendCalledComputation(add);
  ScatterDimensionNumbers& dn = s->scatter_dimension_numbers;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  EXPECT_EQ(Infer(s), "f32[5,4]");

  Instruction* few_updates =
      Make(Opcode::kScatter, {A(F32, {5, 4}), A(S32, {3, 1}), A(F32, {2, 4})});
  few_updates->AppendCalledComputation(add);
  few_updates->scatter_dimension_numbers = dn;
  EXPECT_EQ(Infer(few_updates),
            "ERROR scatter: update scatter dimension 0 has size 2, scatter "
            "indices dimension 0 has size 3");
  Instruction* wide =
      Make(Opcode::kScatter, {A(F32, {5, 4}), A(S32, {3, 1}), A(F32, {3, 6})});
  wide->AppendCalledComputation(add);
  wide->scatter_dimension_numbers = dn;
  EXPECT_EQ(Infer(wide),
            "ERROR scatter: update window dimension 1 has size 6, larger "
            "than operand dimension 1 of size 4");
  dn.inserted_window_dims = {};
  EXPECT_EQ(Infer(s),
            "ERROR scatter: operand rank 2 must equal update_window_dims + "
            "inserted_window_dims + input_batching_dims = 1");
  dn.inserted_window_dims = {0};

  Computation* wrong_type = Region("add_s32", {S(S32), S(S32)}, S(S32));
  Instruction* bad_combiner =
      Make(Opcode::kScatter, {A(F32, {5, 4}), A(S32, {3, 1}), A(F32, {3, 4})});
  bad_combiner->AppendCalledComputation(wrong_type);
  bad_combiner->scatter_dimension_numbers = dn;
  EXPECT_EQ(Infer(bad_combiner),
            "ERROR scatter: update computation 'add_s32' parameter 0 is s32[], "
            "expected f32[]");
  EXPECT_EQ(Infer(Make(Opcode::kScatter, {A(F32, {5}), A(S32, {3, 1})})),
            "ERROR scatter: takes N operands, the indices and N updates (N >= "
            "1), got 2 operands");
}

TEST_F(ShapeInferenceTest, VariadicScatterGivesATuple) {
  Computation* pair = Region("pair", {S(F32), S(S32), S(F32), S(S32)},
                             Shape::Tuple({S(F32), S(S32)}));
  Instruction* s = Make(
      Opcode::kScatter,
      {A(F32, {5}), A(S32, {5}), A(S32, {2, 1}), A(F32, {2}), A(S32, {2})});
  s->AppendCalledComputation(pair);
  ScatterDimensionNumbers& dn = s->scatter_dimension_numbers;
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  EXPECT_EQ(Infer(s), "(f32[5], s32[5])");
}

TEST_F(ShapeInferenceTest, ScatterWithBatchingDimensions) {
  // operand[b, idx[b, i]] += u[b, i] for 2 batches of 3 updates.
  Computation* add = Region("add", {S(F32), S(F32)}, S(F32));
  Instruction* s = Make(Opcode::kScatter,
                        {A(F32, {2, 5}), A(S32, {2, 3, 1}), A(F32, {2, 3})});
  s->AppendCalledComputation(add);
  ScatterDimensionNumbers& dn = s->scatter_dimension_numbers;
  dn.inserted_window_dims = {1};
  dn.input_batching_dims = {0};
  dn.scatter_indices_batching_dims = {0};
  dn.scatter_dims_to_operand_dims = {1};
  dn.index_vector_dim = 2;
  EXPECT_EQ(Infer(s), "f32[2,5]");
  dn.inserted_window_dims = {0};
  EXPECT_EQ(Infer(s),
            "ERROR scatter: dimension 0 is both an inserted window and an "
            "input batching dimension");
}

TEST_F(ShapeInferenceTest, DotGeneral) {
  Instruction* matmul = Make(Opcode::kDot, {A(F32, {2, 3}), A(F32, {3, 4})});
  matmul->dot_dimension_numbers.lhs_contracting = {1};
  matmul->dot_dimension_numbers.rhs_contracting = {0};
  EXPECT_EQ(Infer(matmul), "f32[2,4]");

  // Batch dimensions first, then the lhs's free ones, then the rhs's.
  Instruction* batched =
      Make(Opcode::kDot, {A(F32, {3, 7, 2}), A(F32, {7, 3, 5})});
  batched->dot_dimension_numbers = {{1}, {0}, {0}, {1}};
  EXPECT_EQ(Infer(batched), "f32[7,2,5]");

  // The declared element type is the result's (preferred_element_type).
  Instruction* widened =
      Make(Opcode::kDot,
           {A(ElementType::kBF16, {4}), A(ElementType::kBF16, {4})}, S(F32));
  widened->dot_dimension_numbers = {{}, {}, {0}, {0}};
  EXPECT_EQ(Infer(widened), "f32[]");

  Instruction* outer = Make(Opcode::kDot, {A(S32, {2}), A(S32, {3})});
  EXPECT_EQ(Infer(outer), "s32[2,3]");

  Instruction* mismatch = Make(Opcode::kDot, {A(F32, {2, 3}), A(F32, {4, 5})});
  mismatch->dot_dimension_numbers = {{}, {}, {1}, {0}};
  EXPECT_EQ(Infer(mismatch),
            "ERROR dot: lhs contracting dimension 1 has size 3, rhs "
            "contracting dimension 0 has size 4");
  Instruction* batch_mismatch =
      Make(Opcode::kDot, {A(F32, {2, 3}), A(F32, {5, 3})});
  batch_mismatch->dot_dimension_numbers = {{0}, {0}, {1}, {1}};
  EXPECT_EQ(Infer(batch_mismatch),
            "ERROR dot: lhs batch dimension 0 has size 2, rhs batch "
            "dimension 0 has size 5");
  batch_mismatch->dot_dimension_numbers = {{0}, {0}, {0}, {1}};
  EXPECT_EQ(Infer(batch_mismatch),
            "ERROR dot: lhs batch and contracting dimensions {0,0} repeat "
            "dimension 0");
  batch_mismatch->dot_dimension_numbers = {{0}, {}, {1}, {1}};
  EXPECT_EQ(Infer(batch_mismatch),
            "ERROR dot: lhs batch dimensions {0} and rhs batch dimensions {} "
            "differ in number");
  batch_mismatch->dot_dimension_numbers = {{}, {}, {2}, {1}};
  EXPECT_EQ(Infer(batch_mismatch),
            "ERROR dot: lhs batch and contracting dimensions {2}: dimension 2 "
            "is out of range for rank 2");
  EXPECT_EQ(Infer(Make(Opcode::kDot, {A(PRED, {2}), A(PRED, {2})})),
            "ERROR dot: operands must be numeric, got pred[2] and pred[2]");
}

TEST_F(ShapeInferenceTest, Reduce) {
  Computation* add = Region("add", {S(F32), S(F32)}, S(F32));
  Instruction* sum = Make(Opcode::kReduce, {A(F32, {2, 3, 4}), S(F32)});
  sum->AppendCalledComputation(add);
  sum->dimensions = {0, 2};
  EXPECT_EQ(Infer(sum), "f32[3]");
  sum->dimensions = {0, 1, 2};
  EXPECT_EQ(Infer(sum), "f32[]");
  sum->dimensions = {3};
  EXPECT_EQ(Infer(sum),
            "ERROR reduce: dimensions {3}: dimension 3 is out of range for "
            "rank 3");

  // argmax-style: (value, index) pairs reduce to a tuple of scalars.
  Computation* argmax = Region("argmax", {S(F32), S(S32), S(F32), S(S32)},
                               Shape::Tuple({S(F32), S(S32)}));
  Instruction* pair =
      Make(Opcode::kReduce, {A(F32, {5, 4}), A(S32, {5, 4}), S(F32), S(S32)});
  pair->AppendCalledComputation(argmax);
  pair->dimensions = {1};
  EXPECT_EQ(Infer(pair), "(f32[5], s32[5])");

  Instruction* bad_init = Make(Opcode::kReduce, {A(F32, {2}), A(F32, {1})});
  bad_init->AppendCalledComputation(add);
  bad_init->dimensions = {0};
  EXPECT_EQ(Infer(bad_init),
            "ERROR reduce: initial value (operand 1) must be a scalar, got "
            "f32[1]");
  Instruction* wrong_reducer =
      Make(Opcode::kReduce, {A(F32, {2}), A(S32, {2}), S(F32), S(S32)});
  wrong_reducer->AppendCalledComputation(add);
  wrong_reducer->dimensions = {0};
  EXPECT_EQ(Infer(wrong_reducer),
            "ERROR reduce: reducer 'add' takes 2 parameters, expected 4");
  Computation* returns_vector = Region("vector", {S(F32), S(F32)}, A(F32, {1}));
  Instruction* bad_root = Make(Opcode::kReduce, {A(F32, {2}), S(F32)});
  bad_root->AppendCalledComputation(returns_vector);
  bad_root->dimensions = {0};
  EXPECT_EQ(Infer(bad_root),
            "ERROR reduce: reducer 'vector' returns f32[1], expected f32[]");
  Instruction* no_reducer = Make(Opcode::kReduce, {A(F32, {2}), S(F32)});
  EXPECT_EQ(Infer(no_reducer), "ERROR reduce: calls 1 computation, got 0");
  Instruction* mismatched =
      Make(Opcode::kReduce, {A(F32, {2}), A(S32, {3}), S(F32), S(S32)});
  mismatched->AppendCalledComputation(argmax);
  EXPECT_EQ(Infer(mismatched),
            "ERROR reduce: input 1 s32[3] does not have the dimensions of "
            "input 0 f32[2]");
}

TEST_F(ShapeInferenceTest, ReduceWindow) {
  Computation* max = Region("max", {S(F32), S(F32)}, S(F32));
  Instruction* pool = Make(Opcode::kReduceWindow, {A(F32, {4, 6}), S(F32)});
  pool->AppendCalledComputation(max);
  pool->window = {{2, 2, 0, 0, 1, 1}, {3, 3, 0, 0, 1, 1}};
  EXPECT_EQ(Infer(pool), "f32[2,2]");
  // Padding 1 on both sides, window 3, stride 1: (4 + 2 - 3) / 1 + 1 = 4.
  // Base dilation 2 turns 6 into 11; window 2 dilated by 2 spans 3: 9.
  pool->window = {{3, 1, 1, 1, 1, 1}, {2, 1, 0, 0, 2, 2}};
  EXPECT_EQ(Infer(pool), "f32[4,9]");
  pool->window = {{0, 1, 0, 0, 1, 1}, {1, 1, 0, 0, 1, 1}};
  EXPECT_EQ(Infer(pool),
            "ERROR reduce-window: window dimension 0 has size 0, stride 1, "
            "dilations 1/1; each must be positive");
  pool->window = {{1, 1, 0, 0, 1, 1}};
  EXPECT_EQ(Infer(pool),
            "ERROR reduce-window: window has 1 dimensions, input f32[4,6] has "
            "rank 2");
}

TEST_F(ShapeInferenceTest, Sort) {
  Computation* less = Region("less", {S(F32), S(F32)}, S(PRED));
  Instruction* sort = Make(Opcode::kSort, {A(F32, {3, 8})});
  sort->AppendCalledComputation(less);
  sort->dimensions = {1};
  EXPECT_EQ(Infer(sort), "f32[3,8]");
  sort->dimensions = {2};
  EXPECT_EQ(Infer(sort),
            "ERROR sort: sort dimension 2 is out of range for rank 2");

  // Keys and values: the comparator sees (key a, key b, value a, value b).
  Computation* by_key =
      Region("by_key", {S(F32), S(F32), S(S32), S(S32)}, S(PRED));
  Instruction* pairs = Make(Opcode::kSort, {A(F32, {8}), A(S32, {8})});
  pairs->AppendCalledComputation(by_key);
  pairs->dimensions = {0};
  EXPECT_EQ(Infer(pairs), "(f32[8], s32[8])");

  Computation* not_pred = Region("not_pred", {S(F32), S(F32)}, S(F32));
  Instruction* bad = Make(Opcode::kSort, {A(F32, {8})});
  bad->AppendCalledComputation(not_pred);
  bad->dimensions = {0};
  EXPECT_EQ(Infer(bad),
            "ERROR sort: comparator 'not_pred' returns f32[], expected pred[]");
  Instruction* wrong_params = Make(Opcode::kSort, {A(F32, {8}), A(S32, {8})});
  wrong_params->AppendCalledComputation(less);
  wrong_params->dimensions = {0};
  EXPECT_EQ(Infer(wrong_params),
            "ERROR sort: comparator 'less' takes 2 parameters, expected 4");
}

TEST_F(ShapeInferenceTest, While) {
  Shape state = Shape::Tuple({S(S32), A(F32, {4})});
  Computation* cond = Region("cond", {state}, S(PRED));
  Computation* body = Region("body", {state}, state);
  Instruction* loop = Make(Opcode::kWhile, {state});
  loop->AppendCalledComputation(cond);
  loop->AppendCalledComputation(body);
  EXPECT_EQ(Infer(loop), "(s32[], f32[4])");

  Computation* int_cond = Region("int_cond", {state}, S(S32));
  Instruction* bad_cond = Make(Opcode::kWhile, {state});
  bad_cond->AppendCalledComputation(int_cond);
  bad_cond->AppendCalledComputation(body);
  EXPECT_EQ(Infer(bad_cond),
            "ERROR while: condition 'int_cond' returns s32[], expected pred[]");
  Computation* drifting = Region("drifting", {state}, S(S32));
  Instruction* bad_body = Make(Opcode::kWhile, {state});
  bad_body->AppendCalledComputation(cond);
  bad_body->AppendCalledComputation(drifting);
  EXPECT_EQ(Infer(bad_body),
            "ERROR while: body 'drifting' returns s32[], expected (s32[], "
            "f32[4])");
  Instruction* wrong_state = Make(Opcode::kWhile, {S(S32)});
  wrong_state->AppendCalledComputation(cond);
  wrong_state->AppendCalledComputation(body);
  EXPECT_EQ(Infer(wrong_state),
            "ERROR while: condition 'cond' parameter 0 is (s32[], f32[4]), "
            "expected s32[]");
  Computation* rootless =
      module_.AddComputation(std::make_unique<Computation>("rootless"));
  Instruction* no_root = Make(Opcode::kWhile, {state});
  no_root->AppendCalledComputation(rootless);
  no_root->AppendCalledComputation(body);
  EXPECT_EQ(Infer(no_root), "ERROR while: condition 'rootless' has no root");
}

TEST_F(ShapeInferenceTest, Conditional) {
  Computation* b0 = Region("b0", {A(F32, {2})}, A(F32, {3}));
  Computation* b1 = Region("b1", {S(S32)}, A(F32, {3}));
  Computation* b2 = Region("b2", {Shape::Tuple({})}, A(F32, {3}));
  Instruction* c = Make(Opcode::kConditional,
                        {S(S32), A(F32, {2}), S(S32), Shape::Tuple({})});
  for (Computation* b : {b0, b1, b2}) c->AppendCalledComputation(b);
  EXPECT_EQ(Infer(c), "f32[3]");

  Instruction* pred3 = Make(Opcode::kConditional,
                            {S(PRED), A(F32, {2}), S(S32), Shape::Tuple({})});
  for (Computation* b : {b0, b1, b2}) pred3->AppendCalledComputation(b);
  EXPECT_EQ(Infer(pred3),
            "ERROR conditional: a pred index selects between 2 branches, got "
            "3");
  Instruction* wrong_operand =
      Make(Opcode::kConditional, {S(PRED), A(F32, {2}), A(F32, {2})});
  wrong_operand->AppendCalledComputation(b0);
  wrong_operand->AppendCalledComputation(b1);
  EXPECT_EQ(Infer(wrong_operand),
            "ERROR conditional: branch 1 'b1' parameter 0 is s32[], expected "
            "f32[2]");
  Computation* other = Region("other", {S(S32)}, A(S32, {3}));
  Instruction* disagree =
      Make(Opcode::kConditional, {S(PRED), A(F32, {2}), S(S32)});
  disagree->AppendCalledComputation(b0);
  disagree->AppendCalledComputation(other);
  EXPECT_EQ(Infer(disagree),
            "ERROR conditional: branch 1 'other' returns s32[3], branch 0 "
            "'b0' returns f32[3]");
  Instruction* float_index = Make(Opcode::kConditional, {S(F32), A(F32, {2})});
  float_index->AppendCalledComputation(b0);
  EXPECT_EQ(Infer(float_index),
            "ERROR conditional: branch index (operand 0) must be s32[] or "
            "pred[], got f32[]");
  Instruction* missing = Make(Opcode::kConditional, {S(S32), A(F32, {2})});
  missing->AppendCalledComputation(b0);
  missing->AppendCalledComputation(b1);
  EXPECT_EQ(Infer(missing),
            "ERROR conditional: has 2 branches and 1 branch operands; each "
            "branch takes one");
}

TEST_F(ShapeInferenceTest, CallTupleAndFriends) {
  Computation* callee =
      Region("callee", {A(F32, {2}), S(S32)}, Shape::Tuple({S(F32)}));
  Instruction* call = Make(Opcode::kCall, {A(F32, {2}), S(S32)});
  call->AppendCalledComputation(callee);
  EXPECT_EQ(Infer(call), "(f32[])");
  Instruction* bad_call = Make(Opcode::kCall, {A(F32, {2})});
  bad_call->AppendCalledComputation(callee);
  EXPECT_EQ(Infer(bad_call),
            "ERROR call: callee 'callee' takes 2 parameters, expected 1");

  Instruction* tuple =
      Make(Opcode::kTuple, {A(F32, {2}), Shape::Token(), S(PRED)});
  EXPECT_EQ(Infer(tuple), "(f32[2], token[], pred[])");
  Instruction* gte =
      Make(Opcode::kGetTupleElement,
           {Shape::Tuple({A(F32, {2}), Shape::Token(), S(PRED)})});
  gte->tuple_index = 2;
  EXPECT_EQ(Infer(gte), "pred[]");
  gte->tuple_index = 3;
  EXPECT_EQ(Infer(gte),
            "ERROR get-tuple-element: index 3 is out of range for (f32[2], "
            "token[], pred[])");
  EXPECT_EQ(Infer(Make(Opcode::kGetTupleElement, {A(F32, {2})})),
            "ERROR get-tuple-element: operand must be a tuple, got f32[2]");

  EXPECT_EQ(Infer(Make(Opcode::kOptimizationBarrier,
                       {Shape::Tuple({A(F32, {2}), S(S32)})})),
            "(f32[2], s32[])");
  EXPECT_EQ(Infer(Make(Opcode::kCopy, {A(F32, {2})})), "f32[2]");
  EXPECT_EQ(Infer(Make(Opcode::kAfterAll, {Shape::Token(), Shape::Token()})),
            "token[]");
  EXPECT_EQ(Infer(Make(Opcode::kAfterAll, {})), "token[]");
  EXPECT_EQ(Infer(Make(Opcode::kAfterAll, {Shape::Token(), A(F32, {})})),
            "ERROR after-all: operand 1 must be a token, got f32[]");

  Instruction* constant = Make(Opcode::kConstant, {});
  constant->literal = Literal::Vector<int32_t>({1, 2, 3});
  EXPECT_EQ(Infer(constant), "s32[3]");
  EXPECT_EQ(Infer(Make(Opcode::kConstant, {})), "ERROR constant: has no value");
  Instruction* param = Make(Opcode::kParameter, {}, A(F32, {2}));
  EXPECT_EQ(Infer(param), "f32[2]");
  param->parameter_number = -1;
  EXPECT_EQ(Infer(param), "ERROR parameter: number -1 is negative");

  Instruction* add = Make(Opcode::kAdd, {S(F32), S(F32)});
  add->AppendCalledComputation(callee);
  EXPECT_EQ(Infer(add), "ERROR add: calls no computations, got 1");
}

TEST_F(ShapeInferenceTest, CustomCallKeepsItsShapeAndChecksAliasesAndLayouts) {
  Shape result = Shape::Tuple({A(F32, {2048}), A(S32, {4})});
  Instruction* call =
      Make(Opcode::kCustomCall, {A(F32, {128}), A(F32, {2048})}, result);
  call->custom_call.target = "do_custom_call";
  EXPECT_EQ(Infer(call), "(f32[2048], s32[4])");

  call->custom_call.output_operand_aliases = {{{0}, 1, {}}};
  EXPECT_EQ(Infer(call), "(f32[2048], s32[4])");
  call->custom_call.output_operand_aliases = {{{0}, 1, {}}, {{0}, 1, {}}};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: output_operand_aliases[1]: output {0} is "
            "aliased twice");
  call->custom_call.output_operand_aliases = {{{1}, 1, {}}};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: output_operand_aliases[0]: output {1} s32[4] "
            "cannot alias operand 1 {} f32[2048]");
  call->custom_call.output_operand_aliases = {{{2}, 1, {}}};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: output_operand_aliases[0]: output index {2} "
            "is not in result (f32[2048], s32[4])");
  call->custom_call.output_operand_aliases = {{{0}, 2, {}}};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: output_operand_aliases[0]: operand 2 is out "
            "of range (2 operands)");
  call->custom_call.output_operand_aliases = {{{0}, 1, {0}}};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: output_operand_aliases[0]: operand index {0} "
            "is not in operand 1 f32[2048]");
  call->custom_call.output_operand_aliases = {};

  call->custom_call.operand_layouts = {Shape::Array(F32, {128}, {0})};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: has 1 operand layouts for 2 operands");
  call->custom_call.operand_layouts = {Shape::Array(F32, {128}, {0}),
                                       Shape::Array(F32, {2048}, {1})};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: operand layout 1: layout of f32[2048]{1} is "
            "not a permutation of its dimension numbers");
  call->custom_call.operand_layouts = {Shape::Array(F32, {128}, {0}),
                                       Shape::Array(F32, {2047}, {0})};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: operand layout 1 is for f32[2047]{0}, the "
            "operand is f32[2048]");
  call->custom_call.operand_layouts = {};
  call->custom_call.result_layouts = {Shape::Array(F32, {2048}, {0}),
                                      Shape::Array(S32, {4}, {0})};
  EXPECT_EQ(Infer(call), "(f32[2048], s32[4])");
  call->custom_call.result_layouts = {Shape::Array(F32, {2048}, {0})};
  EXPECT_EQ(Infer(call),
            "ERROR custom-call: has 1 result layouts for 2 results");
  call->custom_call.result_layouts = {};

  call->custom_call.target = "";
  EXPECT_EQ(Infer(call), "ERROR custom-call: has no target name");
}

TEST(ValidateShapeTest, DimensionsAndLayouts) {
  EXPECT_TRUE(ValidateShape(Shape::Array(F32, {2, 3}, {0, 1})).ok());
  EXPECT_TRUE(ValidateShape(Shape::Tuple({Shape::Token(), S(F32)})).ok());
  EXPECT_EQ(ValidateShape(Shape::Array(F32, {2, -1})).message(),
            "shape f32[2,?] has a negative dimension");
  EXPECT_EQ(ValidateShape(Shape::Array(F32, {2, 3}, {1, 1})).message(),
            "layout of f32[2,3]{1,1} is not a permutation of its dimension "
            "numbers");
  EXPECT_EQ(ValidateShape(Shape::Tuple({Shape()})).message(),
            "shape has no valid element type");
}

TEST(DescribeErrorTest, NamesTheInstructionOnce) {
  Computation main("main");
  Shape v = A(F32, {3});
  Instruction* a = main.AddInstruction(Opcode::kParameter, v, {}, "a");
  Instruction* b =
      main.AddInstruction(Opcode::kParameter, A(F32, {4}), {}, "b");
  b->parameter_number = 1;
  Instruction* add = main.AddInstruction(Opcode::kAdd, v, {a, b}, "sum");
  add->set_location(Location{"f.mlir", 4, 7, ""});
  StatusOr<Shape> shape = InferShape(*add);
  ASSERT_FALSE(shape.ok());
  Status described = DescribeError(*add, shape.status());
  EXPECT_EQ(described.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(described.message(),
            "'sum' (add) in computation 'main' at f.mlir:4:7: operands 0 and "
            "1 must have the same shape, got f32[3] and f32[4]");
}

}  // namespace
}  // namespace xffi
