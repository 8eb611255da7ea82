// xffi: literal values in HLO text, read so that every bit survives: -0.0,
// inf, and NaNs with their sign and payload ("-nan", "nan(0x1)") in every
// floating type, f16/bf16/f8/f4 included. Literal::ValueToString writes
// them.
#ifndef XFFI_SRC_TEXT_HLO_LITERAL_TEXT_H_
#define XFFI_SRC_TEXT_HLO_LITERAL_TEXT_H_

#include <string>

#include "text/hlo/scanner.h"
#include "xffi/program/literal.h"

namespace xffi::hlo {

// Reads a value of `shape` (no layout needed): a scalar ("2", "nan",
// "(1, 2)" for complex), nested braces for arrays ("{ {1, 2}, {3, 4} }"),
// parentheses for tuples ("({1, 2}, 3)").
Status ParseLiteralValue(Scanner& scanner, const Shape& shape,
                         Literal& literal);

}  // namespace xffi::hlo

#endif  // XFFI_SRC_TEXT_HLO_LITERAL_TEXT_H_
