// Shape refinement: a shape-polymorphic program (types with `?`, as
// jax.export writes them for symbolic dimensions) read again with concrete
// argument shapes, so that every value is static (see parser.h). What JAX
// relies on XLA's shape refinement for happens here, as the text is read:
//   - stablehlo.get_dimension_size of a refined value is a constant;
//   - integer arithmetic on constants (the dimension expressions: convert,
//     multiply, divide, compare, concatenate, reshape, ...) is folded;
//   - an op whose result type has `?` gets the shape its operands give;
//   - dynamic ops whose shape operands became constants are built as their
//     static forms; a shape operand that depends on data is an error;
//   - custom calls with shape operands (indices_of_shape_operands) take
//     their result shapes from them; JAX's own dynamic custom calls
//     (@stablehlo.dynamic_reduce_window, _rng_bit_generator, _top_k) are
//     built as the static ops;
//   - a loop's variables keep their initial values' shapes (pretty and
//     generic forms), and a body that changes them is an error;
//   - JAX's @shape_assertion custom calls are checked and dropped: a false
//     one fails with JAX's message, its {k} replaced by the values;
//   - functions are read once per distinct signature (argument shapes and
//     the values of small integer constants passed, JAX's dimension
//     variables, which are constants inside the specialised function).
#include <algorithm>
#include <cstring>

#include "ir/compare_values.h"
#include "ir/row_major_index.h"
#include "ir/shape_inference.h"
#include "runtime/status_macros.h"
#include "text/stablehlo/parser.h"
#include "xffi/program/text.h"

namespace xffi::text::stablehlo {
namespace {

// Constants up to this size are treated as shape values: folded, passed
// into specialised functions and cloned into regions.
constexpr int64_t kMaxShapeValueElements = 1024;
constexpr size_t kMaxSpecializationDepth = 64;

bool IsIntegerLike(ElementType type) {
  return type == ElementType::kPred || IsIntegralType(type);
}

template <typename T>
void ReadAs(const Literal& literal, std::vector<int64_t>* out) {
  const T* data = literal.data<T>();
  for (size_t i = 0; i < out->size(); ++i)
    (*out)[i] = static_cast<int64_t>(data[i]);
}

template <typename T>
void WriteAs(const std::vector<int64_t>& values, Literal* literal) {
  T* data = literal->data<T>();
  for (size_t i = 0; i < values.size(); ++i)
    data[i] = static_cast<T>(values[i]);
}

// The elements of an integer or pred array literal.
std::optional<std::vector<int64_t>> IntegerValues(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray() || !IsIntegerLike(shape.element_type())) return {};
  std::vector<int64_t> out(static_cast<size_t>(shape.num_elements()));
  switch (shape.element_type()) {
    case ElementType::kPred:
    case ElementType::kU8:
    case ElementType::kU4:
    case ElementType::kU2:
    case ElementType::kU1:
      ReadAs<uint8_t>(literal, &out);
      break;
    case ElementType::kS8:
    case ElementType::kS4:
    case ElementType::kS2:
    case ElementType::kS1:
      ReadAs<int8_t>(literal, &out);
      break;
    case ElementType::kS16:
      ReadAs<int16_t>(literal, &out);
      break;
    case ElementType::kU16:
      ReadAs<uint16_t>(literal, &out);
      break;
    case ElementType::kS32:
      ReadAs<int32_t>(literal, &out);
      break;
    case ElementType::kU32:
      ReadAs<uint32_t>(literal, &out);
      break;
    case ElementType::kS64:
      ReadAs<int64_t>(literal, &out);
      break;
    case ElementType::kU64:
      ReadAs<uint64_t>(literal, &out);
      break;
    default:
      return {};
  }
  return out;
}

// A literal of `shape` (integer or pred) holding `values`, narrowed as a
// conversion to the element type narrows them.
std::optional<Literal> IntegerLiteral(const Shape& shape,
                                      const std::vector<int64_t>& values) {
  Literal literal(shape.WithoutLayout());
  switch (shape.element_type()) {
    case ElementType::kPred: {
      uint8_t* data = literal.data<uint8_t>();
      for (size_t i = 0; i < values.size(); ++i) data[i] = values[i] != 0;
      break;
    }
    case ElementType::kS8:
      WriteAs<int8_t>(values, &literal);
      break;
    case ElementType::kU8:
      WriteAs<uint8_t>(values, &literal);
      break;
    case ElementType::kS16:
      WriteAs<int16_t>(values, &literal);
      break;
    case ElementType::kU16:
      WriteAs<uint16_t>(values, &literal);
      break;
    case ElementType::kS32:
      WriteAs<int32_t>(values, &literal);
      break;
    case ElementType::kU32:
      WriteAs<uint32_t>(values, &literal);
      break;
    case ElementType::kS64:
      WriteAs<int64_t>(values, &literal);
      break;
    case ElementType::kU64:
      WriteAs<uint64_t>(values, &literal);
      break;
    default:
      return {};
  }
  return literal;
}

// The value of `inst` when it is integer arithmetic on constants that is
// small enough to be a shape computation; nullopt when it is not, or when
// folding would change what the program does (a division by zero).
std::optional<Literal> Fold(const Instruction& inst) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || IsDynamicShape(shape) ||
      !IsIntegerLike(shape.element_type()) ||
      shape.num_elements() > kMaxShapeValueElements)
    return {};
  std::vector<std::vector<int64_t>> in;
  for (const Instruction* operand : inst.operands()) {
    if (operand->opcode() != Opcode::kConstant) return {};
    std::optional<std::vector<int64_t>> values =
        IntegerValues(operand->literal);
    if (!values.has_value()) return {};
    in.push_back(std::move(*values));
  }
  if (in.empty()) return {};
  // The text is not verified yet: fold only an op its operands allow, so
  // the index arithmetic below stays in bounds (the verifier reports the
  // others later).
  StatusOr<Shape> inferred = InferShape(inst);
  if (!inferred.ok() || !inferred->Compatible(shape)) return {};
  const int64_t n = shape.num_elements();
  std::vector<int64_t> out(static_cast<size_t>(n));
  auto at = [&](size_t operand, int64_t i) {
    const std::vector<int64_t>& v = in[operand];
    return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
  };
  auto same_size = [&](size_t operand) {
    return in[operand].size() == 1 ||
           static_cast<int64_t>(in[operand].size()) == n;
  };
  const std::vector<int64_t>& dims = shape.dims();
  switch (inst.opcode()) {
    case Opcode::kConvert:
    case Opcode::kReshape:
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSign:
    case Opcode::kNot:
      if (static_cast<int64_t>(in[0].size()) != n) return {};
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = in[0][static_cast<size_t>(i)];
        int64_t& y = out[static_cast<size_t>(i)];
        switch (inst.opcode()) {
          case Opcode::kNegate:
            y = -x;
            break;
          case Opcode::kAbs:
            y = x < 0 ? -x : x;
            break;
          case Opcode::kSign:
            y = (x > 0) - (x < 0);
            break;
          case Opcode::kNot:
            y = shape.element_type() == ElementType::kPred ? !x : ~x;
            break;
          default:
            y = x;
        }
      }
      break;
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kCompare:
      if (in.size() != 2 || !same_size(0) || !same_size(1)) return {};
      for (int64_t i = 0; i < n; ++i) {
        int64_t a = at(0, i), b = at(1, i);
        int64_t& y = out[static_cast<size_t>(i)];
        switch (inst.opcode()) {
          case Opcode::kAdd:
            y = static_cast<int64_t>(static_cast<uint64_t>(a) +
                                     static_cast<uint64_t>(b));
            break;
          case Opcode::kSubtract:
            y = static_cast<int64_t>(static_cast<uint64_t>(a) -
                                     static_cast<uint64_t>(b));
            break;
          case Opcode::kMultiply:
            y = static_cast<int64_t>(static_cast<uint64_t>(a) *
                                     static_cast<uint64_t>(b));
            break;
          case Opcode::kDivide:
          case Opcode::kRemainder:
            if (b == 0 || (a == INT64_MIN && b == -1)) return {};
            y = inst.opcode() == Opcode::kDivide ? a / b : a % b;
            break;
          case Opcode::kMaximum:
            y = std::max(a, b);
            break;
          case Opcode::kMinimum:
            y = std::min(a, b);
            break;
          case Opcode::kAnd:
            y = a & b;
            break;
          case Opcode::kOr:
            y = a | b;
            break;
          case Opcode::kXor:
            y = a ^ b;
            break;
          default:
            y = CompareValues(inst.comparison_direction, a, b);
        }
      }
      break;
    case Opcode::kSelect:
      if (in.size() != 3 || !same_size(0) || !same_size(1) || !same_size(2))
        return {};
      for (int64_t i = 0; i < n; ++i)
        out[static_cast<size_t>(i)] = at(0, i) ? at(1, i) : at(2, i);
      break;
    case Opcode::kClamp:
      if (in.size() != 3 || !same_size(0) || !same_size(1) || !same_size(2))
        return {};
      for (int64_t i = 0; i < n; ++i)
        out[static_cast<size_t>(i)] =
            std::min(std::max(at(1, i), at(0, i)), at(2, i));
      break;
    case Opcode::kBroadcast: {
      const std::vector<int64_t>& from = inst.operand(0)->shape().dims();
      if (inst.dimensions.size() != from.size()) return {};
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> index = UnravelRowMajor(i, dims);
        std::vector<int64_t> source(from.size());
        for (size_t k = 0; k < from.size(); ++k)
          source[k] =
              from[k] == 1 ? 0 : index[static_cast<size_t>(inst.dimensions[k])];
        out[static_cast<size_t>(i)] =
            in[0][static_cast<size_t>(RavelRowMajor(source, from))];
      }
      break;
    }
    case Opcode::kConcatenate: {
      if (inst.dimensions.size() != 1) return {};
      size_t d = static_cast<size_t>(inst.dimensions[0]);
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> index = UnravelRowMajor(i, dims);
        for (size_t k = 0; k < in.size(); ++k) {
          const std::vector<int64_t>& from = inst.operand(k)->shape().dims();
          if (index[d] < from[d]) {
            out[static_cast<size_t>(i)] =
                in[k][static_cast<size_t>(RavelRowMajor(index, from))];
            break;
          }
          index[d] -= from[d];
        }
      }
      break;
    }
    case Opcode::kSlice: {
      const std::vector<int64_t>& from = inst.operand(0)->shape().dims();
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> index = UnravelRowMajor(i, dims);
        for (size_t k = 0; k < index.size(); ++k)
          index[k] = inst.slice_starts[k] + index[k] * inst.slice_strides[k];
        out[static_cast<size_t>(i)] =
            in[0][static_cast<size_t>(RavelRowMajor(index, from))];
      }
      break;
    }
    default:
      return {};
  }
  return IntegerLiteral(shape, out);
}

// JAX's error_message.format(*values): {k} is the k-th value, {{ and }} are
// braces.
std::string FormatAssertion(const std::string& format,
                            const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '{') {
      size_t close = format.find('}', i);
      if (close != std::string::npos) {
        std::string digits = format.substr(i + 1, close - i - 1);
        if (!digits.empty() && digits.size() < 6 &&
            std::all_of(digits.begin(), digits.end(),
                        [](char d) { return d >= '0' && d <= '9'; })) {
          size_t k = static_cast<size_t>(std::stoul(digits));
          if (k < values.size()) {
            out += values[k];
            i = close;
            continue;
          }
        }
      }
    }
    out += c;
  }
  return out;
}

std::vector<Shape> DeclaredResults(const OpSpec& spec) {
  return Shapes(spec.types.functional ? spec.types.outputs : spec.types.list);
}

}  // namespace

bool MatchesDeclared(const Shape& actual, const Shape& declared) {
  if (declared.IsTuple()) {
    if (!actual.IsTuple() || actual.tuple_size() != declared.tuple_size())
      return false;
    for (int64_t i = 0; i < declared.tuple_size(); ++i)
      if (!MatchesDeclared(actual.tuple_shape(i), declared.tuple_shape(i)))
        return false;
    return true;
  }
  if (!IsDynamicShape(declared)) return actual.Compatible(declared);
  if (actual.element_type() != declared.element_type() ||
      actual.rank() != declared.rank())
    return false;
  for (int64_t i = 0; i < declared.rank(); ++i)
    if (declared.dim(i) != kDynamicDimension &&
        declared.dim(i) != actual.dim(i))
      return false;
  return true;
}

bool IsShapeDynamicOp(std::string_view name) {
  return name == "stablehlo.get_dimension_size" ||
         name == "stablehlo.dynamic_broadcast_in_dim" ||
         name == "stablehlo.dynamic_iota" ||
         name == "stablehlo.dynamic_reshape" ||
         name == "stablehlo.real_dynamic_slice" ||
         name == "stablehlo.dynamic_pad" ||
         name == "stablehlo.dynamic_gather" || name == "stablehlo.dynamic_conv";
}

StatusOr<Module> CheckArgumentShapes(Module module,
                                     const std::vector<Shape>& shapes,
                                     std::string_view source_name) {
  std::vector<Instruction*> parameters = module.entry()->parameters();
  std::string where(source_name);
  if (parameters.size() != shapes.size())
    return InvalidArgument(where + ": the program takes " +
                           std::to_string(parameters.size()) +
                           " argument(s), " + std::to_string(shapes.size()) +
                           " argument shape(s) were given");
  for (size_t i = 0; i < shapes.size(); ++i)
    if (!parameters[i]->shape().Compatible(shapes[i]))
      return InvalidArgument(where + ": argument " + std::to_string(i) +
                             " is " + parameters[i]->shape().ToString(false) +
                             ", the given shape is " +
                             shapes[i].ToString(false));
  return module;
}

StatusOr<Module> Parser::RunRefined(const Parser& first,
                                    const std::vector<Shape>& argument_shapes) {
  refining_ = true;
  function_starts_ = first.function_starts_;
  loc_aliases_ = first.loc_aliases_;
  module_name_ = first.module_name_;
  num_partitions_ = first.num_partitions_;
  meshes_ = first.meshes_;
  Signature signature;
  signature.shapes = argument_shapes;
  signature.constants.resize(argument_shapes.size());
  for (size_t i = 0; i < argument_shapes.size(); ++i)
    if (!argument_shapes[i].IsArray() || IsDynamicShape(argument_shapes[i]))
      return InvalidArgument(source_ + ": argument shape " + std::to_string(i) +
                             " (" + argument_shapes[i].ToString(false) +
                             ") is not a static array shape");
  XFFI_ASSIGN_OR_RETURN(FuncInfo * main,
                        Specialize("main", signature, lex_.peek().pos));
  return Assemble(main->computation);
}

StatusOr<FuncInfo*> Parser::SpecializeCall(
    const std::string& name, const std::vector<Instruction*>& operands,
    SourcePos pos) {
  Signature signature;
  for (Instruction* operand : operands) {
    signature.shapes.push_back(operand->shape());
    std::optional<Literal> constant;
    if (operand->opcode() == Opcode::kConstant && operand->shape().IsArray() &&
        IsIntegerLike(operand->shape().element_type()) &&
        operand->shape().num_elements() <= kMaxShapeValueElements)
      constant = operand->literal;
    signature.constants.push_back(std::move(constant));
  }
  return Specialize(name, signature, pos);
}

StatusOr<FuncInfo*> Parser::Specialize(const std::string& name,
                                       const Signature& signature,
                                       SourcePos pos) {
  std::string key = name + "(";
  for (size_t i = 0; i < signature.shapes.size(); ++i) {
    key += signature.shapes[i].ToString();
    if (signature.constants[i].has_value())
      key += "=" + signature.constants[i]->ValueToString();
    key += ";";
  }
  key += ")";
  auto found = specializations_.find(key);
  if (found != specializations_.end()) return found->second.get();
  auto start = function_starts_.find(name);
  if (start == function_starts_.end())
    return lex_.ErrorAt(pos, name == "main"
                                 ? std::string("the program has no @main "
                                               "function")
                                 : "call to undefined function @" + name);
  if (specializing_.count(key) ||
      specializing_.size() >= kMaxSpecializationDepth)
    return lex_.ErrorAt(pos, "@" + name + " calls itself");
  auto info = std::make_unique<FuncInfo>();
  info->computation = NewComputation(name);
  info->first_use = pos;
  FuncInfo* result = info.get();
  specializations_[key] = std::move(info);
  specializing_.insert(key);
  MlirLexer::State resume = lex_.Save();
  SourcePos op_start = op_start_;
  int depth = depth_;
  depth_ = 0;
  lex_.Restore(start->second.state);
  signature_ = &signature;
  specialization_ = result;
  Status status =
      start->second.generic ? ParseGenericFunction() : ParseFunction();
  signature_ = nullptr;
  specialization_ = nullptr;
  lex_.Restore(resume);
  op_start_ = op_start;
  depth_ = depth;
  specializing_.erase(key);
  if (!status.ok()) return status;
  return result;
}

StatusOr<std::vector<int64_t>> Parser::ShapeValues(const OpSpec& spec,
                                                   size_t index,
                                                   std::string_view what) {
  if (index >= spec.operands.size())
    return OpError(spec, "expected " + std::string(what) + " as operand " +
                             std::to_string(index));
  const Instruction* operand = spec.operands[index];
  std::optional<std::vector<int64_t>> values;
  if (operand->opcode() == Opcode::kConstant)
    values = IntegerValues(operand->literal);
  if (!values.has_value())
    return OpError(spec, std::string(what) + " (operand " +
                             std::to_string(index) +
                             ") is not known after shape refinement: it "
                             "depends on the data, not only on the argument "
                             "shapes");
  return *values;
}

StatusOr<Outcome> Parser::BuildUnrefinedDynamicOp(Scope* scope, OpSpec& spec) {
  std::vector<Shape> results = DeclaredResults(spec);
  if (results.size() != 1 || !results[0].valid())
    return OpError(spec, "expected one result type");
  // A placeholder with the declared types: nothing compiles it (its values
  // are dynamic, which the verifier refuses), but the module can be shown.
  Outcome outcome;
  outcome.inst =
      Add(scope->computation, Opcode::kCustomCall, results[0], spec.operands);
  outcome.inst->custom_call.target = spec.name;
  return outcome;
}

StatusOr<Outcome> Parser::RefineOp(Scope* scope, OpSpec& spec, bool* handled) {
  *handled = false;
  Outcome outcome;
  Computation* computation = scope->computation;
  const std::string& name = spec.name;
  if (name == "stablehlo.custom_call") {
    const MlirAttr* target = Attr(spec, "call_target_name");
    if (target != nullptr && target->str == "shape_assertion") {
      *handled = true;
      outcome.count = 0;
      std::optional<std::vector<int64_t>> holds;
      if (!spec.operands.empty() &&
          spec.operands[0]->opcode() == Opcode::kConstant)
        holds = IntegerValues(spec.operands[0]->literal);
      if (!holds.has_value() || holds->size() != 1)
        return OpError(spec,
                       "the shape assertion's condition is not known after "
                       "shape refinement: it depends on the data");
      if ((*holds)[0] != 0) return outcome;
      const MlirAttr* message = Attr(spec, "error_message");
      std::string format =
          message != nullptr ? message->str : "shape assertion failed";
      std::vector<std::string> values;
      for (size_t k = 1; k < spec.operands.size(); ++k) {
        std::optional<std::vector<int64_t>> v;
        if (spec.operands[k]->opcode() == Opcode::kConstant)
          v = IntegerValues(spec.operands[k]->literal);
        values.push_back(v.has_value() && v->size() == 1
                             ? std::to_string((*v)[0])
                             : "{" + std::to_string(k - 1) + "}");
      }
      return lex_.ErrorAt(spec.pos, FormatAssertion(format, values));
    }
    if (const MlirAttr* indices = Attr(spec, "indices_of_shape_operands")) {
      XFFI_ASSIGN_OR_RETURN(
          std::vector<int64_t> shape_operands,
          AttrToIntegers(*indices, lex_, "indices_of_shape_operands"));
      std::vector<MlirType>& outputs =
          spec.types.functional ? spec.types.outputs : spec.types.list;
      if (shape_operands.size() != outputs.size())
        return OpError(spec, "indices_of_shape_operands names " +
                                 std::to_string(shape_operands.size()) +
                                 " operand(s) for " +
                                 std::to_string(outputs.size()) + " result(s)");
      for (size_t r = 0; r < outputs.size(); ++r) {
        XFFI_ASSIGN_OR_RETURN(
            std::vector<int64_t> dims,
            ShapeValues(spec, static_cast<size_t>(shape_operands[r]),
                        "the result shape"));
        Shape shape = Shape::Array(outputs[r].shape.element_type(), dims);
        if (!MatchesDeclared(shape, outputs[r].shape))
          return OpError(spec, "result " + std::to_string(r) + " is " +
                                   TypeString(outputs[r].shape) +
                                   ", its shape operand gives " +
                                   TypeString(shape));
        outputs[r].shape = shape;
      }
      // The shape operands only carried the shapes: the target never saw
      // them (XLA drops them too).
      std::vector<int64_t> drop = shape_operands;
      std::sort(drop.rbegin(), drop.rend());
      for (int64_t k : drop) {
        spec.operands.erase(spec.operands.begin() + k);
        if (spec.types.functional &&
            static_cast<size_t>(k) < spec.types.inputs.size())
          spec.types.inputs.erase(spec.types.inputs.begin() + k);
      }
      auto layouts = spec.attrs.find("operand_layouts");
      if (layouts != spec.attrs.end() &&
          layouts->second.kind == MlirAttr::Kind::kArray)
        for (int64_t k : drop)
          if (static_cast<size_t>(k) < layouts->second.elements.size())
            layouts->second.elements.erase(layouts->second.elements.begin() +
                                           k);
      spec.attrs.erase("indices_of_shape_operands");
    }
    if (target != nullptr && target->str == "stablehlo.dynamic_reduce_window") {
      *handled = true;
      return RefineDynamicReduceWindow(spec, computation);
    }
    if (target != nullptr &&
        (target->str == "stablehlo.dynamic_rng_bit_generator" ||
         target->str == "stablehlo.dynamic_top_k")) {
      *handled = true;
      return RefineDynamicNumericOp(scope, spec, target->str);
    }
    return outcome;
  }
  if (!IsShapeDynamicOp(name)) return outcome;
  *handled = true;
  std::vector<Shape> results = DeclaredResults(spec);
  if (results.size() != 1 || !results[0].IsArray())
    return OpError(spec, "expected one array result type");
  const Shape& declared = results[0];
  auto dimension_attr = [&](const char* a, const char* b) -> StatusOr<int64_t> {
    const MlirAttr* d = Attr(spec, a);
    if (d == nullptr) d = Attr(spec, b);
    if (d == nullptr) return OpError(spec, std::string("missing ") + b);
    return AttrToInteger(*d, lex_, b);
  };
  auto sized = [&](const std::vector<int64_t>& dims) -> StatusOr<Shape> {
    int64_t elements = 1;
    for (int64_t d : dims) {
      if (d < 0)
        return OpError(spec, "a shape operand gives the negative size " +
                                 std::to_string(d));
      // As the type parser bounds them: sizes stay far from overflow.
      if (d != 0 && elements > (int64_t{1} << 48) / d)
        return OpError(spec, "a shape operand gives more than 2^48 elements");
      elements *= d;
    }
    Shape shape = Shape::Array(declared.element_type(), dims);
    if (!MatchesDeclared(shape, declared))
      return OpError(spec, "the shape operand gives " + TypeString(shape) +
                               ", the result type is " + TypeString(declared));
    return shape;
  };
  auto expect = [&](size_t n) -> Status {
    if (spec.operands.size() != n)
      return OpError(spec, "expected " + std::to_string(n) +
                               " operand(s), got " +
                               std::to_string(spec.operands.size()));
    return Status::Ok();
  };
  Instruction* inst = nullptr;
  if (name == "stablehlo.get_dimension_size") {
    XFFI_RETURN_IF_ERROR(expect(1));
    XFFI_ASSIGN_OR_RETURN(int64_t d, dimension_attr("dimension", "dimension"));
    const Shape& of = spec.operands[0]->shape();
    if (!of.IsArray() || d < 0 || d >= of.rank())
      return OpError(spec, "dimension " + std::to_string(d) +
                               " is not a dimension of " + TypeString(of));
    std::optional<Literal> value = IntegerLiteral(declared, {of.dim(d)});
    if (!value.has_value() || declared.rank() != 0)
      return OpError(spec, "expected an integer scalar result");
    inst = Add(computation, Opcode::kConstant, declared);
    inst->literal = std::move(*value);
  } else if (name == "stablehlo.dynamic_broadcast_in_dim") {
    if (spec.operands.size() < 2) XFFI_RETURN_IF_ERROR(expect(2));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          ShapeValues(spec, 1, "the output shape"));
    XFFI_ASSIGN_OR_RETURN(Shape shape, sized(dims));
    const MlirAttr* map = Attr(spec, "broadcast_dimensions");
    if (map == nullptr) map = Attr(spec, "dimensions");
    if (map == nullptr) return OpError(spec, "missing broadcast_dimensions");
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> mapping,
                          AttrToIntegers(*map, lex_, "broadcast_dimensions"));
    inst = Add(computation, Opcode::kBroadcast, shape, {spec.operands[0]});
    inst->dimensions = std::move(mapping);
  } else if (name == "stablehlo.dynamic_iota") {
    XFFI_RETURN_IF_ERROR(expect(1));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          ShapeValues(spec, 0, "the output shape"));
    XFFI_ASSIGN_OR_RETURN(Shape shape, sized(dims));
    XFFI_ASSIGN_OR_RETURN(int64_t d,
                          dimension_attr("iota_dimension", "dimension"));
    inst = Add(computation, Opcode::kIota, shape);
    inst->dimensions = {d};
  } else if (name == "stablehlo.dynamic_reshape") {
    XFFI_RETURN_IF_ERROR(expect(2));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          ShapeValues(spec, 1, "the output shape"));
    XFFI_ASSIGN_OR_RETURN(Shape shape, sized(dims));
    inst = Add(computation, Opcode::kReshape, shape, {spec.operands[0]});
  } else if (name == "stablehlo.real_dynamic_slice") {
    XFFI_RETURN_IF_ERROR(expect(4));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                          ShapeValues(spec, 1, "the start indices"));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> limits,
                          ShapeValues(spec, 2, "the limit indices"));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                          ShapeValues(spec, 3, "the strides"));
    inst = Add(computation, Opcode::kSlice, declared, {spec.operands[0]});
    inst->slice_starts = std::move(starts);
    inst->slice_limits = std::move(limits);
    inst->slice_strides = std::move(strides);
  } else if (name == "stablehlo.dynamic_pad") {
    XFFI_RETURN_IF_ERROR(expect(5));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> low,
                          ShapeValues(spec, 2, "the low padding"));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> high,
                          ShapeValues(spec, 3, "the high padding"));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                          ShapeValues(spec, 4, "the interior padding"));
    if (low.size() != high.size() || low.size() != interior.size())
      return OpError(spec, "the padding operands have different sizes");
    inst = Add(computation, Opcode::kPad, declared,
               {spec.operands[0], spec.operands[1]});
    for (size_t k = 0; k < low.size(); ++k)
      inst->padding.push_back(PadDimension{low[k], high[k], interior[k]});
  } else if (name == "stablehlo.dynamic_gather") {
    XFFI_RETURN_IF_ERROR(expect(3));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                          ShapeValues(spec, 2, "the slice sizes"));
    XFFI_ASSIGN_OR_RETURN(GatherDimensionNumbers dnums,
                          ReadGatherDimensions(spec));
    inst = Add(computation, Opcode::kGather, declared,
               {spec.operands[0], spec.operands[1]});
    inst->gather_dimension_numbers = std::move(dnums);
    inst->gather_slice_sizes = std::move(sizes);
    XFFI_RETURN_IF_ERROR(
        ReadFlag(spec, "indices_are_sorted", &inst->indices_are_sorted));
  } else if (name == "stablehlo.dynamic_conv") {
    XFFI_RETURN_IF_ERROR(expect(3));
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> padding,
                          ShapeValues(spec, 2, "the padding"));
    inst = Add(computation, Opcode::kConvolution, declared,
               {spec.operands[0], spec.operands[1]});
    XFFI_RETURN_IF_ERROR(ReadConvolution(spec, inst));
    if (padding.size() != 2 * inst->window.size())
      return OpError(spec, "the padding operand has " +
                               std::to_string(padding.size()) + " values for " +
                               std::to_string(inst->window.size()) +
                               " spatial dimension(s)");
    for (size_t k = 0; k < inst->window.size(); ++k) {
      inst->window[k].padding_low = padding[2 * k];
      inst->window[k].padding_high = padding[2 * k + 1];
    }
  }
  if (inst == nullptr) return OpError(spec, "internal: unhandled dynamic op");
  outcome.inst = inst;
  return outcome;
}

// JAX's reduce_window with shape-dependent windows (cumsum and friends
// under shape polymorphism): a custom call whose operands are the inputs,
// the init values, then window_dimensions, window_strides, base_dilations,
// window_dilations and padding (N x 2), and whose called_computations name
// the reducer function.
StatusOr<Outcome> Parser::RefineDynamicReduceWindow(const OpSpec& spec,
                                                    Computation* computation) {
  size_t n = spec.operands.size();
  if (n < 7 || (n - 5) % 2 != 0)
    return OpError(spec,
                   "expected inputs, init values and 5 window "
                   "operands, got " +
                       std::to_string(n) + " operand(s)");
  size_t inputs = (n - 5) / 2;
  const MlirAttr* called = Attr(spec, "called_computations");
  if (called == nullptr || called->kind != MlirAttr::Kind::kArray ||
      called->elements.size() != 1 ||
      called->elements[0].kind != MlirAttr::Kind::kSymbol)
    return OpError(spec, "expected called_computations = [@reducer]");
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                        ShapeValues(spec, 2 * inputs, "the window dimensions"));
  XFFI_ASSIGN_OR_RETURN(
      std::vector<int64_t> strides,
      ShapeValues(spec, 2 * inputs + 1, "the window strides"));
  XFFI_ASSIGN_OR_RETURN(
      std::vector<int64_t> base,
      ShapeValues(spec, 2 * inputs + 2, "the base dilations"));
  XFFI_ASSIGN_OR_RETURN(
      std::vector<int64_t> dilations,
      ShapeValues(spec, 2 * inputs + 3, "the window dilations"));
  XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> padding,
                        ShapeValues(spec, 2 * inputs + 4, "the padding"));
  size_t rank = sizes.size();
  if (strides.size() != rank || base.size() != rank ||
      dilations.size() != rank || padding.size() != 2 * rank)
    return OpError(spec, "the window operands have different sizes");
  // The reducer takes (accumulators..., elements...) as scalars.
  Signature reducer;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = 0; k < inputs; ++k) {
      const Shape& init = spec.operands[inputs + k]->shape();
      reducer.shapes.push_back(init);
      reducer.constants.emplace_back();
    }
  XFFI_ASSIGN_OR_RETURN(FuncInfo * function,
                        Specialize(called->elements[0].str, reducer, spec.pos));
  std::vector<Instruction*> operands(spec.operands.begin(),
                                     spec.operands.begin() + 2 * inputs);
  std::vector<Shape> results =
      Shapes(spec.types.functional ? spec.types.outputs : spec.types.list);
  Shape shape = results.size() == 1 ? results[0] : Shape::Tuple(results);
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  outcome.inst = Add(computation, Opcode::kReduceWindow, shape, operands);
  outcome.inst->AppendCalledComputation(function->computation);
  for (size_t d = 0; d < rank; ++d) {
    WindowDimension w;
    w.size = sizes[d];
    w.stride = strides[d];
    w.base_dilation = base[d];
    w.window_dilation = dilations[d];
    w.padding_low = padding[2 * d];
    w.padding_high = padding[2 * d + 1];
    outcome.inst->window.push_back(w);
  }
  return outcome;
}

// JAX's custom calls for rng_bit_generator and top_k whose output shape
// or k is a dimension expression: (initial_state, output_shape) and
// (operand, k). With the shape operand a constant they are the static ops.
StatusOr<Outcome> Parser::RefineDynamicNumericOp(Scope* scope, OpSpec& spec,
                                                 const std::string& target) {
  std::vector<Shape> declared = DeclaredResults(spec);
  if (spec.operands.size() != 2 || declared.size() != 2 ||
      !declared[0].IsArray() || !declared[1].IsArray())
    return OpError(spec, "@" + target +
                             " takes 2 operands and has 2 array results, "
                             "got " +
                             std::to_string(spec.operands.size()) +
                             " operand(s) and " +
                             std::to_string(declared.size()) + " result(s)");
  const Shape& operand = spec.operands[0]->shape();
  std::vector<Shape> results(2);
  Opcode opcode = Opcode::kRngBitGenerator;
  if (target == "stablehlo.dynamic_rng_bit_generator") {
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          ShapeValues(spec, 1, "the output shape"));
    int64_t elements = 1;
    for (int64_t d : dims) {
      if (d < 0 || (d != 0 && elements > (int64_t{1} << 48) / d))
        return OpError(spec, "the output shape operand gives " +
                                 TypeString(Shape::Array(
                                     declared[1].element_type(), dims)) +
                                 ", not a valid array shape");
      elements *= d;
    }
    results[0] = operand;
    results[1] = Shape::Array(declared[1].element_type(), dims);
  } else {
    opcode = Opcode::kTopK;
    XFFI_ASSIGN_OR_RETURN(std::vector<int64_t> k, ShapeValues(spec, 1, "k"));
    if (!operand.IsArray() || operand.rank() == 0 || k.size() != 1)
      return OpError(spec, "expected an operand of rank >= 1 and a scalar k");
    int64_t last = operand.dim(operand.rank() - 1);
    if (k[0] < 0 || k[0] > last)
      return OpError(spec, "k is " + std::to_string(k[0]) + ", outside [0, " +
                               std::to_string(last) +
                               "], the operand's last dimension");
    std::vector<int64_t> dims = operand.dims();
    dims.back() = k[0];
    results[0] = Shape::Array(declared[0].element_type(), dims);
    results[1] = Shape::Array(declared[1].element_type(), dims);
    MlirAttr k_attr;
    k_attr.kind = MlirAttr::Kind::kInteger;
    k_attr.pos = spec.pos;
    k_attr.magnitude = static_cast<uint64_t>(k[0]);
    spec.attrs["k"] = k_attr;
  }
  for (size_t r = 0; r < 2; ++r)
    if (!MatchesDeclared(results[r], declared[r]))
      return OpError(spec, "result " + std::to_string(r) + " is " +
                               TypeString(declared[r]) + ", refined to " +
                               TypeString(results[r]) +
                               ", which does not match");
  // The static op without the shape operand (XLA's refinement drops it).
  spec.operands.pop_back();
  return BuildNumericOp(scope, spec, opcode, results);
}

Status Parser::RefineResult(const OpSpec& spec, Outcome* outcome) {
  Instruction* inst = outcome->inst;
  if (inst == nullptr) return Status::Ok();
  if (IsDynamicShape(inst->shape())) {
    Shape declared = inst->shape();
    StatusOr<Shape> inferred = InferShape(*inst);
    if (!inferred.ok())
      return OpError(spec, "cannot refine the result type " +
                               TypeString(declared) + ": " +
                               std::string(inferred.status().message()));
    if (IsDynamicShape(*inferred))
      return OpError(spec, "cannot refine the result type " +
                               TypeString(declared) +
                               ": the operands' shapes do not determine it");
    if (!MatchesDeclared(*inferred, declared))
      return OpError(spec, "the refined result " + TypeString(*inferred) +
                               " does not match the result type " +
                               TypeString(declared));
    inst->set_shape(*inferred);
  }
  // A call whose specialised callee returns constants (JAX computes
  // dimension expressions in helper functions: @divmod, @floor_divide,
  // @_where) is those constants, so the shapes built from them fold.
  if (inst->opcode() == Opcode::kCall) {
    const Instruction* root = inst->called_computations()[0]->root();
    auto small_constant = [](const Instruction* i) {
      return i->opcode() == Opcode::kConstant && i->shape().IsArray() &&
             i->shape().num_elements() <= kMaxShapeValueElements;
    };
    if (small_constant(root)) {
      Instruction* constant =
          Add(inst->parent(), Opcode::kConstant, root->shape());
      constant->literal = root->literal;
      outcome->inst = constant;
      return Status::Ok();
    }
    if (root->opcode() == Opcode::kTuple &&
        std::all_of(root->operands().begin(), root->operands().end(),
                    small_constant)) {
      std::vector<Instruction*> elements;
      for (const Instruction* element : root->operands()) {
        Instruction* constant =
            Add(inst->parent(), Opcode::kConstant, element->shape());
        constant->literal = element->literal;
        elements.push_back(constant);
      }
      outcome->inst =
          Add(inst->parent(), Opcode::kTuple, root->shape(), elements);
      return Status::Ok();
    }
  }
  if (std::optional<Literal> value = Fold(*inst)) {
    Instruction* constant =
        Add(inst->parent(), Opcode::kConstant, inst->shape());
    constant->literal = std::move(*value);
    outcome->inst = constant;
  }
  return Status::Ok();
}

}  // namespace xffi::text::stablehlo

namespace xffi {

bool IsDynamicShape(const Shape& shape) {
  for (int64_t d : shape.dims())
    if (d == kDynamicDimension) return true;
  for (const Shape& element : shape.tuple_shapes())
    if (IsDynamicShape(element)) return true;
  return false;
}

bool IsShapePolymorphic(const Module& module) {
  for (const auto& computation : module.computations())
    for (const auto& instruction : computation->instructions())
      if (IsDynamicShape(instruction->shape())) return true;
  return false;
}

}  // namespace xffi
