// output_operand_aliases: the result shares its operand's buffer when the
// operand is dead afterwards, and gets a copy first when it is still read
// (or is a parameter or constant, or is passed twice). Layouts: a target
// that asks for a non-row-major layout gets relayouted copies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "executor_test_util.h"
#include "xffi/ffi.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_alias_test {

const void* filled_at = nullptr;
const void* add_one_in = nullptr;
void* add_one_out = nullptr;
std::vector<float> raw_seen;

// out = 0, 1, 2, ...
XFFI_DEFINE_HANDLER(
    kFill,
    [](ffi::ResultBuffer<ffi::F32, 1> out) {
      filled_at = out->untyped_data();
      for (int64_t i = 0; i < out->dimensions()[0]; ++i)
        out->typed_data()[i] = static_cast<float>(i);
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Ret<ffi::Buffer<ffi::F32, 1>>());

// out = x + 1, meant to run in place.
XFFI_DEFINE_HANDLER(
    kAddOne,
    [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out) {
      add_one_in = x.untyped_data();
      add_one_out = out->untyped_data();
      const float* in = static_cast<const float*>(x.untyped_data());
      float* o = static_cast<float*>(out->untyped_data());
      for (size_t i = 0; i < x.element_count(); ++i) o[i] = in[i] + 1;
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

// out = a + b with out aliasing a.
XFFI_DEFINE_HANDLER(
    kAccumulate,
    [](ffi::Buffer<ffi::F32, 1> a, ffi::Buffer<ffi::F32, 1> b,
       ffi::ResultBuffer<ffi::F32, 1> out) {
      add_one_in = a.untyped_data();
      add_one_out = out->untyped_data();
      for (int64_t i = 0; i < a.dimensions()[0]; ++i) {
        out->typed_data()[i] = a.typed_data()[i];
        out->typed_data()[i] += b.typed_data()[i];
      }
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// (a, b, c) -> (a + b, c + a), with the second result meant to alias c.
XFFI_DEFINE_HANDLER(
    kPairAccumulate,
    [](ffi::Buffer<ffi::F32, 1> a, ffi::Buffer<ffi::F32, 1> b,
       ffi::Buffer<ffi::F32, 1> c, ffi::ResultBuffer<ffi::F32, 1> sum,
       ffi::ResultBuffer<ffi::F32, 1> c_plus_a) {
      add_one_in = c.untyped_data();
      add_one_out = c_plus_a->untyped_data();
      for (int64_t i = 0; i < a.dimensions()[0]; ++i) {
        sum->typed_data()[i] = a.typed_data()[i] + b.typed_data()[i];
        c_plus_a->typed_data()[i] = c.typed_data()[i] + a.typed_data()[i];
      }
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Copies its operand's bytes as they lie in memory and records them.
XFFI_DEFINE_HANDLER(
    kRawCopy,
    [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out) {
      const float* in = static_cast<const float*>(x.untyped_data());
      raw_seen.assign(in, in + x.element_count());
      std::memcpy(out->untyped_data(), in, x.size_bytes());
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

void Register() {
  static const bool done = [] {
    auto reg = [](const char* name, XLA_FFI_Handler* h) {
      EXPECT_TRUE(
          xffi::RegisterHandler(
              name, "Host",
              XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, h, nullptr})
              .ok());
    };
    reg("ea.fill", kFill);
    reg("ea.add_one", kAddOne);
    reg("ea.accumulate", kAccumulate);
    reg("ea.raw_copy", kRawCopy);
    reg("ea.pair_accumulate", kPairAccumulate);
    return true;
  }();
  (void)done;
}

}  // namespace exec_alias_test

namespace xffi::test {
namespace {

using exec_alias_test::add_one_in;
using exec_alias_test::add_one_out;
using exec_alias_test::filled_at;

Instruction* AddOneInPlace(IrBuilder& b, Instruction* x) {
  Instruction* op = b.CustomCall("ea.add_one", {x}, x->shape());
  op->custom_call.output_operand_aliases.push_back({{}, 0, {}});
  return op;
}

TEST(ExecutorAliasing, DeadOperandIsUpdatedInPlace) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.CustomCall("ea.fill", {}, F32({6}));
  Instruction* y = AddOneInPlace(b, x);
  // Negated so the aliased buffer is an arena buffer, not the output.
  b.Root(b.Op(Opcode::kNegate, F32({6}), {y}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{-1, -2, -3, -4, -5, -6}));
  // No copy: the target read and wrote the very buffer fill produced.
  EXPECT_EQ(add_one_in, filled_at);
  EXPECT_EQ(add_one_out, filled_at);
}

TEST(ExecutorAliasing, LiveOperandIsCopiedFirst) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.CustomCall("ea.fill", {}, F32({4}));
  Instruction* y = AddOneInPlace(b, x);
  b.Root(b.Tuple({x, y}));  // x is still read after the call
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(add_one_in, add_one_out);
  EXPECT_NE(add_one_in, filled_at);
}

TEST(ExecutorAliasing, ParametersAreNeverClobbered) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({3}), "x");
  b.Root(AddOneInPlace(b, x));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  float in[3] = {5, 6, 7}, result[3] = {};
  std::vector<const void*> args = {in};
  std::vector<void*> results = {result};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  EXPECT_THAT(in, ::testing::ElementsAre(5, 6, 7));
  EXPECT_THAT(result, ::testing::ElementsAre(6, 7, 8));
  EXPECT_EQ(add_one_in, add_one_out);
  EXPECT_EQ(add_one_out, static_cast<void*>(result));  // computed in place
}

TEST(ExecutorAliasing, ConstantsAreNeverClobbered) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* c = b.Constant(Literal::Vector<float>({1, 2}));
  b.Root(AddOneInPlace(b, c));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute({});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{2, 3}));
  }
}

TEST(ExecutorAliasing, OperandPassedTwiceIsCopied) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.CustomCall("ea.fill", {}, F32({3}));
  Instruction* acc = b.CustomCall("ea.accumulate", {x, x}, F32({3}));
  acc->custom_call.output_operand_aliases.push_back({{}, 0, {}});
  b.Root(acc);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{0, 2, 4}));
  EXPECT_EQ(add_one_in, add_one_out);
  EXPECT_NE(add_one_in, filled_at);
}

TEST(ExecutorAliasing, TupleElementAliasesATupleOperandLeaf) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.CustomCall("ea.fill", {}, F32({2}));
  Instruction* y = b.CustomCall("ea.fill", {}, F32({2}));
  Instruction* pair = b.Tuple({x, y});
  // Flattened, the target gets (x, x, y) and writes (x + x, y + x); result
  // {1} reuses operand 1's leaf {1} (y), which nothing reads afterwards.
  Instruction* acc = b.CustomCall("ea.pair_accumulate", {x, pair},
                                  Shape::Tuple({F32({2}), F32({2})}));
  acc->custom_call.output_operand_aliases.push_back({{1}, 1, {1}});
  b.Root(b.Tuple({b.Op(Opcode::kNegate, F32({2}), {b.Gte(acc, 0)}),
                  b.Op(Opcode::kNegate, F32({2}), {b.Gte(acc, 1)})}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const void* y_at = filled_at;  // y is filled last
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{0, -2}));
  EXPECT_EQ((*out)[1].ToVector<float>(), (std::vector<float>{0, -2}));
  EXPECT_EQ(add_one_in, y_at);
  EXPECT_EQ(add_one_out, y_at);
}

TEST(ExecutorAliasing, BadAliasIsACompileError) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({3}), "x");
  Instruction* op = b.CustomCall("ea.add_one", {x}, F32({4}));
  op->custom_call.output_operand_aliases.push_back({{}, 0, {}});
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_FALSE(exe.ok());
  // The verifier's message, naming the call and its location.
  EXPECT_THAT(exe.status().message(),
              ::testing::HasSubstr("(custom-call \"ea.add_one\") in "
                                   "computation 'main' at test.hlo:2:1: "
                                   "output_operand_aliases[0]: output {} "
                                   "f32[4] cannot alias operand 0 {} f32[3]"));
}

TEST(ExecutorLayouts, ColumnMajorOperandAndResult) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2, 3}), "x");
  Instruction* op = b.CustomCall("ea.raw_copy", {x}, F32({2, 3}));
  op->custom_call.operand_layouts = {
      Shape::Array(ElementType::kF32, {2, 3}, {0, 1})};
  op->custom_call.result_layouts = {
      Shape::Array(ElementType::kF32, {2, 3}, {0, 1})};
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out =
      (*exe)->Execute({Literal::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // The target saw column-major bytes; the program sees its values back.
  EXPECT_EQ(exec_alias_test::raw_seen, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ExecutorLayouts, ColumnMajorResultOnly) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2, 3}), "x");
  Instruction* op = b.CustomCall("ea.raw_copy", {x}, F32({2, 3}));
  op->custom_call.result_layouts = {
      Shape::Array(ElementType::kF32, {2, 3}, {0, 1})};
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out =
      (*exe)->Execute({Literal::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Row-major bytes read back as column-major: element (i, j) is byte
  // position i + 2j.
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(ExecutorLayouts, AliasedPairInAColumnMajorLayout) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2, 2}), "x");
  Instruction* op = AddOneInPlace(b, x);
  Shape column_major = Shape::Array(ElementType::kF32, {2, 2}, {0, 1});
  op->custom_call.operand_layouts = {column_major};
  op->custom_call.result_layouts = {column_major};
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out =
      (*exe)->Execute({Literal::FromVector<float>({2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(add_one_in, add_one_out);
}

TEST(ExecutorLayouts, RankThreePermutedLayout) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2, 3, 4}), "x");
  Instruction* op = b.CustomCall("ea.raw_copy", {x}, F32({2, 3, 4}));
  // Dimension 1 fastest, then 2, then 0.
  op->custom_call.operand_layouts = {
      Shape::Array(ElementType::kF32, {2, 3, 4}, {1, 2, 0})};
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::FromVector<float>({2, 3, 4}, Iota(24))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> expected(24);
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 3; ++i1)
      for (int i2 = 0; i2 < 4; ++i2)
        expected[static_cast<size_t>((i0 * 4 + i2) * 3 + i1)] =
            static_cast<float>(i0 * 12 + i1 * 4 + i2);
  EXPECT_EQ(exec_alias_test::raw_seen, expected);
  // The result is row-major: it holds the bytes as the target wrote them.
  EXPECT_EQ((*out)[0].ToVector<float>(), expected);
}

TEST(ExecutorLayouts, LayoutThatIsNotAPermutationIsRefused) {
  exec_alias_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2, 3}), "x");
  Instruction* op = b.CustomCall("ea.raw_copy", {x}, F32({2, 3}));
  op->custom_call.operand_layouts = {
      Shape::Array(ElementType::kF32, {2, 3}, {1, 1})};
  b.Root(op);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_FALSE(exe.ok());
  // The verifier's message, naming the call and its location.
  EXPECT_THAT(exe.status().message(),
              ::testing::HasSubstr("(custom-call \"ea.raw_copy\") in "
                                   "computation 'main' at test.hlo:2:1: "
                                   "operand layout 0: layout of "
                                   "f32[2,3]{1,1} is not a permutation"));
}

}  // namespace
}  // namespace xffi::test
