// xffi: the attributes of HLO's numeric ops with fields of their own (fft,
// rng-bit-generator, rng, topk, reduce-precision, cholesky,
// triangular-solve), read by the parser and written by the printer, so the
// two spell them alike:
//   fft(x), fft_type=RFFT, fft_length={8}
//   rng-bit-generator(s), algorithm=rng_philox
//   rng(a, b), distribution=rng_normal
//   topk(x), k=3, largest=true
//   reduce-precision(x), exponent_bits=5, mantissa_bits=10
//   cholesky(a), lower=true
//   triangular-solve(a, b), left_side=true, lower=true,
//       unit_diagonal=false, transpose_a=NO_TRANSPOSE
#ifndef XFFI_SRC_TEXT_HLO_NUMERIC_ATTRIBUTES_H_
#define XFFI_SRC_TEXT_HLO_NUMERIC_ATTRIBUTES_H_

#include <string>
#include <string_view>
#include <vector>

#include "text/hlo/scanner.h"
#include "xffi/program/ir.h"

namespace xffi::hlo {

// The attributes `opcode` takes and the ones it must have; false when it is
// not one of these ops.
bool NumericOpAttributes(Opcode opcode, std::vector<std::string_view>* allowed,
                         std::vector<std::string_view>* required);

// Reads the value of attribute `name` (the scanner is past '=') into the
// op's fields; *handled is false when `name` is not one of its attributes.
Status ParseNumericOpAttribute(Scanner& s, Instruction& in,
                               std::string_view name, bool* handled);

// ", fft_type=RFFT, fft_length={8}": the op's attributes as the parser
// reads them; "" for other ops.
std::string PrintNumericOpAttributes(const Instruction& in);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_NUMERIC_ATTRIBUTES_H_
