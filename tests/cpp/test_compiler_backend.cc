// The backend seam: Compile reaches whatever backend the registry holds for
// the platform, after the verifier and the passes; an unregistered platform
// is an error naming it; the Host platform's backend is the CPU one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/backend.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"

namespace xffi::compiler {
namespace {

using ::testing::HasSubstr;

// What the fake backend was handed, kept where the test can read it.
struct Seen {
  int compiles = 0;
  std::vector<std::string> opcodes;  // of the entry, in order
};

// Runs nothing: its Execute says so. It keeps the module it was made from.
class FakeExecutable final : public Executable {
 public:
  explicit FakeExecutable(Module module) : module_(std::move(module)) {}
  const Module& module() const override { return module_; }
  const std::vector<Shape>& parameter_shapes() const override {
    return parameters_;
  }
  const Shape& result_shape() const override {
    return module_.entry()->root()->shape();
  }
  StatusOr<std::vector<Literal>> Execute(const std::vector<Literal>&) override {
    return Unimplemented("the fake backend runs nothing");
  }
  Status ExecuteRaw(ffi::Span<const void* const>,
                    ffi::Span<void* const>) override {
    return Unimplemented("the fake backend runs nothing");
  }
  ExecutionContext& context() override { return context_; }

 private:
  Module module_;
  std::vector<Shape> parameters_;
  ExecutionContext context_{Platform::kCuda};
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(Seen* seen) : seen_(seen) {}
  std::string_view name() const override { return "fake"; }
  StatusOr<std::unique_ptr<Executable>> Compile(
      Module module, const CompileOptions&) const override {
    ++seen_->compiles;
    seen_->opcodes.clear();
    for (const auto& op : module.entry()->instructions())
      seen_->opcodes.emplace_back(OpcodeName(op->opcode()));
    return std::unique_ptr<Executable>(new FakeExecutable(std::move(module)));
  }

 private:
  Seen* seen_;
};

// Registers the fake backend for CUDA, in place of the built-in device
// backend, for the test's duration.
// Tests that replace or remove the CUDA backend put the built-in one back, so
// the cases pass in one process in any order (sanitized builds run each
// executable whole).
void RestoreBuiltinCudaBackend() {
  UnregisterBackend(Platform::kCuda);
  for (BuiltinBackend& builtin : BuiltinBackends()) {
    if (builtin.platform == Platform::kCuda) {
      ASSERT_TRUE(RegisterBackend(Platform::kCuda, builtin.factory).ok());
    }
  }
}

class CompilerBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    UnregisterBackend(Platform::kCuda);
    ASSERT_TRUE(FindBackend(Platform::kCuda).status().code() ==
                XLA_FFI_Error_Code_NOT_FOUND)
        << "this test needs a platform without a backend";
    Status status = RegisterBackend(Platform::kCuda, [this] {
      return std::make_unique<FakeBackend>(&seen_);
    });
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  void TearDown() override { RestoreBuiltinCudaBackend(); }

  static CompileOptions OnCuda() {
    CompileOptions options;
    options.platform = Platform::kCuda;
    return options;
  }

  Seen seen_;
};

// x + 1, with a pure op nobody reads (x * x) that the passes remove.
Module AddOneWithDeadCode() {
  Builder b("add_one");
  Op x = b.Parameter(0, Shape::Array(ElementType::kF32, {4}), "x");
  b.Mul(x, x);
  Op one = b.BroadcastInDim(b.ConstantScalar(1.0f), {4}, {});
  StatusOr<Module> module = b.Build(b.Add(x, one));
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return std::move(*module);
}

TEST_F(CompilerBackendTest, CompileReachesTheRegisteredBackendAfterThePasses) {
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(AddOneWithDeadCode(), OnCuda());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_EQ(seen_.compiles, 1);
  // dce removed x * x; fusion made one loop fusion of the add and its
  // broadcast constant.
  EXPECT_EQ(seen_.opcodes, (std::vector<std::string>{"parameter", "fusion"}));
  EXPECT_NE(dynamic_cast<FakeExecutable*>(exe->get()), nullptr);
  EXPECT_EQ((*exe)->Execute({}).status().message(),
            "the fake backend runs nothing");
}

TEST_F(CompilerBackendTest, AModuleTheVerifierRefusesNeverReachesIt) {
  Module module = AddOneWithDeadCode();
  Instruction* add = module.entry()->root();
  add->set_shape(Shape::Array(ElementType::kF32, {5}));
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(std::move(module), OnCuda());
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(exe.status().message(), HasSubstr("(add)"));
  EXPECT_EQ(seen_.compiles, 0);
}

TEST_F(CompilerBackendTest, APlatformHasOneBackend) {
  Status again = RegisterBackend(Platform::kCuda, [this] {
    return std::make_unique<FakeBackend>(&seen_);
  });
  EXPECT_EQ(again.code(), XLA_FFI_Error_Code_ALREADY_EXISTS);
  EXPECT_THAT(again.message(), HasSubstr("platform CUDA"));
  StatusOr<const Backend*> backend = FindBackend(Platform::kCuda);
  ASSERT_TRUE(backend.ok());
  EXPECT_EQ((*backend)->name(), "fake");
  // The backend is made once and kept.
  EXPECT_EQ(*FindBackend(Platform::kCuda), *backend);
}

TEST(CompilerBackend, TheCudaPlatformRunsOnTheDeviceBackend) {
  StatusOr<const Backend*> backend = FindBackend(Platform::kCuda);
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ((*backend)->name(), "CUDA");
}

TEST(CompilerBackend, AnUnregisteredPlatformIsAnErrorNamingIt) {
  ASSERT_TRUE(UnregisterBackend(Platform::kCuda));  // the built-in one
  CompileOptions options;
  options.platform = Platform::kCuda;
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(AddOneWithDeadCode(), options);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_EQ(exe.status().message(),
            "Compile: no backend is registered for platform CUDA");
  RestoreBuiltinCudaBackend();
}

TEST(CompilerBackend, TheHostPlatformRunsOnTheCpuBackend) {
  StatusOr<const Backend*> backend = FindBackend(Platform::kHost);
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  EXPECT_EQ((*backend)->name(), "CPU");
  StatusOr<std::unique_ptr<Executable>> exe = Compile(AddOneWithDeadCode());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  std::vector<float> x = {1, 2, 3, 4};
  Literal input = Literal::FromBytes(Shape::Array(ElementType::kF32, {4}),
                                     x.data(), x.size() * sizeof(float));
  StatusOr<std::vector<Literal>> out = (*exe)->Execute({input});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).ToVector<float>(), (std::vector<float>{2, 3, 4, 5}));
}

TEST(CompilerBackend, RegistrationNeedsAFactory) {
  UnregisterBackend(Platform::kCuda);
  Status status = RegisterBackend(Platform::kCuda, nullptr);
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("platform CUDA"));
  EXPECT_FALSE(FindBackend(Platform::kCuda).ok());
}

}  // namespace
}  // namespace xffi::compiler
