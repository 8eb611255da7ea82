// xffi: module-to-module rewrites (passes) and the manager that runs them.
//
// A pass is a named rewrite of a whole Module that says whether it changed
// anything; one file per pass in src/passes/. The manager runs its passes
// in the order they were added. For debugging it can verify the module
// after every pass that changed it (an invalid module is then an INTERNAL
// error naming the pass) and write the module as HLO text after the passes
// it is asked to (`xffi run --dump-after PASS`).
//
//   PassManager passes(options);
//   passes.Add<SpmdEmulation>().Add<DeadCodeElimination>();
//   StatusOr<bool> changed = passes.Run(module);
//
// Passes may assume the module they get is verified (VerifyModule), and
// must leave it so.
#ifndef XFFI_SRC_PASSES_PASS_MANAGER_H_
#define XFFI_SRC_PASSES_PASS_MANAGER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  // Short and unique in a pipeline ("dce"): what --dump-after takes.
  virtual std::string_view name() const = 0;
  // Rewrites `module`; true when anything changed.
  virtual StatusOr<bool> Run(Module& module) = 0;
};

struct PassManagerOptions {
  // Run VerifyModule after every pass that changed the module.
  bool verify_after_each_pass = false;
  // Passes after which the module is written as HLO text, by name; "all":
  // after every pass.
  std::vector<std::string> dump_after;
  // Where a dump goes (the pass's name, the module's HLO text); null:
  // standard error.
  std::function<void(std::string_view pass, const std::string& hlo_text)> dump;
};

class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {})
      : options_(std::move(options)) {}

  PassManager& Add(std::unique_ptr<Pass> pass) {
    passes_.push_back(std::move(pass));
    return *this;
  }
  template <typename P, typename... Args>
  PassManager& Add(Args&&... args) {
    return Add(std::make_unique<P>(std::forward<Args>(args)...));
  }

  // The passes' names, in the order they run.
  std::vector<std::string> names() const;

  // Runs every pass in order and returns whether any changed the module.
  // A name in dump_after that is neither a pass's nor "all" is an error
  // listing the passes, before any runs; the first failing pass stops the
  // run with its error as it is (a pass names the op and where it is, as a
  // verifier error does).
  StatusOr<bool> Run(Module& module) const;

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_PASS_MANAGER_H_
