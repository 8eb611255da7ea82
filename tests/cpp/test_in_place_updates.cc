// In-place updates: a dynamic-update-slice writes into its operand's buffer
// when nothing reads the operand afterwards, and a while loop whose body (or
// a call in it) updates its state that way keeps one buffer for that leaf.
// Each unsafe case (the operand is read after the update, is the entry's
// parameter, is passed through twice, is aliased by a custom call) keeps
// its own buffer, and every program computes what it says. A copy of a dead
// array is that array.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "compiler/in_place.h"
#include "cpu/executor.h"
#include "executor_test_util.h"
#include "xffi/ffi.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace in_place_test {

const void* add_one_in = nullptr;

// out = x + 1, its result aliasing its operand.
XFFI_DEFINE_HANDLER(
    kAddOne,
    [](ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> out) {
      add_one_in = x.untyped_data();
      const float* in = static_cast<const float*>(x.untyped_data());
      float* o = static_cast<float*>(out->untyped_data());
      for (size_t i = 0; i < x.element_count(); ++i) o[i] = in[i] + 1;
      return ffi::Error::Success();
    },
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>());

void Register() {
  static const bool done = [] {
    EXPECT_TRUE(
        xffi::RegisterHandler(
            "ip.add_one", "Host",
            XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, kAddOne, nullptr})
            .ok());
    return true;
  }();
  (void)done;
}

}  // namespace in_place_test

namespace xffi::test {
namespace {

using compiler::AssignBuffers;
using compiler::BufferAssignment;
using compiler::BufferId;
using compiler::BufferKind;
using compiler::InPlaceAnalysis;
using compiler::InPlaceUpdate;
using compiler::InstructionBuffers;

const Computation* Named(const Module& module, const std::string& name) {
  for (const auto& c : module.computations())
    if (c->name() == name) return c.get();
  ADD_FAILURE() << "no computation " << name;
  return nullptr;
}

const Instruction* Op(const Computation* c, const std::string& name) {
  for (const auto& op : c->instructions())
    if (op->name() == name) return op.get();
  ADD_FAILURE() << "no op " << name;
  return nullptr;
}

std::vector<std::pair<int64_t, int64_t>> Pairs(
    const std::vector<InPlaceUpdate>& updates) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const InPlaceUpdate& u : updates)
    pairs.emplace_back(u.output_leaf, u.parameter_leaf);
  return pairs;
}

// jax.jit(fori_update_rows) at 8x4, as JAX 0.10 lowers it to HLO: the body
// calls closed_call, whose dynamic-update-slice writes one row per step.
const char kForiUpdateRows[] = R"(HloModule jit_fn

closed_call.1 {
  Arg_1.1 = s32[] parameter(1)
  constant.10 = s32[] constant(1)
  add.5 = s32[] add(Arg_1.1, constant.10)
  Arg_2.1 = f32[8,4]{1,0} parameter(2)
  Arg_0.1 = f32[8,4]{1,0} parameter(0)
  constant.9 = s32[] constant(0)
  dynamic_slice.1 = f32[1,4]{1,0} dynamic-slice(Arg_0.1, Arg_1.1, constant.9), dynamic_slice_sizes={1,4}
  constant.7 = f32[] constant(2)
  mul.2 = f32[1,4]{1,0} broadcast(constant.7), dimensions={}
  mul.3 = f32[1,4]{1,0} multiply(dynamic_slice.1, mul.2)
  convert.1 = f32[] convert(Arg_1.1)
  add.7 = f32[1,4]{1,0} broadcast(convert.1), dimensions={}
  add.8 = f32[1,4]{1,0} add(mul.3, add.7)
  dus.1 = f32[8,4]{1,0} dynamic-update-slice(Arg_2.1, add.8, Arg_1.1, constant.9)
  ROOT tuple.1 = (s32[], f32[8,4]{1,0}) tuple(add.5, dus.1)
}

region_0.2 {
  arg_tuple.1 = (s32[], s32[], f32[8,4]{1,0}, f32[8,4]{1,0}) parameter(0)
  gte.4 = s32[] get-tuple-element(arg_tuple.1), index=0
  constant.11 = s32[] constant(1)
  add.11 = s32[] add(gte.4, constant.11)
  gte.7 = f32[8,4]{1,0} get-tuple-element(arg_tuple.1), index=3
  gte.5 = s32[] get-tuple-element(arg_tuple.1), index=1
  gte.6 = f32[8,4]{1,0} get-tuple-element(arg_tuple.1), index=2
  call.3 = (s32[], f32[8,4]{1,0}) call(gte.7, gte.5, gte.6), to_apply=closed_call.1
  gte.8 = s32[] get-tuple-element(call.3), index=0
  gte.9 = f32[8,4]{1,0} get-tuple-element(call.3), index=1
  ROOT tuple.3 = (s32[], s32[], f32[8,4]{1,0}, f32[8,4]{1,0}) tuple(add.11, gte.8, gte.9, gte.7)
}

region_1.3 {
  arg_tuple.3 = (s32[], s32[], f32[8,4]{1,0}, f32[8,4]{1,0}) parameter(0)
  gte.12 = s32[] get-tuple-element(arg_tuple.3), index=0
  constant.13 = s32[] constant(8)
  ROOT lt.5 = pred[] compare(gte.12, constant.13), direction=LT
}

ENTRY main.4 {
  constant.14 = s32[] constant(0)
  constant.15 = f32[] constant(0)
  zeros = f32[8,4]{1,0} broadcast(constant.15), dimensions={}
  rows.1 = f32[8,4]{1,0} parameter(0)
  init = (s32[], s32[], f32[8,4]{1,0}, f32[8,4]{1,0}) tuple(constant.14, constant.14, zeros, rows.1)
  while.6 = (s32[], s32[], f32[8,4]{1,0}, f32[8,4]{1,0}) while(init), condition=region_1.3, body=region_0.2
  ROOT out = f32[8,4]{1,0} get-tuple-element(while.6), index=2
}
)";

TEST(InPlaceUpdates, ForiLoopThroughACallKeepsOneBufferForTheRows) {
  Module module = ParseHloForTest(kForiUpdateRows);
  InPlaceAnalysis analysis(module);
  const Computation* callee = Named(module, "closed_call.1");
  const Computation* body = Named(module, "region_0.2");
  // closed_call writes its result 1 over its parameter leaf 2; the body
  // its state leaf 2 over itself; the entry's caller hands nothing over.
  using P = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(Pairs(analysis.Of(callee)), (P{{1, 2}}));
  EXPECT_EQ(Pairs(analysis.Of(body)), (P{{2, 2}}));
  EXPECT_TRUE(analysis.Of(module.entry()).empty());
  EXPECT_TRUE(analysis.Of(Named(module, "region_1.3")).empty());

  auto in_callee = AssignBuffers(*callee, &analysis);
  ASSERT_TRUE(in_callee.ok());
  EXPECT_EQ(in_callee->Of(Op(callee, "dus.1")).leaves,
            in_callee->Of(Op(callee, "Arg_2.1")).leaves);
  auto in_body = AssignBuffers(*body, &analysis);
  ASSERT_TRUE(in_body.ok());
  EXPECT_EQ(in_body->Of(Op(body, "call.3")).leaves[1],
            in_body->Of(Op(body, "gte.6")).leaves[0]);
  EXPECT_TRUE(in_body->Of(Op(body, "call.3")).copies_before.empty());
  auto in_entry = AssignBuffers(*module.entry(), &analysis);
  ASSERT_TRUE(in_entry.ok());
  const auto& loop = in_entry->Of(Op(module.entry(), "while.6"));
  EXPECT_EQ(loop.temps[2], loop.leaves[2]);  // one buffer for the rows
  EXPECT_NE(loop.temps[0], loop.leaves[0]);  // the counter alternates

  // Without the analysis nothing is handed over: the update gets a buffer
  // of its own.
  auto plain = AssignBuffers(*callee);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(plain->Of(Op(callee, "dus.1")).leaves,
            plain->Of(Op(callee, "Arg_2.1")).leaves);

  std::vector<float> rows = Iota(32, 1);
  std::vector<Literal> out = CompileAndRun(
      std::move(module), {Literal::FromVector<float>({8, 4}, rows)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(32);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      want[static_cast<size_t>(i * 4 + j)] =
          rows[static_cast<size_t>(i * 4 + j)] * 2 + static_cast<float>(i);
  EXPECT_EQ(out[0].ToVector<float>(), want);
}

const char kEntryUpdates[] = R"(HloModule entry_updates

ENTRY main {
  x = f32[4,2]{1,0} parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  one = f32[] constant(1)
  row = f32[1,2]{1,0} broadcast(one), dimensions={}
  y = f32[4,2]{1,0} negate(x)
  z = f32[4,2]{1,0} exponential(y)
  in_param = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero)
  in_dead = f32[4,2]{1,0} dynamic-update-slice(y, row, i, zero)
  in_live = f32[4,2]{1,0} dynamic-update-slice(z, row, i, zero)
  z_again = f32[4,2]{1,0} negate(z)
  ROOT out = (f32[4,2]{1,0}, f32[4,2]{1,0}, f32[4,2]{1,0}, f32[4,2]{1,0}) tuple(in_param, in_dead, in_live, z_again)
}
)";

TEST(InPlaceUpdates, OnlyADeadArenaOperandIsOverwritten) {
  Module module = ParseHloForTest(kEntryUpdates);
  const Computation* entry = module.entry();
  InPlaceAnalysis analysis(module);
  auto assignment = AssignBuffers(*entry, &analysis);
  ASSERT_TRUE(assignment.ok());
  auto leaf = [&](const char* name) {
    return assignment->Of(Op(entry, name)).leaves[0];
  };
  // y is dead after in_dead: its buffer is updated.
  EXPECT_EQ(leaf("in_dead"), leaf("y"));
  // x is the caller's; z is read again later.
  EXPECT_NE(leaf("in_param"), leaf("x"));
  EXPECT_NE(leaf("in_live"), leaf("z"));

  std::vector<float> x = Iota(8, -2);
  std::vector<Literal> arguments;
  arguments.push_back(Literal::FromVector<float>({4, 2}, x));
  arguments.push_back(Literal::Scalar<int32_t>(2));
  std::vector<Literal> out = CompileAndRun(std::move(module), arguments);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(arguments[0].ToVector<float>(), x);  // the caller's, untouched
  std::vector<float> in_param = x, in_dead(8), in_live(8), z_again(8);
  for (size_t k = 0; k < 8; ++k) {
    in_dead[k] = -x[k];
    in_live[k] = std::exp(-x[k]);
    z_again[k] = -std::exp(-x[k]);
  }
  for (size_t k = 4; k < 6; ++k) in_param[k] = in_dead[k] = in_live[k] = 1;
  EXPECT_EQ(out[0].ToVector<float>(), in_param);
  EXPECT_EQ(out[1].ToVector<float>(), in_dead);
  EXPECT_EQ(out[2].ToVector<float>(), in_live);
  EXPECT_EQ(out[3].ToVector<float>(), z_again);
}

// A loop over state (i, x, acc) running 4 steps: x gets row i set to i,
// acc adds x; BODY_OPS orders the two, ROOT_X and ROOT_ACC say what the
// body returns.
std::string LoopProgram(const std::string& body_ops,
                        const std::string& root_x = "dus",
                        const std::string& root_acc = "acc2",
                        const std::string& init_acc = "zeros") {
  return R"(HloModule loop

body {
  s = (s32[], f32[4,2]{1,0}, f32[4,2]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4,2]{1,0} get-tuple-element(s), index=1
  acc = f32[4,2]{1,0} get-tuple-element(s), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  zero = s32[] constant(0)
  fi = f32[] convert(i)
  row = f32[1,2]{1,0} broadcast(fi), dimensions={}
)" + body_ops +
         R"(
  ROOT t = (s32[], f32[4,2]{1,0}, f32[4,2]{1,0}) tuple(next, )" +
         root_x + ", " + root_acc + R"()
}

cond {
  s = (s32[], f32[4,2]{1,0}, f32[4,2]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}

ENTRY main {
  start = s32[] constant(0)
  x0 = f32[4,2]{1,0} parameter(0)
  nine = f32[] constant(9)
  zeros = f32[4,2]{1,0} broadcast(nine), dimensions={}
  copy_x = f32[4,2]{1,0} negate(x0)
  init = (s32[], f32[4,2]{1,0}, f32[4,2]{1,0}) tuple(start, copy_x, )" +
         init_acc + R"()
  ROOT w = (s32[], f32[4,2]{1,0}, f32[4,2]{1,0}) while(init), condition=cond, body=body
}
)";
}

// The loop of LoopProgram simulated: x_{i+1} = x_i with row i = i; acc
// adds x_i (read before the update) or x_{i+1} (after).
void Simulate(bool acc_reads_updated_x, bool acc_is_x, std::vector<float>& x,
              std::vector<float>& acc) {
  for (int i = 0; i < 4; ++i) {
    std::vector<float> old = x;
    x[static_cast<size_t>(2 * i)] = x[static_cast<size_t>(2 * i + 1)] =
        static_cast<float>(i);
    const std::vector<float>& term = acc_reads_updated_x ? x : old;
    if (acc_is_x) {
      acc = old;
    } else {
      for (size_t k = 0; k < acc.size(); ++k) acc[k] += term[k];
    }
  }
}

void ExpectLoopResult(Module module, bool acc_reads_updated_x,
                      bool acc_is_x = false) {
  std::vector<float> x0 = Iota(8, 1);
  std::vector<Literal> out = CompileAndRun(
      std::move(module), {Literal::FromVector<float>({4, 2}, x0)});
  ASSERT_EQ(out.size(), 3u);
  std::vector<float> x(8), acc(8, 9.0f);
  for (size_t k = 0; k < 8; ++k) x[k] = -x0[k];
  Simulate(acc_reads_updated_x, acc_is_x, x, acc);
  EXPECT_EQ(out[1].ToVector<float>(), x);
  EXPECT_EQ(out[2].ToVector<float>(), acc);
}

TEST(InPlaceUpdates, StateReadBeforeTheUpdateIsUpdatedInPlace) {
  Module module = ParseHloForTest(LoopProgram(R"(
  acc2 = f32[4,2]{1,0} add(acc, x)
  dus = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero))"));
  InPlaceAnalysis analysis(module);
  EXPECT_EQ(Pairs(analysis.Of(Named(module, "body"))),
            (std::vector<std::pair<int64_t, int64_t>>{{1, 1}}));
  ExpectLoopResult(std::move(module), false);
}

TEST(InPlaceUpdates, StateReadAfterTheUpdateKeepsItsBuffer) {
  Module module = ParseHloForTest(LoopProgram(R"(
  dus = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero)
  acc2 = f32[4,2]{1,0} add(acc, x))"));
  InPlaceAnalysis analysis(module);
  EXPECT_TRUE(analysis.Of(Named(module, "body")).empty());
  const Computation* body = Named(module, "body");
  auto assignment = AssignBuffers(*body, &analysis);
  ASSERT_TRUE(assignment.ok());
  EXPECT_NE(assignment->Of(Op(body, "dus")).leaves,
            assignment->Of(Op(body, "x")).leaves);
  ExpectLoopResult(std::move(module), false);
}

TEST(InPlaceUpdates, StatePassedThroughTwiceIsNotOverwritten) {
  // The body returns x itself as the new acc and its update as the new x:
  // x is read at the end, so the update may not write over it.
  Module module = ParseHloForTest(LoopProgram(R"(
  dus = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero))",
                                              "dus", "x"));
  InPlaceAnalysis analysis(module);
  EXPECT_TRUE(analysis.Of(Named(module, "body")).empty());
  ExpectLoopResult(std::move(module), false, true);
}

TEST(InPlaceUpdates, OneArrayTwiceInTheInitialStateIsCopied) {
  // init = (0, copy_x, copy_x): both leaves start as one buffer; the loop
  // must still update x without touching acc.
  Module module = ParseHloForTest(LoopProgram(R"(
  acc2 = f32[4,2]{1,0} add(acc, x)
  dus = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero))",
                                              "dus", "acc2", "copy_x"));
  std::vector<float> x0 = Iota(8, 1);
  std::vector<Literal> out = CompileAndRun(
      std::move(module), {Literal::FromVector<float>({4, 2}, x0)});
  ASSERT_EQ(out.size(), 3u);
  std::vector<float> x(8);
  for (size_t k = 0; k < 8; ++k) x[k] = -x0[k];
  std::vector<float> acc = x;
  Simulate(false, false, x, acc);
  EXPECT_EQ(out[1].ToVector<float>(), x);
  EXPECT_EQ(out[2].ToVector<float>(), acc);
}

TEST(InPlaceUpdates, CustomCallAliasingTheStateGetsACopy) {
  // The custom call's result aliases x, and the update after it
  // overwrites x in place: the custom call must work on a copy of x.
  in_place_test::Register();
  Module module = ParseHloForTest(LoopProgram(R"(
  acc2 = f32[4,2]{1,0} custom-call(x), custom_call_target="ip.add_one", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_TYPED_FFI
  dus = f32[4,2]{1,0} dynamic-update-slice(x, row, i, zero))"));
  InPlaceAnalysis analysis(module);
  EXPECT_EQ(Pairs(analysis.Of(Named(module, "body"))),
            (std::vector<std::pair<int64_t, int64_t>>{{1, 1}}));
  const Computation* body = Named(module, "body");
  auto assignment = AssignBuffers(*body, &analysis);
  ASSERT_TRUE(assignment.ok());
  EXPECT_EQ(assignment->Of(Op(body, "acc2")).copies_before.size(), 1u);
  EXPECT_EQ(assignment->Of(Op(body, "dus")).leaves,
            assignment->Of(Op(body, "x")).leaves);

  std::vector<float> x0 = Iota(8, 1);
  std::vector<Literal> out = CompileAndRun(
      std::move(module), {Literal::FromVector<float>({4, 2}, x0)});
  ASSERT_EQ(out.size(), 3u);
  std::vector<float> x(8), acc(8);
  for (size_t k = 0; k < 8; ++k) x[k] = -x0[k];
  for (int i = 0; i < 4; ++i) {
    for (size_t k = 0; k < 8; ++k) acc[k] = x[k] + 1;  // acc2 = x + 1
    x[static_cast<size_t>(2 * i)] = x[static_cast<size_t>(2 * i + 1)] =
        static_cast<float>(i);
  }
  EXPECT_EQ(out[1].ToVector<float>(), x);
  EXPECT_EQ(out[2].ToVector<float>(), acc);
}

TEST(InPlaceUpdates, CallWithALiveArgumentUpdatesACopy) {
  // f updates its parameter in place; the first call's argument is read
  // again afterwards, so that call gets a copy; the second's is dead.
  Module module = ParseHloForTest(R"(HloModule calls

f {
  p = f32[4]{0} parameter(0)
  i = s32[] parameter(1)
  one = f32[] constant(1)
  u = f32[1]{0} broadcast(one), dimensions={}
  ROOT d = f32[4]{0} dynamic-update-slice(p, u, i)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} negate(x)
  zero = s32[] constant(0)
  three = s32[] constant(3)
  first = f32[4]{0} call(y, zero), to_apply=f
  again = f32[4]{0} negate(y)
  second = f32[4]{0} call(again, three), to_apply=f
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(first, second, y)
}
)");
  InPlaceAnalysis analysis(module);
  const Computation* entry = module.entry();
  auto assignment = AssignBuffers(*entry, &analysis);
  ASSERT_TRUE(assignment.ok());
  EXPECT_EQ(assignment->Of(Op(entry, "first")).copies_before.size(), 1u);
  EXPECT_TRUE(assignment->Of(Op(entry, "second")).copies_before.empty());
  EXPECT_EQ(assignment->Of(Op(entry, "second")).leaves,
            assignment->Of(Op(entry, "again")).leaves);

  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::Vector<float>({1, 2, 3, 4})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{1, -2, -3, -4}));
  EXPECT_EQ(out[1].ToVector<float>(), (std::vector<float>{1, 2, 3, 1}));
  EXPECT_EQ(out[2].ToVector<float>(), (std::vector<float>{-1, -2, -3, -4}));
}

TEST(InPlaceUpdates, CopyOfADeadArrayIsThatArray) {
  Module module = ParseHloForTest(R"(HloModule copies

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} negate(x)
  dead = f32[4]{0} copy(y)
  z = f32[4]{0} exponential(dead)
  live = f32[4]{0} copy(z)
  w = f32[4]{0} negate(z)
  of_param = f32[4]{0} copy(x)
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(live, w, of_param, dead)
}
)");
  const Computation* entry = module.entry();
  auto assignment = AssignBuffers(*entry);
  ASSERT_TRUE(assignment.ok());
  auto leaf = [&](const char* name) {
    return assignment->Of(Op(entry, name)).leaves[0];
  };
  EXPECT_EQ(leaf("dead"), leaf("y"));
  EXPECT_NE(leaf("live"), leaf("z"));  // z is read by w afterwards
  EXPECT_NE(leaf("of_param"), leaf("x"));

  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::Vector<float>({0, 1, 2, 3})});
  ASSERT_EQ(out.size(), 4u);
  std::vector<float> y = {0, -1, -2, -3}, z(4), w(4);
  for (size_t k = 0; k < 4; ++k) {
    z[k] = std::exp(y[k]);
    w[k] = -z[k];
  }
  EXPECT_EQ(out[0].ToVector<float>(), z);
  EXPECT_EQ(out[1].ToVector<float>(), w);
  EXPECT_EQ(out[2].ToVector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(out[3].ToVector<float>(), y);
}

// A loop reading a parameter it never changes (a scan's inputs, a Newton
// loop's right-hand side) reads the parameter's memory: no copy of it into
// the loop state on every execution. The same parameter as a leaf the body
// changes still gets a copy.
TEST(InPlaceUpdates, LoopReadsAPassedThroughParameterWithoutACopy) {
  Module module = ParseHloForTest(R"(HloModule pass_through

body {
  s = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4]{0} get-tuple-element(s), index=1
  a = f32[4]{0} get-tuple-element(s), index=2
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  next_x = f32[4]{0} add(x, a)
  ROOT next = (s32[], f32[4]{0}, f32[4]{0}) tuple(next_i, next_x, a)
}

cond {
  cs = (s32[], f32[4]{0}, f32[4]{0}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  three = s32[] constant(3)
  ROOT more = pred[] compare(ci, three), direction=LT
}

ENTRY main {
  a = f32[4]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}, f32[4]{0}) tuple(zero, a, a)
  loop = (s32[], f32[4]{0}, f32[4]{0}) while(init), condition=cond, body=body
  x_out = f32[4]{0} get-tuple-element(loop), index=1
  a_out = f32[4]{0} get-tuple-element(loop), index=2
  ROOT out = (f32[4]{0}, f32[4]{0}) tuple(x_out, a_out)
}
)");
  const Computation* entry = module.entry();
  InPlaceAnalysis analysis(module);
  auto assignment = AssignBuffers(*entry, &analysis);
  ASSERT_TRUE(assignment.ok());
  const BufferId parameter = assignment->Of(Op(entry, "a")).leaves[0];
  const InstructionBuffers& loop = assignment->Of(Op(entry, "loop"));
  ASSERT_EQ(loop.leaves.size(), 3u);
  EXPECT_EQ(loop.leaves[2], parameter);
  EXPECT_NE(loop.leaves[1], parameter);
  // The parameter is copied once: for the leaf the body changes.
  int64_t copies_of_parameter = 0;
  for (const compiler::BufferCopy& copy : loop.copies_before)
    copies_of_parameter += copy.from == parameter ? 1 : 0;
  EXPECT_EQ(copies_of_parameter, 1);

  const std::vector<float> a = {1, -2, 0.5f, 8};
  std::vector<Literal> out =
      CompileAndRun(std::move(module), {Literal::Vector<float>(a)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> x = a;
  for (int step = 0; step < 3; ++step)
    for (size_t k = 0; k < x.size(); ++k) x[k] += a[k];
  EXPECT_EQ(out[0].ToVector<float>(), x);
  EXPECT_EQ(out[1].ToVector<float>(), a);
}

}  // namespace
}  // namespace xffi::test

namespace xffi::test {
namespace {

// A loop writing a row computed by a loop fusion into its state each step
// (the fusion: `row_ops`, reading x, i and the carried x as `out`; the
// update: `update`), 16x8, over 16 steps.
std::string RowLoop(const std::string& row_ops, const std::string& update,
                    const std::string& acc_next = "acc") {
  return R"(HloModule rows

body {
  s = (s32[], f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16,8]{1,0} get-tuple-element(s), index=1
  out = f32[16,8]{1,0} get-tuple-element(s), index=2
  acc = f32[16,8]{1,0} get-tuple-element(s), index=3
  one = s32[] constant(1)
  next = s32[] add(i, one)
  zero = s32[] constant(0)
  fi = f32[] convert(i)
  two = f32[] constant(2)
)" + row_ops +
         "\n  " + update + R"(
  ROOT t = (s32[], f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) tuple(next, x, dus, )" +
         acc_next + R"()
}

cond {
  s = (s32[], f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  start = s32[] constant(0)
  x0 = f32[16,8]{1,0} parameter(0)
  z = f32[] constant(0)
  zeros = f32[16,8]{1,0} broadcast(z), dimensions={}
  init = (s32[], f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) tuple(start, x0, zeros, zeros)
  w = (s32[], f32[16,8]{1,0}, f32[16,8]{1,0}, f32[16,8]{1,0}) while(init), condition=cond, body=body
  o = f32[16,8]{1,0} get-tuple-element(w), index=2
  a = f32[16,8]{1,0} get-tuple-element(w), index=3
  ROOT r = (f32[16,8]{1,0}, f32[16,8]{1,0}) tuple(o, a)
}
)";
}

struct RowLoopRun {
  std::vector<Literal> results;
  int64_t thunks = 0;
};

// Runs `text` with loop fusion, the fusion-into-update rewrite on or off.
RowLoopRun RunRowLoop(const std::string& text, bool into_update) {
  const char* name = "XFFI_FUSION_INTO_UPDATE";
  ::setenv(name, into_update ? "1" : "0", 1);
  CompileOptions options;
  options.fuse_loops = true;
  options.intra_op_threads = 2;
  auto exe = Compile(ParseHloForTest(text), options);
  ::unsetenv(name);
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!exe.ok()) return {};
  RowLoopRun run;
  run.thunks = cpu::GetExecutorStats(**exe).thunks;
  auto out = (*exe)->Execute(
      {Literal::FromVector<float>({16, 8}, Iota(16 * 8, -3.0f, 0.25f))});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (out.ok()) run.results = std::move(*out);
  return run;
}

// Expects the rewrite to save `saved` thunks and to change no result.
void ExpectIntoUpdate(const std::string& text, int64_t saved) {
  RowLoopRun on = RunRowLoop(text, true);
  RowLoopRun off = RunRowLoop(text, false);
  EXPECT_EQ(off.thunks - on.thunks, saved);
  ASSERT_EQ(on.results.size(), 2u);
  ASSERT_EQ(off.results.size(), 2u);
  for (size_t r = 0; r < 2; ++r)
    EXPECT_EQ(on.results[r].ToVector<float>(), off.results[r].ToVector<float>())
        << "result " << r;
}

// fori_update_rows: the row's fusion writes into the carried rows.
TEST(FusionIntoUpdate, RowOfAForiLoopIsWrittenInPlace) {
  ExpectIntoUpdate(
      RowLoop(R"(
  ds = f32[1,8]{1,0} dynamic-slice(x, i, zero), dynamic_slice_sizes={1,8}
  twos = f32[1,8]{1,0} broadcast(two), dimensions={}
  m = f32[1,8]{1,0} multiply(ds, twos)
  b = f32[1,8]{1,0} broadcast(fi), dimensions={}
  row = f32[1,8]{1,0} add(m, b))",
              "dus = f32[16,8]{1,0} dynamic-update-slice(out, row, i, zero)"),
      1);
}

// Starts out of range (i * 3 - 5: below zero, then past the end) clamp as
// the update's own kernel clamps them; a pair of rows is contiguous too.
TEST(FusionIntoUpdate, StartsClampAsTheUpdateClamps) {
  ExpectIntoUpdate(
      RowLoop(R"(
  three = s32[] constant(3)
  five = s32[] constant(5)
  i3 = s32[] multiply(i, three)
  j = s32[] subtract(i3, five)
  ds = f32[2,8]{1,0} dynamic-slice(x, i, zero), dynamic_slice_sizes={2,8}
  b = f32[2,8]{1,0} broadcast(fi), dimensions={}
  row = f32[2,8]{1,0} add(ds, b))",
              "dus = f32[16,8]{1,0} dynamic-update-slice(out, row, j, zero)"),
      1);
}

// Where the rewrite must not apply: a column is not contiguous; a row
// that reads the buffer it is written into; a row also read elsewhere.
TEST(FusionIntoUpdate, NotForAColumnASelfReadOrASharedRow) {
  ExpectIntoUpdate(
      RowLoop(R"(
  ds = f32[16,1]{1,0} dynamic-slice(x, zero, i), dynamic_slice_sizes={16,1}
  b = f32[16,1]{1,0} broadcast(fi), dimensions={}
  row = f32[16,1]{1,0} add(ds, b))",
              "dus = f32[16,8]{1,0} dynamic-update-slice(out, row, zero, i)"),
      0);
  ExpectIntoUpdate(
      RowLoop(R"(
  last = s32[] constant(15)
  k = s32[] subtract(last, i)
  ds = f32[1,8]{1,0} dynamic-slice(out, k, zero), dynamic_slice_sizes={1,8}
  rv = f32[1,8]{1,0} reverse(ds), dimensions={1}
  b = f32[1,8]{1,0} broadcast(fi), dimensions={}
  row = f32[1,8]{1,0} add(rv, b))",
              "dus = f32[16,8]{1,0} dynamic-update-slice(out, row, i, zero)"),
      0);
  ExpectIntoUpdate(
      RowLoop(R"(
  ds = f32[1,8]{1,0} dynamic-slice(x, i, zero), dynamic_slice_sizes={1,8}
  b = f32[1,8]{1,0} broadcast(fi), dimensions={}
  row = f32[1,8]{1,0} add(ds, b)
  rb = f32[8]{0} reshape(row)
  rows = f32[16,8]{1,0} broadcast(rb), dimensions={1}
  acc2 = f32[16,8]{1,0} add(acc, rows))",
              "dus = f32[16,8]{1,0} dynamic-update-slice(out, row, i, zero)",
              "acc2"),
      0);
}

}  // namespace
}  // namespace xffi::test
