// Element types and shapes: names, sizes, layouts, tuples, printing.
#include "xffi/program/shape.h"

#include <gtest/gtest.h>

namespace xffi {
namespace {

TEST(ElementTypeTest, ValuesAreXlaPrimitiveTypesAndFfiDataTypes) {
  EXPECT_EQ(ToFfiDataType(ElementType::kF32), XLA_FFI_DataType_F32);
  EXPECT_EQ(ToFfiDataType(ElementType::kBF16), XLA_FFI_DataType_BF16);
  EXPECT_EQ(ToFfiDataType(ElementType::kToken), XLA_FFI_DataType_TOKEN);
  EXPECT_EQ(ToFfiDataType(ElementType::kF8E8M0FNU), XLA_FFI_DataType_F8E8M0FNU);
  EXPECT_EQ(static_cast<int>(ElementType::kTuple), 13);
}

TEST(ElementTypeTest, NamesRoundTripInBothSpellings) {
  for (ElementType type : AllArrayElementTypes()) {
    EXPECT_EQ(ElementTypeFromName(ElementTypeName(type)), type);
    EXPECT_EQ(ElementTypeFromMlirName(MlirElementTypeName(type)), type);
  }
  EXPECT_EQ(ElementTypeName(ElementType::kF8E4M3FN), "f8e4m3fn");
  EXPECT_EQ(MlirElementTypeName(ElementType::kU16), "ui16");
  EXPECT_EQ(MlirElementTypeName(ElementType::kC64), "complex<f32>");
  EXPECT_EQ(ElementTypeFromMlirName("i1"), ElementType::kPred);
  EXPECT_EQ(ElementTypeFromName("f33"), std::nullopt);
  EXPECT_EQ(AllArrayElementTypes().size(), 30u);
}

TEST(ElementTypeTest, SizesAndClasses) {
  EXPECT_EQ(ElementByteSize(ElementType::kPred), 1u);
  EXPECT_EQ(ElementByteSize(ElementType::kS4), 1u);  // stored unpacked
  EXPECT_EQ(ElementBitWidth(ElementType::kS4), 4);
  EXPECT_EQ(ElementByteSize(ElementType::kBF16), 2u);
  EXPECT_EQ(ElementByteSize(ElementType::kC128), 16u);
  EXPECT_EQ(ElementByteSize(ElementType::kTuple), 0u);
  EXPECT_TRUE(IsFloatingType(ElementType::kF8E5M2FNUZ));
  EXPECT_FALSE(IsFloatingType(ElementType::kC64));
  EXPECT_TRUE(IsComplexType(ElementType::kC64));
  EXPECT_TRUE(IsSignedIntegralType(ElementType::kS2));
  EXPECT_TRUE(IsUnsignedIntegralType(ElementType::kU1));
  EXPECT_FALSE(IsIntegralType(ElementType::kPred));
}

TEST(ShapeTest, ArraysTokensAndTuples) {
  Shape a = Shape::Array(ElementType::kF32, {2, 3});
  EXPECT_TRUE(a.IsArray());
  EXPECT_EQ(a.num_elements(), 6);
  EXPECT_EQ(a.byte_size(), 24u);
  EXPECT_EQ(a.ToString(), "f32[2,3]");
  EXPECT_EQ(Shape::Scalar(ElementType::kS64).num_elements(), 1);

  Shape t = Shape::Tuple(
      {a, Shape::Token(), Shape::Tuple({Shape::Scalar(ElementType::kPred)})});
  EXPECT_EQ(t.ToString(), "(f32[2,3], token[], (pred[]))");
  EXPECT_EQ(t.Leaves().size(), 3u);
  EXPECT_EQ(t.Subshape({2, 0})->element_type(), ElementType::kPred);
  EXPECT_EQ(t.Subshape({3}), nullptr);
  EXPECT_EQ(t.Subshape({0, 0}), nullptr);
  EXPECT_EQ(t.byte_size(), 0u);
}

TEST(ShapeTest, Layouts) {
  Shape row_major = Shape::Array(ElementType::kF32, {2, 3}, {1, 0});
  Shape col_major = Shape::Array(ElementType::kF32, {2, 3}, {0, 1});
  Shape none = Shape::Array(ElementType::kF32, {2, 3});
  EXPECT_TRUE(row_major.HasDefaultLayout());
  EXPECT_FALSE(col_major.HasDefaultLayout());
  EXPECT_EQ(col_major.ToString(), "f32[2,3]{0,1}");
  EXPECT_EQ(col_major.ToString(false), "f32[2,3]");
  EXPECT_EQ(none.EffectiveMinorToMajor(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(row_major, none);
  EXPECT_NE(col_major, none);
  EXPECT_TRUE(col_major.Compatible(none));
  EXPECT_FALSE(col_major.Compatible(Shape::Array(ElementType::kF32, {3, 2})));
  // Layouts matter only when both are explicit and not the default.
  EXPECT_TRUE(col_major.Compatible(row_major));
  EXPECT_FALSE(
      Shape::Array(ElementType::kF32, {2, 3, 4}, {0, 1, 2})
          .Compatible(Shape::Array(ElementType::kF32, {2, 3, 4}, {1, 0, 2})));
  EXPECT_EQ(col_major.WithoutLayout(), none);
}

TEST(ShapeTest, RowMajorStrides) {
  EXPECT_EQ(RowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(RowMajorStrides({}).empty());
}

}  // namespace
}  // namespace xffi
