// The legacy target registry and the registration macros.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "xffi/custom_call_target.h"
#include "xffi/runtime/legacy.h"

namespace {

using ::testing::HasSubstr;
using ::xffi::FindLegacyTarget;
using ::xffi::LegacyApiVersion;
using ::xffi::ListLegacyTargets;
using ::xffi::Platform;
using ::xffi::RegisterLegacyTarget;

extern "C" void host_v1(void*, const void**) {}
extern "C" void host_v1_other(void*, const void**) {}
extern "C" void host_v2(void*, const void**, XlaCustomCallStatus*) {}
extern "C" void host_v3(void*, const void**, const char*, size_t,
                        XlaCustomCallStatus*) {}
extern "C" void cuda_v1(void*, void**, const char*, size_t) {}
extern "C" void cuda_v2(void*, void**, const char*, size_t,
                        XlaCustomCallStatus*) {}
// The blog's Cython target: a non-const `in`.
extern "C" void host_v1_nonconst(void*, void**) {}
void four_params(void*, void*, void*, void*) {}

void* Fn(void (*function)(void*, const void**)) {
  return reinterpret_cast<void*>(function);
}

// Registered at load time through the weak entry point.
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(host_v1);
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("macro_v2", host_v2);
XFFI_REGISTER_CUSTOM_CALL_TARGET(host_v3, "cpu");
XFFI_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("macro_cuda_v1", cuda_v1, "gpu");
XLA_REGISTER_CUSTOM_CALL_TARGET(cuda_v2, "CUDA");
XLA_CPU_REGISTER_CUSTOM_CALL_TARGET_WITH_SYM("xla_spelling", host_v1_nonconst);
// Four parameters fit no Host convention: refused (printed, not fatal).
XFFI_CPU_REGISTER_CUSTOM_CALL_TARGET(four_params);

TEST(LegacyRegistry, MacrosRegisterWithTheVersionOfTheSignature) {
  struct Expected {
    const char* name;
    const char* platform;
    LegacyApiVersion version;
  };
  for (const Expected& e : {
           Expected{"host_v1", "Host", LegacyApiVersion::kOriginal},
           Expected{"macro_v2", "Host", LegacyApiVersion::kStatusReturning},
           Expected{"host_v3", "Host",
                    LegacyApiVersion::kStatusReturningUnified},
           Expected{"macro_cuda_v1", "CUDA", LegacyApiVersion::kOriginal},
           Expected{"cuda_v2", "CUDA", LegacyApiVersion::kStatusReturning},
           Expected{"xla_spelling", "Host", LegacyApiVersion::kOriginal},
       }) {
    auto record = FindLegacyTarget(e.name, e.platform);
    ASSERT_TRUE(record.ok()) << e.name << ": " << record.status().ToString();
    EXPECT_EQ((*record)->name, e.name);
    EXPECT_EQ((*record)->api_version, e.version) << e.name;
    EXPECT_EQ((*record)->origin, "") << e.name;
  }
  EXPECT_EQ((*FindLegacyTarget("host_v1", "cpu"))->function,
            reinterpret_cast<void*>(&host_v1));
}

TEST(LegacyRegistry, MacroWithAnImpossibleSignatureRegistersNothing) {
  auto record = FindLegacyTarget("four_params", "Host");
  EXPECT_EQ(record.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
}

TEST(LegacyRegistry, CEntryPointReportsErrors) {
  EXPECT_EQ(XFFI_RegisterCustomCallTarget("c_entry", Fn(host_v1), "Host", 0, 2),
            XLA_FFI_Error_Code_OK);
  EXPECT_EQ(
      XFFI_RegisterCustomCallTarget("c_entry", Fn(host_v1_other), "Host", 0, 2),
      XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_EQ(XFFI_RegisterCustomCallTarget("c_entry_bad_platform", Fn(host_v1),
                                          "tpu", 0, 2),
            XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(
      XFFI_RegisterCustomCallTarget("c_entry_arity", Fn(host_v1), "CUDA", 0, 2),
      XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

TEST(LegacyRegistry, PlatformsAreCanonicalised) {
  ASSERT_TRUE(RegisterLegacyTarget("canon", Fn(host_v1), "cPu").ok());
  auto record = FindLegacyTarget("canon", "HOST");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ((*record)->platform, Platform::kHost);
}

TEST(LegacyRegistry, IdenticalReRegistrationIsANoOp) {
  ASSERT_TRUE(RegisterLegacyTarget("again", Fn(host_v1), "Host",
                                   LegacyApiVersion::kOriginal)
                  .ok());
  EXPECT_TRUE(RegisterLegacyTarget("again", Fn(host_v1), "host",
                                   LegacyApiVersion::kOriginal)
                  .ok());
  EXPECT_TRUE(RegisterLegacyTarget("again", Fn(host_v1), "cpu").ok());
}

TEST(LegacyRegistry, NamingTheVersionLaterRefinesTheRecord) {
  ASSERT_TRUE(RegisterLegacyTarget("refine", Fn(host_v1), "Host").ok());
  EXPECT_EQ((*FindLegacyTarget("refine", "Host"))->api_version,
            LegacyApiVersion::kUnspecified);
  ASSERT_TRUE(RegisterLegacyTarget("refine", Fn(host_v1), "Host",
                                   LegacyApiVersion::kOriginal)
                  .ok());
  EXPECT_EQ((*FindLegacyTarget("refine", "Host"))->api_version,
            LegacyApiVersion::kOriginal);
}

TEST(LegacyRegistry, ConflictingFunctionNamesBoth) {
  ASSERT_TRUE(RegisterLegacyTarget("conflict", Fn(host_v1), "Host").ok());
  xffi::Status status =
      RegisterLegacyTarget("conflict", Fn(host_v1_other), "Host");
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_THAT(status.message(), HasSubstr("'conflict'"));
  EXPECT_THAT(status.message(), HasSubstr("Host"));
  std::ostringstream existing, added;
  existing << Fn(host_v1);
  added << Fn(host_v1_other);
  EXPECT_THAT(status.message(), HasSubstr("registered " + existing.str()));
  EXPECT_THAT(status.message(), HasSubstr("new " + added.str()));
  // The first registration stands.
  EXPECT_EQ((*FindLegacyTarget("conflict", "Host"))->function, Fn(host_v1));
}

TEST(LegacyRegistry, ConflictingVersionNamesBoth) {
  ASSERT_TRUE(RegisterLegacyTarget("version_conflict", Fn(host_v1), "Host",
                                   LegacyApiVersion::kOriginal)
                  .ok());
  xffi::Status status =
      RegisterLegacyTarget("version_conflict", Fn(host_v1), "Host",
                           LegacyApiVersion::kStatusReturningUnified);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_THAT(status.message(), HasSubstr("API version 1 (ORIGINAL"));
  EXPECT_THAT(status.message(),
              HasSubstr("API version 3 (STATUS_RETURNING_UNIFIED"));
}

TEST(LegacyRegistry, CudaVersionsTwoAndThreeShareAConvention) {
  void* fn = reinterpret_cast<void*>(&cuda_v2);
  ASSERT_TRUE(RegisterLegacyTarget("cuda_23", fn, "CUDA",
                                   LegacyApiVersion::kStatusReturning)
                  .ok());
  EXPECT_TRUE(RegisterLegacyTarget("cuda_23", fn, "CUDA",
                                   LegacyApiVersion::kStatusReturningUnified)
                  .ok());
  EXPECT_FALSE(
      RegisterLegacyTarget("cuda_23", fn, "CUDA", LegacyApiVersion::kOriginal)
          .ok());
}

TEST(LegacyRegistry, SameNameOnTwoPlatformsIsTwoTargets) {
  ASSERT_TRUE(RegisterLegacyTarget("both", Fn(host_v1), "Host").ok());
  ASSERT_TRUE(
      RegisterLegacyTarget("both", reinterpret_cast<void*>(&cuda_v1), "CUDA")
          .ok());
  EXPECT_NE((*FindLegacyTarget("both", "Host"))->function,
            (*FindLegacyTarget("both", "CUDA"))->function);
}

TEST(LegacyRegistry, BadRegistrationsAreRefused) {
  xffi::Status status = RegisterLegacyTarget("", Fn(host_v1), "Host");
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);

  status = RegisterLegacyTarget("null_fn", nullptr, "Host");
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("'null_fn'"));
  EXPECT_THAT(status.message(), HasSubstr("null function"));

  status = RegisterLegacyTarget("bad_platform", Fn(host_v1), "tpu");
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("'bad_platform'"));
  EXPECT_THAT(status.message(), HasSubstr("'tpu'"));

  status = RegisterLegacyTarget("typed", Fn(host_v1), "Host",
                                static_cast<LegacyApiVersion>(4));
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("API version 4"));
}

TEST(LegacyRegistry, UnknownTargetNamesWhereItIs) {
  auto record = FindLegacyTarget("nowhere", "Host");
  EXPECT_EQ(record.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(record.status().message(), HasSubstr("'nowhere'"));

  record = FindLegacyTarget("macro_cuda_v1", "Host");
  EXPECT_EQ(record.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(record.status().message(),
              HasSubstr("it is registered for CUDA"));

  record = FindLegacyTarget("host_v1", "tpu");
  EXPECT_EQ(record.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
}

TEST(LegacyRegistry, ListIsPerPlatformAndSorted) {
  auto host = ListLegacyTargets(Platform::kHost);
  auto cuda = ListLegacyTargets(Platform::kCuda);
  ASSERT_FALSE(host.empty());
  ASSERT_FALSE(cuda.empty());
  for (size_t i = 1; i < host.size(); ++i) {
    EXPECT_LT(host[i - 1]->name, host[i]->name);
  }
  for (const auto* record : host) EXPECT_EQ(record->platform, Platform::kHost);
  for (const auto* record : cuda) EXPECT_EQ(record->platform, Platform::kCuda);
}

TEST(LegacyRegistry, VersionFromArity) {
  using xffi::LegacyApiVersionFromArity;
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kHost, 2),
            LegacyApiVersion::kOriginal);
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kHost, 3),
            LegacyApiVersion::kStatusReturning);
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kHost, 5),
            LegacyApiVersion::kStatusReturningUnified);
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kCuda, 4),
            LegacyApiVersion::kOriginal);
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kCuda, 5),
            LegacyApiVersion::kStatusReturning);
  EXPECT_EQ(*LegacyApiVersionFromArity(Platform::kHost, 0),
            LegacyApiVersion::kUnspecified);
  auto bad = LegacyApiVersionFromArity(Platform::kHost, 4);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("takes 4"));
  EXPECT_FALSE(LegacyApiVersionFromArity(Platform::kCuda, 2).ok());
}

TEST(LegacyRegistry, CallingConventionsAreSpelledOut) {
  EXPECT_EQ(xffi::LegacyCallingConvention(Platform::kHost,
                                          LegacyApiVersion::kOriginal),
            "void(void* out, const void** in)");
  EXPECT_THAT(std::string(xffi::LegacyCallingConvention(
                  Platform::kCuda, LegacyApiVersion::kStatusReturningUnified)),
              HasSubstr("XlaCustomCallStatus* status"));
  EXPECT_EQ(xffi::LegacyApiVersionName(LegacyApiVersion::kStatusReturning),
            "STATUS_RETURNING");
}

}  // namespace
