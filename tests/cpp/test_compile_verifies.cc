// Compile verifies every module before anything else sees it: the malformed
// programs of tests/cpp/data/malformed (StableHLO and HLO), which both
// parsers read, are refused with the verifier's message naming the op and
// its line:column, and nothing in them runs; mended, the same programs run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malformed_programs.h"
#include "xffi/ffi.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace compile_verifies_test {

int marks = 0;

// y = x, counting its runs: the side effect that shows a program ran.
XFFI_DEFINE_HANDLER(
    kMark,
    [](ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
      ++marks;
      for (size_t i = 0; i < x.element_count(); ++i)
        y->typed_data()[i] = x.typed_data()[i];
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

void Register() {
  static const bool done = [] {
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "cli_mark", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kMark, nullptr})
            .ok());
    return true;
  }();
  (void)done;
}

}  // namespace compile_verifies_test

namespace xffi::test {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

std::vector<Literal> Inputs(const MalformedProgram& program) {
  std::vector<Literal> inputs;
  for (const std::vector<int64_t>& dims : program.inputs) {
    Shape shape = Shape::Array(ElementType::kF32, dims);
    std::vector<float> values(static_cast<size_t>(shape.num_elements()));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>(i);
    inputs.push_back(Literal::FromBytes(shape, values.data(),
                                        values.size() * sizeof(float)));
  }
  return inputs;
}

TEST(CompileVerifies, MalformedProgramsAreRefusedAndNeverRun) {
  compile_verifies_test::Register();
  for (const MalformedProgram& program : MalformedPrograms()) {
    SCOPED_TRACE(program.file);
    std::string text = ReadMalformedProgram(program);
    ASSERT_FALSE(text.empty()) << MalformedProgramPath(program);
    int line = LineOfOp(program, text);
    ASSERT_GT(line, 0);

    // The parser reads the declared result type as given...
    StatusOr<Module> module = ParseProgram(text, program.file);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    // ...and Compile refuses it before any backend sees it.
    compile_verifies_test::marks = 0;
    StatusOr<std::unique_ptr<Executable>> refused = Compile(std::move(*module));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(refused.status().message(),
                HasSubstr("(" + program.opcode + ")"));
    EXPECT_THAT(
        refused.status().message(),
        ContainsRegex(program.file + ":" + std::to_string(line) + ":[0-9]+: "));
    EXPECT_THAT(refused.status().message(), HasSubstr(program.why));
    EXPECT_EQ(compile_verifies_test::marks, 0);

    // Mended, the same program compiles and its custom call runs once.
    StatusOr<Module> mended = ParseProgram(Mended(program, text), program.file);
    ASSERT_TRUE(mended.ok()) << mended.status().ToString();
    StatusOr<std::unique_ptr<Executable>> exe = Compile(std::move(*mended));
    ASSERT_TRUE(exe.ok()) << exe.status().ToString();
    StatusOr<std::vector<Literal>> out = (*exe)->Execute(Inputs(program));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(compile_verifies_test::marks, 1);
  }
}

// A module built in C++ goes through the same verifier: a field edited
// after the builder inferred the result shape is caught, with the op named.
TEST(CompileVerifies, ModulesBuiltInCppAreVerifiedToo) {
  Builder b("edited");
  Op x = b.Parameter(0, Shape::Array(ElementType::kF32, {4}), "x");
  Op part = b.Slice(x, {0}, {2}, {1});
  StatusOr<Module> module = b.Build(part);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  ASSERT_TRUE(Compile(module->Clone()).ok());
  Instruction* slice = module->entry()->root();
  ASSERT_EQ(slice->opcode(), Opcode::kSlice);
  slice->slice_limits = {4};  // the declared f32[2] is now wrong
  StatusOr<std::unique_ptr<Executable>> refused = Compile(std::move(*module));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("(slice)"));
  EXPECT_THAT(refused.status().message(), HasSubstr("f32[4]"));
}

}  // namespace
}  // namespace xffi::test
