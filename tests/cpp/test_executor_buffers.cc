// Buffer assignment: arena slices are reused once their values are dead,
// values alive at the same time never share bytes, root values are
// computed straight into the caller's memory, and elementwise results take
// a dead operand's buffer only where that is safe.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "compiler/buffer_assignment.h"
#include "compiler/in_place.h"
#include "cpu/executor.h"
#include "executor_test_util.h"

namespace xffi::test {
namespace {

using codegen_test::ScopedEnv;
using compiler::AssignBuffers;
using compiler::BufferAssignment;
using compiler::BufferId;
using compiler::BufferKind;
using compiler::InPlaceAnalysis;

// Every pair of arena buffers whose live ranges overlap occupies disjoint
// bytes.
void ExpectNoOverlapWhileLive(const BufferAssignment& assignment) {
  const auto& buffers = assignment.buffers;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].kind != BufferKind::kArena) continue;
    EXPECT_LE(buffers[i].offset + buffers[i].size, assignment.arena_size);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      if (buffers[j].kind != BufferKind::kArena) continue;
      bool live_together = buffers[i].defined_at <= buffers[j].live_until &&
                           buffers[j].defined_at <= buffers[i].live_until;
      if (!live_together) continue;
      bool disjoint =
          buffers[i].offset + buffers[i].size <= buffers[j].offset ||
          buffers[j].offset + buffers[j].size <= buffers[i].offset;
      EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j;
    }
  }
}

TEST(BufferAssignment, ChainReusesTwoSlices) {
  // x -> n1 -> n2 -> ... -> n10 (root): each value dies at its one user, so
  // the nine arena values fit in two slices however long the chain. (abs:
  // the simplifier would remove a chain of negations.) Without elementwise
  // in place, which would put the whole chain in the caller's memory.
  ScopedEnv no_in_place("XFFI_RESULTS_IN_PLACE", "0");
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* v = b.Param(0, F32({1024}), "x");
  for (int i = 0; i < 10; ++i) v = b.Op(Opcode::kAbs, F32({1024}), {v});
  b.Root(v);
  auto assignment = AssignBuffers(*m.module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_EQ(assignment->unshared_arena_size, 9u * 4096);
  EXPECT_EQ(assignment->arena_size, 2u * 4096);
  ExpectNoOverlapWhileLive(*assignment);

  // Through the executable: the same figures, and the values are right.
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.computations, 1);
  EXPECT_EQ(stats.arena_bytes, 2u * 4096);
  EXPECT_EQ(stats.unshared_arena_bytes, 9u * 4096);
  EXPECT_EQ(stats.thunks, 10);
  auto out = (*exe)->Execute({Literal::Vector<float>(Iota(1024, 1))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), Iota(1024, 1));  // all positive
}

TEST(BufferAssignment, ValueReadLaterKeepsItsSlice) {
  // a = -x, b = -a, c = -b, e = -c, root a + e: a is read at the end, so
  // it keeps its slice; c is written while b is read (two slices), and e
  // takes b's slice back: three slices at the peak, four without reuse.
  ScopedEnv no_in_place("XFFI_RESULTS_IN_PLACE", "0");
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({16}), "x");
  Instruction* a = b.Op(Opcode::kNegate, F32({16}), {x});
  Instruction* bb = b.Op(Opcode::kNegate, F32({16}), {a});
  Instruction* c = b.Op(Opcode::kNegate, F32({16}), {bb});
  Instruction* e = b.Op(Opcode::kNegate, F32({16}), {c});
  b.Root(b.Binary(Opcode::kAdd, a, e));
  auto assignment = AssignBuffers(*m.module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_EQ(assignment->unshared_arena_size, 4u * 64);
  EXPECT_EQ(assignment->arena_size, 3u * 64);
  ExpectNoOverlapWhileLive(*assignment);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>(Iota(16))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> expected(16, 0.0f);  // -x + x
  EXPECT_EQ((*out)[0].ToVector<float>(), expected);
}

TEST(BufferAssignment, FreedNeighboursMergeForALargerValue) {
  // Two 64-byte values die; a 128-byte value fits where both were.
  ScopedEnv no_in_place("XFFI_RESULTS_IN_PLACE", "0");
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({16}), "x");
  Instruction* big = b.Param(1, F32({32}), "big");
  Instruction* a = b.Op(Opcode::kNegate, F32({16}), {x});
  Instruction* c = b.Op(Opcode::kNegate, F32({16}), {x});
  Instruction* s = b.Binary(Opcode::kAdd, a, c);  // a, c die here
  Instruction* n = b.Op(Opcode::kNegate, F32({32}), {big});
  Instruction* n2 = b.Op(Opcode::kNegate, F32({32}), {n});
  b.Root(b.Tuple({s, n2}));
  auto assignment = AssignBuffers(*m.module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  ExpectNoOverlapWhileLive(*assignment);
  // a and c: 128 bytes; n reuses them; s and n2 are outputs.
  EXPECT_EQ(assignment->arena_size, 128u);
  EXPECT_EQ(assignment->unshared_arena_size, 256u);
}

TEST(BufferAssignment, RootLeavesAreComputedInTheCallersMemory) {
  TestModule m;
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({4}), "x");
  Instruction* n = b.Op(Opcode::kNegate, F32({4}), {x});
  b.Root(b.Tuple({n, x}));
  auto assignment = AssignBuffers(*m.module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_EQ(assignment->arena_size, 0u);
  const auto& root = assignment->Of(m.module.entry()->root()).leaves;
  ASSERT_EQ(root.size(), 2u);
  EXPECT_EQ(assignment->buffers[static_cast<size_t>(root[0])].kind,
            BufferKind::kOutput);
  // The parameter is copied out at the end.
  ASSERT_EQ(assignment->output_copies.size(), 1u);
  EXPECT_EQ(assignment->output_copies[0].size, 16u);
}

TEST(BufferAssignment, RegionsReuseWithinThemselves) {
  // The stats sum over every compiled computation, regions included.
  TestModule m;
  IrBuilder body(m.Add("sum"));
  Instruction* p = body.Param(0, F32({}), "a");
  Instruction* q = body.Param(1, F32({}), "b");
  body.Root(body.Binary(Opcode::kAdd, p, q));
  IrBuilder b(m.Entry());
  Instruction* x = b.Param(0, F32({8}), "x");
  Instruction* zero = b.Constant(Literal::Scalar<float>(0));
  Instruction* n = b.Op(Opcode::kNegate, F32({8}), {x});
  b.Root(b.Called(Opcode::kReduce, F32({}), {n, zero}, {body.computation()}));
  m.module.entry()->root()->dimensions = {0};
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.computations, 2);
  EXPECT_EQ(stats.arena_bytes, 64u);  // n; the region's add is its output
  auto out = (*exe)->Execute({Literal::Vector<float>(Iota(8))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].ToVector<float>(), std::vector<float>{-28});
}

// --- elementwise results in a dead operand's buffer ------------------------

// Buffer assignment as the executors make it: with the module's analysis.
StatusOr<BufferAssignment> Assign(const Module& module,
                                  const Computation& computation) {
  InPlaceAnalysis analysis(module);
  return AssignBuffers(computation, &analysis, /*results_in_place=*/true);
}

const Instruction* Named(const Computation& computation,
                         const std::string& name) {
  for (const auto& op : computation.instructions())
    if (op->name() == name) return op.get();
  ADD_FAILURE() << "no op " << name;
  return nullptr;
}

BufferId LeafOf(const BufferAssignment& assignment, const std::string& name,
                size_t leaf = 0) {
  return assignment.Of(Named(*assignment.computation, name)).leaves.at(leaf);
}

// Runs `text` with elementwise in place and without, and expects the same
// bytes: the sharing changes where values live, never what they are.
void ExpectSameResultsWithoutInPlace(const std::string& text,
                                     const std::vector<Literal>& arguments) {
  std::vector<Literal> shared = CompileAndRun(ParseHloForTest(text), arguments);
  ScopedEnv no_in_place("XFFI_RESULTS_IN_PLACE", "0");
  std::vector<Literal> separate =
      CompileAndRun(ParseHloForTest(text), arguments);
  ASSERT_EQ(shared.size(), separate.size());
  ASSERT_FALSE(shared.empty());
  for (size_t i = 0; i < shared.size(); ++i) {
    ASSERT_EQ(shared[i].shape(), separate[i].shape());
    EXPECT_EQ(std::memcmp(shared[i].data(), separate[i].data(),
                          shared[i].shape().byte_size()),
              0)
        << "result " << i;
  }
}

Literal Ramp(int64_t n, float scale) {
  return Literal::Vector<float>(
      Iota(n, -scale * static_cast<float>(n) / 2, scale));
}

constexpr char kElementwiseChain[] = R"(HloModule chain
ENTRY main {
  x = f32[1024] parameter(0)
  a = f32[1024] negate(x)
  b = f32[1024] abs(a)
  c = s32[1024] bitcast-convert(b)
  d = s32[1024] multiply(c, c)
  ROOT r = s32[1024] reverse(d), dimensions={0}
}
)";

TEST(ResultsInPlace, AChainSharesOneBufferAfterTheParameter) {
  Module module = ParseHloForTest(kElementwiseChain);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // The parameter is not written: a gets a buffer; b, c (same bytes per
  // element) and d (reading c twice, both at its own index) take it over;
  // the reverse reads other indices, so it gets its own (the output).
  const BufferId a = LeafOf(*assignment, "a");
  EXPECT_EQ(
      assignment->buffers[static_cast<size_t>(LeafOf(*assignment, "x"))].kind,
      BufferKind::kParameter);
  EXPECT_EQ(assignment->buffers[static_cast<size_t>(a)].kind,
            BufferKind::kArena);
  EXPECT_EQ(LeafOf(*assignment, "b"), a);
  EXPECT_EQ(LeafOf(*assignment, "c"), a);
  EXPECT_EQ(LeafOf(*assignment, "d"), a);
  EXPECT_NE(LeafOf(*assignment, "r"), a);
  EXPECT_EQ(assignment->arena_size, 4096u);
  ExpectNoOverlapWhileLive(*assignment);

  // Without the analysis, or not asked for (the device backend), every
  // value is fresh.
  auto plain = AssignBuffers(*module.entry());
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(LeafOf(*plain, "b"), LeafOf(*plain, "a"));
  InPlaceAnalysis analysis(module);
  auto not_asked = AssignBuffers(*module.entry(), &analysis);
  ASSERT_TRUE(not_asked.ok());
  EXPECT_NE(LeafOf(*not_asked, "b"), LeafOf(*not_asked, "a"));

  Literal x = Ramp(1024, 0.37f);
  std::vector<Literal> out =
      CompileAndRun(ParseHloForTest(kElementwiseChain), {x});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t i = 0; i < 1024; ++i) {
    uint32_t bits = 0;
    float magnitude = std::abs(x.data<float>()[1023 - i]);
    std::memcpy(&bits, &magnitude, sizeof bits);
    EXPECT_EQ(static_cast<uint32_t>(out[0].data<int32_t>()[i]), bits * bits)
        << i;
  }
}

TEST(ResultsInPlace, NotWhileTheOperandIsReadLater) {
  constexpr char kText[] = R"(HloModule later
ENTRY main {
  x = f32[256] parameter(0)
  a = f32[256] negate(x)
  b = f32[256] abs(a)
  c = f32[256] reverse(a), dimensions={0}
  ROOT r = f32[256] add(b, c)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // a is still read by the reverse after b: b gets its own buffer.
  EXPECT_NE(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));
  ExpectNoOverlapWhileLive(*assignment);
  ExpectSameResultsWithoutInPlace(kText, {Ramp(256, 0.5f)});
}

constexpr char kFusions[] = R"(HloModule fusions
transposed {
  p0 = f32[16,16] parameter(0)
  t = f32[16,16] transpose(p0), dimensions={1,0}
  ROOT n = f32[16,16] negate(t)
}
own_index {
  p0 = f32[16,16] parameter(0)
  p1 = f32[16] parameter(1)
  b = f32[16,16] broadcast(p1), dimensions={1}
  n = f32[16,16] negate(p0)
  ROOT m = f32[16,16] multiply(n, b)
}
ENTRY main {
  x = f32[16,16] parameter(0)
  y = f32[16] parameter(1)
  a = f32[16,16] abs(x)
  f1 = f32[16,16] fusion(a), kind=kLoop, calls=transposed
  f2 = f32[16,16] fusion(f1, y), kind=kLoop, calls=own_index
  ROOT r = f32[16,16] reverse(f2), dimensions={0}
}
)";

TEST(ResultsInPlace, LoopFusionsOnlyWhenTheyReadTheOperandAtItsOwnIndex) {
  Module module = ParseHloForTest(kFusions);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // f1 reads a through a transpose: element (i, j) from (j, i), which an
  // earlier element may already have overwritten; f2 reads f1 elementwise
  // (and a broadcast of another operand).
  EXPECT_NE(LeafOf(*assignment, "f1"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "f2"), LeafOf(*assignment, "f1"));
  ExpectNoOverlapWhileLive(*assignment);
  Literal x = Ramp(256, 0.25f);
  Literal x2 = Literal::FromVector<float>({16, 16}, x.ToVector<float>());
  ExpectSameResultsWithoutInPlace(kFusions, {x2, Ramp(16, 1.5f)});
}

TEST(ResultsInPlace, NotForComplexExpOrDivision) {
  // Generated complex exp and division loops write a block, then
  // recompute its special elements from the operands; a complex multiply
  // reads each element once.
  constexpr char kText[] = R"(HloModule complex
ENTRY main {
  x = c64[64] parameter(0)
  a = c64[64] negate(x)
  b = c64[64] exponential(a)
  c = c64[64] multiply(b, b)
  d = c64[64] divide(c, x)
  ROOT r = c64[64] reverse(d), dimensions={0}
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_NE(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "c"), LeafOf(*assignment, "b"));
  EXPECT_NE(LeafOf(*assignment, "d"), LeafOf(*assignment, "c"));
}

TEST(ResultsInPlace, NotIntoBuffersACustomCallReadOrWrote) {
  constexpr char kText[] = R"(HloModule handlers
ENTRY main {
  x = f32[64] parameter(0)
  a = f32[64] custom-call(x), custom_call_target="written"
  b = f32[64] negate(a)
  c = f32[64] abs(b)
  d = f32[64] custom-call(c), custom_call_target="read"
  e = f32[64] negate(c)
  ROOT r = (f32[64], f32[64]) tuple(d, e)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_NE(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));  // written
  EXPECT_EQ(LeafOf(*assignment, "c"), LeafOf(*assignment, "b"));
  EXPECT_NE(LeafOf(*assignment, "e"), LeafOf(*assignment, "c"));  // read
  ExpectNoOverlapWhileLive(*assignment);
}

TEST(ResultsInPlace, NotInComputationsACustomCallRuns) {
  constexpr char kText[] = R"(HloModule regions
run_by_handler {
  p = f32[64] parameter(0)
  a = f32[64] negate(p)
  b = f32[64] abs(a)
  ROOT c = f32[64] reverse(b), dimensions={0}
}
inner {
  p = f32[64] parameter(0)
  ROOT r = f32[64] call(p), to_apply=run_by_handler
}
called {
  p = f32[64] parameter(0)
  a = f32[64] negate(p)
  b = f32[64] abs(a)
  ROOT c = f32[64] reverse(b), dimensions={0}
}
ENTRY main {
  x = f32[64] parameter(0)
  h = f32[64] custom-call(x), custom_call_target="runs", called_computations={inner}
  ROOT c = f32[64] call(h), to_apply=called
}
)";
  Module module = ParseHloForTest(kText);
  InPlaceAnalysis analysis(module);
  for (const auto& computation : module.computations()) {
    const std::string& name = computation->name();
    if (name != "run_by_handler" && name != "called") continue;
    SCOPED_TRACE(name);
    // A handler runs `inner`, which calls run_by_handler: nothing in place
    // there; the same ops under a plain call share.
    EXPECT_EQ(analysis.RunByCustomCalls(computation.get()),
              name == "run_by_handler");
    auto assignment =
        AssignBuffers(*computation, &analysis, /*results_in_place=*/true);
    ASSERT_TRUE(assignment.ok()) << assignment.status().message();
    EXPECT_EQ(LeafOf(*assignment, "b") == LeafOf(*assignment, "a"),
              name == "called");
  }
}

constexpr char kWhileBody[] = R"(HloModule loop
body {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[256] get-tuple-element(s), index=1
  a = f32[256] negate(v)
  b = f32[256] abs(a)
  c = f32[256] multiply(b, b)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[256]) tuple(j, c)
}
cond {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[256] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, x)
  w = (s32[], f32[256]) while(init), condition=cond, body=body
  ROOT r = f32[256] get-tuple-element(w), index=1
}
)";

TEST(ResultsInPlace, WhileBodiesShareAndTheLoopComputesTheSame) {
  Module module = ParseHloForTest(kWhileBody);
  const Computation* body = nullptr;
  for (const auto& computation : module.computations())
    if (computation->name() == "body") body = computation.get();
  ASSERT_NE(body, nullptr);
  auto assignment = Assign(module, *body);
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // The state is the body's parameter (not written); a's buffer then
  // carries b and c, the next state.
  EXPECT_EQ(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "c"), LeafOf(*assignment, "a"));
  EXPECT_NE(LeafOf(*assignment, "a"), LeafOf(*assignment, "v"));

  Literal x = Ramp(256, 1.0f / 128);
  std::vector<Literal> out = CompileAndRun(ParseHloForTest(kWhileBody), {x});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t k = 0; k < 256; ++k) {
    float v = x.data<float>()[k];
    for (int step = 0; step < 3; ++step) v = std::abs(-v) * std::abs(-v);
    EXPECT_EQ(out[0].data<float>()[k], v) << k;
  }
}

TEST(ResultsInPlace, TupleElementsShareOneByOne) {
  constexpr char kText[] = R"(HloModule tuples
lt {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  ROOT l = pred[] compare(a0, a1), direction=LT
}
ENTRY main {
  x = f32[128] parameter(0)
  k = s32[128] iota(), iota_dimension=0
  s = (f32[128], s32[128]) sort(x, k), dimensions={0}, to_apply=lt
  v = f32[128] get-tuple-element(s), index=0
  n = f32[128] negate(v)
  i = s32[128] get-tuple-element(s), index=1
  ri = s32[128] reverse(i), dimensions={0}
  m = s32[128] negate(i)
  ROOT r = (f32[128], s32[128], s32[128]) tuple(n, ri, m)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  const auto& sorted = assignment->Of(Named(*module.entry(), "s")).leaves;
  ASSERT_EQ(sorted.size(), 2u);
  // The values' leaf is read only by n: n takes it. The indices' leaf is
  // read by the reverse before m: m takes it (the reverse has read it).
  EXPECT_EQ(LeafOf(*assignment, "n"), sorted[0]);
  EXPECT_EQ(LeafOf(*assignment, "m"), sorted[1]);
  EXPECT_NE(LeafOf(*assignment, "ri"), sorted[1]);
  ExpectNoOverlapWhileLive(*assignment);
  ExpectSameResultsWithoutInPlace(kText, {Ramp(128, -0.75f)});
}

constexpr char kSorts[] = R"(HloModule sorts
lt {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  ROOT l = pred[] compare(a0, a1), direction=LT
}
lt2 {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  ROOT l = pred[] compare(a0, a1), direction=GT
}
ENTRY main {
  x = f32[8,64] parameter(0)
  a = f32[8,64] negate(x)
  k = s32[8,64] iota(), iota_dimension=1
  s = (f32[8,64], s32[8,64]) sort(a, k), dimensions={1}, to_apply=lt
  b = f32[8,64] abs(x)
  t = (f32[8,64], s32[8,64]) sort(b, k), dimensions={1}, to_apply=lt
  c = f32[8,64] exponential(x)
  u = (f32[8,64], f32[8,64]) sort(c, c), dimensions={0}, to_apply=lt2
  ROOT r = ((f32[8,64], s32[8,64]), (f32[8,64], s32[8,64]), (f32[8,64], f32[8,64])) tuple(s, t, u)
}
)";

TEST(ResultsInPlace, SortsPermuteTheirOperandsBuffers) {
  Module module = ParseHloForTest(kSorts);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // s: a is dead after it, k is not (t reads it): values in place, indices
  // fresh. t: both dead. u reads c twice: fresh.
  EXPECT_EQ(LeafOf(*assignment, "s", 0), LeafOf(*assignment, "a"));
  EXPECT_NE(LeafOf(*assignment, "s", 1), LeafOf(*assignment, "k"));
  EXPECT_EQ(LeafOf(*assignment, "t", 0), LeafOf(*assignment, "b"));
  EXPECT_EQ(LeafOf(*assignment, "t", 1), LeafOf(*assignment, "k"));
  EXPECT_NE(LeafOf(*assignment, "u", 0), LeafOf(*assignment, "c"));
  EXPECT_NE(LeafOf(*assignment, "u", 1), LeafOf(*assignment, "c"));
  ExpectNoOverlapWhileLive(*assignment);
  Literal x = Ramp(512, 0.01f);
  // Ties and an order that is not the input's: sin-like scrambling.
  for (int64_t e = 0; e < 512; ++e)
    x.data<float>()[e] = static_cast<float>((e * 37) % 61) * 0.125f - 3.0f;
  ExpectSameResultsWithoutInPlace(
      kSorts, {Literal::FromVector<float>({8, 64}, x.ToVector<float>())});
}

// --- reshapes as views of their operand's buffer ---------------------------

Literal Matrix(int64_t rows, int64_t cols, float scale) {
  return Literal::FromVector<float>({rows, cols},
                                    Ramp(rows * cols, scale).ToVector<float>());
}

TEST(ReshapeViews, AReshapeReadsItsOperandsBuffer) {
  constexpr char kText[] = R"(HloModule view
ENTRY main {
  x = f32[4,64] parameter(0)
  a = f32[4,64] negate(x)
  r = f32[256] reshape(a)
  b = f32[256] abs(r)
  p = f32[256] reshape(x)
  l = f32[4,64]{0,1} negate(x)
  q = f32[256] reshape(l)
  ROOT o = (f32[256], f32[256], f32[256]) tuple(b, p, q)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // r is a's buffer, and b (r's and a's last reader) takes it over. A
  // reshape of the parameter, or of a column-major array, is a copy.
  EXPECT_EQ(LeafOf(*assignment, "r"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));
  EXPECT_NE(LeafOf(*assignment, "p"), LeafOf(*assignment, "x"));
  EXPECT_NE(LeafOf(*assignment, "q"), LeafOf(*assignment, "l"));
  ExpectNoOverlapWhileLive(*assignment);

  // Not asked for (the device backend): a buffer of its own.
  InPlaceAnalysis analysis(module);
  auto not_asked = AssignBuffers(*module.entry(), &analysis);
  ASSERT_TRUE(not_asked.ok());
  EXPECT_NE(LeafOf(*not_asked, "r"), LeafOf(*not_asked, "a"));

  Literal x = Matrix(4, 64, 0.5f);
  std::vector<Literal> out = CompileAndRun(ParseHloForTest(kText), {x});
  ASSERT_EQ(out.size(), 3u);
  for (int64_t i = 0; i < 256; ++i) {
    EXPECT_EQ(out[0].data<float>()[i], std::abs(x.data<float>()[i])) << i;
    EXPECT_EQ(out[1].data<float>()[i], x.data<float>()[i]) << i;
  }
  ExpectSameResultsWithoutInPlace(kText, {x});
}

// While a reshape of it is still read, an array's buffer is not written in
// place, whether the writer reads the array or the view last.
TEST(ReshapeViews, NoInPlaceWriteWhileAViewIsRead) {
  constexpr char kText[] = R"(HloModule views_read_later
ENTRY main {
  x = f32[4,64] parameter(0)
  i = s32[] parameter(1)
  u = f32[1,64] parameter(2)
  zero = s32[] constant(0)
  a = f32[4,64] negate(x)
  r = f32[256] reshape(a)
  b = f32[4,64] abs(a)
  c = f32[4,64] add(x, x)
  s = f32[256] reshape(c)
  d = f32[4,64] dynamic-update-slice(c, u, i, zero)
  e = f32[4,64] multiply(x, x)
  v = f32[256] reshape(e)
  f = f32[256] abs(v)
  rs = f32[256] reverse(r), dimensions={0}
  ss = f32[256] reverse(s), dimensions={0}
  es = f32[256] reshape(e)
  ROOT o = (f32[4,64], f32[4,64], f32[256], f32[256], f32[256], f32[256]) tuple(b, d, rs, ss, f, es)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_EQ(LeafOf(*assignment, "r"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "s"), LeafOf(*assignment, "c"));
  EXPECT_EQ(LeafOf(*assignment, "v"), LeafOf(*assignment, "e"));
  // b reads a last, d c, f v, but r, s and e (through es) are read later.
  EXPECT_NE(LeafOf(*assignment, "b"), LeafOf(*assignment, "a"));
  EXPECT_NE(LeafOf(*assignment, "d"), LeafOf(*assignment, "c"));
  EXPECT_NE(LeafOf(*assignment, "f"), LeafOf(*assignment, "v"));
  ExpectNoOverlapWhileLive(*assignment);

  Literal x = Matrix(4, 64, 0.25f);
  Literal u = Matrix(1, 64, 3.0f);
  std::vector<Literal> args;
  args.push_back(x);
  args.push_back(Literal::Scalar<int32_t>(2));
  args.push_back(u);
  std::vector<Literal> out = CompileAndRun(ParseHloForTest(kText), args);
  ASSERT_EQ(out.size(), 6u);
  const float* xs = x.data<float>();
  for (int64_t k = 0; k < 256; ++k) {
    EXPECT_EQ(out[0].data<float>()[k], std::abs(xs[k])) << k;
    const float updated = k / 64 == 2 ? u.data<float>()[k % 64] : xs[k] + xs[k];
    EXPECT_EQ(out[1].data<float>()[k], updated) << k;
    EXPECT_EQ(out[2].data<float>()[k], -xs[255 - k]) << k;
    EXPECT_EQ(out[3].data<float>()[k], xs[255 - k] + xs[255 - k]) << k;
    EXPECT_EQ(out[4].data<float>()[k], xs[k] * xs[k]) << k;
    EXPECT_EQ(out[5].data<float>()[k], xs[k] * xs[k]) << k;
  }
  ExpectSameResultsWithoutInPlace(kText, args);
}

TEST(ReshapeViews, NotOfBuffersACustomCallSaw) {
  constexpr char kText[] = R"(HloModule handler_views
ENTRY main {
  x = f32[64] parameter(0)
  a = f32[64] custom-call(x), custom_call_target="written"
  r = f32[8,8] reshape(a)
  b = f32[64] negate(x)
  c = f32[64] custom-call(b), custom_call_target="read"
  s = f32[8,8] reshape(b)
  ROOT o = (f32[8,8], f32[64], f32[8,8]) tuple(r, c, s)
}
)";
  Module module = ParseHloForTest(kText);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  EXPECT_NE(LeafOf(*assignment, "r"), LeafOf(*assignment, "a"));
  EXPECT_NE(LeafOf(*assignment, "s"), LeafOf(*assignment, "b"));
}

// jax.lax.scan of h = tanh(h @ w + x), stacking every h, as JAX lowers it
// (the stacked row a broadcast of h to [1, 4, 8]; the simplifier makes it a
// reshape, a view of h's buffer): the same results with and without views
// and in-place results, and the recurrence's values.
constexpr char kScan[] = R"(HloModule scan
body {
  s = (s32[], f32[4,8], f32[6,4,8], f32[6,4,8], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,8] get-tuple-element(s), index=1
  hs = f32[6,4,8] get-tuple-element(s), index=2
  xs = f32[6,4,8] get-tuple-element(s), index=3
  w = f32[8,8] get-tuple-element(s), index=4
  zero = s32[] constant(0)
  x3 = f32[1,4,8] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,4,8}
  x = f32[4,8] reshape(x3)
  d = f32[4,8] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[4,8] add(d, x)
  t = f32[4,8] tanh(a)
  row = f32[1,4,8] broadcast(t), dimensions={1,2}
  next = f32[6,4,8] dynamic-update-slice(hs, row, i, zero, zero)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT out = (s32[], f32[4,8], f32[6,4,8], f32[6,4,8], f32[8,8]) tuple(j, t, next, xs, w)
}
cond {
  s = (s32[], f32[4,8], f32[6,4,8], f32[6,4,8], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  h0 = f32[4,8] parameter(0)
  xs = f32[6,4,8] parameter(1)
  w = f32[8,8] parameter(2)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  hs = f32[6,4,8] broadcast(z), dimensions={}
  init = (s32[], f32[4,8], f32[6,4,8], f32[6,4,8], f32[8,8]) tuple(zero, h0, hs, xs, w)
  loop = (s32[], f32[4,8], f32[6,4,8], f32[6,4,8], f32[8,8]) while(init), condition=cond, body=body
  last = f32[4,8] get-tuple-element(loop), index=1
  all = f32[6,4,8] get-tuple-element(loop), index=2
  ROOT r = (f32[4,8], f32[6,4,8]) tuple(last, all)
}
)";

TEST(ReshapeViews, ScanStacksEveryStepThroughAView) {
  std::vector<Literal> args;
  args.push_back(Matrix(4, 8, 0.125f));
  args.push_back(Literal::FromVector<float>(
      {6, 4, 8}, Ramp(6 * 4 * 8, 0.01f).ToVector<float>()));
  args.push_back(Matrix(8, 8, 0.05f));
  std::vector<Literal> out = CompileAndRun(ParseHloForTest(kScan), args);
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> h(args[0].data<float>(), args[0].data<float>() + 32);
  const float* xs = args[1].data<float>();
  const float* w = args[2].data<float>();
  for (int step = 0; step < 6; ++step) {
    std::vector<double> next(32);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c) {
        double sum = xs[step * 32 + r * 8 + c];
        for (int k = 0; k < 8; ++k) sum += h[r * 8 + k] * w[k * 8 + c];
        next[r * 8 + c] = std::tanh(sum);
      }
    h = next;
    for (int e = 0; e < 32; ++e)
      EXPECT_NEAR(out[1].data<float>()[step * 32 + e], h[e], 1e-5)
          << step << " " << e;
  }
  for (int e = 0; e < 32; ++e)
    EXPECT_EQ(out[0].data<float>()[e], out[1].data<float>()[5 * 32 + e]) << e;
  ExpectSameResultsWithoutInPlace(kScan, args);
}

constexpr char kScatters[] = R"(HloModule scatters
set {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,32] parameter(0)
  i = s32[6,1] parameter(1)
  u = f32[6,32] parameter(2)
  a = f32[64,32] negate(x)
  s = f32[64,32] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
  b = f32[64,32] abs(x)
  t = f32[64,32] scatter(b, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  c = f32[64,32] add(b, t)
  e = f32[64,32] exponential(x)
  f = f32[64,32] scatter(e, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  g = f32[64,32] sine(f)
  p = f32[64,32] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
  d = f32[6,32] negate(u)
  q = f32[6,32] scatter(d, i, d), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT r = (f32[64,32], f32[64,32], f32[64,32], f32[64,32], f32[6,32]) tuple(s, c, g, p, q)
}
)";

TEST(ResultsInPlace, ScattersUpdateADeadOperandWhereItLies) {
  Module module = ParseHloForTest(kScatters);
  auto assignment = Assign(module, *module.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  // s and f: their operands are dead after them. t: b is read later by c.
  // p: the caller's parameter. q: d is its updates too.
  EXPECT_EQ(LeafOf(*assignment, "s"), LeafOf(*assignment, "a"));
  EXPECT_EQ(LeafOf(*assignment, "f"), LeafOf(*assignment, "e"));
  EXPECT_NE(LeafOf(*assignment, "t"), LeafOf(*assignment, "b"));
  EXPECT_NE(LeafOf(*assignment, "p"), LeafOf(*assignment, "x"));
  EXPECT_NE(LeafOf(*assignment, "q"), LeafOf(*assignment, "d"));
  ExpectNoOverlapWhileLive(*assignment);
  // Not asked for (the device backend): fresh.
  InPlaceAnalysis analysis(module);
  auto not_asked = AssignBuffers(*module.entry(), &analysis);
  ASSERT_TRUE(not_asked.ok());
  EXPECT_NE(LeafOf(*not_asked, "s"), LeafOf(*not_asked, "a"));

  std::vector<float> x(64 * 32), u(6 * 32);
  for (size_t e = 0; e < x.size(); ++e)
    x[e] = static_cast<float>((e * 37) % 101) * 0.03125f - 1.5f;
  for (size_t e = 0; e < u.size(); ++e) u[e] = static_cast<float>(e) * 0.25f;
  // Duplicates, and rows outside the 64 (and the 6) rows, which are skipped.
  std::vector<Literal> arguments;
  arguments.push_back(Literal::FromVector<float>({64, 32}, x));
  arguments.push_back(
      Literal::FromVector<int32_t>({6, 1}, {3, 63, 3, -1, 64, 5}));
  arguments.push_back(Literal::FromVector<float>({6, 32}, u));
  ExpectSameResultsWithoutInPlace(kScatters, arguments);
  // And the values themselves: row 3 of s is the last update to it.
  std::vector<Literal> out =
      CompileAndRun(ParseHloForTest(kScatters), arguments);
  ASSERT_EQ(out.size(), 5u);
  for (int64_t c = 0; c < 32; ++c) {
    EXPECT_EQ(out[0].data<float>()[3 * 32 + c],
              u[static_cast<size_t>(2 * 32 + c)]);
    EXPECT_EQ(out[0].data<float>()[63 * 32 + c],
              u[static_cast<size_t>(32 + c)]);
    EXPECT_EQ(out[0].data<float>()[c], -x[static_cast<size_t>(c)]);
    EXPECT_EQ(out[3].data<float>()[5 * 32 + c],
              u[static_cast<size_t>(5 * 32 + c)]);
    // q: d's row 3 plus both updates aimed at it, from d's original values.
    EXPECT_EQ(out[4].data<float>()[3 * 32 + c],
              -u[static_cast<size_t>(3 * 32 + c)] - u[static_cast<size_t>(c)] -
                  u[static_cast<size_t>(2 * 32 + c)]);
  }
}

constexpr char kRowSets[] = R"(HloModule row_sets
set {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY main {
  x = f32[1024,128] parameter(0)
  i = s32[601,1] parameter(1)
  u = f32[601,128] parameter(2)
  p = f32[1024,128] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=set
  a = f32[1024,128] negate(x)
  s = f32[1024,128] scatter(a, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
  ROOT r = (f32[1024,128], f32[1024,128]) tuple(p, s)
}
)";

// A program's row sets (one into a copy of the parameter, one in place into
// a dead negate) give the serial result on 1, 2 and 4 intra-op threads,
// with distinct rows (split across the pool) and with a repeated row (the
// serial loop; unique_indices=true is not trusted).
TEST(ResultsInPlace, RowSetsOfAProgramOnThreads) {
  const int64_t rows = 1024, cols = 128, n = 601;
  std::vector<float> x(static_cast<size_t>(rows * cols)),
      u(static_cast<size_t>(n * cols));
  for (size_t e = 0; e < x.size(); ++e)
    x[e] = static_cast<float>((e * 37) % 101) * 0.25f + 1.0f;
  for (size_t e = 0; e < u.size(); ++e) u[e] = -static_cast<float>(e);
  std::vector<int32_t> distinct(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    distinct[static_cast<size_t>(k)] = static_cast<int32_t>((k * 389) % rows);
  distinct[10] = static_cast<int32_t>(rows);  // skipped
  std::vector<int32_t> repeated = distinct;
  repeated[500] = repeated[0];
  for (const std::vector<int32_t>* idx : {&distinct, &repeated}) {
    std::vector<float> want_p = x, want_s(x.size());
    for (size_t e = 0; e < x.size(); ++e) want_s[e] = -x[e];
    for (int64_t k = 0; k < n; ++k) {
      const int32_t row = (*idx)[static_cast<size_t>(k)];
      if (row < 0 || row >= rows) continue;
      for (std::vector<float>* want : {&want_p, &want_s})
        std::copy_n(u.begin() + k * cols, cols, want->begin() + row * cols);
    }
    std::vector<Literal> arguments;
    arguments.push_back(Literal::FromVector<float>({rows, cols}, x));
    arguments.push_back(Literal::FromVector<int32_t>({n, 1}, *idx));
    arguments.push_back(Literal::FromVector<float>({n, cols}, u));
    for (int threads : {1, 2, 4}) {
      CompileOptions options;
      options.intra_op_threads = threads;
      auto exe = CompileForTest(ParseHloForTest(kRowSets), options);
      ASSERT_TRUE(exe.ok()) << exe.status().ToString();
      auto out = (*exe)->Execute(arguments);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ASSERT_EQ(out->size(), 2u);
      EXPECT_EQ((*out)[0].ToVector<float>(), want_p) << "threads " << threads;
      EXPECT_EQ((*out)[1].ToVector<float>(), want_s) << "threads " << threads;
    }
  }
}

// --- arenas of called computations share one block -------------------------

// A branch with an arena: e = exp(x) is read by h = e * -x and again by the
// root h + e, so it stays in the arena while the others go to the caller's
// result buffer in place.
Computation* ScratchBranch(TestModule& m, const std::string& name, int64_t n) {
  IrBuilder b(m.Add(name));
  Instruction* x = b.Param(0, F32({n}), "x");
  Instruction* e = b.Op(Opcode::kExp, F32({n}), {x});
  Instruction* g = b.Op(Opcode::kNegate, F32({n}), {x});
  Instruction* h = b.Binary(Opcode::kMultiply, e, g);
  b.Root(b.Binary(Opcode::kAdd, h, e));
  return b.computation();
}

// c1 = p ? big(x) : -x; c2 = p ? small(c1) : -c1; root c1 + c2. The four
// branches run one at a time, each inside the entry's run.
void SiblingBranches(TestModule& m) {
  Computation* big = ScratchBranch(m, "big", 1024);
  Computation* small = ScratchBranch(m, "small", 1024);
  IrBuilder neg1(m.Add("neg1"));
  neg1.Root(
      neg1.Op(Opcode::kNegate, F32({1024}), {neg1.Param(0, F32({1024}), "x")}));
  IrBuilder neg2(m.Add("neg2"));
  neg2.Root(
      neg2.Op(Opcode::kNegate, F32({1024}), {neg2.Param(0, F32({1024}), "x")}));
  IrBuilder b(m.Entry());
  Instruction* p = b.Param(0, Pred(), "p");
  Instruction* x = b.Param(1, F32({1024}), "x");
  Instruction* c1 = b.Called(Opcode::kConditional, F32({1024}), {p, x, x},
                             {big, neg1.computation()});
  Instruction* c2 = b.Called(Opcode::kConditional, F32({1024}), {p, c1, c1},
                             {small, neg2.computation()});
  b.Root(b.Binary(Opcode::kAdd, c1, c2));
}

TEST(ArenaStack, SiblingCalleesShareTheirBytes) {
  // The executor's block is the entry's arena plus the largest branch's,
  // not the sum of all five: each figure from the buffer assignments.
  TestModule reference;
  SiblingBranches(reference);
  size_t entry = 0, largest = 0, sum = 0;
  std::vector<size_t> branch_sizes;
  for (const auto& computation : reference.module.computations()) {
    auto assignment = Assign(reference.module, *computation);
    ASSERT_TRUE(assignment.ok()) << assignment.status().message();
    sum += assignment->arena_size;
    if (computation.get() == reference.module.entry()) {
      entry = assignment->arena_size;
    } else {
      branch_sizes.push_back(assignment->arena_size);
      largest = std::max(largest, assignment->arena_size);
    }
  }
  ASSERT_EQ(branch_sizes.size(), 4u);
  // Both scratch branches hold e (4 KiB) in their arenas.
  EXPECT_EQ(std::count_if(branch_sizes.begin(), branch_sizes.end(),
                          [](size_t size) { return size >= 4096; }),
            2);
  EXPECT_GT(entry, 0u);
  ASSERT_GT(sum, entry + largest);

  TestModule m;
  SiblingBranches(m);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.computations, 5);
  EXPECT_EQ(stats.separate_arena_bytes, sum);
  EXPECT_EQ(stats.arena_bytes, entry + largest);

  // Sharing changes no value: exp(x) * -x + exp(x) through both branches.
  std::vector<float> xs = Iota(1024, -2, 0.004f);
  for (bool pred : {true, false}) {
    auto out = (*exe)->Execute(
        {Literal::Scalar<bool>(pred), Literal::Vector<float>(xs)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    std::vector<float> got = (*out)[0].ToVector<float>();
    ASSERT_EQ(got.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      float c1 = pred ? std::exp(xs[i]) * -xs[i] + std::exp(xs[i]) : -xs[i];
      float c2 = pred ? std::exp(c1) * -c1 + std::exp(c1) : -c1;
      EXPECT_NEAR(got[i], c1 + c2, 1e-5f * (1 + std::fabs(c1 + c2)))
          << "pred " << pred << " element " << i;
    }
  }
}

TEST(ArenaStack, SeparateWhenTurnedOff) {
  // XFFI_ARENA_STACK=0 (to measure the stack): every arena its own bytes.
  ScopedEnv separate("XFFI_ARENA_STACK", "0");
  TestModule m;
  SiblingBranches(m);
  auto exe = CompileForTest(std::move(m.module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.arena_bytes, stats.separate_arena_bytes);
}

// Batch norm's pattern: column reductions of few columns (64 here). With
// XFFI_FUSED_REDUCE_FEW_COLUMNS=0 the reduction evaluator does not take
// them and they run as calls of their fused computations, one after
// another, each with a full-size product inside; by default it takes them.
constexpr char kTwoColumnReductions[] = R"(
HloModule two_column_reductions

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%squares (p: f32[512,64]) -> f32[64] {
  %p = f32[512,64] parameter(0)
  %sq = f32[512,64] multiply(%p, %p)
  %zero = f32[] constant(0)
  ROOT %r = f32[64] reduce(%sq, %zero), dimensions={0}, to_apply=%add
}

%exps (q: f32[512,64]) -> f32[64] {
  %q = f32[512,64] parameter(0)
  %e = f32[512,64] exponential(%q)
  %zero2 = f32[] constant(0)
  ROOT %r2 = f32[64] reduce(%e, %zero2), dimensions={0}, to_apply=%add
}

ENTRY %main (x: f32[512,64]) -> (f32[64], f32[64]) {
  %x = f32[512,64] parameter(0)
  %f1 = f32[64] fusion(%x), kind=kInput, calls=%squares
  %n = f32[512,64] negate(%x)
  %f2 = f32[64] fusion(%n), kind=kInput, calls=%exps
  ROOT %t = (f32[64], f32[64]) tuple(%f1, %f2)
}
)";

// The two sums kTwoColumnReductions computes, against f64 sums.
void ExpectTwoColumnSums(Executable& exe) {
  std::vector<float> xs = Iota(512 * 64, -1, 1.0f / 16384);
  auto out = exe.Execute({Literal::FromVector<float>({512, 64}, xs)});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  std::vector<float> squares = (*out)[0].ToVector<float>();
  std::vector<float> exps = (*out)[1].ToVector<float>();
  ASSERT_EQ(squares.size(), 64u);
  ASSERT_EQ(exps.size(), 64u);
  for (size_t c = 0; c < 64; ++c) {
    double want_squares = 0, want_exps = 0;
    for (size_t r = 0; r < 512; ++r) {
      double v = xs[r * 64 + c];
      want_squares += v * v;
      want_exps += std::exp(-v);
    }
    EXPECT_NEAR(squares[c], want_squares, 1e-4 * want_squares) << c;
    EXPECT_NEAR(exps[c], want_exps, 1e-4 * want_exps) << c;
  }
}

TEST(ArenaStack, FallbackReductionFusionsShareTheirBytes) {
  ScopedEnv refuse("XFFI_FUSED_REDUCE_FEW_COLUMNS", "0");
  Module reference = ParseHloForTest(kTwoColumnReductions);
  size_t entry = 0, largest = 0, sum = 0, fused = 0;
  for (const auto& computation : reference.computations()) {
    auto assignment = Assign(reference, *computation);
    ASSERT_TRUE(assignment.ok()) << assignment.status().message();
    sum += assignment->arena_size;
    if (computation.get() == reference.entry()) {
      entry = assignment->arena_size;
      continue;
    }
    largest = std::max(largest, assignment->arena_size);
    // Each fused computation holds its 128 KiB product in its arena.
    if (assignment->arena_size >= 512u * 64 * 4) ++fused;
  }
  ASSERT_EQ(fused, 2u);
  EXPECT_EQ(largest, 512u * 64 * 4);

  auto exe = CompileForTest(ParseHloForTest(kTwoColumnReductions));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.separate_arena_bytes, sum);
  EXPECT_EQ(stats.arena_bytes, entry + largest);
  EXPECT_LT(stats.arena_bytes, stats.separate_arena_bytes);
  ExpectTwoColumnSums(**exe);
}

// Taken by the reduction evaluator, the two fusions are kernels: their
// fused computations are never compiled, so the run's block is the entry's
// arena alone (its negate), without the fused 128 KiB products.
TEST(ArenaStack, FewColumnReductionFusionsNeedNoArena) {
  Module reference = ParseHloForTest(kTwoColumnReductions);
  auto assignment = Assign(reference, *reference.entry());
  ASSERT_TRUE(assignment.ok()) << assignment.status().message();
  auto exe = CompileForTest(ParseHloForTest(kTwoColumnReductions));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  cpu::ExecutorStats stats = cpu::GetExecutorStats(**exe);
  EXPECT_EQ(stats.computations, 1);
  EXPECT_EQ(stats.arena_bytes, assignment->arena_size);
  EXPECT_EQ(stats.separate_arena_bytes, assignment->arena_size);
  ExpectTwoColumnSums(**exe);
}

}  // namespace
}  // namespace xffi::test
