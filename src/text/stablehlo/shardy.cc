// Shardy and the collectives: `sdy.mesh` definitions, sdy.manual_computation
// (a shard_map) into a manual-computation op, sharding annotations
// (sdy.sharding_constraint, sdy.reshard: the value itself), and
// all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// partition_id and replica_id into their ops with the devices they
// combine. What they mean across devices is the spmd-emulation pass's.
#include "text/stablehlo/parser.h"

#include "runtime/status_macros.h"
#include "text/hlo/sharding.h"
#include "text/mlir/sdy_sharding.h"

namespace xffi::text::stablehlo {

Status Parser::ParseSdyMeshDefinition() {
  lex_.Next();  // sdy.mesh
  if (!lex_.At(TokenKind::kAtId)) return lex_.Expected("a mesh name (@name)");
  Token name = lex_.Next();
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kEqual, "'=' after the mesh name"));
  XFFI_ASSIGN_OR_RETURN(Mesh mesh, ParseSdyMesh(attrs_));
  mesh.name = name.value;
  XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
  XFFI_RETURN_IF_ERROR(SkipOptionalLoc());
  if (!meshes_.emplace(name.value, std::move(mesh)).second)
    return lex_.ErrorAt(name.pos, "redefinition of mesh @" + name.value);
  return Status::Ok();
}

Status Parser::ParseValueAttributes(std::optional<HloSharding>* sharding,
                                    std::string* jax_name,
                                    const std::string& what) {
  if (!lex_.At(TokenKind::kLBrace)) return Status::Ok();
  lex_.Next();
  if (attrs_.Consume(TokenKind::kRBrace)) return Status::Ok();
  while (true) {
    if (!lex_.At(TokenKind::kBareId) && !lex_.At(TokenKind::kString))
      return lex_.Expected("an attribute name");
    std::string key = lex_.Next().value;
    if (attrs_.Consume(TokenKind::kEqual)) {
      // Where an argument lives decides how a batch-partitionable call on
      // it splits (passes/batch_partitioning.h); where a result lives is
      // what xffi inspect shows. A form xffi does not read leaves the value
      // without one (such a call then runs whole, which computes the same
      // values); text that is no sharding is an error at its place.
      if (key == "sdy.sharding" && lex_.At(TokenKind::kHashId) &&
          lex_.peek().value == "sdy.sharding") {
        lex_.Next();
        XFFI_ASSIGN_OR_RETURN(SdyShardingRef ref,
                              ParseSdyTensorSharding(attrs_));
        auto named = meshes_.find(ref.mesh_name);
        const Mesh* mesh = ref.mesh                 ? &*ref.mesh
                           : named != meshes_.end() ? &named->second
                                                    : nullptr;
        if (mesh == nullptr)
          return lex_.ErrorAt(ref.pos, "sdy.sharding of " + what +
                                           " names mesh @" + ref.mesh_name +
                                           ", which no sdy.mesh before it "
                                           "defines");
        *sharding = ToHloSharding(*mesh, ref.sharding);
        if (!sharding->has_value())
          return lex_.ErrorAt(ref.pos,
                              "sdy.sharding of " + what +
                                  " names an axis its mesh lacks, or one "
                                  "axis twice: " +
                                  ref.sharding.ToString(*mesh));
      } else {
        XFFI_ASSIGN_OR_RETURN(MlirAttr value, attrs_.ParseAttribute());
        if (key == "jax.result_info" || key == "jax.arg_info") {
          if (value.kind != MlirAttr::Kind::kString)
            return lex_.ErrorAt(value.pos,
                                key + " of " + what + " must be a string");
          *jax_name = value.str;
        } else if (key == "mhlo.sharding") {
          if (value.kind != MlirAttr::Kind::kString)
            return lex_.ErrorAt(
                value.pos, "mhlo.sharding of " + what + " must be a string");
          XFFI_ASSIGN_OR_RETURN(
              *sharding, hlo::ParseValueSharding(
                             value.str, source_ + ":" + PosString(value.pos) +
                                            ": mhlo.sharding of " + what));
        }
      }
    }
    if (attrs_.Consume(TokenKind::kComma)) continue;
    return attrs_.Expect(TokenKind::kRBrace,
                         "',' or '}' in an attribute dictionary");
  }
}

StatusOr<Outcome> Parser::ParseManualComputation(Scope* scope, SourcePos pos) {
  const std::string what = "sdy.manual_computation";
  OpSpec spec;
  spec.name = what;
  spec.pos = pos;
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the operands"));
  XFFI_RETURN_IF_ERROR(
      ParseOperandList(scope, &spec.operands, TokenKind::kRParen));
  ManualComputationConfig config;
  std::vector<SdyShardingRef> in_shardings, out_shardings;
  for (const char* key : {"in_shardings", "out_shardings"}) {
    XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword(key));
    XFFI_RETURN_IF_ERROR(
        attrs_.Expect(TokenKind::kEqual, std::string("'=' after ") + key));
    XFFI_ASSIGN_OR_RETURN(std::vector<SdyShardingRef> list,
                          ParseSdyShardingList(attrs_));
    (key[0] == 'i' ? in_shardings : out_shardings) = std::move(list);
  }
  XFFI_RETURN_IF_ERROR(attrs_.ExpectKeyword("manual_axes"));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kEqual, "'=' after manual_axes"));
  XFFI_ASSIGN_OR_RETURN(config.manual_axes, ParseSdyAxisSet(attrs_));

  const SdyShardingRef* culprit = nullptr;
  std::string mesh_problem =
      CommonMesh(in_shardings, out_shardings, meshes_, &config.mesh, &culprit);
  if (!mesh_problem.empty())
    return lex_.ErrorAt(culprit != nullptr ? culprit->pos : pos, mesh_problem);
  config.in_shardings = Shardings(in_shardings);
  config.out_shardings = Shardings(out_shardings);

  std::vector<BlockArg> args;
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kLParen, "'(' and the body's arguments"));
  XFFI_RETURN_IF_ERROR(ParseTypedArgs(&args, "a body argument"));
  XFFI_ASSIGN_OR_RETURN(
      Region body,
      ParseRegion(scope, RegionKind::kFunction, what + " at " + PosString(pos),
                  "manual_computation_body", std::move(args), nullptr));
  XFFI_RETURN_IF_ERROR(SetRegionRoot(body, spec));
  XFFI_RETURN_IF_ERROR(
      attrs_.Expect(TokenKind::kColon, "':' and the op's type"));
  XFFI_RETURN_IF_ERROR(ParseTypeSpec(&spec.types));
  if (!spec.types.functional)
    return lex_.ErrorAt(spec.types.pos,
                        "expected a function type (inputs) -> results");
  XFFI_RETURN_IF_ERROR(CheckOperandTypes(spec));
  std::vector<Shape> results = Shapes(spec.types.outputs);
  if (results.size() != body.returns.size())
    return lex_.ErrorAt(spec.types.pos,
                        what + " has " + std::to_string(results.size()) +
                            " result(s), its body returns " +
                            std::to_string(body.returns.size()));
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  outcome.inst = Add(scope->computation, Opcode::kManualComputation,
                     results.size() == 1 ? results[0] : Shape::Tuple(results),
                     spec.operands);
  outcome.inst->manual_computation = std::move(config);
  outcome.inst->AppendCalledComputation(body.computation);
  return outcome;
}

StatusOr<Outcome> Parser::ParseShardingAnnotation(Scope* scope) {
  if (!lex_.At(TokenKind::kPercentId)) return lex_.Expected("an operand");
  XFFI_ASSIGN_OR_RETURN(Instruction * value, Use(scope, lex_.Next()));
  XFFI_ASSIGN_OR_RETURN(SdyShardingRef sharding,
                        ParseSdyTensorSharding(attrs_));
  (void)sharding;
  XFFI_RETURN_IF_ERROR(SkipOptionalDictionary());
  XFFI_RETURN_IF_ERROR(attrs_.Expect(TokenKind::kColon, "':' and the type"));
  XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
  if (!MatchesDeclared(value->shape(), type.shape))
    return lex_.ErrorAt(type.pos,
                        "the operand is " + TypeString(value->shape()) +
                            ", the type says " + TypeString(type.shape));
  // Where a value lives does not change what it is.
  Outcome outcome;
  outcome.inst = value;
  return outcome;
}

StatusOr<Outcome> Parser::BuildCollective(Scope* scope, OpSpec& spec,
                                          Opcode opcode) {
  std::vector<Shape> results;
  if (spec.types.functional) {
    XFFI_RETURN_IF_ERROR(CheckOperandTypes(spec));
    results = Shapes(spec.types.outputs);
  } else {
    results = Shapes(spec.types.list);
  }
  const bool is_id =
      opcode == Opcode::kPartitionId || opcode == Opcode::kReplicaId;
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
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  Instruction* inst = Add(
      scope->computation, opcode,
      results.size() == 1 ? results[0] : Shape::Tuple(results), spec.operands);
  outcome.inst = inst;

  CollectiveDevices& devices = inst->collective_devices;
  if (const MlirAttr* channel = Attr(spec, "channel_handle")) {
    if (channel->kind != MlirAttr::Kind::kDialect)
      return lex_.ErrorAt(channel->pos,
                          "attribute 'channel_handle': expected "
                          "#stablehlo.channel_handle<handle = N, type = T>");
    const MlirAttr* handle = channel->Find("handle");
    if (handle == nullptr)
      return lex_.ErrorAt(channel->pos, "channel_handle without a handle");
    XFFI_ASSIGN_OR_RETURN(devices.channel_id,
                          AttrToInteger(*handle, lex_, "handle"));
    // Handle 0 is no channel, as a negative one is for XLA.
    if (devices.channel_id < 0) devices.channel_id = 0;
  }
  devices.use_global_device_ids =
      Attr(spec, "use_global_device_ids") != nullptr;
  if (const MlirAttr* attr = Attr(spec, "replica_groups")) {
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                          AttrToIntegers(*attr, lex_, "replica_groups"));
    std::vector<int64_t> dims;
    if (attr->kind == MlirAttr::Kind::kDense)
      dims = attr->dense_type.shape.dims();
    if (dims.size() != 2)
      return lex_.ErrorAt(attr->pos,
                          "attribute 'replica_groups': expected a 2-D "
                          "dense<[[...], ...]> of device ids");
    for (int64_t g = 0; g < dims[0]; ++g)
      devices.replica_groups.emplace_back(ids.begin() + g * dims[1],
                                          ids.begin() + (g + 1) * dims[1]);
  } else if (opcode != Opcode::kCollectivePermute && !is_id) {
    return OpError(spec, "missing attribute 'replica_groups'");
  }

  auto integer = [&](const char* name, int64_t* out) -> Status {
    const MlirAttr* attr = Attr(spec, name);
    if (attr == nullptr)
      return OpError(spec, std::string("missing attribute '") + name + "'");
    XFFI_ASSIGN_OR_RETURN(*out, AttrToInteger(*attr, lex_, name));
    return Status::Ok();
  };
  int64_t dimension = 0;
  switch (opcode) {
    case Opcode::kAllGather:
      XFFI_RETURN_IF_ERROR(integer("all_gather_dim", &dimension));
      inst->dimensions = {dimension};
      break;
    case Opcode::kReduceScatter:
      XFFI_RETURN_IF_ERROR(integer("scatter_dimension", &dimension));
      inst->dimensions = {dimension};
      break;
    case Opcode::kAllToAll:
      XFFI_RETURN_IF_ERROR(integer("split_dimension", &inst->split_dimension));
      XFFI_RETURN_IF_ERROR(
          integer("concat_dimension", &inst->concat_dimension));
      XFFI_RETURN_IF_ERROR(integer("split_count", &inst->split_count));
      break;
    case Opcode::kCollectivePermute: {
      const MlirAttr* attr = Attr(spec, "source_target_pairs");
      if (attr == nullptr)
        return OpError(spec, "missing attribute 'source_target_pairs'");
      XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                            AttrToIntegers(*attr, lex_, "source_target_pairs"));
      if (ids.size() % 2 != 0)
        return lex_.ErrorAt(attr->pos,
                            "attribute 'source_target_pairs': expected "
                            "[source, target] pairs");
      for (size_t i = 0; i < ids.size(); i += 2)
        inst->source_target_pairs.emplace_back(ids[i], ids[i + 1]);
      break;
    }
    default:
      break;
  }

  // all_reduce and reduce_scatter combine values with their region.
  const bool reduces =
      opcode == Opcode::kAllReduce || opcode == Opcode::kReduceScatter;
  if (reduces != (spec.regions.size() == 1))
    return OpError(
        spec, reduces ? "expected a reduction region" : "unexpected region");
  if (reduces) {
    Region& region = spec.regions[0];
    if (region.computation->root() == nullptr)
      XFFI_RETURN_IF_ERROR(SetRegionRoot(region, spec));
    inst->AppendCalledComputation(region.computation);
  }
  return outcome;
}

}  // namespace xffi::text::stablehlo
