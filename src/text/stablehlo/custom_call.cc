// stablehlo.custom_call: the target, api_version, backend_config (a string
// for legacy calls, an attribute dictionary for typed FFI, or JAX's
// mhlo.backend_config), layouts, output_operand_aliases and called
// computations. GSPMD's shard_map markers keep their sharding.
#include "text/stablehlo/parser.h"

#include <algorithm>

#include "runtime/status_macros.h"
#include "text/hlo/sharding.h"
#include "xffi/program/text.h"

namespace xffi::text::stablehlo {

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
      XFFI_ASSIGN_OR_RETURN(config.attributes,
                            DictionaryToFfiAttributes(*b, lex_));
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
    XFFI_ASSIGN_OR_RETURN(config.attributes,
                          DictionaryToFfiAttributes(*b, lex_));
    if (config.api_version == CustomCallApiVersion::kOriginal ||
        config.api_version == CustomCallApiVersion::kUnspecified)
      config.api_version = CustomCallApiVersion::kTypedFfi;
  }
  if (const MlirAttr* s = Attr(spec, "has_side_effect")) {
    XFFI_ASSIGN_OR_RETURN(config.has_side_effect,
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
      XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> m2m,
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
  XFFI_RETURN_IF_ERROR(
      layouts("operand_layouts", operand_shapes, &config.operand_layouts));
  XFFI_RETURN_IF_ERROR(
      layouts("result_layouts", results, &config.result_layouts));
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
      XFFI_ASSIGN_OR_RETURN(alias.output_index,
                            Ints(fields, "output_tuple_indices", false));
      XFFI_ASSIGN_OR_RETURN(alias.operand_index,
                            Ints(fields, "operand_tuple_indices", false));
      const MlirAttr* operand = Attr(fields, "operand_index");
      if (operand == nullptr)
        return lex_.ErrorAt(a.pos,
                            "output_operand_alias: missing operand_index");
      XFFI_ASSIGN_OR_RETURN(alias.operand,
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
  // GSPMD's shard_map markers: what they say is their sharding, a string in
  // HLO's syntax.
  std::optional<HloSharding> sharding;
  if (IsGspmdMarker(config.target)) {
    const MlirAttr* text = Attr(spec, "mhlo.sharding");
    if (text == nullptr || text->kind != MlirAttr::Kind::kString)
      return OpError(spec, "@" + config.target +
                               " needs an mhlo.sharding string attribute");
    XFFI_ASSIGN_OR_RETURN(
        sharding, hlo::ParseHloSharding(
                      text->str, source_ + ":" + PosString(op_start_) + ": " +
                                     config.target + " sharding"));
    // Its backend_config says nothing.
    config.opaque.clear();
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
  outcome.inst->sharding = std::move(sharding);
  for (Computation* c : called) outcome.inst->AppendCalledComputation(c);
  return outcome;
}

}  // namespace xffi::text::stablehlo
