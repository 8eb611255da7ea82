// Describing registered targets: FFI handlers with and without a
// self-described signature, legacy targets, traits, and the text form.
#include "xffi/runtime/introspect.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "xffi/ffi.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace {

using ::testing::HasSubstr;
using ::xffi::DescribeTargets;
using ::xffi::Platform;
using ::xffi::TargetDescription;
using ::xffi::TargetKind;

ffi::Error NormImpl(ffi::Buffer<ffi::F32, 1>, float,
                    ffi::ResultBuffer<ffi::F32, 1>) {
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kNorm, NormImpl,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Attr<float>("eps")
                        .Ret<ffi::Buffer<ffi::F32, 1>>());

// A handler written against the C ABI alone: it answers the handshake and
// ignores xffi's signature extension, as XLA-header handlers do.
XLA_FFI_Error* Plain(XLA_FFI_CallFrame* frame) {
  if (frame->extension_start != nullptr) {
    auto* metadata =
        reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start)
            ->metadata;
    metadata->api_version.major_version = 0;
    metadata->api_version.minor_version = 2;
    metadata->traits = XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE;
  }
  return nullptr;
}

void LegacyTarget(void*, const void**) {}

const TargetDescription* Find(const std::vector<TargetDescription>& targets,
                              const std::string& name, TargetKind kind) {
  auto it = std::find_if(targets.begin(), targets.end(),
                         [&](const TargetDescription& t) {
                           return t.name == name && t.kind == kind;
                         });
  return it == targets.end() ? nullptr : &*it;
}

class Introspect : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    XLA_FFI_Handler_Bundle norm{};
    norm.execute = kNorm;
    ASSERT_TRUE(xffi::RegisterHandler("introspect_norm", "Host", norm).ok());
    XLA_FFI_Handler_Bundle plain{};
    plain.execute = Plain;
    ASSERT_TRUE(xffi::RegisterHandler("introspect_plain", "CUDA", plain).ok());
    void* legacy = reinterpret_cast<void*>(&LegacyTarget);
    ASSERT_TRUE(xffi::RegisterLegacyTarget("introspect_legacy", legacy, "Host",
                                           xffi::LegacyApiVersion::kOriginal)
                    .ok());
    ASSERT_TRUE(
        xffi::RegisterLegacyTarget("introspect_vague", legacy, "Host").ok());
    // The same name as an FFI handler: both are listed.
    ASSERT_TRUE(xffi::RegisterLegacyTarget("introspect_norm", legacy, "Host",
                                           xffi::LegacyApiVersion::kOriginal)
                    .ok());
  }
};

TEST_F(Introspect, FfiHandlerDescribesItsSignature) {
  auto targets = DescribeTargets(Platform::kHost);
  const TargetDescription* norm =
      Find(targets, "introspect_norm", TargetKind::kFfi);
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->platform, Platform::kHost);
  EXPECT_EQ(norm->api_major, 0);
  EXPECT_GE(norm->api_minor, 1);
  EXPECT_EQ(norm->api_version, "0." + std::to_string(norm->api_minor));
  EXPECT_EQ(norm->traits, 0u);
  EXPECT_EQ(norm->stages, std::vector<std::string>{"execute"});
  EXPECT_EQ(norm->signature,
            "execute(Buffer<F32, 1> arg0, Attr<float> eps) -> "
            "(Buffer<F32, 1>)");
  EXPECT_EQ(norm->origin, "");
}

TEST_F(Introspect, PlainHandlerHasVersionAndTraitsButNoSignature) {
  auto targets = DescribeTargets(Platform::kCuda);
  const TargetDescription* plain =
      Find(targets, "introspect_plain", TargetKind::kFfi);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->api_version, "0.2");
  EXPECT_EQ(plain->traits, XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  EXPECT_EQ(plain->signature, "");
  EXPECT_EQ(Find(DescribeTargets(Platform::kHost), "introspect_plain",
                 TargetKind::kFfi),
            nullptr);
  std::string line = xffi::FormatTarget(*plain);
  EXPECT_THAT(line, HasSubstr("CUDA ffi introspect_plain"));
  EXPECT_THAT(line, HasSubstr("traits COMMAND_BUFFER_COMPATIBLE"));
  EXPECT_THAT(line, HasSubstr("(signature not described)"));
}

TEST_F(Introspect, LegacyTargetsShowTheirConvention) {
  auto targets = DescribeTargets(Platform::kHost);
  const TargetDescription* legacy =
      Find(targets, "introspect_legacy", TargetKind::kLegacy);
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->api_version, "1 (ORIGINAL)");
  EXPECT_EQ(legacy->legacy_api_version, xffi::LegacyApiVersion::kOriginal);
  EXPECT_EQ(legacy->signature, "void(void* out, const void** in)");

  const TargetDescription* vague =
      Find(targets, "introspect_vague", TargetKind::kLegacy);
  ASSERT_NE(vague, nullptr);
  EXPECT_EQ(vague->api_version, "unspecified");
  EXPECT_THAT(xffi::FormatTarget(*vague),
              HasSubstr("calling convention set by the call site"));
}

TEST_F(Introspect, SortedByNameFfiFirst) {
  auto targets = DescribeTargets(Platform::kHost);
  for (size_t i = 1; i < targets.size(); ++i) {
    EXPECT_LE(targets[i - 1].name, targets[i].name);
  }
  auto ffi = std::find_if(targets.begin(), targets.end(), [](const auto& t) {
    return t.name == "introspect_norm";
  });
  ASSERT_NE(ffi, targets.end());
  EXPECT_EQ(ffi->kind, TargetKind::kFfi);
  ASSERT_NE(ffi + 1, targets.end());
  EXPECT_EQ((ffi + 1)->name, "introspect_norm");
  EXPECT_EQ((ffi + 1)->kind, TargetKind::kLegacy);

  auto all = DescribeTargets();
  EXPECT_EQ(all.size(),
            targets.size() + DescribeTargets(Platform::kCuda).size());
  EXPECT_EQ(all.front().platform, Platform::kHost);
  EXPECT_EQ(all.back().platform, Platform::kCuda);
}

TEST_F(Introspect, TextLines) {
  auto lines = xffi::DescribeTargetsText(Platform::kHost);
  auto has = [&](const std::string& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(has("Host ffi introspect_norm [api 0."));
  EXPECT_TRUE(
      has("traits none, stages execute] execute(Buffer<F32, 1> arg0, "
          "Attr<float> eps) -> (Buffer<F32, 1>)"));
  EXPECT_TRUE(
      has("Host legacy introspect_legacy [api 1 (ORIGINAL)] "
          "void(void* out, const void** in)"));
}

TEST(RenderSignature, EveryParameterKind) {
  XFFI_Param params[] = {
      {XFFI_Param_ARG, XLA_FFI_DataType_F32, 2, XLA_FFI_AttrType(0), nullptr,
       "Buffer<F32, 2>"},
      {XFFI_Param_OPTIONAL_ARG, XLA_FFI_DataType_INVALID, -1,
       XLA_FFI_AttrType(0), nullptr, nullptr},
      {XFFI_Param_REMAINING_ARGS, XLA_FFI_DataType_INVALID, -1,
       XLA_FFI_AttrType(0), nullptr, nullptr},
      {XFFI_Param_ATTR, XLA_FFI_DataType_S32, 0, XLA_FFI_AttrType_SCALAR, "n",
       "int32_t"},
      {XFFI_Param_ATTRS, XLA_FFI_DataType_INVALID, 0,
       XLA_FFI_AttrType_DICTIONARY, nullptr, "Dictionary"},
      {XFFI_Param_CTX, XLA_FFI_DataType_INVALID, 0, XLA_FFI_AttrType(0),
       nullptr, "PlatformStream<void*>"},
      {XFFI_Param_RET, XLA_FFI_DataType_S8, 3, XLA_FFI_AttrType(0), nullptr,
       nullptr},
      {XFFI_Param_OPTIONAL_RET, XLA_FFI_DataType_F64, -1, XLA_FFI_AttrType(0),
       nullptr, nullptr},
      {XFFI_Param_REMAINING_RETS, XLA_FFI_DataType_INVALID, -1,
       XLA_FFI_AttrType(0), nullptr, nullptr},
  };
  XFFI_Signature signature{XFFI_Signature_STRUCT_SIZE,
                           XLA_FFI_ExecutionStage_INSTANTIATE,
                           sizeof(params) / sizeof(params[0]), params};
  EXPECT_EQ(xffi::RenderSignature(signature),
            "instantiate(Buffer<F32, 2> arg0, Optional<AnyBuffer> arg1, "
            "RemainingArgs args..., Attr<int32_t> n, Attrs<Dictionary>, "
            "Ctx<PlatformStream<void*>>) -> (Buffer<S8, 3>, "
            "Optional<Buffer<F64>>, RemainingRets...)");

  XFFI_Signature empty{XFFI_Signature_STRUCT_SIZE,
                       XLA_FFI_ExecutionStage_EXECUTE, 0, nullptr};
  EXPECT_EQ(xffi::RenderSignature(empty), "execute() -> ()");
}

TEST(RenderTraits, KnownAndUnknownBits) {
  EXPECT_EQ(xffi::RenderTraits(0), "none");
  EXPECT_EQ(xffi::RenderTraits(1), "COMMAND_BUFFER_COMPATIBLE");
  EXPECT_EQ(xffi::RenderTraits(1 | 8), "COMMAND_BUFFER_COMPATIBLE|0x8");
  EXPECT_EQ(xffi::RenderTraits(4), "0x4");
}

}  // namespace

namespace {

TEST(DescribeExportedHandlers, SelfDescribingHandler) {
  auto plugin = xffi::Plugin::Load(XFFI_TEST_PLUGIN_DESCRIBED_HANDLERS);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  auto targets = xffi::DescribeExportedHandlers(**plugin);
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 1u);
  const TargetDescription& target = (*targets)[0];
  EXPECT_EQ(target.name, "DescribedScale");
  EXPECT_EQ(target.kind, TargetKind::kFfi);
  EXPECT_EQ(target.origin, (*plugin)->origin());
  EXPECT_EQ(target.signature,
            "execute(Buffer<F32, 1> arg0, Attr<float> eps) -> "
            "(Buffer<F32, 1>)");
  // Described, not registered.
  EXPECT_FALSE(xffi::FindHandler("DescribedScale", "Host").ok());
}

TEST(DescribeExportedHandlers, PlainHandlersHaveNoSignature) {
  auto plugin = xffi::Plugin::Load(XFFI_TEST_PLUGIN_EXPORTED_HANDLERS);
  ASSERT_TRUE(plugin.ok()) << plugin.status().ToString();
  auto targets = xffi::DescribeExportedHandlers(**plugin);
  ASSERT_TRUE(targets.ok()) << targets.status().ToString();
  ASSERT_EQ(targets->size(), 2u);
  EXPECT_EQ((*targets)[0].name, "exported_double");
  EXPECT_EQ((*targets)[0].api_version, "0.3");
  EXPECT_EQ((*targets)[0].signature, "");
}

}  // namespace
