#include "text/hlo/numeric_attributes.h"

#include <cctype>
#include <optional>

#include "runtime/status_macros.h"

namespace xffi::hlo {
namespace {

Status ReadBool(Scanner& s, bool& value) {
  s.SkipSpace();
  if (s.TryConsumeWord("true")) {
    value = true;
  } else if (s.TryConsumeWord("false")) {
    value = false;
  } else {
    return s.Expected("true or false");
  }
  return Status::Ok();
}

// rng_default -> DEFAULT, rng_three_fry -> THREE_FRY: HLO's spelling of
// the enums is StableHLO's, lower case behind "rng_".
std::string Upper(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = static_cast<char>(std::toupper(c));
  return out;
}
std::string Lower(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = static_cast<char>(std::tolower(c));
  return out;
}

template <typename Enum, typename FromName>
Status ReadWord(Scanner& s, std::string_view prefix, FromName from_name,
                std::string_view what, Enum* out) {
  s.SkipSpace();
  TextPos at = s.pos();
  std::string_view word = s.Name();
  std::optional<Enum> value;
  if (word.substr(0, prefix.size()) == prefix)
    value = from_name(prefix.empty() ? std::string(word)
                                     : Upper(word.substr(prefix.size())));
  if (!value.has_value()) return s.Expected(what, at);
  *out = *value;
  return Status::Ok();
}

std::string Braces(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i > 0 ? "," : "") + std::to_string(values[i]);
  return out + "}";
}

const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

bool NumericOpAttributes(Opcode opcode, std::vector<std::string_view>* allowed,
                         std::vector<std::string_view>* required) {
  switch (opcode) {
    case Opcode::kFft:
      *allowed = *required = {"fft_type", "fft_length"};
      return true;
    case Opcode::kRngBitGenerator:
      *allowed = *required = {"algorithm"};
      return true;
    case Opcode::kRng:
      *allowed = *required = {"distribution"};
      return true;
    case Opcode::kTopK:
      *allowed = {"k", "largest"};
      *required = {"k"};
      return true;
    case Opcode::kReducePrecision:
      *allowed = *required = {"exponent_bits", "mantissa_bits"};
      return true;
    case Opcode::kCholesky:
      *allowed = {"lower"};
      *required = {};
      return true;
    case Opcode::kTriangularSolve:
      *allowed = {"left_side", "lower", "unit_diagonal", "transpose_a"};
      *required = {};
      return true;
    case Opcode::kMap:
      *allowed = {"dimensions", "to_apply"};
      *required = {"to_apply"};
      return true;
    default:
      return false;
  }
}

Status ParseNumericOpAttribute(Scanner& s, Instruction& in,
                               std::string_view name, bool* handled) {
  *handled = true;
  switch (in.opcode()) {
    case Opcode::kFft:
      if (name == "fft_type")
        return ReadWord(s, "", FftTypeFromName,
                        "an FFT type (FFT, IFFT, RFFT, IRFFT)", &in.fft_type);
      if (name == "fft_length") {
        in.fft_length.clear();
        XFFI_RETURN_IF_ERROR(s.Expect('{'));
        if (s.TryConsume('}')) return Status::Ok();
        while (true) {
          int64_t v;
          XFFI_RETURN_IF_ERROR(s.Int(v, "a length"));
          in.fft_length.push_back(v);
          if (s.TryConsume('}')) return Status::Ok();
          XFFI_RETURN_IF_ERROR(s.Expect(','));
        }
      }
      break;
    case Opcode::kRngBitGenerator:
      if (name == "algorithm")
        return ReadWord(s, "rng_", RngAlgorithmFromName,
                        "rng_default, rng_three_fry or rng_philox",
                        &in.rng_algorithm);
      break;
    case Opcode::kRng:
      if (name == "distribution")
        return ReadWord(s, "rng_", RngDistributionFromName,
                        "rng_uniform or rng_normal", &in.rng_distribution);
      break;
    case Opcode::kTopK:
      if (name == "k") return s.Int(in.top_k, "k");
      if (name == "largest") return ReadBool(s, in.top_k_largest);
      break;
    case Opcode::kReducePrecision:
      if (name == "exponent_bits") return s.Int(in.exponent_bits, "a count");
      if (name == "mantissa_bits") return s.Int(in.mantissa_bits, "a count");
      break;
    case Opcode::kCholesky:
      if (name == "lower") return ReadBool(s, in.lower);
      break;
    case Opcode::kTriangularSolve:
      if (name == "left_side") return ReadBool(s, in.left_side);
      if (name == "lower") return ReadBool(s, in.lower);
      if (name == "unit_diagonal") return ReadBool(s, in.unit_diagonal);
      if (name == "transpose_a")
        return ReadWord(s, "", TriangularTransposeFromName,
                        "NO_TRANSPOSE, TRANSPOSE or ADJOINT", &in.transpose_a);
      break;
    default:
      break;
  }
  *handled = false;
  return Status::Ok();
}

std::string PrintNumericOpAttributes(const Instruction& in) {
  switch (in.opcode()) {
    case Opcode::kFft:
      return ", fft_type=" + std::string(FftTypeName(in.fft_type)) +
             ", fft_length=" + Braces(in.fft_length);
    case Opcode::kRngBitGenerator:
      return ", algorithm=rng_" + Lower(RngAlgorithmName(in.rng_algorithm));
    case Opcode::kRng:
      return ", distribution=rng_" +
             Lower(RngDistributionName(in.rng_distribution));
    case Opcode::kTopK:
      return ", k=" + std::to_string(in.top_k) +
             ", largest=" + Bool(in.top_k_largest);
    case Opcode::kReducePrecision:
      return ", exponent_bits=" + std::to_string(in.exponent_bits) +
             ", mantissa_bits=" + std::to_string(in.mantissa_bits);
    case Opcode::kCholesky:
      return std::string(", lower=") + Bool(in.lower);
    case Opcode::kTriangularSolve:
      return std::string(", left_side=") + Bool(in.left_side) +
             ", lower=" + Bool(in.lower) +
             ", unit_diagonal=" + Bool(in.unit_diagonal) + ", transpose_a=" +
             std::string(TriangularTransposeName(in.transpose_a));
    default:
      return "";
  }
}

}  // namespace xffi::hlo
