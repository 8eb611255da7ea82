// MakeKernel: structural ops reach their kernels; ops no kernel covers are
// UNIMPLEMENTED, naming the op, its opcode and location. Malformed ops never
// reach MakeKernel (Compile verifies first, see kernel.h); their refusal is
// tested in test_shape_inference.cc and test_compile_verifies.cc.
#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace xffi::cpu {
namespace {

using testing_util::F32;
using testing_util::OpUnderTest;

TEST(KernelDispatch, StructuralOpsGetTheirKernel) {
  OpUnderTest t;
  auto* p = t.Param(F32({2, 3}));
  auto* tr = t.Op(Opcode::kTranspose, F32({3, 2}), {p});
  tr->dimensions = {1, 0};
  StatusOr<Kernel> kernel = MakeKernel(*tr);
  ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
  Literal x = Literal::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Literal out(F32({3, 2}));
  ASSERT_TRUE(testing_util::RunKernel(*kernel, {&x}, {&out}).ok());
  EXPECT_EQ(out.ToVector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(KernelDispatch, UnsupportedOpNamesOpcodeAndLocation) {
  OpUnderTest t;
  auto* p = t.Param(F32({2}));
  auto* call = t.computation->AddInstruction(Opcode::kCustomCall, F32({2}), {p},
                                             "my_call");
  Location loc;
  loc.file = "model.mlir";
  loc.line = 12;
  loc.column = 5;
  call->set_location(loc);
  StatusOr<Kernel> kernel = MakeKernel(*call);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(kernel.status().message(),
            "op 'my_call' (custom-call) at model.mlir:12:5 is not supported "
            "on CPU");
}

TEST(KernelDispatch, StructuralMakerSaysNotFoundForOtherOps) {
  OpUnderTest t;
  auto* p = t.Param(F32({2}));
  auto* add = t.Op(Opcode::kAdd, F32({2}), {p, p});
  StatusOr<Kernel> kernel = MakeStructuralKernel(*add);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
}

}  // namespace
}  // namespace xffi::cpu
