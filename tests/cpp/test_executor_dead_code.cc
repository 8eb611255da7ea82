// Dead-code elimination: pure ops whose results nobody reads are removed
// (custom calls included); side-effecting custom calls, and ops whose
// regions hold one, always run, in program order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "executor_test_util.h"
#include "passes/dead_code_elimination.h"
#include "xffi/ffi.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_dce_test {

std::string log;

// Appends its tag to the log; y = x.
XFFI_DEFINE_HANDLER(
    kRecord,
    [](ffi::Buffer<ffi::F32> x, std::string_view tag,
       ffi::ResultBuffer<ffi::F32> y) {
      log += std::string(tag);
      for (size_t i = 0; i < x.element_count(); ++i)
        y->typed_data()[i] = x.typed_data()[i];
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32>>()
        .Attr<std::string_view>("tag")
        .Ret<ffi::Buffer<ffi::F32>>());

void Register() {
  static const bool done = [] {
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "edce.record", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kRecord, nullptr})
            .ok());
    return true;
  }();
  (void)done;
}

}  // namespace exec_dce_test

namespace xffi::test {
namespace {

Instruction* Record(IrBuilder& b, Instruction* x, const char* tag,
                    bool side_effect) {
  Instruction* op = b.CustomCall("edce.record", {x}, x->shape());
  op->custom_call.attributes.Set("tag", std::string(tag));
  op->custom_call.has_side_effect = side_effect;
  return op;
}

TEST(ExecutorDeadCode, UnusedPureCallsGoSideEffectsStayInOrder) {
  exec_dce_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Record(b, x, "a", /*side_effect=*/true);   // result unread: still runs
  Record(b, x, "p", /*side_effect=*/false);  // result unread: removed
  Instruction* used = Record(b, x, "u", /*side_effect=*/false);
  Record(b, x, "b", /*side_effect=*/true);
  Record(b, x, "c", /*side_effect=*/true);
  b.Root(b.Op(Opcode::kNegate, F32({2}), {used}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_EQ((*exe)->module().entry()->instruction_count(), 6);
  exec_dce_test::log.clear();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(exec_dce_test::log, "aubc");
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{-1, -2}));
}

TEST(ExecutorDeadCode, KeptWhenTheOptionSaysSo) {
  exec_dce_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  Record(b, x, "p", /*side_effect=*/false);
  b.Root(x);
  CompileOptions options;
  options.eliminate_dead_code = false;
  auto exe = CompileForTest(std::move(m.module), options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  exec_dce_test::log.clear();
  ASSERT_TRUE((*exe)->Execute({Literal::Vector<float>({1, 2})}).ok());
  EXPECT_EQ(exec_dce_test::log, "p");
}

TEST(ExecutorDeadCode, LoopWithASideEffectInItsBodyStays) {
  exec_dce_test::Register();
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({1})});
  IrBuilder cond(m.Add("cond"));
  cond.Root(cond.Compare(cond.Gte(cond.Param(0, state, "s"), 0),
                         cond.Constant(Literal::Scalar<int32_t>(3)),
                         ComparisonDirection::kLt));
  IrBuilder body(m.Add("body"));
  {
    Instruction* s = body.Param(0, state, "s");
    Record(body, body.Gte(s, 1), "w", /*side_effect=*/true);
    body.Root(
        body.Tuple({body.Binary(Opcode::kAdd, body.Gte(s, 0),
                                body.Constant(Literal::Scalar<int32_t>(1))),
                    body.Gte(s, 1)}));
  }
  // A pure loop with no effect and an unread result: removed.
  IrBuilder quiet_body(m.Add("quiet_body"));
  {
    Instruction* s = quiet_body.Param(0, state, "s");
    Record(quiet_body, quiet_body.Gte(s, 1), "q", /*side_effect=*/false);
    quiet_body.Root(quiet_body.Tuple(
        {quiet_body.Binary(Opcode::kAdd, quiet_body.Gte(s, 0),
                           quiet_body.Constant(Literal::Scalar<int32_t>(1))),
         quiet_body.Gte(s, 1)}));
  }
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({1}), "x");
  Instruction* init = b.Tuple({b.Constant(Literal::Scalar<int32_t>(0)), x});
  b.Called(Opcode::kWhile, state, {init},
           {cond.computation(), body.computation()});
  b.Called(Opcode::kWhile, state, {init},
           {cond.computation(), quiet_body.computation()});
  b.Root(x);
  Module copy = m.module.Clone();
  EXPECT_EQ(passes::EliminateDeadCode(copy), 3);  // 2 in quiet_body, 1 here
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  exec_dce_test::log.clear();
  auto out = (*exe)->Execute({Literal::Vector<float>({4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(exec_dce_test::log, "www");
  EXPECT_EQ((*out)[0].ToVector<float>(), std::vector<float>{4});
}

}  // namespace
}  // namespace xffi::test
