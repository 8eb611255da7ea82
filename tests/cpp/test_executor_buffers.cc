// Buffer assignment: arena slices are reused once their values are dead,
// values alive at the same time never share bytes, and root values are
// computed straight into the caller's memory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/buffer_assignment.h"
#include "cpu/executor.h"
#include "executor_test_util.h"

namespace xffi::test {
namespace {

using compiler::AssignBuffers;
using compiler::BufferAssignment;
using compiler::BufferKind;

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
  // the simplifier would remove a chain of negations.)
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

}  // namespace
}  // namespace xffi::test
