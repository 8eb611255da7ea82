// Python keyword arguments to FFI attributes (xffi::testing::Dictionary),
// checked and narrowed against the handler's self-description when it has
// one: a Python float given to an Attr<float> becomes an f32, and a value
// of the wrong kind is refused before the handler runs, naming the
// attribute and both types.
#ifndef XFFI_PYTHON_ATTRIBUTES_H_
#define XFFI_PYTHON_ATTRIBUTES_H_

#include <string>

#include "common.h"
#include "xffi/testing.h"

namespace xffi::python {

// `signature` may be null (the handler does not describe itself): values
// then take their natural types (int: int64, float: f64, list of ints:
// int64 array, ...). `target` names the call in messages.
testing::Dictionary ConvertAttributes(nb::handle kwargs,
                                      const XFFI_Signature* signature,
                                      const std::string& target);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_ATTRIBUTES_H_
