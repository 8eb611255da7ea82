// The StableHLO reader's module structure: the module and its functions,
// blocks and regions, and the values they define and use (see parser.h).
#include "text/stablehlo/parser.h"

#include <algorithm>
#include <memory>
#include <set>

#include "runtime/status_macros.h"
#include "xffi/program/text.h"

namespace xffi::text::stablehlo {

bool IsReturnOp(std::string_view name) {
  return name == "return" || name == "func.return" ||
         name == "stablehlo.return" || name == "sdy.return";
}

bool IsShardingAnnotation(std::string_view name) {
  return name == "sdy.sharding_constraint" || name == "sdy.reshard";
}

std::string PosString(SourcePos pos) {
  return std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

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
  // Refinement: an element of a tuple built here is that operand, so a
  // constant stays a constant (the folded results of a call).
  if (refining_ && tuple->opcode() == Opcode::kTuple &&
      index < tuple->operand_count())
    return tuple->operand(index);
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
  XFFI_ASSIGN_OR_RETURN(Instruction * outer, Resolve(scope->parent, base, index,
                                                     explicit_index, pos));
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
      // Refinement: a dimension value stays a constant inside the region,
      // so the shapes computed from it there fold too.
      if (refining_ && outer->opcode() == Opcode::kConstant &&
          outer->shape().IsArray() && outer->shape().num_elements() <= 64) {
        local = Add(scope->computation, Opcode::kConstant, outer->shape());
        local->literal = outer->literal;
        break;
      }
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

// --- Module structure --------------------------------------------------------

StatusOr<Module> Parser::Run() {
  while (!lex_.At(TokenKind::kEof)) {
    if (lex_.At(TokenKind::kHashId)) {
      XFFI_RETURN_IF_ERROR(ParseLocAliasDefinition());
    } else if (lex_.AtKeyword("module")) {
      if (have_module_) return lex_.Expected("a single module");
      XFFI_RETURN_IF_ERROR(ParseModule());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "builtin.module") {
      if (have_module_) return lex_.Expected("a single module");
      XFFI_RETURN_IF_ERROR(ParseGenericModule());
    } else if (lex_.AtKeyword("func.func")) {
      XFFI_RETURN_IF_ERROR(ParseFunction());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "func.func") {
      XFFI_RETURN_IF_ERROR(ParseGenericFunction());
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
  return Assemble(main->second.computation);
}

StatusOr<Module> Parser::Assemble(Computation* entry) {
  for (auto& [inst, node] : pending_locs_) {
    Location location = inst->location();
    location.name = LocName(node, 0);
    inst->set_location(std::move(location));
  }
  pending_locs_.clear();
  // Callees before callers, the entry last.
  Module module(module_name_);
  module.set_op_spelling(OpSpelling::kStableHlo);
  module.set_num_partitions(num_partitions_);
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
    XFFI_ASSIGN_OR_RETURN(MlirAttr attributes, attrs_.ParseDictionary());
    // How many devices the program was compiled for (what a GSPMD
    // shard_map whose shardings are all replicated runs on).
    if (const MlirAttr* n = attributes.Find("mhlo.num_partitions")) {
      XFFI_ASSIGN_OR_RETURN(num_partitions_,
                            AttrToInteger(*n, lex_, "mhlo.num_partitions"));
      if (num_partitions_ < 0 || num_partitions_ > (1 << 16))
        return lex_.ErrorAt(n->pos, "mhlo.num_partitions is out of range");
    }
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLBrace, "'{' to open the module"));
  XFFI_RETURN_IF_ERROR(ParseModuleItems());
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRBrace, "'}' to close the module"));
  return SkipOptionalLoc();
}

Status Parser::ParseGenericModule() {
  have_module_ = true;
  lex_.Next();  // "builtin.module"
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'('"));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRParen, "')' (a module has no operands)"));
  if (attrs_.Consume(TokenKind::kLess)) {
    XFFI_ASSIGN_OR_RETURN(MlirAttr props, attrs_.ParseDictionary());
    if (const MlirAttr* name = props.Find("sym_name");
        name && name->kind == MlirAttr::Kind::kString)
      module_name_ = name->str;
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kGreater, "'>' after the properties"));
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the module's region"));
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLBrace, "'{'"));
  XFFI_RETURN_IF_ERROR(ParseModuleItems());
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRBrace, "'}'"));
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
  XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the module's type"));
  TypeSpec spec;
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec));
  return SkipOptionalLoc();
}

Status Parser::ParseModuleItems() {
  while (!lex_.At(TokenKind::kRBrace)) {
    if (lex_.AtKeyword("func.func")) {
      XFFI_RETURN_IF_ERROR(ParseFunction());
    } else if (lex_.At(TokenKind::kString) &&
               lex_.peek().value == "func.func") {
      XFFI_RETURN_IF_ERROR(ParseGenericFunction());
    } else if (lex_.AtKeyword("sdy.mesh")) {
      XFFI_RETURN_IF_ERROR(ParseSdyMeshDefinition());
    } else {
      return lex_.Expected("'func.func', 'sdy.mesh' or '}'");
    }
  }
  return Status::Ok();
}

Status Parser::ParseFunction() {
  MlirLexer::State start = lex_.Save();
  SourcePos pos = lex_.Next().pos;  // func.func
  if (lex_.AtKeyword("public") || lex_.AtKeyword("private") ||
      lex_.AtKeyword("nested"))
    lex_.Next();
  if (!lex_.At(TokenKind::kAtId))
    return lex_.Expected("a function name (@name)");
  std::string name = lex_.Next().value;
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the arguments"));
  std::vector<BlockArg> args;
  if (!attrs_.Consume(TokenKind::kRParen)) {
    while (true) {
      BlockArg arg;
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("an argument (%name: type)");
      arg.name = lex_.Next().value;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kColon, "':' and the argument's type"));
      XFFI_ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
      XFFI_RETURN_IF_ERROR(
          ParseValueAttributes(&arg.sharding, &arg.jax_name,
                               "argument " + std::to_string(args.size())));
      if (lex_.AtKeyword("loc")) {
        XFFI_ASSIGN_OR_RETURN(arg.loc, ParseLoc());
      }
      args.push_back(std::move(arg));
      if (attrs_.Consume(TokenKind::kComma)) continue;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRParen, "',' or ')' after an argument"));
      break;
    }
  }
  std::vector<Shape> results;
  std::vector<std::optional<HloSharding>> result_shardings;
  std::vector<std::string> result_names;
  if (attrs_.Consume(TokenKind::kArrow)) {
    if (attrs_.Consume(TokenKind::kLParen)) {
      if (!attrs_.Consume(TokenKind::kRParen)) {
        while (true) {
          XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
          results.push_back(type.shape);
          XFFI_RETURN_IF_ERROR(ParseValueAttributes(
              &result_shardings.emplace_back(), &result_names.emplace_back(),
              "result " + std::to_string(results.size() - 1)));
          XFFI_RETURN_IF_ERROR(SkipOptionalLoc());
          if (attrs_.Consume(TokenKind::kComma)) continue;
          XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen,
                                             "',' or ')' after a result type"));
          break;
        }
      }
    } else {
      XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
      results.push_back(type.shape);
    }
  }
  if (lex_.AtKeyword("attributes")) {
    lex_.Next();
    XFFI_ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  FuncInfo* info = nullptr;
  if (refining_) {
    info = specialization_;
  } else {
    function_starts_.emplace(name, FunctionStart{start, false});
    info = GetFunction(name, pos);
  }
  if (info->defined)
    return lex_.ErrorAt(pos, "redefinition of function @" + name);
  XFFI_RETURN_IF_ERROR(
      ParseFunctionBody(info, name, std::move(args), results, pos));
  // The program's result shardings (jax.jit's out_shardings); a function
  // @main calls keeps none (it is called, or inlined, where @main says).
  bool any = false;
  for (const auto& sharding : result_shardings)
    any = any || sharding.has_value();
  if (name == "main" && any)
    info->computation->set_result_shardings(std::move(result_shardings));
  // And the names jax.jit gives them (jax.result_info: "result[0]['out']"),
  // kept as the shardings are.
  bool named = false;
  for (const std::string& result_name : result_names)
    named = named || !result_name.empty();
  if (name == "main" && named)
    info->computation->set_result_names(std::move(result_names));
  return SkipOptionalLoc();
}

StatusOr<std::vector<std::string>> Parser::GenericValueNames(
    const MlirAttr& props, std::string_view list, std::string_view key,
    size_t count) const {
  std::vector<std::string> names;
  const MlirAttr* dictionaries = props.Find(list);
  if (dictionaries == nullptr) return names;
  if (dictionaries->kind != MlirAttr::Kind::kArray ||
      dictionaries->elements.size() != count)
    return lex_.ErrorAt(dictionaries->pos,
                        std::string(list) + " must be a list of " +
                            std::to_string(count) + " dictionaries");
  bool named = false;
  for (const MlirAttr& dictionary : dictionaries->elements) {
    const MlirAttr* value = dictionary.kind == MlirAttr::Kind::kDictionary
                                ? dictionary.Find(key)
                                : nullptr;
    if (value != nullptr && value->kind != MlirAttr::Kind::kString)
      return lex_.ErrorAt(
          value->pos,
          std::string(key) + " in " + std::string(list) + " must be a string");
    names.push_back(value != nullptr ? value->str : "");
    named = named || !names.back().empty();
  }
  if (!named) names.clear();
  return names;
}

Status Parser::ParseGenericFunction() {
  MlirLexer::State start = lex_.Save();
  SourcePos pos = lex_.Next().pos;  // "func.func"
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen, "'('"));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRParen, "')' (a function has no operands)"));
  MlirAttr props;
  if (attrs_.Consume(TokenKind::kLess)) {
    XFFI_ASSIGN_OR_RETURN(props, attrs_.ParseDictionary());
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kGreater, "'>' after the properties"));
  }
  if (lex_.At(TokenKind::kLBrace) && props.entries.empty()) {
    XFFI_ASSIGN_OR_RETURN(props, attrs_.ParseDictionary());
  }
  const MlirAttr* sym = props.Find("sym_name");
  const MlirAttr* type = props.Find("function_type");
  if (!sym || sym->kind != MlirAttr::Kind::kString || !type ||
      !type->is_function_type)
    return lex_.ErrorAt(pos, "func.func needs sym_name and function_type");
  std::string name = sym->str;
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the function's body"));
  if (!lex_.At(TokenKind::kLBrace)) return lex_.Expected("'{'");
  // The body's entry block names the arguments.
  std::vector<BlockArg> args;
  {
    // Peek into the region: '{' '^bb0(...)' ':'.
    lex_.Next();
    if (lex_.At(TokenKind::kCaretId))
      XFFI_RETURN_IF_ERROR(ParseBlockArgs(&args));
  }
  if (args.size() != type->function_inputs.size())
    return lex_.ErrorAt(pos, "function @" + name + " declares " +
                                 std::to_string(type->function_inputs.size()) +
                                 " arguments, its block has " +
                                 std::to_string(args.size()));
  FuncInfo* info = nullptr;
  if (refining_) {
    info = specialization_;
  } else {
    function_starts_.emplace(name, FunctionStart{start, true});
    info = GetFunction(name, pos);
  }
  if (info->defined)
    return lex_.ErrorAt(pos, "redefinition of function @" + name);
  // JAX's names for the arguments and results, as the pretty form's
  // attribute dictionaries give them (ParseValueAttributes).
  XFFI_ASSIGN_OR_RETURN(
      std::vector<std::string> arg_names,
      GenericValueNames(props, "arg_attrs", "jax.arg_info", args.size()));
  for (size_t i = 0; i < arg_names.size(); ++i) args[i].jax_name = arg_names[i];
  XFFI_ASSIGN_OR_RETURN(std::vector<std::string> result_names,
                        GenericValueNames(props, "res_attrs", "jax.result_info",
                                          type->function_results.size()));
  XFFI_RETURN_IF_ERROR(ParseFunctionBody(info, name, std::move(args),
                                         Shapes(type->function_results), pos));
  if (name == "main" && !result_names.empty())
    info->computation->set_result_names(std::move(result_names));
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')' after the body"));
  XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  TypeSpec spec;
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec));
  return SkipOptionalLoc();
}

// The lexer is at the body's '{' (pretty) or just inside it after the block
// arguments (generic: then `args` came from the block header).
Status Parser::ParseFunctionBody(FuncInfo* info, const std::string& name,
                                 std::vector<BlockArg> args,
                                 const std::vector<Shape>& results,
                                 SourcePos pos) {
  if (lex_.At(TokenKind::kLBrace)) lex_.Next();
  // Refinement: the arguments take the signature's shapes (and values).
  const Signature* signature = signature_;
  signature_ = nullptr;
  if (signature != nullptr) {
    if (signature->shapes.size() != args.size())
      return lex_.ErrorAt(
          pos, "@" + name + " takes " + std::to_string(args.size()) +
                   " argument(s), " + std::to_string(signature->shapes.size()) +
                   " were given");
    for (size_t i = 0; i < args.size(); ++i) {
      const Shape& given = signature->shapes[i];
      if (!MatchesDeclared(given, args[i].type.shape))
        return lex_.ErrorAt(
            args[i].pos, "argument " + std::to_string(i) + " (%" +
                             args[i].name + ") of @" + name + " is " +
                             TypeString(args[i].type.shape) + ", refined to " +
                             TypeString(given) + ", which does not match");
      args[i].type.shape = given;
    }
  }
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
    p->set_location(Location{source_, args[i].pos.line, args[i].pos.column,
                             args[i].jax_name});
    if (args[i].jax_name.empty() && args[i].loc.has_value())
      pending_locs_.emplace_back(p, *args[i].loc);
    p->sharding = args[i].sharding;
    if (scope.defs.count(args[i].name))
      return lex_.ErrorAt(args[i].pos, "redefinition of %" + args[i].name);
    Instruction* value = p;
    // A dimension variable the caller knows: its uses see the constant,
    // so the shapes computed from it fold.
    if (signature != nullptr && signature->constants[i].has_value()) {
      value = Add(computation, Opcode::kConstant, args[i].type.shape);
      value->literal = *signature->constants[i];
      value->set_location(p->location());
    }
    scope.defs[args[i].name] = Definition{value, 1, false, 0};
  }
  Region region;
  XFFI_RETURN_IF_ERROR(ParseBlock(&scope, &region));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRBrace, "'}' to close the function"));
  if (region.returns.size() != results.size())
    return lex_.ErrorAt(region.return_pos,
                        "@" + name + " returns " +
                            std::to_string(region.returns.size()) +
                            " value(s), its signature declares " +
                            std::to_string(results.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (!MatchesDeclared(region.returns[i]->shape(), results[i]))
      return lex_.ErrorAt(
          region.return_pos,
          "@" + name + " returns " + TypeString(region.returns[i]->shape()) +
              " as result " + std::to_string(i) + ", its signature declares " +
              TypeString(results[i]));
  if (refining_)
    for (size_t i = 0; i < results.size(); ++i)
      info->results[i] = region.returns[i]->shape();
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
    XFFI_RETURN_IF_ERROR(ParseOperation(scope, region, &returned));
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
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a type"));
    XFFI_ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
    XFFI_RETURN_IF_ERROR(SkipOptionalLoc());
    args->push_back(std::move(arg));
    if (attrs_.Consume(TokenKind::kComma)) continue;
    return attrs_.Expect(TokenKind::kRParen, "',' or ')' after " + what);
  }
}

Status Parser::ParseBlockArgs(std::vector<BlockArg>* args) {
  lex_.Next();  // ^bb0
  if (attrs_.Consume(TokenKind::kLParen))
    XFFI_RETURN_IF_ERROR(ParseTypedArgs(args, "a block argument"));
  return attrs_.Expect(TokenKind::kColon, "':' after the block header");
}

StatusOr<Region> Parser::ParseRegion(Scope* parent, RegionKind kind,
                                     const std::string& owner,
                                     const std::string& name,
                                     std::vector<BlockArg> args,
                                     std::vector<Instruction*>* captures,
                                     const std::vector<Instruction*>* initial) {
  if (++depth_ > kMaxNesting) {
    --depth_;
    return lex_.Expected("less deeply nested regions");
  }
  struct Leave {
    int* depth;
    ~Leave() { --*depth; }
  } leave{&depth_};
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLBrace, "'{' to open a region"));
  if (lex_.At(TokenKind::kCaretId)) {
    if (!args.empty())
      return lex_.ErrorAt(lex_.peek().pos, "unexpected block header");
    XFFI_RETURN_IF_ERROR(ParseBlockArgs(&args));
    // Refinement of a loop in the generic form: its regions' block
    // arguments take the initial values' shapes, as the pretty form's loop
    // variables do, so the regions are read with static shapes.
    if (refining_ && initial != nullptr) {
      if (args.size() != initial->size())
        return lex_.ErrorAt(
            args.empty() ? lex_.peek().pos : args[0].pos,
            "a region of " + owner + " takes " + std::to_string(args.size()) +
                " argument(s), the loop has " +
                std::to_string(initial->size()) + " variable(s)");
      for (size_t i = 0; i < args.size(); ++i) {
        const Shape& init = (*initial)[i]->shape();
        if (!MatchesDeclared(init, args[i].type.shape))
          return lex_.ErrorAt(args[i].pos,
                              "loop variable " + std::to_string(i) + " is " +
                                  TypeString(args[i].type.shape) +
                                  ", its initial value " + TypeString(init));
        args[i].type.shape = init;
      }
    }
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
        XFFI_RETURN_IF_ERROR(define(args[i], p));
      }
      break;
    case RegionKind::kLoopState: {
      std::vector<Shape> shapes;
      for (const BlockArg& arg : args) shapes.push_back(arg.type.shape);
      scope->state =
          AddParameter(region.computation, 0, Shape::Tuple(shapes), "state");
      scope->declared = static_cast<int64_t>(args.size());
      for (size_t i = 0; i < args.size(); ++i)
        XFFI_RETURN_IF_ERROR(define(
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
  XFFI_RETURN_IF_ERROR(ParseBlock(scope, &region));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kRBrace, "'}' to close the region"));
  return region;
}

}  // namespace xffi::text::stablehlo

namespace xffi {

StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name) {
  text::stablehlo::Parser parser(text, source_name);
  return parser.Run();
}

StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name,
                                const ParseOptions& options) {
  text::stablehlo::Parser first(text, source_name);
  XFFI_ASSIGN_OR_RETURN(Module module, first.Run());
  if (!options.argument_shapes.has_value()) return module;
  if (!IsShapePolymorphic(module))
    return text::stablehlo::CheckArgumentShapes(
        std::move(module), *options.argument_shapes, source_name);
  text::stablehlo::Parser second(text, source_name);
  return second.RunRefined(first, *options.argument_shapes);
}

}  // namespace xffi
