// Op syntax: an operation's result names, its pretty form (operands,
// `keyword = value` clauses, regions, the type) or generic form
// ("op.name"(operands) <{properties}> ({regions}) {attributes} : type),
// read into an OpSpec that Build turns into instructions (ops.cc).
#include "text/stablehlo/parser.h"

#include <optional>
#include <string_view>
#include <utility>

#include "runtime/status_macros.h"

namespace xffi::text::stablehlo {

bool IsDecomposedChloOp(std::string_view name) { return name == "chlo.square"; }

bool IsSupportedOpName(std::string_view name) {
  return OpcodeFromStableHloName(name).has_value() || name == "stablehlo.if" ||
         name == "call" || IsReturnOp(name) || IsDecomposedChloOp(name) ||
         name == "stablehlo.composite" || IsShapeDynamicOp(name);
}

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
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kEqual, "'=' after the result names"));
  }
  Computation* computation = scope->computation;
  size_t first_new = static_cast<size_t>(computation->instruction_count());
  op_start_ = start;
  Outcome outcome;
  SourcePos op_pos = lex_.peek().pos;
  if (lex_.At(TokenKind::kString)) {
    std::string name = lex_.Next().value;
    XFFI_ASSIGN_OR_RETURN(outcome, ParseGenericOp(scope, name, op_pos));
  } else if (lex_.At(TokenKind::kBareId)) {
    std::string name = lex_.Next().value;
    XFFI_ASSIGN_OR_RETURN(outcome, ParsePrettyOp(scope, name, op_pos));
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
    XFFI_RETURN_IF_ERROR(Define(scope, names, outcome, start));
  }
  std::optional<LocNode> loc;
  if (lex_.AtKeyword("loc")) {
    XFFI_ASSIGN_OR_RETURN(loc, ParseLoc());
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
    XFFI_ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
    operands->push_back(value);
    if (attrs_.Consume(TokenKind::kComma)) continue;
    return attrs_.Expect(
        close, close == TokenKind::kRParen ? "',' or ')'" : "',' or ']'");
  }
}

StatusOr<Outcome> Parser::ParseReturn(Scope* scope, bool generic) {
  Outcome outcome;
  outcome.is_return = true;
  if (generic) {
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
    XFFI_RETURN_IF_ERROR(
        ParseOperandList(scope, &outcome.returns, TokenKind::kRParen));
    XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
    TypeSpec types;
    XFFI_RETURN_IF_ERROR(ParseTypeSpec(&types));
    return outcome;
  }
  if (!lex_.At(TokenKind::kPercentId)) return outcome;  // returns nothing
  while (true) {
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("a value");
    XFFI_ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
    outcome.returns.push_back(value);
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the returned types"));
  SourcePos types_pos = lex_.peek().pos;
  std::vector<MlirType> types;
  while (true) {
    XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
    types.push_back(std::move(type));
    if (!attrs_.Consume(TokenKind::kComma)) break;
  }
  if (types.size() != outcome.returns.size())
    return lex_.ErrorAt(types_pos,
                        "return has " + std::to_string(outcome.returns.size()) +
                            " operand(s) and " + std::to_string(types.size()) +
                            " type(s)");
  for (size_t i = 0; i < types.size(); ++i)
    if (!MatchesDeclared(outcome.returns[i]->shape(), types[i].shape))
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
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the arguments"));
  OpSpec spec;
  spec.name = "func.call";
  spec.pos = pos;
  XFFI_RETURN_IF_ERROR(
      ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the call's type"));
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  MlirAttr symbol;
  symbol.kind = MlirAttr::Kind::kSymbol;
  symbol.str = callee;
  spec.attrs["callee"] = symbol;
  return Build(scope, spec);
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
    XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the type"));
    XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
    return Build(scope, spec);
  }
  if (name == "stablehlo.set_dimension_size")
    return lex_.ErrorAt(pos, BoundedSizeRefusal(name));
  if (!IsSupportedOpName(name))
    return lex_.ErrorAt(pos, "unsupported operation '" + name + "'");
  OpSpec spec;
  spec.name = name;
  spec.pos = pos;
  if (name == "stablehlo.constant") {
    if (lex_.At(TokenKind::kLBrace)) {
      XFFI_ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
      for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
    }
    XFFI_ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
    if (value.kind != MlirAttr::Kind::kDense)
      return lex_.ErrorAt(value.pos, "expected a dense<...> value");
    spec.types.list.push_back(value.dense_type);
    spec.attrs["value"] = std::move(value);
    return Build(scope, spec);
  }
  // The next token's text as a string attribute (a call target, a name).
  auto take_string = [&]() {
    MlirAttr attr;
    attr.kind = MlirAttr::Kind::kString;
    attr.pos = lex_.peek().pos;
    attr.str = lex_.Next().value;
    return attr;
  };
  // `(%a, %b)`: operands in parentheses after the op's leading fields.
  auto parenthesised_operands = [&]() -> Status {
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
    return ParseOperandList(scope, &spec.operands, TokenKind::kRParen);
  };
  if (name == "stablehlo.custom_call") {
    if (!lex_.At(TokenKind::kAtId))
      return lex_.Expected("a call target (@name)");
    spec.attrs["call_target_name"] = take_string();
    XFFI_RETURN_IF_ERROR(parenthesised_operands());
  }
  if (name == "stablehlo.convolution" || name == "stablehlo.dynamic_conv")
    XFFI_RETURN_IF_ERROR(parenthesised_operands());
  if (name == "stablehlo.composite") {
    // stablehlo.composite "name" %operands {decomposition = @f, ...}
    if (!lex_.At(TokenKind::kString))
      return lex_.Expected("the composite's name (a string)");
    spec.attrs["name"] = take_string();
  }
  if (name == "chlo.top_k" && attrs_.Consume(TokenKind::kLParen)) {
    // chlo.top_k(%operand, k = 3)
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
    XFFI_ASSIGN_OR_RETURN(Instruction * operand, Use(scope, lex_.Next()));
    spec.operands.push_back(operand);
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kComma, "',' and k = N"));
    XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("k"));
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual, "'=' after k"));
    XFFI_ASSIGN_OR_RETURN(spec.attrs["k"], attrs_.ParseIntegerLiteral());
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')' after k"));
  }
  return ParsePrettyCommon(scope, std::move(spec));
}

// Operands and `keyword = value` clauses, an optional attribute dictionary,
// then the types: the shape most pretty ops share.
StatusOr<Outcome> Parser::ParsePrettyCommon(Scope* scope, OpSpec spec) {
  const std::string& name = spec.name;
  int bare_words = 0;
  auto int_list = [&](const std::string& key) -> Status {
    XFFI_ASSIGN_OR_RETURN(MlirAttr list, attrs_.ParseIntegerList());
    spec.attrs[key] = std::move(list);
    return Status::Ok();
  };
  bool first = true;
  while (!lex_.At(TokenKind::kColon) && !lex_.At(TokenKind::kLBrace)) {
    if (!first && !attrs_.Consume(TokenKind::kComma)) break;
    first = false;
    if (lex_.At(TokenKind::kPercentId)) {
      XFFI_ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
      spec.operands.push_back(value);
      if (name == "stablehlo.get_tuple_element" &&
          attrs_.Consume(TokenKind::kLSquare)) {
        XFFI_ASSIGN_OR_RETURN(MlirAttr index, attrs_.ParseIntegerLiteral());
        spec.attrs["index"] = std::move(index);
        XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRSquare, "']'"));
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
              XFFI_ASSIGN_OR_RETURN(part[k], attrs_.ParseIntegerLiteral());
              if (k == 0)
                XFFI_RETURN_IF_ERROR(
                    attrs_.Expect(TokenKind::kColon, "':' in a slice range"));
            }
            starts.elements.push_back(part[0]);
            limits.elements.push_back(part[1]);
            strides.elements.push_back(part[2]);
            if (attrs_.Consume(TokenKind::kComma)) continue;
            XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRSquare,
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
        XFFI_RETURN_IF_ERROR(int_list("broadcast_dimensions"));
      else if (name == "stablehlo.transpose")
        XFFI_RETURN_IF_ERROR(int_list("permutation"));
      else
        XFFI_RETURN_IF_ERROR(int_list("dimensions"));
    } else if (kw == "dim") {
      XFFI_ASSIGN_OR_RETURN(MlirAttr d, attrs_.ParseIntegerLiteral());
      spec.attrs[name == "stablehlo.iota" ? "iota_dimension" : "dimension"] = d;
    } else if (kw == "sizes") {
      XFFI_RETURN_IF_ERROR(int_list("slice_sizes"));
    } else if (kw == "low") {
      XFFI_RETURN_IF_ERROR(int_list("edge_padding_low"));
    } else if (kw == "high") {
      XFFI_RETURN_IF_ERROR(int_list("edge_padding_high"));
    } else if (kw == "interior") {
      XFFI_RETURN_IF_ERROR(int_list("interior_padding"));
    } else if (kw == "contracting_dims" || kw == "batching_dims") {
      std::string part = kw == "contracting_dims" ? "contracting_dimensions"
                                                  : "batching_dimensions";
      XFFI_RETURN_IF_ERROR(int_list("lhs_" + part));
      XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("x"));
      XFFI_RETURN_IF_ERROR(int_list("rhs_" + part));
    } else if (kw == "precision") {
      XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLSquare, "'['"));
      while (lex_.At(TokenKind::kBareId)) {
        lex_.Next();
        if (!attrs_.Consume(TokenKind::kComma)) break;
      }
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRSquare, "']' after the precisions"));
    } else if (kw == "dim_numbers") {
      XFFI_ASSIGN_OR_RETURN(spec.attrs["dimension_numbers"],
                            attrs_.ParseConvDimensionNumbers());
    } else if (kw == "window" && (name == "stablehlo.convolution" ||
                                  name == "stablehlo.dynamic_conv")) {
      // window = {stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..],
      // rhs_dilate = [..], reverse = [..]}: the generic form's attributes
      // under shorter names.
      XFFI_ASSIGN_OR_RETURN(MlirAttr window, attrs_.ParseDictionary());
      for (MlirNamedAttr& field : window.entries) {
        static constexpr std::pair<std::string_view, std::string_view>
            kNames[] = {{"stride", "window_strides"},
                        {"pad", "padding"},
                        {"lhs_dilate", "lhs_dilation"},
                        {"rhs_dilate", "rhs_dilation"},
                        {"reverse", "window_reversal"}};
        std::string_view generic;
        for (const auto& [pretty, full] : kNames)
          if (field.name == pretty) generic = full;
        if (generic.empty())
          return lex_.ErrorAt(field.value.pos,
                              "unknown window field '" + field.name + "'");
        spec.attrs[std::string(generic)] = std::move(field.value);
      }
    } else if (lex_.At(TokenKind::kBareId) &&
               (kw == "type" || kw == "algorithm" || kw == "format" ||
                kw == "distribution")) {
      // fft's type, rng_bit_generator's algorithm, reduce_precision's
      // format, rng's distribution: a bare word.
      MlirAttr e;
      e.kind = MlirAttr::Kind::kEnum;
      e.pos = lex_.peek().pos;
      e.str = lex_.Next().value;
      spec.attrs[kw] = std::move(e);
    } else if (kw == "algorithm") {
      // algorithm = <lhs_precision_type = bf16, ...>: the parameters the
      // generic form writes as #stablehlo.dot_algorithm<...>; the dot
      // builder decides whether xffi computes what they ask.
      MlirAttr algorithm;
      algorithm.kind = MlirAttr::Kind::kDialect;
      algorithm.str = "stablehlo.dot_algorithm";
      algorithm.pos = word.pos;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kLess, "'<' after algorithm ="));
      while (!attrs_.Consume(TokenKind::kGreater)) {
        if (!lex_.At(TokenKind::kBareId))
          return lex_.Expected("a parameter name in algorithm = <...>");
        std::string key = lex_.Next().value;
        XFFI_RETURN_IF_ERROR(
            attrs_.Expect(TokenKind::kEqual, "'=' after '" + key + "'"));
        XFFI_ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
        algorithm.entries.push_back(
            MlirNamedAttr{std::move(key), std::move(value)});
        if (!attrs_.Consume(TokenKind::kComma)) {
          XFFI_RETURN_IF_ERROR(attrs_.Expect(
              TokenKind::kGreater, "',' or '>' in algorithm = <...>"));
          break;
        }
      }
      spec.attrs["algorithm"] = std::move(algorithm);
    } else {
      XFFI_ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
      spec.attrs[kw] = std::move(value);
    }
  }
  if (lex_.At(TokenKind::kLBrace)) {
    XFFI_ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  return Build(scope, spec);
}

StatusOr<Outcome> Parser::ParsePrettyReduce(Scope* scope, SourcePos pos) {
  OpSpec spec;
  spec.name = "stablehlo.reduce";
  spec.pos = pos;
  std::vector<Instruction*> inputs, inits;
  while (true) {
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kLParen, "'(' and an operand"));
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
    XFFI_ASSIGN_OR_RETURN(Instruction * input, Use(scope, lex_.Next()));
    XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("init"));
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' after 'init'"));
    if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an init value");
    XFFI_ASSIGN_OR_RETURN(Instruction * init, Use(scope, lex_.Next()));
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
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
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("across"));
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("dimensions"));
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kEqual, "'='"));
  XFFI_ASSIGN_OR_RETURN(spec.attrs["dimensions"], attrs_.ParseIntegerList());
  if (lex_.At(TokenKind::kLBrace)) {
    XFFI_ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
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
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("reducer"));
  std::vector<BlockArg> args(inputs.size() * 2);
  for (size_t i = 0; i < inputs.size(); ++i) {
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kLParen,
                                       "'(' and a pair of reducer arguments"));
    for (size_t k = 0; k < 2; ++k) {
      BlockArg& arg = args[k * inputs.size() + i];
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("a reducer argument");
      arg.name = lex_.Next().value;
      XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and a type"));
      XFFI_ASSIGN_OR_RETURN(arg.type, attrs_.ParseType());
      XFFI_RETURN_IF_ERROR(SkipOptionalLoc());
      if (k == 0) XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kComma, "','"));
    }
    XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "')'"));
  }
  XFFI_ASSIGN_OR_RETURN(Region region,
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
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the loop variables"));
  if (!attrs_.Consume(TokenKind::kRParen)) {
    while (true) {
      BlockArg arg;
      arg.pos = lex_.peek().pos;
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("a loop variable");
      arg.name = lex_.Next().value;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kEqual, "'=' and an initial value"));
      if (!lex_.At(TokenKind::kPercentId))
        return lex_.Expected("an initial value");
      XFFI_ASSIGN_OR_RETURN(Instruction * init, Use(scope, lex_.Next()));
      spec.operands.push_back(init);
      args.push_back(std::move(arg));
      if (attrs_.Consume(TokenKind::kComma)) continue;
      XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kRParen, "',' or ')'"));
      break;
    }
  }
  if (attrs_.Consume(TokenKind::kColon)) {
    SourcePos types_pos = lex_.peek().pos;
    std::vector<MlirType> types;
    while (true) {
      XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
      types.push_back(std::move(type));
      if (!attrs_.Consume(TokenKind::kComma)) break;
    }
    if (types.size() != args.size())
      return lex_.ErrorAt(
          types_pos, "the loop has " + std::to_string(args.size()) +
                         " variable(s) and " + std::to_string(types.size()) +
                         " type(s)");
    for (size_t i = 0; i < args.size(); ++i) {
      args[i].type = types[i];
      // Refinement: loop variables take their initial values' shapes.
      if (refining_) {
        const Shape& init = spec.operands[i]->shape();
        if (!MatchesDeclared(init, types[i].shape))
          return lex_.ErrorAt(types[i].pos,
                              "loop variable " + std::to_string(i) + " is " +
                                  TypeString(types[i].shape) +
                                  ", its initial value " + TypeString(init));
        args[i].type.shape = init;
      }
    }
  } else if (!args.empty()) {
    return lex_.Expected("':' and the loop variables' types");
  }
  if (lex_.AtKeyword("attributes")) {
    lex_.Next();
    XFFI_ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
    (void)ignored;
  }
  for (const BlockArg& arg : args) spec.types.outputs.push_back(arg.type);
  spec.types.inputs = spec.types.outputs;
  spec.types.functional = true;
  std::vector<Instruction*> captures;
  std::string owner = "stablehlo.while at " + PosString(pos);
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("cond"));
  XFFI_ASSIGN_OR_RETURN(Region cond,
                        ParseRegion(scope, RegionKind::kLoopState, owner,
                                    "while_condition", args, &captures));
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("do"));
  XFFI_ASSIGN_OR_RETURN(Region body,
                        ParseRegion(scope, RegionKind::kLoopState, owner,
                                    "while_body", args, &captures));
  spec.regions.push_back(std::move(cond));
  spec.regions.push_back(std::move(body));
  return BuildWhile(scope, spec, captures);
}

StatusOr<Outcome> Parser::ParseGenericOp(Scope* scope, const std::string& name,
                                         SourcePos pos) {
  if (IsReturnOp(name)) return ParseReturn(scope, true);
  if (name == "stablehlo.set_dimension_size")
    return lex_.ErrorAt(pos, BoundedSizeRefusal(name));
  if (!IsSupportedOpName(name) && name != "func.call")
    return lex_.ErrorAt(pos, "unsupported operation '" + name + "'");
  OpSpec spec;
  spec.name = name;
  spec.pos = pos;
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
  XFFI_RETURN_IF_ERROR(
      ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  if (attrs_.Consume(TokenKind::kLess)) {
    XFFI_ASSIGN_OR_RETURN(MlirAttr props, attrs_.ParseDictionary());
    for (auto& [k, v] : props.entries) spec.attrs[k] = v;
    XFFI_RETURN_IF_ERROR(
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
          std::string(OpcodeName(
              OpcodeFromStableHloName(name).value_or(Opcode::kConditional))) +
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
      XFFI_ASSIGN_OR_RETURN(
          Region region,
          ParseRegion(scope, kind, owner, region_name, {}, captures,
                      name == "stablehlo.while" ? &spec.operands : nullptr));
      spec.regions.push_back(std::move(region));
      ++index;
      if (attrs_.Consume(TokenKind::kComma)) continue;
      XFFI_RETURN_IF_ERROR(
          attrs_.Expect(TokenKind::kRParen, "',' or ')' after a region"));
      break;
    }
  }
  if (lex_.At(TokenKind::kLBrace)) {
    XFFI_ASSIGN_OR_RETURN(MlirAttr dict, attrs_.ParseDictionary());
    for (auto& [k, v] : dict.entries) spec.attrs[k] = v;
  }
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  if (!spec.types.functional)
    return lex_.ErrorAt(spec.types.pos,
                        "expected a function type (inputs) -> results");
  if (name == "stablehlo.while") {
    if (spec.regions.size() != 2) return OpError(spec, "expected 2 regions");
    return BuildWhile(scope, spec, loop_captures);
  }
  return Build(scope, spec);
}

}  // namespace xffi::text::stablehlo
