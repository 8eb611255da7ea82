// Numeric ops with fields of their own: fft, rng_bit_generator, rng,
// chlo.top_k, map, cholesky, triangular_solve (and reduce_precision's
// format), read from the pretty (`type = FFT, length = [8]`) and generic
// (`fft_type = #stablehlo<fft_type FFT>`) forms alike.
#include <optional>

#include "runtime/status_macros.h"
#include "text/stablehlo/parser.h"

namespace xffi::text::stablehlo {

bool IsNumericOp(Opcode opcode) {
  switch (opcode) {
    case Opcode::kFft:
    case Opcode::kRngBitGenerator:
    case Opcode::kRng:
    case Opcode::kTopK:
    case Opcode::kMap:
    case Opcode::kCholesky:
    case Opcode::kTriangularSolve:
      return true;
    default:
      return false;
  }
}

// The value of an enum attribute under either of its names: a bare word
// (pretty form) or #stablehlo<kind VALUE> (generic form).
StatusOr<std::optional<std::string>> Parser::EnumAttr(
    const OpSpec& spec, std::string_view pretty,
    std::string_view generic) const {
  const MlirAttr* attr = Attr(spec, pretty);
  if (attr == nullptr) attr = Attr(spec, generic);
  if (attr == nullptr) return std::optional<std::string>();
  if (attr->kind != MlirAttr::Kind::kEnum)
    return lex_.ErrorAt(attr->pos, spec.name + ": expected a value for '" +
                                       std::string(generic) + "'");
  return std::optional<std::string>(attr->str);
}

Status Parser::ReadReducePrecision(const OpSpec& spec, Instruction* inst) {
  // The pretty form says `format = e5m10`; the generic one gives the two
  // counts.
  XFFI_ASSIGN_OR_RETURN(std::optional<std::string> format,
                        EnumAttr(spec, "format", "format"));
  if (format.has_value()) {
    const std::string& f = *format;
    size_t m = f.find('m');
    bool ok = f.size() > 3 && f[0] == 'e' && m != std::string::npos && m > 1 &&
              m + 1 < f.size();
    for (size_t i = 1; ok && i < f.size(); ++i)
      ok = i == m || (f[i] >= '0' && f[i] <= '9');
    if (!ok || f.size() > 12)
      return OpError(spec, "format '" + f + "' is not eXmY");
    inst->exponent_bits = std::stoll(f.substr(1, m - 1));
    inst->mantissa_bits = std::stoll(f.substr(m + 1));
    return Status::Ok();
  }
  const MlirAttr* e = Attr(spec, "exponent_bits");
  const MlirAttr* m = Attr(spec, "mantissa_bits");
  if (e == nullptr || m == nullptr)
    return OpError(spec, "missing format (or exponent_bits and mantissa_bits)");
  XFFI_ASSIGN_OR_RETURN(inst->exponent_bits,
                        AttrToInteger(*e, lex_, "exponent_bits"));
  XFFI_ASSIGN_OR_RETURN(inst->mantissa_bits,
                        AttrToInteger(*m, lex_, "mantissa_bits"));
  return Status::Ok();
}

StatusOr<Outcome> Parser::BuildNumericOp(Scope* scope, OpSpec& spec,
                                         Opcode opcode,
                                         const std::vector<Shape>& results) {
  Computation* computation = scope->computation;
  const size_t expected_results =
      opcode == Opcode::kRngBitGenerator || opcode == Opcode::kTopK ? 2 : 1;
  if (results.size() != expected_results)
    return OpError(spec, "expected " + std::to_string(expected_results) +
                             " result(s), the type gives " +
                             std::to_string(results.size()));
  size_t operands = 1;
  if (opcode == Opcode::kTriangularSolve) operands = 2;
  // stablehlo.rng's third operand is the result's shape, which its type
  // says already.
  if (opcode == Opcode::kRng) operands = 3;
  if (opcode == Opcode::kMap) operands = spec.operands.size();
  if (spec.operands.size() != operands || operands == 0)
    return OpError(spec, "expected " + std::to_string(operands) +
                             " operand(s), got " +
                             std::to_string(spec.operands.size()));
  if (spec.regions.size() != (opcode == Opcode::kMap ? 1u : 0u))
    return OpError(spec, opcode == Opcode::kMap ? "expected one region"
                                                : "unexpected region");
  std::vector<Instruction*> inputs = spec.operands;
  if (opcode == Opcode::kRng) inputs.pop_back();
  Outcome outcome;
  outcome.count = static_cast<int64_t>(results.size());
  outcome.tuple = results.size() != 1;
  Shape shape = results.size() == 1 ? results[0] : Shape::Tuple(results);
  Instruction* inst = Add(computation, opcode, shape, inputs);
  outcome.inst = inst;
  auto enum_value = [&](std::string_view pretty,
                        std::string_view generic) -> StatusOr<std::string> {
    XFFI_ASSIGN_OR_RETURN(std::optional<std::string> v,
                          EnumAttr(spec, pretty, generic));
    if (!v.has_value())
      return OpError(spec, "missing attribute '" + std::string(pretty) + "'");
    return *v;
  };
  switch (opcode) {
    case Opcode::kFft: {
      XFFI_ASSIGN_OR_RETURN(std::string type, enum_value("type", "fft_type"));
      std::optional<FftType> t = FftTypeFromName(type);
      if (!t.has_value())
        return OpError(spec, "unknown FFT type '" + type + "'");
      inst->fft_type = *t;
      const char* key = Attr(spec, "length") ? "length" : "fft_length";
      XFFI_ASSIGN_OR_RETURN(inst->fft_length, Ints(spec, key, true));
      break;
    }
    case Opcode::kRngBitGenerator: {
      XFFI_ASSIGN_OR_RETURN(std::string a,
                            enum_value("algorithm", "rng_algorithm"));
      std::optional<RngAlgorithm> algorithm = RngAlgorithmFromName(a);
      if (!algorithm.has_value())
        return OpError(spec, "unknown RNG algorithm '" + a + "'");
      inst->rng_algorithm = *algorithm;
      break;
    }
    case Opcode::kRng: {
      XFFI_ASSIGN_OR_RETURN(std::string d,
                            enum_value("distribution", "rng_distribution"));
      std::optional<RngDistribution> distribution = RngDistributionFromName(d);
      if (!distribution.has_value())
        return OpError(spec, "unknown RNG distribution '" + d + "'");
      inst->rng_distribution = *distribution;
      break;
    }
    case Opcode::kTopK: {
      const MlirAttr* k = Attr(spec, "k");
      if (k == nullptr) return OpError(spec, "missing attribute 'k'");
      XFFI_ASSIGN_OR_RETURN(inst->top_k, AttrToInteger(*k, lex_, "k"));
      inst->top_k_largest = true;
      XFFI_RETURN_IF_ERROR(ReadFlag(spec, "largest", &inst->top_k_largest));
      break;
    }
    case Opcode::kMap: {
      Region& region = spec.regions[0];
      if (region.computation->root() == nullptr)
        XFFI_RETURN_IF_ERROR(SetRegionRoot(region, spec));
      inst->AppendCalledComputation(region.computation);
      XFFI_ASSIGN_OR_RETURN(inst->dimensions, Ints(spec, "dimensions", true));
      break;
    }
    case Opcode::kCholesky:
      XFFI_RETURN_IF_ERROR(ReadFlag(spec, "lower", &inst->lower));
      break;
    case Opcode::kTriangularSolve: {
      XFFI_RETURN_IF_ERROR(ReadFlag(spec, "left_side", &inst->left_side));
      XFFI_RETURN_IF_ERROR(ReadFlag(spec, "lower", &inst->lower));
      XFFI_RETURN_IF_ERROR(
          ReadFlag(spec, "unit_diagonal", &inst->unit_diagonal));
      XFFI_ASSIGN_OR_RETURN(std::string t,
                            enum_value("transpose_a", "transpose_a"));
      std::optional<TriangularTranspose> transpose =
          TriangularTransposeFromName(t);
      if (!transpose.has_value())
        return OpError(spec, "unknown transpose_a '" + t + "'");
      inst->transpose_a = *transpose;
      break;
    }
    default:
      return OpError(spec, "internal: not a numeric op");
  }
  return outcome;
}

}  // namespace xffi::text::stablehlo
