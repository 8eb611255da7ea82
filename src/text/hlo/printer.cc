// PrintHlo: a Module as HLO text in the full form (`%` names, computation
// signatures), which ParseHlo reads back to the same program: every op field
// is written, constants bit for bit, locations as metadata.
//
// A manual computation is written as JAX writes a shard_map in HLO: a call
// of its body between xla.sdy.GlobalToLocalShape and
// xla.sdy.LocalToGlobalShape custom calls, with the shardings in their
// frontend attributes and the meshes in the module's.
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "text/hlo/custom_call.h"
#include "text/hlo/numeric_attributes.h"
#include "text/hlo/scanner.h"
#include "xffi/program/text.h"

namespace xffi {
namespace {

std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u >= 0x7f) {
          // Octal takes exactly three digits, so a following digit is safe.
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\%03o", u);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Whether `text` is one {...} group, nested brackets counted and quoted
// strings (with their escapes) skipped: XLA's printer writes such a
// frontend attribute value bare (its LexesAsJsonDict; jaxlib 0.10.2 prints
// `a={b=1}`, `a="{b}c"`, `a="plain"`), and the parser reads it back
// verbatim. XLA also writes bare a value with blanks around the group, or
// with unbalanced ( or [ inside it, which a parser then reads differently;
// those stay quoted here so the value survives.
bool IsBraceGroup(std::string_view text) {
  if (text.size() < 2 || text.front() != '{') return false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (i >= text.size()) return false;  // an unterminated string
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0) return c == '}' && i + 1 == text.size();
    }
  }
  return false;
}

std::string FrontendAttributeValue(const std::string& value) {
  return IsBraceGroup(value) ? value : Quote(value);
}

// {key="value",...} in key order, as XLA prints them; a key that is not a
// plain name is quoted so the reader takes it back.
std::string FrontendAttributes(const std::map<std::string, std::string>& map) {
  std::string out = "{";
  for (const auto& [key, value] : map) {
    if (out.size() > 1) out += ",";
    bool plain = !key.empty();
    for (char c : key)
      plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                        c == '_' || c == '.' || c == '-');
    out += (plain ? key : Quote(key)) + "=" + FrontendAttributeValue(value);
  }
  return out + "}";
}

std::string IntList(const std::vector<int64_t>& values,
                    std::string_view separator = ",") {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += separator;
    out += std::to_string(values[i]);
  }
  return out;
}

std::string Braces(const std::vector<int64_t>& values) {
  return "{" + IntList(values) + "}";
}

// A name the parser reads back as one name: invalid characters become '_',
// and a repeated name gets a ".N" suffix.
class Namer {
 public:
  std::string Unique(std::string_view wanted, std::string_view fallback) {
    std::string name;
    for (char c : wanted) name += hlo::IsNameChar(c) ? c : '_';
    if (name.empty()) name = std::string(fallback);
    std::string candidate = name;
    for (int n = 1; used_.count(candidate); ++n)
      candidate = name + "." + std::to_string(n);
    used_.insert(candidate);
    return candidate;
  }

 private:
  std::set<std::string> used_;
};

// `shape` with its array leaves' layouts taken from `layouts`, in leaf order.
Shape WithLeafLayouts(const Shape& shape, const std::vector<Shape>& layouts,
                      size_t& next) {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& element : shape.tuple_shapes())
      elements.push_back(WithLeafLayouts(element, layouts, next));
    return Shape::Tuple(std::move(elements));
  }
  if (next >= layouts.size()) return shape;
  const Shape& layout = layouts[next++];
  Shape out = shape;
  if (shape.IsArray() && layout.IsArray() && layout.rank() == shape.rank() &&
      layout.has_layout())
    out.set_minor_to_major(layout.minor_to_major());
  return out;
}

std::string WindowText(const std::vector<WindowDimension>& window) {
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::string pad;
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false;
  bool any_reversal = false;
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDimension& w = window[i];
    size.push_back(w.size);
    stride.push_back(w.stride);
    lhs_dilate.push_back(w.base_dilation);
    rhs_dilate.push_back(w.window_dilation);
    reversal.push_back(w.window_reversal ? 1 : 0);
    any_reversal |= w.window_reversal;
    if (i > 0) pad += "x";
    pad += std::to_string(w.padding_low) + "_" + std::to_string(w.padding_high);
    any_stride |= w.stride != 1;
    any_pad |= w.padding_low != 0 || w.padding_high != 0;
    any_lhs |= w.base_dilation != 1;
    any_rhs |= w.window_dilation != 1;
  }
  std::string out = "{";
  if (!window.empty()) {
    out += "size=" + IntList(size, "x");
    if (any_stride) out += " stride=" + IntList(stride, "x");
    if (any_pad) out += " pad=" + pad;
    if (any_lhs) out += " lhs_dilate=" + IntList(lhs_dilate, "x");
    if (any_rhs) out += " rhs_dilate=" + IntList(rhs_dilate, "x");
    if (any_reversal) out += " rhs_reversal=" + IntList(reversal, "x");
  }
  return out + "}";
}

// b01f_01io->b01f: each dimension's role, spatial ones by their number.
std::string DimLabels(const ConvolutionDimensionNumbers& dn, int64_t rank) {
  auto side = [rank](int64_t first, char first_label, int64_t second,
                     char second_label, const std::vector<int64_t>& spatial) {
    std::string out(static_cast<size_t>(rank), '?');
    auto put = [&](int64_t dim, char label) {
      if (dim >= 0 && dim < rank) out[static_cast<size_t>(dim)] = label;
    };
    put(first, first_label);
    put(second, second_label);
    for (size_t k = 0; k < spatial.size(); ++k)
      put(spatial[k], static_cast<char>('0' + k));
    return out;
  };
  return side(dn.input_batch_dimension, 'b', dn.input_feature_dimension, 'f',
              dn.input_spatial_dimensions) +
         "_" +
         side(dn.kernel_input_feature_dimension, 'i',
              dn.kernel_output_feature_dimension, 'o',
              dn.kernel_spatial_dimensions) +
         "->" +
         side(dn.output_batch_dimension, 'b', dn.output_feature_dimension, 'f',
              dn.output_spatial_dimensions);
}

// The shortest decimal text that reads back as the same float.
std::string FloatText(float value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string ShapeIndex(const std::vector<int64_t>& index) {
  return "{" + IntList(index) + "}";
}

class Printer {
 public:
  explicit Printer(const Module& module) : module_(module) {}

  std::string Print() {
    Namer computation_namer;
    for (const auto& c : module_.computations())
      computation_names_[c.get()] =
          computation_namer.Unique(c->name(), "computation");
    Namer module_namer;
    out_ = "HloModule " + module_namer.Unique(module_.name(), "module");
    if (const Computation* entry = module_.entry();
        entry != nullptr && entry->root() != nullptr) {
      out_ += ", entry_computation_layout={(";
      std::vector<Instruction*> params = entry->parameters();
      for (size_t i = 0; i < params.size(); ++i)
        out_ += (i ? ", " : "") + params[i]->shape().ToString();
      out_ += ")->" + entry->root()->shape().ToString() + "}";
    }
    if (module_.num_partitions() > 0)
      out_ += ", num_partitions=" + std::to_string(module_.num_partitions());
    PrintMeshes();
    out_ += "\n";
    for (const auto& c : module_.computations()) PrintComputation(*c);
    return out_;
  }

 private:
  std::string Ref(const Computation* c) const {
    auto it = computation_names_.find(c);
    return "%" + (it != computation_names_.end() ? it->second : "null");
  }

  std::string Ref(const Instruction* in) const {
    auto it = instruction_names_.find(in);
    return "%" + (it != instruction_names_.end() ? it->second : "null");
  }

  // The meshes the manual computations name, as the module's
  // xla.sdy.meshes (the first one given a name wins).
  void PrintMeshes() {
    std::map<std::string, const Mesh*> meshes;
    for (const auto& c : module_.computations())
      for (const auto& in : c->instructions())
        if (in->opcode() == Opcode::kManualComputation &&
            !in->manual_computation.mesh.name.empty())
          meshes.emplace(in->manual_computation.mesh.name,
                         &in->manual_computation.mesh);
    if (meshes.empty()) return;
    std::string text = "{";
    for (const auto& [name, mesh] : meshes) {
      if (text.size() > 1) text += ", ";
      text += name + " = #sdy.mesh" + mesh->ToString();
    }
    out_ += ", frontend_attributes={xla.sdy.meshes=" +
            FrontendAttributeValue(text + "}") + "}";
  }

  void PrintComputation(const Computation& c) {
    Namer namer;
    instruction_names_.clear();
    for (const auto& in : c.instructions())
      instruction_names_[in.get()] =
          namer.Unique(in->name(), OpcodeName(in->opcode()));
    // The custom calls, call and elements a manual computation is written
    // with, named after it.
    glue_names_.clear();
    for (const auto& in : c.instructions()) {
      if (in->opcode() != Opcode::kManualComputation) continue;
      const std::string& base = instruction_names_[in.get()];
      GlueNames& glue = glue_names_[in.get()];
      glue.to_local = namer.Unique(base + ".to_local", "to_local");
      glue.body = namer.Unique(base + ".body", "body");
      for (int64_t i = 0; in->operand_count() > 1 && i < in->operand_count();
           ++i)
        glue.args.push_back(
            namer.Unique(base + ".arg." + std::to_string(i), "arg"));
      for (int64_t r = 0; in->shape().IsTuple() && r < in->shape().tuple_size();
           ++r)
        glue.results.push_back(
            namer.Unique(base + ".result." + std::to_string(r), "result"));
    }
    if (NeedsResultCopy(c))
      result_copy_name_ =
          namer.Unique(instruction_names_[c.root()] + ".result", "result");
    out_ += "\n";
    if (&c == module_.entry()) out_ += "ENTRY ";
    out_ += Ref(&c) + " (";
    std::vector<Instruction*> params = c.parameters();
    for (size_t i = 0; i < params.size(); ++i)
      out_ += (i ? ", " : "") + instruction_names_[params[i]] + ": " +
              params[i]->shape().ToString(false);
    out_ += ") -> ";
    out_ += c.root() != nullptr ? c.root()->shape().ToString(false) : "()";
    out_ += " {\n";
    for (const auto& in : c.instructions()) {
      if (in->opcode() == Opcode::kManualComputation)
        PrintManualComputation(c, *in);
      else
        PrintInstruction(c, *in);
    }
    if (NeedsResultCopy(c)) PrintResultCopy(c);
    out_ += "}\n";
  }

  void PrintManualComputation(const Computation& c, const Instruction& in) {
    const ManualComputationConfig& config = in.manual_computation;
    const GlueNames& glue = glue_names_.at(&in);
    const Computation* body = in.called_computations().empty()
                                  ? nullptr
                                  : in.called_computations()[0];
    std::string axes =
        Quote("#sdy<manual_axes" + AxisSetToString(config.manual_axes) + ">");
    auto per_value = [&](const std::vector<TensorSharding>& shardings) {
      std::string text = "#sdy.sharding_per_value<[";
      for (size_t i = 0; i < shardings.size(); ++i)
        text += (i ? ", " : "") + shardings[i].ToString(config.mesh);
      return Quote(text + "]>");
    };
    // The body's arguments: one value, or the elements of a tuple.
    std::vector<std::string> args;
    if (in.operand_count() > 0) {
      std::vector<Shape> locals;
      for (int64_t i = 0; i < in.operand_count(); ++i) {
        const Instruction* param =
            body != nullptr ? body->parameter(i) : nullptr;
        locals.push_back(param != nullptr ? param->shape()
                                          : in.operand(i)->shape());
      }
      Shape local = locals.size() == 1 ? locals[0] : Shape::Tuple(locals);
      out_ +=
          "  %" + glue.to_local + " = " + local.ToString() + " custom-call(";
      for (int64_t i = 0; i < in.operand_count(); ++i)
        out_ += (i ? ", " : "") + Ref(in.operand(i));
      out_ += ")";
      Attr("custom_call_target", Quote("xla.sdy.GlobalToLocalShape"));
      Attr("custom_call_has_side_effect", "true");
      Attr("frontend_attributes",
           "{xla.sdy.in_shardings=" + per_value(config.in_shardings) +
               ",xla.sdy.manual_axes=" + axes + "}");
      out_ += "\n";
      if (locals.size() == 1) args.push_back("%" + glue.to_local);
      for (size_t i = 0; i < glue.args.size(); ++i) {
        out_ += "  %" + glue.args[i] + " = " + locals[i].ToString() +
                " get-tuple-element(%" + glue.to_local +
                "), index=" + std::to_string(i) + "\n";
        args.push_back("%" + glue.args[i]);
      }
    }
    const Shape& returned = body != nullptr && body->root() != nullptr
                                ? body->root()->shape()
                                : in.shape();
    out_ += "  %" + glue.body + " = " + returned.ToString() + " call(";
    for (size_t i = 0; i < args.size(); ++i) out_ += (i ? ", " : "") + args[i];
    out_ += ")";
    Called("to_apply", in, 0);
    out_ += "\n";
    std::vector<std::string> results;
    if (glue.results.empty()) results.push_back("%" + glue.body);
    for (size_t r = 0; r < glue.results.size(); ++r) {
      // The body's result r; the global one where the body's is missing
      // (the reader drops these elements either way).
      int64_t index = static_cast<int64_t>(r);
      const Shape& element = returned.IsTuple() && index < returned.tuple_size()
                                 ? returned.tuple_shape(index)
                                 : in.shape().tuple_shape(index);
      out_ += "  %" + glue.results[r] + " = " + element.ToString() +
              " get-tuple-element(%" + glue.body +
              "), index=" + std::to_string(r) + "\n";
      results.push_back("%" + glue.results[r]);
    }
    out_ += "  ";
    if (IsPrintedRoot(c, in)) out_ += "ROOT ";
    out_ += Ref(&in) + " = " + in.shape().ToString() + " custom-call(";
    for (size_t r = 0; r < results.size(); ++r)
      out_ += (r ? ", " : "") + results[r];
    out_ += ")";
    Attr("custom_call_target", Quote("xla.sdy.LocalToGlobalShape"));
    Attr("custom_call_has_side_effect", "true");
    Attr("frontend_attributes",
         "{xla.sdy.manual_axes=" + axes +
             ",xla.sdy.out_shardings=" + per_value(config.out_shardings) + "}");
    if (std::optional<std::string> sharding = ShardingText(c, in))
      Attr("sharding", *sharding);
    PrintMetadata(in.location());
    out_ += "\n";
  }

  // An op's sharding= value: its own, or for the entry's ROOT the
  // program's result shardings as XLA writes them there (one per leaf of a
  // tuple, `{unknown}` where a result has none). HLO gives an op one
  // sharding, so a ROOT with its own (a parameter, a Sharding marker) keeps
  // that one, and when the results' differ the ROOT is a copy of it that
  // carries theirs (ResultCopy).
  std::optional<std::string> ShardingText(const Computation& c,
                                          const Instruction& in) const {
    if (in.sharding.has_value()) return in.sharding->ToString();
    if (&c != module_.entry() || c.root() != &in) return std::nullopt;
    return ResultShardingText(c, in.shape());
  }

  // The ROOT is written as an op of its own when the entry's root has a
  // sharding of its own (a parameter returned as it is, a Sharding marker)
  // and the program declares another one for its results (jax.jit's
  // in_shardings and out_shardings of `lambda a: a`): HLO gives an op one
  // sharding, and the ROOT's is the results'. XLA's converter writes the
  // same case as a tuple and a ROOT get-tuple-element; a copy says it in
  // one op. Read back, the copy is an op of the module (it computes what
  // the root did) and both shardings are as they were.
  bool NeedsResultCopy(const Computation& c) const {
    const Instruction* root = c.root();
    if (&c != module_.entry() || root == nullptr || !root->sharding.has_value())
      return false;
    std::optional<std::string> results = ResultShardingText(c, root->shape());
    return results.has_value() && *results != root->sharding->ToString();
  }

  bool IsPrintedRoot(const Computation& c, const Instruction& in) const {
    return c.root() == &in && !NeedsResultCopy(c);
  }

  void PrintResultCopy(const Computation& c) {
    const Instruction& root = *c.root();
    out_ += "  ROOT %" + result_copy_name_ + " = " + root.shape().ToString() +
            " copy(" + Ref(&root) + ")";
    Attr("sharding", *ResultShardingText(c, root.shape()));
    PrintMetadata(root.location());
    out_ += "\n";
  }

  std::optional<std::string> ResultShardingText(const Computation& c,
                                                const Shape& shape) const {
    const auto& results = c.result_shardings();
    if (results.empty()) return std::nullopt;
    bool any = false;
    for (const auto& r : results) any = any || r.has_value();
    if (!any) return std::nullopt;
    if (!shape.IsTuple()) return results[0]->ToString();
    std::string text = "{";
    size_t leaf = 0;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const Shape& element = shape.tuple_shape(i);
      const auto& sharding = results[static_cast<size_t>(i)];
      if (!element.IsTuple()) {
        text += (leaf++ ? ", " : "") +
                (sharding.has_value() ? sharding->ToString() : "{unknown}");
        continue;
      }
      for (size_t k = 0; k < element.Leaves().size(); ++k)
        text += (leaf++ ? ", " : "") + std::string("{unknown}");
    }
    return text + "}";
  }

  void PrintInstruction(const Computation& c, const Instruction& in) {
    out_ += "  ";
    if (IsPrintedRoot(c, in)) out_ += "ROOT ";
    Shape shape = in.shape();
    if (in.opcode() == Opcode::kCustomCall &&
        !in.custom_call.result_layouts.empty()) {
      size_t next = 0;
      shape = WithLeafLayouts(shape, in.custom_call.result_layouts, next);
    }
    out_ += Ref(&in) + " = " + shape.ToString() + " " +
            std::string(OpcodeName(in.opcode())) + "(";
    if (in.opcode() == Opcode::kParameter) {
      out_ += std::to_string(in.parameter_number);
    } else if (in.opcode() == Opcode::kConstant) {
      out_ += in.literal.ValueToString();
    } else {
      for (int64_t i = 0; i < in.operand_count(); ++i)
        out_ += (i ? ", " : "") + Ref(in.operand(i));
    }
    out_ += ")";
    PrintAttributes(in);
    out_ += hlo::PrintNumericOpAttributes(in);
    if (std::optional<std::string> sharding = ShardingText(c, in))
      Attr("sharding", *sharding);
    if (!in.frontend_attributes.empty())
      Attr("frontend_attributes", FrontendAttributes(in.frontend_attributes));
    PrintMetadata(in.location());
    if (in.opcode() == Opcode::kCustomCall) PrintBackendConfig(in.custom_call);
    out_ += "\n";
  }

  void Attr(std::string_view name, const std::string& value) {
    out_ += ", ";
    out_ += name;
    out_ += "=" + value;
  }

  void ListIfAny(std::string_view name, const std::vector<int64_t>& values) {
    if (!values.empty()) Attr(name, Braces(values));
  }

  void Called(std::string_view name, const Instruction& in, size_t i) {
    if (i < in.called_computations().size())
      Attr(name, Ref(in.called_computations()[i]));
  }

  void CalledList(std::string_view name, const Instruction& in) {
    std::string list = "{";
    for (size_t i = 0; i < in.called_computations().size(); ++i)
      list += (i ? ", " : "") + Ref(in.called_computations()[i]);
    Attr(name, list + "}");
  }

  void PrintAttributes(const Instruction& in) {
    switch (in.opcode()) {
      case Opcode::kGetTupleElement:
        Attr("index", std::to_string(in.tuple_index));
        break;
      case Opcode::kCall:
        Called("to_apply", in, 0);
        break;
      case Opcode::kFusion:
        Attr("kind", std::string(FusionKindName(in.fusion_kind)));
        Called("calls", in, 0);
        break;
      case Opcode::kWhile:
        Called("condition", in, 0);
        Called("body", in, 1);
        break;
      case Opcode::kConditional:
        CalledList("branch_computations", in);
        break;
      case Opcode::kCompare:
        Attr("direction",
             std::string(ComparisonDirectionName(in.comparison_direction)));
        if (in.comparison_type != ComparisonType::kDefault)
          Attr("type", std::string(ComparisonTypeName(in.comparison_type)));
        break;
      case Opcode::kIota:
        Attr("iota_dimension",
             std::to_string(in.dimensions.empty() ? 0 : in.dimensions[0]));
        break;
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kReverse:
      case Opcode::kConcatenate:
        Attr("dimensions", Braces(in.dimensions));
        break;
      case Opcode::kReduce:
        Attr("dimensions", Braces(in.dimensions));
        Called("to_apply", in, 0);
        break;
      case Opcode::kSort:
        Attr("dimensions", Braces(in.dimensions));
        if (in.is_stable) Attr("is_stable", "true");
        Called("to_apply", in, 0);
        break;
      case Opcode::kMap:
        Attr("dimensions", Braces(in.dimensions));
        Called("to_apply", in, 0);
        break;
      case Opcode::kSlice: {
        std::string text = "{";
        for (size_t i = 0; i < in.slice_starts.size(); ++i) {
          text += i ? ", [" : "[";
          text += std::to_string(in.slice_starts[i]) + ":" +
                  std::to_string(i < in.slice_limits.size() ? in.slice_limits[i]
                                                            : 0);
          if (i < in.slice_strides.size() && in.slice_strides[i] != 1)
            text += ":" + std::to_string(in.slice_strides[i]);
          text += "]";
        }
        Attr("slice", text + "}");
        break;
      }
      case Opcode::kDynamicSlice:
        Attr("dynamic_slice_sizes", Braces(in.dynamic_slice_sizes));
        break;
      case Opcode::kPad: {
        std::string text;
        for (size_t i = 0; i < in.padding.size(); ++i) {
          const PadDimension& p = in.padding[i];
          if (i > 0) text += "x";
          text += std::to_string(p.low) + "_" + std::to_string(p.high);
          if (p.interior != 0) text += "_" + std::to_string(p.interior);
        }
        Attr("padding", text);
        break;
      }
      case Opcode::kDot: {
        const DotDimensionNumbers& d = in.dot_dimension_numbers;
        ListIfAny("lhs_batch_dims", d.lhs_batch);
        ListIfAny("lhs_contracting_dims", d.lhs_contracting);
        ListIfAny("rhs_batch_dims", d.rhs_batch);
        ListIfAny("rhs_contracting_dims", d.rhs_contracting);
        break;
      }
      case Opcode::kGather: {
        const GatherDimensionNumbers& g = in.gather_dimension_numbers;
        Attr("offset_dims", Braces(g.offset_dims));
        Attr("collapsed_slice_dims", Braces(g.collapsed_slice_dims));
        Attr("start_index_map", Braces(g.start_index_map));
        ListIfAny("operand_batching_dims", g.operand_batching_dims);
        ListIfAny("start_indices_batching_dims", g.start_indices_batching_dims);
        Attr("index_vector_dim", std::to_string(g.index_vector_dim));
        Attr("slice_sizes", Braces(in.gather_slice_sizes));
        if (in.indices_are_sorted) Attr("indices_are_sorted", "true");
        if (in.unique_indices) Attr("unique_indices", "true");
        break;
      }
      case Opcode::kScatter: {
        const ScatterDimensionNumbers& d = in.scatter_dimension_numbers;
        Attr("update_window_dims", Braces(d.update_window_dims));
        Attr("inserted_window_dims", Braces(d.inserted_window_dims));
        Attr("scatter_dims_to_operand_dims",
             Braces(d.scatter_dims_to_operand_dims));
        ListIfAny("input_batching_dims", d.input_batching_dims);
        ListIfAny("scatter_indices_batching_dims",
                  d.scatter_indices_batching_dims);
        Attr("index_vector_dim", std::to_string(d.index_vector_dim));
        if (in.indices_are_sorted) Attr("indices_are_sorted", "true");
        if (in.unique_indices) Attr("unique_indices", "true");
        Called("to_apply", in, 0);
        break;
      }
      case Opcode::kReduceWindow:
        Attr("window", WindowText(in.window));
        Called("to_apply", in, 0);
        break;
      case Opcode::kSelectAndScatter:
        Attr("window", WindowText(in.window));
        Called("select", in, 0);
        Called("scatter", in, 1);
        break;
      case Opcode::kConvolution:
        if (!in.window.empty()) Attr("window", WindowText(in.window));
        Attr("dim_labels",
             DimLabels(in.convolution_dimension_numbers,
                       in.shape().IsArray() ? in.shape().rank() : 0));
        if (in.feature_group_count != 1)
          Attr("feature_group_count", std::to_string(in.feature_group_count));
        if (in.batch_group_count != 1)
          Attr("batch_group_count", std::to_string(in.batch_group_count));
        break;
      case Opcode::kBatchNormTraining:
      case Opcode::kBatchNormInference:
      case Opcode::kBatchNormGrad:
        Attr("epsilon", FloatText(in.epsilon));
        Attr("feature_index", std::to_string(in.feature_index));
        break;
      case Opcode::kCustomCall:
        PrintCustomCall(in);
        break;
      case Opcode::kAllReduce:
        PrintDevices(in.collective_devices);
        Called("to_apply", in, 0);
        break;
      case Opcode::kAllGather:
        Attr("dimensions", Braces(in.dimensions));
        PrintDevices(in.collective_devices);
        break;
      case Opcode::kReduceScatter:
        Attr("dimensions", Braces(in.dimensions));
        PrintDevices(in.collective_devices);
        Called("to_apply", in, 0);
        break;
      case Opcode::kAllToAll:
        if (in.split_dimension == in.concat_dimension) {
          Attr("dimensions", Braces({in.split_dimension}));
        } else {
          // Not HLO: XLA rewrites such an all-to-all into several ops.
          Attr("split_dimension", std::to_string(in.split_dimension));
          Attr("concat_dimension", std::to_string(in.concat_dimension));
        }
        PrintDevices(in.collective_devices);
        break;
      case Opcode::kCollectivePermute: {
        if (in.collective_devices.channel_id != 0)
          Attr("channel_id", std::to_string(in.collective_devices.channel_id));
        std::string pairs = "{";
        for (size_t i = 0; i < in.source_target_pairs.size(); ++i)
          pairs += (i ? "," : "") + Braces({in.source_target_pairs[i].first,
                                            in.source_target_pairs[i].second});
        Attr("source_target_pairs", pairs + "}");
        break;
      }
      default:
        break;
    }
  }

  void PrintDevices(const CollectiveDevices& devices) {
    if (devices.channel_id != 0)
      Attr("channel_id", std::to_string(devices.channel_id));
    std::string groups = "{";
    for (size_t g = 0; g < devices.replica_groups.size(); ++g)
      groups += (g ? "," : "") + Braces(devices.replica_groups[g]);
    Attr("replica_groups", groups + "}");
    if (devices.use_global_device_ids) Attr("use_global_device_ids", "true");
  }

  void PrintCustomCall(const Instruction& in) {
    const CustomCallConfig& call = in.custom_call;
    Attr("custom_call_target", Quote(call.target));
    if (!call.operand_layouts.empty()) {
      std::string list = "{";
      for (size_t i = 0; i < call.operand_layouts.size(); ++i) {
        Shape layout = call.operand_layouts[i];
        if (layout.IsArray() && !layout.has_layout())
          layout.set_minor_to_major(layout.EffectiveMinorToMajor());
        list += (i ? ", " : "") + layout.ToString();
      }
      Attr("operand_layout_constraints", list + "}");
    }
    if (call.has_side_effect) Attr("custom_call_has_side_effect", "true");
    if (call.literal.has_value())
      Attr("literal", call.literal->shape().ToString(false) + " " +
                          call.literal->ValueToString());
    if (!call.output_operand_aliases.empty()) {
      std::string list = "{";
      for (size_t i = 0; i < call.output_operand_aliases.size(); ++i) {
        const OutputOperandAlias& a = call.output_operand_aliases[i];
        list += (i ? ", " : "") + ShapeIndex(a.output_index) + ": (" +
                std::to_string(a.operand) + ", " + ShapeIndex(a.operand_index) +
                ")";
      }
      Attr("output_to_operand_aliasing", list + "}");
    }
    if (call.schedule != CustomCallSchedule::kNone)
      Attr("schedule", std::string(hlo::ScheduleName(call.schedule)));
    if (call.api_version != CustomCallApiVersion::kOriginal)
      Attr("api_version", std::string(hlo::ApiVersionName(call.api_version)));
    if (!in.called_computations().empty())
      CalledList("called_computations", in);
  }

  void PrintBackendConfig(const CustomCallConfig& call) {
    if (call.api_version == CustomCallApiVersion::kTypedFfi) {
      std::string config = hlo::TypedFfiBackendConfig(call);
      bool dictionary = config.size() >= 2 && config.front() == '{' &&
                        config.back() == '}' &&
                        config.find('\n') == std::string::npos;
      Attr("backend_config", dictionary ? config : Quote(config));
    } else if (!call.opaque.empty()) {
      Attr("backend_config", Quote(call.opaque));
    }
  }

  void PrintMetadata(const Location& location) {
    if (!location.known() && location.file.empty()) return;
    // source_file is always written, so a location without one reads back
    // as such rather than as the printed text's own position.
    std::string text = "{";
    if (!location.name.empty()) text += "op_name=" + Quote(location.name) + " ";
    text += "source_file=" + Quote(location.file);
    if (location.line > 0)
      text += " source_line=" + std::to_string(location.line);
    if (location.column > 0)
      text += " source_column=" + std::to_string(location.column);
    Attr("metadata", text + "}");
  }

  const Module& module_;
  std::string out_;
  std::unordered_map<const Computation*, std::string> computation_names_;
  std::unordered_map<const Instruction*, std::string> instruction_names_;
  struct GlueNames {
    std::string to_local, body;
    std::vector<std::string> args, results;
  };
  std::unordered_map<const Instruction*, GlueNames> glue_names_;
  std::string result_copy_name_;  // the entry's, when NeedsResultCopy
};

}  // namespace

std::string PrintHlo(const Module& module) { return Printer(module).Print(); }

}  // namespace xffi
