// The StableHLO reader: MLIR text as `jax.jit(f).lower(...).as_text()`
// prints it, in the pretty and the generic op forms, into the IR of ir.h.
//
// The parser walks the text once. Each function becomes a computation; each
// region (reduce bodies, comparators, loop condition and body, branches)
// becomes a computation of its own. A value a region uses from an enclosing
// scope (MLIR's implicit capture) is made explicit:
//   - while: appended to the loop-carried tuple, passed through unchanged by
//     the body and dropped from the op's results;
//   - case/if: gathered into the branch's single tuple parameter, with the
//     tuple built before the op as that branch's operand;
//   - reduce, reduce_window, sort, scatter: constants are cloned into the
//     region; anything else is an error (HLO gives those regions no extra
//     parameters).
// func.call becomes a kCall of the callee's computation (not inlined), so a
// function called twice exists once.
//
// An op with one result gets that shape; an op with several results (and
// every while loop, whose state is always a tuple) gets a tuple shape, and
// each use of `%x#i` reads element i through a get-tuple-element built in
// the computation where it is used. Called computations: while
// {condition, body}; conditional: the branches in order (`stablehlo.if`:
// {true, false}). Every op records its line:column and its loc() name.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "text/mlir_attribute.h"
#include "text/sdy_sharding.h"
#include "text/spmd_emulation.h"
#include "xffi/program/text.h"

namespace xffi {
namespace text {
namespace {

#define SHLO_CONCAT_INNER(a, b) a##b
#define SHLO_CONCAT(a, b) SHLO_CONCAT_INNER(a, b)
#define RETURN_IF_ERROR(expr)                       \
  do {                                              \
    Status SHLO_CONCAT(status_, __LINE__) = (expr); \
    if (!SHLO_CONCAT(status_, __LINE__).ok())       \
      return SHLO_CONCAT(status_, __LINE__);        \
  } while (0)
#define ASSIGN_OR_RETURN(lhs, expr)                 \
  auto SHLO_CONCAT(result_, __LINE__) = (expr);     \
  if (!SHLO_CONCAT(result_, __LINE__).ok())         \
    return SHLO_CONCAT(result_, __LINE__).status(); \
  lhs = std::move(*SHLO_CONCAT(result_, __LINE__))

constexpr int kMaxNesting = 64;
constexpr int64_t kMaxResults = 1 << 16;

struct Definition {
  Instruction* inst = nullptr;
  int64_t count = 1;   // results this name stands for
  bool tuple = false;  // results are elements of inst's tuple
  int64_t offset = 0;  // element of the first result
};

enum class RegionKind { kFunction, kScalarArgs, kLoopState, kBranch };

struct Scope {
  Scope* parent = nullptr;
  Computation* computation = nullptr;
  RegionKind kind = RegionKind::kFunction;
  std::string owner;  // "stablehlo.reduce at 4:7", for messages
  std::unordered_map<std::string, Definition> defs;
  std::map<std::pair<Instruction*, int64_t>, Instruction*> elements;
  std::unordered_map<Instruction*, Instruction*> captured;  // outer -> local
  // kLoopState, kBranch: the tuple parameter, how many of its elements the
  // text declares, and the outer values carried after them.
  Instruction* state = nullptr;
  int64_t declared = 0;
  std::vector<Instruction*>* captures = nullptr;
};

struct BlockArg {
  std::string name;
  MlirType type;
  SourcePos pos;
  int64_t parameter = -1;  // -1: its position
};

struct Region {
  Computation* computation = nullptr;
  std::unique_ptr<Scope> scope;
  std::vector<Instruction*> returns;
  SourcePos return_pos;
  std::vector<BlockArg> args;
};

struct TypeSpec {
  bool functional = false;
  std::vector<MlirType> inputs, outputs;  // functional
  std::vector<MlirType> list;             // `: T` or `: T, U`
  SourcePos pos;
};

struct OpSpec {
  std::string name;
  SourcePos pos;
  std::vector<Instruction*> operands;
  std::map<std::string, MlirAttr> attrs;
  std::vector<Region> regions;
  std::vector<std::vector<Instruction*>> region_captures;
  TypeSpec types;
};

struct Outcome {
  Instruction* inst = nullptr;
  int64_t count = 1;
  bool tuple = false;
  bool is_return = false;
  std::vector<Instruction*> returns;
};

struct LocNode {
  enum class Kind { kUnknown, kAlias, kName, kFile, kCallSite, kFused };
  Kind kind = Kind::kUnknown;
  std::string text;  // alias name, loc name or file name
  int line = 0, column = 0;
  std::vector<LocNode> children;
};

struct FuncInfo {
  Computation* computation = nullptr;
  bool defined = false;
  SourcePos first_use;
  int64_t num_parameters = 0;
  std::vector<Shape> results;
};

struct PendingCall {
  Instruction* inst;
  std::string callee;
  SourcePos pos;
  std::vector<Shape> result_shapes;
};

bool IsReturnOp(std::string_view name) {
  return name == "return" || name == "func.return" ||
         name == "stablehlo.return" || name == "sdy.return";
}

// Ops with no IR opcode that only mean something across the devices of an
// sdy.manual_computation; they stay placeholders until spmd_emulation.h.
std::optional<SpmdOpKind> SpmdOpKindFromName(std::string_view name) {
  if (name == "stablehlo.all_reduce") return SpmdOpKind::kAllReduce;
  if (name == "stablehlo.all_gather") return SpmdOpKind::kAllGather;
  if (name == "stablehlo.reduce_scatter") return SpmdOpKind::kReduceScatter;
  if (name == "stablehlo.all_to_all") return SpmdOpKind::kAllToAll;
  if (name == "stablehlo.collective_permute")
    return SpmdOpKind::kCollectivePermute;
  if (name == "stablehlo.partition_id") return SpmdOpKind::kPartitionId;
  if (name == "stablehlo.replica_id") return SpmdOpKind::kReplicaId;
  return std::nullopt;
}

// Sharding annotations: the value passes through unchanged.
bool IsShardingAnnotation(std::string_view name) {
  return name == "sdy.sharding_constraint" || name == "sdy.reshard";
}

std::string PosString(SourcePos pos) {
  return std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

std::string TypeString(const Shape& shape) {
  if (shape.IsToken()) return "!stablehlo.token";
  if (shape.IsTuple()) {
    std::string out = "tuple<";
    for (int64_t i = 0; i < shape.tuple_size(); ++i)
      out += (i ? ", " : "") + TypeString(shape.tuple_shape(i));
    return out + ">";
  }
  std::string out = "tensor<";
  for (int64_t d : shape.dims()) out += std::to_string(d) + "x";
  return out + MlirElementTypeName(shape.element_type()) + ">";
}

std::vector<Shape> Shapes(const std::vector<MlirType>& types) {
  std::vector<Shape> out;
  for (const MlirType& t : types) out.push_back(t.shape);
  return out;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view source_name)
      : lex_(text, source_name), attrs_(lex_), source_(source_name) {}

  StatusOr<Module> Run();

 private:
  // --- module structure
  Status ParseModule();
  Status ParseGenericModule();
  Status ParseModuleItems();  // until '}'
  Status ParseFunction();
  Status ParseGenericFunction();
  Status ParseFunctionBody(FuncInfo* info, const std::string& name,
                           std::vector<BlockArg> args,
                           const std::vector<Shape>& results, SourcePos pos);
  FuncInfo* GetFunction(const std::string& name, SourcePos pos);
  Status ParseLocAliasDefinition();
  StatusOr<LocNode> ParseLoc();
  StatusOr<LocNode> ParseLocInner(int depth);
  std::string LocName(const LocNode& node, int depth) const;
  Status SkipOptionalLoc();

  // --- bodies
  Status ParseBlock(Scope* scope, Region* region);
  Status ParseOperation(Scope* scope, Region* region, bool* was_return);
  StatusOr<Outcome> ParsePrettyOp(Scope* scope, const std::string& name,
                                  SourcePos pos);
  StatusOr<Outcome> ParseGenericOp(Scope* scope, const std::string& name,
                                   SourcePos pos);
  StatusOr<Outcome> ParsePrettyCommon(Scope* scope, OpSpec spec);
  StatusOr<Outcome> ParsePrettyReduce(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParsePrettyWhile(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParseCall(Scope* scope, SourcePos pos);
  Status ParseSdyMeshDefinition();
  StatusOr<Outcome> ParseManualComputation(Scope* scope, SourcePos pos);
  StatusOr<Outcome> ParseShardingAnnotation(Scope* scope);
  StatusOr<Outcome> BuildSpmdOp(Scope* scope, OpSpec& spec, SpmdOpKind kind);
  StatusOr<Outcome> ParseReturn(Scope* scope, bool generic);
  Status ParseTypeSpec(TypeSpec* spec);
  Status ParseOperandList(Scope* scope, std::vector<Instruction*>* operands,
                          TokenKind close);
  Status ParseBlockArgs(std::vector<BlockArg>* args);
  Status ParseTypedArgs(std::vector<BlockArg>* args, const std::string& what);
  StatusOr<Region> ParseRegion(Scope* parent, RegionKind kind,
                               const std::string& owner,
                               const std::string& name,
                               std::vector<BlockArg> args,
                               std::vector<Instruction*>* captures);

  // --- values
  StatusOr<Instruction*> Use(Scope* scope, const Token& token);
  StatusOr<Instruction*> Resolve(Scope* scope, const std::string& base,
                                 int64_t index, bool explicit_index,
                                 SourcePos pos);
  StatusOr<Instruction*> Capture(Scope* scope, Instruction* outer,
                                 const std::string& name, SourcePos pos);
  Instruction* Element(Scope* scope, Instruction* tuple, int64_t index);
  Instruction* Add(Computation* computation, Opcode opcode, Shape shape,
                   std::vector<Instruction*> operands = {});
  Instruction* AddParameter(Computation* computation, int64_t number,
                            Shape shape, const std::string& name);
  Computation* NewComputation(const std::string& base);
  std::string ComputationName(const std::string& base);  // unique
  std::string InstructionName(Opcode opcode);            // "add.12"
  // The placeholder of a manual computation or collective, which
  // spmd_emulation.h replaces.
  Outcome AddSpmdPlaceholder(Scope* scope, const std::vector<Shape>& results,
                             const std::vector<Instruction*>& operands,
                             const std::string& target, SpmdOp op);
  Status Define(Scope* scope,
                const std::vector<std::pair<std::string, int64_t>>& names,
                const Outcome& outcome, SourcePos pos);

  // --- building ops
  StatusOr<Outcome> Build(Scope* scope, OpSpec& spec);
  StatusOr<std::vector<Shape>> ResultShapes(const OpSpec& spec, Opcode opcode);
  // A functional type's inputs against the operands.
  Status CheckOperandTypes(const OpSpec& spec);
  StatusOr<Outcome> BuildCustomCall(Scope* scope, OpSpec& spec,
                                    const std::vector<Shape>& results);
  StatusOr<Outcome> BuildDecomposedChlo(Scope* scope, OpSpec& spec);
  StatusOr<Outcome> BuildWhile(Scope* scope, OpSpec& spec,
                               std::vector<Instruction*>& captures);
  StatusOr<Outcome> BuildConditional(Scope* scope, OpSpec& spec,
                                     const std::vector<Shape>& results);
  Status SetRegionRoot(Region& region, const OpSpec& spec);
  Computation* ApplyComputation(Opcode opcode, const Shape& scalar,
                                SourcePos pos);
  const MlirAttr* Attr(const OpSpec& spec, std::string_view name) const;
  StatusOr<std::vector<int64_t>> Ints(const OpSpec& spec, std::string_view name,
                                      bool required);
  Status CheckDotAlgorithm(const OpSpec& spec, const MlirAttr& algorithm,
                           const std::vector<Instruction*>& operands) const;
  Status OpError(const OpSpec& spec, std::string_view message) const {
    return lex_.ErrorAt(spec.pos, spec.name + ": " + std::string(message));
  }

  MlirLexer lex_;
  MlirAttributeParser attrs_;
  std::string source_;
  std::string module_name_ = "module";
  bool have_module_ = false;
  int depth_ = 0;
  std::vector<std::unique_ptr<Computation>> computations_;
  std::map<std::string, FuncInfo> functions_;
  std::map<std::string, LocNode> loc_aliases_;
  std::vector<std::pair<Instruction*, LocNode>> pending_locs_;
  std::vector<PendingCall> pending_calls_;
  std::map<std::string, SdyMesh> meshes_;
  SpmdOps spmd_ops_;
  int64_t num_partitions_ = 0;  // 0: not given
  std::set<std::string> used_names_;
  int64_t next_id_ = 0;
};

// --- Helpers -----------------------------------------------------------------

std::string Parser::ComputationName(const std::string& base) {
  std::string name = base;
  while (used_names_.count(name))
    name = base + "." + std::to_string(next_id_++);
  used_names_.insert(name);
  return name;
}

std::string Parser::InstructionName(Opcode opcode) {
  return std::string(OpcodeName(opcode)) + "." + std::to_string(next_id_++);
}

Computation* Parser::NewComputation(const std::string& base) {
  computations_.push_back(std::make_unique<Computation>(ComputationName(base)));
  return computations_.back().get();
}

Instruction* Parser::Add(Computation* computation, Opcode opcode, Shape shape,
                         std::vector<Instruction*> operands) {
  Instruction* inst = computation->AddInstruction(
      opcode, std::move(shape), std::move(operands), InstructionName(opcode));
  // Where the parser is; the op's own position replaces it for the
  // instructions an op produces, and block arguments take theirs. Every
  // instruction has a position, so a printed program keeps all of them.
  SourcePos pos = lex_.peek().pos;
  inst->set_location(Location{source_, pos.line, pos.column, ""});
  return inst;
}

Instruction* Parser::AddParameter(Computation* computation, int64_t number,
                                  Shape shape, const std::string& name) {
  Instruction* p = Add(computation, Opcode::kParameter, std::move(shape));
  p->parameter_number = number;
  if (!name.empty()) p->set_name(name + "." + std::to_string(next_id_++));
  return p;
}

Instruction* Parser::Element(Scope* scope, Instruction* tuple, int64_t index) {
  auto key = std::make_pair(tuple, index);
  auto it = scope->elements.find(key);
  if (it != scope->elements.end()) return it->second;
  Instruction* gte = Add(scope->computation, Opcode::kGetTupleElement,
                         tuple->shape().tuple_shape(index), {tuple});
  gte->tuple_index = index;
  scope->elements[key] = gte;
  return gte;
}

FuncInfo* Parser::GetFunction(const std::string& name, SourcePos pos) {
  auto [it, inserted] = functions_.try_emplace(name);
  if (inserted) {
    it->second.first_use = pos;
    it->second.computation = NewComputation(name);
  }
  return &it->second;
}

const MlirAttr* Parser::Attr(const OpSpec& spec, std::string_view name) const {
  auto it = spec.attrs.find(std::string(name));
  return it == spec.attrs.end() ? nullptr : &it->second;
}

// A dot algorithm names the precision of the operands and of the
// accumulation (JAX emits one for bf16 attention: bf16 x bf16 accumulated
// in f32). xffi's dot multiplies the operands in their own types and
// accumulates half types in f32 and others in the result type, so an
// algorithm that computes in the operands' own types, one primitive
// product each, is exactly what it does; anything that rounds the operands
// to another type or splits them (bf16_bf16_f32_x3, tf32, ...) is not.
Status Parser::CheckDotAlgorithm(
    const OpSpec& spec, const MlirAttr& algorithm,
    const std::vector<Instruction*>& operands) const {
  if (algorithm.kind != MlirAttr::Kind::kDialect)
    return lex_.ErrorAt(algorithm.pos,
                        "expected #stablehlo.dot_algorithm<...>");
  const char* sides[] = {"lhs", "rhs"};
  for (size_t i = 0; i < 2 && i < operands.size(); ++i) {
    std::string key = std::string(sides[i]) + "_precision_type";
    const MlirAttr* type = algorithm.Find(key);
    if (type == nullptr) continue;
    ElementType operand = operands[i]->shape().element_type();
    if (type->kind != MlirAttr::Kind::kType ||
        type->type.shape.element_type() != operand)
      return OpError(spec, "dot algorithm with " + key + " other than the " +
                               sides[i] + " operand's " +
                               MlirElementTypeName(operand) +
                               " is not supported (xffi multiplies in the "
                               "operands' own types)");
  }
  for (const char* key : {"lhs_component_count", "rhs_component_count",
                          "num_primitive_operations"}) {
    const MlirAttr* count = algorithm.Find(key);
    if (count != nullptr && (count->kind != MlirAttr::Kind::kInteger ||
                             count->negative || count->magnitude != 1))
      return OpError(spec, std::string("dot algorithm with ") + key +
                               " other than 1 is not supported");
  }
  return Status::Ok();
}

StatusOr<std::vector<int64_t>> Parser::Ints(const OpSpec& spec,
                                            std::string_view name,
                                            bool required) {
  const MlirAttr* attr = Attr(spec, name);
  if (attr == nullptr) {
    if (required)
      return OpError(spec, "missing attribute '" + std::string(name) + "'");
    return std::vector<int64_t>();
  }
  return AttrToIntegers(*attr, lex_, name);
}

// --- Values ------------------------------------------------------------------

StatusOr<Instruction*> Parser::Use(Scope* scope, const Token& token) {
  if (token.kind != TokenKind::kPercentId)
    return lex_.ErrorAt(token.pos,
                        "expected a value, got " + MlirLexer::Describe(token));
  std::string base = token.value;
  int64_t index = 0;
  bool explicit_index = false;
  size_t hash = base.find('#');
  if (hash != std::string::npos) {
    explicit_index = true;
    std::string digits = base.substr(hash + 1);
    if (digits.size() > 9)
      return lex_.ErrorAt(
          token.pos,
          "result number of " + MlirLexer::Describe(token) + " is too large");
    index = std::stoll(digits);
    base.resize(hash);
  }
  return Resolve(scope, base, index, explicit_index, token.pos);
}

StatusOr<Instruction*> Parser::Resolve(Scope* scope, const std::string& base,
                                       int64_t index, bool explicit_index,
                                       SourcePos pos) {
  auto it = scope->defs.find(base);
  if (it != scope->defs.end()) {
    const Definition& def = it->second;
    if (index >= def.count)
      return lex_.ErrorAt(pos, "%" + base + " has " +
                                   std::to_string(def.count) + " result(s); #" +
                                   std::to_string(index) + " does not exist");
    if (!def.tuple) return def.inst;
    (void)explicit_index;
    return Element(scope, def.inst, def.offset + index);
  }
  if (scope->parent == nullptr)
    return lex_.ErrorAt(pos, "use of undefined value %" + base);
  ASSIGN_OR_RETURN(Instruction * outer,
                   Resolve(scope->parent, base, index, explicit_index, pos));
  std::string name = "%" + base;
  if (explicit_index) name += "#" + std::to_string(index);
  return Capture(scope, outer, name, pos);
}

StatusOr<Instruction*> Parser::Capture(Scope* scope, Instruction* outer,
                                       const std::string& name, SourcePos pos) {
  auto it = scope->captured.find(outer);
  if (it != scope->captured.end()) return it->second;
  Instruction* local = nullptr;
  switch (scope->kind) {
    case RegionKind::kFunction:
      return lex_.ErrorAt(pos, "use of undefined value " + name);
    case RegionKind::kScalarArgs:
      if (outer->opcode() != Opcode::kConstant)
        return lex_.ErrorAt(
            pos, "the region of " + scope->owner + " uses " + name +
                     " from the enclosing scope; only constants can be "
                     "captured there");
      local = Add(scope->computation, Opcode::kConstant, outer->shape());
      local->literal = outer->literal;
      break;
    case RegionKind::kLoopState:
    case RegionKind::kBranch: {
      std::vector<Instruction*>& captures = *scope->captures;
      int64_t k = 0;
      while (k < static_cast<int64_t>(captures.size()) &&
             captures[static_cast<size_t>(k)] != outer)
        ++k;
      if (k == static_cast<int64_t>(captures.size())) captures.push_back(outer);
      local = Add(scope->computation, Opcode::kGetTupleElement, outer->shape(),
                  {scope->state});
      local->tuple_index = scope->declared + k;
      break;
    }
  }
  scope->captured[outer] = local;
  return local;
}

Status Parser::Define(Scope* scope,
                      const std::vector<std::pair<std::string, int64_t>>& names,
                      const Outcome& outcome, SourcePos pos) {
  int64_t total = 0;
  for (const auto& [name, count] : names) total += count;
  if (!names.empty() && total != outcome.count)
    return lex_.ErrorAt(pos, "the op has " + std::to_string(outcome.count) +
                                 " result(s), the text names " +
                                 std::to_string(total));
  if (names.size() > 1 && !outcome.tuple)
    return lex_.ErrorAt(pos, "several result names for a single result");
  int64_t offset = 0;
  for (const auto& [name, count] : names) {
    if (scope->defs.count(name))
      return lex_.ErrorAt(pos, "redefinition of %" + name);
    Definition def;
    def.inst = outcome.inst;
    def.count = count;
    def.tuple = outcome.tuple;
    def.offset = offset;
    offset += count;
    scope->defs[name] = def;
  }
  return Status::Ok();
}

// --- Locations ---------------------------------------------------------------

StatusOr<LocNode> Parser::ParseLoc() {
  RETURN_IF_ERROR(attrs_.ExpectKeyword("loc"));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' after 'loc'"));
  ASSIGN_OR_RETURN(LocNode node, ParseLocInner(0));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')' to close loc(...)"));
  return node;
}

StatusOr<LocNode> Parser::ParseLocInner(int depth) {
  if (depth > kMaxNesting)
    return lex_.Expected("a less deeply nested location");
  LocNode node;
  if (lex_.At(TokenKind::kHashId)) {
    node.kind = LocNode::Kind::kAlias;
    node.text = lex_.Next().value;
    return node;
  }
  if (lex_.AtKeyword("unknown")) {
    lex_.Next();
    return node;
  }
  if (lex_.AtKeyword("callsite")) {
    lex_.Next();
    node.kind = LocNode::Kind::kCallSite;
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' after 'callsite'"));
    ASSIGN_OR_RETURN(LocNode callee, ParseLocInner(depth + 1));
    RETURN_IF_ERROR(attrs_.ExpectKeyword("at"));
    ASSIGN_OR_RETURN(LocNode caller, ParseLocInner(depth + 1));
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kRParen, "')' to close callsite(...)"));
    node.children.push_back(std::move(callee));
    node.children.push_back(std::move(caller));
    return node;
  }
  if (lex_.AtKeyword("fused")) {
    lex_.Next();
    node.kind = LocNode::Kind::kFused;
    if (attrs_.Consume(TokenKind::kLess)) {
      ASSIGN_OR_RETURN(MlirAttr metadata, attrs_.ParseAttribute());
      (void)metadata;
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kGreater, "'>' after fused metadata"));
    }
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLSquare, "'[' after 'fused'"));
    if (!attrs_.Consume(TokenKind::kRSquare)) {
      while (true) {
        ASSIGN_OR_RETURN(LocNode child, ParseLocInner(depth + 1));
        node.children.push_back(std::move(child));
        if (attrs_.Consume(TokenKind::kComma)) continue;
        RETURN_IF_ERROR(
            attrs_.Expect(TokenKind::kRSquare, "',' or ']' in fused[...]"));
        break;
      }
    }
    return node;
  }
  if (!lex_.At(TokenKind::kString)) return lex_.Expected("a location");
  node.text = lex_.Next().value;
  if (attrs_.Consume(TokenKind::kColon)) {
    node.kind = LocNode::Kind::kFile;
    auto read_int = [&](int* out) -> Status {
      if (!lex_.At(TokenKind::kInteger))
        return lex_.Expected("a line or column number");
      std::string digits = lex_.Next().value;
      *out = digits.size() > 9 ? 0 : std::atoi(digits.c_str());
      return Status::Ok();
    };
    RETURN_IF_ERROR(read_int(&node.line));
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a column"));
    RETURN_IF_ERROR(read_int(&node.column));
    if (lex_.AtKeyword("to")) {
      lex_.Next();
      int ignored = 0;
      if (lex_.At(TokenKind::kInteger)) RETURN_IF_ERROR(read_int(&ignored));
      RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a column"));
      RETURN_IF_ERROR(read_int(&ignored));
    }
    return node;
  }
  node.kind = LocNode::Kind::kName;
  if (attrs_.Consume(TokenKind::kLParen)) {
    ASSIGN_OR_RETURN(LocNode child, ParseLocInner(depth + 1));
    node.children.push_back(std::move(child));
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kRParen, "')' after the location"));
  }
  return node;
}

std::string Parser::LocName(const LocNode& node, int depth) const {
  if (depth > kMaxNesting) return "";
  switch (node.kind) {
    case LocNode::Kind::kName:
      return node.text;
    case LocNode::Kind::kAlias: {
      auto it = loc_aliases_.find(node.text);
      return it == loc_aliases_.end() ? "" : LocName(it->second, depth + 1);
    }
    case LocNode::Kind::kCallSite:
      return LocName(node.children[0], depth + 1);
    case LocNode::Kind::kFused:
      for (const LocNode& child : node.children) {
        std::string name = LocName(child, depth + 1);
        if (!name.empty()) return name;
      }
      return "";
    default:
      return "";
  }
}

Status Parser::ParseLocAliasDefinition() {
  Token alias = lex_.Next();
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual,
                                "'=' after " + MlirLexer::Describe(alias)));
  if (!lex_.AtKeyword("loc"))
    return lex_.ErrorAt(alias.pos,
                        "only location aliases (#name = loc(...)) "
                        "are supported at the top level");
  ASSIGN_OR_RETURN(LocNode node, ParseLoc());
  loc_aliases_[alias.value] = std::move(node);
  return Status::Ok();
}

Status Parser::SkipOptionalLoc() {
  if (!lex_.AtKeyword("loc")) return Status::Ok();
  ASSIGN_OR_RETURN(LocNode node, ParseLoc());
  (void)node;
  return Status::Ok();
}

// --- Module structure --------------------------------------------------------

StatusOr<Module> Parser::Run() {
  while (!lex_.At(TokenKind::kEof)) {
    if (lex_.At(TokenKind::kHashId)) {
      RETURN_IF_ERROR(ParseLocAliasDefinition());
    } else if (lex_.AtKeyword("module")) {
      if (have_module_) return lex_.Expected("a single module");
      RETURN_IF_ERROR(ParseModule());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "builtin.module") {
      if (have_module_) return lex_.Expected("a single module");
      RETURN_IF_ERROR(ParseGenericModule());
    } else if (lex_.AtKeyword("func.func")) {
      RETURN_IF_ERROR(ParseFunction());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "func.func") {
      RETURN_IF_ERROR(ParseGenericFunction());
    } else {
      return lex_.Expected("'module' or 'func.func'");
    }
  }
  // Every function called must exist, with a matching signature.
  for (const PendingCall& call : pending_calls_) {
    const FuncInfo& info = functions_[call.callee];
    if (!info.defined)
      return lex_.ErrorAt(call.pos,
                          "call to undefined function @" + call.callee);
    if (info.num_parameters != call.inst->operand_count() ||
        info.results.size() != call.result_shapes.size())
      return lex_.ErrorAt(call.pos, "call to @" + call.callee +
                                        " does not match its signature");
    for (size_t i = 0; i < info.results.size(); ++i)
      if (!info.results[i].Compatible(call.result_shapes[i]))
        return lex_.ErrorAt(call.pos, "call to @" + call.callee + ": result " +
                                          std::to_string(i) + " is " +
                                          TypeString(info.results[i]) +
                                          ", the call says " +
                                          TypeString(call.result_shapes[i]));
  }
  for (const auto& [name, info] : functions_)
    if (!info.defined)
      return lex_.ErrorAt(info.first_use,
                          "function @" + name + " is never defined");
  auto main = functions_.find("main");
  if (main == functions_.end())
    return lex_.ErrorAt(lex_.peek().pos, "the program has no @main function");
  for (auto& [inst, node] : pending_locs_) {
    Location location = inst->location();
    location.name = LocName(node, 0);
    inst->set_location(std::move(location));
  }

  Computation* entry = main->second.computation;
  ASSIGN_OR_RETURN(
      bool rewritten,
      EmulateManualComputations(
          &computations_, &entry, spmd_ops_,
          SpmdNaming{[this](Opcode opcode) { return InstructionName(opcode); },
                     [this](const std::string& base) {
                       return ComputationName(base);
                     }},
          num_partitions_));
  (void)rewritten;  // placement below orders whatever is there

  // Callees before callers, the entry last.
  Module module(module_name_);
  std::set<Computation*> placed;
  std::unordered_map<Computation*, std::unique_ptr<Computation>*> owner;
  for (auto& c : computations_) owner[c.get()] = &c;
  std::vector<std::pair<Computation*, size_t>> stack;
  auto place = [&](Computation* root) {
    if (placed.count(root)) return;
    stack.push_back({root, 0});
    placed.insert(root);
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      std::vector<Computation*> callees;
      for (const auto& inst : c->instructions())
        for (Computation* callee : inst->called_computations())
          callees.push_back(callee);
      if (next < callees.size()) {
        Computation* callee = callees[next++];
        if (!placed.count(callee)) {
          placed.insert(callee);
          stack.push_back({callee, 0});
        }
        continue;
      }
      Computation* done = c;
      stack.pop_back();
      module.AddComputation(std::move(*owner[done]));
    }
  };
  for (auto& c : computations_)
    if (c && c.get() != entry) place(c.get());
  place(entry);
  module.set_entry(entry);
  return module;
}

Status Parser::ParseModule() {
  have_module_ = true;
  lex_.Next();  // module
  if (lex_.At(TokenKind::kAtId)) module_name_ = lex_.Next().value;
  if (lex_.AtKeyword("attributes")) {
    lex_.Next();
    ASSIGN_OR_RETURN(MlirAttr attributes, attrs_.ParseDictionary());
    // How many devices the program was compiled for: what a shard_map
    // whose shardings are all replicated runs on.
    if (const MlirAttr* n = attributes.Find("mhlo.num_partitions")) {
      ASSIGN_OR_RETURN(num_partitions_,
                       AttrToInteger(*n, lex_, "mhlo.num_partitions"));
      if (num_partitions_ < 0 || num_partitions_ > (1 << 16))
        return lex_.ErrorAt(n->pos, "mhlo.num_partitions is out of range");
    }
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLBrace, "'{' to open the module"));
  RETURN_IF_ERROR(ParseModuleItems());
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRBrace, "'}' to close the module"));
  return SkipOptionalLoc();
}

Status Parser::ParseGenericModule() {
  have_module_ = true;
  lex_.Next();  // "builtin.module"
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'('"));
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRParen, "')' (a module has no operands)"));
  if (attrs_.Consume(TokenKind::kLess)) {
    ASSIGN_OR_RETURN(MlirAttr props, attrs_.ParseDictionary());
    if (const MlirAttr* name = props.Find("sym_name");
        name && name->kind == MlirAttr::Kind::kString)
      module_name_ = name->str;
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kGreater, "'>' after the properties"));
  }
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the module's region"));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLBrace, "'{'"));
  RETURN_IF_ERROR(ParseModuleItems());
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRBrace, "'}'"));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the module's type"));
  TypeSpec spec;
  RETURN_IF_ERROR(ParseTypeSpec(&spec));
  return SkipOptionalLoc();
}

Status Parser::ParseModuleItems() {
  while (!lex_.At(TokenKind::kRBrace)) {
    if (lex_.AtKeyword("func.func")) {
      RETURN_IF_ERROR(ParseFunction());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "func.func") {
      RETURN_IF_ERROR(ParseGenericFunction());
    } else if (lex_.AtKeyword("sdy.mesh")) {
      RETURN_IF_ERROR(ParseSdyMeshDefinition());
    } else {
      return lex_.Expected("'func.func', 'sdy.mesh' or '}'");
    }
  }
  return Status::Ok();
}

Status Parser::ParseFunction() {
  SourcePos pos = lex_.Next().pos;  // func.func
  if (lex_.AtKeyword("public") || lex_.AtKeyword("private") ||
      lex_.AtKeyword("nested"))
    lex_.Next();
  if (!lex_.At(TokenKind::kAtId))
    return lex_.Expected("a function name (@name)");
  std::string name = lex_.Next().value;
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the arguments"));
  std::vector<BlockArg> args;
  if (!attrs_.Consume(TokenKind::kRParen)) {
    while (true) {
      BlockArg arg;
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("an argument (%name: type)");
      arg.name = lex_.Next().value;
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kColon, "':' and the argument's type"));
      ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
      if (lex_.At(TokenKind::kLBrace)) {
        ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
        (void)ignored;
      }
      RETURN_IF_ERROR(SkipOptionalLoc());
      args.push_back(std::move(arg));
      if (attrs_.Consume(TokenKind::kComma)) continue;
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRParen, "',' or ')' after an argument"));
      break;
    }
  }
  std::vector<Shape> results;
  if (attrs_.Consume(TokenKind::kArrow)) {
    if (attrs_.Consume(TokenKind::kLParen)) {
      if (!attrs_.Consume(TokenKind::kRParen)) {
        while (true) {
          ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
          results.push_back(type.shape);
          if (lex_.At(TokenKind::kLBrace)) {
            ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
            (void)ignored;
          }
          RETURN_IF_ERROR(SkipOptionalLoc());
          if (attrs_.Consume(TokenKind::kComma)) continue;
          RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen,
                                        "',' or ')' after a result type"));
          break;
        }
      }
    } else {
      ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
      results.push_back(type.shape);
    }
  }
  if (lex_.AtKeyword("attributes")) {
    lex_.Next();
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  FuncInfo* info = GetFunction(name, pos);
  if (info->defined)
    return lex_.ErrorAt(pos, "redefinition of function @" + name);
  RETURN_IF_ERROR(ParseFunctionBody(info, name, std::move(args), results, pos));
  return SkipOptionalLoc();
}

Status Parser::ParseGenericFunction() {
  SourcePos pos = lex_.Next().pos;  // "func.func"
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'('"));
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRParen, "')' (a function has no operands)"));
  MlirAttr props;
  if (attrs_.Consume(TokenKind::kLess)) {
    ASSIGN_OR_RETURN(props, attrs_.ParseDictionary());
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kGreater, "'>' after the properties"));
  }
  if (lex_.At(TokenKind::kLBrace) && props.entries.empty()) {
    ASSIGN_OR_RETURN(props, attrs_.ParseDictionary());
  }
  const MlirAttr* sym = props.Find("sym_name");
  const MlirAttr* type = props.Find("function_type");
  if (!sym || sym->kind != MlirAttr::Kind::kString || !type ||
      !type->is_function_type)
    return lex_.ErrorAt(pos, "func.func needs sym_name and function_type");
  std::string name = sym->str;
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the function's body"));
  if (!lex_.At(TokenKind::kLBrace)) return lex_.Expected("'{'");
  // The body's entry block names the arguments.
  std::vector<BlockArg> args;
  {
    // Peek into the region: '{' '^bb0(...)' ':'.
    lex_.Next();
    if (lex_.At(TokenKind::kCaretId)) RETURN_IF_ERROR(ParseBlockArgs(&args));
  }
  if (args.size() != type->function_inputs.size())
    return lex_.ErrorAt(pos, "function @" + name + " declares " +
                                 std::to_string(type->function_inputs.size()) +
                                 " arguments, its block has " +
                                 std::to_string(args.size()));
  FuncInfo* info = GetFunction(name, pos);
  if (info->defined)
    return lex_.ErrorAt(pos, "redefinition of function @" + name);
  RETURN_IF_ERROR(ParseFunctionBody(info, name, std::move(args),
                                    Shapes(type->function_results), pos));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')' after the body"));
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  TypeSpec spec;
  RETURN_IF_ERROR(ParseTypeSpec(&spec));
  return SkipOptionalLoc();
}

// The lexer is at the body's '{' (pretty) or just inside it after the block
// arguments (generic: then `args` came from the block header).
Status Parser::ParseFunctionBody(FuncInfo* info, const std::string& name,
                                 std::vector<BlockArg> args,
                                 const std::vector<Shape>& results,
                                 SourcePos pos) {
  if (lex_.At(TokenKind::kLBrace)) lex_.Next();
  info->defined = true;
  info->num_parameters = static_cast<int64_t>(args.size());
  info->results = results;
  Computation* computation = info->computation;
  Scope scope;
  scope.computation = computation;
  scope.owner = "@" + name;
  for (size_t i = 0; i < args.size(); ++i) {
    Instruction* p = AddParameter(computation, static_cast<int64_t>(i),
                                  args[i].type.shape, args[i].name);
    p->set_location(
        Location{source_, args[i].pos.line, args[i].pos.column, ""});
    if (scope.defs.count(args[i].name))
      return lex_.ErrorAt(args[i].pos, "redefinition of %" + args[i].name);
    scope.defs[args[i].name] = Definition{p, 1, false, 0};
  }
  Region region;
  RETURN_IF_ERROR(ParseBlock(&scope, &region));
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRBrace, "'}' to close the function"));
  if (region.returns.size() != results.size())
    return lex_.ErrorAt(region.return_pos,
                        "@" + name + " returns " +
                            std::to_string(region.returns.size()) +
                            " value(s), its signature declares " +
                            std::to_string(results.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (!region.returns[i]->shape().Compatible(results[i]))
      return lex_.ErrorAt(
          region.return_pos,
          "@" + name + " returns " + TypeString(region.returns[i]->shape()) +
              " as result " + std::to_string(i) + ", its signature declares " +
              TypeString(results[i]));
  if (results.size() == 1) {
    computation->set_root(region.returns[0]);
  } else {
    std::vector<Shape> shapes;
    for (Instruction* r : region.returns) shapes.push_back(r->shape());
    Instruction* root =
        Add(computation, Opcode::kTuple, Shape::Tuple(shapes), region.returns);
    root->set_location(Location{source_, region.return_pos.line,
                                region.return_pos.column, ""});
    computation->set_root(root);
  }
  (void)pos;
  return Status::Ok();
}

// --- Blocks and regions ------------------------------------------------------

Status Parser::ParseBlock(Scope* scope, Region* region) {
  bool returned = false;
  while (!lex_.At(TokenKind::kRBrace)) {
    if (lex_.At(TokenKind::kEof)) return lex_.Expected("'}'");
    if (returned) return lex_.Expected("'}' after the terminator");
    if (lex_.At(TokenKind::kCaretId))
      return lex_.ErrorAt(lex_.peek().pos,
                          "regions with more than one block are not supported");
    RETURN_IF_ERROR(ParseOperation(scope, region, &returned));
  }
  if (!returned)
    return lex_.ErrorAt(lex_.peek().pos,
                        "expected a return op before '}', got '}'");
  return Status::Ok();
}

Status Parser::ParseTypedArgs(std::vector<BlockArg>* args,
                              const std::string& what) {
  // After '(': `%a: T loc(...), ...)`.
  if (attrs_.Consume(TokenKind::kRParen)) return Status::Ok();
  while (true) {
    BlockArg arg;
    arg.pos = lex_.peek().pos;
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected(what);
    arg.name = lex_.Next().value;
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a type"));
    ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
    RETURN_IF_ERROR(SkipOptionalLoc());
    args->push_back(std::move(arg));
    if (attrs_.Consume(TokenKind::kComma)) continue;
    return attrs_.Expect(TokenKind::kRParen, "',' or ')' after " + what);
  }
}

Status Parser::ParseBlockArgs(std::vector<BlockArg>* args) {
  lex_.Next();  // ^bb0
  if (attrs_.Consume(TokenKind::kLParen))
    RETURN_IF_ERROR(ParseTypedArgs(args, "a block argument"));
  return attrs_.Expect(TokenKind::kColon, "':' after the block header");
}

StatusOr<Region> Parser::ParseRegion(Scope* parent, RegionKind kind,
                                     const std::string& owner,
                                     const std::string& name,
                                     std::vector<BlockArg> args,
                                     std::vector<Instruction*>* captures) {
  if (++depth_ > kMaxNesting) {
    --depth_;
    return lex_.Expected("less deeply nested regions");
  }
  struct Leave {
    int* depth;
    ~Leave() { --*depth; }
  } leave{&depth_};
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLBrace, "'{' to open a region"));
  if (lex_.At(TokenKind::kCaretId)) {
    if (!args.empty())
      return lex_.ErrorAt(lex_.peek().pos, "unexpected block header");
    RETURN_IF_ERROR(ParseBlockArgs(&args));
  }
  Region region;
  region.computation = NewComputation(name);
  region.scope = std::make_unique<Scope>();
  Scope* scope = region.scope.get();
  scope->parent = parent;
  scope->computation = region.computation;
  scope->kind = kind;
  scope->owner = owner;
  scope->captures = captures;
  auto define = [&](const BlockArg& arg, Instruction* value) -> Status {
    if (scope->defs.count(arg.name))
      return lex_.ErrorAt(arg.pos, "redefinition of %" + arg.name);
    scope->defs[arg.name] = Definition{value, 1, false, 0};
    return Status::Ok();
  };
  switch (kind) {
    case RegionKind::kScalarArgs:
    case RegionKind::kFunction:
      for (size_t i = 0; i < args.size(); ++i) {
        int64_t number = args[i].parameter >= 0 ? args[i].parameter
                                                : static_cast<int64_t>(i);
        Instruction* p = AddParameter(region.computation, number,
                                      args[i].type.shape, args[i].name);
        p->set_location(
            Location{source_, args[i].pos.line, args[i].pos.column, ""});
        RETURN_IF_ERROR(define(args[i], p));
      }
      break;
    case RegionKind::kLoopState: {
      std::vector<Shape> shapes;
      for (const BlockArg& arg : args) shapes.push_back(arg.type.shape);
      scope->state =
          AddParameter(region.computation, 0, Shape::Tuple(shapes), "state");
      scope->declared = static_cast<int64_t>(args.size());
      for (size_t i = 0; i < args.size(); ++i)
        RETURN_IF_ERROR(define(
            args[i], Element(scope, scope->state, static_cast<int64_t>(i))));
      break;
    }
    case RegionKind::kBranch:
      if (!args.empty())
        return lex_.ErrorAt(args[0].pos,
                            "a branch of " + owner + " takes no arguments");
      scope->state =
          AddParameter(region.computation, 0, Shape::Tuple({}), "captures");
      break;
  }
  region.args = std::move(args);
  RETURN_IF_ERROR(ParseBlock(scope, &region));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRBrace, "'}' to close the region"));
  return region;
}

// --- Operations --------------------------------------------------------------

Status Parser::ParseOperation(Scope* scope, Region* region, bool* was_return) {
  SourcePos start = lex_.peek().pos;
  std::vector<std::pair<std::string, int64_t>> names;
  if (lex_.At(TokenKind::kPercentId)) {
    while (true) {
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("a result name");
      Token name = lex_.Next();
      if (name.value.find('#') != std::string::npos)
        return lex_.ErrorAt(name.pos, "a result name cannot have '#'");
      int64_t count = 1;
      if (attrs_.Consume(TokenKind::kColon)) {
        if (!lex_.At(TokenKind::kInteger))
          return lex_.Expected("a result count");
        std::string digits = lex_.Next().value;
        count = digits.size() > 6 ? kMaxResults + 1 : std::stoll(digits);
        if (count < 1 || count > kMaxResults)
          return lex_.ErrorAt(name.pos, "bad result count");
      }
      names.emplace_back(name.value, count);
      if (!attrs_.Consume(TokenKind::kComma)) break;
    }
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kEqual, "'=' after the result names"));
  }
  Computation* computation = scope->computation;
  size_t first_new = static_cast<size_t>(computation->instruction_count());
  Outcome outcome;
  SourcePos op_pos = lex_.peek().pos;
  if (lex_.At(TokenKind::kString)) {
    std::string name = lex_.Next().value;
    ASSIGN_OR_RETURN(outcome, ParseGenericOp(scope, name, op_pos));
  } else if (lex_.At(TokenKind::kBareId)) {
    std::string name = lex_.Next().value;
    ASSIGN_OR_RETURN(outcome, ParsePrettyOp(scope, name, op_pos));
  } else {
    return lex_.Expected("an operation");
  }
  if (outcome.is_return) {
    if (!names.empty())
      return lex_.ErrorAt(start, "a return op has no results");
    region->returns = std::move(outcome.returns);
    region->return_pos = start;
    *was_return = true;
  } else {
    RETURN_IF_ERROR(Define(scope, names, outcome, start));
  }
  std::optional<LocNode> loc;
  if (lex_.AtKeyword("loc")) {
    ASSIGN_OR_RETURN(loc, ParseLoc());
  }
  // Locations go to every instruction the op produced in this computation
  // (the op itself, tuples and elements built for it).
  const auto& instructions = computation->instructions();
  for (size_t i = first_new; i < instructions.size(); ++i) {
    Instruction* inst = instructions[i].get();
    if (inst->opcode() == Opcode::kParameter) continue;
    inst->set_location(Location{source_, start.line, start.column, ""});
    if (loc.has_value()) pending_locs_.emplace_back(inst, *loc);
  }
  return Status::Ok();
}

Status Parser::ParseOperandList(Scope* scope,
                                std::vector<Instruction*>* operands,
                                TokenKind close) {
  if (attrs_.Consume(close)) return Status::Ok();
  while (true) {
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
    ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
    operands->push_back(value);
    if (attrs_.Consume(TokenKind::kComma)) continue;
    return attrs_.Expect(
        close, close == TokenKind::kRParen ? "',' or ')'" : "',' or ']'");
  }
}

Status Parser::ParseTypeSpec(TypeSpec* spec) {
  spec->pos = lex_.peek().pos;
  if (lex_.At(TokenKind::kLParen)) {
    spec->functional = true;
    RETURN_IF_ERROR(attrs_.ParseTypeList(&spec->inputs));
    return attrs_.ParseFunctionResults(&spec->outputs);
  }
  while (true) {
    ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
    spec->list.push_back(std::move(type));
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  if (lex_.At(TokenKind::kArrow)) {  // chlo's `T -> T`
    spec->functional = true;
    spec->inputs = std::move(spec->list);
    spec->list.clear();
    return attrs_.ParseFunctionResults(&spec->outputs);
  }
  return Status::Ok();
}

// chlo ops with no opcode of their own, built from others.
bool IsDecomposedChloOp(std::string_view name) {
  return name == "chlo.square" || name == "chlo.erfc";
}

bool IsSupportedOpName(std::string_view name) {
  return OpcodeFromStableHloName(name).has_value() || name == "stablehlo.if" ||
         name == "call" || IsReturnOp(name) || IsDecomposedChloOp(name) ||
         SpmdOpKindFromName(name).has_value();
}

StatusOr<Outcome> Parser::ParseReturn(Scope* scope, bool generic) {
  Outcome outcome;
  outcome.is_return = true;
  if (generic) {
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
    RETURN_IF_ERROR(
        ParseOperandList(scope, &outcome.returns, TokenKind::kRParen));
    if (lex_.At(TokenKind::kLBrace)) {
      ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
      (void)ignored;
    }
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
    TypeSpec types;
    RETURN_IF_ERROR(ParseTypeSpec(&types));
    return outcome;
  }
  if (!lex_.At(TokenKind::kPercentId)) return outcome;  // returns nothing
  while (true) {
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("a value");
    ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
    outcome.returns.push_back(value);
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the returned types"));
  SourcePos types_pos = lex_.peek().pos;
  std::vector<MlirType> types;
  while (true) {
    ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
    types.push_back(std::move(type));
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  if (types.size() != outcome.returns.size())
    return lex_.ErrorAt(types_pos,
                        "return has " + std::to_string(outcome.returns.size()) +
                            " operand(s) and " + std::to_string(types.size()) +
                            " type(s)");
  for (size_t i = 0; i < types.size(); ++i)
    if (!outcome.returns[i]->shape().Compatible(types[i].shape))
      return lex_.ErrorAt(
          types[i].pos, "returned value " + std::to_string(i) + " is " +
                            TypeString(outcome.returns[i]->shape()) +
                            ", the return says " + TypeString(types[i].shape));
  return outcome;
}

StatusOr<Outcome> Parser::ParseCall(Scope* scope, SourcePos pos) {
  if (!lex_.At(TokenKind::kAtId))
    return lex_.Expected("a function name (@name)");
  std::string callee = lex_.Next().value;
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the arguments"));
  OpSpec spec;
  spec.name = "func.call";
  spec.pos = pos;
  RETURN_IF_ERROR(ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the call's type"));
  RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  MlirAttr symbol;
  symbol.kind = MlirAttr::Kind::kSymbol;
  symbol.str = callee;
  spec.attrs["callee"] = symbol;
  return Build(scope, spec);
}

// --- Shardy (shard_map)
// --------------------------------------------------------

Status Parser::ParseSdyMeshDefinition() {
  lex_.Next();  // sdy.mesh
  if (!lex_.At(TokenKind::kAtId)) return lex_.Expected("a mesh name (@name)");
  Token name = lex_.Next();
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual, "'=' after the mesh name"));
  ASSIGN_OR_RETURN(SdyMesh mesh, ParseSdyMesh(attrs_));
  mesh.pos = name.pos;
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  RETURN_IF_ERROR(SkipOptionalLoc());
  if (!meshes_.emplace(name.value, std::move(mesh)).second)
    return lex_.ErrorAt(name.pos, "redefinition of mesh @" + name.value);
  return Status::Ok();
}

StatusOr<Outcome> Parser::ParseManualComputation(Scope* scope, SourcePos pos) {
  const std::string what = "sdy.manual_computation";
  OpSpec spec;
  spec.name = what;
  spec.pos = pos;
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
  RETURN_IF_ERROR(ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  SpmdOp op;
  op.kind = SpmdOpKind::kManualComputation;
  op.op_name = what;
  for (const char* key : {"in_shardings", "out_shardings"}) {
    RETURN_IF_ERROR(attrs_.ExpectKeyword(key));
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kEqual, std::string("'=' after ") + key));
    ASSIGN_OR_RETURN(std::vector<SdyTensorSharding> list,
                     ParseSdyShardingList(attrs_));
    (key[0] == 'i' ? op.in_shardings : op.out_shardings) = std::move(list);
  }
  RETURN_IF_ERROR(attrs_.ExpectKeyword("manual_axes"));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual, "'=' after manual_axes"));
  ASSIGN_OR_RETURN(op.manual_axes, ParseSdyAxisSet(attrs_));

  const SdyTensorSharding* culprit = nullptr;
  std::string mesh_problem = CommonMesh(op.in_shardings, op.out_shardings,
                                        meshes_, &op.mesh, &culprit);
  if (!mesh_problem.empty())
    return lex_.ErrorAt(culprit != nullptr ? culprit->pos : pos, mesh_problem);

  std::vector<BlockArg> args;
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the body's arguments"));
  RETURN_IF_ERROR(ParseTypedArgs(&args, "a body argument"));
  ASSIGN_OR_RETURN(
      Region body,
      ParseRegion(scope, RegionKind::kFunction, what + " at " + PosString(pos),
                  "manual_computation_body", std::move(args), nullptr));
  RETURN_IF_ERROR(SetRegionRoot(body, spec));
  op.body = body.computation;
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  if (!spec.types.functional)
    return lex_.ErrorAt(spec.types.pos,
                        "expected a function type (inputs) -> results");
  RETURN_IF_ERROR(CheckOperandTypes(spec));
  std::vector<Shape> results = Shapes(spec.types.outputs);
  if (results.size() != body.returns.size())
    return lex_.ErrorAt(spec.types.pos,
                        what + " has " + std::to_string(results.size()) +
                            " result(s), its body returns " +
                            std::to_string(body.returns.size()));
  return AddSpmdPlaceholder(scope, results, spec.operands, what, std::move(op));
}

StatusOr<Outcome> Parser::ParseShardingAnnotation(Scope* scope) {
  if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
  ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
  ASSIGN_OR_RETURN(SdyTensorSharding sharding, ParseSdyTensorSharding(attrs_));
  (void)sharding;
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the type"));
  ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
  if (!value->shape().Compatible(type.shape))
    return lex_.ErrorAt(type.pos,
                        "the operand is " + TypeString(value->shape()) +
                            ", the type says " + TypeString(type.shape));
  // Where a value lives does not change what it is.
  Outcome outcome;
  outcome.inst = value;
  return outcome;
}

StatusOr<Outcome> Parser::BuildSpmdOp(Scope* scope, OpSpec& spec,
                                      SpmdOpKind kind) {
  SpmdOp op;
  op.kind = kind;
  op.op_name = spec.name;
  std::vector<Shape> results;
  if (spec.types.functional) {
    RETURN_IF_ERROR(CheckOperandTypes(spec));
    results = Shapes(spec.types.outputs);
  } else {
    results = Shapes(spec.types.list);
  }
  const bool is_id =
      kind == SpmdOpKind::kPartitionId || kind == SpmdOpKind::kReplicaId;
  if (is_id) {
    if (!spec.operands.empty()) return OpError(spec, "takes no operands");
    if (results.size() != 1 || results[0] != Shape::Scalar(ElementType::kU32))
      return OpError(spec, "the result type must be tensor<ui32>");
  } else {
    if (spec.operands.empty()) return OpError(spec, "expects operands");
    if (results.size() != spec.operands.size())
      return OpError(spec, "has " + std::to_string(spec.operands.size()) +
                               " operand(s) and " +
                               std::to_string(results.size()) + " result(s)");
  }

  // Which devices exchange values, as the StableHLO spec derives the process
  // groups: without a channel the ids are replicas (and xffi runs one
  // replica, so each device is alone); with one they are partitions, all of
  // them per replica group unless use_global_device_ids (or the op itself)
  // makes the ids partition ids.
  bool has_channel = false;
  if (const MlirAttr* channel = Attr(spec, "channel_handle")) {
    if (channel->kind != MlirAttr::Kind::kDialect)
      return lex_.ErrorAt(channel->pos,
                          "attribute 'channel_handle': expected "
                          "#stablehlo.channel_handle<handle = N, type = T>");
    const MlirAttr* handle = channel->Find("handle");
    if (handle == nullptr)
      return lex_.ErrorAt(channel->pos, "channel_handle without a handle");
    ASSIGN_OR_RETURN(int64_t id, AttrToInteger(*handle, lex_, "handle"));
    has_channel = id > 0;
  }
  bool global_ids = Attr(spec, "use_global_device_ids") != nullptr;
  std::vector<std::vector<int64_t>> groups;
  if (const MlirAttr* attr = Attr(spec, "replica_groups")) {
    ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                     AttrToIntegers(*attr, lex_, "replica_groups"));
    std::vector<int64_t> dims;
    if (attr->kind == MlirAttr::Kind::kDense)
      dims = attr->dense_type.shape.dims();
    if (dims.size() != 2)
      return lex_.ErrorAt(attr->pos,
                          "attribute 'replica_groups': expected a 2-D "
                          "dense<[[...], ...]> of device ids");
    for (int64_t g = 0; g < dims[0]; ++g)
      groups.emplace_back(ids.begin() + g * dims[1],
                          ids.begin() + (g + 1) * dims[1]);
  } else if (kind != SpmdOpKind::kCollectivePermute && !is_id) {
    return OpError(spec, "missing attribute 'replica_groups'");
  }
  std::string groups_problem =
      SetProcessGroups(&op, has_channel, global_ids, std::move(groups));
  if (!groups_problem.empty()) return OpError(spec, groups_problem);

  auto integer = [&](const char* name, int64_t* out) -> Status {
    const MlirAttr* attr = Attr(spec, name);
    if (attr == nullptr)
      return OpError(spec, std::string("missing attribute '") + name + "'");
    ASSIGN_OR_RETURN(*out, AttrToInteger(*attr, lex_, name));
    return Status::Ok();
  };
  switch (kind) {
    case SpmdOpKind::kAllGather:
      RETURN_IF_ERROR(integer("all_gather_dim", &op.dimension));
      break;
    case SpmdOpKind::kReduceScatter:
      RETURN_IF_ERROR(integer("scatter_dimension", &op.dimension));
      break;
    case SpmdOpKind::kAllToAll:
      RETURN_IF_ERROR(integer("split_dimension", &op.split_dimension));
      RETURN_IF_ERROR(integer("concat_dimension", &op.concat_dimension));
      RETURN_IF_ERROR(integer("split_count", &op.split_count));
      break;
    case SpmdOpKind::kCollectivePermute: {
      const MlirAttr* attr = Attr(spec, "source_target_pairs");
      if (attr == nullptr)
        return OpError(spec, "missing attribute 'source_target_pairs'");
      ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                       AttrToIntegers(*attr, lex_, "source_target_pairs"));
      if (ids.size() % 2 != 0)
        return lex_.ErrorAt(attr->pos,
                            "attribute 'source_target_pairs': expected "
                            "[source, target] pairs");
      for (size_t i = 0; i < ids.size(); i += 2)
        op.source_target_pairs.emplace_back(ids[i], ids[i + 1]);
      break;
    }
    default:
      break;
  }

  const bool reduces =
      kind == SpmdOpKind::kAllReduce || kind == SpmdOpKind::kReduceScatter;
  if (reduces != (spec.regions.size() == 1))
    return OpError(
        spec, reduces ? "expected a reduction region" : "unexpected region");
  if (reduces) {
    // The region must combine operand j's two values with one elementwise
    // op; that op folds the devices' values in group order.
    Region& region = spec.regions[0];
    const int64_t n = static_cast<int64_t>(spec.operands.size());
    std::vector<Instruction*> params = region.computation->parameters();
    if (static_cast<int64_t>(params.size()) != 2 * n ||
        static_cast<int64_t>(region.returns.size()) != n)
      return OpError(spec, "the reduction region must take " +
                               std::to_string(2 * n) +
                               " arguments and return " + std::to_string(n));
    for (int64_t j = 0; j < n; ++j) {
      const Instruction* r = region.returns[static_cast<size_t>(j)];
      const Instruction* a = params[static_cast<size_t>(j)];
      const Instruction* b = params[static_cast<size_t>(n + j)];
      std::optional<Opcode> fold = FoldableReduction(r, a, b);
      if (!fold) return OpError(spec, kFoldableReductionRule);
      op.reductions.push_back(*fold);
    }
  }

  return AddSpmdPlaceholder(scope, results, spec.operands, spec.name,
                            std::move(op));
}

Outcome Parser::AddSpmdPlaceholder(Scope* scope,
                                   const std::vector<Shape>& results,
                                   const std::vector<Instruction*>& operands,
                                   const std::string& target, SpmdOp op) {
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  outcome.inst =
      Add(scope->computation, Opcode::kCustomCall,
          results.size() == 1 ? results[0] : Shape::Tuple(results), operands);
  outcome.inst->custom_call.target = target;
  outcome.inst->custom_call.has_side_effect = true;
  spmd_ops_[outcome.inst] = std::move(op);
  return outcome;
}

StatusOr<Outcome> Parser::ParsePrettyOp(Scope* scope, const std::string& name,
                                        SourcePos pos) {
  if (IsReturnOp(name)) return ParseReturn(scope, false);
  if (name == "call" || name == "func.call") return ParseCall(scope, pos);
  if (name == "stablehlo.reduce") return ParsePrettyReduce(scope, pos);
  if (name == "stablehlo.while") return ParsePrettyWhile(scope, pos);
  if (name == "sdy.manual_computation")
    return ParseManualComputation(scope, pos);
  if (IsShardingAnnotation(name)) return ParseShardingAnnotation(scope);
  if (name == "stablehlo.partition_id" || name == "stablehlo.replica_id") {
    OpSpec spec;
    spec.name = name;
    spec.pos = pos;
    if (lex_.At(TokenKind::kLBrace)) {
      ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
      (void)ignored;
    }
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the type"));
    RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
    return BuildSpmdOp(scope, spec, *SpmdOpKindFromName(name));
  }
  if (!IsSupportedOpName(name))
    return lex_.ErrorAt(pos, "unsupported operation '" + name + "'");
  OpSpec spec;
  spec.name = name;
  spec.pos = pos;
  if (name == "stablehlo.constant") {
    if (lex_.At(TokenKind::kLBrace)) {
      ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
      for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
    }
    ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
    if (value.kind != MlirAttr::Kind::kDense)
      return lex_.ErrorAt(value.pos, "expected a dense<...> value");
    spec.types.list.push_back(value.dense_type);
    spec.attrs["value"] = std::move(value);
    return Build(scope, spec);
  }
  if (name == "stablehlo.custom_call") {
    if (!lex_.At(TokenKind::kAtId))
      return lex_.Expected("a call target (@name)");
    MlirAttr target;
    target.kind = MlirAttr::Kind::kString;
    target.pos = lex_.peek().pos;
    target.str = lex_.Next().value;
    spec.attrs["call_target_name"] = target;
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
    RETURN_IF_ERROR(
        ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  }
  return ParsePrettyCommon(scope, std::move(spec));
}

// Operands and `keyword = value` clauses, an optional attribute dictionary,
// then the types: the shape most pretty ops share.
StatusOr<Outcome> Parser::ParsePrettyCommon(Scope* scope, OpSpec spec) {
  const std::string& name = spec.name;
  int bare_words = 0;
  auto int_list = [&](const std::string& key) -> Status {
    ASSIGN_OR_RETURN(MlirAttr list, attrs_.ParseIntegerList());
    spec.attrs[key] = std::move(list);
    return Status::Ok();
  };
  bool first = true;
  while (!lex_.At(TokenKind::kColon) && !lex_.At(TokenKind::kLBrace)) {
    if (!first && !attrs_.Consume(TokenKind::kComma)) break;
    first = false;
    if (lex_.At(TokenKind::kPercentId)) {
      ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
      spec.operands.push_back(value);
      if (name == "stablehlo.get_tuple_element" &&
          attrs_.Consume(TokenKind::kLSquare)) {
        ASSIGN_OR_RETURN(MlirAttr index, attrs_.ParseIntegerLiteral());
        spec.attrs["index"] = std::move(index);
        RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRSquare, "']'"));
      }
      if (name == "stablehlo.slice" && attrs_.Consume(TokenKind::kLSquare)) {
        MlirAttr starts, limits, strides;
        starts.kind = limits.kind = strides.kind = MlirAttr::Kind::kArray;
        if (!attrs_.Consume(TokenKind::kRSquare)) {
          while (true) {
            MlirAttr part[3];
            for (int k = 0; k < 3; ++k) {
              if (k == 2 && !attrs_.Consume(TokenKind::kColon)) {
                part[2].kind = MlirAttr::Kind::kInteger;
                part[2].magnitude = 1;
                break;
              }
              ASSIGN_OR_RETURN(part[k], attrs_.ParseIntegerLiteral());
              if (k == 0)
                RETURN_IF_ERROR(
                    attrs_.Expect(TokenKind::kColon, "':' in a slice range"));
            }
            starts.elements.push_back(part[0]);
            limits.elements.push_back(part[1]);
            strides.elements.push_back(part[2]);
            if (attrs_.Consume(TokenKind::kComma)) continue;
            RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRSquare,
                                          "',' or ']' in slice ranges"));
            break;
          }
        }
        spec.attrs["start_indices"] = starts;
        spec.attrs["limit_indices"] = limits;
        spec.attrs["strides"] = strides;
      }
      continue;
    }
    if (!lex_.At(TokenKind::kBareId))
      return lex_.Expected("an operand or a keyword");
    Token word = lex_.Next();
    const std::string& kw = word.value;
    if (!attrs_.Consume(TokenKind::kEqual)) {
      if (name == "stablehlo.compare" && bare_words < 2) {
        MlirAttr e;
        e.kind = MlirAttr::Kind::kEnum;
        e.pos = word.pos;
        e.str = kw;
        spec.attrs[bare_words == 0 ? "comparison_direction" : "compare_type"] =
            e;
        ++bare_words;
        continue;
      }
      return lex_.ErrorAt(word.pos,
                          "expected '=' after " + MlirLexer::Describe(word));
    }
    if (kw == "dims") {
      if (name == "stablehlo.broadcast_in_dim")
        RETURN_IF_ERROR(int_list("broadcast_dimensions"));
      else if (name == "stablehlo.transpose")
        RETURN_IF_ERROR(int_list("permutation"));
      else
        RETURN_IF_ERROR(int_list("dimensions"));
    } else if (kw == "dim") {
      ASSIGN_OR_RETURN(MlirAttr d, attrs_.ParseIntegerLiteral());
      spec.attrs[name == "stablehlo.iota" ? "iota_dimension" : "dimension"] = d;
    } else if (kw == "sizes") {
      RETURN_IF_ERROR(int_list("slice_sizes"));
    } else if (kw == "low") {
      RETURN_IF_ERROR(int_list("edge_padding_low"));
    } else if (kw == "high") {
      RETURN_IF_ERROR(int_list("edge_padding_high"));
    } else if (kw == "interior") {
      RETURN_IF_ERROR(int_list("interior_padding"));
    } else if (kw == "contracting_dims" || kw == "batching_dims") {
      std::string part = kw == "contracting_dims" ? "contracting_dimensions"
                                                  : "batching_dimensions";
      RETURN_IF_ERROR(int_list("lhs_" + part));
      RETURN_IF_ERROR(attrs_.ExpectKeyword("x"));
      RETURN_IF_ERROR(int_list("rhs_" + part));
    } else if (kw == "precision") {
      RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLSquare, "'['"));
      while (lex_.At(TokenKind::kBareId)) {
        lex_.Next();
        if (!attrs_.Consume(TokenKind::kComma)) break;
      }
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRSquare, "']' after the precisions"));
    } else if (kw == "algorithm") {
      // algorithm = <lhs_precision_type = bf16, ...>: the parameters the
      // generic form writes as #stablehlo.dot_algorithm<...>; the dot
      // builder decides whether xffi computes what they ask.
      MlirAttr algorithm;
      algorithm.kind = MlirAttr::Kind::kDialect;
      algorithm.str = "stablehlo.dot_algorithm";
      algorithm.pos = word.pos;
      RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLess, "'<' after algorithm ="));
      while (!attrs_.Consume(TokenKind::kGreater)) {
        if (!lex_.At(TokenKind::kBareId))
          return lex_.Expected("a parameter name in algorithm = <...>");
        std::string key = lex_.Next().value;
        RETURN_IF_ERROR(
            attrs_.Expect(TokenKind::kEqual, "'=' after '" + key + "'"));
        ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
        algorithm.entries.push_back(
            MlirNamedAttr{std::move(key), std::move(value)});
        if (!attrs_.Consume(TokenKind::kComma)) {
          RETURN_IF_ERROR(attrs_.Expect(TokenKind::kGreater,
                                        "',' or '>' in algorithm = <...>"));
          break;
        }
      }
      spec.attrs["algorithm"] = std::move(algorithm);
    } else {
      ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
      spec.attrs[kw] = std::move(value);
    }
  }
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  return Build(scope, spec);
}

StatusOr<Outcome> Parser::ParsePrettyReduce(Scope* scope, SourcePos pos) {
  OpSpec spec;
  spec.name = "stablehlo.reduce";
  spec.pos = pos;
  std::vector<Instruction*> inputs, inits;
  while (true) {
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and an operand"));
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
    ASSIGN_OR_RETURN(Instruction * input, Use(scope, lex_.Next()));
    RETURN_IF_ERROR(attrs_.ExpectKeyword("init"));
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' after 'init'"));
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an init value");
    ASSIGN_OR_RETURN(Instruction * init, Use(scope, lex_.Next()));
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
    inputs.push_back(input);
    inits.push_back(init);
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  spec.operands = inputs;
  spec.operands.insert(spec.operands.end(), inits.begin(), inits.end());
  std::string applies;
  SourcePos applies_pos;
  if (lex_.AtKeyword("applies")) {
    lex_.Next();
    applies_pos = lex_.peek().pos;
    if (!lex_.At(TokenKind::kBareId))
      return lex_.Expected("an op name after 'applies'");
    applies = lex_.Next().value;
  }
  RETURN_IF_ERROR(attrs_.ExpectKeyword("across"));
  RETURN_IF_ERROR(attrs_.ExpectKeyword("dimensions"));
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual, "'='"));
  ASSIGN_OR_RETURN(spec.attrs["dimensions"], attrs_.ParseIntegerList());
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  if (!applies.empty()) {
    std::optional<Opcode> opcode = OpcodeFromStableHloName(applies);
    if (!opcode.has_value() || !IsElementwiseBinary(*opcode) ||
        *opcode == Opcode::kCompare || inputs.size() != 1)
      return lex_.ErrorAt(
          applies_pos,
          "expected a binary elementwise op after 'applies', got '" + applies +
              "'");
    Region region;
    region.computation =
        ApplyComputation(*opcode, inits[0]->shape(), applies_pos);
    spec.regions.push_back(std::move(region));
    return Build(scope, spec);
  }
  // reducer(%acc0: T, %x0: T) (%acc1: U, %x1: U) { ... }: pairs of block
  // arguments; the block takes all accumulators, then all elements.
  RETURN_IF_ERROR(attrs_.ExpectKeyword("reducer"));
  std::vector<BlockArg> args(inputs.size() * 2);
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen,
                                  "'(' and a pair of reducer arguments"));
    for (size_t k = 0; k < 2; ++k) {
      BlockArg& arg = args[k * inputs.size() + i];
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("a reducer argument");
      arg.name = lex_.Next().value;
      RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a type"));
      ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
      RETURN_IF_ERROR(SkipOptionalLoc());
      if (k == 0) RETURN_IF_ERROR(attrs_.Expect(TokenKind::kComma, "','"));
    }
    RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
  }
  ASSIGN_OR_RETURN(Region region,
                   ParseRegion(scope, RegionKind::kScalarArgs,
                               "stablehlo.reduce at " + PosString(pos),
                               "reduce_region", std::move(args), nullptr));
  spec.regions.push_back(std::move(region));
  return Build(scope, spec);
}

StatusOr<Outcome> Parser::ParsePrettyWhile(Scope* scope, SourcePos pos) {
  OpSpec spec;
  spec.name = "stablehlo.while";
  spec.pos = pos;
  std::vector<BlockArg> args;
  RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the loop variables"));
  if (!attrs_.Consume(TokenKind::kRParen)) {
    while (true) {
      BlockArg arg;
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("a loop variable");
      arg.name = lex_.Next().value;
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kEqual, "'=' and an initial value"));
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("an initial value");
      ASSIGN_OR_RETURN(Instruction * init, Use(scope, lex_.Next()));
      spec.operands.push_back(init);
      args.push_back(std::move(arg));
      if (attrs_.Consume(TokenKind::kComma)) continue;
      RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "',' or ')'"));
      break;
    }
  }
  if (attrs_.Consume(TokenKind::kColon)) {
    SourcePos types_pos = lex_.peek().pos;
    std::vector<MlirType> types;
    while (true) {
      ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
      types.push_back(std::move(type));
      if (!attrs_.Consume(TokenKind::kComma)) break;
    }
    if (types.size() != args.size())
      return lex_.ErrorAt(
          types_pos, "the loop has " + std::to_string(args.size()) +
                         " variable(s) and " + std::to_string(types.size()) +
                         " type(s)");
    for (size_t i = 0; i < args.size(); ++i) args[i].type = types[i];
  } else if (!args.empty()) {
    return lex_.Expected("':' and the loop variables' types");
  }
  if (lex_.AtKeyword("attributes")) {
    lex_.Next();
    ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  for (const BlockArg& arg : args) spec.types.outputs.push_back(arg.type);
  spec.types.inputs = spec.types.outputs;
  spec.types.functional = true;
  std::vector<Instruction*> captures;
  std::string owner = "stablehlo.while at " + PosString(pos);
  RETURN_IF_ERROR(attrs_.ExpectKeyword("cond"));
  ASSIGN_OR_RETURN(Region cond,
                   ParseRegion(scope, RegionKind::kLoopState, owner,
                               "while_condition", args, &captures));
  RETURN_IF_ERROR(attrs_.ExpectKeyword("do"));
  ASSIGN_OR_RETURN(Region body,
                   ParseRegion(scope, RegionKind::kLoopState, owner,
                               "while_body", args, &captures));
  spec.regions.push_back(std::move(cond));
  spec.regions.push_back(std::move(body));
  return BuildWhile(scope, spec, captures);
}

StatusOr<Outcome> Parser::ParseGenericOp(Scope* scope, const std::string& name,
                                         SourcePos pos) {
  if (IsReturnOp(name)) return ParseReturn(scope, true);
  if (!IsSupportedOpName(name) && name != "func.call")
    return lex_.ErrorAt(pos, "unsupported operation '" + name + "'");
  OpSpec spec;
  spec.name = name;
  spec.pos = pos;
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
  RETURN_IF_ERROR(ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  if (attrs_.Consume(TokenKind::kLess)) {
    ASSIGN_OR_RETURN(MlirAttr props, attrs_.ParseDictionary());
    for (auto& [k, v] : props.entries) spec.attrs[k] = v;
    RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kGreater, "'>' after the properties"));
  }
  std::vector<Instruction*> loop_captures;
  if (attrs_.Consume(TokenKind::kLParen)) {
    std::string owner = name + " at " + PosString(pos);
    size_t index = 0;
    // Branch captures must outlive the regions' scopes until Build.
    spec.region_captures.reserve(64);
    while (true) {
      RegionKind kind = RegionKind::kScalarArgs;
      std::vector<Instruction*>* captures = nullptr;
      std::string region_name =
          SpmdOpKindFromName(name).has_value()
              ? std::string("reduction_region")
              : std::string(OpcodeName(OpcodeFromStableHloName(name).value_or(
                    Opcode::kConditional))) +
                    "_region";
      if (name == "stablehlo.while") {
        kind = RegionKind::kLoopState;
        captures = &loop_captures;
        region_name = index == 0 ? "while_condition" : "while_body";
      } else if (name == "stablehlo.case" || name == "stablehlo.if") {
        if (spec.region_captures.size() >= 64)
          return lex_.ErrorAt(pos, "too many branches");
        kind = RegionKind::kBranch;
        spec.region_captures.emplace_back();
        captures = &spec.region_captures.back();
        region_name = "branch_" + std::to_string(index);
      }
      ASSIGN_OR_RETURN(Region region, ParseRegion(scope, kind, owner,
                                                  region_name, {}, captures));
      spec.regions.push_back(std::move(region));
      ++index;
      if (attrs_.Consume(TokenKind::kComma)) continue;
      RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRParen, "',' or ')' after a region"));
      break;
    }
  }
  if (lex_.At(TokenKind::kLBrace)) {
    ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  if (!spec.types.functional)
    return lex_.ErrorAt(spec.types.pos,
                        "expected a function type (inputs) -> results");
  if (name == "stablehlo.while") {
    if (spec.regions.size() != 2) return OpError(spec, "expected 2 regions");
    return BuildWhile(scope, spec, loop_captures);
  }
  return Build(scope, spec);
}

// --- Building ----------------------------------------------------------------

Computation* Parser::ApplyComputation(Opcode opcode, const Shape& scalar,
                                      SourcePos pos) {
  Computation* c = NewComputation(std::string(OpcodeName(opcode)) + "_reducer");
  Shape shape = Shape::Scalar(scalar.IsArray() ? scalar.element_type()
                                               : ElementType::kF32);
  Instruction* a = AddParameter(c, 0, shape, "lhs");
  Instruction* b = AddParameter(c, 1, shape, "rhs");
  Instruction* root = Add(c, opcode, shape, {a, b});
  root->set_location(Location{source_, pos.line, pos.column, ""});
  c->set_root(root);
  return c;
}

Status Parser::SetRegionRoot(Region& region, const OpSpec& spec) {
  if (region.returns.empty()) return OpError(spec, "a region returns nothing");
  if (region.returns.size() == 1) {
    region.computation->set_root(region.returns[0]);
    return Status::Ok();
  }
  std::vector<Shape> shapes;
  for (Instruction* r : region.returns) shapes.push_back(r->shape());
  region.computation->set_root(Add(region.computation, Opcode::kTuple,
                                   Shape::Tuple(shapes), region.returns));
  return Status::Ok();
}

Status Parser::CheckOperandTypes(const OpSpec& spec) {
  const TypeSpec& types = spec.types;
  if (types.inputs.size() != spec.operands.size())
    return lex_.ErrorAt(types.pos, spec.name + " has " +
                                       std::to_string(spec.operands.size()) +
                                       " operand(s), its type lists " +
                                       std::to_string(types.inputs.size()));
  for (size_t i = 0; i < types.inputs.size(); ++i)
    if (!spec.operands[i]->shape().Compatible(types.inputs[i].shape))
      return lex_.ErrorAt(types.inputs[i].pos,
                          spec.name + ": operand " + std::to_string(i) +
                              " is " + TypeString(spec.operands[i]->shape()) +
                              ", the op's type says " +
                              TypeString(types.inputs[i].shape));
  return Status::Ok();
}

StatusOr<std::vector<Shape>> Parser::ResultShapes(const OpSpec& spec,
                                                  Opcode opcode) {
  const TypeSpec& types = spec.types;
  std::vector<Shape> results;
  if (types.functional) {
    RETURN_IF_ERROR(CheckOperandTypes(spec));
    return Shapes(types.outputs);
  }
  if (types.list.size() == 1) {
    Shape t = types.list[0].shape;
    if ((opcode == Opcode::kCompare || opcode == Opcode::kIsFinite) &&
        t.IsArray())
      return std::vector<Shape>{Shape::Array(ElementType::kPred, t.dims())};
    if ((opcode == Opcode::kReal || opcode == Opcode::kImag) && t.IsArray() &&
        IsComplexType(t.element_type()))
      return std::vector<Shape>{Shape::Array(
          t.element_type() == ElementType::kC64 ? ElementType::kF32
                                                : ElementType::kF64,
          t.dims())};
    if (opcode == Opcode::kOptimizationBarrier || opcode == Opcode::kAfterAll ||
        opcode == Opcode::kTuple || opcode == Opcode::kConstant ||
        opcode == Opcode::kIota || opcode == Opcode::kComplex)
      return std::vector<Shape>{t};
    // `: T` means the operands and the result all have type T.
    for (size_t i = 0; i < spec.operands.size(); ++i)
      if (!spec.operands[i]->shape().Compatible(t))
        return lex_.ErrorAt(types.list[0].pos,
                            spec.name + ": operand " + std::to_string(i) +
                                " is " + TypeString(spec.operands[i]->shape()) +
                                ", the op's type says " + TypeString(t));
    return std::vector<Shape>{t};
  }
  if (opcode == Opcode::kSelect && types.list.size() == 2)
    return std::vector<Shape>{types.list[1].shape};
  if (opcode == Opcode::kOptimizationBarrier) return Shapes(types.list);
  return lex_.ErrorAt(types.pos, "expected a function type for " + spec.name);
}

StatusOr<Outcome> Parser::BuildDecomposedChlo(Scope* scope, OpSpec& spec) {
  Computation* computation = scope->computation;
  if (spec.operands.size() != 1)
    return OpError(spec, "expected 1 operand(s), got " +
                             std::to_string(spec.operands.size()));
  ASSIGN_OR_RETURN(std::vector<Shape> results,
                   ResultShapes(spec, Opcode::kNegate));
  if (results.size() != 1 || !results[0].IsArray())
    return OpError(spec, "expected one array result");
  const Shape& shape = results[0];
  Instruction* x = spec.operands[0];
  Outcome outcome;
  if (spec.name == "chlo.square") {
    outcome.inst = Add(computation, Opcode::kMultiply, shape, {x, x});
    return outcome;
  }
  // erfc(x) = 1 - erf(x): exact enough where erf(x) is not close to 1 (|x|
  // below about 2 in f32), which is where JAX programs use it in practice.
  if (!IsFloatingType(shape.element_type()))
    return OpError(spec, "expected a floating-point type");
  Shape scalar = Shape::Scalar(shape.element_type());
  Instruction* one =
      Add(computation, Opcode::kConstant, Shape::Scalar(ElementType::kF32));
  one->literal = Literal::Scalar<float>(1.0f);
  if (shape.element_type() != ElementType::kF32)
    one = Add(computation, Opcode::kConvert, scalar, {one});
  Instruction* ones = Add(computation, Opcode::kBroadcast, shape, {one});
  Instruction* erf = Add(computation, Opcode::kErf, shape, {x});
  outcome.inst = Add(computation, Opcode::kSubtract, shape, {ones, erf});
  return outcome;
}

StatusOr<Outcome> Parser::Build(Scope* scope, OpSpec& spec) {
  Computation* computation = scope->computation;
  if (IsDecomposedChloOp(spec.name)) {
    if (!spec.regions.empty()) return OpError(spec, "unexpected region");
    return BuildDecomposedChlo(scope, spec);
  }
  if (std::optional<SpmdOpKind> kind = SpmdOpKindFromName(spec.name))
    return BuildSpmdOp(scope, spec, *kind);
  Opcode opcode = Opcode::kConditional;
  if (spec.name == "func.call") {
    opcode = Opcode::kCall;
  } else if (spec.name != "stablehlo.if") {
    std::optional<Opcode> found = OpcodeFromStableHloName(spec.name);
    if (!found.has_value()) return OpError(spec, "unsupported operation");
    opcode = *found;
  }
  ASSIGN_OR_RETURN(std::vector<Shape> results, ResultShapes(spec, opcode));
  for (const Shape& r : results)
    if (!r.valid()) return OpError(spec, "invalid result type");
  if (opcode == Opcode::kCustomCall)
    return BuildCustomCall(scope, spec, results);
  if (opcode == Opcode::kConditional)
    return BuildConditional(scope, spec, results);

  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  Shape shape = results.size() == 1 ? results[0] : Shape::Tuple(results);
  auto expect_operands = [&](size_t n) -> Status {
    if (spec.operands.size() != n)
      return OpError(spec, "expected " + std::to_string(n) +
                               " operand(s), got " +
                               std::to_string(spec.operands.size()));
    return Status::Ok();
  };
  auto expect_regions = [&](size_t n) -> Status {
    if (spec.regions.size() != n)
      return OpError(spec, "expected " + std::to_string(n) +
                               " region(s), got " +
                               std::to_string(spec.regions.size()));
    return Status::Ok();
  };
  if (opcode != Opcode::kOptimizationBarrier && opcode != Opcode::kCall &&
      opcode != Opcode::kReduce && opcode != Opcode::kSort &&
      opcode != Opcode::kScatter && opcode != Opcode::kReduceWindow &&
      results.size() != 1)
    return OpError(spec, "expected one result, the type gives " +
                             std::to_string(results.size()));
  std::vector<Instruction*> operands = spec.operands;
  Instruction* inst = nullptr;
  auto make = [&](Opcode op, const Shape& s, std::vector<Instruction*> ops) {
    inst = Add(computation, op, s, std::move(ops));
    return inst;
  };

  if (IsElementwiseUnary(opcode) || opcode == Opcode::kConvert ||
      opcode == Opcode::kBitcastConvert || opcode == Opcode::kReshape) {
    RETURN_IF_ERROR(expect_operands(1));
    make(opcode, shape, operands);
  } else if (IsElementwiseBinary(opcode)) {
    RETURN_IF_ERROR(expect_operands(2));
    make(opcode, shape, operands);
    if (opcode == Opcode::kCompare) {
      const MlirAttr* direction = Attr(spec, "comparison_direction");
      if (direction == nullptr || direction->kind != MlirAttr::Kind::kEnum)
        return OpError(spec, "missing comparison_direction");
      std::optional<ComparisonDirection> d =
          ComparisonDirectionFromName(direction->str);
      if (!d.has_value())
        return lex_.ErrorAt(direction->pos, "unknown comparison direction '" +
                                                direction->str + "'");
      inst->comparison_direction = *d;
      if (const MlirAttr* type = Attr(spec, "compare_type")) {
        if (type->kind != MlirAttr::Kind::kEnum)
          return lex_.ErrorAt(type->pos, "expected a comparison type");
        if (type->str == "NOTYPE") {
          inst->comparison_type = ComparisonType::kDefault;
        } else {
          std::optional<ComparisonType> t = ComparisonTypeFromName(type->str);
          if (!t.has_value() || *t == ComparisonType::kDefault)
            return lex_.ErrorAt(type->pos,
                                "unknown comparison type '" + type->str + "'");
          inst->comparison_type = *t;
        }
      }
    }
  } else if (opcode == Opcode::kSelect || opcode == Opcode::kClamp) {
    RETURN_IF_ERROR(expect_operands(3));
    make(opcode, shape, operands);
  } else if (opcode == Opcode::kConstant) {
    RETURN_IF_ERROR(expect_operands(0));
    const MlirAttr* value = Attr(spec, "value");
    if (value == nullptr) return OpError(spec, "missing value");
    ASSIGN_OR_RETURN(Literal literal, DenseToLiteral(*value, lex_));
    if (!literal.shape().Compatible(shape))
      return OpError(spec, "value has type " + TypeString(literal.shape()) +
                               ", the result " + TypeString(shape));
    make(opcode, shape, {});
    inst->literal = std::move(literal);
  } else if (opcode == Opcode::kIota) {
    RETURN_IF_ERROR(expect_operands(0));
    const MlirAttr* d = Attr(spec, "iota_dimension");
    if (d == nullptr) return OpError(spec, "missing iota_dimension");
    ASSIGN_OR_RETURN(int64_t dim, AttrToInteger(*d, lex_, "iota_dimension"));
    make(opcode, shape, {});
    inst->dimensions = {dim};
  } else if (opcode == Opcode::kBroadcast || opcode == Opcode::kTranspose ||
             opcode == Opcode::kReverse) {
    RETURN_IF_ERROR(expect_operands(1));
    const char* key = opcode == Opcode::kBroadcast   ? "broadcast_dimensions"
                      : opcode == Opcode::kTranspose ? "permutation"
                                                     : "dimensions";
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, Ints(spec, key, true));
    make(opcode, shape, operands);
    inst->dimensions = std::move(dims);
  } else if (opcode == Opcode::kConcatenate) {
    if (operands.empty()) return OpError(spec, "expected operands");
    const MlirAttr* d = Attr(spec, "dimension");
    if (d == nullptr) return OpError(spec, "missing dimension");
    ASSIGN_OR_RETURN(int64_t dim, AttrToInteger(*d, lex_, "dimension"));
    make(opcode, shape, operands);
    inst->dimensions = {dim};
  } else if (opcode == Opcode::kSlice) {
    RETURN_IF_ERROR(expect_operands(1));
    make(opcode, shape, operands);
    ASSIGN_OR_RETURN(inst->slice_starts, Ints(spec, "start_indices", true));
    ASSIGN_OR_RETURN(inst->slice_limits, Ints(spec, "limit_indices", true));
    ASSIGN_OR_RETURN(inst->slice_strides, Ints(spec, "strides", true));
  } else if (opcode == Opcode::kDynamicSlice) {
    if (operands.empty()) return OpError(spec, "expected operands");
    make(opcode, shape, operands);
    ASSIGN_OR_RETURN(inst->dynamic_slice_sizes,
                     Ints(spec, "slice_sizes", true));
  } else if (opcode == Opcode::kDynamicUpdateSlice) {
    if (operands.size() < 2) return OpError(spec, "expected operands");
    make(opcode, shape, operands);
  } else if (opcode == Opcode::kPad) {
    RETURN_IF_ERROR(expect_operands(2));
    ASSIGN_OR_RETURN(std::vector<int64_t> low,
                     Ints(spec, "edge_padding_low", true));
    ASSIGN_OR_RETURN(std::vector<int64_t> high,
                     Ints(spec, "edge_padding_high", true));
    ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                     Ints(spec, "interior_padding", true));
    if (low.size() != high.size() || low.size() != interior.size())
      return OpError(spec, "padding lists differ in length");
    make(opcode, shape, operands);
    for (size_t i = 0; i < low.size(); ++i)
      inst->padding.push_back(PadDimension{low[i], high[i], interior[i]});
  } else if (opcode == Opcode::kDot) {
    RETURN_IF_ERROR(expect_operands(2));
    DotDimensionNumbers dnums;
    const OpSpec* source = &spec;
    OpSpec unpacked;
    if (const MlirAttr* d = Attr(spec, "dot_dimension_numbers")) {
      if (d->kind != MlirAttr::Kind::kDialect)
        return lex_.ErrorAt(d->pos, "expected #stablehlo.dot<...>");
      unpacked.name = spec.name;
      unpacked.pos = spec.pos;
      for (const auto& [k, v] : d->entries) unpacked.attrs[k] = v;
      source = &unpacked;
    }
    ASSIGN_OR_RETURN(dnums.lhs_batch,
                     Ints(*source, "lhs_batching_dimensions", false));
    ASSIGN_OR_RETURN(dnums.rhs_batch,
                     Ints(*source, "rhs_batching_dimensions", false));
    ASSIGN_OR_RETURN(dnums.lhs_contracting,
                     Ints(*source, "lhs_contracting_dimensions", false));
    ASSIGN_OR_RETURN(dnums.rhs_contracting,
                     Ints(*source, "rhs_contracting_dimensions", false));
    if (const MlirAttr* algorithm = Attr(spec, "algorithm"))
      RETURN_IF_ERROR(CheckDotAlgorithm(spec, *algorithm, operands));
    make(opcode, shape, operands);
    inst->dot_dimension_numbers = std::move(dnums);
  } else if (opcode == Opcode::kGather) {
    RETURN_IF_ERROR(expect_operands(2));
    const MlirAttr* d = Attr(spec, "dimension_numbers");
    if (d == nullptr || d->kind != MlirAttr::Kind::kDialect)
      return OpError(spec,
                     "missing dimension_numbers = #stablehlo.gather<...>");
    OpSpec g;
    g.name = spec.name;
    g.pos = d->pos;
    for (const auto& [k, v] : d->entries) g.attrs[k] = v;
    GatherDimensionNumbers dnums;
    ASSIGN_OR_RETURN(dnums.offset_dims, Ints(g, "offset_dims", false));
    ASSIGN_OR_RETURN(dnums.collapsed_slice_dims,
                     Ints(g, "collapsed_slice_dims", false));
    ASSIGN_OR_RETURN(dnums.operand_batching_dims,
                     Ints(g, "operand_batching_dims", false));
    ASSIGN_OR_RETURN(dnums.start_indices_batching_dims,
                     Ints(g, "start_indices_batching_dims", false));
    ASSIGN_OR_RETURN(dnums.start_index_map, Ints(g, "start_index_map", false));
    if (const MlirAttr* ivd = g.attrs.count("index_vector_dim")
                                  ? &g.attrs["index_vector_dim"]
                                  : nullptr) {
      ASSIGN_OR_RETURN(dnums.index_vector_dim,
                       AttrToInteger(*ivd, lex_, "index_vector_dim"));
    }
    make(opcode, shape, operands);
    inst->gather_dimension_numbers = std::move(dnums);
    ASSIGN_OR_RETURN(inst->gather_slice_sizes, Ints(spec, "slice_sizes", true));
    if (const MlirAttr* s = Attr(spec, "indices_are_sorted")) {
      ASSIGN_OR_RETURN(inst->indices_are_sorted,
                       AttrToBool(*s, lex_, "indices_are_sorted"));
    }
  } else if (opcode == Opcode::kGetTupleElement) {
    RETURN_IF_ERROR(expect_operands(1));
    const MlirAttr* index = Attr(spec, "index");
    if (index == nullptr) return OpError(spec, "missing index");
    ASSIGN_OR_RETURN(int64_t i, AttrToInteger(*index, lex_, "index"));
    make(opcode, shape, operands);
    inst->tuple_index = i;
  } else if (opcode == Opcode::kTuple || opcode == Opcode::kAfterAll) {
    make(opcode, shape, operands);
  } else if (opcode == Opcode::kOptimizationBarrier) {
    if (results.size() != operands.size())
      return OpError(spec, "expected as many results as operands");
    if (operands.size() == 1) {
      make(opcode, shape, operands);
    } else {
      // HLO's barrier takes one (tuple) operand.
      std::vector<Shape> shapes;
      for (Instruction* o : operands) shapes.push_back(o->shape());
      Instruction* tuple =
          Add(computation, Opcode::kTuple, Shape::Tuple(shapes), operands);
      make(opcode, shape, {tuple});
    }
  } else if (opcode == Opcode::kCall) {
    const MlirAttr* callee = Attr(spec, "callee");
    if (callee == nullptr || callee->kind != MlirAttr::Kind::kSymbol)
      return OpError(spec, "missing callee");
    FuncInfo* info = GetFunction(callee->str, spec.pos);
    make(opcode, shape, operands);
    inst->AppendCalledComputation(info->computation);
    pending_calls_.push_back(PendingCall{inst, callee->str, spec.pos, results});
  } else if (opcode == Opcode::kReduce || opcode == Opcode::kReduceWindow ||
             opcode == Opcode::kSort || opcode == Opcode::kScatter) {
    RETURN_IF_ERROR(expect_regions(1));
    size_t n = results.size();
    size_t expected = opcode == Opcode::kSort      ? n
                      : opcode == Opcode::kScatter ? 2 * n + 1
                                                   : 2 * n;
    RETURN_IF_ERROR(expect_operands(expected));
    Region& region = spec.regions[0];
    if (region.computation->root() == nullptr)
      RETURN_IF_ERROR(SetRegionRoot(region, spec));
    make(opcode, shape, operands);
    inst->AppendCalledComputation(region.computation);
    if (opcode == Opcode::kReduce) {
      ASSIGN_OR_RETURN(inst->dimensions, Ints(spec, "dimensions", true));
    } else if (opcode == Opcode::kSort) {
      int64_t dim = -1;
      if (const MlirAttr* d = Attr(spec, "dimension")) {
        ASSIGN_OR_RETURN(dim, AttrToInteger(*d, lex_, "dimension"));
      }
      if (dim < 0 && operands[0]->shape().IsArray())
        dim += operands[0]->shape().rank();
      inst->dimensions = {dim};
      if (const MlirAttr* s = Attr(spec, "is_stable")) {
        ASSIGN_OR_RETURN(inst->is_stable, AttrToBool(*s, lex_, "is_stable"));
      }
    } else if (opcode == Opcode::kScatter) {
      const MlirAttr* d = Attr(spec, "scatter_dimension_numbers");
      if (d == nullptr || d->kind != MlirAttr::Kind::kDialect)
        return OpError(
            spec,
            "missing scatter_dimension_numbers = #stablehlo.scatter<...>");
      OpSpec g;
      g.name = spec.name;
      g.pos = d->pos;
      for (const auto& [k, v] : d->entries) g.attrs[k] = v;
      ScatterDimensionNumbers dnums;
      ASSIGN_OR_RETURN(dnums.update_window_dims,
                       Ints(g, "update_window_dims", false));
      ASSIGN_OR_RETURN(dnums.inserted_window_dims,
                       Ints(g, "inserted_window_dims", false));
      ASSIGN_OR_RETURN(dnums.input_batching_dims,
                       Ints(g, "input_batching_dims", false));
      ASSIGN_OR_RETURN(dnums.scatter_indices_batching_dims,
                       Ints(g, "scatter_indices_batching_dims", false));
      ASSIGN_OR_RETURN(dnums.scatter_dims_to_operand_dims,
                       Ints(g, "scatter_dims_to_operand_dims", false));
      if (g.attrs.count("index_vector_dim")) {
        ASSIGN_OR_RETURN(dnums.index_vector_dim,
                         AttrToInteger(g.attrs["index_vector_dim"], lex_,
                                       "index_vector_dim"));
      }
      inst->scatter_dimension_numbers = std::move(dnums);
      if (const MlirAttr* s = Attr(spec, "indices_are_sorted")) {
        ASSIGN_OR_RETURN(inst->indices_are_sorted,
                         AttrToBool(*s, lex_, "indices_are_sorted"));
      }
      if (const MlirAttr* s = Attr(spec, "unique_indices")) {
        ASSIGN_OR_RETURN(inst->unique_indices,
                         AttrToBool(*s, lex_, "unique_indices"));
      }
    } else {  // reduce_window
      ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                       Ints(spec, "window_dimensions", true));
      ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       Ints(spec, "window_strides", false));
      ASSIGN_OR_RETURN(std::vector<int64_t> base,
                       Ints(spec, "base_dilations", false));
      ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                       Ints(spec, "window_dilations", false));
      ASSIGN_OR_RETURN(std::vector<int64_t> padding,
                       Ints(spec, "padding", false));
      size_t rank = sizes.size();
      auto check = [&](const std::vector<int64_t>& v, size_t want,
                       const char* what) -> Status {
        if (!v.empty() && v.size() != want)
          return OpError(
              spec, std::string(what) + " has " + std::to_string(v.size()) +
                        " entries, expected " + std::to_string(want));
        return Status::Ok();
      };
      RETURN_IF_ERROR(check(strides, rank, "window_strides"));
      RETURN_IF_ERROR(check(base, rank, "base_dilations"));
      RETURN_IF_ERROR(check(dilations, rank, "window_dilations"));
      RETURN_IF_ERROR(check(padding, 2 * rank, "padding"));
      for (size_t i = 0; i < rank; ++i) {
        WindowDimension w;
        w.size = sizes[i];
        if (!strides.empty()) w.stride = strides[i];
        if (!base.empty()) w.base_dilation = base[i];
        if (!dilations.empty()) w.window_dilation = dilations[i];
        if (!padding.empty()) {
          w.padding_low = padding[2 * i];
          w.padding_high = padding[2 * i + 1];
        }
        inst->window.push_back(w);
      }
    }
  } else if (opcode == Opcode::kWhile) {
    return OpError(spec, "internal: while reached the generic builder");
  } else {
    return OpError(spec, "unsupported operation");
  }
  if (opcode != Opcode::kReduce && opcode != Opcode::kReduceWindow &&
      opcode != Opcode::kSort && opcode != Opcode::kScatter &&
      !spec.regions.empty())
    return OpError(spec, "unexpected region");
  outcome.inst = inst;
  return outcome;
}

StatusOr<Outcome> Parser::BuildConditional(Scope* scope, OpSpec& spec,
                                           const std::vector<Shape>& results) {
  Computation* computation = scope->computation;
  if (spec.operands.size() != 1)
    return OpError(spec, "expected one operand (the index or predicate)");
  bool is_if = spec.name == "stablehlo.if";
  if (is_if && spec.regions.size() != 2)
    return OpError(spec, "expected 2 regions (true and false branches)");
  if (spec.regions.empty())
    return OpError(spec, "expected at least one branch");
  std::vector<Instruction*> operands = {spec.operands[0]};
  for (size_t b = 0; b < spec.regions.size(); ++b) {
    Region& region = spec.regions[b];
    if (region.returns.size() != results.size())
      return lex_.ErrorAt(region.return_pos,
                          "branch " + std::to_string(b) + " returns " +
                              std::to_string(region.returns.size()) +
                              " value(s), the op has " +
                              std::to_string(results.size()) + " result(s)");
    RETURN_IF_ERROR(SetRegionRoot(region, spec));
    const std::vector<Instruction*>& captures = spec.region_captures[b];
    std::vector<Shape> shapes;
    for (Instruction* c : captures) shapes.push_back(c->shape());
    Shape tuple_shape = Shape::Tuple(shapes);
    region.scope->state->set_shape(tuple_shape);
    operands.push_back(Add(computation, Opcode::kTuple, tuple_shape, captures));
  }
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  Shape shape = results.size() == 1 ? results[0] : Shape::Tuple(results);
  outcome.inst = Add(computation, Opcode::kConditional, shape, operands);
  for (Region& region : spec.regions)
    outcome.inst->AppendCalledComputation(region.computation);
  return outcome;
}

StatusOr<Outcome> Parser::BuildWhile(Scope* scope, OpSpec& spec,
                                     std::vector<Instruction*>& captures) {
  Computation* computation = scope->computation;
  ASSIGN_OR_RETURN(std::vector<Shape> results,
                   ResultShapes(spec, Opcode::kWhile));
  Region& cond = spec.regions[0];
  Region& body = spec.regions[1];
  size_t n = spec.operands.size();
  if (results.size() != n)
    return OpError(spec, "a loop has as many results as operands");
  for (Region* region : {&cond, &body}) {
    if (region->args.size() != n)
      return OpError(spec, "a loop region takes " + std::to_string(n) +
                               " argument(s), it declares " +
                               std::to_string(region->args.size()));
    for (size_t i = 0; i < n; ++i)
      if (!region->args[i].type.shape.Compatible(results[i]))
        return lex_.ErrorAt(region->args[i].pos,
                            "loop variable " + std::to_string(i) + " is " +
                                TypeString(results[i]) + ", the region says " +
                                TypeString(region->args[i].type.shape));
  }
  if (cond.returns.size() != 1)
    return lex_.ErrorAt(cond.return_pos,
                        "a loop condition returns one predicate");
  if (body.returns.size() != n)
    return lex_.ErrorAt(body.return_pos,
                        "the loop body returns " +
                            std::to_string(body.returns.size()) +
                            " value(s), the loop has " + std::to_string(n));
  std::vector<Shape> state_shapes = results;
  for (Instruction* c : captures) state_shapes.push_back(c->shape());
  Shape state = Shape::Tuple(state_shapes);
  cond.scope->state->set_shape(state);
  body.scope->state->set_shape(state);
  cond.computation->set_root(cond.returns[0]);
  // The body hands the captured values on unchanged.
  std::vector<Instruction*> next = body.returns;
  for (size_t k = 0; k < captures.size(); ++k) {
    auto it = body.scope->captured.find(captures[k]);
    Instruction* value = nullptr;
    if (it != body.scope->captured.end()) {
      value = it->second;
    } else {
      value = Add(body.computation, Opcode::kGetTupleElement,
                  captures[k]->shape(), {body.scope->state});
      value->tuple_index = static_cast<int64_t>(n + k);
    }
    next.push_back(value);
  }
  body.computation->set_root(
      Add(body.computation, Opcode::kTuple, state, next));
  std::vector<Instruction*> init = spec.operands;
  init.insert(init.end(), captures.begin(), captures.end());
  Instruction* tuple = Add(computation, Opcode::kTuple, state, init);
  Outcome outcome;
  outcome.inst = Add(computation, Opcode::kWhile, state, {tuple});
  outcome.inst->AppendCalledComputation(cond.computation);
  outcome.inst->AppendCalledComputation(body.computation);
  outcome.count = static_cast<int64_t>(n);
  outcome.tuple = true;
  return outcome;
}

StatusOr<Outcome> Parser::BuildCustomCall(Scope* scope, OpSpec& spec,
                                          const std::vector<Shape>& results) {
  CustomCallConfig config;
  const MlirAttr* target = Attr(spec, "call_target_name");
  if (target == nullptr || target->kind != MlirAttr::Kind::kString)
    return OpError(spec, "missing call_target_name");
  config.target = target->str;
  bool api_given = false;
  if (const MlirAttr* v = Attr(spec, "api_version")) {
    int64_t version = -1;
    if (v->kind == MlirAttr::Kind::kEnum) {
      static const char* const kNames[] = {
          "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
          "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      for (int i = 0; i < 5; ++i)
        if (v->str == kNames[i]) version = i;
    } else {
      StatusOr<int64_t> n = AttrToInteger(*v, lex_, "api_version");
      if (n.ok()) version = *n;
    }
    if (version < 0 || version > 4)
      return lex_.ErrorAt(v->pos, "attribute 'api_version': expected 0 to 4");
    config.api_version = static_cast<CustomCallApiVersion>(version);
    api_given = true;
  }
  if (const MlirAttr* b = Attr(spec, "backend_config")) {
    if (b->kind == MlirAttr::Kind::kString) {
      config.opaque = b->str;
    } else if (b->kind == MlirAttr::Kind::kDictionary) {
      ASSIGN_OR_RETURN(config.attributes, DictionaryToFfiAttributes(*b, lex_));
      if (!api_given) config.api_version = CustomCallApiVersion::kTypedFfi;
    } else {
      return lex_.ErrorAt(
          b->pos,
          "attribute 'backend_config': expected a string or a dictionary");
    }
  }
  // JAX keeps the typed-FFI dictionary in mhlo.backend_config (with the
  // api_version left at its default); XLA reads that as typed FFI.
  if (const MlirAttr* b = Attr(spec, "mhlo.backend_config")) {
    if (b->kind != MlirAttr::Kind::kDictionary)
      return lex_.ErrorAt(
          b->pos, "attribute 'mhlo.backend_config': expected a dictionary");
    ASSIGN_OR_RETURN(config.attributes, DictionaryToFfiAttributes(*b, lex_));
    if (config.api_version == CustomCallApiVersion::kOriginal ||
        config.api_version == CustomCallApiVersion::kUnspecified)
      config.api_version = CustomCallApiVersion::kTypedFfi;
  }
  if (const MlirAttr* s = Attr(spec, "has_side_effect")) {
    ASSIGN_OR_RETURN(config.has_side_effect,
                     AttrToBool(*s, lex_, "has_side_effect"));
  }
  auto layouts = [&](const char* name, const std::vector<Shape>& shapes,
                     std::vector<Shape>* out) -> Status {
    const MlirAttr* list = Attr(spec, name);
    if (list == nullptr) return Status::Ok();
    if (list->kind != MlirAttr::Kind::kArray)
      return lex_.ErrorAt(list->pos, std::string("attribute '") + name +
                                         "': expected a list of layouts");
    if (list->elements.size() != shapes.size())
      return lex_.ErrorAt(list->pos,
                          std::string("attribute '") + name + "' has " +
                              std::to_string(list->elements.size()) +
                              " layouts for " + std::to_string(shapes.size()) +
                              " values");
    for (size_t i = 0; i < shapes.size(); ++i) {
      ASSIGN_OR_RETURN(std::vector<int64_t> m2m,
                       AttrToIntegers(list->elements[i], lex_, name));
      Shape shape = shapes[i];
      if (shape.IsArray()) {
        std::vector<int64_t> sorted = m2m;
        std::sort(sorted.begin(), sorted.end());
        bool permutation = sorted.size() == static_cast<size_t>(shape.rank());
        for (size_t d = 0; permutation && d < sorted.size(); ++d)
          permutation = sorted[d] == static_cast<int64_t>(d);
        if (!permutation)
          return lex_.ErrorAt(list->elements[i].pos,
                              std::string("attribute '") + name + "': layout " +
                                  std::to_string(i) +
                                  " is not a permutation of the " +
                                  std::to_string(shape.rank()) + " dimensions");
        shape.set_minor_to_major(std::move(m2m));
      } else if (!m2m.empty()) {
        return lex_.ErrorAt(list->elements[i].pos,
                            std::string("attribute '") + name + "': a " +
                                TypeString(shape) + " has no layout");
      }
      out->push_back(std::move(shape));
    }
    return Status::Ok();
  };
  std::vector<Shape> operand_shapes;
  for (Instruction* o : spec.operands) operand_shapes.push_back(o->shape());
  RETURN_IF_ERROR(
      layouts("operand_layouts", operand_shapes, &config.operand_layouts));
  RETURN_IF_ERROR(layouts("result_layouts", results, &config.result_layouts));
  // As StableHLO's verifier says: both or neither.
  if ((Attr(spec, "operand_layouts") == nullptr) !=
      (Attr(spec, "result_layouts") == nullptr))
    return OpError(spec,
                   std::string("has ") +
                       (Attr(spec, "operand_layouts") ? "operand_layouts"
                                                      : "result_layouts") +
                       " without " +
                       (Attr(spec, "operand_layouts") ? "result_layouts"
                                                      : "operand_layouts") +
                       "; give both or neither");
  if (const MlirAttr* aliases = Attr(spec, "output_operand_aliases")) {
    if (aliases->kind != MlirAttr::Kind::kArray)
      return lex_.ErrorAt(
          aliases->pos, "attribute 'output_operand_aliases': expected a list");
    for (const MlirAttr& a : aliases->elements) {
      if (a.kind != MlirAttr::Kind::kDialect ||
          a.str != "stablehlo.output_operand_alias")
        return lex_.ErrorAt(a.pos,
                            "expected #stablehlo.output_operand_alias<...>");
      OpSpec fields;
      fields.name = "output_operand_alias";
      fields.pos = a.pos;
      for (const auto& [k, v] : a.entries) fields.attrs[k] = v;
      OutputOperandAlias alias;
      ASSIGN_OR_RETURN(alias.output_index,
                       Ints(fields, "output_tuple_indices", false));
      ASSIGN_OR_RETURN(alias.operand_index,
                       Ints(fields, "operand_tuple_indices", false));
      const MlirAttr* operand = Attr(fields, "operand_index");
      if (operand == nullptr)
        return lex_.ErrorAt(a.pos,
                            "output_operand_alias: missing operand_index");
      ASSIGN_OR_RETURN(alias.operand,
                       AttrToInteger(*operand, lex_, "operand_index"));
      if (alias.operand < 0 ||
          alias.operand >= static_cast<int64_t>(spec.operands.size()))
        return lex_.ErrorAt(operand->pos,
                            "output_operand_alias: operand_index " +
                                std::to_string(alias.operand) +
                                " is out of range");
      config.output_operand_aliases.push_back(std::move(alias));
    }
  }
  // GSPMD's shard_map markers keep their sharding where the emulation reads
  // it (spmd_emulation.h); they have no backend config of their own.
  if (IsGspmdMarker(config.target)) {
    const MlirAttr* sharding = Attr(spec, "mhlo.sharding");
    if (sharding == nullptr || sharding->kind != MlirAttr::Kind::kString)
      return OpError(spec, "@" + config.target +
                               " needs an mhlo.sharding string attribute");
    config.opaque = sharding->str;
  }
  // A typed FFI call's string backend_config holds its attributes, as a
  // dictionary, just as in HLO ("" and "{}": none).
  if (config.api_version == CustomCallApiVersion::kTypedFfi &&
      !config.opaque.empty()) {
    if (config.opaque != "{}") {
      StatusOr<FfiAttributes> attributes =
          ParseMlirAttributeDictionary(config.opaque, "backend_config");
      if (!attributes.ok())
        return lex_.ErrorAt(Attr(spec, "backend_config")->pos,
                            "attribute 'backend_config' of a typed FFI call "
                            "must hold an attribute dictionary: " +
                                attributes.status().message());
      config.attributes = std::move(*attributes);
    }
    config.opaque.clear();
  }
  std::vector<Computation*> called;
  if (const MlirAttr* list = Attr(spec, "called_computations")) {
    if (list->kind != MlirAttr::Kind::kArray)
      return lex_.ErrorAt(
          list->pos,
          "attribute 'called_computations': expected a list of @functions");
    for (const MlirAttr& f : list->elements) {
      if (f.kind != MlirAttr::Kind::kSymbol)
        return lex_.ErrorAt(f.pos,
                            "attribute 'called_computations': expected @name");
      FuncInfo* info = GetFunction(f.str, f.pos);
      called.push_back(info->computation);
    }
  }
  if (!spec.regions.empty()) return OpError(spec, "unexpected region");
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  // As in HLO (and the builder), the result shape carries the layouts the
  // target asks for.
  const std::vector<Shape>& laid_out =
      config.result_layouts.empty() ? results : config.result_layouts;
  Shape shape = laid_out.size() == 1 ? laid_out[0] : Shape::Tuple(laid_out);
  outcome.inst =
      Add(scope->computation, Opcode::kCustomCall, shape, spec.operands);
  outcome.inst->custom_call = std::move(config);
  for (Computation* c : called) outcome.inst->AppendCalledComputation(c);
  return outcome;
}

}  // namespace
}  // namespace text

StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name) {
  text::Parser parser(text, source_name);
  return parser.Run();
}

}  // namespace xffi
