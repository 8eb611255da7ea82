// Custom calls inside regions: a while body, conditional branches, a reduce
// body and a sort comparator each run a typed or legacy target, with the
// call frame of each site built once and the site's state kept across
// iterations; an error inside a region names the target and its location.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "executor_test_util.h"
#include "xffi/custom_call_status.h"
#include "xffi/ffi.h"
#include "xffi/runtime/api.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_region_test {

std::atomic<int> executions{0};

// y = factor * x
XFFI_DEFINE_HANDLER(
    kScale,
    [](ffi::Buffer<ffi::F32> x, float factor, ffi::ResultBuffer<ffi::F32> y) {
      ++executions;
      for (size_t i = 0; i < x.element_count(); ++i)
        y->typed_data()[i] = factor * x.typed_data()[i];
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32>>()
        .Attr<float>("factor")
        .Ret<ffi::Buffer<ffi::F32>>());

// Fails once x exceeds the limit.
XFFI_DEFINE_HANDLER(
    kCheckBelow,
    [](ffi::Buffer<ffi::F32, 1> x, float limit,
       ffi::ResultBuffer<ffi::F32, 1> y) {
      for (int64_t i = 0; i < x.dimensions()[0]; ++i) {
        if (x.typed_data()[i] > limit)
          return ffi::Error::InvalidArgument("value " +
                                             std::to_string(x.typed_data()[i]) +
                                             " is over the limit");
        y->typed_data()[i] = x.typed_data()[i];
      }
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Attr<float>("limit")
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Legacy v2 scalar add, for a reduce body.
void LegacyAddV2(void* out, const void** in, XlaCustomCallStatus*) {
  ++executions;
  *static_cast<float*>(out) =
      *static_cast<const float*>(in[0]) + *static_cast<const float*>(in[1]);
}

// Legacy v1 comparator: |a| > |b| as a pred byte.
void LegacyAbsGreaterV1(void* out, const void** in) {
  float a = *static_cast<const float*>(in[0]);
  float b = *static_cast<const float*>(in[1]);
  *static_cast<unsigned char*>(out) = std::abs(a) > std::abs(b) ? 1 : 0;
}

void Register() {
  static const bool done = [] {
    auto bundle = [](XLA_FFI_Handler* execute) {
      return XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, execute,
                                    nullptr};
    };
    EXPECT_TRUE(xffi::RegisterHandler("er.scale", "Host", bundle(kScale)).ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("er.check_below", "Host", bundle(kCheckBelow))
            .ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "er.add_v2", reinterpret_cast<void*>(&LegacyAddV2), "Host",
                    xffi::LegacyApiVersion::kStatusReturning)
                    .ok());
    EXPECT_TRUE(
        xffi::RegisterLegacyTarget("er.abs_greater_v1",
                                   reinterpret_cast<void*>(&LegacyAbsGreaterV1),
                                   "Host", xffi::LegacyApiVersion::kOriginal)
            .ok());
    return true;
  }();
  (void)done;
}

}  // namespace exec_region_test

namespace xffi::test {
namespace {

using ::testing::HasSubstr;

Instruction* Scale(IrBuilder& b, Instruction* x, float factor) {
  Instruction* op = b.CustomCall("er.scale", {x}, x->shape());
  op->custom_call.attributes.Set("factor", factor);
  return op;
}

// A 1-D sort of one f32 operand through its comparator region (insertion
// sort, stable), standing in for the kernel library's sort.
Status SortKernel(const Instruction& op, const cpu::KernelArgs& args) {
  const Computation& comparator = *op.called_computations()[0];
  const int64_t n = args.operands[0].shape->num_elements();
  const auto* in = static_cast<const float*>(args.operands[0].data);
  auto* out = static_cast<float*>(args.results[0].data);
  std::copy(in, in + n, out);
  Shape scalar = Shape::Scalar(ElementType::kF32);
  Shape pred = Shape::Scalar(ElementType::kPred);
  for (int64_t i = 1; i < n; ++i) {
    for (int64_t j = i; j > 0; --j) {
      unsigned char less = 0;
      cpu::ArrayView arguments[2] = {{&scalar, out + j},
                                     {&scalar, out + j - 1}};
      cpu::ArrayView results[1] = {{&pred, &less}};
      Status status = args.regions->Run(comparator, arguments, results);
      if (!status.ok()) return status;
      if (!less) break;
      std::swap(out[j], out[j - 1]);
    }
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<Executable>> CompileWithSort(Module module) {
  CompileOptions options;
  options.intra_op_threads = 1;
  return test::CompileWithKernels(
      std::move(module), options,
      [](const Instruction& op) -> StatusOr<cpu::Kernel> {
        if (op.opcode() == Opcode::kSort)
          return cpu::Kernel([&op](const cpu::KernelArgs& args) {
            return SortKernel(op, args);
          });
        return TestKernels(op);
      });
}

TEST(ExecutorRegions, TypedCallInAWhileBody) {
  exec_region_test::Register();
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({3})});
  IrBuilder cond(m.Add("cond"));
  {
    Instruction* p = cond.Param(0, state, "s");
    cond.Root(cond.Compare(cond.Gte(p, 0),
                           cond.Constant(Literal::Scalar<int32_t>(4)),
                           ComparisonDirection::kLt));
  }
  IrBuilder body(m.Add("body"));
  {
    Instruction* p = body.Param(0, state, "s");
    Instruction* i = body.Gte(p, 0);
    Instruction* x = body.Gte(p, 1);
    body.Root(
        body.Tuple({body.Binary(Opcode::kAdd, i,
                                body.Constant(Literal::Scalar<int32_t>(1))),
                    Scale(body, x, 3)}));
  }
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({3}), "x");
  Instruction* loop =
      b.Called(Opcode::kWhile, state,
               {b.Tuple({b.Constant(Literal::Scalar<int32_t>(0)), x})},
               {cond.computation(), body.computation()});
  b.Root(b.Gte(loop, 1));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int before = exec_region_test::executions;
  auto out = (*exe)->Execute({Literal::Vector<float>({1, -1, 0.5f})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{81, -81, 40.5f}));
  EXPECT_EQ(exec_region_test::executions - before, 4);
}

TEST(ExecutorRegions, TypedAndLegacyTargetsInConditionalBranches) {
  exec_region_test::Register();
  TestModule m;
  IrBuilder typed(m.Add("typed_branch"));
  typed.Root(Scale(typed, typed.Param(0, F32({}), "x"), -2));
  IrBuilder legacy(m.Add("legacy_branch"));
  {
    Instruction* x = legacy.Param(0, F32({}), "x");
    legacy.Root(legacy.CustomCall("er.add_v2", {x, x}, F32({}),
                                  CustomCallApiVersion::kStatusReturning));
  }
  IrBuilder b(m.Entry());
  Instruction* p = b.Param(0, Pred(), "p");
  Instruction* s = b.Param(1, F32({}), "s");
  b.Root(b.Called(Opcode::kConditional, F32({}), {p, s, s},
                  {typed.computation(), legacy.computation()}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  for (bool pred : {true, false, true}) {
    auto out = (*exe)->Execute(
        {Literal::Scalar<bool>(pred), Literal::Scalar<float>(2.5f)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].ToVector<float>(),
              std::vector<float>{pred ? -5.0f : 5.0f});
  }
}

TEST(ExecutorRegions, LegacyCallAsAReduceBody) {
  exec_region_test::Register();
  TestModule m;
  IrBuilder body(m.Add("add"));
  {
    Instruction* a = body.Param(0, F32({}), "a");
    Instruction* c = body.Param(1, F32({}), "c");
    body.Root(body.CustomCall("er.add_v2", {a, c}, F32({}),
                              CustomCallApiVersion::kStatusReturning));
  }
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({10}), "x");
  Instruction* reduce = b.Called(Opcode::kReduce, F32({}),
                                 {x, b.Constant(Literal::Scalar<float>(100))},
                                 {body.computation()});
  reduce->dimensions = {0};
  b.Root(reduce);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int before = exec_region_test::executions;
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute({Literal::Vector<float>(Iota(10, 1))});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].ToVector<float>(), std::vector<float>{155});
  }
  EXPECT_EQ(exec_region_test::executions - before, 20);
}

TEST(ExecutorRegions, LegacyCallAsASortComparator) {
  exec_region_test::Register();
  TestModule m;
  IrBuilder comparator(m.Add("by_magnitude"));
  {
    Instruction* a = comparator.Param(0, F32({}), "a");
    Instruction* c = comparator.Param(1, F32({}), "c");
    comparator.Root(comparator.CustomCall("er.abs_greater_v1", {a, c}, Pred(),
                                          CustomCallApiVersion::kOriginal));
  }
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({5}), "x");
  Instruction* sort =
      b.Called(Opcode::kSort, F32({5}), {x}, {comparator.computation()});
  sort->dimensions = {0};
  b.Root(sort);
  auto exe = CompileWithSort(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, -7, 3, 0.5f, -4})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{-7, -4, 3, 1, 0.5f}));
}

TEST(ExecutorRegions, ErrorInsideALoopNamesTheTargetAndItsLocation) {
  exec_region_test::Register();
  TestModule m;
  Shape state = F32({2});
  IrBuilder cond(m.Add("cond"));
  {
    cond.Param(0, state, "x");
    // Always true: the loop ends by the body's error.
    cond.Root(cond.Constant(Literal::Scalar<bool>(true)));
  }
  IrBuilder body(m.Add("body"));
  {
    Instruction* x = body.Param(0, state, "x");
    Instruction* checked = body.CustomCall("er.check_below", {x}, state);
    checked->custom_call.attributes.Set("limit", 10.0f);
    body.Root(body.Binary(Opcode::kAdd, checked, checked));
  }
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, state, "x");
  b.Root(b.Called(Opcode::kWhile, state, {x},
                  {cond.computation(), body.computation()}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  // 1, 3 -> 2, 6 -> 4, 12: the third check fails on 12.
  EXPECT_EQ(out.status().message(),
            "custom call 'er.check_below' at test.hlo:2:1 failed: value "
            "12.000000 is over the limit");
}

}  // namespace
}  // namespace xffi::test
