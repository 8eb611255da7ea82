// The binding machinery: stages, the registration handshake, frame checks,
// signature inference (BindTo), traits and return types.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "xffi/ffi.h"
#include "xffi/runtime.h"
#include "xffi/testing.h"

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;
using xffi::testing::CallFrameBuilder;
using xffi::testing::Invoke;
using xffi::testing::InvokeOptions;

namespace binding_test {
struct Stream;
}

template <>
struct xffi::ffi::CtxBinding<binding_test::Stream*> {
  using Ctx = ffi::PlatformStream<binding_test::Stream*>;
};

namespace {

// Reads and frees an error returned straight from Call().
std::string TakeMessage(XLA_FFI_Error* error) {
  if (error == nullptr) return "ok";
  return ffi::internal::TakeError(xffi::GetApi(), error).message();
}

struct MetadataFrame {
  XLA_FFI_Metadata metadata{};
  XLA_FFI_Metadata_Extension extension{};
  XFFI_Signature_Extension signature{};
  XLA_FFI_CallFrame frame{};

  explicit MetadataFrame(XLA_FFI_ExecutionStage stage,
                         bool ask_signature = false) {
    metadata.struct_size = XLA_FFI_Metadata_STRUCT_SIZE;
    metadata.api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
    metadata.state_type_id.type_id = -1;  // must be overwritten
    extension.extension_base.struct_size =
        XLA_FFI_Metadata_Extension_STRUCT_SIZE;
    extension.extension_base.type = XLA_FFI_Extension_Metadata;
    extension.metadata = &metadata;
    if (ask_signature) {
      signature.extension_base.struct_size =
          XFFI_Signature_Extension_STRUCT_SIZE;
      signature.extension_base.type = XFFI_EXTENSION_SIGNATURE;
      extension.extension_base.next = &signature.extension_base;
    }
    frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
    frame.extension_start = &extension.extension_base;
    frame.api = xffi::GetApi();
    frame.stage = stage;
    frame.args.struct_size = XLA_FFI_Args_STRUCT_SIZE;
    frame.rets.struct_size = XLA_FFI_Rets_STRUCT_SIZE;
    frame.attrs.struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  }
};

TEST(FfiBinding, HandshakeAnswersVersionAndTraitsBeforeTheStage) {
  bool called = false;
  auto handler = ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().To(
      [&](ffi::AnyBuffer) {
        called = true;
        return ffi::Error::Success();
      },
      {ffi::Traits::kCmdBufferCompatible});
  // The runtime asks in whatever stage it likes; a handler bound to EXECUTE
  // must still answer, and never run.
  for (auto stage :
       {XLA_FFI_ExecutionStage_EXECUTE, XLA_FFI_ExecutionStage_INSTANTIATE}) {
    MetadataFrame m(stage);
    EXPECT_EQ(TakeMessage(handler->Call(&m.frame)), "ok");
    EXPECT_EQ(m.metadata.api_version.struct_size,
              static_cast<size_t>(XLA_FFI_Api_Version_STRUCT_SIZE));
    EXPECT_EQ(m.metadata.api_version.major_version, 0);
    EXPECT_EQ(m.metadata.api_version.minor_version, XFFI_TARGET_API_MINOR);
    EXPECT_EQ(m.metadata.traits,
              static_cast<XLA_FFI_Handler_Traits>(
                  XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE));
    EXPECT_EQ(m.metadata.state_type_id.type_id, 0);
  }
  EXPECT_FALSE(called);
}

TEST(FfiBinding, DefaultTargetVersionIsThree) {
  EXPECT_EQ(XFFI_TARGET_API_MINOR, 3);
}

TEST(FfiBinding, HandshakeRejectsShortMetadata) {
  auto handler = ffi::Ffi::Bind().To([] { return ffi::Error::Success(); });
  MetadataFrame m(XLA_FFI_ExecutionStage_EXECUTE);
  m.metadata.struct_size = 8;
  EXPECT_THAT(TakeMessage(handler->Call(&m.frame)),
              HasSubstr("XLA_FFI_Metadata is missing or has struct_size 8"));
  MetadataFrame e(XLA_FFI_ExecutionStage_EXECUTE);
  e.extension.extension_base.struct_size = 16;
  EXPECT_THAT(TakeMessage(handler->Call(&e.frame)),
              HasSubstr("XLA_FFI_Metadata_Extension has struct_size 16"));
}

TEST(FfiBinding, HandshakeFillsTheSignatureWhenAsked) {
  auto handler = ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().To(
      [](ffi::AnyBuffer) { return ffi::Error::Success(); });
  MetadataFrame m(XLA_FFI_ExecutionStage_EXECUTE, /*ask_signature=*/true);
  EXPECT_EQ(TakeMessage(handler->Call(&m.frame)), "ok");
  ASSERT_NE(m.signature.signature, nullptr);
  EXPECT_EQ(m.signature.signature, &handler->signature());
  EXPECT_EQ(m.signature.signature->num_params, 1);
}

TEST(FfiBinding, WrongStageIsAnError) {
  auto handler = ffi::Ffi::Bind().To([] { return ffi::Error::Success(); });
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  auto result = Invoke(*handler, frame, options);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(result.message(),
            "wrong execution stage: the handler is bound to EXECUTE, called "
            "in INSTANTIATE");
}

TEST(FfiBinding, EveryStageBinds) {
  auto frame = CallFrameBuilder().Build();
  auto ok = [] { return ffi::Error::Success(); };
  struct Case {
    std::unique_ptr<ffi::Ffi> handler;
    XLA_FFI_ExecutionStage stage;
  };
  Case cases[] = {
      {ffi::Ffi::BindInstantiate().To(ok), XLA_FFI_ExecutionStage_INSTANTIATE},
      {ffi::Ffi::BindPrepare().To(ok), XLA_FFI_ExecutionStage_PREPARE},
      {ffi::Ffi::BindInitialize().To(ok), XLA_FFI_ExecutionStage_INITIALIZE},
      {ffi::Ffi::BindExecute().To(ok), XLA_FFI_ExecutionStage_EXECUTE},
      {ffi::Ffi::Bind<ffi::ExecutionStage::kPrepare>().To(ok),
       XLA_FFI_ExecutionStage_PREPARE},
  };
  for (Case& c : cases) {
    InvokeOptions options;
    options.stage = c.stage;
    auto result = Invoke(*c.handler, frame, options);
    EXPECT_TRUE(result.ok()) << result.message();
    options.stage = c.stage == XLA_FFI_ExecutionStage_EXECUTE
                        ? XLA_FFI_ExecutionStage_PREPARE
                        : XLA_FFI_ExecutionStage_EXECUTE;
    EXPECT_FALSE(Invoke(*c.handler, frame, options).ok());
  }
}

TEST(FfiBinding, FrameSizeMustMatchExactly) {
  auto handler = ffi::Ffi::Bind().To([] { return ffi::Error::Success(); });
  MetadataFrame m(XLA_FFI_ExecutionStage_EXECUTE);
  m.frame.extension_start = nullptr;
  m.frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE - 8;
  EXPECT_EQ(TakeMessage(handler->Call(&m.frame)),
            "XLA_FFI_CallFrame has struct_size 160, expected 168 (the caller "
            "and handler disagree on the ABI)");
  m.frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
  EXPECT_EQ(TakeMessage(handler->Call(&m.frame)), "ok");
}

TEST(FfiBinding, ErrorsPassThroughWithTheirCode) {
  auto handler = ffi::Ffi::Bind().To(
      [] { return ffi::Error::ResourceExhausted("out of widgets"); });
  auto frame = CallFrameBuilder().Build();
  auto result = Invoke(*handler, frame);
  EXPECT_EQ(result.code(), XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_EQ(result.message(), "out of widgets");
}

TEST(FfiBinding, VoidFunctionsSucceed) {
  int calls = 0;
  auto handler = ffi::Ffi::Bind().To([&] { ++calls; });
  auto frame = CallFrameBuilder().Build();
  EXPECT_TRUE(Invoke(*handler, frame).ok());
  EXPECT_EQ(calls, 1);
}

constexpr char kEps[] = "eps";
constexpr char kCount[] = "count";

ffi::Error Inferred(ffi::Attr<float, kEps> eps, ffi::BufferR1<ffi::F32> x,
                    ffi::Attr<int32_t, kCount> count,
                    ffi::ResultBuffer<ffi::F32, 1> y, ffi::RunId run) {
  for (int32_t i = 0; i < *count; ++i) {
    y->typed_data()[i] = x.typed_data()[i] + eps.get();
  }
  EXPECT_EQ(run.run_id, 0);
  return ffi::Error::Success();
}

TEST(FfiBinding, BindToInfersFromTheSignature) {
  auto handler = ffi::Ffi::BindTo(Inferred);
  float x[2] = {1, 2}, y[2] = {};
  auto frame = CallFrameBuilder()
                   .Arg(x, {2})
                   .Ret(y, {2})
                   .Attr("count", 2)
                   .Attr("eps", 0.5f)
                   .Build();
  auto result = Invoke(*handler, frame);
  ASSERT_TRUE(result.ok()) << result.message();
  EXPECT_EQ(y[1], 2.5f);

  const XFFI_Signature& sig = handler->signature();
  ASSERT_EQ(sig.num_params, 5);
  EXPECT_EQ(sig.params[0].kind, XFFI_Param_ATTR);
  EXPECT_STREQ(sig.params[0].name, "eps");
  EXPECT_EQ(sig.params[1].kind, XFFI_Param_ARG);
  EXPECT_EQ(sig.params[3].kind, XFFI_Param_RET);
  EXPECT_EQ(sig.params[4].kind, XFFI_Param_CTX);

  auto wrong = CallFrameBuilder()
                   .Arg(x, {2})
                   .Ret(y, {2})
                   .Attr("count", 2.0f)
                   .Attr("eps", 0.5f)
                   .Build();
  EXPECT_EQ(Invoke(*handler, wrong).message(),
            "attribute 'count': expected int32_t (S32 scalar), got F32 scalar");
}

TEST(FfiBinding, BindToLambdasOptionalsAndRemaining) {
  auto handler =
      ffi::Ffi::BindTo([](ffi::AnyBuffer, std::optional<ffi::AnyBuffer> maybe,
                          ffi::Result<ffi::AnyBuffer>, ffi::RemainingRets rest,
                          ffi::Dictionary attrs) {
        EXPECT_FALSE(maybe.has_value());
        EXPECT_EQ(rest.size(), 1u);
        EXPECT_EQ(attrs.size(), 1u);
        return ffi::Error::Success();
      });
  float x[1] = {};
  auto frame = CallFrameBuilder()
                   .Arg(x, {1})
                   .Ret(x, {1})
                   .Ret(x, {1})
                   .Attr("a", 1)
                   .Build();
  auto result = Invoke(*handler, frame);
  EXPECT_TRUE(result.ok()) << result.message();
}

TEST(FfiBinding, BindToUsesBindingSpecialisations) {
  auto handler = ffi::Ffi::BindTo(
      [](binding_test::Stream*) { return ffi::Error::Success(); });
  ASSERT_EQ(handler->signature().num_params, 1);
  EXPECT_EQ(handler->signature().params[0].kind, XFFI_Param_CTX);
  auto frame = CallFrameBuilder().Build();
  // Host has no stream: the binding asked for one.
  EXPECT_THAT(Invoke(*handler, frame).message(),
              HasSubstr("cannot get the platform stream"));
}

TEST(FfiBinding, BindToOtherStages) {
  // XLA's order (the function's type, then the stage) and xffi's older one
  // (the stage alone).
  auto prepare = [](ffi::Dictionary) { return ffi::Error::Success(); };
  auto xla_order =
      ffi::Ffi::BindTo<decltype(prepare), ffi::ExecutionStage::kPrepare>(
          prepare);
  auto xffi_order = ffi::Ffi::BindTo<ffi::ExecutionStage::kPrepare>(prepare);
  auto frame = CallFrameBuilder().Build();
  InvokeOptions options;
  options.stage = XLA_FFI_ExecutionStage_PREPARE;
  EXPECT_TRUE(Invoke(*xla_order, frame, options).ok());
  EXPECT_TRUE(Invoke(*xffi_order, frame, options).ok());
  EXPECT_EQ(xla_order->signature().stage, XLA_FFI_ExecutionStage_PREPARE);
  options.stage = XLA_FFI_ExecutionStage_EXECUTE;
  EXPECT_THAT(Invoke(*xla_order, frame, options).message(),
              HasSubstr("wrong execution stage"));
}

ffi::Error Double(ffi::Buffer<ffi::F32, 1> x,
                  ffi::Result<ffi::Buffer<ffi::F32, 1>> y) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = 2 * x.typed_data()[i];
  }
  return ffi::Error::Success();
}

TEST(FfiBinding, WrapperCallsTheFunctionItNames) {
  using DoubleFn = ffi::Ffi::Wrapper<Double>;
  static_assert(std::is_empty_v<DoubleFn>,
                "the function is in the type, not in the object");
  float x[2] = {1, 2}, y[2] = {};
  auto frame = CallFrameBuilder().Arg(x, {2}).Ret(y, {2}).Build();
  auto bound = ffi::Ffi::Bind()
                   .Arg<ffi::Buffer<ffi::F32, 1>>()
                   .Ret<ffi::Buffer<ffi::F32, 1>>()
                   .To(DoubleFn());
  ASSERT_TRUE(Invoke(*bound, frame).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(2, 4));
  auto inferred = ffi::Ffi::BindTo(DoubleFn());
  y[0] = y[1] = 0;
  ASSERT_TRUE(Invoke(*inferred, frame).ok());
  EXPECT_THAT(y, ::testing::ElementsAre(2, 4));
}

TEST(FfiBinding, NamedBindingsBindMoreThanOnce) {
  // As in XLA, To() does not consume the binding.
  auto binding = ffi::Ffi::Bind().Attr<int32_t>("n");
  auto first = binding.To([](int32_t n) {
    return ffi::Error(ffi::ErrorCode::kAborted, std::to_string(n));
  });
  auto second = binding.To([](int32_t n) {
    return ffi::Error(ffi::ErrorCode::kAborted, std::to_string(n + 1));
  });
  auto frame = CallFrameBuilder().Attr("n", 4).Build();
  EXPECT_EQ(Invoke(*first, frame).message(), "4");
  EXPECT_EQ(Invoke(*second, frame).message(), "5");
}

TEST(FfiBinding, CtxWithoutTypeIsTheWholeContext) {
  xffi::ExecutionContext context;
  context.set_run_id(9);
  auto handler = ffi::Ffi::Bind().Ctx().To([](ffi::Context ctx) {
    return ffi::Error(ffi::ErrorCode::kAborted,
                      std::to_string(ctx.get<ffi::RunId>()->run_id));
  });
  InvokeOptions options;
  options.context = &context;
  auto frame = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(*handler, frame, options).message(), "9");
}

// A handler written by hand on Ffi, using the helpers XLA gives subclasses.
class HandWritten : public ffi::Ffi {
 public:
  XLA_FFI_Error* Call(XLA_FFI_CallFrame* frame) const override {
    if (XLA_FFI_Error* error = CheckStructSize(frame->api, "XLA_FFI_CallFrame",
                                               XLA_FFI_CallFrame_STRUCT_SIZE,
                                               frame->struct_size)) {
      return error;
    }
    if (XLA_FFI_Error* error = StructSizeIsGreaterOrEqual(
            frame->api, "XLA_FFI_Args", XLA_FFI_Args_STRUCT_SIZE + 8,
            frame->args.struct_size)) {
      return error;
    }
    return Success();
  }
  static XLA_FFI_Error* Fail(const XLA_FFI_Api* api) {
    return FailedPrecondition(api, "not now");
  }
  static XLA_FFI_Error* Make(const XLA_FFI_Api* api) {
    return MakeError(api, XLA_FFI_Error_Code_DATA_LOSS, "lost");
  }
};

TEST(FfiBinding, SubclassHelpersHaveXlaMessages) {
  HandWritten handler;
  auto frame = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(handler, frame).message(),
            "Unexpected XLA_FFI_Args size: expected at least 48 got 40. "
            "Check installed software versions.");
  frame.get()->struct_size = 160;
  frame.get()->api = xffi::GetApi();
  EXPECT_EQ(TakeMessage(handler.Call(frame.get())),
            "Unexpected XLA_FFI_CallFrame size: expected 168 got 160. Check "
            "installed software versions.");
  ffi::Error fail = ffi::internal::TakeError(xffi::GetApi(),
                                             HandWritten::Fail(xffi::GetApi()));
  EXPECT_EQ(fail.errc(), ffi::ErrorCode::kFailedPrecondition);
  EXPECT_EQ(fail.message(), "not now");
  ffi::Error made = ffi::internal::TakeError(xffi::GetApi(),
                                             HandWritten::Make(xffi::GetApi()));
  EXPECT_EQ(made.errc(), ffi::ErrorCode::kDataLoss);
}

TEST(FfiBinding, HandlersAreUsableThroughTheBaseClass) {
  std::unique_ptr<ffi::Ffi> handler =
      ffi::Ffi::Bind().To([] { return ffi::Error::Internal("via base"); });
  auto frame = CallFrameBuilder().Build();
  EXPECT_EQ(Invoke(*handler, frame).message(), "via base");
}

TEST(FfiBinding, MutableLambdaState) {
  int counter = 0;
  auto handler = ffi::Ffi::Bind().To([&counter]() mutable {
    ++counter;
    return ffi::Error::Success();
  });
  auto frame = CallFrameBuilder().Build();
  Invoke(*handler, frame);
  Invoke(*handler, frame);
  EXPECT_EQ(counter, 2);
}

}  // namespace
