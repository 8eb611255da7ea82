// Attributes: an op's attributes (its `keyword = value` clauses, its
// properties and attribute dictionary, as the syntax gathered them into an
// OpSpec) read into the IR's op fields.
#include "text/stablehlo/parser.h"

#include <optional>

#include "runtime/status_macros.h"

namespace xffi::text::stablehlo {

const MlirAttr* Parser::Attr(const OpSpec& spec, std::string_view name) const {
  auto it = spec.attrs.find(std::string(name));
  return it == spec.attrs.end() ? nullptr : &it->second;
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

Status Parser::SkipOptionalDictionary() {
  if (!lex_.At(TokenKind::kLBrace)) return Status::Ok();
  XFFI_ASSIGN_OR_RETURN(MlirAttr ignored, attrs_.ParseDictionary());
  (void)ignored;
  return Status::Ok();
}

OpSpec Parser::Unpacked(const OpSpec& spec, const MlirAttr& dialect) const {
  OpSpec unpacked;
  unpacked.name = spec.name;
  unpacked.pos = dialect.pos;
  for (const auto& [k, v] : dialect.entries) unpacked.attrs[k] = v;
  return unpacked;
}

Status Parser::ReadFlag(const OpSpec& spec, std::string_view name, bool* out) {
  const MlirAttr* flag = Attr(spec, name);
  if (flag == nullptr) return Status::Ok();
  XFFI_ASSIGN_OR_RETURN(*out, AttrToBool(*flag, lex_, name));
  return Status::Ok();
}

Status Parser::ReadComparison(const OpSpec& spec, Instruction* inst) {
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
  return Status::Ok();
}

StatusOr<DotDimensionNumbers> Parser::ReadDotDimensions(const OpSpec& spec) {
  // The pretty form writes the dimensions as the op's own clauses, the
  // generic one in #stablehlo.dot<...>.
  const OpSpec* source = &spec;
  OpSpec unpacked;
  if (const MlirAttr* d = Attr(spec, "dot_dimension_numbers")) {
    if (d->kind != MlirAttr::Kind::kDialect)
      return lex_.ErrorAt(d->pos, "expected #stablehlo.dot<...>");
    unpacked = Unpacked(spec, *d);
    unpacked.pos = spec.pos;
    source = &unpacked;
  }
  DotDimensionNumbers dnums;
  XFFI_ASSIGN_OR_RETURN(dnums.lhs_batch,
                        Ints(*source, "lhs_batching_dimensions", false));
  XFFI_ASSIGN_OR_RETURN(dnums.rhs_batch,
                        Ints(*source, "rhs_batching_dimensions", false));
  XFFI_ASSIGN_OR_RETURN(dnums.lhs_contracting,
                        Ints(*source, "lhs_contracting_dimensions", false));
  XFFI_ASSIGN_OR_RETURN(dnums.rhs_contracting,
                        Ints(*source, "rhs_contracting_dimensions", false));
  return dnums;
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

StatusOr<GatherDimensionNumbers> Parser::ReadGatherDimensions(
    const OpSpec& spec) {
  const MlirAttr* d = Attr(spec, "dimension_numbers");
  if (d == nullptr || d->kind != MlirAttr::Kind::kDialect)
    return OpError(spec, "missing dimension_numbers = #stablehlo.gather<...>");
  OpSpec g = Unpacked(spec, *d);
  GatherDimensionNumbers dnums;
  XFFI_ASSIGN_OR_RETURN(dnums.offset_dims, Ints(g, "offset_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.collapsed_slice_dims,
                        Ints(g, "collapsed_slice_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.operand_batching_dims,
                        Ints(g, "operand_batching_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.start_indices_batching_dims,
                        Ints(g, "start_indices_batching_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.start_index_map,
                        Ints(g, "start_index_map", false));
  if (const MlirAttr* ivd = Attr(g, "index_vector_dim")) {
    XFFI_ASSIGN_OR_RETURN(dnums.index_vector_dim,
                          AttrToInteger(*ivd, lex_, "index_vector_dim"));
  }
  return dnums;
}

StatusOr<ScatterDimensionNumbers> Parser::ReadScatterDimensions(
    const OpSpec& spec) {
  const MlirAttr* d = Attr(spec, "scatter_dimension_numbers");
  if (d == nullptr || d->kind != MlirAttr::Kind::kDialect)
    return OpError(
        spec, "missing scatter_dimension_numbers = #stablehlo.scatter<...>");
  OpSpec g = Unpacked(spec, *d);
  ScatterDimensionNumbers dnums;
  XFFI_ASSIGN_OR_RETURN(dnums.update_window_dims,
                        Ints(g, "update_window_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.inserted_window_dims,
                        Ints(g, "inserted_window_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.input_batching_dims,
                        Ints(g, "input_batching_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.scatter_indices_batching_dims,
                        Ints(g, "scatter_indices_batching_dims", false));
  XFFI_ASSIGN_OR_RETURN(dnums.scatter_dims_to_operand_dims,
                        Ints(g, "scatter_dims_to_operand_dims", false));
  if (const MlirAttr* ivd = Attr(g, "index_vector_dim")) {
    XFFI_ASSIGN_OR_RETURN(dnums.index_vector_dim,
                          AttrToInteger(*ivd, lex_, "index_vector_dim"));
  }
  return dnums;
}

StatusOr<std::vector<WindowDimension>> Parser::ReadWindow(const OpSpec& spec) {
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                        Ints(spec, "window_dimensions", true));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                        Ints(spec, "window_strides", false));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> base,
                        Ints(spec, "base_dilations", false));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                        Ints(spec, "window_dilations", false));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> padding,
                        Ints(spec, "padding", false));
  size_t rank = sizes.size();
  auto check = [&](const std::vector<int64_t>& v, size_t want,
                   const char* what) -> Status {
    if (!v.empty() && v.size() != want)
      return OpError(spec, std::string(what) + " has " +
                               std::to_string(v.size()) +
                               " entries, expected " + std::to_string(want));
    return Status::Ok();
  };
  XFFI_RETURN_IF_ERROR(check(strides, rank, "window_strides"));
  XFFI_RETURN_IF_ERROR(check(base, rank, "base_dilations"));
  XFFI_RETURN_IF_ERROR(check(dilations, rank, "window_dilations"));
  XFFI_RETURN_IF_ERROR(check(padding, 2 * rank, "padding"));
  std::vector<WindowDimension> window;
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
    window.push_back(w);
  }
  return window;
}

StatusOr<std::vector<PadDimension>> Parser::ReadPadding(const OpSpec& spec) {
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> low,
                        Ints(spec, "edge_padding_low", true));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> high,
                        Ints(spec, "edge_padding_high", true));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                        Ints(spec, "interior_padding", true));
  if (low.size() != high.size() || low.size() != interior.size())
    return OpError(spec, "padding lists differ in length");
  std::vector<PadDimension> padding;
  for (size_t i = 0; i < low.size(); ++i)
    padding.push_back(PadDimension{low[i], high[i], interior[i]});
  return padding;
}

}  // namespace xffi::text::stablehlo
