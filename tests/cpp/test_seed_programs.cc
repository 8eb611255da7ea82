// The seed examples as programs, each in builder form and in text form
// (StableHLO as JAX prints it, HLO as XLA prints it), compiled and run with
// real handlers written with xffi's header:
//   - XLA's FFI example: do_custom_call(f32[128], f32[2048]) -> f32[2048],
//     A[i] = B[i % 128] + C[i];
//   - the same computation as a legacy (API version 1) target beside the
//     typed one in one program;
//   - the blog's test_subtract_f32 on two constants (1.25 - 0.5 = 0.75);
//   - XLA's tuple example: a nested tuple operand flattened into four
//     buffers, a tuple result whose second element is a temp buffer nobody
//     reads.
// A failing handler in a parsed program names the target, the op's
// line:column in the text and the handler's message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

#include "xffi/ffi.h"
#include "xffi/program/builder.h"
#include "xffi/program/executable.h"
#include "xffi/program/text.h"
#include "xffi/runtime/legacy.h"
#include "xffi/runtime/registry.h"

namespace ffi = xffi::ffi;

namespace seed_test {

using BufferF32 = ffi::Buffer<ffi::F32, 1>;

// XLA's example, as its documentation writes it.
ffi::Error DoCustomCall(BufferF32 in0, BufferF32 in1,
                        ffi::ResultBuffer<ffi::F32, 1> out) {
  size_t d0 = in0.element_count();
  size_t d1 = in1.element_count();
  if (d0 != 128 || d1 != 2048)
    return ffi::Error::InvalidArgument("expected f32[128] and f32[2048]");
  for (size_t i = 0; i < d1; ++i)
    out->typed_data()[i] = in0.typed_data()[i % d0] + in1.typed_data()[i];
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(
    kDoCustomCall, DoCustomCall,
    ffi::Ffi::Bind().Arg<BufferF32>().Arg<BufferF32>().Ret<BufferF32>());

// The legacy form of the same example (API version 1).
void DoCustomCallLegacy(void* out, const void** in) {
  const float* in0 = static_cast<const float*>(in[0]);
  const float* in1 = static_cast<const float*>(in[1]);
  float* result = static_cast<float*>(out);
  for (int i = 0; i < 2048; ++i) result[i] = in0[i % 128] + in1[i];
}

// The blog's target: out = a - b on scalars.
void SubtractF32(void* out, const void** in) {
  *static_cast<float*>(out) =
      *static_cast<const float*>(in[0]) - *static_cast<const float*>(in[1]);
}

// The tuple example: (f32[32], (f32[64], f32[128]), f32[256]) arrive as four
// buffers; out[i] = a[i%32] + b[i%64] + c[i%128] + d[i%256] for i < 512,
// staged through the f32[1024] temp (result 1) as partial sums.
ffi::Error TupleSum(BufferF32 a, BufferF32 b, BufferF32 c, BufferF32 d,
                    ffi::ResultBuffer<ffi::F32, 1> out,
                    ffi::ResultBuffer<ffi::F32, 1> temp) {
  float* t = temp->typed_data();
  for (int i = 0; i < 512; ++i) {
    t[i] = a.typed_data()[i % 32] + b.typed_data()[i % 64];
    t[512 + i] = c.typed_data()[i % 128] + d.typed_data()[i % 256];
  }
  for (int i = 0; i < 512; ++i) out->typed_data()[i] = t[i] + t[512 + i];
  return ffi::Error::Success();
}
XFFI_DEFINE_HANDLER(kTupleSum, TupleSum,
                    ffi::Ffi::Bind()
                        .Arg<BufferF32>()
                        .Arg<BufferF32>()
                        .Arg<BufferF32>()
                        .Arg<BufferF32>()
                        .Ret<BufferF32>()
                        .Ret<BufferF32>());

XFFI_DEFINE_HANDLER(
    kRefuse,
    [](BufferF32, float threshold, ffi::ResultBuffer<ffi::F32, 1>) {
      return ffi::Error::InvalidArgument(
          "threshold " + std::to_string(threshold) + " is too strict");
    },
    ffi::Ffi::Bind()
        .Arg<BufferF32>()
        .Attr<float>("threshold")
        .Ret<BufferF32>());

void Register() {
  static const bool done = [] {
    auto bundle = [](XLA_FFI_Handler* execute) {
      return XLA_FFI_Handler_Bundle{nullptr, nullptr, nullptr, execute,
                                    nullptr};
    };
    EXPECT_TRUE(
        xffi::RegisterHandler("do_custom_call", "cpu", bundle(kDoCustomCall))
            .ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("seed.tuple_sum", "cpu", bundle(kTupleSum)).ok());
    EXPECT_TRUE(
        xffi::RegisterHandler("seed.refuse", "cpu", bundle(kRefuse)).ok());
    EXPECT_TRUE(
        xffi::RegisterLegacyTarget("do_custom_call_legacy",
                                   reinterpret_cast<void*>(&DoCustomCallLegacy),
                                   "cpu", xffi::LegacyApiVersion::kOriginal)
            .ok());
    EXPECT_TRUE(xffi::RegisterLegacyTarget(
                    "test_subtract_f32", reinterpret_cast<void*>(&SubtractF32),
                    "cpu", xffi::LegacyApiVersion::kOriginal)
                    .ok());
    return true;
  }();
  (void)done;
}

}  // namespace seed_test

namespace xffi {
namespace {

using ::testing::HasSubstr;

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}

std::vector<float> Ramp(int n, float start, float step) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + step * i;
  return v;
}

std::vector<float> SeedReference(const std::vector<float>& b,
                                 const std::vector<float>& c) {
  std::vector<float> a(c.size());
  for (size_t i = 0; i < c.size(); ++i) a[i] = b[i % 128] + c[i];
  return a;
}

// Compiles and runs; the results' leaves as float vectors.
std::vector<std::vector<float>> CompileAndRun(
    StatusOr<Module> module, const std::vector<Literal>& arguments) {
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  auto exe = Compile(std::move(*module));
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return {};
  auto out = (*exe)->Execute(arguments);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  std::vector<std::vector<float>> values;
  for (const Literal& leaf : *out) values.push_back(leaf.ToVector<float>());
  return values;
}

class SeedProgram : public ::testing::Test {
 protected:
  void SetUp() override { seed_test::Register(); }
  std::vector<float> b_ = Ramp(128, 0.5f, 0.25f);
  std::vector<float> c_ = Ramp(2048, -3, 0.5f);
  std::vector<Literal> Args() const {
    return {Literal::Vector<float>(b_), Literal::Vector<float>(c_)};
  }
};

TEST_F(SeedProgram, XlaFfiExampleFromTheBuilder) {
  Builder b("seed");
  Op x = b.Parameter(0, F32({128}), "x");
  Op y = b.Parameter(1, F32({2048}), "y");
  Op z = b.CustomCall("do_custom_call", {x, y}, F32({2048}), /*opaque=*/"",
                      /*has_side_effect=*/false, /*output_operand_aliasing=*/{},
                      /*literal=*/nullptr, CustomCallSchedule::kNone,
                      CustomCallApiVersion::kTypedFfi);
  auto out = CompileAndRun(b.Build(z), Args());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], SeedReference(b_, c_));
}

TEST_F(SeedProgram, XlaFfiExampleFromStableHloText) {
  // As jax.jit(...).lower(...).as_text() prints an ffi_call.
  const char* text =
      R"(module @jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<2048xf32>) -> (tensor<2048xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @do_custom_call(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    return %0 : tensor<2048xf32>
  }
}
)";
  auto out = CompileAndRun(ParseStableHlo(text, "seed.mlir"), Args());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], SeedReference(b_, c_));
}

TEST_F(SeedProgram, XlaFfiExampleFromHloText) {
  const char* text =
      R"(HloModule seed, entry_computation_layout={(f32[128]{0}, f32[2048]{0})->f32[2048]{0}}

ENTRY main {
  b = f32[128]{0} parameter(0)
  c = f32[2048]{0} parameter(1)
  ROOT a = f32[2048]{0} custom-call(b, c), custom_call_target="do_custom_call", operand_layout_constraints={f32[128]{0}, f32[2048]{0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}
)";
  auto out = CompileAndRun(ParseHlo(text, "seed.hlo"), Args());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], SeedReference(b_, c_));
}

TEST_F(SeedProgram, TypedAndLegacySideBySideFromTheBuilder) {
  Builder b("side_by_side");
  Op x = b.Parameter(0, F32({128}), "x");
  Op y = b.Parameter(1, F32({2048}), "y");
  Op typed = b.CustomCall("do_custom_call", {x, y}, F32({2048}), "", false, {},
                          nullptr, CustomCallSchedule::kNone,
                          CustomCallApiVersion::kTypedFfi);
  // The legacy call reads the typed call's result: y' = x + (x + y).
  Op legacy = b.CustomCall("do_custom_call_legacy", {x, typed}, F32({2048}));
  auto out = CompileAndRun(b.Build(b.Tuple({typed, legacy})), Args());
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> once = SeedReference(b_, c_);
  EXPECT_EQ(out[0], once);
  EXPECT_EQ(out[1], SeedReference(b_, once));
}

TEST_F(SeedProgram, TypedAndLegacySideBySideFromStableHloText) {
  // JAX prints a legacy call with api_version = 1 and a string config.
  const char* text =
      R"(module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<128xf32>, %arg1: tensor<2048xf32>) -> (tensor<2048xf32> {jax.result_info = "result[0]"}, tensor<2048xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.custom_call @do_custom_call(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    %1 = stablehlo.custom_call @do_custom_call_legacy(%arg0, %0) {api_version = 1 : i32, backend_config = ""} : (tensor<128xf32>, tensor<2048xf32>) -> tensor<2048xf32>
    return %0, %1 : tensor<2048xf32>, tensor<2048xf32>
  }
}
)";
  auto out = CompileAndRun(ParseStableHlo(text, "mixed.mlir"), Args());
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> once = SeedReference(b_, c_);
  EXPECT_EQ(out[0], once);
  EXPECT_EQ(out[1], SeedReference(b_, once));
}

TEST_F(SeedProgram, TypedAndLegacySideBySideFromHloText) {
  const char* text = R"(HloModule mixed

ENTRY main {
  b = f32[128]{0} parameter(0)
  c = f32[2048]{0} parameter(1)
  typed = f32[2048]{0} custom-call(b, c), custom_call_target="do_custom_call", api_version=API_VERSION_TYPED_FFI, backend_config={}
  legacy = f32[2048]{0} custom-call(b, typed), custom_call_target="do_custom_call_legacy", api_version=API_VERSION_ORIGINAL
  ROOT out = (f32[2048]{0}, f32[2048]{0}) tuple(typed, legacy)
}
)";
  auto out = CompileAndRun(ParseHlo(text, "mixed.hlo"), Args());
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> once = SeedReference(b_, c_);
  EXPECT_EQ(out[0], once);
  EXPECT_EQ(out[1], SeedReference(b_, once));
}

TEST(SeedBlog, SubtractF32OnConstantsFromTheBuilder) {
  seed_test::Register();
  Builder b("comp_builder");
  Op result = b.CustomCallWithLayout(
      "test_subtract_f32",
      {b.ConstantScalar<float>(1.25f), b.ConstantScalar<float>(0.5f)}, F32({}),
      {F32({}), F32({})});
  auto out = CompileAndRun(b.Build(result), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::vector<float>{0.75f});
}

TEST(SeedBlog, SubtractF32OnConstantsFromHloText) {
  seed_test::Register();
  const char* text = R"(HloModule comp_builder

ENTRY comp_builder {
  a = f32[] constant(1.25)
  b = f32[] constant(0.5)
  ROOT r = f32[] custom-call(a, b), custom_call_target="test_subtract_f32", operand_layout_constraints={f32[], f32[]}
}
)";
  auto out = CompileAndRun(ParseHlo(text, "blog.hlo"), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::vector<float>{0.75f});
}

TEST(SeedBlog, SubtractF32FromStableHloText) {
  seed_test::Register();
  const char* text =
      R"(module @jit_subtract attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<f32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.250000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.custom_call @test_subtract_f32(%cst, %cst_0) {api_version = 1 : i32, backend_config = ""} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
}
)";
  auto out = CompileAndRun(ParseStableHlo(text, "blog.mlir"), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::vector<float>{0.75f});
}

// Expected out[i] for the tuple example with inputs a = 0.., b = 100..,
// c = 1000.., d = 10000.. (step 1).
std::vector<float> TupleReference() {
  std::vector<float> out(512);
  for (int i = 0; i < 512; ++i)
    out[static_cast<size_t>(i)] = static_cast<float>(
        (i % 32) + (100 + i % 64) + (1000 + i % 128) + (10000 + i % 256));
  return out;
}

Literal TupleArgument() {
  return Literal::Tuple(
      {Literal::Vector<float>(Ramp(32, 0, 1)),
       Literal::Tuple({Literal::Vector<float>(Ramp(64, 100, 1)),
                       Literal::Vector<float>(Ramp(128, 1000, 1))}),
       Literal::Vector<float>(Ramp(256, 10000, 1))});
}

TEST(SeedTuples, NestedTupleOperandAndTempResultFromTheBuilder) {
  seed_test::Register();
  Builder b("tuples");
  Shape p0_shape = Shape::Tuple(
      {F32({32}), Shape::Tuple({F32({64}), F32({128})}), F32({256})});
  Op p0 = b.Parameter(0, p0_shape, "p0");
  Shape out_shape = Shape::Tuple({F32({512}), F32({1024})});
  Op call =
      b.CustomCall("seed.tuple_sum", {p0}, out_shape, "", false, {}, nullptr,
                   CustomCallSchedule::kNone, CustomCallApiVersion::kTypedFfi);
  // Element 1 is the target's temp: never read.
  auto out =
      CompileAndRun(b.Build(b.GetTupleElement(call, 0)), {TupleArgument()});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], TupleReference());
}

TEST(SeedTuples, NestedTupleOperandAndTempResultFromHloText) {
  seed_test::Register();
  const char* text = R"(HloModule tuples

ENTRY main {
  p0 = (f32[32]{0}, (f32[64]{0}, f32[128]{0}), f32[256]{0}) parameter(0)
  call = (f32[512]{0}, f32[1024]{0}) custom-call(p0), custom_call_target="seed.tuple_sum", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT out = f32[512]{0} get-tuple-element(call), index=0
}
)";
  auto out = CompileAndRun(ParseHlo(text, "tuples.hlo"), {TupleArgument()});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], TupleReference());
}

TEST(SeedErrors, HandlerErrorNamesTargetLineColumnAndMessage) {
  seed_test::Register();
  const char* text = R"(module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @seed.refuse(%arg0) {mhlo.backend_config = {threshold = 2.500000e-01 : f32}} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";
  auto module = ParseStableHlo(text, "refuse.mlir");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = Compile(std::move(*module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto out = (*exe)->Execute({Literal::Vector<float>({1, 2, 3, 4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(out.status().message(),
            "custom call 'seed.refuse' at refuse.mlir:3:5 failed: threshold "
            "0.250000 is too strict");

  const char* hlo = R"(HloModule refuse

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT r = f32[4]{0} custom-call(x), custom_call_target="seed.refuse", api_version=API_VERSION_TYPED_FFI, backend_config={threshold = 5.0 : f32}
}
)";
  auto hlo_module = ParseHlo(hlo, "refuse.hlo");
  ASSERT_TRUE(hlo_module.ok()) << hlo_module.status().message();
  auto hlo_exe = Compile(std::move(*hlo_module));
  ASSERT_TRUE(hlo_exe.ok()) << hlo_exe.status().message();
  auto hlo_out = (*hlo_exe)->Execute({Literal::Vector<float>({1, 2, 3, 4})});
  ASSERT_FALSE(hlo_out.ok());
  EXPECT_THAT(hlo_out.status().message(),
              HasSubstr("custom call 'seed.refuse' at refuse.hlo:5:"));
  EXPECT_THAT(hlo_out.status().message(),
              HasSubstr("failed: threshold 5.000000 is too strict"));
}

}  // namespace
}  // namespace xffi
