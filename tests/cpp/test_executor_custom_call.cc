// Custom calls in compiled programs: the seed program, typed and legacy
// calls side by side, tuple flattening, attributes, per-call-site state,
// the thread pool, asynchronous handlers and handler errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "executor_test_util.h"
#include "xffi/custom_call_status.h"
#include "xffi/ffi.h"
#include "xffi/runtime/api.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace exec_cc_test {

// A[i] = B[i % 128] + C[i]: XLA's custom-call example.
ffi::Error DoCustomCall(ffi::Buffer<ffi::F32, 1> b, ffi::Buffer<ffi::F32, 1> c,
                        ffi::ResultBuffer<ffi::F32, 1> a) {
  int64_t n = c.dimensions()[0];
  for (int64_t i = 0; i < n; ++i)
    a->typed_data()[i] = b.typed_data()[i % 128] + c.typed_data()[i];
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kDoCustomCall, DoCustomCall,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Ret<ffi::Buffer<ffi::F32, 1>>());

void LegacyDoCustomCallV1(void* out, const void** in) {
  const float* b = static_cast<const float*>(in[0]);
  const float* c = static_cast<const float*>(in[1]);
  float* a = static_cast<float*>(out);
  for (int i = 0; i < 2048; ++i) a[i] = b[i % 128] + c[i];
}

// v3: out = (x + y, x - y, scratch[2]); the opaque string is the scale.
void LegacySplitV3(void* out, const void** in, const char* opaque,
                   size_t opaque_len, XlaCustomCallStatus* status) {
  std::string scale_text(opaque, opaque_len);
  if (scale_text.empty()) {
    const char kMessage[] = "split: the opaque scale is missing";
    XlaCustomCallStatusSetFailure(status, kMessage, sizeof(kMessage) - 1);
    return;
  }
  float scale = std::stof(scale_text);
  void** outs = static_cast<void**>(out);
  const float* x = static_cast<const float*>(in[0]);
  const float* y = static_cast<const float*>(in[1]);
  auto* sum = static_cast<float*>(outs[0]);
  auto* diff = static_cast<float*>(outs[1]);
  auto* scratch = static_cast<float*>(outs[2]);
  for (int i = 0; i < 4; ++i) {
    sum[i] = scale * (x[i] + y[i]);
    diff[i] = scale * (x[i] - y[i]);
  }
  scratch[0] = scratch[1] = -1.0f;  // written, never read by the program
}

// v2 with a tuple operand: in[0] is the table of the tuple's leaves.
void LegacySumTupleV2(void* out, const void** in, XlaCustomCallStatus*) {
  const void* const* tuple = static_cast<const void* const*>(in[0]);
  const float* x = static_cast<const float*>(tuple[0]);
  const float* y = static_cast<const float*>(tuple[1]);
  auto* result = static_cast<float*>(out);
  for (int i = 0; i < 4; ++i) result[i] = x[i] + y[i];
}

// Typed, two results of which the program reads one, and a scale attribute.
ffi::Error ScaleBoth(ffi::Buffer<ffi::F32, 1> x, ffi::Buffer<ffi::F32, 1> y,
                     float factor, ffi::ResultBuffer<ffi::F32, 1> sx,
                     ffi::ResultBuffer<ffi::F32, 1> sy) {
  for (int64_t i = 0; i < x.dimensions()[0]; ++i)
    sx->typed_data()[i] = factor * x.typed_data()[i];
  for (int64_t i = 0; i < y.dimensions()[0]; ++i)
    sy->typed_data()[i] = factor * y.typed_data()[i];
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kScaleBoth, ScaleBoth,
                    ffi::Ffi::Bind()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Arg<ffi::Buffer<ffi::F32, 1>>()
                        .Attr<float>("factor")
                        .Ret<ffi::Buffer<ffi::F32, 1>>()
                        .Ret<ffi::Buffer<ffi::F32, 1>>());

XFFI_DEFINE_HANDLER(
    kFail,
    [](ffi::Buffer<ffi::F32, 1>, ffi::ResultBuffer<ffi::F32, 1>) {
      return ffi::Error::InvalidArgument("the input is not to my taste");
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

// Counts per call site: instantiate makes the counter, execute bumps it and
// writes it out.
struct Counter {
  static ffi::TypeId id;
  float value = 0;
};
ffi::TypeId Counter::id = {};
XFFI_REGISTER_TYPE(xffi::GetApi(), "test_executor_custom_call.Counter",
                   &Counter::id, ffi::MakeTypeInfo<Counter>());
std::atomic<int> instantiations{0};
XFFI_DEFINE_HANDLER(
    kCounterInstantiate,
    [](float start) -> ffi::ErrorOr<std::unique_ptr<Counter>> {
      ++instantiations;
      auto counter = std::make_unique<Counter>();
      counter->value = start;
      return counter;
    },
    ffi::Ffi::BindInstantiate().Attr<float>("start"));
XFFI_DEFINE_HANDLER(
    kCounterExecute,
    [](Counter* counter, ffi::ResultBuffer<ffi::F32, 0> out) {
      counter->value += 1;
      out->typed_data()[0] = counter->value;
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Ctx<ffi::State<Counter>>()
        .Ret<ffi::Buffer<ffi::F32, 0>>());

// Doubles its input on the intra-op pool and completes through a future.
XFFI_DEFINE_HANDLER(
    kAsyncDouble,
    [](ffi::ThreadPool pool, ffi::Buffer<ffi::F32, 1> x,
       ffi::ResultBuffer<ffi::F32, 1> y) {
      ffi::Promise promise;
      ffi::Future future(promise);
      if (pool.num_threads() != 3) {
        promise.SetError(ffi::Error::Internal(
            "expected the executable's 3-thread pool, got " +
            std::to_string(pool.num_threads())));
        return future;
      }
      const float* in = x.typed_data();
      float* out = y->typed_data();
      int64_t n = x.dimensions()[0];
      pool.Schedule([promise, in, out, n]() mutable {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (int64_t i = 0; i < n; ++i) out[i] = 2 * in[i];
        promise.SetAvailable();
      });
      return future;
    },
    ffi::Ffi::Bind()
        .Ctx<ffi::ThreadPool>()
        .Arg<ffi::Buffer<ffi::F32, 1>>()
        .Ret<ffi::Buffer<ffi::F32, 1>>());

void Register() {
  static const bool done = [] {
    auto bundle = [](XLA_FFI_Handler* execute) {
      return XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, execute,
                                    nullptr};
    };
    EXPECT_TRUE(xffi::RegisterHandler("ecc.do_custom_call", "Host",
                                      bundle(kDoCustomCall))
                    .ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("ecc.scale_both", "Host", bundle(kScaleBoth))
            .ok());
    EXPECT_TRUE(xffi::RegisterHandler("ecc.fail", "cpu", bundle(kFail)).ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("ecc.async_double", "Host", bundle(kAsyncDouble))
            .ok());
    XLA_FFI_Handler_Bundle counter{kCounterInstantiate, nullptr, nullptr,
                                   kCounterExecute, nullptr};
    EXPECT_TRUE(xffi::RegisterHandler("ecc.counter", "Host", counter).ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "ecc.do_custom_call_v1",
                    reinterpret_cast<void*>(&LegacyDoCustomCallV1), "Host",
                    xffi::LegacyApiVersion::kOriginal)
                    .ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "ecc.split_v3", reinterpret_cast<void*>(&LegacySplitV3),
                    "Host", xffi::LegacyApiVersion::kStatusReturningUnified)
                    .ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "ecc.sum_tuple_v2",
                    reinterpret_cast<void*>(&LegacySumTupleV2), "Host",
                    xffi::LegacyApiVersion::kStatusReturning)
                    .ok());
    return true;
  }();
  (void)done;
}

}  // namespace exec_cc_test

namespace xffi::test {
namespace {

using ::testing::HasSubstr;

std::vector<float> SeedReference(const std::vector<float>& b,
                                 const std::vector<float>& c) {
  std::vector<float> a(c.size());
  for (size_t i = 0; i < c.size(); ++i) a[i] = b[i % 128] + c[i];
  return a;
}

TEST(ExecutorCustomCall, SeedProgramTypedAndLegacySideBySide) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({128}), "x");
  Instruction* y = b.Param(1, F32({2048}), "y");
  Instruction* typed = b.CustomCall("ecc.do_custom_call", {x, y}, F32({2048}));
  Instruction* legacy =
      b.CustomCall("ecc.do_custom_call_v1", {x, y}, F32({2048}),
                   CustomCallApiVersion::kOriginal);
  b.Root(b.Tuple({typed, legacy}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();

  std::vector<float> bv = Iota(128, 0.5f, 0.25f), cv = Iota(2048, -3, 0.5f);
  for (int run = 0; run < 2; ++run) {
    auto out = (*exe)->Execute(
        {Literal::Vector<float>(bv), Literal::Vector<float>(cv)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_EQ((*out)[0].ToVector<float>(), SeedReference(bv, cv));
    EXPECT_EQ((*out)[1].ToVector<float>(), SeedReference(bv, cv));
    cv[7] += 100;  // a second run with other inputs
  }
}

TEST(ExecutorCustomCall, LegacyTupleResultWithUnreadElement) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* y = b.Param(1, F32({4}), "y");
  Instruction* split = b.CustomCall(
      "ecc.split_v3", {x, y}, Shape::Tuple({F32({4}), F32({4}), F32({2})}),
      CustomCallApiVersion::kStatusReturningUnified);
  split->custom_call.opaque = "2";
  Instruction* sum = b.Gte(split, 0);
  Instruction* diff = b.Gte(split, 1);
  // A v2 target reading a tuple operand through its pointer table.
  Instruction* total =
      b.CustomCall("ecc.sum_tuple_v2", {b.Tuple({sum, diff})}, F32({4}),
                   CustomCallApiVersion::kStatusReturning);
  b.Root(total);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2, 3, 4}),
                              Literal::Vector<float>({10, 20, 30, 40})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // 2(x+y) + 2(x-y) = 4x
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{4, 8, 12, 16}));
}

TEST(ExecutorCustomCall, LegacyFailureNamesTargetAndLocation) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* split = b.CustomCall(
      "ecc.split_v3", {x, x}, Shape::Tuple({F32({4}), F32({4}), F32({2})}),
      CustomCallApiVersion::kStatusReturningUnified);
  b.Root(b.Gte(split, 0));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2, 3, 4})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("custom call 'ecc.split_v3' at test.hlo:2:1 failed: "));
  EXPECT_THAT(out.status().message(),
              HasSubstr("split: the opaque scale is missing"));
}

TEST(ExecutorCustomCall, TypedTupleResultsAndAttributes) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({3}), "x");
  Instruction* y = b.Param(1, F32({2}), "y");
  Instruction* both = b.CustomCall("ecc.scale_both", {x, y},
                                   Shape::Tuple({F32({3}), F32({2})}));
  both->custom_call.attributes.Set("factor", 1.5f);
  b.Root(b.Gte(both, 0));  // element 1 is written but never read
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute(
      {Literal::Vector<float>({2, 4, 6}), Literal::Vector<float>({8, 10})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), (std::vector<float>{3, 6, 9}));
}

TEST(ExecutorCustomCall, StateIsPerCallSiteAndKeptAcrossRuns) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* first = b.CustomCall("ecc.counter", {}, F32({}));
  first->custom_call.attributes.Set("start", 10.0f);
  first->custom_call.has_side_effect = true;
  Instruction* second = b.CustomCall("ecc.counter", {}, F32({}));
  second->custom_call.attributes.Set("start", 100.0f);
  second->custom_call.has_side_effect = true;
  b.Root(b.Tuple({first, second}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int before = exec_cc_test::instantiations;
  for (float run = 1; run <= 3; ++run) {
    auto out = (*exe)->Execute({});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[0].ToVector<float>()[0], 10 + run);
    EXPECT_EQ((*out)[1].ToVector<float>()[0], 100 + run);
  }
  EXPECT_EQ(exec_cc_test::instantiations, before + 2);
}

TEST(ExecutorCustomCall, AsyncHandlerOnTheIntraOpPool) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({5}), "x");
  Instruction* doubled = b.CustomCall("ecc.async_double", {x}, F32({5}));
  // The result is read right after: the executor waited for the future.
  b.Root(b.CustomCall("ecc.async_double", {doubled}, F32({5})));
  CompileOptions options;
  options.intra_op_threads = 3;
  auto exe = CompileForTest(std::move(m.module), options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_NE((*exe)->context().thread_pool(), nullptr);
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2, 3, 4, 5})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(),
            (std::vector<float>{4, 8, 12, 16, 20}));
}

TEST(ExecutorCustomCall, HandlerErrorNamesTargetLocationAndMessage) {
  exec_cc_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  b.Root(b.CustomCall("ecc.fail", {x}, F32({2})));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(out.status().message(),
            "custom call 'ecc.fail' at test.hlo:2:1 failed: the input is not "
            "to my taste");
}

TEST(ExecutorCustomCall, MissingHandlerIsACompileError) {
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  b.Root(b.CustomCall("ecc.nobody_registered_me", {x}, F32({2})));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(exe.status().message(),
              HasSubstr("custom call 'ecc.nobody_registered_me' at "
                        "test.hlo:2:1: "));
}

TEST(ExecutorCustomCall, MissingLegacyTargetIsACompileError) {
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({2}), "x");
  b.Root(b.CustomCall("ecc.no_legacy", {x}, F32({2}),
                      CustomCallApiVersion::kOriginal));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(exe.status().message(),
              HasSubstr("custom call 'ecc.no_legacy' at test.hlo:2:1: "));
}

}  // namespace
}  // namespace xffi::test
