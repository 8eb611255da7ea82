// Decoders written the way XLA's header declares them (ArgDecoding,
// RetDecoding, AttrDecoding and CtxDecoding specialisations taking a
// DiagnosticEngine&, AttrBinding, ResultEncoding) plug into xffi's binding
// unchanged: in bindings, BindTo, RemainingArgs/Rets, Dictionary, Context
// and variants, with their diagnostics in xffi's error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

// The decoders as a handler author writes them for XLA, shared with the
// parity handlers (which build them against XLA's header too).
#define PARITY_NS xffi::ffi
#include "xla/parity/xla_style_decoders.h"

namespace {

TEST(FfiDecoders, DiagnosticEngineCollectsWhatIsEmitted) {
  ffi::DiagnosticEngine diagnostic;
  std::optional<int> failed = diagnostic.Emit("expected ")
                              << ffi::F32 << " got " << XLA_FFI_DataType_S8;
  EXPECT_FALSE(failed.has_value());
  { diagnostic.Emit("; stage ") << XLA_FFI_ExecutionStage_PREPARE; }
  EXPECT_EQ(diagnostic.Result(), "expected F32 got S8; stage prepare");
  EXPECT_EQ(std::move(diagnostic).Result(),
            "expected F32 got S8; stage prepare");
}

TEST(FfiDecoders, UserAttributeDecoder) {
  auto handler =
      ffi::Ffi::Bind().Attr<user::Range>("r").Ret<ffi::BufferR0<ffi::S64>>().To(
          [](user::Range r, ffi::Result<ffi::BufferR0<ffi::S64>> out) {
            *out->typed_data() = r.hi - r.lo;
            return ffi::Error::Success();
          });
  int64_t out = 0;
  auto frame = CallFrameBuilder()
                   .Attr("r", std::vector<int64_t>{3, 10})
                   .Ret(&out, {})
                   .Build();
  auto result = Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 7);

  auto bad = CallFrameBuilder()
                 .Attr("r", std::vector<int64_t>{1, 2, 3})
                 .Ret(&out, {})
                 .Build();
  result = Invoke(*handler, bad);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "attribute 'r': range: two S64 values, got 3 of S64");

  auto wrong_kind =
      CallFrameBuilder().Attr("r", int64_t{1}).Ret(&out, {}).Build();
  result = Invoke(*handler, wrong_kind);
  EXPECT_EQ(result.message(),
            "attribute 'r': range: expected array but got scalar");
}

TEST(FfiDecoders, UserArgumentAndResultDecoders) {
  auto handler = ffi::Ffi::Bind().Arg<user::Matrix>().Ret<user::Matrix>().To(
      [](user::Matrix in, ffi::Result<user::Matrix> out) {
        for (int64_t i = 0; i < in.rows * in.cols; ++i) {
          out->data[i] = in.data[i] * 10;
        }
        out->data[0] = static_cast<float>(in.rows);
        return ffi::Error::Success();
      });
  float in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  auto frame = CallFrameBuilder().Arg(in, {2, 3}).Ret(out, {2, 3}).Build();
  auto result = Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_THAT(out, ::testing::ElementsAre(2, 20, 30, 40, 50, 60));

  auto rank1 = CallFrameBuilder().Arg(in, {6}).Ret(out, {2, 3}).Build();
  result = Invoke(*handler, rank1);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "argument 0: expected buffer of F32 rank 2, got F32 rank 1 "
            "(matrix: F32 of rank 2)");

  double wide[6] = {};
  auto f64 = CallFrameBuilder().Arg(in, {2, 3}).Ret(wide, {2, 3}).Build();
  result = Invoke(*handler, f64);
  EXPECT_EQ(result.message(),
            "result 0: expected buffer of F32 rank 2, got F64 rank 2 (matrix "
            "result: F32 of rank 2)");
}

TEST(FfiDecoders, UserDecodersInRemainingArgsAndRets) {
  auto handler = ffi::Ffi::Bind().RemainingArgs().RemainingRets().To(
      [](ffi::RemainingArgs args, ffi::RemainingRets rets) {
        EXPECT_TRUE(args.isa<user::Matrix>(0));
        EXPECT_FALSE(args.isa<user::Matrix>(1));
        EXPECT_FALSE(args.isa<user::Matrix>(7));
        ffi::ErrorOr<user::Matrix> m = args.get<user::Matrix>(0);
        EXPECT_TRUE(m.has_value());
        ffi::ErrorOr<user::Matrix> bad = args.get<user::Matrix>(1);
        EXPECT_EQ(bad.error().errc(), ffi::ErrorCode::kInternal);
        EXPECT_THAT(bad.error().message(), EndsWith("(matrix: F32 of rank 2)"));
        EXPECT_TRUE(rets.isa<user::Matrix>(0));
        ffi::ErrorOr<ffi::Result<user::Matrix>> out = rets.get<user::Matrix>(0);
        EXPECT_TRUE(out.has_value());
        (*out)->data[0] = m->data[0] + 1;
        return ffi::Error::Success();
      });
  float a[4] = {5, 0, 0, 0}, b[4] = {}, c[4] = {};
  auto frame =
      CallFrameBuilder().Arg(a, {2, 2}).Arg(b, {4}).Ret(c, {2, 2}).Build();
  auto result = Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(c[0], 6);
}

TEST(FfiDecoders, UserDecodersInDictionariesAndVariants) {
  auto handler = ffi::Ffi::Bind().Attrs().To([](ffi::Dictionary attrs) {
    EXPECT_TRUE(attrs.isa<user::Range>("r"));
    EXPECT_TRUE(attrs.contains<user::Range>("r"));
    EXPECT_FALSE(attrs.isa<user::Range>("s"));
    ffi::ErrorOr<user::Range> r = attrs.get<user::Range>("r");
    EXPECT_EQ(r->hi, 4);
    ffi::ErrorOr<user::Range> s = attrs.get<user::Range>("s");
    EXPECT_EQ(s.error().errc(), ffi::ErrorCode::kInternal);
    EXPECT_EQ(s.error().message(),
              "attribute 's': range: expected array but got string");
    using Either = std::variant<user::Range, std::string_view>;
    auto either_r = attrs.get<Either>("r");
    auto either_s = attrs.get<Either>("s");
    EXPECT_EQ(std::get<user::Range>(*either_r).lo, 1);
    EXPECT_EQ(std::get<std::string_view>(*either_s), "text");
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder()
                   .Attr("r", std::vector<int64_t>{1, 4})
                   .Attr("s", "text")
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiDecoders, UserContextDecoder) {
  auto handler = ffi::Ffi::Bind().Ctx<user::Where>().Ctx().To(
      [](user::Where where, ffi::Context context) {
        ffi::ErrorOr<user::Where> again = context.get<user::Where>();
        EXPECT_EQ(again->device, where.device);
        return ffi::Error(
            ffi::ErrorCode::kAborted,
            std::to_string(where.run_id) + "@" + std::to_string(where.device));
      });
  xffi::ExecutionContext context;
  context.set_run_id(12);
  context.set_device_ordinal(3);
  InvokeOptions options;
  options.context = &context;
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame, options);
  EXPECT_EQ(result.message(), "12@3");

  xffi::ExecutionContext no_device;
  options.context = &no_device;
  result = Invoke(*handler, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(result.message(), HasSubstr("where: no device (ordinal -1)"));
}

TEST(FfiDecoders, BindToUsesAttrAndCtxBindings) {
  auto handler = ffi::Ffi::BindTo([](user::Scale scale, user::Where where,
                                     ffi::Result<ffi::BufferR0<ffi::F32>> out) {
    *out->typed_data() = scale.value * static_cast<float>(where.device);
    return ffi::Error::Success();
  });
  xffi::ExecutionContext context;
  context.set_device_ordinal(2);
  InvokeOptions options;
  options.context = &context;
  float out = 0;
  auto frame = CallFrameBuilder().Attr("scale", 1.5f).Ret(&out, {}).Build();
  auto result = Invoke(*handler, frame, options);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(out, 3.0f);
  EXPECT_EQ(std::string(handler->signature().params[0].name), "scale");
}

TEST(FfiDecoders, UserResultEncoding) {
  auto handler = ffi::Ffi::Bind().Attr<bool>("ok").To([](bool ok) {
    return user::Status{ok, ok ? "" : "the user's own failure"};
  });
  auto ok = CallFrameBuilder().Attr("ok", true).Build();
  EXPECT_TRUE(Invoke(*handler, ok).ok());
  auto failing = CallFrameBuilder().Attr("ok", false).Build();
  auto result = Invoke(*handler, failing);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_ABORTED);
  EXPECT_EQ(result.message(), "the user's own failure");
}

TEST(FfiDecoders, BuiltinDecodersHaveXlaInterfaces) {
  int64_t dims[1] = {4};
  float data[4] = {};
  XLA_FFI_Buffer buffer{
      XLA_FFI_Buffer_STRUCT_SIZE, nullptr, XLA_FFI_DataType_F32, data, 1, dims};
  EXPECT_TRUE(
      ffi::ArgDecoding<ffi::AnyBuffer>::Isa(XLA_FFI_ArgType_BUFFER, &buffer));
  EXPECT_TRUE((ffi::ArgDecoding<ffi::Buffer<ffi::F32, 1>>::Isa(
      XLA_FFI_ArgType_BUFFER, &buffer)));
  EXPECT_FALSE((ffi::RetDecoding<ffi::Buffer<ffi::F32, 2>>::Isa(
      XLA_FFI_RetType_BUFFER, &buffer)));
  ffi::DiagnosticEngine diagnostic;
  auto decoded = ffi::RetDecoding<ffi::Buffer<ffi::S32>>::Decode(
      XLA_FFI_RetType_BUFFER, &buffer, diagnostic);
  EXPECT_FALSE(decoded.has_value());
  EXPECT_EQ(diagnostic.Result(), "expected buffer of S32, got F32 rank 1");

  int32_t seven = 7;
  XLA_FFI_Scalar scalar{XLA_FFI_DataType_S32, &seven};
  static_assert(std::is_same_v<ffi::AttrDecoding<int32_t>::Type, int32_t>);
  EXPECT_TRUE(
      ffi::AttrDecoding<int32_t>::Isa(XLA_FFI_AttrType_SCALAR, &scalar));
  EXPECT_FALSE(ffi::AttrDecoding<float>::Isa(XLA_FFI_AttrType_SCALAR, &scalar));
  ffi::DiagnosticEngine attr_diagnostic;
  EXPECT_EQ(*ffi::AttrDecoding<int32_t>::Decode(XLA_FFI_AttrType_SCALAR,
                                                &scalar, attr_diagnostic),
            7);
}

}  // namespace
