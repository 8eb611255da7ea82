// xffi: how XLA:CPU's compiled code tests a float for zero next to an
// infinity test (the pass "float-class-tests").
//
// XLA:CPU runs with subnormals read as zero (DAZ), so its compares and
// arithmetic see an f32/f64 subnormal x as 0: x == 0 is true, x * 2^23 is
// 0. But LLVM, told nothing of that mode, merges compares that classify one
// value, when joined by `or` (`and`) into something no single compare says,
// into one class test done on the bits, where a subnormal is not zero.
// Probed with jax.jit (jax 0.10.2), x = +-1e-40 (f32):
//   x == 0                        true   (one compare: DAZ)
//   (x == 0) | (x != x)           true   (one unordered compare)
//   (x == 0) | (|x| == inf)       false  (class test on the bits)
//   (x == 0) | (x == inf)         false
//   (|x| == inf) | (x != x) | (x == 0)   false  (jnp.frexp's zero branch)
//   (x != 0) & (x == x)           false  (one ordered compare)
//   (x != 0) & (|x| != inf)       true   (class test on the bits)
//   is_finite(x) & (x != 0)       true
// So in an `or` of pred values that holds both x == 0 and an infinity test
// of the same x (x == +-inf, |x| == inf), the zero test becomes a test of
// x's bits without the sign; likewise x != 0 in an `and` that holds a
// finiteness test of x (x != +-inf, |x| != inf, |x| < inf, is_finite(x)).
// Where a subnormal is not involved both give the same answer, so the
// rewrite changes nothing else. jnp.frexp of a subnormal then gives XLA's
// (+-0.5, -149).
#ifndef XFFI_SRC_PASSES_FLOAT_CLASS_TESTS_H_
#define XFFI_SRC_PASSES_FLOAT_CLASS_TESTS_H_

#include <cstdint>

#include "passes/pass_manager.h"
#include "xffi/program/ir.h"

namespace xffi::passes {

// Returns how many zero tests were rewritten.
int64_t RewriteFloatClassTests(Module& module);

class FloatClassTests : public Pass {
 public:
  std::string_view name() const override { return "float-class-tests"; }
  StatusOr<bool> Run(Module& module) override {
    return RewriteFloatClassTests(module) > 0;
  }
};

}  // namespace xffi::passes

#endif  // XFFI_SRC_PASSES_FLOAT_CLASS_TESTS_H_
