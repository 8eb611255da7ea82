// Attributes: every scalar width, complex, strings, arrays, dictionaries,
// variants, pointers, user enums and structs, and the errors for each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "xffi/ffi.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;

enum class Mode : int32_t { kFast = 1, kExact = 2 };
enum class Small : uint8_t { kA = 7 };

struct Range {
  int64_t lo;
  int64_t hi;
};

struct Config {
  float eps;
  std::string_view name;
  ffi::Span<const int32_t> shape;
  Mode mode;
};

XFFI_REGISTER_ENUM_ATTR_DECODING(Mode);
XFFI_REGISTER_ENUM_ATTR_DECODING(Small);
XFFI_REGISTER_STRUCT_ATTR_DECODING(Range, ffi::StructMember<int64_t>("lo"),
                                   ffi::StructMember<int64_t>("hi"));
// Members listed out of name order on purpose: decoding must not care.
XFFI_REGISTER_STRUCT_ATTR_DECODING(
    Config, ffi::StructMember<float>("eps"),
    ffi::StructMember<std::string_view>("name"),
    ffi::StructMember<ffi::Span<const int32_t>>("shape"),
    ffi::StructMember<Mode>("mode"));

namespace {

template <typename T>
std::string DecodeOne(xffi::testing::AttrValue value, T expected) {
  auto handler = ffi::Ffi::Bind().Attr<T>("x").To([&](T got) {
    EXPECT_EQ(got, expected);
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Attr("x", std::move(value)).Build();
  auto result = Invoke(*handler, frame);
  return result.ok() ? "ok" : result.message();
}

TEST(FfiAttrs, EveryScalar) {
  EXPECT_EQ(DecodeOne<bool>(true, true), "ok");
  EXPECT_EQ(DecodeOne<bool>(false, false), "ok");
  EXPECT_EQ(DecodeOne<int8_t>(int8_t{-8}, -8), "ok");
  EXPECT_EQ(DecodeOne<int16_t>(int16_t{-16}, -16), "ok");
  EXPECT_EQ(DecodeOne<int32_t>(int32_t{-32}, -32), "ok");
  EXPECT_EQ(DecodeOne<int64_t>(int64_t{-64}, -64), "ok");
  EXPECT_EQ(DecodeOne<uint8_t>(uint8_t{8}, 8), "ok");
  EXPECT_EQ(DecodeOne<uint16_t>(uint16_t{16}, 16), "ok");
  EXPECT_EQ(DecodeOne<uint32_t>(uint32_t{32}, 32u), "ok");
  EXPECT_EQ(DecodeOne<uint64_t>(uint64_t{1} << 40, uint64_t{1} << 40), "ok");
  EXPECT_EQ(DecodeOne<float>(1.5f, 1.5f), "ok");
  EXPECT_EQ(DecodeOne<double>(2.25, 2.25), "ok");
  EXPECT_EQ(DecodeOne<std::complex<float>>(std::complex<float>(1, 2),
                                           std::complex<float>(1, 2)),
            "ok");
  EXPECT_EQ(DecodeOne<std::complex<double>>(std::complex<double>(3, -4),
                                            std::complex<double>(3, -4)),
            "ok");
}

TEST(FfiAttrs, ScalarTypeMismatchNamesBothTypes) {
  EXPECT_EQ(DecodeOne<float>(int32_t{1}, 0.f),
            "attribute 'x': expected float (F32 scalar), got S32 scalar");
  EXPECT_EQ(DecodeOne<int64_t>(int32_t{1}, 0),
            "attribute 'x': expected int64_t (S64 scalar), got S32 scalar");
  EXPECT_EQ(DecodeOne<bool>(std::string("yes"), false),
            "attribute 'x': expected bool (PRED scalar), got string");
  EXPECT_EQ(DecodeOne<double>(std::vector<double>{1.0}, 0.0),
            "attribute 'x': expected double (F64 scalar), got array of F64");
}

// A kind or dtype outside the C enums' ranges (a newer runtime's, or a
// broken one's) is refused by name, never loaded as the enum: that would be
// undefined behaviour, which fuzz_call_frame found under UBSan.
TEST(FfiAttrs, KindsAndDtypesOutsideTheEnumsAreRefusedByName) {
  auto handler = ffi::Ffi::Bind().Attr<float>("x").To(
      [](float) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Attr("x", 1.0f).Build();
  XLA_FFI_Attrs& attrs = frame.get()->attrs;
  const int32_t far_dtype = 5000;
  std::memcpy(&static_cast<XLA_FFI_Scalar*>(attrs.attrs[0])->dtype, &far_dtype,
              sizeof(far_dtype));
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "attribute 'x': expected float (F32 scalar), got "
            "UNKNOWN_DTYPE(5000) scalar");
  const int32_t far_kind = 1000;
  std::memcpy(&attrs.types[0], &far_kind, sizeof(far_kind));
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "attribute 'x': expected float (F32 scalar), got attribute of an "
            "unknown kind");
  // Through a Dictionary too.
  auto walk = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary d) {
    EXPECT_FALSE(d.isa<float>("x"));
    ffi::ErrorOr<float> x = d.get<float>("x");
    EXPECT_FALSE(x.has_value());
    return ffi::Error::Success();
  });
  EXPECT_TRUE(Invoke(*walk, frame).ok());
}

TEST(FfiAttrs, Strings) {
  EXPECT_EQ(DecodeOne<std::string_view>(std::string("hello"), "hello"), "ok");
  EXPECT_EQ(DecodeOne<std::string_view>(std::string(""), ""), "ok");
  EXPECT_EQ(DecodeOne<std::string_view>(1.0f, ""),
            "attribute 'x': expected std::string_view (string), got F32 "
            "scalar");
}

template <typename T>
void ExpectArray(std::vector<T> values) {
  auto handler = ffi::Ffi::Bind().Attr<ffi::Span<const T>>("a").To(
      [&](ffi::Span<const T> span) {
        EXPECT_EQ(span.size(), values.size());
        for (size_t i = 0; i < values.size(); ++i) {
          EXPECT_EQ(span[i], values[i]);
        }
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Attr("a", values).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiAttrs, EveryArray) {
  ExpectArray<int8_t>({1, -2});
  ExpectArray<int16_t>({1, -2, 3});
  ExpectArray<int32_t>({1, -2, 3, 4});
  ExpectArray<int64_t>({int64_t{1} << 40});
  ExpectArray<uint8_t>({1, 2});
  ExpectArray<uint16_t>({1, 2});
  ExpectArray<uint32_t>({1, 2});
  ExpectArray<uint64_t>({1, 2});
  ExpectArray<float>({0.5f, 1.5f});
  ExpectArray<double>({0.25});
  ExpectArray<int32_t>({});
}

TEST(FfiAttrs, ArrayElementMismatch) {
  auto handler = ffi::Ffi::Bind().Attr<ffi::Span<const int64_t>>("dims").To(
      [](ffi::Span<const int64_t>) { return ffi::Error::Success(); });
  auto frame =
      CallFrameBuilder().Attr("dims", std::vector<int32_t>{1, 2}).Build();
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "attribute 'dims': expected Span<const int64_t> (array of S64), "
            "got array of S32");
}

TEST(FfiAttrs, SeveralAttributesAreFoundWhateverTheBindingOrder) {
  auto handler = ffi::Ffi::Bind()
                     .Attr<int32_t>("zeta")
                     .Attr<float>("alpha")
                     .Attr<std::string_view>("mid")
                     .To([](int32_t zeta, float alpha, std::string_view mid) {
                       EXPECT_EQ(zeta, 26);
                       EXPECT_EQ(alpha, 1.0f);
                       EXPECT_EQ(mid, "m");
                       return ffi::Error::Success();
                     });
  auto frame = CallFrameBuilder()
                   .Attr("mid", "m")
                   .Attr("alpha", 1.0f)
                   .Attr("zeta", 26)
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiAttrs, MissingAndExtraAttributes) {
  auto handler = ffi::Ffi::Bind().Attr<float>("eps").Attr<int32_t>("n").To(
      [](float, int32_t) { return ffi::Error::Success(); });
  auto renamed = CallFrameBuilder().Attr("eps", 1.0f).Attr("m", 1).Build();
  EXPECT_EQ(Invoke(*handler, renamed).message(),
            "attribute 'n': missing (the call has attributes: eps, m)");
  auto extra =
      CallFrameBuilder().Attr("eps", 1.0f).Attr("n", 1).Attr("z", 2).Build();
  EXPECT_EQ(Invoke(*handler, extra).message(),
            "[EXECUTE] wrong number of attributes: expected 2 (eps, n), got 3 "
            "(eps, n, z)");
  auto none = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(*handler, none).message(),
            "[EXECUTE] wrong number of attributes: expected 2 (eps, n), got 0 "
            "()");
}

TEST(FfiAttrs, DictionaryAttribute) {
  xffi::testing::Dictionary inner;
  inner.Set("i", 3).Set("s", "str").Set("f", std::vector<float>{1.f, 2.f});
  xffi::testing::Dictionary nested;
  nested.Set("deep", int64_t{9});
  inner.Set("nested", nested);
  auto handler =
      ffi::Ffi::Bind().Attr<ffi::Dictionary>("d").To([](ffi::Dictionary d) {
        EXPECT_EQ(d.size(), 4u);
        EXPECT_TRUE(d.contains("i"));
        EXPECT_FALSE(d.contains("missing"));
        EXPECT_TRUE(d.isa<int32_t>("i"));
        EXPECT_FALSE(d.isa<float>("i"));
        EXPECT_TRUE(d.contains<std::string_view>("s"));
        EXPECT_EQ(*d.get<int32_t>("i"), 3);
        EXPECT_EQ(*d.get<std::string_view>("s"), "str");
        EXPECT_EQ(d.get<ffi::Span<const float>>("f")->size(), 2u);
        auto nested = d.get<ffi::Dictionary>("nested");
        EXPECT_TRUE(nested.has_value());
        EXPECT_EQ(*nested->get<int64_t>("deep"), 9);
        auto missing = d.get<int32_t>("missing");
        EXPECT_TRUE(missing.has_error());
        EXPECT_EQ(missing.error().message(),
                  "attribute 'missing' not found (dictionary has: f, i, "
                  "nested, s)");
        // XLA's code, so a handler passing the error on reports the same.
        EXPECT_EQ(missing.error().code(), ffi::ErrorCode::kInternal);
        auto wrong = d.get<float>("i");
        EXPECT_EQ(wrong.error().message(),
                  "attribute 'i': expected float (F32 scalar), got S32 scalar");
        EXPECT_EQ(d.name(0), "f");
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder().Attr("d", inner).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  auto not_dict = CallFrameBuilder().Attr("d", 1).Build();
  EXPECT_EQ(Invoke(*handler, not_dict).message(),
            "attribute 'd': expected Dictionary (dictionary), got S32 scalar");
}

TEST(FfiAttrs, WholeDictionaryWithAttrs) {
  auto handler = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary attrs) {
    EXPECT_EQ(attrs.size(), 2u);
    EXPECT_EQ(*attrs.get<float>("b"), 2.0f);
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Attr("b", 2.0f).Attr("a", 1).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiAttrs, Variant) {
  using V = std::variant<int32_t, float, std::string_view>;
  auto handler = ffi::Ffi::Bind().Attr<V>("v").To(
      [](V v) { return ffi::Error::Internal(std::to_string(v.index())); });
  auto as_int = CallFrameBuilder().Attr("v", 1).Build();
  EXPECT_EQ(Invoke(*handler, as_int).message(), "0");
  auto as_float = CallFrameBuilder().Attr("v", 1.f).Build();
  EXPECT_EQ(Invoke(*handler, as_float).message(), "1");
  auto as_string = CallFrameBuilder().Attr("v", "s").Build();
  EXPECT_EQ(Invoke(*handler, as_string).message(), "2");
  auto none = CallFrameBuilder().Attr("v", 1.0).Build();
  auto result = Invoke(*handler, none);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "attribute 'v': expected one of (int32_t (S32 scalar) | float "
            "(F32 scalar) | std::string_view (string)), got F64 scalar");
}

TEST(FfiAttrs, Enums) {
  auto handler = ffi::Ffi::Bind().Attr<Mode>("mode").Attr<Small>("small").To(
      [](Mode mode, Small small) {
        EXPECT_EQ(mode, Mode::kExact);
        EXPECT_EQ(small, Small::kA);
        return ffi::Error::Success();
      });
  auto frame =
      CallFrameBuilder().Attr("mode", 2).Attr("small", uint8_t{7}).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  auto wrong = CallFrameBuilder()
                   .Attr("mode", int64_t{2})
                   .Attr("small", uint8_t{7})
                   .Build();
  EXPECT_EQ(Invoke(*handler, wrong).message(),
            "attribute 'mode': expected Mode (S32 scalar), got S64 scalar");
}

TEST(FfiAttrs, StructAsAttribute) {
  auto handler = ffi::Ffi::Bind().Attr<Range>("range").To([](Range r) {
    EXPECT_EQ(r.lo, 1);
    EXPECT_EQ(r.hi, 10);
    return ffi::Error::Success();
  });
  xffi::testing::Dictionary d;
  d.Set("hi", int64_t{10}).Set("lo", int64_t{1});
  auto frame = CallFrameBuilder().Attr("range", d).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  xffi::testing::Dictionary bad;
  bad.Set("hi", int64_t{10}).Set("lo", 1);
  auto wrong_member = CallFrameBuilder().Attr("range", bad).Build();
  EXPECT_EQ(Invoke(*handler, wrong_member).message(),
            "attribute 'range': member 'lo': expected int64_t (S64 scalar), "
            "got S32 scalar");

  xffi::testing::Dictionary short_dict;
  short_dict.Set("lo", int64_t{1});
  auto missing = CallFrameBuilder().Attr("range", short_dict).Build();
  EXPECT_EQ(Invoke(*handler, missing).message(),
            "attribute 'range': struct Range expects 2 members (lo, hi), got "
            "1 (lo)");

  xffi::testing::Dictionary renamed;
  renamed.Set("lo", int64_t{1}).Set("top", int64_t{2});
  auto wrong_name = CallFrameBuilder().Attr("range", renamed).Build();
  EXPECT_EQ(Invoke(*handler, wrong_name).message(),
            "attribute 'range': missing member 'hi'");

  auto not_dict = CallFrameBuilder().Attr("range", 3).Build();
  EXPECT_EQ(Invoke(*handler, not_dict).message(),
            "attribute 'range': expected a dictionary for struct Range, got "
            "S32 scalar");
}

TEST(FfiAttrs, StructFromAllAttributes) {
  auto handler = ffi::Ffi::Bind().Attrs<Config>().To([](Config c) {
    EXPECT_EQ(c.eps, 0.5f);
    EXPECT_EQ(c.name, "cfg");
    EXPECT_EQ(c.shape.size(), 2u);
    EXPECT_EQ(c.shape[1], 4);
    EXPECT_EQ(c.mode, Mode::kFast);
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder()
                   .Attr("shape", std::vector<int32_t>{3, 4})
                   .Attr("mode", 1)
                   .Attr("name", "cfg")
                   .Attr("eps", 0.5f)
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  auto wrong = CallFrameBuilder()
                   .Attr("shape", std::vector<int32_t>{3, 4})
                   .Attr("mode", 1)
                   .Attr("name", "cfg")
                   .Attr("eps", 0.5)
                   .Build();
  EXPECT_EQ(Invoke(*handler, wrong).message(),
            "attributes (Config): member 'eps': expected float (F32 scalar), "
            "got F64 scalar");
}

TEST(FfiAttrs, StructInDictionaryGet) {
  auto handler = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary attrs) {
    auto range = attrs.get<Range>("r");
    EXPECT_TRUE(range.has_value()) << range.error().message();
    EXPECT_EQ(range->hi, 5);
    return ffi::Error::Success();
  });
  xffi::testing::Dictionary d;
  d.Set("lo", int64_t{2}).Set("hi", int64_t{5});
  auto frame = CallFrameBuilder().Attr("r", d).Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

TEST(FfiAttrs, Pointer) {
  static int target = 42;
  auto handler = ffi::Ffi::Bind().Attr<ffi::Pointer<int>>("p").To([](int* p) {
    EXPECT_EQ(p, &target);
    return ffi::Error::Success();
  });
  auto frame =
      CallFrameBuilder()
          .Attr("p", static_cast<int64_t>(reinterpret_cast<intptr_t>(&target)))
          .Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

}  // namespace

namespace {

TEST(FfiAttrs, DictionaryIteratesInNameOrder) {
  auto handler = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary attrs) {
    std::vector<std::string> names;
    for (std::string_view name : attrs) names.emplace_back(name);
    EXPECT_THAT(names, ::testing::ElementsAre("a", "b", "c"));

    ffi::Dictionary::Iterator it = attrs.begin();
    EXPECT_EQ(*it, "a");
    EXPECT_TRUE(attrs.isa<int64_t>(it));
    EXPECT_FALSE(attrs.isa<std::string_view>(it));
    EXPECT_EQ(*attrs.get<int64_t>(it), -5);
    ++it;
    // XLA's get-by-iterator goes through size_t and would make this 2;
    // xffi's returns the value.
    EXPECT_EQ(*attrs.get<float>(it), 2.5f);
    EXPECT_EQ(attrs.get<int64_t>(it).error().message(),
              "attribute 'b': expected int64_t (S64 scalar), got F32 scalar");
    EXPECT_EQ(attrs.get<int64_t>(it).error().errc(), ffi::ErrorCode::kInternal);
    it++;
    EXPECT_EQ(*attrs.get<std::string_view>(it), "text");
    EXPECT_TRUE(++it == attrs.end());
    EXPECT_EQ(std::distance(attrs.begin(), attrs.end()), 3);
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder()
                   .Attr("c", "text")
                   .Attr("a", int64_t{-5})
                   .Attr("b", 2.5f)
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiAttrs, EmptyDictionaryHasNothingToWalk) {
  auto handler = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary attrs) {
    EXPECT_TRUE(attrs.begin() == attrs.end());
    EXPECT_TRUE(attrs.empty());
    EXPECT_FALSE(attrs.contains("x"));
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

static constexpr char kCount[] = "count";

TEST(FfiAttrs, NamedAttrConvertsAndDereferences) {
  ffi::Attr<int32_t, kCount> count = 3;  // implicit, as in XLA
  *count += 1;
  EXPECT_EQ(*count, 4);
  EXPECT_EQ(count.get(), 4);
  static_assert(
      std::is_same_v<ffi::AttrBinding<ffi::Attr<int32_t, kCount>>::Attr,
                     int32_t>);
  EXPECT_EQ((ffi::AttrBinding<ffi::Attr<int32_t, kCount>>::name()), "count");
  static_assert(std::is_same_v<ffi::StructMember<float>::Type, float>,
                "StructMember spells its type as XLA does");
}

}  // namespace
