// RunCompilePasses: the pass pipeline Compile runs.
#include "compiler/compile_passes.h"

#include "passes/algebraic_simplifier.h"
#include "passes/approx_top_k_expansion.h"
#include "passes/batch_partitioning.h"
#include "passes/call_inlining.h"
#include "passes/common_subexpression_elimination.h"
#include "passes/dead_code_elimination.h"
#include "passes/float_class_tests.h"
#include "passes/loop_fusion.h"
#include "passes/pass_manager.h"
#include "passes/reduction_fusion.h"
#include "passes/reduction_tree.h"
#include "passes/spmd_emulation.h"

namespace xffi::compiler {

Status RunCompilePasses(Module& module, const CompileOptions& options) {
  passes::PassManagerOptions pass_options;
  pass_options.verify_after_each_pass = options.verify_after_each_pass;
  pass_options.dump_after = options.dump_after;
  pass_options.dump = options.dump;
  passes::PassManager pipeline(std::move(pass_options));
  // Dead code goes after the emulation, which leaves some (the devices'
  // copies of values a collective does not read, say). Batch-partitionable
  // calls become manual computations first, which it then runs per device.
  pipeline.Add<passes::BatchPartitioning>();
  pipeline.Add<passes::SpmdEmulation>();
  // Before simplification, which may clean up after it.
  pipeline.Add<passes::ApproxTopKExpansion>();
  // Before simplification: constants passed to a callee meet its ops.
  pipeline.Add<passes::CallInlining>();
  pipeline.Add<passes::AlgebraicSimplifier>();
  pipeline.Add<passes::CommonSubexpressionElimination>();
  // After CSE, which makes one abs(x) of the abs(x)s a zero test and an
  // infinity test compare; the compares it leaves unread are dce's.
  pipeline.Add<passes::FloatClassTests>();
  if (options.eliminate_dead_code) pipeline.Add<passes::DeadCodeElimination>();
  // Whether or not fusing: it fixes the order a byte-float sum visits its
  // inputs in, and so its result.
  pipeline.Add<passes::ReductionTree>();
  if (options.fuse_loops) {
    // Reductions first: they take the producers loop fusion would otherwise
    // give a kLoop fusion of their own.
    pipeline.Add<passes::ReductionFusion>();
    pipeline.Add<passes::LoopFusion>();
    // The generators fusion copies into fusions leave their originals dead.
    if (options.eliminate_dead_code)
      pipeline.Add<passes::DeadCodeElimination>();
  }
  StatusOr<bool> changed = pipeline.Run(module);
  return changed.ok() ? Status::Ok() : changed.status();
}

}  // namespace xffi::compiler
