// ParseHlo: HLO text, in the short parsable form
// (`jax.jit(f).lower(...).as_text("hlo")`), the full HloModule::ToString form
// (`%` names, computation signatures, metadata, operand shapes inline) and
// the optimized form `.compile().as_text()` prints (stack-frame tables,
// fusions, bitcasts).
//
// A fusion is read as one (kFusion) when its fused computation keeps
// xffi's fusion contract (src/ir/fusion.h), as every fusion xffi prints
// does. XLA's optimized text also holds fusions made by XLA's own rules
// (kinds kOutput and kCustom; copies, dynamic-update-slices or reduces in
// kLoop fusions): such a fusion is read as the call of its fused
// computation, which computes the same.
//
// A bounded dynamic dimension (`f32[<=8]`) is read as its bound. In XLA
// its size at run time is at most the bound, and only the size-changing
// ops (set-dimension-size, dynamic-reshape, the SliceToDynamic custom
// call) or a caller's smaller buffer make it less; with neither, every
// size is its bound and the program computes what it computes with static
// shapes. So the size-changing ops, and get-dimension-size, which reads a
// size at run time, are refused with their line:column, and an argument is
// the bound's size (a smaller one fails the argument check).
//
// Parsing runs in two steps. The first reads every computation into records
// that name operands and called computations; the second resolves the names,
// so instructions and computations may be referred to before the text
// defines them, and orders each computation's instructions so operands come
// before their users, as the IR requires.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/fusion.h"
#include "runtime/status_macros.h"
#include "text/hlo/custom_call.h"
#include "text/hlo/literal_text.h"
#include "text/hlo/numeric_attributes.h"
#include "text/hlo/scanner.h"
#include "text/hlo/sharding.h"
#include "text/hlo/shardy.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

using hlo::Scanner;
using hlo::TextPos;

// Deeper nesting than this in shapes, literals or skipped values is refused,
// so hostile input cannot exhaust the stack.
constexpr int kMaxNesting = 64;

// Attributes that do not change what an op computes: read and dropped.
constexpr std::string_view kIgnoredAttributes[] = {
    "sharding",
    "frontend_attributes",
    "precision_config",
    "operand_precision",
    "result_accuracy",
    "backend_config",
    "statistics_viz",
    "control-predecessors",
    "original_value",
    "origin",
    "algorithm",
    "inferred_dimension",
    "parameter_replication",
    "channel_id",
    "use_global_device_ids",
    "replica_groups",
    "raw_backend_config_string",
};

struct Ref {
  std::string name;
  TextPos pos;
};

struct ParsedInstruction {
  std::unique_ptr<Instruction> instruction;
  TextPos pos;
  std::vector<Ref> operands;
  // Called computations by role, assembled into the op's order at the end.
  std::map<std::string, Ref> called_by_role;
  std::vector<Ref> called_list;  // branch_computations, called_computations
  bool is_root = false;
  bool is_bitcast = false;
  // A fusion of a kind xffi has no fusions of (kOutput, kCustom).
  bool fusion_as_call = false;
  std::vector<std::string> seen_attributes;
  // frontend_attributes, each value as written (strings unescaped).
  std::map<std::string, std::string> frontend;
  std::string sharding;  // sharding={...} as written
  TextPos sharding_pos;  // where its value starts
};

struct ParsedComputation {
  std::string name;
  TextPos pos;
  bool entry = false;
  std::vector<ParsedInstruction> instructions;
};

struct FileLocation {
  int64_t file = 0, function = 0, line = 0, column = 0;
};

// The tables `compile().as_text()` prints before the computations; an op's
// metadata names a stack frame whose innermost location is where it came
// from.
struct StackTables {
  std::map<int64_t, std::string> files, functions;
  std::map<int64_t, FileLocation> locations;
  std::map<int64_t, int64_t> frame_location;
};

// A call of what `fusion` calls, on its operands, in its place.
std::unique_ptr<Instruction> CallOf(const Instruction& fusion) {
  auto call = std::make_unique<Instruction>(Opcode::kCall, fusion.shape());
  call->set_name(fusion.name());
  call->set_location(fusion.location());
  call->sharding = fusion.sharding;
  for (Instruction* operand : fusion.operands()) call->AppendOperand(operand);
  for (Computation* callee : fusion.called_computations())
    call->AppendCalledComputation(callee);
  return call;
}

// XLA's fusions that xffi's contract does not admit become calls (see the
// top of this file).
void FusionsOutsideTheContractAsCalls(
    const std::vector<std::unique_ptr<Computation>>& computations) {
  for (const auto& computation : computations) {
    std::unordered_map<const Instruction*, Instruction*> calls;
    std::vector<Instruction*> fusions;
    for (const auto& in : computation->instructions())
      if (in->opcode() == Opcode::kFusion &&
          in->called_computations().size() == 1 &&
          !CheckFusedComputation(*in->called_computations()[0], in->fusion_kind)
               .ok())
        fusions.push_back(in.get());
    for (Instruction* fusion : fusions)
      calls[fusion] =
          computation->InsertInstructionBefore(CallOf(*fusion), fusion);
    if (calls.empty()) continue;
    for (const auto& in : computation->instructions())
      for (int64_t i = 0; i < in->operand_count(); ++i)
        if (auto call = calls.find(in->operand(i)); call != calls.end())
          in->ReplaceOperand(i, call->second);
    if (auto call = calls.find(computation->root()); call != calls.end())
      computation->set_root(call->second);
    computation->RemoveInstructionsIf(
        [&](const Instruction* in) { return calls.count(in) > 0; });
  }
}

// Why an op that changes or reads a dimension's size at run time is
// refused.
std::string DynamicSizeRefusal(std::string_view op) {
  return "'" + std::string(op) +
         "' is not supported: xffi reads a bounded dimension (f32[<=8]) as "
         "its bound, which is XLA's meaning only while no op sets or reads "
         "a size at run time";
}

class HloParser {
 public:
  HloParser(std::string_view text, std::string_view source_name)
      : s_(text, source_name) {}

  StatusOr<Module> Parse();

 private:
  Status ParseHeader();
  Status ParseTable(std::string_view kind);
  Status ReadResultShardings(const ParsedComputation& parsed,
                             Computation& entry);
  Status ParseComputation();
  Status ParseInstruction(ParsedComputation& computation);
  Status ParseOperands(ParsedInstruction& parsed);
  Status ParseAttribute(ParsedInstruction& parsed);
  Status ParseCollectiveAttribute(ParsedInstruction& parsed,
                                  const std::string& name, TextPos at,
                                  bool* handled);
  Status CheckAttributes(ParsedInstruction& parsed);
  Status CheckCollectiveAttributes(ParsedInstruction& parsed);
  Status ParseFrontendAttributes(std::map<std::string, std::string>& values);

  Status ParseShape(Shape& shape, int depth = 0);
  Status ParseIntList(std::vector<int64_t>& values, std::string_view what);
  Status ParseIntBraces(std::vector<int64_t>& values, std::string_view what);
  Status ParseBool(bool& value, std::string_view what);
  Status ParseComputationRef(Ref& ref);
  Status ParseComputationList(std::vector<Ref>& refs);
  Status ParseSlice(Instruction& in);
  Status ParsePadding(Instruction& in);
  Status ParseWindow(Instruction& in);
  Status ParseDimLabels(Instruction& in);
  Status ParseFloat(float& value, std::string_view what);
  Status ParseMetadata(Location& location, TextPos at);
  Status ParseShapeIndex(std::vector<int64_t>& index);
  Status ParseAliasing(CustomCallConfig& config);
  Status SkipValue();
  // SkipValue, returning the text it skipped.
  StatusOr<std::string> RawValue();

  Status Build(Module& module);
  Status RewriteShardMaps(ParsedComputation& computation);
  Status BuildComputation(ParsedComputation& parsed, Computation& computation,
                          const std::map<std::string, Computation*>& by_name);
  Status ResolveBitcast(ParsedInstruction& parsed);

  Scanner s_;
  std::string module_name_ = "module";
  std::map<std::string, Mesh> meshes_;
  int64_t num_partitions_ = 0;  // 0: not given
  StackTables tables_;
  std::vector<ParsedComputation> computations_;
};

// ---------------------------------------------------------------- module

StatusOr<Module> HloParser::Parse() {
  XFFI_RETURN_IF_ERROR(ParseHeader());
  while (true) {
    s_.SkipSpace();
    if (s_.AtEnd()) break;
    std::string_view word = s_.PeekName();
    if (word == "FileNames" || word == "FunctionNames" ||
        word == "FileLocations" || word == "StackFrames") {
      TextPos at = s_.pos();
      s_.Advance(word.size());
      s_.SkipSpace();
      char next = s_.Peek();
      if (next != '{' && next != '(') {
        XFFI_RETURN_IF_ERROR(ParseTable(word));
        continue;
      }
      s_.Reset(at);  // a computation that happens to have the name
    }
    XFFI_RETURN_IF_ERROR(ParseComputation());
  }
  if (computations_.empty()) return s_.Expected("a computation", s_.pos());
  Module module(module_name_);
  module.set_num_partitions(num_partitions_);
  XFFI_RETURN_IF_ERROR(Build(module));
  return module;
}

Status HloParser::ParseHeader() {
  s_.SkipSpace();
  if (!s_.TryConsumeWord("HloModule")) return s_.Expected("'HloModule'");
  std::string_view name = s_.Name();
  if (name.empty()) return s_.Expected("a module name");
  module_name_ = std::string(name);
  // Module-level attributes (entry_computation_layout, input_output_alias,
  // is_scheduled, ...) describe what the IR does not hold.
  while (s_.TryConsume(',')) {
    s_.SkipSpace();
    std::string_view attribute = s_.Name();
    if (attribute.empty()) return s_.Expected("a module attribute name");
    XFFI_RETURN_IF_ERROR(s_.Expect('='));
    if (attribute == "num_partitions") {
      // How many devices the program was written for.
      TextPos at = s_.pos();
      XFFI_RETURN_IF_ERROR(s_.Int(num_partitions_, "a partition count"));
      if (num_partitions_ < 0 || num_partitions_ > (1 << 16))
        return s_.ErrorAt(at, "num_partitions is out of range");
      continue;
    }
    if (attribute != "frontend_attributes") {
      XFFI_RETURN_IF_ERROR(SkipValue());
      continue;
    }
    // Shardy's meshes, for the shard_map bodies the module may hold.
    s_.SkipSpace();
    TextPos at = s_.pos();
    std::map<std::string, std::string> values;
    XFFI_RETURN_IF_ERROR(ParseFrontendAttributes(values));
    auto meshes = values.find("xla.sdy.meshes");
    if (meshes != values.end()) {
      XFFI_ASSIGN_OR_RETURN(
          meshes_, hlo::ParseSdyMeshesAttribute(
                       meshes->second, s_.Where(at) + ": xla.sdy.meshes"));
    }
  }
  return Status::Ok();
}

Status HloParser::ParseTable(std::string_view kind) {
  while (true) {
    s_.SkipSpace();
    if (!std::isdigit(static_cast<unsigned char>(s_.Peek())))
      return Status::Ok();
    int64_t id;
    XFFI_RETURN_IF_ERROR(s_.Int(id, "a table id"));
    if (kind == "FileNames" || kind == "FunctionNames") {
      std::string value;
      XFFI_RETURN_IF_ERROR(s_.String(value));
      (kind == "FileNames" ? tables_.files : tables_.functions)[id] = value;
      continue;
    }
    XFFI_RETURN_IF_ERROR(s_.Expect('{'));
    FileLocation location;
    int64_t frame_location = 0;
    while (!s_.TryConsume('}')) {
      std::string key(s_.Name());
      if (key.empty()) return s_.Expected("a field name or '}'");
      XFFI_RETURN_IF_ERROR(s_.Expect('='));
      int64_t value;
      XFFI_RETURN_IF_ERROR(s_.Int(value, "an integer"));
      if (key == "file_name_id") location.file = value;
      if (key == "function_name_id") location.function = value;
      if (key == "line") location.line = value;
      if (key == "column") location.column = value;
      if (key == "file_location_id") frame_location = value;
    }
    if (kind == "FileLocations") tables_.locations[id] = location;
    if (kind == "StackFrames") tables_.frame_location[id] = frame_location;
  }
}

Status HloParser::SkipValue() {
  // Up to the next ',' or end of line outside brackets and strings.
  int depth = 0;
  s_.SkipSpaceOnLine();
  TextPos start = s_.pos();
  while (!s_.AtEnd()) {
    char c = s_.Peek();
    if (c == '"') {
      XFFI_RETURN_IF_ERROR(s_.SkipQuoted());
      continue;
    }
    if (depth == 0 && (c == ',' || c == '\n')) break;
    if (c == '{' || c == '(' || c == '[') {
      if (++depth > kMaxNesting)
        return s_.ErrorAt(s_.pos(), "nesting is too deep");
    } else if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    }
    s_.Advance();
  }
  if (depth != 0) return s_.Expected("a closing bracket");
  if (s_.pos().offset == start.offset) return s_.Expected("a value");
  return Status::Ok();
}

StatusOr<std::string> HloParser::RawValue() {
  s_.SkipSpaceOnLine();
  TextPos start = s_.pos();
  XFFI_RETURN_IF_ERROR(SkipValue());
  return std::string(
      s_.text().substr(start.offset, s_.pos().offset - start.offset));
}

// ----------------------------------------------------------- computations

Status HloParser::ParseComputation() {
  ParsedComputation computation;
  s_.SkipSpace();
  computation.entry = s_.TryConsumeWord("ENTRY");
  s_.SkipSpace();
  computation.pos = s_.pos();
  std::string_view name = s_.Name();
  if (name.empty()) return s_.Expected("a computation name");
  computation.name = std::string(name);
  if (s_.TryConsume('(')) {
    // The signature repeats the parameters' and root's shapes: checked for
    // syntax, the instructions are what counts.
    int depth = 1;
    while (depth > 0) {
      if (s_.AtEnd()) return s_.Expected("')' closing the signature");
      char c = s_.Peek();
      if (c == '(') {
        if (++depth > kMaxNesting)
          return s_.ErrorAt(s_.pos(), "nesting is too deep");
      }
      if (c == ')') --depth;
      if (c == '\n' || c == '=')
        return s_.Expected("')' closing the signature");
      s_.Advance();
    }
    XFFI_RETURN_IF_ERROR(s_.Expect("->"));
    Shape result;
    XFFI_RETURN_IF_ERROR(ParseShape(result));
  }
  while (s_.TryConsume(',')) {  // execution_thread="main"
    if (s_.Name().empty()) return s_.Expected("a computation attribute name");
    XFFI_RETURN_IF_ERROR(s_.Expect('='));
    s_.SkipSpace();
    if (s_.Peek() == '"') {
      XFFI_RETURN_IF_ERROR(s_.SkipQuoted());
    } else if (s_.Name().empty()) {
      return s_.Expected("a computation attribute value");
    }
  }
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  while (!s_.TryConsume('}')) {
    if (s_.AtEnd())
      return s_.Expected("'}' closing computation '" + computation.name + "'");
    XFFI_RETURN_IF_ERROR(ParseInstruction(computation));
  }
  computations_.push_back(std::move(computation));
  return Status::Ok();
}

Status HloParser::ParseInstruction(ParsedComputation& computation) {
  ParsedInstruction parsed;
  s_.SkipSpace();
  parsed.is_root = s_.TryConsumeWord("ROOT");
  s_.SkipSpace();
  parsed.pos = s_.pos();
  std::string_view name = s_.Name();
  if (name.empty()) return s_.Expected("an instruction name or '}'");
  XFFI_RETURN_IF_ERROR(s_.Expect('='));
  Shape shape;
  XFFI_RETURN_IF_ERROR(ParseShape(shape));
  s_.SkipSpace();
  TextPos opcode_pos = s_.pos();
  std::string_view opcode_name = s_.PeekName();
  if (opcode_name.empty()) return s_.Expected("an opcode");
  std::optional<Opcode> opcode = OpcodeFromName(opcode_name);
  // Bitcasts become reshapes or bitcast-converts once the operand's shape
  // is known.
  if (opcode_name == "bitcast") {
    opcode = Opcode::kReshape;
    parsed.is_bitcast = true;
  }
  if (opcode_name == "set-dimension-size" ||
      opcode_name == "get-dimension-size" || opcode_name == "dynamic-reshape")
    return s_.ErrorAt(opcode_pos, DynamicSizeRefusal(opcode_name));
  if (!opcode)
    return s_.ErrorAt(opcode_pos,
                      "unknown opcode '" + std::string(opcode_name) + "'");
  if (*opcode == Opcode::kManualComputation)
    return s_.ErrorAt(opcode_pos,
                      "HLO writes a manual computation as a call of its body "
                      "between xla.sdy.GlobalToLocalShape and "
                      "xla.sdy.LocalToGlobalShape custom calls, not as an "
                      "op");
  s_.Advance(opcode_name.size());
  parsed.instruction = std::make_unique<Instruction>(*opcode, shape);
  parsed.instruction->set_name(std::string(name));
  Location location;
  location.file = std::string(s_.source_name());
  location.line = parsed.pos.line;
  location.column = parsed.pos.column;
  parsed.instruction->set_location(location);

  XFFI_RETURN_IF_ERROR(s_.Expect('('));
  XFFI_RETURN_IF_ERROR(ParseOperands(parsed));
  while (s_.TryConsume(',')) XFFI_RETURN_IF_ERROR(ParseAttribute(parsed));
  XFFI_RETURN_IF_ERROR(CheckAttributes(parsed));
  computation.instructions.push_back(std::move(parsed));
  return Status::Ok();
}

Status HloParser::ParseOperands(ParsedInstruction& parsed) {
  Instruction& in = *parsed.instruction;
  switch (in.opcode()) {
    case Opcode::kParameter:
      XFFI_RETURN_IF_ERROR(s_.Int(in.parameter_number, "a parameter number"));
      if (in.parameter_number < 0)
        return s_.ErrorAt(s_.pos(), "parameter number is negative");
      return s_.Expect(')');
    case Opcode::kConstant: {
      s_.SkipSpace();
      // Older printers put the shape inside: constant(f32[2] {1, 2}).
      std::string_view word = s_.PeekName();
      if (!word.empty() && ElementTypeFromName(word) &&
          (s_.Peek(word.size()) == '[')) {
        Shape ignored;
        XFFI_RETURN_IF_ERROR(ParseShape(ignored));
      }
      if (IsDynamicShape(in.shape()))
        return s_.ErrorAt(s_.pos(), "a constant needs a static shape");
      XFFI_RETURN_IF_ERROR(hlo::ParseLiteralValue(s_, in.shape(), in.literal));
      return s_.Expect(')');
    }
    default:
      break;
  }
  if (s_.TryConsume(')')) return Status::Ok();
  while (true) {
    s_.SkipSpace();
    // The full form may give each operand's shape: add(f32[2] %a, ...).
    std::string_view word = s_.PeekName();
    bool typed =
        s_.Peek() == '(' || (!word.empty() && ElementTypeFromName(word) &&
                             s_.Peek(word.size()) == '[');
    if (typed) {
      Shape ignored;
      XFFI_RETURN_IF_ERROR(ParseShape(ignored));
      s_.SkipSpace();
    }
    Ref ref;
    ref.pos = s_.pos();
    std::string_view name = s_.Name();
    if (name.empty()) return s_.Expected("an operand name");
    ref.name = std::string(name);
    parsed.operands.push_back(std::move(ref));
    if (s_.TryConsume(')')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
  }
}

// ------------------------------------------------------------- attributes

Status HloParser::ParseAttribute(ParsedInstruction& parsed) {
  Instruction& in = *parsed.instruction;
  s_.SkipSpace();
  TextPos at = s_.pos();
  std::string name(s_.Name());
  if (name.empty()) return s_.Expected("an attribute name");
  XFFI_RETURN_IF_ERROR(s_.Expect('='));
  if (std::find(parsed.seen_attributes.begin(), parsed.seen_attributes.end(),
                name) != parsed.seen_attributes.end())
    return s_.ErrorAt(at, "attribute '" + name + "' given twice");
  parsed.seen_attributes.push_back(name);

  auto role = [&](const char* r) -> Status {
    Ref ref;
    XFFI_RETURN_IF_ERROR(ParseComputationRef(ref));
    parsed.called_by_role[r] = std::move(ref);
    return Status::Ok();
  };
  DotDimensionNumbers& dot = in.dot_dimension_numbers;
  GatherDimensionNumbers& gather = in.gather_dimension_numbers;
  ScatterDimensionNumbers& scatter = in.scatter_dimension_numbers;
  CustomCallConfig& call = in.custom_call;

  if (name == "metadata") {
    Location location = in.location();
    XFFI_RETURN_IF_ERROR(ParseMetadata(location, at));
    in.set_location(std::move(location));
    return Status::Ok();
  }
  if (name == "frontend_attributes") {
    XFFI_RETURN_IF_ERROR(ParseFrontendAttributes(parsed.frontend));
    in.frontend_attributes = parsed.frontend;
    return Status::Ok();
  }
  if (name == "sharding") {
    s_.SkipSpace();
    parsed.sharding_pos = s_.pos();
    XFFI_ASSIGN_OR_RETURN(parsed.sharding, RawValue());
    return Status::Ok();
  }
  if (IsCollective(in.opcode())) {
    bool handled = false;
    XFFI_RETURN_IF_ERROR(ParseCollectiveAttribute(parsed, name, at, &handled));
    if (handled) return Status::Ok();
  }
  {
    bool handled = false;
    XFFI_RETURN_IF_ERROR(hlo::ParseNumericOpAttribute(s_, in, name, &handled));
    if (handled) return Status::Ok();
  }
  if (name == "dimensions") return ParseIntBraces(in.dimensions, "a dimension");
  if (name == "index") return s_.Int(in.tuple_index, "a tuple index");
  if (name == "iota_dimension") {
    int64_t d;
    XFFI_RETURN_IF_ERROR(s_.Int(d, "a dimension"));
    in.dimensions = {d};
    return Status::Ok();
  }
  if (name == "direction") {
    s_.SkipSpace();
    TextPos p = s_.pos();
    auto d = ComparisonDirectionFromName(s_.Name());
    if (!d)
      return s_.Expected("a comparison direction (EQ, NE, GE, GT, LE, LT)", p);
    in.comparison_direction = *d;
    return Status::Ok();
  }
  if (name == "type") {
    s_.SkipSpace();
    TextPos p = s_.pos();
    auto t = ComparisonTypeFromName(s_.Name());
    if (!t)
      return s_.Expected(
          "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)", p);
    in.comparison_type = *t;
    return Status::Ok();
  }
  if (name == "slice") return ParseSlice(in);
  if (name == "dynamic_slice_sizes")
    return ParseIntBraces(in.dynamic_slice_sizes, "a size");
  if (name == "padding") return ParsePadding(in);
  if (name == "lhs_batch_dims")
    return ParseIntBraces(dot.lhs_batch, "a dimension");
  if (name == "rhs_batch_dims")
    return ParseIntBraces(dot.rhs_batch, "a dimension");
  if (name == "lhs_contracting_dims")
    return ParseIntBraces(dot.lhs_contracting, "a dimension");
  if (name == "rhs_contracting_dims")
    return ParseIntBraces(dot.rhs_contracting, "a dimension");
  if (name == "to_apply") return role("to_apply");
  if (name == "calls") return role("calls");
  if (name == "condition") return role("condition");
  if (name == "body") return role("body");
  if (name == "true_computation") return role("true_computation");
  if (name == "false_computation") return role("false_computation");
  if (name == "branch_computations" || name == "called_computations")
    return ParseComputationList(parsed.called_list);
  if (name == "window") return ParseWindow(in);
  if (name == "select") return role("select");
  if (name == "scatter") return role("scatter");
  if (name == "dim_labels") return ParseDimLabels(in);
  if (name == "feature_group_count")
    return s_.Int(in.feature_group_count, "a group count");
  if (name == "batch_group_count")
    return s_.Int(in.batch_group_count, "a group count");
  if (name == "feature_index") return s_.Int(in.feature_index, "a dimension");
  if (name == "epsilon") return ParseFloat(in.epsilon, "an epsilon");
  if (name == "kind" && in.opcode() == Opcode::kFusion) {
    s_.SkipSpace();
    TextPos p = s_.pos();
    std::string_view kind = s_.Name();
    if (std::optional<FusionKind> known = FusionKindFromName(kind)) {
      in.fusion_kind = *known;
    } else if (kind == "kOutput" || kind == "kCustom") {
      parsed.fusion_as_call = true;
    } else {
      return s_.Expected("a fusion kind (kLoop, kInput, kOutput, kCustom)", p);
    }
    return Status::Ok();
  }
  if (name == "offset_dims")
    return ParseIntBraces(gather.offset_dims, "a dimension");
  if (name == "collapsed_slice_dims")
    return ParseIntBraces(gather.collapsed_slice_dims, "a dimension");
  if (name == "start_index_map")
    return ParseIntBraces(gather.start_index_map, "a dimension");
  if (name == "operand_batching_dims")
    return ParseIntBraces(gather.operand_batching_dims, "a dimension");
  if (name == "start_indices_batching_dims")
    return ParseIntBraces(gather.start_indices_batching_dims, "a dimension");
  if (name == "slice_sizes")
    return ParseIntBraces(in.gather_slice_sizes, "a size");
  if (name == "index_vector_dim") {
    int64_t d;
    XFFI_RETURN_IF_ERROR(s_.Int(d, "a dimension"));
    // Only the op's own dimension numbers: the other struct keeps its
    // default, as for every field an op does not use.
    if (in.opcode() == Opcode::kScatter)
      scatter.index_vector_dim = d;
    else
      gather.index_vector_dim = d;
    return Status::Ok();
  }
  if (name == "update_window_dims")
    return ParseIntBraces(scatter.update_window_dims, "a dimension");
  if (name == "inserted_window_dims")
    return ParseIntBraces(scatter.inserted_window_dims, "a dimension");
  if (name == "scatter_dims_to_operand_dims")
    return ParseIntBraces(scatter.scatter_dims_to_operand_dims, "a dimension");
  if (name == "input_batching_dims")
    return ParseIntBraces(scatter.input_batching_dims, "a dimension");
  if (name == "scatter_indices_batching_dims")
    return ParseIntBraces(scatter.scatter_indices_batching_dims, "a dimension");
  if (name == "indices_are_sorted")
    return ParseBool(in.indices_are_sorted, "true or false");
  if (name == "unique_indices")
    return ParseBool(in.unique_indices, "true or false");
  if (name == "is_stable") return ParseBool(in.is_stable, "true or false");
  if (name == "is_composite") {
    // lax.composite: a call of its decomposition, which is what it
    // computes; the name and version in frontend_attributes only matter to
    // a backend that substitutes its own kernel for the composite.
    bool composite = false;
    return ParseBool(composite, "true or false");
  }

  if (in.opcode() == Opcode::kCustomCall) {
    if (name == "custom_call_target") return s_.String(call.target);
    if (name == "operand_layout_constraints") {
      XFFI_RETURN_IF_ERROR(s_.Expect('{'));
      if (s_.TryConsume('}')) return Status::Ok();
      while (true) {
        Shape layout;
        XFFI_RETURN_IF_ERROR(ParseShape(layout));
        call.operand_layouts.push_back(std::move(layout));
        if (s_.TryConsume('}')) return Status::Ok();
        XFFI_RETURN_IF_ERROR(s_.Expect(','));
      }
    }
    if (name == "custom_call_has_side_effect")
      return ParseBool(call.has_side_effect, "true or false");
    if (name == "output_to_operand_aliasing") return ParseAliasing(call);
    if (name == "schedule") {
      s_.SkipSpace();
      TextPos p = s_.pos();
      std::string_view v = s_.Name();
      if (v == "SCHEDULE_NONE")
        call.schedule = CustomCallSchedule::kNone;
      else if (v == "SCHEDULE_LATEST")
        call.schedule = CustomCallSchedule::kLatest;
      else if (v == "SCHEDULE_EARLIEST")
        call.schedule = CustomCallSchedule::kEarliest;
      else
        return s_.Expected(
            "SCHEDULE_NONE, SCHEDULE_LATEST or SCHEDULE_EARLIEST", p);
      return Status::Ok();
    }
    if (name == "api_version") {
      s_.SkipSpace();
      TextPos p = s_.pos();
      auto version = hlo::ApiVersionFromName(s_.Name());
      if (!version) return s_.Expected("an API_VERSION_* name", p);
      call.api_version = *version;
      return Status::Ok();
    }
    if (name == "backend_config") {
      s_.SkipSpace();
      if (s_.Peek() == '"') return s_.String(call.opaque);
      // Unquoted: a brace-balanced dictionary, kept as written.
      TextPos start = s_.pos();
      if (s_.Peek() != '{') return s_.Expected("a string or '{'");
      int depth = 0;
      do {
        char c = s_.Peek();
        if (s_.AtEnd()) return s_.Expected("'}' closing backend_config");
        if (c == '"') {
          XFFI_RETURN_IF_ERROR(s_.SkipQuoted());
          continue;
        }
        if (c == '{') ++depth;
        if (c == '}') --depth;
        s_.Advance();
      } while (depth > 0);
      call.opaque = std::string(
          s_.text().substr(start.offset, s_.pos().offset - start.offset));
      return Status::Ok();
    }
    if (name == "literal" || name == "custom_call_literal") {
      Shape literal_shape;
      XFFI_RETURN_IF_ERROR(ParseShape(literal_shape));
      Literal literal;
      XFFI_RETURN_IF_ERROR(hlo::ParseLiteralValue(s_, literal_shape, literal));
      call.literal = std::move(literal);
      return Status::Ok();
    }
  }
  for (std::string_view ignored : kIgnoredAttributes)
    if (name == ignored) return SkipValue();
  return s_.ErrorAt(at, "unknown attribute '" + name + "' of '" +
                            std::string(OpcodeName(in.opcode())) + "'");
}

// Which attributes each op takes, and which of them it must have.
struct AttributeRule {
  std::vector<std::string_view> allowed;
  std::vector<std::string_view> required;
};

AttributeRule RuleFor(Opcode opcode) {
  switch (opcode) {
    case Opcode::kGetTupleElement:
      return {{"index"}, {"index"}};
    case Opcode::kCall:
      return {{"to_apply", "is_composite"}, {"to_apply"}};
    case Opcode::kFusion:
      return {{"kind", "calls"}, {"kind", "calls"}};
    case Opcode::kWhile:
      return {{"condition", "body"}, {"condition", "body"}};
    case Opcode::kConditional:
      return {{"branch_computations", "true_computation", "false_computation"},
              {}};
    case Opcode::kCustomCall:
      return {{"custom_call_target", "operand_layout_constraints",
               "custom_call_has_side_effect", "output_to_operand_aliasing",
               "schedule", "api_version", "backend_config", "literal",
               "custom_call_literal", "called_computations"},
              {"custom_call_target"}};
    case Opcode::kCompare:
      return {{"direction", "type"}, {"direction"}};
    case Opcode::kIota:
      return {{"iota_dimension"}, {"iota_dimension"}};
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
      return {{"dimensions"}, {"dimensions"}};
    case Opcode::kSlice:
      return {{"slice"}, {"slice"}};
    case Opcode::kDynamicSlice:
      return {{"dynamic_slice_sizes"}, {"dynamic_slice_sizes"}};
    case Opcode::kPad:
      return {{"padding"}, {"padding"}};
    case Opcode::kDot:
      return {{"lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
               "rhs_contracting_dims"},
              {}};
    case Opcode::kGather:
      return {{"offset_dims", "collapsed_slice_dims", "start_index_map",
               "index_vector_dim", "slice_sizes", "operand_batching_dims",
               "start_indices_batching_dims", "indices_are_sorted",
               "unique_indices"},
              {"offset_dims", "collapsed_slice_dims", "start_index_map",
               "index_vector_dim", "slice_sizes"}};
    case Opcode::kScatter:
      return {{"update_window_dims", "inserted_window_dims",
               "scatter_dims_to_operand_dims", "index_vector_dim",
               "input_batching_dims", "scatter_indices_batching_dims",
               "to_apply", "indices_are_sorted", "unique_indices"},
              {"update_window_dims", "inserted_window_dims",
               "scatter_dims_to_operand_dims", "index_vector_dim", "to_apply"}};
    case Opcode::kReduce:
      return {{"dimensions", "to_apply"}, {"dimensions", "to_apply"}};
    case Opcode::kReduceWindow:
      return {{"window", "to_apply"}, {"window", "to_apply"}};
    case Opcode::kSelectAndScatter:
      return {{"window", "select", "scatter"}, {"window", "select", "scatter"}};
    case Opcode::kConvolution:
      return {
          {"window", "dim_labels", "feature_group_count", "batch_group_count"},
          {"dim_labels"}};
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return {{"epsilon", "feature_index"}, {"epsilon", "feature_index"}};
    case Opcode::kSort:
      return {{"dimensions", "is_stable", "to_apply"},
              {"dimensions", "to_apply"}};
    default: {
      AttributeRule rule;
      hlo::NumericOpAttributes(opcode, &rule.allowed, &rule.required);
      return rule;
    }
  }
}

Status HloParser::CheckAttributes(ParsedInstruction& parsed) {
  Instruction& in = *parsed.instruction;
  if (IsCollective(in.opcode())) return CheckCollectiveAttributes(parsed);
  AttributeRule rule = RuleFor(in.opcode());
  auto has = [&](std::string_view a) {
    return std::find(parsed.seen_attributes.begin(),
                     parsed.seen_attributes.end(),
                     a) != parsed.seen_attributes.end();
  };
  std::string op_name(OpcodeName(in.opcode()));
  if (parsed.is_bitcast) op_name = "bitcast";
  for (const std::string& a : parsed.seen_attributes) {
    if (a == "metadata") continue;
    if (std::find(std::begin(kIgnoredAttributes), std::end(kIgnoredAttributes),
                  a) != std::end(kIgnoredAttributes) &&
        !(a == "backend_config" && in.opcode() == Opcode::kCustomCall))
      continue;
    if (std::find(rule.allowed.begin(), rule.allowed.end(), a) ==
        rule.allowed.end())
      return s_.ErrorAt(parsed.pos, "'" + in.name() + "' (" + op_name +
                                        ") takes no attribute '" + a + "'");
  }
  for (std::string_view a : rule.required)
    if (!has(a))
      return s_.ErrorAt(parsed.pos, "'" + in.name() + "' (" + op_name +
                                        ") needs attribute '" + std::string(a) +
                                        "'");
  if (in.opcode() == Opcode::kConditional) {
    bool list = has("branch_computations");
    bool pair = has("true_computation") || has("false_computation");
    if (list == pair ||
        (pair && !(has("true_computation") && has("false_computation"))))
      return s_.ErrorAt(parsed.pos,
                        "'" + in.name() +
                            "' (conditional) needs branch_computations or "
                            "both true_computation and false_computation");
  }
  if (in.opcode() == Opcode::kCustomCall &&
      (in.custom_call.target == "SliceToDynamic" ||
       in.custom_call.target == "PadToStatic"))
    return s_.ErrorAt(parsed.pos,
                      "'" + in.name() + "' (custom-call " +
                          in.custom_call.target +
                          "): " + DynamicSizeRefusal(in.custom_call.target));
  if (in.opcode() == Opcode::kCustomCall &&
      IsGspmdMarker(in.custom_call.target)) {
    // GSPMD's shard_map markers: what they say is their sharding.
    if (parsed.sharding.empty())
      return s_.ErrorAt(parsed.pos, "'" + in.name() + "' (" +
                                        in.custom_call.target +
                                        ") needs a sharding");
    XFFI_ASSIGN_OR_RETURN(
        in.sharding,
        hlo::ParseHloSharding(parsed.sharding, in.location().ToString() + ": " +
                                                   in.custom_call.target +
                                                   " sharding"));
    return Status::Ok();
  }
  if (in.opcode() == Opcode::kParameter && !parsed.sharding.empty()) {
    // Where a parameter lives decides how a batch-partitionable call on it
    // splits (passes/batch_partitioning.h). A sharding in a form xffi does
    // not read (a tuple's, a partially manual one) only leaves such a call
    // whole, which computes the same values, so it is no error; text that
    // is no sharding is.
    XFFI_ASSIGN_OR_RETURN(
        in.sharding,
        hlo::ParseValueSharding(parsed.sharding,
                                s_.Where(parsed.sharding_pos) + ": sharding"));
  }
  if (in.opcode() == Opcode::kCustomCall)
    return hlo::FinishCustomCallConfig(in, s_, parsed.pos);
  return Status::Ok();
}

Status HloParser::ParseBool(bool& value, std::string_view what) {
  s_.SkipSpace();
  if (s_.TryConsumeWord("true")) {
    value = true;
  } else if (s_.TryConsumeWord("false")) {
    value = false;
  } else {
    return s_.Expected(what);
  }
  return Status::Ok();
}

Status HloParser::ParseIntList(std::vector<int64_t>& values,
                               std::string_view what) {
  while (true) {
    int64_t v;
    XFFI_RETURN_IF_ERROR(s_.Int(v, what));
    values.push_back(v);
    if (!s_.TryConsume(',')) return Status::Ok();
  }
}

Status HloParser::ParseIntBraces(std::vector<int64_t>& values,
                                 std::string_view what) {
  values.clear();
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  XFFI_RETURN_IF_ERROR(ParseIntList(values, what));
  return s_.Expect('}');
}

Status HloParser::ParseComputationRef(Ref& ref) {
  s_.SkipSpace();
  ref.pos = s_.pos();
  std::string_view name = s_.Name();
  if (name.empty()) return s_.Expected("a computation name");
  ref.name = std::string(name);
  return Status::Ok();
}

Status HloParser::ParseComputationList(std::vector<Ref>& refs) {
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  while (true) {
    Ref ref;
    XFFI_RETURN_IF_ERROR(ParseComputationRef(ref));
    refs.push_back(std::move(ref));
    if (s_.TryConsume('}')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
  }
}

Status HloParser::ParseSlice(Instruction& in) {
  // slice={[start:limit], [start:limit:stride], ...}
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  while (true) {
    int64_t start, limit, stride = 1;
    XFFI_RETURN_IF_ERROR(s_.Expect('['));
    XFFI_RETURN_IF_ERROR(s_.Int(start, "a slice start"));
    XFFI_RETURN_IF_ERROR(s_.Expect(':'));
    XFFI_RETURN_IF_ERROR(s_.Int(limit, "a slice limit"));
    if (s_.TryConsume(':'))
      XFFI_RETURN_IF_ERROR(s_.Int(stride, "a slice stride"));
    XFFI_RETURN_IF_ERROR(s_.Expect(']'));
    in.slice_starts.push_back(start);
    in.slice_limits.push_back(limit);
    in.slice_strides.push_back(stride);
    if (s_.TryConsume('}')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
  }
}

// "low_high[_interior]" per dimension, dimensions joined by 'x'. Also used by
// window pad (low_high only).
Status ParsePadTriples(Scanner& s, std::vector<PadDimension>& out,
                       bool interior_allowed) {
  s.SkipSpaceOnLine();
  // A rank-0 pad prints nothing after '='.
  char first = s.Peek();
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-'))
    return Status::Ok();
  while (true) {
    PadDimension d;
    if (Status st = s.Int(d.low, "a low padding"); !st.ok()) return st;
    if (s.Peek() != '_') return s.Expected("'_' between low and high padding");
    s.Advance();
    if (Status st = s.Int(d.high, "a high padding"); !st.ok()) return st;
    if (s.Peek() == '_') {
      if (!interior_allowed) return s.Expected("'x' or the end of the padding");
      s.Advance();
      if (Status st = s.Int(d.interior, "an interior padding"); !st.ok())
        return st;
    }
    out.push_back(d);
    if (s.Peek() != 'x') return Status::Ok();
    s.Advance();
  }
}

Status HloParser::ParsePadding(Instruction& in) {
  return ParsePadTriples(s_, in.padding, true);
}

Status ParseXList(Scanner& s, std::vector<int64_t>& out,
                  std::string_view what) {
  while (true) {
    int64_t v;
    if (Status st = s.Int(v, what); !st.ok()) return st;
    out.push_back(v);
    if (s.Peek() != 'x') return Status::Ok();
    s.Advance();
  }
}

Status HloParser::ParseWindow(Instruction& in) {
  // window={size=3x3 stride=2x1 pad=1_1x0_0 lhs_dilate=1x1 rhs_dilate=1x1}
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<PadDimension> pad;
  while (!s_.TryConsume('}')) {
    s_.SkipSpace();
    TextPos at = s_.pos();
    std::string key(s_.Name());
    if (key.empty()) return s_.Expected("a window field or '}'");
    XFFI_RETURN_IF_ERROR(s_.Expect('='));
    if (key == "size")
      XFFI_RETURN_IF_ERROR(ParseXList(s_, size, "a window size"));
    else if (key == "stride")
      XFFI_RETURN_IF_ERROR(ParseXList(s_, stride, "a window stride"));
    else if (key == "pad")
      XFFI_RETURN_IF_ERROR(ParsePadTriples(s_, pad, false));
    else if (key == "lhs_dilate")
      XFFI_RETURN_IF_ERROR(ParseXList(s_, lhs_dilate, "a dilation"));
    else if (key == "rhs_dilate")
      XFFI_RETURN_IF_ERROR(ParseXList(s_, rhs_dilate, "a dilation"));
    else if (key == "rhs_reversal")
      XFFI_RETURN_IF_ERROR(ParseXList(s_, reversal, "0 or 1"));
    else
      return s_.ErrorAt(at, "unknown window field '" + key + "'");
  }
  const size_t rank = size.size();
  auto check = [&](size_t n, const char* field) -> Status {
    if (n != 0 && n != rank)
      return s_.ErrorAt(s_.pos(), std::string("window ") + field + " has " +
                                      std::to_string(n) +
                                      " dimensions, size has " +
                                      std::to_string(rank));
    return Status::Ok();
  };
  XFFI_RETURN_IF_ERROR(check(stride.size(), "stride"));
  XFFI_RETURN_IF_ERROR(check(pad.size(), "pad"));
  XFFI_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  XFFI_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  XFFI_RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  for (int64_t r : reversal)
    if (r != 0 && r != 1)
      return s_.ErrorAt(s_.pos(), "window rhs_reversal must be 0 or 1, got " +
                                      std::to_string(r));
  in.window.assign(rank, WindowDimension{});
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension& w = in.window[i];
    w.size = size[i];
    if (!stride.empty()) w.stride = stride[i];
    if (!pad.empty()) {
      w.padding_low = pad[i].low;
      w.padding_high = pad[i].high;
    }
    if (!lhs_dilate.empty()) w.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) w.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) w.window_reversal = reversal[i] == 1;
  }
  return Status::Ok();
}

Status HloParser::ParseDimLabels(Instruction& in) {
  // dim_labels=b01f_01io->b01f: per operand and the result, each
  // dimension's role (batch/feature, input/output feature, or the number of
  // the spatial dimension it is).
  s_.SkipSpace();
  TextPos at = s_.pos();
  std::string text;
  while (!s_.AtEnd() &&
         (std::isalnum(static_cast<unsigned char>(s_.Peek())) ||
          s_.Peek() == '_' || s_.Peek() == '-' || s_.Peek() == '>')) {
    text += s_.Peek();
    s_.Advance();
  }
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  if (underscore == std::string::npos || arrow == std::string::npos ||
      arrow < underscore)
    return s_.Expected("dim_labels like b01f_01io->b01f", at);
  const std::string parts[3] = {
      text.substr(0, underscore),
      text.substr(underscore + 1, arrow - underscore - 1),
      text.substr(arrow + 2)};
  const char roles[3][2] = {{'b', 'f'}, {'i', 'o'}, {'b', 'f'}};
  ConvolutionDimensionNumbers& dn = in.convolution_dimension_numbers;
  int64_t* firsts[3] = {&dn.input_batch_dimension,
                        &dn.kernel_input_feature_dimension,
                        &dn.output_batch_dimension};
  int64_t* seconds[3] = {&dn.input_feature_dimension,
                         &dn.kernel_output_feature_dimension,
                         &dn.output_feature_dimension};
  std::vector<int64_t>* spatials[3] = {&dn.input_spatial_dimensions,
                                       &dn.kernel_spatial_dimensions,
                                       &dn.output_spatial_dimensions};
  for (int k = 0; k < 3; ++k) {
    const std::string& part = parts[k];
    int64_t first = -1, second = -1;
    std::vector<int64_t> spatial(part.size(), -1);
    size_t spatial_count = 0;
    for (size_t d = 0; d < part.size(); ++d) {
      char c = part[d];
      int64_t dim = static_cast<int64_t>(d);
      if (c == roles[k][0] && first < 0) {
        first = dim;
      } else if (c == roles[k][1] && second < 0) {
        second = dim;
      } else if (std::isdigit(static_cast<unsigned char>(c)) &&
                 static_cast<size_t>(c - '0') < part.size() &&
                 spatial[static_cast<size_t>(c - '0')] < 0) {
        spatial[static_cast<size_t>(c - '0')] = dim;
        ++spatial_count;
      } else {
        return s_.ErrorAt(at, "dim_labels '" + text + "': unexpected '" +
                                  std::string(1, c) + "' in '" + part + "'");
      }
    }
    spatial.resize(spatial_count);
    for (int64_t d : spatial)
      if (first < 0 || second < 0 || d < 0)
        return s_.ErrorAt(at, "dim_labels '" + text + "': '" + part +
                                  "' needs '" + roles[k][0] + "', '" +
                                  roles[k][1] +
                                  "' and spatial dimensions numbered from 0");
    if (first < 0 || second < 0)
      return s_.ErrorAt(at, "dim_labels '" + text + "': '" + part +
                                "' needs '" + roles[k][0] + "' and '" +
                                roles[k][1] + "'");
    *firsts[k] = first;
    *seconds[k] = second;
    *spatials[k] = std::move(spatial);
  }
  return Status::Ok();
}

Status HloParser::ParseFloat(float& value, std::string_view what) {
  s_.SkipSpace();
  TextPos at = s_.pos();
  std::string text;
  while (!s_.AtEnd() &&
         (std::isalnum(static_cast<unsigned char>(s_.Peek())) ||
          s_.Peek() == '.' || s_.Peek() == '-' || s_.Peek() == '+')) {
    text += s_.Peek();
    s_.Advance();
  }
  char* end = nullptr;
  value = std::strtof(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    return s_.Expected(what, at);
  return Status::Ok();
}

Status HloParser::ParseMetadata(Location& location, TextPos at) {
  // metadata={op_name="jit(f)/add" source_file="f.py" source_line=3
  //           stack_frame_id=2}
  (void)at;
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  bool has_source = false;
  bool line_given = false;  // by source_line or a stack frame
  Location from_text = location;
  while (!s_.TryConsume('}')) {
    s_.SkipSpace();
    std::string key(s_.Name());
    if (key.empty()) return s_.Expected("a metadata field or '}'");
    XFFI_RETURN_IF_ERROR(s_.Expect('='));
    s_.SkipSpace();
    if (key == "op_name") {
      XFFI_RETURN_IF_ERROR(s_.String(location.name));
    } else if (key == "source_file") {
      XFFI_RETURN_IF_ERROR(s_.String(location.file));
      has_source = true;
    } else if (key == "source_line" || key == "source_column" ||
               key == "stack_frame_id") {
      int64_t v;
      XFFI_RETURN_IF_ERROR(s_.Int(v, "an integer"));
      int clamped = static_cast<int>(std::clamp<int64_t>(v, 0, 1 << 30));
      if (key == "source_line") {
        location.line = clamped;
        has_source = true;
        line_given = true;
      } else if (key == "source_column") {
        location.column = clamped;
      } else if (!has_source) {
        auto frame = tables_.frame_location.find(v);
        if (frame != tables_.frame_location.end()) {
          auto loc = tables_.locations.find(frame->second);
          if (loc != tables_.locations.end()) {
            auto file = tables_.files.find(loc->second.file);
            location.file = file != tables_.files.end() ? file->second : "";
            location.line = static_cast<int>(
                std::clamp<int64_t>(loc->second.line, 0, 1 << 30));
            location.column = static_cast<int>(
                std::clamp<int64_t>(loc->second.column, 0, 1 << 30));
            has_source = true;
            line_given = true;
          }
        }
      }
    } else if (s_.Peek() == '"') {
      XFFI_RETURN_IF_ERROR(s_.SkipQuoted());
    } else {
      // Other fields are single words (numbers, enum names, true/false).
      if (s_.Name().empty()) return s_.Expected("a metadata value");
    }
  }
  if (!has_source) {
    location.file = from_text.file;
    location.line = from_text.line;
    location.column = from_text.column;
  } else if (!line_given || location.line == 0) {
    // A file without a line: the position in this text is not it.
    location.line = 0;
    location.column = 0;
  }
  return Status::Ok();
}

Status HloParser::ParseShapeIndex(std::vector<int64_t>& index) {
  index.clear();
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  XFFI_RETURN_IF_ERROR(ParseIntList(index, "a tuple index"));
  return s_.Expect('}');
}

Status HloParser::ParseAliasing(CustomCallConfig& config) {
  // {{0}: (0, {}), {1}: (2, {0})}; may-alias/must-alias suffixes are read.
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  while (true) {
    OutputOperandAlias alias;
    XFFI_RETURN_IF_ERROR(ParseShapeIndex(alias.output_index));
    XFFI_RETURN_IF_ERROR(s_.Expect(':'));
    XFFI_RETURN_IF_ERROR(s_.Expect('('));
    XFFI_RETURN_IF_ERROR(s_.Int(alias.operand, "an operand number"));
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
    XFFI_RETURN_IF_ERROR(ParseShapeIndex(alias.operand_index));
    if (s_.TryConsume(',')) {
      if (!s_.TryConsumeWord("may-alias") && !s_.TryConsumeWord("must-alias"))
        return s_.Expected("may-alias or must-alias");
    }
    XFFI_RETURN_IF_ERROR(s_.Expect(')'));
    config.output_operand_aliases.push_back(std::move(alias));
    if (s_.TryConsume('}')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
  }
}

// ------------------------------------------------------------------ shapes

Status HloParser::ParseShape(Shape& shape, int depth) {
  if (depth > kMaxNesting) return s_.ErrorAt(s_.pos(), "nesting is too deep");
  s_.SkipSpace();
  if (s_.TryConsume('(')) {
    std::vector<Shape> elements;
    if (!s_.TryConsume(')')) {
      while (true) {
        Shape element;
        XFFI_RETURN_IF_ERROR(ParseShape(element, depth + 1));
        elements.push_back(std::move(element));
        if (s_.TryConsume(')')) break;
        XFFI_RETURN_IF_ERROR(s_.Expect(','));
      }
    }
    shape = Shape::Tuple(std::move(elements));
    return Status::Ok();
  }
  TextPos at = s_.pos();
  std::string_view type_name = s_.PeekName();
  std::optional<ElementType> type = ElementTypeFromName(type_name);
  if (!type || *type == ElementType::kTuple)
    return s_.Expected("a shape such as f32[2,3] or (s32[], f32[])", at);
  s_.Advance(type_name.size());
  if (s_.Peek() != '[') return s_.Expected("'[' after the element type");
  s_.Advance();
  std::vector<int64_t> dims;
  s_.SkipSpace();
  if (s_.Peek() != ']') {
    while (true) {
      s_.SkipSpace();
      int64_t d = kDynamicDimension;
      if (s_.Peek() == '<') {
        // `<=N`: a bounded dynamic dimension, read as its bound (see the
        // top of this file).
        s_.Advance();
        if (s_.Peek() != '=')
          return s_.Expected("'<=' and a bound (a bounded dimension)");
        s_.Advance();
        XFFI_RETURN_IF_ERROR(s_.Int(d, "a dimension's bound"));
        if (d < 0)
          return s_.ErrorAt(s_.pos(), "a dimension's bound is negative");
      } else if (s_.Peek() == '?') {
        // As xffi prints an unrefined shape-polymorphic program: it reads
        // back as one, which the verifier refuses.
        s_.Advance();
      } else {
        XFFI_RETURN_IF_ERROR(s_.Int(d, "a dimension size"));
        if (d < 0) return s_.ErrorAt(s_.pos(), "a dimension size is negative");
      }
      dims.push_back(d);
      if (dims.size() > static_cast<size_t>(kMaxNesting))
        return s_.ErrorAt(s_.pos(), "too many dimensions");
      if (!s_.TryConsume(',')) break;
    }
  }
  XFFI_RETURN_IF_ERROR(s_.Expect(']'));
  if (*type == ElementType::kToken) {
    if (!dims.empty()) return s_.ErrorAt(at, "a token has no dimensions");
    shape = Shape::Token();
    return Status::Ok();
  }
  std::vector<int64_t> layout;
  if (s_.Peek() == '{') {
    TextPos layout_at = s_.pos();
    s_.Advance();
    s_.SkipSpace();
    if (s_.Peek() != '}') {
      while (true) {
        int64_t d;
        XFFI_RETURN_IF_ERROR(s_.Int(d, "a layout dimension"));
        layout.push_back(d);
        if (!s_.TryConsume(',')) break;
      }
    }
    // Tiling and memory space (":T(8,128)S(1)") do not change the values.
    if (s_.TryConsume(':')) {
      int depth_in = 0;
      while (!s_.AtEnd() && !(s_.Peek() == '}' && depth_in == 0)) {
        if (s_.Peek() == '(') ++depth_in;
        if (s_.Peek() == ')') --depth_in;
        if (s_.Peek() == '\n' || depth_in < 0)
          return s_.Expected("'}' closing the layout");
        s_.Advance();
      }
    }
    XFFI_RETURN_IF_ERROR(s_.Expect('}'));
    std::vector<int64_t> sorted = layout;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == dims.size();
    for (size_t i = 0; permutation && i < sorted.size(); ++i)
      permutation = sorted[i] == static_cast<int64_t>(i);
    if (!permutation)
      return s_.ErrorAt(
          layout_at, "layout {" +
                         [&] {
                           std::string t;
                           for (size_t i = 0; i < layout.size(); ++i)
                             t += (i ? "," : "") + std::to_string(layout[i]);
                           return t;
                         }() +
                         "} is not a permutation of the " +
                         std::to_string(dims.size()) + " dimensions");
    // A scalar's layout is "{}": nothing to keep.
  }
  shape = Shape::Array(*type, std::move(dims), std::move(layout));
  return Status::Ok();
}

// ---------------------------------------------------------------- building

// ------------------------------------------------------------ shard_map

Status HloParser::ParseFrontendAttributes(
    std::map<std::string, std::string>& values) {
  // {key=value, ...}: a value is a quoted string or, unquoted, text up to
  // the next ',' or '}' outside brackets.
  XFFI_RETURN_IF_ERROR(s_.Expect('{'));
  if (s_.TryConsume('}')) return Status::Ok();
  while (true) {
    s_.SkipSpace();
    std::string key;
    if (s_.Peek() == '"') {
      XFFI_RETURN_IF_ERROR(s_.String(key));
    } else {
      key = std::string(s_.Name());
      if (key.empty()) return s_.Expected("a frontend attribute name");
    }
    XFFI_RETURN_IF_ERROR(s_.Expect('='));
    s_.SkipSpace();
    std::string value;
    if (s_.Peek() == '"') {
      XFFI_RETURN_IF_ERROR(s_.String(value));
    } else {
      XFFI_ASSIGN_OR_RETURN(value, RawValue());
    }
    values[key] = std::move(value);
    if (s_.TryConsume('}')) return Status::Ok();
    XFFI_RETURN_IF_ERROR(s_.Expect(','));
  }
}

Status HloParser::ParseCollectiveAttribute(ParsedInstruction& parsed,
                                           const std::string& name, TextPos at,
                                           bool* handled) {
  Instruction& in = *parsed.instruction;
  CollectiveDevices& devices = in.collective_devices;
  *handled =
      in.opcode() != Opcode::kPartitionId && in.opcode() != Opcode::kReplicaId;
  if (!*handled) return Status::Ok();
  if (name == "to_apply") {
    Ref ref;
    XFFI_RETURN_IF_ERROR(ParseComputationRef(ref));
    parsed.called_by_role["to_apply"] = std::move(ref);
    return Status::Ok();
  }
  if (name == "channel_id") {
    XFFI_RETURN_IF_ERROR(s_.Int(devices.channel_id, "a channel id"));
    if (devices.channel_id < 0) return s_.ErrorAt(at, "channel_id is negative");
    return Status::Ok();
  }
  if (name == "use_global_device_ids")
    return ParseBool(devices.use_global_device_ids, "true or false");
  if (name == "replica_groups")
    return hlo::ParseReplicaGroups(s_, devices.replica_groups);
  if (name == "source_target_pairs")
    return hlo::ParseSourceTargetPairs(s_, in.source_target_pairs);
  if (name == "constrain_layout") {
    bool ignored;
    return ParseBool(ignored, "true or false");
  }
  if (name == "dimensions") {
    std::vector<int64_t> dims;
    XFFI_RETURN_IF_ERROR(ParseIntBraces(dims, "a dimension"));
    if (dims.size() != 1)
      return s_.ErrorAt(at, "'" + in.name() + "' (" +
                                std::string(OpcodeName(in.opcode())) +
                                "): expected one dimension");
    // all-to-all splits and concatenates along the same dimension in HLO.
    if (in.opcode() == Opcode::kAllToAll)
      in.split_dimension = in.concat_dimension = dims[0];
    else
      in.dimensions = std::move(dims);
    return Status::Ok();
  }
  // xffi's own spelling of an all-to-all that concatenates along another
  // dimension than it splits (StableHLO has one; HLO has none).
  if (name == "split_dimension")
    return s_.Int(in.split_dimension, "a dimension");
  if (name == "concat_dimension")
    return s_.Int(in.concat_dimension, "a dimension");
  *handled = false;  // sharding, backend_config, ...: the general rules
  return Status::Ok();
}

Status HloParser::CheckCollectiveAttributes(ParsedInstruction& parsed) {
  Instruction& in = *parsed.instruction;
  std::vector<std::string_view> allowed = {
      "to_apply", "channel_id", "use_global_device_ids", "replica_groups",
      "constrain_layout"};
  std::vector<std::string_view> required;
  switch (in.opcode()) {
    case Opcode::kAllReduce:
      required = {"to_apply"};
      break;
    case Opcode::kReduceScatter:
      allowed.push_back("dimensions");
      required = {"to_apply", "dimensions"};
      break;
    case Opcode::kAllGather:
      allowed.push_back("dimensions");
      required = {"dimensions"};
      break;
    case Opcode::kAllToAll:
      allowed.insert(allowed.end(),
                     {"dimensions", "split_dimension", "concat_dimension"});
      break;
    case Opcode::kCollectivePermute:
      allowed.push_back("source_target_pairs");
      required = {"source_target_pairs"};
      break;
    default:  // partition-id, replica-id
      allowed.clear();
      break;
  }
  auto has = [&](std::string_view a) {
    return std::find(parsed.seen_attributes.begin(),
                     parsed.seen_attributes.end(),
                     a) != parsed.seen_attributes.end();
  };
  std::string what =
      "'" + in.name() + "' (" + std::string(OpcodeName(in.opcode())) + ")";
  for (const std::string& a : parsed.seen_attributes) {
    bool ignored =
        a == "metadata" ||
        std::find(std::begin(kIgnoredAttributes), std::end(kIgnoredAttributes),
                  a) != std::end(kIgnoredAttributes);
    if (std::find(allowed.begin(), allowed.end(), a) == allowed.end() &&
        !ignored)
      return s_.ErrorAt(parsed.pos, what + " takes no attribute '" + a + "'");
  }
  for (std::string_view a : required)
    if (!has(a))
      return s_.ErrorAt(parsed.pos,
                        what + " needs attribute '" + std::string(a) + "'");
  if (in.opcode() == Opcode::kAllToAll) {
    if (has("dimensions") ==
        (has("split_dimension") || has("concat_dimension")))
      return s_.ErrorAt(parsed.pos,
                        what +
                            " needs dimensions, or split_dimension and "
                            "concat_dimension");
    // HLO does not write the split count: it is the size of a group.
    const auto& groups = in.collective_devices.replica_groups;
    in.split_count =
        groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
  }
  return Status::Ok();
}

// JAX prints a shard_map as
//   g = custom-call(x, y), custom_call_target="xla.sdy.GlobalToLocalShape"
//   c = call(gte(g, 0), gte(g, 1)), to_apply=xla.sdy.manual_computation_body
//   l = custom-call(gte(c, 0), ...), custom_call_target=
//       "xla.sdy.LocalToGlobalShape"
// with the shardings in their frontend_attributes. The three become one
// manual computation: l takes x and y and runs the body, and g, c and
// their get-tuple-elements go. xla.sdy.FuncResultSharding (and other
// sharding annotations) become copies.
Status HloParser::RewriteShardMaps(ParsedComputation& computation) {
  std::vector<ParsedInstruction>& list = computation.instructions;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < list.size(); ++i)
    index.emplace(list[i].instruction->name(), i);
  auto target = [&](const ParsedInstruction& p) -> std::string {
    return p.instruction->opcode() == Opcode::kCustomCall
               ? p.instruction->custom_call.target
               : std::string();
  };
  std::map<size_t, int> uses;
  for (const ParsedInstruction& p : list)
    for (const Ref& ref : p.operands) {
      auto it = index.find(ref.name);
      if (it != index.end()) ++uses[it->second];
    }
  std::set<size_t> removed;
  // The record each operand of `p` names, through one get-tuple-element:
  // (producer, element) with element -1 when used directly.
  auto producers = [&](const ParsedInstruction& p,
                       std::vector<std::pair<size_t, int64_t>>* out) -> Status {
    for (const Ref& ref : p.operands) {
      auto it = index.find(ref.name);
      if (it == index.end())
        return s_.ErrorAt(ref.pos, "unknown operand '" + ref.name + "' of '" +
                                       p.instruction->name() + "'");
      const ParsedInstruction& q = list[it->second];
      if (q.instruction->opcode() == Opcode::kGetTupleElement &&
          q.operands.size() == 1 && index.count(q.operands[0].name)) {
        if (uses[it->second] != 1)
          return s_.ErrorAt(q.pos, "'" + q.instruction->name() +
                                       "' of a shard_map is used elsewhere");
        removed.insert(it->second);
        out->push_back(
            {index.at(q.operands[0].name), q.instruction->tuple_index});
      } else {
        out->push_back({it->second, -1});
      }
    }
    return Status::Ok();
  };
  // The one record all operands come from, element k for operand k (or the
  // record itself for a single operand).
  auto single_source = [&](const ParsedInstruction& p,
                           const std::vector<std::pair<size_t, int64_t>>& from,
                           const std::string& what) -> StatusOr<size_t> {
    bool ok = !from.empty();
    for (size_t k = 0; ok && k < from.size(); ++k)
      ok = from[k].first == from[0].first &&
           (from[k].second == static_cast<int64_t>(k) ||
            (from.size() == 1 && from[k].second == -1));
    if (!ok)
      return s_.ErrorAt(p.pos, "'" + p.instruction->name() +
                                   "': expected the results of one " + what +
                                   ", in order, as its operands");
    return from[0].first;
  };

  for (size_t i = 0; i < list.size(); ++i) {
    ParsedInstruction& local_to_global = list[i];
    std::string name = target(local_to_global);
    // (GSPMD's own Sharding stays: the emulation reads it as a marker, or
    // drops it.)
    if (name == "xla.sdy.FuncResultSharding" || name == "xla.sdy.Sharding") {
      if (local_to_global.operands.size() != 1)
        return s_.ErrorAt(local_to_global.pos,
                          "'" + local_to_global.instruction->name() + "' (" +
                              name + ") must have one operand");
      auto copy = std::make_unique<Instruction>(
          Opcode::kCopy, local_to_global.instruction->shape());
      copy->set_name(local_to_global.instruction->name());
      copy->set_location(local_to_global.instruction->location());
      local_to_global.instruction = std::move(copy);
      continue;
    }
    if (name != "xla.sdy.LocalToGlobalShape") continue;
    const std::string where = s_.Where(local_to_global.pos) + ": '" +
                              local_to_global.instruction->name() + "'";
    std::vector<std::pair<size_t, int64_t>> from_call;
    XFFI_RETURN_IF_ERROR(producers(local_to_global, &from_call));
    XFFI_ASSIGN_OR_RETURN(
        size_t call_index,
        single_source(local_to_global, from_call, "manual computation body"));
    ParsedInstruction& call = list[call_index];
    auto body = call.called_by_role.find("to_apply");
    if (call.instruction->opcode() != Opcode::kCall ||
        body == call.called_by_role.end())
      return s_.ErrorAt(local_to_global.pos,
                        "'" + local_to_global.instruction->name() +
                            "' (xla.sdy.LocalToGlobalShape) must take the "
                            "results of a call of the manual computation's "
                            "body");
    int64_t call_uses = uses[call_index];
    if (call_uses != static_cast<int64_t>(local_to_global.operands.size()) &&
        !(from_call[0].second == -1 && call_uses == 1))
      return s_.ErrorAt(call.pos, "'" + call.instruction->name() +
                                      "', a shard_map body, is used elsewhere");
    // A body without arguments (JAX's axis_index of a free axis, say) has
    // no GlobalToLocalShape.
    const ParsedInstruction* global_to_local = nullptr;
    size_t global_index = 0;
    if (!call.operands.empty()) {
      std::vector<std::pair<size_t, int64_t>> from_global;
      XFFI_RETURN_IF_ERROR(producers(call, &from_global));
      XFFI_ASSIGN_OR_RETURN(
          global_index,
          single_source(call, from_global, "xla.sdy.GlobalToLocalShape"));
      global_to_local = &list[global_index];
      if (target(*global_to_local) != "xla.sdy.GlobalToLocalShape")
        return s_.ErrorAt(call.pos, "'" + call.instruction->name() +
                                        "' must take the results of an "
                                        "xla.sdy.GlobalToLocalShape");
      if (removed.count(global_index))
        return s_.ErrorAt(global_to_local->pos,
                          "'" + global_to_local->instruction->name() +
                              "' feeds two shard_maps");
    }

    auto attribute = [&](const ParsedInstruction& p,
                         const char* key) -> StatusOr<std::string> {
      auto it = p.frontend.find(key);
      if (it == p.frontend.end())
        return s_.ErrorAt(p.pos, "'" + p.instruction->name() +
                                     "' has no frontend attribute " + key);
      return it->second;
    };
    ManualComputationConfig config;
    std::string in_text = "#sdy.sharding_per_value<[]>";
    if (global_to_local != nullptr) {
      XFFI_ASSIGN_OR_RETURN(
          in_text, attribute(*global_to_local, "xla.sdy.in_shardings"));
    }
    XFFI_ASSIGN_OR_RETURN(std::string out_text,
                          attribute(local_to_global, "xla.sdy.out_shardings"));
    XFFI_ASSIGN_OR_RETURN(std::string axes_text,
                          attribute(local_to_global, "xla.sdy.manual_axes"));
    XFFI_ASSIGN_OR_RETURN(
        std::vector<text::SdyShardingRef> in_shardings,
        hlo::ParseShardingPerValue(in_text, where + " xla.sdy.in_shardings"));
    XFFI_ASSIGN_OR_RETURN(
        std::vector<text::SdyShardingRef> out_shardings,
        hlo::ParseShardingPerValue(out_text, where + " xla.sdy.out_shardings"));
    XFFI_ASSIGN_OR_RETURN(
        config.manual_axes,
        hlo::ParseManualAxes(axes_text, where + " xla.sdy.manual_axes"));
    const text::SdyShardingRef* culprit = nullptr;
    std::string mesh_problem = text::CommonMesh(
        in_shardings, out_shardings, meshes_, &config.mesh, &culprit);
    if (culprit != nullptr && !culprit->mesh &&
        !meshes_.count(culprit->mesh_name))
      mesh_problem += " in the module's xla.sdy.meshes";
    if (!mesh_problem.empty())
      return s_.ErrorAt(
          local_to_global.pos,
          "'" + local_to_global.instruction->name() + "': " + mesh_problem);
    config.in_shardings = text::Shardings(in_shardings);
    config.out_shardings = text::Shardings(out_shardings);

    // The manual computation takes LocalToGlobalShape's place (its name,
    // result and location) and the operands of GlobalToLocalShape.
    auto manual = std::make_unique<Instruction>(
        Opcode::kManualComputation, local_to_global.instruction->shape());
    manual->set_name(local_to_global.instruction->name());
    manual->set_location(local_to_global.instruction->location());
    manual->manual_computation = std::move(config);
    local_to_global.instruction = std::move(manual);
    local_to_global.operands.clear();
    if (global_to_local != nullptr) {
      local_to_global.operands = global_to_local->operands;
      removed.insert(global_index);
    }
    local_to_global.called_by_role["to_apply"] = body->second;
    removed.insert(call_index);
  }
  for (size_t i : removed)
    if (list[i].is_root)
      return s_.ErrorAt(list[i].pos, "'" + list[i].instruction->name() +
                                         "' of a shard_map is the ROOT");
  std::vector<ParsedInstruction> kept;
  for (size_t i = 0; i < list.size(); ++i)
    if (!removed.count(i)) kept.push_back(std::move(list[i]));
  list = std::move(kept);
  for (const ParsedInstruction& p : list) {
    std::string name = target(p);
    if (name == "xla.sdy.GlobalToLocalShape" ||
        name == "xla.sdy.LocalToGlobalShape")
      return s_.ErrorAt(p.pos, "'" + p.instruction->name() + "' (" + name +
                                   ") is not part of a shard_map xffi "
                                   "recognizes (GlobalToLocalShape, a call "
                                   "of the body, LocalToGlobalShape)");
  }
  return Status::Ok();
}

Status HloParser::Build(Module& module) {
  for (ParsedComputation& parsed : computations_)
    XFFI_RETURN_IF_ERROR(RewriteShardMaps(parsed));
  std::vector<std::unique_ptr<Computation>> owned;
  std::map<std::string, Computation*> by_name;
  Computation* entry = nullptr;
  for (ParsedComputation& parsed : computations_) {
    if (by_name.count(parsed.name))
      return s_.ErrorAt(parsed.pos,
                        "computation '" + parsed.name + "' is defined twice");
    owned.push_back(std::make_unique<Computation>(parsed.name));
    Computation* c = owned.back().get();
    by_name[parsed.name] = c;
    if (parsed.entry) {
      if (entry != nullptr)
        return s_.ErrorAt(parsed.pos,
                          "a second ENTRY computation '" + parsed.name + "'");
      entry = c;
    }
  }
  // Without an ENTRY mark the last computation is the entry, as in XLA.
  if (entry == nullptr) entry = owned.back().get();
  for (size_t i = 0; i < computations_.size(); ++i) {
    XFFI_RETURN_IF_ERROR(
        BuildComputation(computations_[i], *owned[i], by_name));
    if (owned[i].get() == entry)
      XFFI_RETURN_IF_ERROR(ReadResultShardings(computations_[i], *entry));
  }
  FusionsOutsideTheContractAsCalls(owned);

  // Computations may not call themselves, directly or not.
  std::map<const Computation*, int> state;  // 1: on the path, 2: done
  std::vector<std::pair<const Computation*, size_t>> stack;
  for (const auto& root : owned) {
    if (state[root.get()] != 0) continue;
    stack.push_back({root.get(), 0});
    state[root.get()] = 1;
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      std::vector<const Computation*> callees;
      for (const auto& in : c->instructions())
        for (const Computation* callee : in->called_computations())
          callees.push_back(callee);
      if (next == callees.size()) {
        state[c] = 2;
        stack.pop_back();
        continue;
      }
      const Computation* callee = callees[next++];
      if (state[callee] == 1) {
        TextPos at;
        for (const ParsedComputation& p : computations_)
          if (p.name == callee->name()) at = p.pos;
        return s_.ErrorAt(at,
                          "computation '" + callee->name() + "' calls itself");
      }
      if (state[callee] == 0) {
        state[callee] = 1;
        stack.push_back({callee, 0});
      }
    }
  }

  for (auto& c : owned) module.AddComputation(std::move(c));
  module.set_entry(entry);
  return Status::Ok();
}

Status HloParser::BuildComputation(
    ParsedComputation& parsed, Computation& computation,
    const std::map<std::string, Computation*>& by_name) {
  std::vector<ParsedInstruction>& list = parsed.instructions;
  if (list.empty())
    return s_.ErrorAt(parsed.pos,
                      "computation '" + parsed.name + "' has no instructions");
  std::unordered_map<std::string, size_t> index;
  ParsedInstruction* root = nullptr;
  std::set<int64_t> parameter_numbers;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string& name = list[i].instruction->name();
    if (!index.emplace(name, i).second)
      return s_.ErrorAt(list[i].pos, "instruction '" + name +
                                         "' is defined twice in '" +
                                         parsed.name + "'");
    if (list[i].is_root) {
      if (root != nullptr)
        return s_.ErrorAt(list[i].pos,
                          "a second ROOT in '" + parsed.name + "'");
      root = &list[i];
    }
    const Instruction& in = *list[i].instruction;
    if (in.opcode() == Opcode::kParameter &&
        !parameter_numbers.insert(in.parameter_number).second)
      return s_.ErrorAt(list[i].pos,
                        "parameter " + std::to_string(in.parameter_number) +
                            " is defined twice in '" + parsed.name + "'");
  }
  if (!parameter_numbers.empty() &&
      *parameter_numbers.rbegin() !=
          static_cast<int64_t>(parameter_numbers.size()) - 1)
    return s_.ErrorAt(parsed.pos,
                      "the parameters of '" + parsed.name +
                          "' are not numbered 0 to " +
                          std::to_string(parameter_numbers.size() - 1));
  if (root == nullptr) root = &list.back();

  // Operands resolved to indices; then a depth-first order (iterative, so a
  // long chain cannot overflow the stack) that keeps the text's order where
  // it already puts operands first.
  std::vector<std::vector<size_t>> operand_index(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    for (const Ref& ref : list[i].operands) {
      auto it = index.find(ref.name);
      if (it == index.end())
        return s_.ErrorAt(ref.pos, "unknown operand '" + ref.name + "' of '" +
                                       list[i].instruction->name() + "'");
      operand_index[i].push_back(it->second);
    }
  }
  std::vector<int> state(list.size(), 0);  // 1: on the path, 2: placed
  std::vector<size_t> order;
  order.reserve(list.size());
  for (size_t start = 0; start < list.size(); ++start) {
    if (state[start] != 0) continue;
    std::vector<std::pair<size_t, size_t>> stack{{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      if (next == operand_index[i].size()) {
        state[i] = 2;
        order.push_back(i);
        stack.pop_back();
        continue;
      }
      size_t operand = operand_index[i][next++];
      if (state[operand] == 1)
        return s_.ErrorAt(list[i].pos, "'" + list[i].instruction->name() +
                                           "' depends on itself through '" +
                                           list[operand].instruction->name() +
                                           "'");
      if (state[operand] == 0) {
        state[operand] = 1;
        stack.push_back({operand, 0});
      }
    }
  }

  std::vector<Instruction*> built(list.size(), nullptr);
  for (size_t i : order) {
    ParsedInstruction& p = list[i];
    if (p.fusion_as_call) p.instruction = CallOf(*p.instruction);
    for (size_t operand : operand_index[i])
      p.instruction->AppendOperand(built[operand]);
    auto find = [&](const Ref& ref) -> StatusOr<Computation*> {
      auto it = by_name.find(ref.name);
      if (it == by_name.end())
        return s_.ErrorAt(ref.pos, "unknown computation '" + ref.name + "'");
      return it->second;
    };
    std::vector<const Ref*> refs;
    auto role = [&](const char* r) {
      auto it = p.called_by_role.find(r);
      if (it != p.called_by_role.end()) refs.push_back(&it->second);
    };
    role("to_apply");
    role("calls");
    role("condition");
    role("body");
    role("true_computation");
    role("false_computation");
    role("select");
    role("scatter");
    for (const Ref& ref : p.called_list) refs.push_back(&ref);
    for (const Ref* ref : refs) {
      StatusOr<Computation*> c = find(*ref);
      if (!c.ok()) return c.status();
      p.instruction->AppendCalledComputation(*c);
    }
    if (p.is_bitcast) XFFI_RETURN_IF_ERROR(ResolveBitcast(p));
    built[i] = computation.AddInstruction(std::move(p.instruction));
  }
  computation.set_root(built[static_cast<size_t>(root - list.data())]);
  return Status::Ok();
}

// The entry's ROOT sharding is where the program's results live (jax.jit's
// out_shardings): a tuple sharding has one element per leaf of the ROOT's
// shape, one sharding on a tuple-shaped ROOT holds for every leaf.
Status HloParser::ReadResultShardings(const ParsedComputation& parsed,
                                      Computation& entry) {
  const ParsedInstruction* root = &parsed.instructions.back();
  for (const ParsedInstruction& p : parsed.instructions)
    if (p.is_root) root = &p;
  if (root->sharding.empty()) return Status::Ok();
  const std::string where = s_.Where(root->sharding_pos) + ": sharding";
  XFFI_ASSIGN_OR_RETURN(hlo::ShardingList list,
                        hlo::ParseHloShardingList(root->sharding, where));
  const Shape& shape = entry.root()->shape();
  std::vector<std::optional<HloSharding>> results;
  if (!shape.IsTuple()) {
    if (list.tuple)
      return s_.ErrorAt(root->sharding_pos, "a tuple sharding on the ROOT '" +
                                                entry.root()->name() +
                                                "', which is no tuple");
    results = list.elements;
  } else if (!list.tuple) {
    results.assign(static_cast<size_t>(shape.tuple_size()), list.elements[0]);
  } else {
    const size_t leaves = shape.Leaves().size();
    if (list.elements.size() != leaves)
      return s_.ErrorAt(root->sharding_pos,
                        "the ROOT's tuple sharding has " +
                            std::to_string(list.elements.size()) +
                            " element(s), its shape " + std::to_string(leaves) +
                            " leaves");
    // A nested tuple result has no one sharding xffi keeps.
    size_t leaf = 0;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const Shape& element = shape.tuple_shape(i);
      const size_t count = element.IsTuple() ? element.Leaves().size() : 1;
      results.push_back(element.IsTuple() ? std::nullopt : list.elements[leaf]);
      leaf += count;
    }
  }
  bool any = false;
  for (const auto& r : results) any = any || r.has_value();
  if (any) entry.set_result_shardings(std::move(results));
  return Status::Ok();
}

Status HloParser::ResolveBitcast(ParsedInstruction& parsed) {
  Instruction& in = *parsed.instruction;
  auto fail = [&](const std::string& why) {
    return s_.ErrorAt(parsed.pos,
                      "bitcast '" + in.name() + "' " + why +
                          " is not supported (only a reshape or a bitcast-"
                          "convert in the default layout)");
  };
  if (in.operand_count() != 1) return fail("with other than one operand");
  const Shape& from = in.operand(0)->shape();
  const Shape& to = in.shape();
  if (!from.IsArray() || !to.IsArray()) return fail("of a non-array");
  if (!from.HasDefaultLayout() || !to.HasDefaultLayout())
    return fail("that changes the layout");
  if (from.element_type() == to.element_type()) {
    if (from.num_elements() != to.num_elements())
      return fail("that changes the element count");
    return Status::Ok();  // stays a reshape
  }
  if (from.dims() != to.dims() || ElementBitWidth(from.element_type()) !=
                                      ElementBitWidth(to.element_type()))
    return fail("that changes element type and dimensions");
  auto convert = std::make_unique<Instruction>(Opcode::kBitcastConvert, to);
  convert->set_name(in.name());
  convert->set_location(in.location());
  convert->AppendOperand(in.operand(0));
  parsed.instruction = std::move(convert);
  return Status::Ok();
}

}  // namespace

StatusOr<Module> ParseHlo(std::string_view text, std::string_view source_name) {
  HloParser parser(text, source_name);
  return parser.Parse();
}

}  // namespace xffi
