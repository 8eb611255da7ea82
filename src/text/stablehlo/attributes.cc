// Attributes: an op's attributes (its `keyword = value` clauses, its
// properties and attribute dictionary, as the syntax gathered them into an
// OpSpec) read into the IR's op fields.
#include "text/stablehlo/parser.h"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

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

namespace {

// [[1, 1], [0, 2]] (the pretty form's pad) as one flat list.
void Flatten(const MlirAttr& attr, MlirAttr* flat) {
  if (attr.kind == MlirAttr::Kind::kArray) {
    for (const MlirAttr& e : attr.elements) Flatten(e, flat);
    return;
  }
  flat->elements.push_back(attr);
}

}  // namespace

Status Parser::ReadConvolution(const OpSpec& spec, Instruction* inst) {
  const MlirAttr* d = Attr(spec, "dimension_numbers");
  if (d == nullptr || d->kind != MlirAttr::Kind::kDialect ||
      d->str != "stablehlo.conv")
    return OpError(spec, "missing dimension_numbers = #stablehlo.conv<...>");
  OpSpec c = Unpacked(spec, *d);
  ConvolutionDimensionNumbers& dn = inst->convolution_dimension_numbers;
  auto one = [&](const char* key, int64_t* out) -> Status {
    const MlirAttr* value = Attr(c, key);
    if (value == nullptr)
      return OpError(spec, std::string("dimension_numbers lack ") + key);
    XFFI_ASSIGN_OR_RETURN(*out, AttrToInteger(*value, lex_, key));
    return Status::Ok();
  };
  XFFI_RETURN_IF_ERROR(one("input_batch_dimension", &dn.input_batch_dimension));
  XFFI_RETURN_IF_ERROR(
      one("input_feature_dimension", &dn.input_feature_dimension));
  XFFI_RETURN_IF_ERROR(one("kernel_input_feature_dimension",
                           &dn.kernel_input_feature_dimension));
  XFFI_RETURN_IF_ERROR(one("kernel_output_feature_dimension",
                           &dn.kernel_output_feature_dimension));
  XFFI_RETURN_IF_ERROR(
      one("output_batch_dimension", &dn.output_batch_dimension));
  XFFI_RETURN_IF_ERROR(
      one("output_feature_dimension", &dn.output_feature_dimension));
  XFFI_ASSIGN_OR_RETURN(dn.input_spatial_dimensions,
                        Ints(c, "input_spatial_dimensions", false));
  XFFI_ASSIGN_OR_RETURN(dn.kernel_spatial_dimensions,
                        Ints(c, "kernel_spatial_dimensions", false));
  XFFI_ASSIGN_OR_RETURN(dn.output_spatial_dimensions,
                        Ints(c, "output_spatial_dimensions", false));

  const size_t rank = dn.kernel_spatial_dimensions.size();
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                        Ints(spec, "window_strides", false));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> lhs_dilation,
                        Ints(spec, "lhs_dilation", false));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> rhs_dilation,
                        Ints(spec, "rhs_dilation", false));
  std::vector<int64_t> padding;
  if (const MlirAttr* pad = Attr(spec, "padding")) {
    MlirAttr flat;
    flat.kind = MlirAttr::Kind::kArray;
    if (pad->kind == MlirAttr::Kind::kArray) Flatten(*pad, &flat);
    XFFI_ASSIGN_OR_RETURN(
        padding,
        AttrToIntegers(pad->kind == MlirAttr::Kind::kArray ? flat : *pad, lex_,
                       "padding"));
  }
  std::vector<bool> reversal;
  if (const MlirAttr* reverse = Attr(spec, "window_reversal")) {
    if (reverse->kind != MlirAttr::Kind::kArray &&
        reverse->kind != MlirAttr::Kind::kDenseArray)
      return lex_.ErrorAt(reverse->pos,
                          "window_reversal: expected a list of booleans");
    for (const MlirAttr& e : reverse->elements) {
      XFFI_ASSIGN_OR_RETURN(bool r, AttrToBool(e, lex_, "window_reversal"));
      reversal.push_back(r);
    }
  }
  auto check = [&](size_t n, size_t want, const char* what) -> Status {
    if (n != 0 && n != want)
      return OpError(spec, std::string(what) + " has " + std::to_string(n) +
                               " entries, expected " + std::to_string(want));
    return Status::Ok();
  };
  XFFI_RETURN_IF_ERROR(check(strides.size(), rank, "window_strides"));
  XFFI_RETURN_IF_ERROR(check(lhs_dilation.size(), rank, "lhs_dilation"));
  XFFI_RETURN_IF_ERROR(check(rhs_dilation.size(), rank, "rhs_dilation"));
  XFFI_RETURN_IF_ERROR(check(padding.size(), 2 * rank, "padding"));
  XFFI_RETURN_IF_ERROR(check(reversal.size(), rank, "window_reversal"));
  const Shape* kernel =
      spec.operands.size() >= 2 ? &spec.operands[1]->shape() : nullptr;
  inst->window.assign(rank, WindowDimension{});
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension& w = inst->window[i];
    int64_t kernel_dim = dn.kernel_spatial_dimensions[i];
    if (kernel != nullptr && kernel->IsArray() && kernel_dim >= 0 &&
        kernel_dim < kernel->rank())
      w.size = kernel->dim(kernel_dim);
    if (!strides.empty()) w.stride = strides[i];
    if (!lhs_dilation.empty()) w.base_dilation = lhs_dilation[i];
    if (!rhs_dilation.empty()) w.window_dilation = rhs_dilation[i];
    if (!padding.empty()) {
      w.padding_low = padding[2 * i];
      w.padding_high = padding[2 * i + 1];
    }
    if (!reversal.empty()) w.window_reversal = reversal[i];
  }
  for (const char* key : {"feature_group_count", "batch_group_count"}) {
    if (const MlirAttr* count = Attr(spec, key)) {
      XFFI_ASSIGN_OR_RETURN(int64_t value, AttrToInteger(*count, lex_, key));
      (std::string_view(key) == "feature_group_count"
           ? inst->feature_group_count
           : inst->batch_group_count) = value;
    }
  }
  if (const MlirAttr* precision = Attr(spec, "precision_config")) {
    if (precision->kind != MlirAttr::Kind::kArray)
      return lex_.ErrorAt(precision->pos,
                          "precision_config: expected a list of precisions");
    for (const MlirAttr& p : precision->elements)
      if (p.kind != MlirAttr::Kind::kEnum ||
          (p.str != "DEFAULT" && p.str != "HIGH" && p.str != "HIGHEST"))
        return lex_.ErrorAt(p.pos,
                            "precision_config: expected DEFAULT, HIGH or "
                            "HIGHEST");
  }
  return Status::Ok();
}

Status Parser::ReadBatchNorm(const OpSpec& spec, Instruction* inst) {
  const MlirAttr* epsilon = Attr(spec, "epsilon");
  if (epsilon == nullptr) return OpError(spec, "missing attribute 'epsilon'");
  if (epsilon->kind == MlirAttr::Kind::kFloat && !epsilon->is_hex) {
    inst->epsilon = static_cast<float>(epsilon->float_value);
  } else if (epsilon->kind == MlirAttr::Kind::kFloat) {
    uint32_t bits = static_cast<uint32_t>(epsilon->hex_bits);
    std::memcpy(&inst->epsilon, &bits, sizeof(bits));
  } else {
    return lex_.ErrorAt(epsilon->pos, "epsilon: expected an f32 value");
  }
  const MlirAttr* index = Attr(spec, "feature_index");
  if (index == nullptr)
    return OpError(spec, "missing attribute 'feature_index'");
  XFFI_ASSIGN_OR_RETURN(inst->feature_index,
                        AttrToInteger(*index, lex_, "feature_index"));
  return Status::Ok();
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
