// Ops: an OpSpec built into instructions. Most ops become one instruction
// of the opcode their name gives; chlo.square becomes a multiply, a
// stablehlo.composite a call of its decomposition;
// a while or case carries the values its regions capture; custom calls and
// the collectives have files of their own.
#include "text/stablehlo/parser.h"

#include <optional>

#include "runtime/status_macros.h"
#include "xffi/program/text.h"

namespace xffi::text::stablehlo {

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

StatusOr<Outcome> Parser::BuildDecomposedChlo(Scope* scope, OpSpec& spec) {
  Computation* computation = scope->computation;
  if (spec.operands.size() != 1)
    return OpError(spec, "expected 1 operand(s), got " +
                             std::to_string(spec.operands.size()));
  XFFI_ASSIGN_OR_RETURN(std::vector<Shape> results,
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
  return OpError(spec, "internal: not a decomposed chlo op");
}

StatusOr<std::map<std::string, std::string>> Parser::FrontendAttributes(
    const OpSpec& spec) const {
  std::map<std::string, std::string> values;
  // A custom call's Shardy rule (JAX writes one on a batch-partitionable
  // call under Shardy), where XLA's HLO keeps it: the batch-partition pass
  // reads from it that Shardy partitions the call (batch_partitioning.h).
  if (const MlirAttr* rule = Attr(spec, "sdy.sharding_rule");
      rule != nullptr && rule->kind == MlirAttr::Kind::kDialect &&
      !rule->raw.empty())
    values["xla.sdy.sharding_rule"] = rule->raw;
  const MlirAttr* dictionary = Attr(spec, "mhlo.frontend_attributes");
  if (dictionary == nullptr) return values;
  if (dictionary->kind != MlirAttr::Kind::kDictionary)
    return lex_.ErrorAt(dictionary->pos,
                        spec.name +
                            ": mhlo.frontend_attributes must be a dictionary "
                            "of strings");
  for (const MlirNamedAttr& entry : dictionary->entries) {
    // XLA keeps frontend attributes as strings; JAX writes numbers quoted
    // (num_batch_dims = "1").
    if (entry.value.kind != MlirAttr::Kind::kString)
      return lex_.ErrorAt(entry.value.pos,
                          spec.name + ": frontend attribute '" + entry.name +
                              "' must be a string");
    values[entry.name] = entry.value.str;
  }
  return values;
}

std::string BoundedSizeRefusal(std::string_view op) {
  return "'" + std::string(op) +
         "' is not supported: xffi reads a bounded dimension "
         "(tensor<?xf32, #stablehlo.bounds<8>>) as its bound, which is XLA's "
         "meaning only while no op sets or reads a size at run time";
}

// The bounded counterpart of the HLO reader's refusals (hlo/parser.cc):
// set_dimension_size (refused where its name is read, syntax.cc),
// get_dimension_size of a bounded dimension, a dynamic op whose result is
// bounded (XLA sets that size at run time) and the SliceToDynamic and
// PadToStatic custom calls. Without bounds, get_dimension_size and the
// dynamic ops are shape polymorphism's, which refinement folds.
Status Parser::CheckBoundedSizes(const OpSpec& spec) const {
  if (spec.name == "stablehlo.custom_call") {
    const MlirAttr* target = Attr(spec, "call_target_name");
    if (target != nullptr &&
        (target->str == "SliceToDynamic" || target->str == "PadToStatic"))
      return OpError(
          spec, "@" + target->str + ": " + BoundedSizeRefusal(target->str));
    return Status::Ok();
  }
  if (!IsShapeDynamicOp(spec.name)) return Status::Ok();
  const TypeSpec& types = spec.types;
  if (spec.name == "stablehlo.get_dimension_size") {
    const MlirAttr* d = Attr(spec, "dimension");
    if (d == nullptr || types.inputs.empty()) return Status::Ok();
    StatusOr<int64_t> dimension = AttrToInteger(*d, lex_, "dimension");
    if (dimension.ok() && types.inputs[0].IsBounded(*dimension))
      return OpError(spec, "dimension " + std::to_string(*dimension) +
                               " is bounded: " + BoundedSizeRefusal(spec.name));
    return Status::Ok();
  }
  for (const std::vector<MlirType>* list : {&types.outputs, &types.list})
    for (const MlirType& type : *list)
      if (type.AnyBounded())
        return OpError(
            spec, "its result is bounded: " + BoundedSizeRefusal(spec.name));
  return Status::Ok();
}

bool Parser::IsStaticDimension(const OpSpec& spec) const {
  const MlirAttr* d = Attr(spec, "dimension");
  if (d == nullptr) return false;
  StatusOr<int64_t> dimension = AttrToInteger(*d, lex_, "dimension");
  const Shape& of = spec.operands[0]->shape();
  return dimension.ok() && of.IsArray() && *dimension >= 0 &&
         *dimension < of.rank() && of.dim(*dimension) != kDynamicDimension;
}

StatusOr<Outcome> Parser::Build(Scope* scope, OpSpec& spec) {
  XFFI_RETURN_IF_ERROR(CheckBoundedSizes(spec));
  XFFI_ASSIGN_OR_RETURN(auto frontend_attributes, FrontendAttributes(spec));
  Outcome outcome;
  bool handled = false;
  if (refining_) {
    XFFI_ASSIGN_OR_RETURN(outcome, RefineOp(scope, spec, &handled));
  } else if (spec.name == "stablehlo.get_dimension_size" &&
             spec.operands.size() == 1 && IsStaticDimension(spec)) {
    // A static (or bounded, so read as static) size is a constant in any
    // program, polymorphic or not: built as refinement builds it.
    XFFI_ASSIGN_OR_RETURN(outcome, RefineOp(scope, spec, &handled));
  } else if (IsShapeDynamicOp(spec.name)) {
    XFFI_ASSIGN_OR_RETURN(outcome, BuildUnrefinedDynamicOp(scope, spec));
    handled = true;
  }
  if (!handled) {
    XFFI_ASSIGN_OR_RETURN(outcome, BuildOp(scope, spec));
  }
  if (refining_) XFFI_RETURN_IF_ERROR(RefineResult(spec, &outcome));
  if (outcome.inst != nullptr && !frontend_attributes.empty())
    outcome.inst->frontend_attributes = std::move(frontend_attributes);
  return outcome;
}

StatusOr<Outcome> Parser::BuildOp(Scope* scope, OpSpec& spec) {
  Computation* computation = scope->computation;
  if (IsDecomposedChloOp(spec.name)) {
    if (!spec.regions.empty()) return OpError(spec, "unexpected region");
    return BuildDecomposedChlo(scope, spec);
  }
  Opcode opcode = Opcode::kConditional;
  if (spec.name == "stablehlo.composite") {
    // What a composite computes is its decomposition; the name and
    // attributes only matter to a backend with a kernel of its own for it.
    const MlirAttr* decomposition = Attr(spec, "decomposition");
    if (decomposition == nullptr ||
        decomposition->kind != MlirAttr::Kind::kSymbol)
      return OpError(spec, "missing decomposition = @function");
    spec.attrs["callee"] = *decomposition;
    opcode = Opcode::kCall;
  } else if (spec.name == "func.call") {
    opcode = Opcode::kCall;
  } else if (spec.name != "stablehlo.if") {
    std::optional<Opcode> found = OpcodeFromStableHloName(spec.name);
    if (!found.has_value()) return OpError(spec, "unsupported operation");
    opcode = *found;
  }
  if (IsCollective(opcode)) return BuildCollective(scope, spec, opcode);
  XFFI_ASSIGN_OR_RETURN(std::vector<Shape> results, ResultShapes(spec, opcode));
  for (const Shape& r : results)
    if (!r.valid()) return OpError(spec, "invalid result type");
  if (opcode == Opcode::kCustomCall)
    return BuildCustomCall(scope, spec, results);
  if (IsNumericOp(opcode)) return BuildNumericOp(scope, spec, opcode, results);
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
      opcode != Opcode::kBatchNormTraining &&
      opcode != Opcode::kBatchNormGrad && results.size() != 1)
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
    XFFI_RETURN_IF_ERROR(expect_operands(1));
    make(opcode, shape, operands);
    if (opcode == Opcode::kReducePrecision)
      XFFI_RETURN_IF_ERROR(ReadReducePrecision(spec, inst));
  } else if (IsElementwiseBinary(opcode)) {
    XFFI_RETURN_IF_ERROR(expect_operands(2));
    make(opcode, shape, operands);
    if (opcode == Opcode::kCompare)
      XFFI_RETURN_IF_ERROR(ReadComparison(spec, inst));
  } else if (opcode == Opcode::kSelect || opcode == Opcode::kClamp) {
    XFFI_RETURN_IF_ERROR(expect_operands(3));
    make(opcode, shape, operands);
  } else if (opcode == Opcode::kConstant) {
    XFFI_RETURN_IF_ERROR(expect_operands(0));
    const MlirAttr* value = Attr(spec, "value");
    if (value == nullptr) return OpError(spec, "missing value");
    XFFI_ASSIGN_OR_RETURN(Literal literal, DenseToLiteral(*value, lex_));
    if (!literal.shape().Compatible(shape))
      return OpError(spec, "value has type " + TypeString(literal.shape()) +
                               ", the result " + TypeString(shape));
    make(opcode, shape, {});
    inst->literal = std::move(literal);
  } else if (opcode == Opcode::kIota) {
    XFFI_RETURN_IF_ERROR(expect_operands(0));
    const MlirAttr* d = Attr(spec, "iota_dimension");
    if (d == nullptr) return OpError(spec, "missing iota_dimension");
    XFFI_ASSIGN_OR_RETURN(int64_t dim,
                          AttrToInteger(*d, lex_, "iota_dimension"));
    make(opcode, shape, {});
    inst->dimensions = {dim};
  } else if (opcode == Opcode::kBroadcast || opcode == Opcode::kTranspose ||
             opcode == Opcode::kReverse) {
    XFFI_RETURN_IF_ERROR(expect_operands(1));
    const char* key = opcode == Opcode::kBroadcast   ? "broadcast_dimensions"
                      : opcode == Opcode::kTranspose ? "permutation"
                                                     : "dimensions";
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Ints(spec, key, true));
    make(opcode, shape, operands);
    inst->dimensions = std::move(dims);
  } else if (opcode == Opcode::kConcatenate) {
    if (operands.empty()) return OpError(spec, "expected operands");
    const MlirAttr* d = Attr(spec, "dimension");
    if (d == nullptr) return OpError(spec, "missing dimension");
    XFFI_ASSIGN_OR_RETURN(int64_t dim, AttrToInteger(*d, lex_, "dimension"));
    make(opcode, shape, operands);
    inst->dimensions = {dim};
  } else if (opcode == Opcode::kSlice) {
    XFFI_RETURN_IF_ERROR(expect_operands(1));
    make(opcode, shape, operands);
    XFFI_ASSIGN_OR_RETURN(inst->slice_starts,
                          Ints(spec, "start_indices", true));
    XFFI_ASSIGN_OR_RETURN(inst->slice_limits,
                          Ints(spec, "limit_indices", true));
    XFFI_ASSIGN_OR_RETURN(inst->slice_strides, Ints(spec, "strides", true));
  } else if (opcode == Opcode::kDynamicSlice) {
    if (operands.empty()) return OpError(spec, "expected operands");
    make(opcode, shape, operands);
    XFFI_ASSIGN_OR_RETURN(inst->dynamic_slice_sizes,
                          Ints(spec, "slice_sizes", true));
  } else if (opcode == Opcode::kDynamicUpdateSlice) {
    if (operands.size() < 2) return OpError(spec, "expected operands");
    make(opcode, shape, operands);
  } else if (opcode == Opcode::kPad) {
    XFFI_RETURN_IF_ERROR(expect_operands(2));
    XFFI_ASSIGN_OR_RETURN(std::vector<PadDimension> padding, ReadPadding(spec));
    make(opcode, shape, operands);
    inst->padding = std::move(padding);
  } else if (opcode == Opcode::kDot) {
    XFFI_RETURN_IF_ERROR(expect_operands(2));
    XFFI_ASSIGN_OR_RETURN(DotDimensionNumbers dnums, ReadDotDimensions(spec));
    if (const MlirAttr* algorithm = Attr(spec, "algorithm"))
      XFFI_RETURN_IF_ERROR(CheckDotAlgorithm(spec, *algorithm, operands));
    make(opcode, shape, operands);
    inst->dot_dimension_numbers = std::move(dnums);
  } else if (opcode == Opcode::kGather) {
    XFFI_RETURN_IF_ERROR(expect_operands(2));
    XFFI_ASSIGN_OR_RETURN(GatherDimensionNumbers dnums,
                          ReadGatherDimensions(spec));
    make(opcode, shape, operands);
    inst->gather_dimension_numbers = std::move(dnums);
    XFFI_ASSIGN_OR_RETURN(inst->gather_slice_sizes,
                          Ints(spec, "slice_sizes", true));
    XFFI_RETURN_IF_ERROR(
        ReadFlag(spec, "indices_are_sorted", &inst->indices_are_sorted));
  } else if (opcode == Opcode::kConvolution) {
    XFFI_RETURN_IF_ERROR(expect_operands(2));
    make(opcode, shape, operands);
    XFFI_RETURN_IF_ERROR(ReadConvolution(spec, inst));
  } else if (opcode == Opcode::kBatchNormTraining ||
             opcode == Opcode::kBatchNormInference ||
             opcode == Opcode::kBatchNormGrad) {
    XFFI_RETURN_IF_ERROR(
        expect_operands(opcode == Opcode::kBatchNormTraining ? 3 : 5));
    make(opcode, shape, operands);
    XFFI_RETURN_IF_ERROR(ReadBatchNorm(spec, inst));
  } else if (opcode == Opcode::kSelectAndScatter) {
    // Regions: select (a comparator of two elements), then scatter.
    XFFI_RETURN_IF_ERROR(expect_operands(3));
    XFFI_RETURN_IF_ERROR(expect_regions(2));
    for (Region& region : spec.regions)
      if (region.computation->root() == nullptr)
        XFFI_RETURN_IF_ERROR(SetRegionRoot(region, spec));
    make(opcode, shape, operands);
    for (Region& region : spec.regions)
      inst->AppendCalledComputation(region.computation);
    XFFI_ASSIGN_OR_RETURN(inst->window, ReadWindow(spec));
  } else if (opcode == Opcode::kGetTupleElement) {
    XFFI_RETURN_IF_ERROR(expect_operands(1));
    const MlirAttr* index = Attr(spec, "index");
    if (index == nullptr) return OpError(spec, "missing index");
    XFFI_ASSIGN_OR_RETURN(int64_t i, AttrToInteger(*index, lex_, "index"));
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
    if (refining_) {
      // Each signature gets its own reading of the callee, whose results
      // are then static.
      XFFI_ASSIGN_OR_RETURN(FuncInfo * info,
                            SpecializeCall(callee->str, operands, spec.pos));
      if (info->results.size() != results.size())
        return OpError(
            spec, "call to @" + callee->str + " does not match its signature");
      for (size_t i = 0; i < results.size(); ++i)
        if (!MatchesDeclared(info->results[i], results[i]))
          return OpError(spec, "call to @" + callee->str + ": result " +
                                   std::to_string(i) + " is " +
                                   TypeString(info->results[i]) +
                                   ", the call says " + TypeString(results[i]));
      Shape refined = info->results.size() == 1 ? info->results[0]
                                                : Shape::Tuple(info->results);
      make(opcode, refined, operands);
      inst->AppendCalledComputation(info->computation);
    } else {
      FuncInfo* info = GetFunction(callee->str, spec.pos);
      make(opcode, shape, operands);
      inst->AppendCalledComputation(info->computation);
      pending_calls_.push_back(
          PendingCall{inst, callee->str, spec.pos, results});
    }
  } else if (opcode == Opcode::kReduce || opcode == Opcode::kReduceWindow ||
             opcode == Opcode::kSort || opcode == Opcode::kScatter) {
    XFFI_RETURN_IF_ERROR(expect_regions(1));
    size_t n = results.size();
    size_t expected = opcode == Opcode::kSort      ? n
                      : opcode == Opcode::kScatter ? 2 * n + 1
                                                   : 2 * n;
    XFFI_RETURN_IF_ERROR(expect_operands(expected));
    Region& region = spec.regions[0];
    if (region.computation->root() == nullptr)
      XFFI_RETURN_IF_ERROR(SetRegionRoot(region, spec));
    make(opcode, shape, operands);
    inst->AppendCalledComputation(region.computation);
    if (opcode == Opcode::kReduce) {
      XFFI_ASSIGN_OR_RETURN(inst->dimensions, Ints(spec, "dimensions", true));
    } else if (opcode == Opcode::kSort) {
      int64_t dim = -1;
      if (const MlirAttr* d = Attr(spec, "dimension")) {
        XFFI_ASSIGN_OR_RETURN(dim, AttrToInteger(*d, lex_, "dimension"));
      }
      if (dim < 0 && operands[0]->shape().IsArray())
        dim += operands[0]->shape().rank();
      inst->dimensions = {dim};
      XFFI_RETURN_IF_ERROR(ReadFlag(spec, "is_stable", &inst->is_stable));
    } else if (opcode == Opcode::kScatter) {
      XFFI_ASSIGN_OR_RETURN(inst->scatter_dimension_numbers,
                            ReadScatterDimensions(spec));
      XFFI_RETURN_IF_ERROR(
          ReadFlag(spec, "indices_are_sorted", &inst->indices_are_sorted));
      XFFI_RETURN_IF_ERROR(
          ReadFlag(spec, "unique_indices", &inst->unique_indices));
    } else {  // reduce_window
      XFFI_ASSIGN_OR_RETURN(inst->window, ReadWindow(spec));
    }
  } else if (opcode == Opcode::kWhile) {
    return OpError(spec, "internal: while reached the generic builder");
  } else {
    return OpError(spec, "unsupported operation");
  }
  if (opcode != Opcode::kReduce && opcode != Opcode::kReduceWindow &&
      opcode != Opcode::kSort && opcode != Opcode::kScatter &&
      opcode != Opcode::kSelectAndScatter && !spec.regions.empty())
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
    XFFI_RETURN_IF_ERROR(SetRegionRoot(region, spec));
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
  XFFI_ASSIGN_OR_RETURN(std::vector<Shape> results,
                        ResultShapes(spec, Opcode::kWhile));
  Region& cond = spec.regions[0];
  Region& body = spec.regions[1];
  size_t n = spec.operands.size();
  if (results.size() != n)
    return OpError(spec, "a loop has as many results as operands");
  if (refining_) {
    // The loop variables keep their initial values' shapes: a body that
    // returns another shape makes a loop whose shapes change as it runs,
    // which has no static form.
    for (size_t i = 0; i < n; ++i) {
      const Shape& init = spec.operands[i]->shape();
      if (!MatchesDeclared(init, results[i]))
        return OpError(spec, "result " + std::to_string(i) + " is " +
                                 TypeString(results[i]) +
                                 ", its initial value " + TypeString(init));
      results[i] = init;
      if (i < body.returns.size() && !body.returns[i]->shape().Compatible(init))
        return lex_.ErrorAt(
            body.return_pos,
            "loop variable " + std::to_string(i) + " starts as " +
                TypeString(init) + ", the body returns " +
                TypeString(body.returns[i]->shape()) +
                ": its shape changes from one iteration to the next");
    }
  }
  for (Region* region : {&cond, &body}) {
    if (region->args.size() != n)
      return OpError(spec, "a loop region takes " + std::to_string(n) +
                               " argument(s), it declares " +
                               std::to_string(region->args.size()));
    for (size_t i = 0; i < n; ++i)
      if (!MatchesDeclared(region->args[i].type.shape, results[i]))
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

}  // namespace xffi::text::stablehlo
