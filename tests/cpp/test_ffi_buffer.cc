// Buffers: AnyBuffer, Buffer<dtype, rank>, Token, results, optional and
// remaining arguments and results, and what decoding says when they do not
// match.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "xffi/ffi.h"
#include "xffi/runtime/api.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;

namespace {

TEST(FfiBuffer, AnyBufferSeesDtypeDimsAndData) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  auto frame = CallFrameBuilder().Arg(x, {2, 3}).Build();
  bool called = false;
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().To([&](ffi::AnyBuffer buffer) {
        called = true;
        EXPECT_EQ(buffer.element_type(), ffi::F32);
        EXPECT_EQ(buffer.rank(), 2);
        EXPECT_EQ(buffer.dimensions().size(), 2u);
        EXPECT_EQ(buffer.dimensions()[0], 2);
        EXPECT_EQ(buffer.dimensions()[1], 3);
        EXPECT_EQ(buffer.element_count(), 6u);
        EXPECT_EQ(buffer.size_bytes(), 24u);
        EXPECT_EQ(buffer.untyped_data(), x);
        EXPECT_EQ(buffer.typed_data<float>()[5], 6.0f);
        EXPECT_EQ(buffer.reinterpret_data<int32_t>(),
                  reinterpret_cast<int32_t*>(x));
        return ffi::Error::Success();
      });
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
  EXPECT_TRUE(called);
}

TEST(FfiBuffer, TypedBufferChecksDtypeAndRank) {
  int32_t x[3] = {1, 2, 3};
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::Buffer<ffi::F32, 2>>().To(
          [](ffi::AnyBuffer, ffi::Buffer<ffi::F32, 2>) {
            return ffi::Error::Success();
          });
  auto frame = CallFrameBuilder().Arg(x, {3}).Arg(x, {3}).Build();
  auto result = Invoke(*handler, frame);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "argument 1: expected buffer of F32 rank 2, got S32 rank 1");
}

TEST(FfiBuffer, DynamicRankMessageOmitsRank) {
  int32_t x[3] = {1, 2, 3};
  auto handler = ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F64>>().To(
      [](ffi::Buffer<ffi::F64>) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Arg(x, {3}).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.message(),
            "argument 0: expected buffer of F64, got S32 rank 1");
}

TEST(FfiBuffer, RankMismatchWithRightDtype) {
  float x[4] = {};
  auto handler = ffi::Ffi::Bind().Arg<ffi::BufferR2<ffi::F32>>().To(
      [](ffi::BufferR2<ffi::F32>) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Arg(x, {4}).Build();
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "argument 0: expected buffer of F32 rank 2, got F32 rank 1");
}

TEST(FfiBuffer, ResultBufferIsWritable) {
  float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  auto handler = ffi::Ffi::Bind()
                     .Arg<ffi::BufferR1<ffi::F32>>()
                     .Ret<ffi::BufferR1<ffi::F32>>()
                     .To([](ffi::BufferR1<ffi::F32> in,
                            ffi::ResultBuffer<ffi::F32, 1> out) {
                       for (size_t i = 0; i < in.element_count(); ++i) {
                         out->typed_data()[i] = 2 * in.typed_data()[i];
                       }
                       EXPECT_EQ((*out).dimensions()[0], 4);
                       return ffi::Error::Success();
                     });
  auto frame = CallFrameBuilder().Arg(x, {4}).Ret(y, {4}).Build();
  auto result = Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(y[3], 8.0f);
}

TEST(FfiBuffer, ResultDecodeFailureNamesTheResult) {
  float x[4] = {};
  int64_t y[4] = {};
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::BufferR1<ffi::F32>>().To(
          [](ffi::AnyBuffer, ffi::ResultBuffer<ffi::F32, 1>) {
            return ffi::Error::Success();
          });
  auto frame = CallFrameBuilder().Arg(x, {4}).Ret(y, {2, 2}).Build();
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "result 0: expected buffer of F32 rank 1, got S64 rank 2");
}

TEST(FfiBuffer, TokensDecodeAsToken) {
  float x[1] = {};
  auto handler = ffi::Ffi::Bind()
                     .Arg<ffi::Token>()
                     .Arg<ffi::AnyBuffer>()
                     .Ret<ffi::Token>()
                     .To([](ffi::Token token, ffi::AnyBuffer,
                            ffi::Result<ffi::Token> out) {
                       EXPECT_EQ(token.element_type(), ffi::TOKEN);
                       EXPECT_EQ(token.untyped_data(), nullptr);
                       EXPECT_EQ(out->dimensions().size(), 0u);
                       return ffi::Error::Success();
                     });
  auto frame = CallFrameBuilder().TokenArg().Arg(x, {1}).TokenRet().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  auto not_token = CallFrameBuilder().Arg(x, {}).Arg(x, {1}).TokenRet().Build();
  EXPECT_EQ(Invoke(*handler, not_token).message(),
            "argument 0: expected buffer of TOKEN rank 0, got F32 rank 0");
}

// Every data type decodes through Buffer<dtype> with its native type.
template <ffi::DataType dtype>
void ExpectTypedDecode() {
  alignas(16) unsigned char storage[64] = {};
  auto handler = ffi::Ffi::Bind().Arg<ffi::Buffer<dtype>>().To(
      [&](ffi::Buffer<dtype> buffer) {
        static_assert(std::is_same_v<decltype(buffer.typed_data()),
                                     ffi::NativeType<dtype>*>);
        EXPECT_EQ(buffer.element_type(), dtype);
        EXPECT_EQ(buffer.size_bytes(), 2 * ffi::ByteWidth(dtype));
        EXPECT_EQ(buffer.untyped_data(), storage);
        return ffi::Error::Success();
      });
  auto frame = CallFrameBuilder()
                   .Arg(storage, static_cast<XLA_FFI_DataType>(dtype), {2})
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << ffi::DataTypeName(dtype) << ": "
                           << result.message();
}

TEST(FfiBuffer, EveryDataTypeDecodes) {
  ExpectTypedDecode<ffi::PRED>();
  ExpectTypedDecode<ffi::S1>();
  ExpectTypedDecode<ffi::S2>();
  ExpectTypedDecode<ffi::S4>();
  ExpectTypedDecode<ffi::S8>();
  ExpectTypedDecode<ffi::S16>();
  ExpectTypedDecode<ffi::S32>();
  ExpectTypedDecode<ffi::S64>();
  ExpectTypedDecode<ffi::U1>();
  ExpectTypedDecode<ffi::U2>();
  ExpectTypedDecode<ffi::U4>();
  ExpectTypedDecode<ffi::U8>();
  ExpectTypedDecode<ffi::U16>();
  ExpectTypedDecode<ffi::U32>();
  ExpectTypedDecode<ffi::U64>();
  ExpectTypedDecode<ffi::F16>();
  ExpectTypedDecode<ffi::F32>();
  ExpectTypedDecode<ffi::F64>();
  ExpectTypedDecode<ffi::BF16>();
  ExpectTypedDecode<ffi::C64>();
  ExpectTypedDecode<ffi::C128>();
  ExpectTypedDecode<ffi::F8E5M2>();
  ExpectTypedDecode<ffi::F8E3M4>();
  ExpectTypedDecode<ffi::F8E4M3>();
  ExpectTypedDecode<ffi::F8E4M3FN>();
  ExpectTypedDecode<ffi::F8E4M3B11FNUZ>();
  ExpectTypedDecode<ffi::F8E5M2FNUZ>();
  ExpectTypedDecode<ffi::F8E4M3FNUZ>();
  ExpectTypedDecode<ffi::F4E2M1FN>();
  ExpectTypedDecode<ffi::F8E8M0FNU>();
}

TEST(FfiBuffer, WrongArgumentCount) {
  float x[1] = {};
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Arg<ffi::AnyBuffer>().To(
          [](ffi::AnyBuffer, ffi::AnyBuffer) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Arg(x, {1}).Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "[EXECUTE] wrong number of arguments: expected 2, got 1");
}

TEST(FfiBuffer, WrongResultCount) {
  float x[1] = {};
  auto handler = ffi::Ffi::Bind().Ret<ffi::AnyBuffer>().To(
      [](ffi::Result<ffi::AnyBuffer>) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Ret(x, {1}).Ret(x, {1}).Build();
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "[EXECUTE] wrong number of results: expected 1, got 2");
}

TEST(FfiBuffer, BindingWithoutArgumentsIgnoresThem) {
  float x[1] = {};
  auto handler = ffi::Ffi::Bind().To([] { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Arg(x, {1}).Ret(x, {1}).Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

TEST(FfiBuffer, OptionalArgumentsAndResults) {
  float x[2] = {};
  int present_args = -1, present_rets = -1;
  auto handler =
      ffi::Ffi::Bind()
          .Arg<ffi::AnyBuffer>()
          .OptionalArg<ffi::BufferR1<ffi::F32>>()
          .OptionalRet<ffi::BufferR1<ffi::F32>>()
          .To([&](ffi::AnyBuffer, std::optional<ffi::BufferR1<ffi::F32>> opt,
                  std::optional<ffi::ResultBuffer<ffi::F32, 1>> ret) {
            present_args = opt.has_value();
            present_rets = ret.has_value();
            return ffi::Error::Success();
          });
  auto one = CallFrameBuilder().Arg(x, {2}).Build();
  ASSERT_TRUE(Invoke(*handler, one).ok()) << Invoke(*handler, one).message();
  EXPECT_EQ(present_args, 0);
  EXPECT_EQ(present_rets, 0);

  auto two = CallFrameBuilder().Arg(x, {2}).Arg(x, {2}).Ret(x, {2}).Build();
  auto result = Invoke(*handler, two);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(present_args, 1);
  EXPECT_EQ(present_rets, 1);

  int32_t bad[2] = {};
  auto wrong = CallFrameBuilder().Arg(x, {2}).Arg(bad, {2}).Build();
  EXPECT_EQ(Invoke(*handler, wrong).message(),
            "argument 1: expected buffer of F32 rank 1, got S32 rank 1");

  auto too_many =
      CallFrameBuilder().Arg(x, {2}).Arg(x, {2}).Arg(x, {2}).Build();
  EXPECT_EQ(Invoke(*handler, too_many).message(),
            "[EXECUTE] wrong number of arguments: expected 1 to 2, got 3");
  auto none = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(*handler, none).message(),
            "[EXECUTE] wrong number of arguments: expected 1 to 2, got 0");
}

TEST(FfiBuffer, RemainingArgsAndRets) {
  float a[1] = {1};
  int32_t b[2] = {2, 3};
  double c[3] = {};
  auto handler =
      ffi::Ffi::Bind()
          .Arg<ffi::AnyBuffer>()
          .RemainingArgs()
          .Ret<ffi::AnyBuffer>()
          .RemainingRets()
          .To([&](ffi::AnyBuffer, ffi::RemainingArgs args,
                  ffi::Result<ffi::AnyBuffer>, ffi::RemainingRets rets) {
            EXPECT_EQ(args.size(), 2u);
            EXPECT_FALSE(args.empty());
            EXPECT_TRUE(args.isa<ffi::BufferR1<ffi::S32>>(0));
            EXPECT_FALSE(args.isa<ffi::BufferR1<ffi::F32>>(0));
            EXPECT_TRUE(args.isa<ffi::AnyBuffer>(1));
            auto s32 = args.get<ffi::BufferR1<ffi::S32>>(0);
            EXPECT_TRUE(s32.has_value());
            EXPECT_EQ(s32->typed_data()[1], 3);
            auto wrong = args.get<ffi::BufferR1<ffi::F32>>(1);
            EXPECT_TRUE(wrong.has_error());
            EXPECT_EQ(wrong.error().message(),
                      "argument 2: expected buffer of F32 rank 1, got F32 "
                      "rank 2");
            auto out_of_range = args.get<ffi::AnyBuffer>(2);
            EXPECT_TRUE(out_of_range.has_error());
            EXPECT_THAT(out_of_range.error().message(),
                        HasSubstr("remaining argument 2 (argument 3) is out of "
                                  "range: there are 2 remaining arguments"));

            EXPECT_EQ(rets.size(), 1u);
            auto ret = rets.get<ffi::BufferR1<ffi::F64>>(0);
            EXPECT_TRUE(ret.has_value());
            EXPECT_EQ((*ret)->dimensions()[0], 3);
            EXPECT_EQ(
                rets.get<ffi::BufferR1<ffi::F32>>(0).error().message(),
                "result 1: expected buffer of F32 rank 1, got F64 rank 1");
            return ffi::Error::Success();
          });
  float two_d[4] = {};
  auto frame = CallFrameBuilder()
                   .Arg(a, {1})
                   .Arg(b, {2})
                   .Arg(two_d, {2, 2})
                   .Ret(a, {1})
                   .Ret(c, {3})
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();

  auto too_few = CallFrameBuilder().Ret(a, {1}).Build();
  EXPECT_EQ(Invoke(*handler, too_few).message(),
            "[EXECUTE] wrong number of arguments: expected at least 1, got 0");
}

TEST(FfiBuffer, RemainingArgsMayBeEmpty) {
  auto handler = ffi::Ffi::Bind().RemainingArgs().To([](ffi::RemainingArgs r) {
    EXPECT_TRUE(r.empty());
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
}

TEST(FfiBuffer, AliasesAndTypeHelpers) {
  static_assert(std::is_same_v<ffi::ResultBufferR2<ffi::F32>,
                               ffi::Result<ffi::Buffer<ffi::F32, 2>>>);
  static_assert(
      std::is_same_v<ffi::BufferR3<ffi::S8>, ffi::Buffer<ffi::S8, 3>>);
  static_assert(ffi::IsComplexType<ffi::C64>());
  static_assert(!ffi::IsComplexType<ffi::F32>());
  static_assert(ffi::ToComplex(ffi::F64) == ffi::C128);
  static_assert(ffi::ToReal(ffi::C64) == ffi::F32);
  static_assert(ffi::IsFloatType(ffi::BF16));
  static_assert(ffi::ByteWidth(ffi::C128) == 16);
  static_assert(ffi::ByteWidth(ffi::S4) == 1);
  static_assert(ffi::ByteWidth(ffi::TOKEN) == 0);
  static_assert(std::is_same_v<ffi::NativeType<ffi::C64>, std::complex<float>>);
  static_assert(std::is_same_v<ffi::NativeType<ffi::BF16>, uint16_t>);
  static_assert(std::is_same_v<ffi::NativeType<ffi::PRED>, bool>);
  EXPECT_STREQ(ffi::DataTypeName(ffi::F8E4M3B11FNUZ), "F8E4M3B11FNUZ");
  EXPECT_EQ(ffi::DataTypeName(static_cast<XLA_FFI_DataType>(99)),
            "UNKNOWN_DTYPE(99)");
  // The enum carries xla::PrimitiveType numbers.
  EXPECT_EQ(static_cast<int>(ffi::F8E8M0FNU), XLA_FFI_DataType_F8E8M0FNU);
  EXPECT_EQ(static_cast<int>(ffi::S1), 30);
}

TEST(FfiBuffer, DtypesOutsideTheEnumAreRefusedByName) {
  float x[1] = {};
  auto handler = ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32, 1>>().To(
      [](ffi::Buffer<ffi::F32, 1>) { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Arg(x, {1}).Build();
  auto* buffer = static_cast<XLA_FFI_Buffer*>(frame.get()->args.args[0]);
  // Read as the integer it is (loading it as the C enum would be undefined
  // behaviour: fuzz_call_frame found that under UBSan).
  const int32_t far = 1000;
  std::memcpy(&buffer->dtype, &far, sizeof(far));
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "argument 0: expected buffer of F32 rank 1, got "
            "UNKNOWN_DTYPE(1000) rank 1");
  auto any = ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().To([](ffi::AnyBuffer b) {
    EXPECT_EQ(static_cast<int>(b.element_type()), 1000 % 256);
    return ffi::Error::Success();
  });
  EXPECT_TRUE(Invoke(*any, frame).ok());
}

TEST(FfiBuffer, AStageOutsideTheEnumIsRefusedByName) {
  auto handler = ffi::Ffi::Bind().To([] { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  XLA_FFI_CallFrame call = *frame.get();
  call.api = xffi::GetApi();
  call.ctx = nullptr;
  const int32_t far = 77;
  std::memcpy(&call.stage, &far, sizeof(far));
  XLA_FFI_Error* error = handler->Call(&call);
  ASSERT_NE(error, nullptr);
  ffi::Error taken = ffi::internal::TakeError(call.api, error);
  EXPECT_EQ(taken.message(),
            "wrong execution stage: the handler is bound to EXECUTE, called "
            "in UNKNOWN_STAGE(77)");
}

TEST(FfiBuffer, NonBufferArgumentKindsAreRefused) {
  float x[1] = {};
  auto handler =
      ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().To(
          [](ffi::AnyBuffer, ffi::Result<ffi::AnyBuffer>) {
            return ffi::Error::Success();
          });
  auto frame = CallFrameBuilder().Arg(x, {1}).Ret(x, {1}).Build();
  frame.get()->args.types[0] = static_cast<XLA_FFI_ArgType>(7);
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "argument 0: expected a buffer, got argument type 7");
  frame.get()->args.types[0] = XLA_FFI_ArgType_BUFFER;
  frame.get()->rets.types[0] = static_cast<XLA_FFI_RetType>(9);
  EXPECT_EQ(Invoke(*handler, frame).message(),
            "result 0: expected a buffer, got result type 9");
}

}  // namespace
