// xffi: programs as text.
//
// StableHLO is read as `jax.jit(f).lower(...).as_text()` prints it (pretty
// and generic op forms); HLO as `as_text("hlo")` and HloModule::ToString
// print it. Both produce the IR of ir.h. The printer writes HLO text that
// parses back to the same program.
//
// Every syntax error is INVALID_ARGUMENT "SOURCE:LINE:COLUMN: expected X,
// got Y" (SOURCE is the name given, "<input>" by default); a semantic error
// (an unknown value, a shape that does not match) names the op and its
// position the same way.
#ifndef XFFI_PROGRAM_TEXT_H_
#define XFFI_PROGRAM_TEXT_H_

#include <string>
#include <string_view>

#include "xffi/program/ir.h"

namespace xffi {

enum class ProgramFormat { kStableHlo, kHlo };

StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name = "<input>");
StatusOr<Module> ParseHlo(std::string_view text,
                          std::string_view source_name = "<input>");
// HLO text starts with "HloModule" (after comments); anything else is read
// as StableHLO.
ProgramFormat DetectProgramFormat(std::string_view text);
StatusOr<Module> ParseProgram(std::string_view text,
                              std::string_view source_name = "<input>");

// An MLIR attribute dictionary, as a typed FFI backend_config holds it:
// "{eps = 1.0e-05 : f32, mode = \"fast\", dims = array<i64: 1, 2>}".
// Integers keep their width (i8..i64, ui8..ui64; no suffix: i64), floats
// theirs (f32, f64; no suffix: f64), i1/true/false are bools, strings take
// MLIR escapes, dense<...> and array<T: ...> are arrays, nested {...} are
// dictionaries.
StatusOr<FfiAttributes> ParseMlirAttributeDictionary(
    std::string_view text, std::string_view source_name = "<input>");
// Prints a dictionary in the syntax above.
std::string PrintMlirAttributeDictionary(const FfiAttributes& attributes);

// HLO text of the whole module.
std::string PrintHlo(const Module& module);

}  // namespace xffi

#endif  // XFFI_PROGRAM_TEXT_H_
