// Types: an op's trailing type (`: T`, `: (T, U) -> V`) and the result
// shapes it gives, checked against the operands.
#include "text/stablehlo/parser.h"

#include "runtime/status_macros.h"
#include "xffi/program/text.h"

namespace xffi::text::stablehlo {

std::string TypeString(const Shape& shape) {
  if (shape.IsToken()) return "!stablehlo.token";
  if (shape.IsTuple()) {
    std::string out = "tuple<";
    for (int64_t i = 0; i < shape.tuple_size(); ++i)
      out += (i ? ", " : "") + TypeString(shape.tuple_shape(i));
    return out + ">";
  }
  std::string out = "tensor<";
  for (int64_t d : shape.dims())
    out +=
        (d == kDynamicDimension ? std::string("?") : std::to_string(d)) + "x";
  return out + MlirElementTypeName(shape.element_type()) + ">";
}

std::vector<Shape> Shapes(const std::vector<MlirType>& types) {
  std::vector<Shape> out;
  for (const MlirType& t : types) out.push_back(t.shape);
  return out;
}
Status Parser::ParseTypeSpec(TypeSpec* spec) {
  spec->pos = lex_.peek().pos;
  if (lex_.At(TokenKind::kLParen)) {
    spec->functional = true;
    XFFI_RETURN_IF_ERROR(attrs_.ParseTypeList(&spec->inputs));
    return attrs_.ParseFunctionResults(&spec->outputs);
  }
  while (true) {
    XFFI_ASSIGN_OR_RETURN(MlirType type, attrs_.ParseType());
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
Status Parser::CheckOperandTypes(const OpSpec& spec) {
  const TypeSpec& types = spec.types;
  if (types.inputs.size() != spec.operands.size())
    return lex_.ErrorAt(types.pos, spec.name + " has " +
                                       std::to_string(spec.operands.size()) +
                                       " operand(s), its type lists " +
                                       std::to_string(types.inputs.size()));
  for (size_t i = 0; i < types.inputs.size(); ++i)
    if (!MatchesDeclared(spec.operands[i]->shape(), types.inputs[i].shape))
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
    XFFI_RETURN_IF_ERROR(CheckOperandTypes(spec));
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
      if (!MatchesDeclared(spec.operands[i]->shape(), t))
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

}  // namespace xffi::text::stablehlo
