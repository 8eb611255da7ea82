// MLIR attribute dictionaries as typed-FFI backend configs: every value kind
// with its exact C++ type, printing, and the errors with line:column.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "xffi/program/text.h"

namespace xffi {
namespace {

using Dictionary = AttributeMap;

template <typename T>
const T& Get(const FfiAttributes& attrs, std::string_view name) {
  const AttrValue* value = attrs.Find(name);
  EXPECT_NE(value, nullptr) << name;
  static const T kEmpty{};
  if (value == nullptr) return kEmpty;
  EXPECT_TRUE(std::holds_alternative<T>(*value))
      << name << " holds alternative " << value->index();
  if (!std::holds_alternative<T>(*value)) return kEmpty;
  return std::get<T>(*value);
}

std::string ErrorOf(std::string_view text) {
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(text);
  EXPECT_FALSE(parsed.ok()) << text;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  return parsed.status().message();
}

TEST(MlirAttributesTest, ScalarsKeepTheirTypes) {
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(
      "{i = 5 : i32, j = 7, k = -128 : i8, s16 = -3 : i16, u = 255 : ui8, "
      "u16 = 65535 : ui16, u32 = 4294967295 : ui32, "
      "u64 = 18446744073709551615 : ui64, big = -9223372036854775808 : i64, "
      "f = 1.0e-05 : f32, d = 2.5, e = 9.99999974E-6 : f32, "
      "b = true, c = false, one = 1 : i1, flag}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const FfiAttributes& a = *parsed;
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(Get<int32_t>(a, "i"), 5);
  EXPECT_EQ(Get<int64_t>(a, "j"), 7);
  EXPECT_EQ(Get<int8_t>(a, "k"), -128);
  EXPECT_EQ(Get<int16_t>(a, "s16"), -3);
  EXPECT_EQ(Get<uint8_t>(a, "u"), 255);
  EXPECT_EQ(Get<uint16_t>(a, "u16"), 65535);
  EXPECT_EQ(Get<uint32_t>(a, "u32"), 4294967295u);
  EXPECT_EQ(Get<uint64_t>(a, "u64"), 18446744073709551615ull);
  EXPECT_EQ(Get<int64_t>(a, "big"), INT64_MIN);
  EXPECT_EQ(Get<float>(a, "f"), 1.0e-05f);
  EXPECT_EQ(Get<double>(a, "d"), 2.5);
  EXPECT_EQ(Get<float>(a, "e"), 9.99999974E-6f);
  EXPECT_EQ(Get<bool>(a, "b"), true);
  EXPECT_EQ(Get<bool>(a, "c"), false);
  EXPECT_EQ(Get<bool>(a, "one"), true);
  // A unit attribute (a name alone) reads as true.
  EXPECT_EQ(Get<bool>(a, "flag"), true);
  // Entries keep the text's order.
  EXPECT_EQ(a.names()[0], "i");
  EXPECT_EQ(a.names()[15], "flag");
}

TEST(MlirAttributesTest, StringsTakeMlirEscapes) {
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(
      R"({s = "a\22b\0Ac\\d\"e\n\t", "quoted name" = "", empty = ""})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(Get<std::string>(*parsed, "s"), "a\"b\nc\\d\"e\n\t");
  EXPECT_EQ(Get<std::string>(*parsed, "quoted name"), "");
  EXPECT_EQ(Get<std::string>(*parsed, "empty"), "");
}

TEST(MlirAttributesTest, ArraysAndDenseTensors) {
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(
      "{a = array<i64: 1, -2>, b = array<i32>, c = array<f32: 1.5, -2.0>, "
      "d = array<i8: 127>, e = array<f64: 0.25>, f = array<i16: -1>, "
      "g = dense<[1, 2, 3]> : tensor<3xi32>, h = dense<2.0> : tensor<2xf64>, "
      "i = dense<[[1, 2], [3, 4]]> : tensor<2x2xui16>, "
      "j = dense<[0x7FC00000, 1.0]> : tensor<2xf32>, "
      "k = dense<\"0x01000000FFFFFFFF\"> : tensor<2xi32>, "
      "l = dense<> : tensor<0xui64>, m = dense<[4, 5]> : tensor<2xui32>, "
      "n = dense<-1> : tensor<1xi8>, o = dense<7> : tensor<i64>}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const FfiAttributes& a = *parsed;
  EXPECT_EQ(Get<std::vector<int64_t>>(a, "a"), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(Get<std::vector<int32_t>>(a, "b"), std::vector<int32_t>{});
  EXPECT_EQ(Get<std::vector<float>>(a, "c"), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(Get<std::vector<int8_t>>(a, "d"), std::vector<int8_t>{127});
  EXPECT_EQ(Get<std::vector<double>>(a, "e"), std::vector<double>{0.25});
  EXPECT_EQ(Get<std::vector<int16_t>>(a, "f"), std::vector<int16_t>{-1});
  EXPECT_EQ(Get<std::vector<int32_t>>(a, "g"), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(Get<std::vector<double>>(a, "h"), (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(Get<std::vector<uint16_t>>(a, "i"),
            (std::vector<uint16_t>{1, 2, 3, 4}));
  const std::vector<float>& j = Get<std::vector<float>>(a, "j");
  ASSERT_EQ(j.size(), 2u);
  uint32_t bits;
  std::memcpy(&bits, &j[0], 4);
  EXPECT_EQ(bits, 0x7FC00000u);
  EXPECT_EQ(j[1], 1.0f);
  EXPECT_EQ(Get<std::vector<int32_t>>(a, "k"), (std::vector<int32_t>{1, -1}));
  EXPECT_EQ(Get<std::vector<uint64_t>>(a, "l"), std::vector<uint64_t>{});
  EXPECT_EQ(Get<std::vector<uint32_t>>(a, "m"), (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(Get<std::vector<int8_t>>(a, "n"), std::vector<int8_t>{-1});
  EXPECT_EQ(Get<std::vector<int64_t>>(a, "o"), std::vector<int64_t>{7});
}

TEST(MlirAttributesTest, NestedDictionariesAndJaxOutput) {
  // Verbatim from jax.ffi.ffi_call(...)(x, y, n=np.int32(3), mode="fast",
  // eps=np.float32(1e-5), scale=2.5, flag=True, dims=np.array([1, 2]),
  // nested={"a": np.uint8(7)}) lowered by JAX 0.10.2.
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(
      "{dims = dense<[1, 2]> : tensor<2xi64>, eps = 9.99999974E-6 : f32, "
      "flag = true, mode = \"fast\", n = 3 : i32, nested = {a = 7 : ui8}, "
      "scale = 2.500000e+00 : f64}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const FfiAttributes& a = *parsed;
  EXPECT_EQ(Get<std::vector<int64_t>>(a, "dims"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Get<float>(a, "eps"), 1e-5f);
  EXPECT_EQ(Get<bool>(a, "flag"), true);
  EXPECT_EQ(Get<std::string>(a, "mode"), "fast");
  EXPECT_EQ(Get<int32_t>(a, "n"), 3);
  EXPECT_EQ(Get<double>(a, "scale"), 2.5);
  const Dictionary& nested = Get<Dictionary>(a, "nested");
  EXPECT_EQ(Get<uint8_t>(nested, "a"), 7);

  StatusOr<FfiAttributes> deep =
      ParseMlirAttributeDictionary("{x = {y = {z = -3 : i16}}}");
  ASSERT_TRUE(deep.ok());
  EXPECT_EQ(
      Get<int16_t>(Get<Dictionary>(Get<Dictionary>(*deep, "x"), "y"), "z"), -3);
}

TEST(MlirAttributesTest, EmptyConfigs) {
  // XLA reads "" and "{}" alike as no attributes.
  StatusOr<FfiAttributes> empty = ParseMlirAttributeDictionary("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  StatusOr<FfiAttributes> braces = ParseMlirAttributeDictionary("  { }  ");
  ASSERT_TRUE(braces.ok());
  EXPECT_TRUE(braces->empty());
}

TEST(MlirAttributesTest, HexFloatsAreBitPatterns) {
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(
      "{nan = 0x7FC00001 : f32, inf = 0xFFF0000000000000 : f64}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  float nan = Get<float>(*parsed, "nan");
  uint32_t bits;
  std::memcpy(&bits, &nan, 4);
  EXPECT_EQ(bits, 0x7FC00001u);
  EXPECT_EQ(Get<double>(*parsed, "inf"), -INFINITY);
}

TEST(MlirAttributesTest, PrintsWhatParsesBack) {
  Dictionary inner;
  inner.Set("a", uint8_t{7});
  Dictionary d;
  d.Set("eps", 1e-5f)
      .Set("scale", 2.5)
      .Set("n", int32_t{3})
      .Set("big", int64_t{-9})
      .Set("mode", "fa\"st\n")
      .Set("flag", true)
      .Set("dims", std::vector<int64_t>{1, 2})
      .Set("none", std::vector<int32_t>{})
      .Set("bytes", std::vector<uint8_t>{1, 255})
      .Set("ws", std::vector<float>{0.5f, -1.0f})
      .Set("nan", std::nanf(""))
      .Set("nested", inner)
      .Set("needs quotes", int16_t{-2});
  std::string text = PrintMlirAttributeDictionary(d);
  EXPECT_EQ(text,
            "{eps = 1.0e-05 : f32, scale = 2.5 : f64, n = 3 : i32, "
            "big = -9 : i64, mode = \"fa\\22st\\0A\", flag = true, "
            "dims = array<i64: 1, 2>, none = array<i32>, "
            "bytes = dense<[1, 255]> : tensor<2xui8>, "
            "ws = array<f32: 0.5, -1.0>, nan = 0x7FC00000 : f32, "
            "nested = {a = 7 : ui8}, \"needs quotes\" = -2 : i16}");
  StatusOr<FfiAttributes> back = ParseMlirAttributeDictionary(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(PrintMlirAttributeDictionary(*back), text);
  EXPECT_EQ(Get<float>(*back, "eps"), 1e-5f);
  EXPECT_EQ(Get<std::string>(*back, "mode"), "fa\"st\n");
  EXPECT_EQ(Get<std::vector<uint8_t>>(*back, "bytes"),
            (std::vector<uint8_t>{1, 255}));
  EXPECT_EQ(Get<int16_t>(*back, "needs quotes"), -2);
}

TEST(MlirAttributesTest, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(ErrorOf("{a = }"),
            "<input>:1:6: expected an attribute value, got '}'");
  EXPECT_EQ(ErrorOf("{a = 1"),
            "<input>:1:7: expected ',' or '}' in an attribute dictionary, got "
            "end of input");
  EXPECT_EQ(ErrorOf("{a = \"open"),
            "<input>:1:6: expected an attribute value, got an unterminated "
            "string");
  // Found by fuzz_mlir_attributes: a backslash at the very end looped.
  EXPECT_EQ(ErrorOf("{a = \"x\\"),
            "<input>:1:6: expected an attribute value, got an unterminated "
            "string");
  EXPECT_EQ(ErrorOf("{\n  a = 1,\n  b = 2 : f17\n}"),
            "<input>:3:11: expected an integer or float type after ':', got "
            "'f17'");
  EXPECT_EQ(ErrorOf("{a = 1} trailing"),
            "<input>:1:9: expected end of input after the dictionary, got "
            "'trailing'");
  EXPECT_EQ(ErrorOf("a = 1"), "<input>:1:1: expected '{', got 'a'");
  EXPECT_EQ(ErrorOf("{a = dense<[1, 2> : tensor<2xi32>}"),
            "<input>:1:17: expected ',' or ']' in dense<...>, got '>'");
  EXPECT_EQ(ErrorOf("{a = array<i64: 1.5>}"),
            "<input>:1:17: expected an integer in array<i64>, got a float");
  EXPECT_EQ(ErrorOf("{a = 1.5 : i32}"),
            "<input>:1:6: expected an integer literal for type 'i32', got a "
            "float");
  EXPECT_EQ(ErrorOf("{a = 2 : f32}"),
            "<input>:1:6: expected a float literal for type 'f32', got an "
            "integer");
  EXPECT_EQ(ErrorOf("{a = \x01}"),
            "<input>:1:6: expected an attribute value, got byte 0x01");
  StatusOr<FfiAttributes> named =
      ParseMlirAttributeDictionary("{a = }", "config.mlir");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().message(),
            "config.mlir:1:6: expected an attribute value, got '}'");
}

TEST(MlirAttributesTest, ValuesXlaCannotDecodeAreErrors) {
  EXPECT_EQ(ErrorOf("{a = 300 : i8}"),
            "<input>:1:6: attribute 'a': value does not fit i8");
  EXPECT_EQ(ErrorOf("{a = -1 : ui32}"),
            "<input>:1:6: attribute 'a': value does not fit ui32");
  EXPECT_EQ(ErrorOf("{a = [1, 2]}"),
            "<input>:1:6: attribute 'a': lists [...] are not typed-FFI "
            "attributes (XLA rejects them); use array<T: ...> or dense<...>");
  EXPECT_EQ(ErrorOf("{x = {a = 1.5 : f16}}"),
            "<input>:1:11: attribute 'a': floats of type 'f16' are not "
            "typed-FFI attributes (f32 and f64 are)");
  EXPECT_EQ(ErrorOf("{a = array<i1: true>}"),
            "<input>:1:6: attribute 'a': array<i1> is not a typed-FFI "
            "attribute");
  EXPECT_EQ(ErrorOf("{a = dense<[true]> : tensor<1xi1>}"),
            "<input>:1:6: attribute 'a': arrays of i1 are not typed-FFI "
            "attributes");
  EXPECT_EQ(ErrorOf("{a = dense<[1, 2, 3]> : tensor<2xi32>}"),
            "<input>:1:6: dense<...> has 3 elements, its type s32[2] has 2");
  EXPECT_EQ(ErrorOf("{a = @sym}"),
            "<input>:1:6: attribute 'a': this kind of attribute is not a "
            "typed-FFI attribute");
  EXPECT_EQ(ErrorOf("{a = 1, a = 2}"),
            "<input>:1:13: attribute 'a' appears twice");
  EXPECT_EQ(ErrorOf("{a = 99999999999999999999}"),
            "<input>:1:6: integer '99999999999999999999' does not fit in 64 "
            "bits");
}

TEST(MlirAttributesTest, DeepNestingIsAnErrorNotACrash) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "{a = ";
  StatusOr<FfiAttributes> parsed = ParseMlirAttributeDictionary(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("less deeply nested"),
            std::string::npos)
      << parsed.status().message();
}

}  // namespace
}  // namespace xffi
