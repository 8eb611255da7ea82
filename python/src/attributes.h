// Python keyword arguments to FFI attributes (xffi::AttributeMap),
// checked and narrowed against the handler's self-description when it has
// one: a Python float given to an Attr<float> becomes an f32, and a value
// of the wrong kind is refused before the handler runs, naming the
// attribute and both types.
#ifndef XFFI_PYTHON_ATTRIBUTES_H_
#define XFFI_PYTHON_ATTRIBUTES_H_

#include <string>
#include <vector>

#include "common.h"
#include "xffi/runtime/attributes.h"

namespace xffi::python {

// The signatures of every stage of `bundle` (each stage sees every
// attribute: an instantiate handler's Attr<int64_t>("start") is as much the
// call's attribute as execute's). A null entry: that stage does not
// describe itself.
std::vector<const XFFI_Signature*> StageSignatures(
    const std::string& target, const XLA_FFI_Handler_Bundle& bundle);

// Attributes no stage declares are refused, unless a stage takes the whole
// dictionary or does not describe itself; values then take their natural
// types (int: int64, float: f64, list of ints: int64 array, ...). Messages
// name the call as "CALL_KIND('TARGET')".
//
// `strict` refuses, before any conversion, every value jax.ffi.ffi_call
// would refuse (when JAX lowers it or when XLA decodes it for the handler),
// and says JAX's reason in JAX's and XLA's words: no narrowing (a Python
// float is an f64, an int an s64), no lists, tuples or complex numbers.
AttributeMap ConvertAttributes(
    nb::handle kwargs, const std::vector<const XFFI_Signature*>& signatures,
    const std::string& target, const char* call_kind = "ffi_call",
    bool strict = false);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_ATTRIBUTES_H_
