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

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xffi/program/ir.h"

namespace xffi {

enum class ProgramFormat { kStableHlo, kHlo };

// A dimension whose size the text leaves open (StableHLO's and HLO's `?`).
// Only a parsed shape-polymorphic program has them, before its shapes are
// refined (ParseOptions::argument_shapes); Shape::ToString prints them as
// "?", and the verifier refuses them.
inline constexpr int64_t kDynamicDimension = -1;
// Some dimension, of the shape or of a tuple element, is dynamic.
bool IsDynamicShape(const Shape& shape);

struct ParseOptions {
  // Shape refinement. A shape-polymorphic StableHLO program (jax.export
  // with symbolic dimensions: types with `?`, dimension sizes read with
  // stablehlo.get_dimension_size, dynamic_broadcast_in_dim, dynamic_iota,
  // dynamic_reshape, real_dynamic_slice, dynamic_pad, dynamic_gather,
  // dynamic_conv, custom calls with shape operands, JAX's @shape_assertion
  // checks) is specialised to these shapes of @main's arguments, one per
  // argument: every value gets a static shape, the integer arithmetic on
  // dimension sizes is folded, each dynamic op becomes its static form and
  // every called function is read once per distinct signature. A failing
  // shape assertion is INVALID_ARGUMENT with JAX's message, its {0}, {1}...
  // replaced by the values; a shape that depends on data, or a given shape
  // that does not match the declared type, names the op or argument and
  // its line:column. For a program without `?` the shapes must be its
  // entry's. Unset: the program is read as written, and one with `?`
  // parses (xffi inspect shows it) but does not compile: the verifier
  // refuses its first dynamic value.
  std::optional<std::vector<Shape>> argument_shapes;
};

StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name = "<input>");
StatusOr<Module> ParseStableHlo(std::string_view text,
                                std::string_view source_name,
                                const ParseOptions& options);
StatusOr<Module> ParseHlo(std::string_view text,
                          std::string_view source_name = "<input>");
// HLO text starts with "HloModule" (after comments); anything else is read
// as StableHLO.
ProgramFormat DetectProgramFormat(std::string_view text);
StatusOr<Module> ParseProgram(std::string_view text,
                              std::string_view source_name = "<input>");
// HLO text has no dynamic dimensions: argument_shapes must be the entry's.
StatusOr<Module> ParseProgram(std::string_view text,
                              std::string_view source_name,
                              const ParseOptions& options);

// Some value of the module has a `?` dimension (it needs refinement).
bool IsShapePolymorphic(const Module& module);

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
