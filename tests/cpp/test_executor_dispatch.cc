// What a run costs: the call frame of a custom-call site is built once and
// only its buffer addresses change between runs; handler stages before
// execute run once per call site; and a warm run allocates nothing (every
// allocation in this binary is counted while a run is in progress).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "executor_test_util.h"
#include "xffi/custom_call_status.h"
#include "xffi/ffi.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace alloc_count {

std::atomic<bool> counting{false};
std::atomic<long> allocations{0};

void* CountedAllocate(size_t size, size_t alignment) {
  if (counting.load(std::memory_order_relaxed)) ++allocations;
  if (size == 0) size = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) /
                                                    alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Not inlined: GCC (-Wmismatched-new-delete) would otherwise see a `new`
// expression, whose declaration is <new>'s, meet std::free inlined from the
// replaced delete, and cannot tell that both replacements are this file's.
[[gnu::noinline]] void Release(void* p) noexcept { std::free(p); }

}  // namespace alloc_count

void* operator new(size_t size) {
  return alloc_count::CountedAllocate(size, alignof(std::max_align_t));
}
void* operator new(size_t size, std::align_val_t alignment) {
  return alloc_count::CountedAllocate(size, static_cast<size_t>(alignment));
}
// The nothrow forms too (std::stable_sort's temporary buffer uses them):
// left to the sanitizer's allocator, their blocks would reach the free()
// below and be reported as mismatched.
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return alloc_count::CountedAllocate(size, alignof(std::max_align_t));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new(size_t size, std::align_val_t alignment,
                   const std::nothrow_t&) noexcept {
  try {
    return alloc_count::CountedAllocate(size, static_cast<size_t>(alignment));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  alloc_count::Release(p);
}
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  alloc_count::Release(p);
}
void operator delete(void* p) noexcept { alloc_count::Release(p); }
void operator delete(void* p, size_t) noexcept { alloc_count::Release(p); }
void operator delete(void* p, std::align_val_t) noexcept {
  alloc_count::Release(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  alloc_count::Release(p);
}

namespace ffi = xffi::ffi;

namespace exec_dispatch_test {

// A raw handler: what it sees of the frame, run by run.
struct Seen {
  const XLA_FFI_CallFrame* frame = nullptr;
  const void* arg_struct = nullptr;
  const void* arg_data = nullptr;
  const void* ret_data = nullptr;
  const void* attrs = nullptr;
};
std::vector<Seen> seen;

// Registration asks a handler for its API version through the metadata
// extension; a raw handler answers it by hand.
bool AnsweredMetadata(XLA_FFI_CallFrame* frame) {
  if (frame->extension_start == nullptr ||
      frame->extension_start->type != XLA_FFI_Extension_Metadata)
    return false;
  auto* extension =
      reinterpret_cast<XLA_FFI_Metadata_Extension*>(frame->extension_start);
  extension->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
  extension->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
  return true;
}

XLA_FFI_Error* RawCopy(XLA_FFI_CallFrame* frame) {
  if (AnsweredMetadata(frame)) return nullptr;
  if (frame->stage != XLA_FFI_ExecutionStage_EXECUTE) return nullptr;
  auto* arg = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* ret = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  Seen s;
  s.frame = frame;
  s.arg_struct = arg;
  s.arg_data = arg->data;
  s.ret_data = ret->data;
  s.attrs = frame->attrs.attrs;
  if (!alloc_count::counting) seen.push_back(s);
  std::memcpy(ret->data, arg->data, 4 * sizeof(float));
  return nullptr;
}

// Counts each stage it is called for.
int stage_calls[4] = {0, 0, 0, 0};
XLA_FFI_Error* CountStages(XLA_FFI_CallFrame* frame) {
  if (AnsweredMetadata(frame)) return nullptr;
  ++stage_calls[frame->stage];
  if (frame->stage == XLA_FFI_ExecutionStage_EXECUTE) {
    auto* ret = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
    *static_cast<float*>(ret->data) =
        static_cast<float>(stage_calls[XLA_FFI_ExecutionStage_EXECUTE]);
  }
  return nullptr;
}

XFFI_DEFINE_HANDLER(
    kFail, []() { return ffi::Error::Internal("out of coffee"); },
    ffi::Ffi::Bind());

// y = x * factor, typed.
XFFI_DEFINE_HANDLER(
    kScale,
    [](ffi::Buffer<ffi::F32> x, float factor, ffi::ResultBuffer<ffi::F32> y) {
      for (size_t i = 0; i < x.element_count(); ++i)
        y->typed_data()[i] = factor * x.typed_data()[i];
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind()
        .Arg<ffi::Buffer<ffi::F32>>()
        .Attr<float>("factor")
        .Ret<ffi::Buffer<ffi::F32>>());

// Legacy v3: out = in0 + in1 over 4 floats.
void LegacyAddV3(void* out, const void** in, const char*, size_t,
                 XlaCustomCallStatus*) {
  const float* a = static_cast<const float*>(in[0]);
  const float* b = static_cast<const float*>(in[1]);
  for (int i = 0; i < 4; ++i) static_cast<float*>(out)[i] = a[i] + b[i];
}

void Register() {
  static const bool done = [] {
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "ed.raw_copy", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, RawCopy, nullptr})
            .ok());
    EXPECT_TRUE(xffi::RegisterHandler(
                    "ed.count_stages", "Host",
                    XLA_FFI_Handler_Bundle{CountStages, CountStages,
                                           CountStages, CountStages, nullptr})
                    .ok());
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "ed.scale", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kScale, nullptr})
            .ok());
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "ed.fail", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kFail, nullptr})
            .ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "ed.add_v3", reinterpret_cast<void*>(&LegacyAddV3), "Host",
                    xffi::LegacyApiVersion::kStatusReturningUnified)
                    .ok());
    return true;
  }();
  (void)done;
}

}  // namespace exec_dispatch_test

namespace xffi::test {
namespace {

using exec_dispatch_test::seen;

TEST(ExecutorDispatch, CallFrameIsBuiltOnceAndOnlyAddressesChange) {
  exec_dispatch_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* copy = b.CustomCall("ed.raw_copy", {x}, F32({4}));
  copy->custom_call.attributes.Set("unused", int32_t{7});
  b.Root(copy);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  seen.clear();
  float in_a[4] = {1, 2, 3, 4}, in_b[4] = {5, 6, 7, 8};
  float out_a[4] = {}, out_b[4] = {};
  std::vector<const void*> args = {in_a};
  std::vector<void*> results = {out_a};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  args = {in_b};
  results = {out_b};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].frame, seen[1].frame);
  EXPECT_EQ(seen[0].arg_struct, seen[1].arg_struct);
  EXPECT_EQ(seen[0].attrs, seen[1].attrs);
  // The root is computed in the caller's memory: the target writes there.
  EXPECT_EQ(seen[0].arg_data, static_cast<const void*>(in_a));
  EXPECT_EQ(seen[0].ret_data, static_cast<void*>(out_a));
  EXPECT_EQ(seen[1].arg_data, static_cast<const void*>(in_b));
  EXPECT_EQ(seen[1].ret_data, static_cast<void*>(out_b));
  EXPECT_THAT(out_b, ::testing::ElementsAre(5, 6, 7, 8));
}

TEST(ExecutorDispatch, LegacyFrameFollowsArgumentsThatMove) {
  // The legacy frame is updated only where an address changed since the
  // last run: arguments that move between runs must still be seen.
  exec_dispatch_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* y = b.Param(1, F32({4}), "y");
  b.Root(b.CustomCall("ed.add_v3", {x, y}, F32({4}),
                      CustomCallApiVersion::kStatusReturningUnified));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  float a[4] = {1, 2, 3, 4}, b2[4] = {10, 20, 30, 40}, c[4] = {5, 5, 5, 5};
  float out_1[4] = {}, out_2[4] = {}, out_3[4] = {};
  std::vector<const void*> args = {a, b2};
  std::vector<void*> results = {out_1};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  results = {out_2};  // same arguments, another result buffer
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  args = {c, a};  // both arguments move
  results = {out_3};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  EXPECT_THAT(out_1, ::testing::ElementsAre(11, 22, 33, 44));
  EXPECT_THAT(out_2, ::testing::ElementsAre(11, 22, 33, 44));
  EXPECT_THAT(out_3, ::testing::ElementsAre(6, 7, 8, 9));
  c[0] = 100;  // same addresses, new contents
  results = {out_1};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());
  EXPECT_THAT(out_1, ::testing::ElementsAre(101, 7, 8, 9));
}

TEST(ExecutorDispatch, StagesBeforeExecuteRunOncePerCallSite) {
  exec_dispatch_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* first = b.CustomCall("ed.count_stages", {}, F32({}));
  Instruction* second = b.CustomCall("ed.count_stages", {}, F32({}));
  first->custom_call.has_side_effect = true;
  second->custom_call.has_side_effect = true;
  b.Root(b.Tuple({first, second}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int* calls = exec_dispatch_test::stage_calls;
  std::fill(calls, calls + 4, 0);
  for (int run = 0; run < 3; ++run) {
    auto out = (*exe)->Execute({});
    ASSERT_TRUE(out.ok()) << out.status().message();
    // Program order: the first site executes before the second.
    EXPECT_EQ((*out)[0].ToVector<float>()[0], 2 * run + 1);
    EXPECT_EQ((*out)[1].ToVector<float>()[0], 2 * run + 2);
  }
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_INSTANTIATE], 2);
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_PREPARE], 2);
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_INITIALIZE], 2);
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_EXECUTE], 6);
}

TEST(ExecutorDispatch, AHandlerErrorStopsTheRun) {
  exec_dispatch_test::Register();
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* fail = b.CustomCall("ed.fail", {}, Shape::Tuple({}));
  fail->custom_call.has_side_effect = true;
  Instruction* after = b.CustomCall("ed.count_stages", {}, F32({}));
  after->custom_call.has_side_effect = true;
  b.Root(after);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int* calls = exec_dispatch_test::stage_calls;
  std::fill(calls, calls + 4, 0);
  auto out = (*exe)->Execute({});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), XLA_FFI_Error_Code_INTERNAL);
  EXPECT_EQ(out.status().message(),
            "custom call 'ed.fail' at test.hlo:1:1 failed: out of coffee");
  // The op after the failing one never ran, not even its first stages.
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_INSTANTIATE], 0);
  EXPECT_EQ(calls[XLA_FFI_ExecutionStage_EXECUTE], 0);
}

TEST(ExecutorDispatch, WarmRunsAllocateNothing) {
  exec_dispatch_test::Register();
  // Kernels, a typed and a legacy call, a loop, a branch, a call and a
  // reduce region: every kind of thunk.
  TestModule m;
  Shape state = Shape::Tuple({S32({}), F32({4})});
  IrBuilder cond(m.Add("cond"));
  cond.Root(cond.Compare(cond.Gte(cond.Param(0, state, "s"), 0),
                         cond.Constant(Literal::Scalar<int32_t>(3)),
                         ComparisonDirection::kLt));
  IrBuilder body(m.Add("body"));
  {
    Instruction* s = body.Param(0, state, "s");
    Instruction* x = body.Gte(s, 1);
    Instruction* scaled = body.CustomCall("ed.scale", {x}, F32({4}));
    scaled->custom_call.attributes.Set("factor", 2.0f);
    body.Root(
        body.Tuple({body.Binary(Opcode::kAdd, body.Gte(s, 0),
                                body.Constant(Literal::Scalar<int32_t>(1))),
                    scaled}));
  }
  IrBuilder add(m.Add("add"));
  add.Root(add.Binary(Opcode::kAdd, add.Param(0, F32({}), "a"),
                      add.Param(1, F32({}), "b")));
  IrBuilder neg(m.Add("neg"));
  neg.Root(neg.Op(Opcode::kNegate, F32({4}), {neg.Param(0, F32({4}), "x")}));
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* p = b.Param(1, Pred(), "p");
  Instruction* legacy =
      b.CustomCall("ed.add_v3", {x, x}, F32({4}),
                   CustomCallApiVersion::kStatusReturningUnified);
  Instruction* loop =
      b.Called(Opcode::kWhile, state,
               {b.Tuple({b.Constant(Literal::Scalar<int32_t>(0)), legacy})},
               {cond.computation(), body.computation()});
  Instruction* looped = b.Gte(loop, 1);
  Instruction* branch = b.Called(Opcode::kConditional, F32({4}), {p, looped, x},
                                 {neg.computation(), neg.computation()});
  Instruction* called =
      b.Called(Opcode::kCall, F32({4}), {branch}, {neg.computation()});
  Instruction* reduce = b.Called(
      Opcode::kReduce, F32({}), {called, b.Constant(Literal::Scalar<float>(0))},
      {add.computation()});
  reduce->dimensions = {0};
  b.Root(b.Tuple({called, reduce}));
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();

  float in[4] = {1, 2, 3, 4};
  bool pred = true;
  float out[4] = {}, total = 0;
  std::vector<const void*> args = {in, &pred};
  std::vector<void*> results = {out, &total};
  ASSERT_TRUE((*exe)->ExecuteRaw(args, results).ok());  // warm-up
  alloc_count::allocations = 0;
  alloc_count::counting = true;
  Status status = Status::Ok();
  for (int run = 0; run < 10 && status.ok(); ++run)
    status = (*exe)->ExecuteRaw(args, results);
  alloc_count::counting = false;
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(alloc_count::allocations, 0);
  // x + x, doubled three times, negated twice: 16x.
  EXPECT_THAT(out, ::testing::ElementsAre(16, 32, 48, 64));
  EXPECT_EQ(total, 160);

  // The counter counts: Execute makes result literals, which allocate.
  alloc_count::counting = true;
  auto literals = (*exe)->Execute(
      {Literal::Vector<float>({1, 2, 3, 4}), Literal::Scalar<bool>(true)});
  alloc_count::counting = false;
  ASSERT_TRUE(literals.ok()) << literals.status().message();
  EXPECT_GT(alloc_count::allocations, 0);
}

}  // namespace
}  // namespace xffi::test
