// RunCompilePasses: the pass pipeline Compile runs.
#include "compiler/compile_passes.h"

#include "compiler/dead_code.h"

namespace xffi::compiler {

Status RunCompilePasses(Module& module, const CompileOptions& options) {
  if (options.eliminate_dead_code) EliminateDeadCode(module);
  return Status::Ok();
}

}  // namespace xffi::compiler
