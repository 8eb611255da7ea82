// The CPU backend's built-in targets (src/cpu/builtin_targets.cc): jaxlib's
// names, registered by Compile with no call of the user's, and the
// registration rules around them: the identical handler again is a no-op,
// another handler is refused naming both, ReplaceHandler overrides
// explicitly, RestoreBuiltinCpuTargets undoes it, and executables keep the
// handler they were compiled with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "xffi/ffi.h"
#include "xffi/program/builtin_targets.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/partitioning.h"
#include "xffi/runtime/registry.h"

namespace xffi {
namespace {

namespace ffi = xffi::ffi;
using ::testing::HasSubstr;

// jaxlib 0.10's CPU LAPACK targets, by its naming rule.
std::set<std::string> JaxlibNames() {
  std::set<std::string> names = {"tridiagonal_solve_perturbed_ffi"};
  for (char p : std::string("sdcz")) {
    const bool complex = p == 'c' || p == 'z';
    for (std::string routine :
         {"trsm", "getrf", "geqrf", "geqp3", "potrf", "gesdd", "gesvd", "geev",
          "gees", "gehrd", "gtsv", complex ? "ungqr" : "orgqr",
          complex ? "unmqr" : "ormqr", complex ? "heevd" : "syevd",
          complex ? "hetrd" : "sytrd"}) {
      names.insert(std::string("lapack_") + p + routine + "_ffi");
    }
  }
  return names;
}

std::vector<int64_t>& SeenBatches() {
  static std::vector<int64_t> seen;
  return seen;
}

// A stand-in for lapack_sgetrf_ffi that reports info 42 for every matrix
// and, for a batch of matrices, records its size.
ffi::Error FakeGetrf(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> out,
                     ffi::ResultBuffer<ffi::S32> ipiv,
                     ffi::ResultBuffer<ffi::S32> info) {
  (void)out;
  (void)ipiv;
  if (x.dimensions().size() == 3) SeenBatches().push_back(x.dimensions()[0]);
  for (size_t i = 0; i < info->element_count(); ++i) info->typed_data()[i] = 42;
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kFakeGetrf, FakeGetrf,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::F32>>()
                        .Ret<ffi::Buffer<ffi::S32>>()
                        .Ret<ffi::Buffer<ffi::S32>>());

XLA_FFI_Handler_Bundle FakeBundle() {
  XLA_FFI_Handler_Bundle bundle{};
  bundle.execute = kFakeGetrf;
  return bundle;
}

// lax.linalg.lu's custom call as JAX prints it in HLO, returning info.
constexpr const char* kLuProgram = R"(HloModule lu
ENTRY main {
  a = f32[2,2]{1,0} parameter(0)
  lu = (f32[2,2]{0,1}, s32[2]{0}, s32[]) custom-call(a), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={f32[2,2]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT info = s32[] get-tuple-element(lu), index=2
}
)";

int32_t RunLuInfo(Executable& exe) {
  Literal a = Literal::FromVector<float>({2, 2}, {2, 1, 1, 3});
  StatusOr<std::vector<Literal>> out = exe.Execute({a});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0].ToVector<int32_t>()[0] : -1;
}

std::unique_ptr<Executable> CompileLu() {
  StatusOr<Module> module = ParseProgram(kLuProgram, "lu.hlo");
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  return exe.ok() ? std::move(*exe) : nullptr;
}

TEST(BuiltinTargets, AreJaxlibsCpuLapackTargets) {
  ASSERT_TRUE(RegisterBuiltinCpuTargets().ok());
  std::vector<std::string> names = BuiltinCpuTargetNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), JaxlibNames());
  for (const std::string& name : names) {
    StatusOr<const HandlerRecord*> record = FindHandler(name, "cpu");
    ASSERT_TRUE(record.ok()) << name;
    EXPECT_THAT((*record)->origin, HasSubstr("libxffi_program")) << name;
    EXPECT_TRUE(IsBuiltinCpuTargetActive(name)) << name;
  }
  EXPECT_FALSE(IsBuiltinCpuTargetActive("rms_norm"));
}

TEST(BuiltinTargets, CompileRegistersThemWithoutBeingAsked) {
  // This process has called nothing but Compile.
  std::unique_ptr<Executable> exe = CompileLu();
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(RunLuInfo(*exe), 0);
  EXPECT_TRUE(IsBuiltinCpuTargetActive("lapack_sgetrf_ffi"));
}

TEST(BuiltinTargets, RegisteringTheSameHandlerAgainIsANoOp) {
  ASSERT_TRUE(RegisterBuiltinCpuTargets().ok());
  StatusOr<const HandlerRecord*> record =
      FindHandler("lapack_dpotrf_ffi", "Host");
  ASSERT_TRUE(record.ok());
  EXPECT_TRUE(
      RegisterHandler("lapack_dpotrf_ffi", "cpu", (*record)->bundle).ok());
  EXPECT_TRUE(RegisterBuiltinCpuTargets().ok());
  EXPECT_TRUE(IsBuiltinCpuTargetActive("lapack_dpotrf_ffi"));
}

TEST(BuiltinTargets, AnotherHandlerUnderABuiltinNameIsRefusedNamingBoth) {
  ASSERT_TRUE(RegisterBuiltinCpuTargets().ok());
  Status status = RegisterHandler("lapack_sgetrf_ffi", "cpu", FakeBundle());
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_THAT(status.message(), HasSubstr("lapack_sgetrf_ffi"));
  EXPECT_THAT(status.message(), HasSubstr("libxffi_program"));
  EXPECT_THAT(status.message(), HasSubstr("a different handler bundle"));
  EXPECT_TRUE(IsBuiltinCpuTargetActive("lapack_sgetrf_ffi"));
}

TEST(BuiltinTargets, ReplaceOverridesAndRestorePutsThemBack) {
  std::unique_ptr<Executable> before = CompileLu();
  ASSERT_NE(before, nullptr);
  ASSERT_TRUE(ReplaceHandler("lapack_sgetrf_ffi", "cpu", FakeBundle()).ok());
  EXPECT_FALSE(IsBuiltinCpuTargetActive("lapack_sgetrf_ffi"));
  // Compile does not put the built-in back: the replacement was asked for.
  std::unique_ptr<Executable> replaced = CompileLu();
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(RunLuInfo(*replaced), 42);
  // An executable keeps the handler it was compiled with.
  EXPECT_EQ(RunLuInfo(*before), 0);

  ASSERT_TRUE(RestoreBuiltinCpuTargets().ok());
  EXPECT_TRUE(IsBuiltinCpuTargetActive("lapack_sgetrf_ffi"));
  std::unique_ptr<Executable> restored = CompileLu();
  ASSERT_NE(restored, nullptr);
  EXPECT_EQ(RunLuInfo(*restored), 0);
  EXPECT_EQ(RunLuInfo(*replaced), 42);
}

// jaxlib marks all its typed LAPACK targets batch-partitionable; xffi's
// built-ins are too, already when the first compile's passes run (the
// backend registers them when it is made, before the passes).
TEST(BuiltinTargets, AreBatchPartitionableAsJaxlibsAre) {
  // Another handler under the name: the split must not depend on whose
  // handler serves it, and this one shows the blocks.
  ASSERT_TRUE(ReplaceHandler("lapack_sgetrf_ffi", "cpu", FakeBundle()).ok());
  StatusOr<Module> module = ParseProgram(R"(HloModule lu, num_partitions=2
ENTRY main {
  a = f32[4,2,2]{2,1,0} parameter(0), sharding={devices=[2,1,1]<=[2]}
  lu = (f32[4,2,2]{2,1,0}, s32[4,2]{1,0}, s32[4]{0}) custom-call(a), custom_call_target="lapack_sgetrf_ffi", api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims="1"}
  ROOT info = s32[4]{0} get-tuple-element(lu), index=2
}
)",
                                         "lu_sharded.hlo");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*module));
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  StatusOr<std::vector<Literal>> out = (*exe)->Execute(
      {Literal::FromVector<float>({4, 2, 2}, std::vector<float>(16, 1))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].ToVector<int32_t>(), std::vector<int32_t>(4, 42));
  EXPECT_EQ(SeenBatches(), (std::vector<int64_t>{2, 2}));
  ASSERT_TRUE(RestoreBuiltinCpuTargets().ok());

  std::vector<std::string> listed = ListBatchPartitionable();
  for (const std::string& name : JaxlibNames())
    EXPECT_EQ(std::count(listed.begin(), listed.end(), name), 1) << name;
}

}  // namespace
}  // namespace xffi
