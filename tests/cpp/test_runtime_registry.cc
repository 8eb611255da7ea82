// The handler registry and the registration handshake.
#include "xffi/runtime/registry.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "xffi/runtime/api.h"
#include "xffi/runtime/types.h"

namespace {

using ::testing::HasSubstr;

XLA_FFI_Error* MakeError(const XLA_FFI_Api* api, XLA_FFI_Error_Code code,
                         const char* message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  args.message = message;
  args.errc = code;
  return api->XLA_FFI_Error_Create(&args);
}

XLA_FFI_Metadata_Extension* MetadataOf(XLA_FFI_CallFrame* frame) {
  if (frame->extension_start == nullptr ||
      frame->extension_start->type != XLA_FFI_Extension_Metadata) {
    return nullptr;
  }
  return reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start);
}

// A handler built "for" API 0.Minor, answering the handshake as XLA's
// header does (the whole Api_Version, then traits).
template <int Major, int Minor, XLA_FFI_Handler_Traits Traits = 0>
XLA_FFI_Error* Versioned(XLA_FFI_CallFrame* frame) {
  if (XLA_FFI_Metadata_Extension* ext = MetadataOf(frame)) {
    ext->metadata->api_version = XLA_FFI_Api_Version{
        XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, Major, Minor};
    ext->metadata->traits = Traits;
    return nullptr;
  }
  return nullptr;
}

XLA_FFI_Handler* const kV3 = Versioned<0, 3>;
XLA_FFI_Handler* const kV5 = Versioned<0, 5>;

XLA_FFI_Handler_Bundle Bundle(XLA_FFI_Handler* execute) {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = execute;
  return bundle;
}

TEST(RuntimeRegistry, RegistersAndFindsWithCanonicalPlatforms) {
  ASSERT_TRUE(xffi::RegisterHandler("reg.basic", "cpu", Bundle(kV3)).ok());
  for (const char* spelling : {"Host", "host", "CPU", "cpu", "HoSt"}) {
    auto record = xffi::FindHandler("reg.basic", spelling);
    ASSERT_TRUE(record.ok()) << spelling << ": " << record.status().ToString();
    EXPECT_EQ((*record)->name, "reg.basic");
    EXPECT_EQ((*record)->platform, xffi::Platform::kHost);
    EXPECT_EQ((*record)->bundle.execute, kV3);
    EXPECT_EQ((*record)->api_major, 0);
    EXPECT_EQ((*record)->api_minor, 3);
    EXPECT_EQ((*record)->origin, "");
    EXPECT_EQ((*record)->signature, nullptr);
    EXPECT_EQ((*record)->state_type_id.type_id, 0);
  }
  auto missing = xffi::FindHandler("reg.basic", "CUDA");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_EQ(missing.status().message(),
            "no handler 'reg.basic' (platform CUDA) is registered");

  ASSERT_TRUE(xffi::RegisterHandler("reg.basic", "gpu", Bundle(kV5)).ok());
  for (const char* spelling : {"CUDA", "cuda", "gpu", "GPU"}) {
    auto record = xffi::FindHandler("reg.basic", spelling);
    ASSERT_TRUE(record.ok()) << spelling;
    EXPECT_EQ((*record)->platform, xffi::Platform::kCuda);
    EXPECT_EQ((*record)->api_minor, 5);
  }
}

TEST(RuntimeRegistry, IdenticalReRegistrationIsANoOp) {
  ASSERT_TRUE(xffi::RegisterHandler("reg.same", "Host", Bundle(kV5), 1).ok());
  auto first = xffi::FindHandler("reg.same", "Host");
  EXPECT_TRUE(xffi::RegisterHandler("reg.same", "cpu", Bundle(kV5), 1).ok());
  auto second = xffi::FindHandler("reg.same", "Host");
  EXPECT_EQ(*first, *second);
}

TEST(RuntimeRegistry, ConflictingRegistrationNamesBothOrigins) {
  {
    xffi::ScopedRegistrationOrigin origin("/libs/first.so");
    ASSERT_TRUE(
        xffi::RegisterHandler("reg.conflict", "Host", Bundle(kV5)).ok());
  }
  xffi::Status status;
  {
    xffi::ScopedRegistrationOrigin origin("/libs/second.so");
    status = xffi::RegisterHandler("reg.conflict", "cpu", Bundle(kV3));
  }
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_EQ(status.message(),
            "handler 'reg.conflict' (platform Host) is already registered by "
            "library '/libs/first.so'; the registration by library "
            "'/libs/second.so' has a different handler bundle, API version "
            "0.3 instead of 0.5");
  // The first registration stays.
  EXPECT_EQ((*xffi::FindHandler("reg.conflict", "Host"))->bundle.execute, kV5);
  EXPECT_EQ((*xffi::FindHandler("reg.conflict", "Host"))->origin,
            "/libs/first.so");
}

TEST(RuntimeRegistry, ReplaceTakesTheKeyAndKeepsTheOldRecordAlive) {
  {
    xffi::ScopedRegistrationOrigin origin("/libs/first.so");
    ASSERT_TRUE(xffi::RegisterHandler("reg.replace", "Host", Bundle(kV5)).ok());
  }
  const xffi::HandlerRecord* old = *xffi::FindHandler("reg.replace", "Host");
  {
    xffi::ScopedRegistrationOrigin origin("/libs/second.so");
    ASSERT_TRUE(xffi::ReplaceHandler("reg.replace", "cpu", Bundle(kV3)).ok());
  }
  const xffi::HandlerRecord* now = *xffi::FindHandler("reg.replace", "Host");
  EXPECT_NE(now, old);
  EXPECT_EQ(now->bundle.execute, kV3);
  EXPECT_EQ(now->origin, "/libs/second.so");
  // Whoever resolved the old record (a compiled executable) still holds a
  // valid one.
  EXPECT_EQ(old->bundle.execute, kV5);
  EXPECT_EQ(old->origin, "/libs/first.so");
  // Replacing with the identical handler changes nothing; replacing a free
  // key registers it; the ordinary rule still refuses a different one.
  ASSERT_TRUE(xffi::ReplaceHandler("reg.replace", "Host", Bundle(kV3)).ok());
  EXPECT_EQ(*xffi::FindHandler("reg.replace", "Host"), now);
  EXPECT_TRUE(
      xffi::ReplaceHandler("reg.replace.new", "Host", Bundle(kV5)).ok());
  EXPECT_EQ(xffi::RegisterHandler("reg.replace", "Host", Bundle(kV5)).code(),
            XLA_FFI_Error_Code_ALREADY_EXISTS);
  // A bad handler is refused before anything is replaced.
  EXPECT_FALSE(
      xffi::ReplaceHandler("reg.replace", "Host", Bundle(nullptr)).ok());
  EXPECT_EQ(*xffi::FindHandler("reg.replace", "Host"), now);
}

TEST(RuntimeRegistry, ConflictingTraitsAreRefused) {
  ASSERT_TRUE(xffi::RegisterHandler("reg.traits", "Host", Bundle(kV5)).ok());
  xffi::Status status =
      xffi::RegisterHandler("reg.traits", "Host", Bundle(kV5), 1);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_EQ(status.message(),
            "handler 'reg.traits' (platform Host) is already registered by a "
            "static registration; the registration by a static registration "
            "has traits 1 instead of 0");
}

TEST(RuntimeRegistry, TraitsAreOredWithTheMetadata) {
  XLA_FFI_Handler* with_traits =
      Versioned<0, 5, XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE>;
  ASSERT_TRUE(
      xffi::RegisterHandler("reg.or", "Host", Bundle(with_traits)).ok());
  EXPECT_EQ((*xffi::FindHandler("reg.or", "Host"))->traits, 1u);
  ASSERT_TRUE(xffi::RegisterHandler("reg.or2", "Host", Bundle(kV5), 4).ok());
  EXPECT_EQ((*xffi::FindHandler("reg.or2", "Host"))->traits, 4u);
  ASSERT_TRUE(
      xffi::RegisterHandler("reg.or3", "Host", Bundle(with_traits), 4).ok());
  EXPECT_EQ((*xffi::FindHandler("reg.or3", "Host"))->traits, 5u);
}

TEST(RuntimeRegistry, RejectsBadRegistrations) {
  xffi::Status no_execute =
      xffi::RegisterHandler("reg.bad", "Host", XLA_FFI_Handler_Bundle{});
  EXPECT_EQ(no_execute.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(no_execute.message(),
            "handler 'reg.bad' (platform Host): the bundle has no execute "
            "handler (required)");

  xffi::Status no_name = xffi::RegisterHandler("", "Host", Bundle(kV5));
  EXPECT_EQ(no_name.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(no_name.message(), HasSubstr("non-empty name"));

  xffi::Status bad_platform =
      xffi::RegisterHandler("reg.bad", "ROCM", Bundle(kV5));
  EXPECT_EQ(bad_platform.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(bad_platform.message(), HasSubstr("handler 'reg.bad'"));
  EXPECT_THAT(bad_platform.message(), HasSubstr("unknown platform 'ROCM'"));
  EXPECT_FALSE(xffi::FindHandler("reg.bad", "Host").ok());
}

TEST(RuntimeRegistry, VersionPolicy) {
  struct Case {
    XLA_FFI_Handler* handler;
    const char* version;
    bool accepted;
  };
  const Case cases[] = {
      {Versioned<0, 0>, "0.0", false}, {Versioned<0, 1>, "0.1", true},
      {Versioned<0, 2>, "0.2", true},  {Versioned<0, 3>, "0.3", true},
      {Versioned<0, 4>, "0.4", true},  {Versioned<0, 5>, "0.5", true},
      {Versioned<0, 6>, "0.6", false}, {Versioned<1, 3>, "1.3", false},
  };
  for (const Case& c : cases) {
    std::string name = std::string("reg.version.") + c.version;
    xffi::Status status =
        xffi::RegisterHandler(name, "Host", Bundle(c.handler));
    if (c.accepted) {
      EXPECT_TRUE(status.ok()) << c.version << ": " << status.ToString();
      continue;
    }
    EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_EQ(status.message(), "handler '" + name +
                                    "' (platform Host) was built for XLA FFI "
                                    "API " +
                                    c.version +
                                    "; this runtime supports 0.1 to 0.5");
    EXPECT_FALSE(xffi::FindHandler(name, "Host").ok());
  }
}

XLA_FFI_Error* FailsHandshake(XLA_FFI_CallFrame* frame) {
  return MakeError(frame->api, XLA_FFI_Error_Code_FAILED_PRECONDITION,
                   "no metadata for you");
}
XLA_FFI_Error* Silent(XLA_FFI_CallFrame*) { return nullptr; }
XLA_FFI_Error* Throws(XLA_FFI_CallFrame*) { throw std::runtime_error("boom"); }

TEST(RuntimeRegistry, HandlersThatDoNotAnswerTheHandshake) {
  xffi::Status failed =
      xffi::RegisterHandler("reg.fails", "Host", Bundle(FailsHandshake));
  EXPECT_EQ(failed.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(failed.message(),
            "handler 'reg.fails' (platform Host): the execute handler failed "
            "the metadata query: no metadata for you");

  xffi::Status silent =
      xffi::RegisterHandler("reg.silent", "CUDA", Bundle(Silent));
  EXPECT_EQ(silent.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(silent.message(),
            "handler 'reg.silent' (platform CUDA): the execute handler "
            "returned without answering the metadata query (it wrote no API "
            "version); is it a typed FFI handler built with an XLA FFI or "
            "xffi header?");

  xffi::Status threw =
      xffi::RegisterHandler("reg.throws", "Host", Bundle(Throws));
  EXPECT_EQ(threw.code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_THAT(threw.message(), HasSubstr("threw a C++ exception"));
  EXPECT_THAT(threw.message(), HasSubstr("boom"));
}

// What the handshake frame looked like, as the handler saw it.
struct Seen {
  int calls = 0;
  size_t frame_size = 0;
  const XLA_FFI_Api* api = nullptr;
  void* ctx = reinterpret_cast<void*>(1);
  XLA_FFI_ExecutionStage stage = XLA_FFI_ExecutionStage_INSTANTIATE;
  size_t args_size = 0, rets_size = 0, attrs_size = 0;
  int64_t nargs = -1, nrets = -1, nattrs = -1;
  size_t metadata_ext_size = 0, metadata_size = 0;
  bool has_second = false;
  uint32_t second_type = 0;
  size_t second_size = 0;
} seen;

const XFFI_Param kParams[] = {
    {XFFI_Param_ARG, XLA_FFI_DataType_F32, 2, (XLA_FFI_AttrType)0, nullptr,
     "Buffer<F32, 2>"},
    {XFFI_Param_ATTR, XLA_FFI_DataType_F32, 0, XLA_FFI_AttrType_SCALAR, "eps",
     "float"},
};
const XFFI_Signature kSignature = {XFFI_Signature_STRUCT_SIZE,
                                   XLA_FFI_ExecutionStage_EXECUTE, 2, kParams};

XLA_FFI_Error* Inspecting(XLA_FFI_CallFrame* frame) {
  XLA_FFI_Metadata_Extension* ext = MetadataOf(frame);
  if (ext == nullptr) return nullptr;
  ++seen.calls;
  seen.frame_size = frame->struct_size;
  seen.api = frame->api;
  seen.ctx = frame->ctx;
  seen.stage = frame->stage;
  seen.args_size = frame->args.struct_size;
  seen.rets_size = frame->rets.struct_size;
  seen.attrs_size = frame->attrs.struct_size;
  seen.nargs = frame->args.size;
  seen.nrets = frame->rets.size;
  seen.nattrs = frame->attrs.size;
  seen.metadata_ext_size = ext->extension_base.struct_size;
  seen.metadata_size = ext->metadata->struct_size;
  XLA_FFI_InternalExtension* second = ext->extension_base.next;
  seen.has_second = second != nullptr;
  if (second != nullptr) {
    // Read as an integer: the signature type is outside the C enum's range.
    std::memcpy(&seen.second_type, &second->type, sizeof(seen.second_type));
    seen.second_size = second->struct_size;
    if (seen.second_type == 0x78666669u) {
      reinterpret_cast<XFFI_Signature_Extension*>(second)->signature =
          &kSignature;
    }
  }
  ext->metadata->api_version =
      XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 4};
  return nullptr;
}

TEST(RuntimeRegistry, HandshakeFrameIsXlas) {
  seen = Seen{};
  ASSERT_TRUE(
      xffi::RegisterHandler("reg.inspect", "Host", Bundle(Inspecting)).ok());
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.frame_size, XLA_FFI_CallFrame_STRUCT_SIZE);
  EXPECT_EQ(seen.api, xffi::GetApi());
  EXPECT_EQ(seen.ctx, nullptr);
  EXPECT_EQ(seen.stage, XLA_FFI_ExecutionStage_EXECUTE);
  EXPECT_EQ(seen.args_size, XLA_FFI_Args_STRUCT_SIZE);
  EXPECT_EQ(seen.rets_size, XLA_FFI_Rets_STRUCT_SIZE);
  EXPECT_EQ(seen.attrs_size, XLA_FFI_Attrs_STRUCT_SIZE);
  EXPECT_EQ(seen.nargs, 0);
  EXPECT_EQ(seen.nrets, 0);
  EXPECT_EQ(seen.nattrs, 0);
  EXPECT_EQ(seen.metadata_ext_size, XLA_FFI_Metadata_Extension_STRUCT_SIZE);
  EXPECT_EQ(seen.metadata_size, XLA_FFI_Metadata_STRUCT_SIZE);
  ASSERT_TRUE(seen.has_second);
  EXPECT_EQ(seen.second_type, 0x78666669u);
  EXPECT_EQ(seen.second_size, XFFI_Signature_Extension_STRUCT_SIZE);

  auto record = xffi::FindHandler("reg.inspect", "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->signature, &kSignature);
  EXPECT_EQ((*record)->api_minor, 4);
}

XLA_FFI_TypeId state_type{0};

XLA_FFI_Error* InstantiateWithState(XLA_FFI_CallFrame* frame) {
  if (XLA_FFI_Metadata_Extension* ext = MetadataOf(frame)) {
    ext->metadata->api_version =
        XLA_FFI_Api_Version{XLA_FFI_Api_Version_STRUCT_SIZE, nullptr, 0, 5};
    ext->metadata->state_type_id = state_type;
  }
  return nullptr;
}

TEST(RuntimeRegistry, InstantiateReportsTheStateType) {
  auto id = xffi::RegisterType("reg.State", XLA_FFI_TypeId{0}, nullptr);
  ASSERT_TRUE(id.ok());
  state_type = *id;
  XLA_FFI_Handler_Bundle bundle = Bundle(kV5);
  bundle.instantiate = InstantiateWithState;
  ASSERT_TRUE(xffi::RegisterHandler("reg.state", "Host", bundle).ok());
  auto record = xffi::FindHandler("reg.state", "Host");
  EXPECT_EQ((*record)->state_type_id.type_id, id->type_id);
  EXPECT_EQ((*record)->bundle.instantiate, InstantiateWithState);

  XLA_FFI_Handler_Bundle failing = Bundle(kV5);
  failing.instantiate = FailsHandshake;
  xffi::Status status = xffi::RegisterHandler("reg.state.bad", "Host", failing);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_FAILED_PRECONDITION);
  EXPECT_THAT(status.message(),
              HasSubstr("the instantiate handler failed the metadata query"));
}

TEST(RuntimeRegistry, ListHandlersPerPlatformSortedByName) {
  {
    xffi::ScopedRegistrationOrigin origin("/lib/list.so");
    ASSERT_TRUE(
        xffi::RegisterHandler("reg.list.b", "CUDA", Bundle(kV3), 1).ok());
  }
  ASSERT_TRUE(xffi::RegisterHandler("reg.list.a", "CUDA", Bundle(kV5)).ok());
  std::vector<const xffi::HandlerRecord*> cuda =
      xffi::ListHandlers(xffi::Platform::kCuda);
  std::vector<std::string> names;
  const xffi::HandlerRecord* b = nullptr;
  for (const xffi::HandlerRecord* r : cuda) {
    EXPECT_EQ(r->platform, xffi::Platform::kCuda);
    names.push_back(r->name);
    if (r->name == "reg.list.b") b = r;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->api_minor, 3);
  EXPECT_EQ(b->traits, 1u);
  EXPECT_EQ(b->origin, "/lib/list.so");
  for (const xffi::HandlerRecord* r :
       xffi::ListHandlers(xffi::Platform::kHost)) {
    EXPECT_NE(r->name, "reg.list.a");
  }
}

TEST(RuntimeRegistry, OriginsNest) {
  EXPECT_EQ(xffi::CurrentRegistrationOrigin(), "");
  {
    xffi::ScopedRegistrationOrigin outer("outer");
    {
      xffi::ScopedRegistrationOrigin inner("inner");
      EXPECT_EQ(xffi::CurrentRegistrationOrigin(), "inner");
    }
    EXPECT_EQ(xffi::CurrentRegistrationOrigin(), "outer");
  }
  EXPECT_EQ(xffi::CurrentRegistrationOrigin(), "");
}

TEST(RuntimeRegistry, DescribeDoesNotRegister) {
  seen = Seen{};
  auto record = xffi::DescribeHandler("reg.describe", Bundle(Inspecting));
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->name, "reg.describe");
  EXPECT_EQ(record->api_minor, 4);
  EXPECT_EQ(record->signature, &kSignature);
  EXPECT_FALSE(xffi::FindHandler("reg.describe", "Host").ok());
  auto bad = xffi::DescribeHandler("reg.describe", Bundle(Versioned<0, 9>));
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("0.9"));
}

TEST(RuntimeRegistry, ConcurrentRegistrations) {
  std::vector<std::thread> threads;
  std::vector<xffi::Status> shared(8), own(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &shared, &own] {
      shared[t] = xffi::RegisterHandler("reg.concurrent", "Host", Bundle(kV5));
      own[t] = xffi::RegisterHandler("reg.concurrent." + std::to_string(t),
                                     "CUDA", Bundle(kV3));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) {
    EXPECT_TRUE(shared[t].ok()) << shared[t].ToString();
    EXPECT_TRUE(own[t].ok()) << own[t].ToString();
    EXPECT_TRUE(
        xffi::FindHandler("reg.concurrent." + std::to_string(t), "gpu").ok());
  }
}

// ------------------------------------------------ through the API table

XLA_FFI_Error* RegisterNew(const char* name, const char* platform,
                           XLA_FFI_Handler* execute, XLA_FFI_Handler* record,
                           XLA_FFI_Handler_Traits traits) {
  XLA_FFI_Handler_Register_Args args{};
  args.struct_size = XLA_FFI_Handler_Register_Args_STRUCT_SIZE;
  args.name = {name, std::strlen(name)};
  args.platform = {platform, std::strlen(platform)};
  args.bundle.execute = execute;
  args.bundle.record = record;
  args.traits = traits;
  return xffi::GetApi()->XLA_FFI_Handler_Register(&args);
}

// The 0.1-0.3 layout: a bundle without `record`, traits at offset 80.
struct OldRegisterArgs {
  size_t struct_size;
  XLA_FFI_InternalExtension* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
  XLA_FFI_Handler_Traits traits;
};
static_assert(offsetof(OldRegisterArgs, traits) == 80);
static_assert(XLA_FFI_STRUCT_SIZE(OldRegisterArgs, traits) == 84);

std::string Message(XLA_FFI_Error* error) {
  XLA_FFI_Error_GetDetails_Args args{};
  args.struct_size = XLA_FFI_Error_GetDetails_Args_STRUCT_SIZE;
  args.error = error;
  xffi::GetApi()->XLA_FFI_Error_GetDetails(&args);
  std::string message = args.message;
  XLA_FFI_Error_Destroy_Args destroy{};
  destroy.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  xffi::GetApi()->XLA_FFI_Error_Destroy(&destroy);
  return message;
}

TEST(RuntimeRegistryCApi, NewLayout) {
  ASSERT_EQ(RegisterNew("reg.c.new", "Host", kV5, kV5, 1), nullptr);
  auto record = xffi::FindHandler("reg.c.new", "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->bundle.record, kV5);
  EXPECT_EQ((*record)->traits, 1u);
}

TEST(RuntimeRegistryCApi, OldLayoutReadsTraitsAtOffset80) {
  OldRegisterArgs args{};
  args.struct_size = 84;
  args.name = {"reg.c.old", 9};
  args.platform = {"CPU", 3};
  args.execute = kV3;
  args.traits = 1;
  ASSERT_EQ(xffi::GetApi()->XLA_FFI_Handler_Register(
                reinterpret_cast<XLA_FFI_Handler_Register_Args*>(&args)),
            nullptr);
  auto record = xffi::FindHandler("reg.c.old", "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->traits, 1u);
  EXPECT_EQ((*record)->bundle.execute, kV3);
  EXPECT_EQ((*record)->bundle.record, nullptr);
  EXPECT_EQ((*record)->api_minor, 3);
}

TEST(RuntimeRegistryCApi, ErrorsComeBackAsXlaFfiErrors) {
  EXPECT_EQ(Message(xffi::GetApi()->XLA_FFI_Handler_Register(nullptr)),
            "XLA_FFI_Handler_Register: the XLA_FFI_Handler_Register_Args "
            "pointer is null");
  XLA_FFI_Handler_Register_Args small{};
  small.struct_size = 80;
  EXPECT_EQ(Message(xffi::GetApi()->XLA_FFI_Handler_Register(&small)),
            "XLA_FFI_Handler_Register: XLA_FFI_Handler_Register_Args."
            "struct_size is 80 but must be at least 84");
  EXPECT_EQ(
      Message(RegisterNew("reg.c.v9", "Host", Versioned<0, 9>, nullptr, 0)),
      "handler 'reg.c.v9' (platform Host) was built for XLA FFI API "
      "0.9; this runtime supports 0.1 to 0.5");
}

}  // namespace
