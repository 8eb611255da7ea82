// dot on the device backend through the GEMM seam (device_backend/
// dot_as_gemm.h, Stream::MatrixMultiply), on SimDevice: every layout
// dot_general takes and every type cuBLAS multiplies give the Host
// executor's results; integer dots keep the contraction functor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/compare.h"
#include "compiler/compiler.h"
#include "device/sim_device.h"
#include "device_backend/device_backend.h"
#include "device_backend/dot_as_gemm.h"
#include "device_backend_test_util.h"
#include "ir/float_types.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"

namespace xffi::device_backend {
namespace {

class DeviceDotTest : public testing::SimDeviceBackendTest {
 protected:
  // The program on SimDevice and on the Host executor, on the same random
  // arguments: equal results (the values make every sum exact).
  void ExpectMatchesHost(const std::string& text, const std::string& what) {
    auto device = CompileForDevice(text);
    ASSERT_TRUE(device.ok()) << what << ": " << device.status().message();
    auto host = CompileForHost(text);
    ASSERT_TRUE(host.ok()) << what << ": " << host.status().message();
    std::mt19937 random(7);
    std::vector<Literal> arguments;
    for (const Shape& shape : (*device)->parameter_shapes())
      arguments.push_back(testing::RandomEighths(shape, random));
    StatusOr<std::vector<Literal>> on_device = (*device)->Execute(arguments);
    ASSERT_TRUE(on_device.ok()) << what << ": " << on_device.status().message();
    StatusOr<std::vector<Literal>> on_host = (*host)->Execute(arguments);
    ASSERT_TRUE(on_host.ok()) << what << ": " << on_host.status().message();
    ASSERT_EQ(on_device->size(), 1u);
    Comparison comparison =
        CompareLiterals((*on_device)[0], (*on_host)[0], 0.0);
    EXPECT_TRUE(comparison.ok) << what << ": " << comparison.detail;
  }
};

// A dot_general and the shapes around it; {T} is the operand type, {R} the
// result's.
struct Layout {
  const char* name;
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* dims;
  // Which operands the GEMM reads through a relayout copy.
  bool lhs_copied = false, rhs_copied = false;
};

const Layout kLayouts[] = {
    {"plain", "[3,5]", "[5,4]", "[3,4]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
    {"lhs_transposed", "[5,3]", "[5,4]", "[3,4]",
     "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
    {"rhs_transposed", "[3,5]", "[4,5]", "[3,4]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={1}"},
    {"both_transposed", "[5,3]", "[4,5]", "[3,4]",
     "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
    {"batched", "[2,3,5]", "[2,5,4]", "[2,3,4]",
     "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
     "rhs_contracting_dims={1}"},
    {"batch_in_the_middle", "[3,2,5]", "[2,5,4]", "[2,3,4]",
     "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
     "rhs_contracting_dims={1}"},
    {"two_batch_dims", "[2,2,3,5]", "[2,2,4,5]", "[2,2,3,4]",
     "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
     "rhs_contracting_dims={3}"},
    {"two_contracting_dims", "[3,2,5]", "[2,5,4]", "[3,4]",
     "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"},
    {"contracting_dims_out_of_order", "[3,2,5]", "[5,2,4]", "[3,4]",
     "lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}", true, false},
    {"batch_last", "[3,5,2]", "[5,4,2]", "[2,3,4]",
     "lhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_batch_dims={2}, "
     "rhs_contracting_dims={0}",
     true, true},
    {"free_dims_split", "[3,5,2]", "[5,4]", "[3,2,4]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={0}", true, false},
    {"vector_vector", "[7]", "[7]", "[]",
     "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
    {"matrix_vector", "[3,7]", "[7]", "[3]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
    {"outer_product", "[3]", "[4]", "[3,4]", ""},
    {"size_one_dims", "[1,3,1,5]", "[5,1,4]", "[1,3,1,1,4]",
     "lhs_contracting_dims={3}, rhs_contracting_dims={0}"},
    {"empty_contraction", "[3,0]", "[0,4]", "[3,4]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
};

std::string DotProgram(const Layout& layout, const std::string& type,
                       const std::string& result_type) {
  std::string dims = layout.dims;
  return "HloModule dot\nENTRY main {\n  a = " + type + layout.lhs +
         " parameter(0)\n  b = " + type + layout.rhs +
         " parameter(1)\n  ROOT d = " + result_type + layout.out +
         " dot(a, b)" + (dims.empty() ? "" : ", " + dims) + "\n}\n";
}

// Every layout, in every type cuBLAS multiplies, with the results the
// Host executor gives.
TEST_F(DeviceDotTest, EveryLayoutAndGemmTypeMatchesTheHost) {
  const std::pair<const char*, const char*> kTypes[] = {
      {"f32", "f32"}, {"f64", "f64"},  {"f16", "f16"}, {"bf16", "bf16"},
      {"f16", "f32"}, {"bf16", "f32"}, {"c64", "c64"}, {"c128", "c128"}};
  for (const Layout& layout : kLayouts)
    for (const auto& [type, result] : kTypes)
      ExpectMatchesHost(DotProgram(layout, type, result),
                        std::string(layout.name) + " " + type + "->" + result);
}

// The plan reads matrix views in place and copies only operands that are
// none (the layouts' expectations), and the GEMM serves every float type.
TEST_F(DeviceDotTest, OnlyOperandsThatAreNoMatrixViewAreCopied) {
  for (const Layout& layout : kLayouts) {
    StatusOr<Module> module =
        ParseProgram(DotProgram(layout, "f32", "f32"), "dot.hlo");
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Instruction* dot = module->entry()->root();
    std::string why_not;
    std::optional<DotGemmPlan> plan = PlanDotAsGemm(*dot, &why_not);
    ASSERT_TRUE(plan.has_value()) << layout.name << ": " << why_not;
    EXPECT_EQ(plan->lhs_copy.has_value(), layout.lhs_copied) << layout.name;
    EXPECT_EQ(plan->rhs_copy.has_value(), layout.rhs_copied) << layout.name;
    // Valid once bound to memory (any non-null address will do here).
    device::Gemm bound = plan->gemm;
    float placeholder = 0;
    bound.a.data = bound.b.data = bound.c = &placeholder;
    Status valid = device::ValidateGemm(bound);
    EXPECT_TRUE(valid.ok()) << layout.name << ": " << valid.message();
    // The GEMM covers the result exactly.
    EXPECT_EQ(plan->gemm.batch * plan->gemm.m * plan->gemm.n,
              dot->shape().num_elements())
        << layout.name;
  }
}

// Types the GEMM has no form for keep the contraction functor: an integer
// dot and one with mixed operand types still run and match.
TEST_F(DeviceDotTest, IntegerAndMixedDotsKeepTheFunctor) {
  const Layout& batched = kLayouts[4];
  StatusOr<Module> module =
      ParseProgram(DotProgram(batched, "s32", "s32"), "dot.hlo");
  ASSERT_TRUE(module.ok());
  std::string why_not;
  EXPECT_FALSE(PlanDotAsGemm(*module->entry()->root(), &why_not).has_value());
  EXPECT_THAT(why_not, ::testing::HasSubstr("no GEMM cuBLAS runs"));
  ExpectMatchesHost(DotProgram(batched, "s32", "s32"), "s32 batched");
  ExpectMatchesHost(R"(HloModule mixed
ENTRY main {
  a = f32[3,5] parameter(0)
  b = f32[5,4] parameter(1)
  ROOT d = f64[3,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                    "f32 x f32 -> f64");
}

// A dot in a loop body whose lhs needs the relayout copy: the copy's
// scratch serves every iteration. Two iterations keep every sum exact.
TEST_F(DeviceDotTest, ADotInALoopBodyReusesItsScratch) {
  ExpectMatchesHost(R"(HloModule loop
cond {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  r = f32[2,2,4] reshape(x)
  y = f32[4,4] dot(r, r), lhs_contracting_dims={1,0}, rhs_contracting_dims={0,1}
  ROOT t = (s32[], f32[4,4]) tuple(next, y)
}
ENTRY main {
  x = f32[4,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, x)
  loop = (s32[], f32[4,4]) while(init), condition=cond, body=body
  ROOT r = f32[4,4] get-tuple-element(loop), index=1
}
)",
                    "dot in a while body");
}

}  // namespace
}  // namespace xffi::device_backend
