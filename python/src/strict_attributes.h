// ffi_call(strict=True): the attribute values jax.ffi.ffi_call refuses,
// refused the same way. JAX turns each keyword argument into an MLIR
// attribute by its Python type alone (a float is always an f64, an int an
// s64, a tuple an array attribute XLA cannot pass on), and XLA's decoder
// then wants exactly the declared type. xffi's default is kinder (it narrows
// and converts); strict mode is for code that must also run under JAX.
#ifndef XFFI_PYTHON_STRICT_ATTRIBUTES_H_
#define XFFI_PYTHON_STRICT_ATTRIBUTES_H_

#include <string>

#include "common.h"

namespace xffi::python {

// Where a value sits: messages name the call ("ffi_call('t')"), the dotted
// path of the attribute, and the key JAX and XLA name (the innermost one).
struct StrictPlace {
  const std::string& call;
  std::string path;
  std::string key;
  bool top_level;  // a keyword argument itself, not a dictionary's entry
};

// The attribute JAX makes of `value`, as XLA's messages name it ("F64
// scalar", "array of S32", "string", "dictionary"); a dictionary's entries
// are checked too. A value JAX refuses raises TypeError (OverflowError for
// ints beyond int64) with JAX's reason in JAX's words.
std::string StrictAttributeKind(nb::handle value, const StrictPlace& place);

// Raises TypeError, with XLA's message, unless `kind` is exactly what the
// handler declares for the attribute.
void CheckStrictDeclaredKind(const XFFI_Param& param, const std::string& kind,
                             const StrictPlace& place);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_STRICT_ATTRIBUTES_H_
