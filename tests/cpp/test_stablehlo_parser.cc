// ParseStableHlo: the samples JAX printed (tests/cpp/data/stablehlo, each
// with the code that made it on its first line) and hand-written forms,
// asserted field by field; errors with their exact line:column and what the
// parser expected.
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "xffi/program/text.h"

namespace xffi {
namespace {

using Dictionary = AttributeMap;

std::string ReadSample(const std::string& name) {
  std::ifstream in(std::string(XFFI_STABLEHLO_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

#define ASSERT_PARSES(module, text)                                 \
  StatusOr<Module> module##_or = ParseStableHlo(text, "test.mlir"); \
  ASSERT_TRUE(module##_or.ok()) << module##_or.status().ToString(); \
  Module& module = *module##_or

std::string ErrorOf(std::string_view text) {
  StatusOr<Module> parsed = ParseStableHlo(text, "test.mlir");
  EXPECT_FALSE(parsed.ok()) << text;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  return parsed.status().message();
}

std::vector<const Instruction*> OfOpcode(const Computation& computation,
                                         Opcode opcode) {
  std::vector<const Instruction*> out;
  for (const auto& inst : computation.instructions())
    if (inst->opcode() == opcode) out.push_back(inst.get());
  return out;
}

const Instruction* Only(const Computation& computation, Opcode opcode) {
  std::vector<const Instruction*> found = OfOpcode(computation, opcode);
  EXPECT_EQ(found.size(), 1u)
      << OpcodeName(opcode) << " in " << computation.name();
  return found.size() == 1 ? found[0] : nullptr;
}

Shape F32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kF32, std::move(dims));
}
Shape S32(std::vector<int64_t> dims) {
  return Shape::Array(ElementType::kS32, std::move(dims));
}

template <typename T>
const T& Attr(const FfiAttributes& attrs, std::string_view name) {
  static const T kEmpty{};
  const AttrValue* value = attrs.Find(name);
  EXPECT_NE(value, nullptr) << name;
  if (value == nullptr || !std::holds_alternative<T>(*value)) {
    ADD_FAILURE() << name << " has another type";
    return kEmpty;
  }
  return std::get<T>(*value);
}

template <typename T>
uint64_t Bits(T value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

std::string Wrap(std::string_view body, std::string_view signature =
                                            "(%arg0: tensor<3xf32>) -> "
                                            "tensor<3xf32>") {
  return "func.func @main" + std::string(signature) + " {\n" +
         std::string(body) + "}\n";
}

// --- custom_call ------------------------------------------------------------

TEST(StableHloParser, TypedFfiCallFromJax) {
  ASSERT_PARSES(module, ReadSample("ffi_call.mlir"));
  EXPECT_EQ(module.name(), "jit__lambda");
  ASSERT_EQ(module.computations().size(), 1u);
  const Computation& main = *module.entry();
  EXPECT_EQ(main.name(), "main");
  ASSERT_EQ(main.num_parameters(), 2);
  EXPECT_EQ(main.parameter(0)->shape(), F32({2, 3}));
  const Instruction* call = main.root();
  ASSERT_EQ(call->opcode(), Opcode::kCustomCall);
  EXPECT_EQ(call->shape(), F32({2, 3}));
  EXPECT_EQ(call->operand(0), main.parameter(0));
  EXPECT_EQ(call->operand(1), main.parameter(1));
  const CustomCallConfig& c = call->custom_call;
  EXPECT_EQ(c.target, "my_add");
  // mhlo.backend_config means typed FFI although api_version is absent.
  EXPECT_EQ(c.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_EQ(c.opaque, "");
  EXPECT_FALSE(c.has_side_effect);
  EXPECT_TRUE(c.output_operand_aliases.empty());
  EXPECT_EQ(c.attributes.names(),
            (std::vector<std::string>{"dims", "eps", "flag", "mode", "n",
                                      "nested", "scale"}));
  EXPECT_EQ(Attr<std::vector<int64_t>>(c.attributes, "dims"),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Attr<float>(c.attributes, "eps"), 9.99999974E-6f);
  EXPECT_EQ(Attr<bool>(c.attributes, "flag"), true);
  EXPECT_EQ(Attr<std::string>(c.attributes, "mode"), "fast");
  EXPECT_EQ(Attr<int32_t>(c.attributes, "n"), 3);
  EXPECT_EQ(Attr<uint8_t>(Attr<Dictionary>(c.attributes, "nested"), "a"), 7);
  EXPECT_EQ(Attr<double>(c.attributes, "scale"), 2.5);
  ASSERT_EQ(c.operand_layouts.size(), 2u);
  EXPECT_EQ(c.operand_layouts[0].minor_to_major(),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(c.operand_layouts[0].dims(), (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(c.result_layouts.size(), 1u);
  EXPECT_EQ(c.result_layouts[0].minor_to_major(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(call->called_computations().empty());
  EXPECT_EQ(call->location().file, "test.mlir");
  EXPECT_EQ(call->location().line, 4);
  EXPECT_EQ(call->location().column, 5);
}

// mhlo.frontend_attributes on any op, in the pretty and the generic forms,
// as JAX's linalg lowerings write num_batch_dims.
TEST(StableHloParser, FrontendAttributesAreKeptOnAnyOp) {
  ASSERT_PARSES(
      module,
      Wrap(
          R"(  %0 = stablehlo.negate %arg0 {mhlo.frontend_attributes = {x = "y,z"}} : tensor<3xf32>
  %1 = stablehlo.custom_call @f(%0) {mhlo.frontend_attributes = {num_batch_dims = "1", "odd key" = "a\"b"}} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "stablehlo.abs"(%1) {mhlo.frontend_attributes = {}} : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
)"));
  const Computation& main = *module.entry();
  const Instruction* abs = main.root();
  const Instruction* call = abs->operand(0);
  const Instruction* negate = call->operand(0);
  EXPECT_TRUE(abs->frontend_attributes.empty());
  EXPECT_EQ(call->frontend_attributes,
            (std::map<std::string, std::string>{{"num_batch_dims", "1"},
                                                {"odd key", "a\"b"}}));
  EXPECT_EQ(negate->frontend_attributes,
            (std::map<std::string, std::string>{{"x", "y,z"}}));
  EXPECT_EQ(
      ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 {mhlo.frontend_attributes = "
                   "{num_batch_dims = 1 : i64}} : tensor<3xf32>\n"
                   "  return %0 : tensor<3xf32>\n")),
      "test.mlir:2:77: stablehlo.negate: frontend attribute 'num_batch_dims' "
      "must be a string");
  EXPECT_EQ(
      ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 {mhlo.frontend_attributes = "
                   "[\"1\"]} : tensor<3xf32>\n"
                   "  return %0 : tensor<3xf32>\n")),
      "test.mlir:2:59: stablehlo.negate: mhlo.frontend_attributes must be a "
      "dictionary of strings");
  EXPECT_EQ(
      ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 {mhlo.frontend_attributes = "
                   "{a = \"1\"} : tensor<3xf32>\n"
                   "  return %0 : tensor<3xf32>\n")),
      "test.mlir:2:69: expected ',' or '}' in an attribute dictionary, got "
      "':'");
}

TEST(StableHloParser, MultiResultCallWithAliasAndSideEffect) {
  ASSERT_PARSES(module, ReadSample("ffi_multi.mlir"));
  const Computation& main = *module.entry();
  const Instruction* call = Only(main, Opcode::kCustomCall);
  ASSERT_NE(call, nullptr);
  // %0:2 is one op with a tuple shape; %0#0 and %0#1 read its elements.
  EXPECT_EQ(call->shape(), Shape::Tuple({F32({4}), S32({})}));
  const CustomCallConfig& c = call->custom_call;
  EXPECT_EQ(c.target, "my_split");
  EXPECT_EQ(c.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(c.has_side_effect);
  EXPECT_EQ(Attr<int64_t>(c.attributes, "axis"), 0);
  ASSERT_EQ(c.output_operand_aliases.size(), 1u);
  EXPECT_EQ(c.output_operand_aliases[0].output_index, std::vector<int64_t>{0});
  EXPECT_EQ(c.output_operand_aliases[0].operand, 0);
  EXPECT_TRUE(c.output_operand_aliases[0].operand_index.empty());
  ASSERT_EQ(c.operand_layouts.size(), 1u);
  EXPECT_EQ(c.operand_layouts[0].minor_to_major(), std::vector<int64_t>{0});
  ASSERT_EQ(c.result_layouts.size(), 2u);
  EXPECT_EQ(c.result_layouts[0].minor_to_major(), std::vector<int64_t>{0});
  EXPECT_EQ(c.result_layouts[1], S32({}));

  const Instruction* root = main.root();
  ASSERT_EQ(root->opcode(), Opcode::kTuple);
  ASSERT_EQ(root->operand_count(), 2);
  const Instruction* product = root->operand(0);
  ASSERT_EQ(product->opcode(), Opcode::kMultiply);
  const Instruction* first = product->operand(0);
  ASSERT_EQ(first->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(first->tuple_index, 0);
  EXPECT_EQ(first->operand(0), call);
  const Instruction* second = root->operand(1);
  ASSERT_EQ(second->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(second->tuple_index, 1);
  EXPECT_EQ(second->operand(0), call);
  EXPECT_EQ(second->shape(), S32({}));
}

TEST(StableHloParser, LegacyCallKeepsItsOpaqueString) {
  ASSERT_PARSES(module, ReadSample("ffi_legacy.mlir"));
  const Instruction* call = module.entry()->root();
  ASSERT_EQ(call->opcode(), Opcode::kCustomCall);
  const CustomCallConfig& c = call->custom_call;
  EXPECT_EQ(c.target, "old_target");
  EXPECT_EQ(c.api_version, CustomCallApiVersion::kStatusReturning);
  EXPECT_EQ(c.opaque, "opaque\"str");
  EXPECT_TRUE(c.attributes.empty());
  EXPECT_EQ(c.operand_layouts.size(), 1u);
}

TEST(StableHloParser, CustomCallEveryFieldHandWritten) {
  ASSERT_PARSES(module, Wrap(R"(
    %0:2 = stablehlo.custom_call @"my target"(%arg0, %arg0) {api_version = 4 : i32, backend_config = {k = 5 : i16, s = "x\0Ay", w = array<f32: 1.5>}, has_side_effect = true, called_computations = [@helper, @"other fn"], operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>]} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>)
    return %0#0 : tensor<3xf32>
  }
  func.func private @helper(%a: tensor<f32>) -> tensor<f32> {
    return %a : tensor<f32>
  }
  func.func private @"other fn"() -> () {
    return
)"));
  const Instruction* call = Only(*module.entry(), Opcode::kCustomCall);
  ASSERT_NE(call, nullptr);
  const CustomCallConfig& c = call->custom_call;
  EXPECT_EQ(c.target, "my target");
  EXPECT_EQ(c.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_EQ(c.opaque, "");
  EXPECT_EQ(Attr<int16_t>(c.attributes, "k"), 5);
  EXPECT_EQ(Attr<std::string>(c.attributes, "s"), "x\ny");
  EXPECT_EQ(Attr<std::vector<float>>(c.attributes, "w"),
            std::vector<float>{1.5f});
  EXPECT_TRUE(c.has_side_effect);
  ASSERT_EQ(call->called_computations().size(), 2u);
  EXPECT_EQ(call->called_computations()[0]->name(), "helper");
  EXPECT_EQ(call->called_computations()[1]->name(), "other fn");
  EXPECT_EQ(call->called_computations()[0]->num_parameters(), 1);
  ASSERT_EQ(c.output_operand_aliases.size(), 1u);
  EXPECT_EQ(c.output_operand_aliases[0].operand, 1);
  // Callees come before their callers; the entry is last.
  ASSERT_EQ(module.computations().size(), 3u);
  EXPECT_EQ(module.computations().back().get(), module.entry());
}

TEST(StableHloParser, DictionaryBackendConfigMeansTypedFfi) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = stablehlo.custom_call @t(%arg0) {backend_config = {}} : (tensor<3xf32>) -> tensor<3xf32>
    %1 = stablehlo.custom_call @u(%0) {backend_config = "raw bytes"} : (tensor<3xf32>) -> tensor<3xf32>
    %2 = stablehlo.custom_call @v(%1) {api_version = 3 : i32, backend_config = "s"} : (tensor<3xf32>) -> tensor<3xf32>
    %3 = stablehlo.custom_call @w(%2) : (tensor<3xf32>) -> tensor<3xf32>
    return %3 : tensor<3xf32>
)"));
  std::vector<const Instruction*> calls =
      OfOpcode(*module.entry(), Opcode::kCustomCall);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0]->custom_call.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(calls[0]->custom_call.attributes.empty());
  EXPECT_EQ(calls[1]->custom_call.api_version, CustomCallApiVersion::kOriginal);
  EXPECT_EQ(calls[1]->custom_call.opaque, "raw bytes");
  EXPECT_EQ(calls[2]->custom_call.api_version,
            CustomCallApiVersion::kStatusReturningUnified);
  EXPECT_EQ(calls[2]->custom_call.opaque, "s");
  EXPECT_EQ(calls[3]->custom_call.api_version, CustomCallApiVersion::kOriginal);
  EXPECT_EQ(calls[3]->custom_call.target, "w");
}

TEST(StableHloParser, GenericCustomCallWithEnumApiVersion) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = "stablehlo.custom_call"(%arg0) <{api_version = #stablehlo<custom_call_api_version API_VERSION_TYPED_FFI>, call_target_name = "gen", has_side_effect = false}> {mhlo.backend_config = {alpha = 2.000000e+00 : f32}} : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%0) : (tensor<3xf32>) -> ()
)"));
  const Instruction* call = module.entry()->root();
  ASSERT_EQ(call->opcode(), Opcode::kCustomCall);
  EXPECT_EQ(call->custom_call.target, "gen");
  EXPECT_EQ(call->custom_call.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_FALSE(call->custom_call.has_side_effect);
  EXPECT_EQ(Attr<float>(call->custom_call.attributes, "alpha"), 2.0f);
}

// --- functions, calls, symbols ----------------------------------------------

TEST(StableHloParser, CallsOfAPrivateFunctionWithAQuotedName) {
  ASSERT_PARSES(module, ReadSample("call.mlir"));
  ASSERT_EQ(module.computations().size(), 2u);
  const Computation* lambda = module.FindComputation("<lambda>");
  ASSERT_NE(lambda, nullptr);
  EXPECT_EQ(module.computations()[0].get(), lambda);
  EXPECT_EQ(module.entry()->name(), "main");
  EXPECT_EQ(lambda->num_parameters(), 1);
  EXPECT_EQ(lambda->root()->opcode(), Opcode::kMultiply);
  // Called twice, the function exists once.
  std::vector<const Instruction*> calls =
      OfOpcode(*module.entry(), Opcode::kCall);
  ASSERT_EQ(calls.size(), 2u);
  for (const Instruction* call : calls) {
    ASSERT_EQ(call->called_computations().size(), 1u);
    EXPECT_EQ(call->called_computations()[0], lambda);
    EXPECT_EQ(call->shape(), F32({3}));
  }
  EXPECT_EQ(calls[0]->operand(0), module.entry()->parameter(0));
  EXPECT_EQ(calls[1]->operand(0)->opcode(), Opcode::kAdd);
  const Instruction* root = module.entry()->root();
  ASSERT_EQ(root->opcode(), Opcode::kAdd);
  EXPECT_EQ(root->operand(0), calls[0]);
  EXPECT_EQ(root->operand(1), calls[1]);
}

TEST(StableHloParser, FunctionsWithoutAModuleAndForwardCalls) {
  ASSERT_PARSES(module, R"(
func.func public @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0:2 = func.call @pair(%x) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  return %0#1, %0#0 : tensor<2xi32>, tensor<2xi32>
}
func.func private @pair(%y: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = stablehlo.negate %y : tensor<2xi32>
  return %y, %0 : tensor<2xi32>, tensor<2xi32>
}
)");
  EXPECT_EQ(module.name(), "module");
  const Computation* pair = module.FindComputation("pair");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->root()->opcode(), Opcode::kTuple);
  const Instruction* call = Only(*module.entry(), Opcode::kCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->shape(), Shape::Tuple({S32({2}), S32({2})}));
  const Instruction* root = module.entry()->root();
  ASSERT_EQ(root->opcode(), Opcode::kTuple);
  EXPECT_EQ(root->operand(0)->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(root->operand(0)->tuple_index, 1);
  EXPECT_EQ(root->operand(1)->tuple_index, 0);
  EXPECT_EQ(root->operand(0)->operand(0), call);
}

TEST(StableHloParser, ArgumentAndResultAttributesAreAccepted) {
  ASSERT_PARSES(module, R"(
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"} loc("x"), %arg1: tensor<f32> {mhlo.layout_mode = "default"}) -> (tensor<2xf32> {jax.result_info = "result"}) attributes {jax.uses_shape_polymorphism = false} {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
)");
  EXPECT_EQ(module.name(), "m");
  EXPECT_EQ(module.entry()->num_parameters(), 2);
  EXPECT_EQ(module.entry()->root()->opcode(), Opcode::kAdd);
  const Instruction* broadcast = Only(*module.entry(), Opcode::kBroadcast);
  ASSERT_NE(broadcast, nullptr);
  EXPECT_TRUE(broadcast->dimensions.empty());
  EXPECT_EQ(broadcast->shape(), F32({2}));
}

std::string ShardingText(const std::optional<HloSharding>& sharding) {
  return sharding.has_value() ? sharding->ToString() : "none";
}

// jax.jit's out_shardings: each result's mhlo.sharding or sdy.sharding (over
// the module's mesh) is kept for the entry, one per result, none where the
// text gives none or a form xffi does not read.
TEST(StableHloParser, ResultShardingsAreKeptPerResult) {
  ASSERT_PARSES(module, R"(
module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func public @main(%x: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "[0]", mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<8x4xf32> {jax.result_info = "[1]"}, tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>}, tensor<8x4xf32> {mhlo.sharding = "{devices=[2,2]<=[4] last_tile_dims={manual}}"}) {
    return %x, %x, %x, %x : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}
)");
  const auto& shardings = module.entry()->result_shardings();
  ASSERT_EQ(shardings.size(), 4u);
  EXPECT_EQ(ShardingText(shardings[0]), "{devices=[4,1]0,1,2,3}");
  EXPECT_EQ(ShardingText(shardings[1]), "none");
  // Split along "b" (the minor axis), replicated along "a": device d holds
  // row block d % 2.
  EXPECT_EQ(ShardingText(shardings[2]),
            "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(shardings[3]), "none");
  // The argument has none; the results' shardings are not the values'.
  EXPECT_FALSE(module.entry()->parameter(0)->sharding.has_value());
  EXPECT_TRUE(VerifyModule(module).ok());
}

TEST(StableHloParser, ProgramsWithoutResultShardingsKeepNone) {
  ASSERT_PARSES(module, R"(
func.func public @main(%x: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
  return %x : tensor<2xf32>
}
)");
  EXPECT_TRUE(module.entry()->result_shardings().empty());
}

// What jax.jit calls the arguments and results: each result's pytree path
// (jax.result_info) is kept per result as the shardings are; an argument's
// (its location with debug info, jax.arg_info in older JAX) becomes its
// parameter's location name, which HLO prints as op_name.
TEST(StableHloParser, ArgumentAndResultNamesAreKept) {
  const std::string text = R"(
module @m {
  func.func public @main(%arg0: tensor<2xf32> loc("params['w']"), %arg1: tensor<2xf32> loc(#loc2), %arg2: tensor<2xf32> {jax.arg_info = "z"}, %arg3: tensor<2xf32> loc("f.py":3:4)) -> (tensor<2xf32> {jax.result_info = "result[0]['aux']"}, tensor<2xf32>, tensor<2xf32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    return %arg0, %arg1, %arg2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("x")
)";
  ASSERT_PARSES(module, text);
  const Computation& main = *module.entry();
  EXPECT_EQ(main.result_names(),
            (std::vector<std::string>{"result[0]['aux']", "", "result[1]"}));
  ASSERT_EQ(main.result_shardings().size(), 3u);
  EXPECT_EQ(main.parameter(0)->location().name, "params['w']");
  EXPECT_EQ(main.parameter(1)->location().name, "x");
  EXPECT_EQ(main.parameter(2)->location().name, "z");
  EXPECT_EQ(main.parameter(3)->location().name, "");
  // The text position stays the parameter's location.
  EXPECT_EQ(main.parameter(0)->location().line, 3);
  EXPECT_TRUE(VerifyModule(module).ok());
  std::string printed = PrintHlo(module);
  EXPECT_NE(printed.find("parameter(0), metadata={op_name=\"params['w']\""),
            std::string::npos)
      << printed;
  // A called function's names are not the program's.
  ASSERT_PARSES(called, R"(
func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @g(%y: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "inner"}) {
  return %y : tensor<2xf32>
}
)");
  EXPECT_TRUE(called.entry()->result_names().empty());
  // Shape refinement reads @main again and keeps them.
  ParseOptions options;
  options.argument_shapes = std::vector<Shape>{F32({5})};
  StatusOr<Module> refined = ParseStableHlo(
      "func.func public @main(%v: tensor<?xf32> loc(\"v\")) -> (tensor<?xf32> "
      "{jax.result_info = \"result['twice']\"}) {\n"
      "  %0 = stablehlo.add %v, %v : tensor<?xf32>\n"
      "  return %0 : tensor<?xf32>\n}\n",
      "test.mlir", options);
  ASSERT_TRUE(refined.ok()) << refined.status().ToString();
  EXPECT_EQ(refined->entry()->result_names(),
            std::vector<std::string>{"result['twice']"});
  EXPECT_EQ(refined->entry()->parameter(0)->location().name, "v");
  EXPECT_EQ(refined->entry()->parameter(0)->shape(), F32({5}));
}

// The generic form keeps them in the function's arg_attrs and res_attrs.
TEST(StableHloParser, GenericFormArgumentAndResultNamesAreKept) {
  ASSERT_PARSES(module, R"(
"builtin.module"() ({
  "func.func"() <{arg_attrs = [{jax.arg_info = "x"}, {}], function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{}, {jax.result_info = "result[1]"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
    "func.return"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)");
  EXPECT_EQ(module.entry()->result_names(),
            (std::vector<std::string>{"", "result[1]"}));
  EXPECT_EQ(module.entry()->parameter(0)->location().name, "x");
  EXPECT_EQ(module.entry()->parameter(1)->location().name, "");
}

TEST(StableHloParserErrors, NamesThatAreNoStringsAreRefused) {
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32>) -> "
                    "(tensor<2xf32> {jax.result_info = 3 : i32}) {\n"
                    "  return %x : tensor<2xf32>\n}\n"),
            "test.mlir:1:80: jax.result_info of result 0 must be a string");
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32> {jax.arg_info = "
                    "[1]}) -> tensor<2xf32> {\n"
                    "  return %x : tensor<2xf32>\n}\n"),
            "test.mlir:1:58: jax.arg_info of argument 0 must be a string");
  EXPECT_EQ(
      ErrorOf("\"func.func\"() <{function_type = (tensor<2xf32>) -> "
              "tensor<2xf32>, res_attrs = [{}, {}], sym_name = \"main\"}> "
              "({\n^bb0(%arg0: tensor<2xf32>):\n  \"func.return\"(%arg0) : "
              "(tensor<2xf32>) -> ()\n}) : () -> ()\n"),
      "test.mlir:1:79: res_attrs must be a list of 1 dictionaries");
}

TEST(StableHloParser, MalformedValueShardingsAreRefusedWhereTheyAre) {
  // A result's mhlo.sharding that is no sharding: the string's place, and
  // the place in it.
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32>) -> "
                    "(tensor<2xf32> {mhlo.sharding = \"{devices=[2]0,}\"}) {\n"
                    "  return %x : tensor<2xf32>\n}\n"),
            "test.mlir:1:78: mhlo.sharding of result 0:1:15: expected a "
            "device id, got '}'");
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32>) -> "
                    "(tensor<2xf32>, tensor<2xf32> {mhlo.sharding = 3 : i32}) "
                    "{\n  return %x, %x : tensor<2xf32>, tensor<2xf32>\n}\n"),
            "test.mlir:1:93: mhlo.sharding of result 1 must be a string");
  // The same for an argument.
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32> {mhlo.sharding "
                    "= \"{devices=[2]0,0}\"}) -> tensor<2xf32> {\n"
                    "  return %x : tensor<2xf32>\n}\n"),
            "test.mlir:1:59: mhlo.sharding of argument 0:1:2: the tile "
            "assignment must name each device 0 to 1 once");
  // sdy.sharding over a mesh the module does not define, or with an axis
  // its mesh lacks.
  EXPECT_EQ(ErrorOf("func.func public @main(%x: tensor<2xf32>) -> "
                    "(tensor<2xf32> {sdy.sharding = #sdy.sharding<@nowhere, "
                    "[{\"x\"}]>}) {\n  return %x : tensor<2xf32>\n}\n"),
            "test.mlir:1:90: sdy.sharding of result 0 names mesh @nowhere, "
            "which no sdy.mesh before it defines");
  EXPECT_EQ(ErrorOf("module @m {\n  sdy.mesh @mesh = <[\"x\"=2]>\n"
                    "  func.func public @main(%x: tensor<2xf32>) -> "
                    "(tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, "
                    "[{\"y\"}]>}) {\n    return %x : tensor<2xf32>\n  }\n}\n"),
            "test.mlir:3:92: sdy.sharding of result 0 names an axis its mesh "
            "lacks, or one axis twice: <@mesh, [{\"y\"}]>");
}

// --- bounded dimensions
// -------------------------------------------------------

// A bounded dynamic dimension (XLA's f32[<=8], which XLA's HLO-to-StableHLO
// converter writes `tensor<?x4xf32, #stablehlo.bounds<8, ?>>` and mhlo
// `#mhlo.type_extensions<bounds = [8, ?]>`) is read as its bound, as the
// HLO reader reads f32[<=8]: the module is static.
TEST(StableHloParser, BoundedDimensionsAreReadAsTheirBounds) {
  ASSERT_PARSES(module, R"(
func.func @main(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>) -> (tensor<?xf32, #stablehlo.bounds<8>>, tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<?xf32, #stablehlo.bounds<8>>
  %1 = "stablehlo.negate"(%arg1) : (tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>) -> tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>
  %2 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<i32>
  return %0, %1 : tensor<?xf32, #stablehlo.bounds<8>>, tensor<?xf32, #mhlo.type_extensions<bounds = [3]>>
}
)");
  EXPECT_EQ(module.entry()->parameter(0)->shape(), F32({8, 4}));
  EXPECT_EQ(module.entry()->parameter(1)->shape(), F32({3}));
  EXPECT_EQ(module.entry()->root()->shape(),
            Shape::Tuple({F32({8}), F32({3})}));
  EXPECT_FALSE(IsShapePolymorphic(module));
  EXPECT_TRUE(VerifyModule(module).ok());
  // The size of a static dimension is a constant, bounds or not.
  int sizes = 0;
  for (const Instruction* c : OfOpcode(*module.entry(), Opcode::kConstant))
    if (c->shape() == S32({})) {
      EXPECT_EQ(c->literal.ValueToString(), "4");
      ++sizes;
    }
  EXPECT_EQ(sizes, 1);
  // HLO has no way to say a dimension was bounded once it is static: the
  // printed module is the static one, and it reads back as itself.
  std::string printed = PrintHlo(module);
  EXPECT_NE(printed.find("f32[8,4]"), std::string::npos) << printed;
  StatusOr<Module> again = ParseHlo(printed, "printed.hlo");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(PrintHlo(*again), printed);
}

TEST(StableHloParserErrors, BoundsThatDoNotFitTheTypeAreRefused) {
  auto with_type = [](const std::string& type) {
    return "func.func @main(%arg0: " + type + ") -> tensor<2xf32> {\n" +
           "  %0 = stablehlo.constant dense<0.0> : tensor<2xf32>\n" +
           "  return %0 : tensor<2xf32>\n}\n";
  };
  EXPECT_EQ(ErrorOf(with_type("tensor<?x4xf32, #stablehlo.bounds<8>>")),
            "test.mlir:1:40: the bounds give 1 dimension(s), the tensor has 2");
  EXPECT_EQ(ErrorOf(with_type("tensor<?x4xf32, #stablehlo.bounds<8, 4>>")),
            "test.mlir:1:61: dimension 1 is static (4): its bound must be ?");
  EXPECT_EQ(ErrorOf(with_type("tensor<?xf32, #stablehlo.bounds<-2>>")),
            "test.mlir:1:56: a dimension's bound is negative");
  EXPECT_EQ(ErrorOf(with_type("tensor<?x?xf32, #stablehlo.bounds<"
                              "4294967296, 4294967296>>")),
            "test.mlir:1:24: the tensor has more than 2^48 elements");
  EXPECT_EQ(ErrorOf(with_type("tensor<?xf32, #stablehlo.bounds<4]>")),
            "test.mlir:1:57: expected ',' or '>' in the bounds, got ']'");
  EXPECT_EQ(ErrorOf(with_type("tensor<?xf32, #mhlo.type_extensions<"
                              "sizes = [4]>>")),
            "test.mlir:1:60: expected 'bounds', got 'sizes'");
  EXPECT_EQ(ErrorOf(with_type("tensor<4xf32, #sparse_tensor.encoding<{}>>")),
            "test.mlir:1:38: unsupported tensor encoding "
            "'#sparse_tensor.encoding': xffi reads only dimension bounds "
            "(#stablehlo.bounds<...>, #mhlo.type_extensions<bounds = [...]>)");
  // An unbounded `?` beside a bounded one stays shape-polymorphic.
  StatusOr<Module> open = ParseStableHlo(
      "func.func @main(%arg0: tensor<?x?xf32, #stablehlo.bounds<8, ?>>) -> "
      "tensor<?x?xf32, #stablehlo.bounds<8, ?>> {\n"
      "  return %arg0 : tensor<?x?xf32, #stablehlo.bounds<8, ?>>\n}\n");
  ASSERT_TRUE(open.ok()) << open.status().ToString();
  EXPECT_EQ(open->entry()->parameter(0)->shape(), F32({8, kDynamicDimension}));
  EXPECT_TRUE(IsShapePolymorphic(*open));
}

// As the HLO reader: the ops that set a bounded dimension's size, or read
// it, at run time are refused where they stand (a size below the bound is
// what reading the bound cannot give).
TEST(StableHloParserErrors, OpsThatSetOrReadABoundedSizeAreRefused) {
  const std::string kBounded = "tensor<?x4xf32, #stablehlo.bounds<8, ?>>";
  const std::string kTail =
      "' is not supported: xffi reads a bounded dimension (tensor<?xf32, "
      "#stablehlo.bounds<8>>) as its bound, which is XLA's meaning only while "
      "no op sets or reads a size at run time";
  auto program = [&](const std::string& op) {
    return "func.func @main(%arg0: tensor<8x4xf32>, %n: tensor<i32>) -> "
           "tensor<8x4xf32> {\n  " +
           op + "\n  return %arg0 : tensor<8x4xf32>\n}\n";
  };
  EXPECT_EQ(ErrorOf(program("%0 = stablehlo.set_dimension_size %arg0, %n, "
                            "dim = 0 : (tensor<8x4xf32>, tensor<i32>) -> " +
                            kBounded)),
            "test.mlir:2:8: 'stablehlo.set_dimension_size" + kTail);
  EXPECT_EQ(ErrorOf(program("%0 = \"stablehlo.set_dimension_size\"(%arg0, "
                            "%n) {dimension = 0 : i64} : (tensor<8x4xf32>, "
                            "tensor<i32>) -> " +
                            kBounded)),
            "test.mlir:2:8: 'stablehlo.set_dimension_size" + kTail);
  EXPECT_EQ(
      ErrorOf(program("%0 = stablehlo.convert %arg0 : (tensor<8x4xf32>) -> " +
                      kBounded +
                      "\n  %1 = stablehlo.get_dimension_size %0, dim = 0 : (" +
                      kBounded + ") -> tensor<i32>")),
      "test.mlir:3:8: stablehlo.get_dimension_size: dimension 0 is bounded: "
      "'stablehlo.get_dimension_size" +
          kTail);
  EXPECT_EQ(ErrorOf(program("%s = stablehlo.constant dense<[8, 4]> : "
                            "tensor<2xi32>\n  %0 = stablehlo.dynamic_reshape "
                            "%arg0, %s : (tensor<8x4xf32>, tensor<2xi32>) -> " +
                            kBounded)),
            "test.mlir:3:8: stablehlo.dynamic_reshape: its result is bounded: "
            "'stablehlo.dynamic_reshape" +
                kTail);
  EXPECT_EQ(ErrorOf(program("%0 = stablehlo.custom_call @SliceToDynamic(%arg0, "
                            "%n) : (tensor<8x4xf32>, tensor<i32>) -> " +
                            kBounded)),
            "test.mlir:2:8: stablehlo.custom_call: @SliceToDynamic: "
            "'SliceToDynamic" +
                kTail);
}

// --- locations ---------------------------------------------------------------

TEST(StableHloParser, DebugInfoLocationsGiveOpNames) {
  ASSERT_PARSES(module, ReadSample("debug.mlir"));
  const Computation& main = *module.entry();
  const Instruction* sine = Only(main, Opcode::kSin);
  ASSERT_NE(sine, nullptr);
  // The position is where the op is in the text; the name comes from the
  // loc() aliases, resolved through callsite(...) to the callee's name.
  EXPECT_EQ(sine->location().file, "test.mlir");
  EXPECT_EQ(sine->location().line, 6);
  EXPECT_EQ(sine->location().column, 5);
  EXPECT_EQ(sine->location().name, "jit(<lambda>)/sin");
  EXPECT_EQ(Only(main, Opcode::kMultiply)->location().name,
            "jit(<lambda>)/mul");
  EXPECT_EQ(Only(main, Opcode::kAdd)->location().name, "jit(<lambda>)/add");
  EXPECT_EQ(Only(main, Opcode::kBroadcast)->location().name,
            "jit(<lambda>)/add");
  EXPECT_EQ(Only(main, Opcode::kConstant)->location().name, "jit(<lambda>)");
  EXPECT_EQ(sine->location().ToString(), "test.mlir:6:5 (jit(<lambda>)/sin)")
      << "(how messages show it)";
}

TEST(StableHloParser, NamedFusedCallsiteAndFileLocations) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = stablehlo.negate %arg0 : tensor<3xf32> loc("plain")
    %1 = stablehlo.abs %0 : tensor<3xf32> loc(fused["f.py":1:2, "inner"("f.py":3:4)])
    %2 = stablehlo.exponential %1 : tensor<3xf32> loc(fused<"meta">[unknown, #named])
    %3 = stablehlo.sqrt %2 : tensor<3xf32> loc(callsite("callee" at callsite("mid" at "f.py":5:6)))
    %4 = stablehlo.tanh %3 : tensor<3xf32> loc("f.py":7:8 to 9:10)
    %5 = stablehlo.floor %4 : tensor<3xf32> loc(unknown)
    return %5 : tensor<3xf32> loc(#named)
)") + "#named = loc(\"from alias\")\n");
  const Computation& main = *module.entry();
  EXPECT_EQ(Only(main, Opcode::kNegate)->location().name, "plain");
  EXPECT_EQ(Only(main, Opcode::kAbs)->location().name, "inner");
  EXPECT_EQ(Only(main, Opcode::kExp)->location().name, "from alias");
  EXPECT_EQ(Only(main, Opcode::kSqrt)->location().name, "callee");
  EXPECT_EQ(Only(main, Opcode::kTanh)->location().name, "");
  EXPECT_EQ(Only(main, Opcode::kTanh)->location().line, 7);
  EXPECT_EQ(Only(main, Opcode::kFloor)->location().name, "");
  EXPECT_EQ(Only(main, Opcode::kFloor)->location().line, 8);
  EXPECT_EQ(Only(main, Opcode::kFloor)->location().column, 5);
}

// --- constants ---------------------------------------------------------------

TEST(StableHloParser, DenseConstantsNanInfHexBlobsAndSplats) {
  ASSERT_PARSES(module, ReadSample("consts.mlir"));
  std::vector<const Instruction*> constants =
      OfOpcode(*module.entry(), Opcode::kConstant);
  ASSERT_GE(constants.size(), 9u);
  // [nan, inf, -inf, 1.5] as f32 bit patterns.
  const Literal& special = constants[0]->literal;
  ASSERT_EQ(special.shape(), F32({4}));
  std::vector<float> f = special.ToVector<float>();
  EXPECT_EQ(Bits(f[0]), 0x7FC00000u);
  EXPECT_EQ(Bits(f[1]), 0x7F800000u);
  EXPECT_EQ(Bits(f[2]), 0xFF800000u);
  EXPECT_EQ(f[3], 1.5f);
  EXPECT_EQ(constants[1]->literal,
            Literal::FromVector<int8_t>({2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(constants[2]->literal, Literal::Vector<bool>({true, false}));
  EXPECT_EQ(constants[3]->literal,
            Literal::Vector<std::complex<float>>({{1.0f, 2.0f}}));
  EXPECT_EQ(constants[4]->literal, Literal::Vector<uint16_t>({1, 2}));
  // bf16 1.5 is 0x3FC0.
  const Literal& bf16 = constants[5]->literal;
  ASSERT_EQ(bf16.shape(), Shape::Array(ElementType::kBF16, {1}));
  uint16_t half_bits = 0;
  std::memcpy(&half_bits, bf16.data(), 2);
  EXPECT_EQ(half_bits, 0x3FC0);
  // A splat fills every element.
  EXPECT_EQ(constants[6]->literal,
            Literal::Vector<float>({0.0f, 0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(constants[7]->literal,
            Literal::Vector<float>({0.0f, 1.0f, 2.0f, 3.0f}));
  // The hex blob holds np.arange(120) as little-endian f32.
  const Literal& blob = constants[8]->literal;
  ASSERT_EQ(blob.shape(), F32({10, 12}));
  std::vector<float> arange = blob.ToVector<float>();
  for (int i = 0; i < 120; ++i) EXPECT_EQ(arange[i], static_cast<float>(i));
}

TEST(StableHloParser, HandWrittenConstantsOfSpecialValues) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = stablehlo.constant dense<"0x0000C07F0000807F000080FF01000000"> : tensor<4xf32>
    %1 = stablehlo.constant dense<[0x7FF8000000000001, 0xFFF0000000000000, -0.0]> : tensor<3xf64>
    %2 = stablehlo.constant dense<[0x7E00, 0xFC00]> : tensor<2xf16>
    %3 = stablehlo.constant dense<[[true], [false]]> : tensor<2x1xi1>
    %4 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
    %5 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
    %6 = stablehlo.constant dense<[(1.5, -2.5), (0x7FF8000000000000, 0.0)]> : tensor<2xcomplex<f64>>
    %7 = stablehlo.constant dense<> : tensor<0x3xf32>
    %8 = "stablehlo.constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
    return %arg0 : tensor<3xf32>
)"));
  std::vector<const Instruction*> c =
      OfOpcode(*module.entry(), Opcode::kConstant);
  ASSERT_EQ(c.size(), 9u);
  std::vector<float> f = c[0]->literal.ToVector<float>();
  EXPECT_EQ(Bits(f[0]), 0x7FC00000u);
  EXPECT_EQ(Bits(f[1]), 0x7F800000u);
  EXPECT_EQ(Bits(f[2]), 0xFF800000u);
  EXPECT_EQ(Bits(f[3]), 1u);  // the smallest denormal
  std::vector<double> d = c[1]->literal.ToVector<double>();
  EXPECT_EQ(Bits(d[0]), 0x7FF8000000000001u);  // a NaN payload survives
  EXPECT_EQ(d[1], -INFINITY);
  EXPECT_EQ(Bits(d[2]), 0x8000000000000000u);
  uint16_t halves[2];
  ASSERT_EQ(c[2]->literal.size_bytes(), 4u);
  std::memcpy(halves, c[2]->literal.data(), 4);
  EXPECT_EQ(halves[0], 0x7E00);
  EXPECT_EQ(halves[1], 0xFC00);
  EXPECT_EQ(c[3]->literal, Literal::FromVector<bool>({2, 1}, {true, false}));
  EXPECT_EQ(c[4]->literal, Literal::Vector<int8_t>({-128, 127}));
  EXPECT_EQ(c[5]->literal, Literal::Scalar<uint64_t>(18446744073709551615u));
  std::vector<std::complex<double>> z =
      c[6]->literal.ToVector<std::complex<double>>();
  EXPECT_EQ(z[0], std::complex<double>(1.5, -2.5));
  EXPECT_EQ(Bits(z[1].real()), 0x7FF8000000000000u);
  EXPECT_EQ(c[7]->literal.shape(), F32({0, 3}));
  EXPECT_EQ(c[8]->literal, Literal::Vector<int32_t>({1, 2, 3}));
}

// Every element type reads as a parameter type and as a constant.
TEST(StableHloParser, EveryElementType) {
  std::string args, results, body, returns, types;
  int i = 0;
  for (ElementType type : AllArrayElementTypes()) {
    std::string t = "tensor<2x" + MlirElementTypeName(type) + ">";
    std::string value = "[1, 0]";
    if (type == ElementType::kPred) value = "[true, false]";
    if (type == ElementType::kS1) value = "[-1, 0]";  // s1 holds -1 and 0
    if (IsFloatingType(type)) value = "[1.0, 0.0]";
    if (IsComplexType(type)) value = "[(1.0, 0.0), (0.0, 0.0)]";
    std::string n = std::to_string(i++);
    args += std::string(i > 1 ? ", " : "") + "%a" + n + ": " + t;
    results += std::string(i > 1 ? ", " : "") + t;
    body +=
        "  %c" + n + " = stablehlo.constant dense<" + value + "> : " + t + "\n";
    returns += std::string(i > 1 ? ", " : "") + "%c" + n;
  }
  std::string text = "func.func @main(" + args + ") -> (" + results + ") {\n" +
                     body + "  return " + returns + " : " + results + "\n}\n";
  ASSERT_PARSES(module, text);
  const Computation& main = *module.entry();
  std::vector<const Instruction*> constants = OfOpcode(main, Opcode::kConstant);
  const std::vector<ElementType>& all = AllArrayElementTypes();
  ASSERT_EQ(constants.size(), all.size());
  ASSERT_EQ(main.num_parameters(), static_cast<int64_t>(all.size()));
  for (size_t k = 0; k < all.size(); ++k) {
    SCOPED_TRACE(MlirElementTypeName(all[k]));
    EXPECT_EQ(main.parameter(static_cast<int64_t>(k))->shape(),
              Shape::Array(all[k], {2}));
    const Literal& literal = constants[k]->literal;
    ASSERT_EQ(literal.shape(), Shape::Array(all[k], {2}));
    // Element 1 is zero in every type and element 0 is one, whose bytes are
    // not zero.
    size_t width = ElementByteSize(all[k]);
    const unsigned char* bytes =
        static_cast<const unsigned char*>(literal.data());
    bool first_nonzero = false, second_zero = true;
    for (size_t b = 0; b < width; ++b) {
      first_nonzero |= bytes[b] != 0;
      second_zero &= bytes[width + b] == 0;
    }
    EXPECT_TRUE(first_nonzero);
    EXPECT_TRUE(second_zero);
  }
}

TEST(StableHloParser, TokensTuplesAndTheirOps) {
  ASSERT_PARSES(module, R"(
func.func @main(%t: !stablehlo.token, %p: tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> (!stablehlo.token, tensor<i32>, tuple<tensor<2xf32>, tensor<2xf32>>) {
  %0 = stablehlo.after_all %t, %t : !stablehlo.token
  %1 = stablehlo.get_tuple_element %p[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %2 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<i32>>) -> tensor<i32>
  %3 = stablehlo.get_tuple_element %p[0] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tensor<2xf32>
  %4 = stablehlo.tuple %3, %3 : tuple<tensor<2xf32>, tensor<2xf32>>
  %5 = "stablehlo.get_tuple_element"(%4) <{index = 1 : i32}> : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  return %0, %2, %4 : !stablehlo.token, tensor<i32>, tuple<tensor<2xf32>, tensor<2xf32>>
}
)");
  const Computation& main = *module.entry();
  EXPECT_EQ(main.parameter(0)->shape(), Shape::Token());
  EXPECT_EQ(main.parameter(1)->shape(),
            Shape::Tuple({F32({2}), Shape::Tuple({S32({})})}));
  const Instruction* after_all = Only(main, Opcode::kAfterAll);
  ASSERT_NE(after_all, nullptr);
  EXPECT_EQ(after_all->shape(), Shape::Token());
  EXPECT_EQ(after_all->operand_count(), 2);
  std::vector<const Instruction*> gtes =
      OfOpcode(main, Opcode::kGetTupleElement);
  ASSERT_EQ(gtes.size(), 4u);
  EXPECT_EQ(gtes[0]->tuple_index, 1);
  EXPECT_EQ(gtes[0]->shape(), Shape::Tuple({S32({})}));
  EXPECT_EQ(gtes[1]->tuple_index, 0);
  EXPECT_EQ(gtes[1]->operand(0), gtes[0]);
  EXPECT_EQ(gtes[3]->tuple_index, 1);
  const Instruction* root = main.root();
  ASSERT_EQ(root->opcode(), Opcode::kTuple);
  EXPECT_EQ(root->shape(), Shape::Tuple({Shape::Token(), S32({}),
                                         Shape::Tuple({F32({2}), F32({2})})}));
}

// --- regions ---------------------------------------------------------------

TEST(StableHloParser, WhileCapturesJoinTheLoopState) {
  ASSERT_PARSES(module, R"(
func.func @main(%x: tensor<3xf32>, %k: tensor<f32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %lim = stablehlo.constant dense<4> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<3xf32>
  cond {
    %p = stablehlo.compare LT, %i, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %b = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %w = stablehlo.multiply %v, %b : tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %n, %w : tensor<i32>, tensor<3xf32>
  }
  return %0#1 : tensor<3xf32>
}
)");
  const Computation& main = *module.entry();
  const Instruction* loop = Only(main, Opcode::kWhile);
  ASSERT_NE(loop, nullptr);
  // The declared state, then the captures in order of first use.
  Shape state = Shape::Tuple({S32({}), F32({3}), S32({}), F32({})});
  EXPECT_EQ(loop->shape(), state);
  const Instruction* init = loop->operand(0);
  ASSERT_EQ(init->opcode(), Opcode::kTuple);
  ASSERT_EQ(init->operand_count(), 4);
  EXPECT_EQ(init->operand(1), main.parameter(0));
  EXPECT_EQ(init->operand(2)->opcode(), Opcode::kConstant);
  EXPECT_EQ(init->operand(3), main.parameter(1));
  ASSERT_EQ(loop->called_computations().size(), 2u);
  const Computation* cond = loop->called_computations()[0];
  const Computation* body = loop->called_computations()[1];
  ASSERT_EQ(cond->num_parameters(), 1);
  EXPECT_EQ(cond->parameter(0)->shape(), state);
  EXPECT_EQ(cond->root()->opcode(), Opcode::kCompare);
  EXPECT_EQ(cond->root()->comparison_direction, ComparisonDirection::kLt);
  EXPECT_EQ(cond->root()->comparison_type, ComparisonType::kSigned);
  const Instruction* limit = cond->root()->operand(1);
  ASSERT_EQ(limit->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(limit->tuple_index, 2);
  EXPECT_EQ(body->parameter(0)->shape(), state);
  const Instruction* next = body->root();
  ASSERT_EQ(next->opcode(), Opcode::kTuple);
  ASSERT_EQ(next->operand_count(), 4);
  EXPECT_EQ(next->operand(0)->opcode(), Opcode::kAdd);
  EXPECT_EQ(next->operand(1)->opcode(), Opcode::kMultiply);
  // Captures pass through the body unchanged.
  EXPECT_EQ(next->operand(2)->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(next->operand(2)->tuple_index, 2);
  EXPECT_EQ(next->operand(3)->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(next->operand(3)->tuple_index, 3);
  const Instruction* root = main.root();
  ASSERT_EQ(root->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(root->tuple_index, 1);
  EXPECT_EQ(root->operand(0), loop);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, CaseBranchesTakeTheirCapturesAsATuple) {
  ASSERT_PARSES(module, ReadSample("cond.mlir"));
  const Computation& main = *module.entry();
  const Instruction* cond = Only(main, Opcode::kConditional);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->shape(), F32({3}));
  ASSERT_EQ(cond->operand_count(), 3);
  EXPECT_EQ(cond->operand(0)->opcode(), Opcode::kConvert);
  for (int64_t b = 1; b <= 2; ++b) {
    const Instruction* captures = cond->operand(b);
    ASSERT_EQ(captures->opcode(), Opcode::kTuple);
    ASSERT_EQ(captures->operand_count(), 1);
    EXPECT_EQ(captures->operand(0), main.parameter(1));
  }
  ASSERT_EQ(cond->called_computations().size(), 2u);
  const Computation* first = cond->called_computations()[0];
  EXPECT_EQ(first->parameter(0)->shape(), Shape::Tuple({F32({3})}));
  EXPECT_EQ(first->root()->opcode(), Opcode::kSubtract);
  EXPECT_EQ(first->root()->operand(0)->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(cond->called_computations()[1]->root()->opcode(),
            Opcode::kMultiply);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, IfAndCaseInGenericFormWithSeveralResults) {
  ASSERT_PARSES(module, R"(
func.func @main(%p: tensor<i1>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>) {
  %0:2 = "stablehlo.if"(%p) ({
    %c = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    "stablehlo.return"(%x, %c) : (tensor<3xf32>, tensor<i32>) -> ()
  }, {
    %n = "stablehlo.negate"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %c = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
    "stablehlo.return"(%n, %c) : (tensor<3xf32>, tensor<i32>) -> ()
  }) : (tensor<i1>) -> (tensor<3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<i32>
}
)");
  const Instruction* cond = Only(*module.entry(), Opcode::kConditional);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->shape(), Shape::Tuple({F32({3}), S32({})}));
  EXPECT_EQ(cond->operand(0)->shape(), Shape::Scalar(ElementType::kPred));
  ASSERT_EQ(cond->called_computations().size(), 2u);
  // The true branch comes first.
  const Computation* on_true = cond->called_computations()[0];
  ASSERT_EQ(on_true->root()->opcode(), Opcode::kTuple);
  EXPECT_EQ(on_true->root()->operand(1)->literal, Literal::Scalar<int32_t>(1));
  EXPECT_EQ(cond->called_computations()[1]->root()->operand(0)->opcode(),
            Opcode::kNegate);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, ReduceRegionsAndAppliesForm) {
  ASSERT_PARSES(module, ReadSample("reduce.mlir"));
  const Computation& main = *module.entry();
  std::vector<const Instruction*> reduces = OfOpcode(main, Opcode::kReduce);
  ASSERT_EQ(reduces.size(), 2u);
  EXPECT_EQ(reduces[0]->dimensions, std::vector<int64_t>{1});
  EXPECT_EQ(reduces[0]->shape(), F32({3}));
  EXPECT_EQ(reduces[1]->dimensions, (std::vector<int64_t>{0, 1}));
  const Computation* add = reduces[0]->called_computations()[0];
  EXPECT_EQ(add->num_parameters(), 2);
  EXPECT_EQ(add->parameter(0)->shape(), F32({}));
  EXPECT_EQ(add->root()->opcode(), Opcode::kAdd);
  EXPECT_EQ(reduces[1]->called_computations()[0]->root()->opcode(),
            Opcode::kMaximum);
  // argmax: a variadic reduce whose reducer takes (acc0, acc1, x0, x1).
  const Computation* argmax = module.FindComputation("argmax");
  ASSERT_NE(argmax, nullptr);
  const Instruction* variadic = Only(*argmax, Opcode::kReduce);
  ASSERT_NE(variadic, nullptr);
  EXPECT_EQ(variadic->shape(), Shape::Tuple({F32({4}), S32({4})}));
  ASSERT_EQ(variadic->operand_count(), 4);
  EXPECT_EQ(variadic->operand(1)->opcode(), Opcode::kIota);
  const Computation* reducer = variadic->called_computations()[0];
  ASSERT_EQ(reducer->num_parameters(), 4);
  EXPECT_EQ(reducer->parameter(0)->shape(), F32({}));
  EXPECT_EQ(reducer->parameter(1)->shape(), S32({}));
  EXPECT_EQ(reducer->parameter(2)->shape(), F32({}));
  EXPECT_EQ(reducer->parameter(3)->shape(), S32({}));
  // %arg1 (acc0) > %arg3 (x0).
  const Instruction* gt = nullptr;
  for (const Instruction* c : OfOpcode(*reducer, Opcode::kCompare))
    if (c->comparison_direction == ComparisonDirection::kGt) gt = c;
  ASSERT_NE(gt, nullptr);
  EXPECT_EQ(gt->operand(0), reducer->parameter(0));
  EXPECT_EQ(gt->operand(1), reducer->parameter(2));
  EXPECT_EQ(reducer->root()->opcode(), Opcode::kTuple);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, ScalarRegionsCloneCapturedConstants) {
  ASSERT_PARSES(module, Wrap(R"(
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %two = stablehlo.constant dense<2.0> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %zero) across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %m = stablehlo.multiply %b, %two : tensor<f32>
      %s = stablehlo.add %a, %m : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
)"));
  const Instruction* reduce = Only(*module.entry(), Opcode::kReduce);
  ASSERT_NE(reduce, nullptr);
  const Computation* reducer = reduce->called_computations()[0];
  EXPECT_EQ(reducer->num_parameters(), 2);
  const Instruction* scale = Only(*reducer, Opcode::kMultiply);
  ASSERT_NE(scale, nullptr);
  ASSERT_EQ(scale->operand(1)->opcode(), Opcode::kConstant);
  EXPECT_EQ(scale->operand(1)->parent(), reducer);
  EXPECT_EQ(scale->operand(1)->literal, Literal::Scalar<float>(2.0f));

  EXPECT_EQ(ErrorOf(Wrap(R"(
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %y = stablehlo.negate %zero : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %zero) across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %s = stablehlo.add %a, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
    return %arg0 : tensor<3xf32>
)")),
            "test.mlir:7:30: the region of stablehlo.reduce at 5:10 uses %y "
            "from the enclosing scope; only constants can be captured there");
}

TEST(StableHloParser, SortComparatorAndIota) {
  ASSERT_PARSES(module, ReadSample("sort.mlir"));
  const Computation* argsort = module.FindComputation("argsort");
  ASSERT_NE(argsort, nullptr);
  const Instruction* sort = Only(*argsort, Opcode::kSort);
  ASSERT_NE(sort, nullptr);
  EXPECT_TRUE(sort->is_stable);
  EXPECT_EQ(sort->dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(sort->shape(), Shape::Tuple({F32({5}), S32({5})}));
  const Computation* comparator = sort->called_computations()[0];
  ASSERT_EQ(comparator->num_parameters(), 4);
  EXPECT_EQ(comparator->parameter(2)->shape(), S32({}));
  EXPECT_EQ(comparator->root()->comparison_type, ComparisonType::kTotalOrder);
  const Instruction* iota = Only(*argsort, Opcode::kIota);
  ASSERT_NE(iota, nullptr);
  EXPECT_EQ(iota->dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(argsort->root()->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(argsort->root()->tuple_index, 1);
}

TEST(StableHloParser, GenericFormModuleWithWhileAndCall) {
  ASSERT_PARSES(module, ReadSample("generic.mlir"));
  EXPECT_EQ(module.name(), "jit__lambda");
  const Computation* callee = module.FindComputation("closed_call");
  ASSERT_NE(callee, nullptr);
  EXPECT_EQ(callee->num_parameters(), 3);
  const Computation& main = *module.entry();
  EXPECT_EQ(main.name(), "main");
  const Instruction* loop = Only(main, Opcode::kWhile);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape(),
            Shape::Tuple({F32({2}), F32({}), S32({}), F32({2})}));
  const Computation* body = loop->called_computations()[1];
  const Instruction* call = Only(*body, Opcode::kCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->called_computations()[0], callee);
  EXPECT_EQ(main.root()->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(main.root()->tuple_index, 3);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, PrettyOpFieldsFromJaxSamples) {
  ASSERT_PARSES(index, ReadSample("index.mlir"));
  const Instruction* slice = Only(*index.entry(), Opcode::kSlice);
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ(slice->slice_starts, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(slice->slice_limits, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(slice->slice_strides, (std::vector<int64_t>{1, 1}));
  std::vector<const Instruction*> dynamic =
      OfOpcode(*index.entry(), Opcode::kDynamicSlice);
  ASSERT_EQ(dynamic.size(), 2u);
  EXPECT_EQ(dynamic[0]->dynamic_slice_sizes, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(dynamic[0]->operand_count(), 3);

  ASSERT_PARSES(misc, ReadSample("misc.mlir"));
  const Computation* pad = misc.FindComputation("_pad");
  ASSERT_NE(pad, nullptr);
  const Instruction* p = Only(*pad, Opcode::kPad);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->padding.size(), 2u);
  EXPECT_EQ(p->padding[0].low, 1);
  EXPECT_EQ(p->padding[0].high, 2);
  EXPECT_EQ(p->padding[1].high, 1);
  EXPECT_EQ(Only(*misc.entry(), Opcode::kTranspose)->dimensions,
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Only(*misc.entry(), Opcode::kConcatenate)->dimensions,
            std::vector<int64_t>{0});
  EXPECT_EQ(Only(*misc.entry(), Opcode::kBitcastConvert)->shape(), S32({2, 3}));
  const Instruction* gt = Only(*misc.entry(), Opcode::kCompare);
  ASSERT_NE(gt, nullptr);
  EXPECT_EQ(gt->comparison_direction, ComparisonDirection::kGt);
  EXPECT_EQ(gt->comparison_type, ComparisonType::kFloat);
  EXPECT_EQ(gt->shape(), Shape::Array(ElementType::kPred, {2, 3}));
  EXPECT_EQ(Only(*misc.FindComputation("_flip"), Opcode::kReverse)->dimensions,
            std::vector<int64_t>{0});

  ASSERT_PARSES(dot, ReadSample("dot.mlir"));
  std::vector<const Instruction*> dots = OfOpcode(*dot.entry(), Opcode::kDot);
  ASSERT_FALSE(dots.empty());
  EXPECT_EQ(dots[0]->dot_dimension_numbers.lhs_contracting,
            std::vector<int64_t>{1});
  EXPECT_EQ(dots[0]->dot_dimension_numbers.rhs_contracting,
            std::vector<int64_t>{0});
  EXPECT_EQ(dots[0]->shape(), F32({2, 4}));
}

// jax.nn.dot_product_attention on bf16 (JAX 0.10.2, found by the coverage
// sweep): a dot whose algorithm asks for the operands' own types,
// accumulated in f32, which is how xffi computes it. An algorithm that
// rounds the operands to another type, or splits them, is refused.
TEST(StableHloParser, DotAlgorithmInTheOperandsOwnTypes) {
  const char* kDot =
      R"(func.func @main(%arg0: tensor<2x8xbf16>, %arg1: tensor<8x3xbf16>) -> tensor<2x3xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = LHS, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = COUNT, allow_imprecise_accumulation = false> : (tensor<2x8xbf16>, tensor<8x3xbf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)";
  auto with = [&](const std::string& lhs, const std::string& count) {
    std::string text = kDot;
    text.replace(text.find("LHS"), 3, lhs);
    text.replace(text.find("COUNT"), 5, count);
    return text;
  };
  ASSERT_PARSES(module, with("bf16", "1"));
  const Instruction* dot = Only(*module.entry(), Opcode::kDot);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->shape(), F32({2, 3}));
  EXPECT_EQ(dot->dot_dimension_numbers.lhs_contracting,
            std::vector<int64_t>{1});
  EXPECT_EQ(ErrorOf(with("f32", "1")),
            "test.mlir:2:8: stablehlo.dot_general: dot algorithm with "
            "lhs_precision_type other than the lhs operand's bf16 is not "
            "supported (xffi multiplies in the operands' own types)");
  EXPECT_EQ(ErrorOf(with("bf16", "3")),
            "test.mlir:2:8: stablehlo.dot_general: dot algorithm with "
            "num_primitive_operations other than 1 is not supported");
  EXPECT_EQ(ErrorOf(with("bf16 x", "1")),
            "test.mlir:2:145: expected ',' or '>' in algorithm = <...>, got "
            "'x'");
}

TEST(StableHloParser, EverySampleParsesAndVerifies) {
  for (const char* name :
       {"barrier.mlir",    "call.mlir",      "captured_while.mlir",
        "cond.mlir",       "consts.mlir",    "cumsum.mlir",
        "debug.mlir",      "dot.mlir",       "ffi_call.mlir",
        "ffi_legacy.mlir", "ffi_multi.mlir", "gather.mlir",
        "generic.mlir",    "index.mlir",     "misc.mlir",
        "reduce.mlir",     "scatter.mlir",   "shifts.mlir",
        "sort.mlir",       "special.mlir",   "switch.mlir",
        "types.mlir",      "while.mlir"}) {
    SCOPED_TRACE(name);
    StatusOr<Module> module = ParseStableHlo(ReadSample(name), name);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Status verified = VerifyModule(*module);
    EXPECT_TRUE(verified.ok()) << verified.ToString();
  }
}

TEST(StableHloParser, ChloSquareIsDecomposedOtherChloOpsKeepTheirOpcode) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = chlo.square %arg0 : tensor<3xf32> -> tensor<3xf32>
    %1 = chlo.erfc %0 : tensor<3xf32> -> tensor<3xf32>
    %2 = chlo.erf_inv %1 : tensor<3xf32> -> tensor<3xf32>
    return %2 : tensor<3xf32>
)"));
  const Computation& main = *module.entry();
  const Instruction* square = Only(main, Opcode::kMultiply);
  ASSERT_NE(square, nullptr);
  EXPECT_EQ(square->operand(0), main.parameter(0));
  EXPECT_EQ(square->operand(1), main.parameter(0));
  // erfc has an opcode (and kernel) of its own: 1 - erf(x) loses all
  // precision in the tail.
  const Instruction* erfc = Only(main, Opcode::kErfc);
  ASSERT_NE(erfc, nullptr);
  EXPECT_EQ(erfc->operand(0), square);
  EXPECT_EQ(erfc->location().line, 4);
  EXPECT_EQ(main.root()->opcode(), Opcode::kErfInv);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParser, NumericOpsReadTheirAttributes) {
  ASSERT_PARSES(module, Wrap(R"(
    %0 = stablehlo.fft %arg0, type = RFFT, length = [3] : (tensor<3xf32>) -> tensor<2xcomplex<f32>>
    %1 = stablehlo.fft %0, type = IRFFT, length = [3] : (tensor<2xcomplex<f32>>) -> tensor<3xf32>
    %2:2 = chlo.top_k(%1, k = 2) : tensor<3xf32> -> (tensor<2xf32>, tensor<2xi32>)
    %3 = stablehlo.reduce_precision %1, format = e5m10 : tensor<3xf32>
    return %3 : tensor<3xf32>
)"));
  const Computation& main = *module.entry();
  std::vector<const Instruction*> ffts;
  for (const auto& in : main.instructions())
    if (in->opcode() == Opcode::kFft) ffts.push_back(in.get());
  ASSERT_EQ(ffts.size(), 2u);
  EXPECT_EQ(ffts[0]->fft_type, FftType::kRfft);
  EXPECT_EQ(ffts[1]->fft_type, FftType::kIrfft);
  EXPECT_EQ(ffts[1]->fft_length, std::vector<int64_t>{3});
  const Instruction* top_k = Only(main, Opcode::kTopK);
  ASSERT_NE(top_k, nullptr);
  EXPECT_EQ(top_k->top_k, 2);
  EXPECT_TRUE(top_k->top_k_largest);
  EXPECT_EQ(main.root()->opcode(), Opcode::kReducePrecision);
  EXPECT_EQ(main.root()->exponent_bits, 5);
  EXPECT_EQ(main.root()->mantissa_bits, 10);
  EXPECT_TRUE(VerifyModule(module).ok()) << VerifyModule(module).ToString();
}

TEST(StableHloParserErrors, NumericOpsNameWhatIsWrong) {
  std::string error = ErrorOf(Wrap(R"(
    %0 = stablehlo.fft %arg0, type = SIDEWAYS, length = [3] : (tensor<3xf32>) -> tensor<2xcomplex<f32>>
    return %arg0 : tensor<3xf32>
)"));
  EXPECT_NE(error.find("unknown FFT type 'SIDEWAYS'"), std::string::npos)
      << error;
}

// --- errors ------------------------------------------------------------------

TEST(StableHloParserErrors, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                    "  %0 = stablehlo.add %a %a : tensor<2xf32>\n"
                    "  return %0 : tensor<2xf32>\n}\n"),
            "test.mlir:2:25: expected ':' and the op's type, got '%a'");
  EXPECT_EQ(ErrorOf("func.func @main(%a tensor<2xf32>) {\n}\n"),
            "test.mlir:1:20: expected ':' and the argument's type, got "
            "'tensor'");
  EXPECT_EQ(ErrorOf("func.func @main(%a: tensor<2xf17>) {\n}\n"),
            "test.mlir:1:30: expected an element type, got 'f17'");
  EXPECT_EQ(
      ErrorOf("module {\n  func.func @main() {\n    return\n  }\n"),
      "test.mlir:5:1: expected 'func.func', 'sdy.mesh' or '}', got end of "
      "input");
  EXPECT_EQ(ErrorOf("func.func @main() {\n  return\n"),
            "test.mlir:3:1: expected '}', got end of input");
  EXPECT_EQ(ErrorOf("stablehlo.add"),
            "test.mlir:1:1: expected 'module' or 'func.func', got "
            "'stablehlo.add'");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.constant dense<[1.0, 2.0> : "
                         "tensor<2xf32>\n  return %arg0 : tensor<3xf32>\n")),
            "test.mlir:2:42: expected ',' or ']' in dense<...>, got '>'");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.custom_call @t(%arg0) "
                         "{backend_config = \"open} : (tensor<3xf32>) -> "
                         "tensor<3xf32>\n")),
            "test.mlir:2:58: expected an attribute value, got an "
            "unterminated string");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 : tensor<3xf32> "
                         "loc(\"a\" \"b\")\n  return %0 : tensor<3xf32>\n")),
            "test.mlir:2:55: expected ')' to close loc(...), got '\"b\"'");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = \"stablehlo.negate\"(%arg0 : "
                         "tensor<3xf32>\n")),
            "test.mlir:2:33: expected ',' or ')', got ':'");
  // A named source shows in every message.
  StatusOr<Module> named = ParseStableHlo("func.func @main(", "prog.mlir");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().message(),
            "prog.mlir:1:17: expected an argument (%name: type), got end of "
            "input");
}

TEST(StableHloParserErrors, SemanticErrorsNameTheValueOrOp) {
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.add %arg0, %nope : tensor<3xf32>\n"
                         "  return %0 : tensor<3xf32>\n")),
            "test.mlir:2:29: use of undefined value %nope");
  EXPECT_EQ(ErrorOf(Wrap("  %0:2 = stablehlo.optimization_barrier %arg0, "
                         "%arg0 : tensor<3xf32>, tensor<3xf32>\n"
                         "  return %0#2 : tensor<3xf32>\n")),
            "test.mlir:3:10: %0 has 2 result(s); #2 does not exist");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 : tensor<3xf32>\n"
                         "  %0 = stablehlo.negate %0 : tensor<3xf32>\n"
                         "  return %0 : tensor<3xf32>\n")),
            "test.mlir:3:3: redefinition of %0");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.negate %arg0 : tensor<4xf32>\n"
                         "  return %0 : tensor<4xf32>\n")),
            "test.mlir:2:33: stablehlo.negate: operand 0 is tensor<3xf32>, "
            "the op's type says tensor<4xf32>");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.frobnicate %arg0 : tensor<3xf32>\n"
                         "  return %0 : tensor<3xf32>\n")),
            "test.mlir:2:8: unsupported operation 'stablehlo.frobnicate'");
  EXPECT_EQ(ErrorOf(Wrap("  return %arg0, %arg0 : tensor<3xf32>, "
                         "tensor<3xf32>\n")),
            "test.mlir:2:3: @main returns 2 value(s), its signature declares "
            "1");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = call @missing(%arg0) : (tensor<3xf32>) -> "
                         "tensor<3xf32>\n  return %0 : tensor<3xf32>\n")),
            "test.mlir:2:8: call to undefined function @missing");
  EXPECT_EQ(ErrorOf("func.func @other() {\n  return\n}\n"),
            "test.mlir:4:1: the program has no @main function");
  EXPECT_EQ(ErrorOf(Wrap("  %0:3 = stablehlo.negate %arg0 : tensor<3xf32>\n"
                         "  return %0#0 : tensor<3xf32>\n")),
            "test.mlir:2:3: the op has 1 result(s), the text names 3");
}

TEST(StableHloParserErrors, SizesThatCannotBeHeldAreRefused) {
  // Found by fuzzing: element counts that overflow, splats that would take
  // all memory.
  EXPECT_EQ(ErrorOf("func.func @main(%a: tensor<4294967296x4294967296xf32>) "
                    "{\n  return\n}\n"),
            "test.mlir:1:28: the tensor has more than 2^48 elements");
  EXPECT_EQ(ErrorOf(Wrap("  %0 = stablehlo.constant dense<1.0> : "
                         "tensor<65536x65536xf32>\n")),
            "test.mlir:2:27: dense<...> of type f32[65536,65536] needs "
            "17179869184 bytes; constants are limited to 1073741824 bytes");
  EXPECT_EQ(ErrorOf("func.func @main(%a: tensor<99999999999999999999x3xf32>) "
                    "{\n  return\n}\n"),
            "test.mlir:1:28: expected an element type, got "
            "'99999999999999999999'");
}

TEST(StableHloParserErrors, CustomCallAttributesAreChecked) {
  auto call = [](const std::string& attrs) {
    return ErrorOf(Wrap("  %0 = stablehlo.custom_call @t(%arg0) {" + attrs +
                        "} : (tensor<3xf32>) -> tensor<3xf32>\n"
                        "  return %0 : tensor<3xf32>\n"));
  };
  EXPECT_EQ(call("backend_config = 3 : i32"),
            "test.mlir:2:58: attribute 'backend_config': expected a string "
            "or a dictionary");
  EXPECT_EQ(call("mhlo.backend_config = \"text\""),
            "test.mlir:2:63: attribute 'mhlo.backend_config': expected a "
            "dictionary");
  EXPECT_EQ(call("api_version = 9 : i32"),
            "test.mlir:2:55: attribute 'api_version': expected 0 to 4");
  EXPECT_EQ(call("operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : "
                 "tensor<1xindex>]"),
            "test.mlir:2:59: attribute 'operand_layouts' has 2 layouts for 1 "
            "values");
  EXPECT_EQ(call("operand_layouts = [dense<0> : tensor<1xindex>]"),
            "test.mlir:2:8: stablehlo.custom_call: has operand_layouts "
            "without result_layouts; give both or neither");
  EXPECT_EQ(call("operand_layouts = [dense<0> : tensor<1xindex>], "
                 "result_layouts = [dense<[1]> : tensor<1xindex>]"),
            "test.mlir:2:107: attribute 'result_layouts': layout 0 is not a "
            "permutation of the 1 dimensions");
  // An empty layout for a rank-1 value (found by fuzz_stablehlo_parser: it
  // once passed and printed without its layout).
  EXPECT_EQ(call("operand_layouts = [dense<0> : tensor<1xindex>], "
                 "result_layouts = [dense<> : tensor<0xindex>]"),
            "test.mlir:2:107: attribute 'result_layouts': layout 0 is not a "
            "permutation of the 1 dimensions");
  EXPECT_EQ(call("output_operand_aliases = "
                 "[#stablehlo.output_operand_alias<output_tuple_indices = [], "
                 "operand_index = 1, operand_tuple_indices = []>]"),
            "test.mlir:2:142: output_operand_alias: operand_index 1 is out "
            "of range");
  EXPECT_EQ(call("mhlo.backend_config = {a = [1, 2]}"),
            "test.mlir:2:68: attribute 'a': lists [...] are not typed-FFI "
            "attributes (XLA rejects them); use array<T: ...> or dense<...>");
  // Found by fuzz_stablehlo_parser: the string was kept as an opaque and
  // printed as HLO that does not parse.
  EXPECT_EQ(call("api_version = 4 : i32, backend_config = \"opaque\""),
            "test.mlir:2:81: attribute 'backend_config' of a typed FFI call "
            "must hold an attribute dictionary: backend_config:1:1: expected "
            "'{', got 'opaque'");
  EXPECT_EQ(call("has_side_effect = \"yes\""),
            "test.mlir:2:59: attribute 'has_side_effect': expected true or "
            "false");
  EXPECT_EQ(call("called_computations = [\"f\"]"),
            "test.mlir:2:64: attribute 'called_computations': expected @name");
  EXPECT_EQ(call("called_computations = [@nowhere]"),
            "test.mlir:2:64: function @nowhere is never defined");
}

TEST(StableHloParserErrors, EveryPrefixOfASampleFailsCleanly) {
  // Truncated text is always an error with a position, never a crash.
  for (const char* name : {"ffi_multi.mlir", "reduce.mlir", "generic.mlir",
                           "debug.mlir", "consts.mlir"}) {
    std::string text = ReadSample(name);
    for (size_t cut = 0; cut + 1 < text.size(); cut += 7) {
      StatusOr<Module> module =
          ParseStableHlo(std::string_view(text).substr(0, cut), name);
      if (module.ok()) continue;  // a cut inside a trailing #loc is fine
      EXPECT_EQ(module.status().message().rfind(name, 0), 0u)
          << module.status().message();
    }
  }
}

TEST(StableHloParserErrors, DeepNestingIsRefused) {
  std::string text = "func.func @main(%p: tensor<i1>) -> tensor<i1> {\n";
  for (int i = 0; i < 200; ++i)
    text += "%r" + std::to_string(i) + " = \"stablehlo.if\"(%p) ({\n";
  StatusOr<Module> module = ParseStableHlo(text, "deep.mlir");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("less deeply nested regions"),
            std::string::npos)
      << module.status().message();
}

}  // namespace
}  // namespace xffi
