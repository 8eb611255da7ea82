// Generated kernels in while loops: ops of loop bodies are generated from a
// smaller size than elsewhere (they run once per iteration), and a scan
// step's reshaped dynamic-slice input is generated as a row loop, with
// the values the evaluator gives.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "fusion_test_util.h"

namespace xffi {
namespace {

using codegen_test::FirstDifference;
using codegen_test::FirstDifferenceWithin;
using codegen_test::ProgramRun;
using codegen_test::RunProgram;
using fusion_test::RandomF32;

// Small fusions are left to the tile evaluator, except in a loop body,
// where the same fusion runs once per iteration (a fori_loop's row
// update): there it is generated, with the same values.
TEST(CodegenFusion, SmallFusionsAreGeneratedInLoopBodiesOnly) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
body {
  state = (s32[], f32[16,256]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  rows = f32[16,256] get-tuple-element(state), index=1
  zero = s32[] constant(0)
  row = f32[1,256] dynamic-slice(rows, i, zero), dynamic_slice_sizes={1,256}
  two = f32[] constant(2)
  twos = f32[1,256] broadcast(two), dimensions={}
  scaled = f32[1,256] multiply(row, twos)
  fi = f32[] convert(i)
  bi = f32[1,256] broadcast(fi), dimensions={}
  shifted = f32[1,256] add(scaled, bi)
  updated = f32[16,256] dynamic-update-slice(rows, shifted, i, zero)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT out = (s32[], f32[16,256]) tuple(next, updated)
}
cond {
  state = (s32[], f32[16,256]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[16,256] parameter(0)
  v = f32[256] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[16,256]) tuple(zero, x)
  loop = (s32[], f32[16,256]) while(init), condition=cond, body=body
  rows = f32[16,256] get-tuple-element(loop), index=1
  vv = f32[256] multiply(v, v)
  w = f32[256] add(vv, v)
  ROOT r = (f32[16,256], f32[256]) tuple(rows, w)
}
)";
  std::vector<Literal> args;
  args.push_back(RandomF32({16, 256}, 31));
  args.push_back(RandomF32({256}, 32));
  codegen_test::ScopedEnv enabled("XFFI_CODEGEN", "1");
  codegen_test::ScopedEnv outside("XFFI_CODEGEN_MIN_ELEMENTS", "1024");
  codegen_test::ScopedEnv inside("XFFI_CODEGEN_LOOP_MIN_ELEMENTS", "64");
  StatusOr<Module> module = ParseProgram(text, "test");
  ASSERT_TRUE(module.ok()) << module.status().message();
  CompileOptions options;
  options.intra_op_threads = 1;
  StatusOr<std::unique_ptr<Executable>> exe =
      Compile(std::move(*module), options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  // The body's fusion; not the entry's (256 elements too).
  EXPECT_EQ(cpu::GetExecutorStats(**exe).generated_kernels, 1);
  StatusOr<std::vector<Literal>> generated = (*exe)->Execute(args);
  ASSERT_TRUE(generated.ok()) << generated.status().message();
  StatusOr<ProgramRun> plain = RunProgram(text, args, /*codegen=*/false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_EQ(generated->size(), plain->results.size());
  for (size_t i = 0; i < plain->results.size(); ++i)
    EXPECT_EQ(FirstDifference((*generated)[i], plain->results[i]), "") << i;
}

// A scan step's input: one [32, 256] slab of [8, 32, 256] at a run-time
// step (in range, past the end, negative), reshaped to drop the unit
// dimension, then added and tanh'd, generated as a row loop whose
// coordinates pass through the reshape unchanged, against the evaluator.
TEST(CodegenFusion, ReshapedDynamicSliceOfAScanStep) {
  XFFI_SKIP_WITHOUT_CODEGEN();
  const std::string text = R"(HloModule m
ENTRY %main (xs: f32[8,32,256], h: f32[32,256], i: s32[]) -> f32[32,256] {
  %xs = f32[8,32,256] parameter(0)
  %h = f32[32,256] parameter(1)
  %i = s32[] parameter(2)
  %zero = s32[] constant(0)
  %d = f32[1,32,256] dynamic-slice(%xs, %i, %zero, %zero), dynamic_slice_sizes={1,32,256}
  %x = f32[32,256] reshape(%d)
  %s = f32[32,256] add(%h, %x)
  ROOT %t = f32[32,256] tanh(%s)
}
)";
  for (int32_t step : {0, 5, 7, 100, -3}) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<Literal> args;
    args.push_back(RandomF32({8, 32, 256}, 41));
    args.push_back(RandomF32({32, 256}, 42));
    args.push_back(Literal::Scalar<int32_t>(step));
    StatusOr<ProgramRun> plain = RunProgram(text, args, /*codegen=*/false);
    ASSERT_TRUE(plain.ok()) << plain.status().message();
    for (int threads : {1, 3}) {
      StatusOr<ProgramRun> generated =
          RunProgram(text, args, /*codegen=*/true, /*fuse=*/true, threads);
      ASSERT_TRUE(generated.ok()) << generated.status().message();
      EXPECT_EQ(generated->generated_kernels, 1);
      EXPECT_EQ(FirstDifferenceWithin(generated->results[0], plain->results[0],
                                      1e-6, 1.0),
                "")
          << "threads " << threads;
    }
  }
}

}  // namespace
}  // namespace xffi
