// Pieces every binding file of xffi._core shares: raising a runtime Status
// as a Python exception, NumPy's C API, and the dtype table that maps NumPy
// dtypes to XLA_FFI_DataType and back.
#ifndef XFFI_PYTHON_COMMON_H_
#define XFFI_PYTHON_COMMON_H_

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "xffi/c_api.h"
#include "xffi/runtime/status.h"

// Every file that uses NumPy's C API shares the table module.cc imports.
#define PY_ARRAY_UNIQUE_SYMBOL xffi_python_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#ifndef XFFI_PYTHON_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

namespace xffi::python {

namespace nb = nanobind;

// Raises `status` as the Python exception its code corresponds to:
// INVALID_ARGUMENT and ALREADY_EXISTS ValueError, NOT_FOUND LookupError,
// UNIMPLEMENTED NotImplementedError, OUT_OF_RANGE IndexError, the rest
// RuntimeError. The message is the status's message, unchanged.
[[noreturn]] void ThrowStatus(const Status& status);
[[noreturn]] void ThrowValueError(const std::string& message);
[[noreturn]] void ThrowTypeError(const std::string& message);

// "1 argument", "2 arguments": a count with its noun in the right number.
std::string CountOf(size_t count, const std::string& noun);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

// The dtype table, filled from Python at import (xffi/_dtypes.py) so that
// ml_dtypes' types (bfloat16, float8_*), whose NumPy type numbers are
// assigned at run time, map like the built-in ones. `name` is XLA's
// spelling ("bf16"), `size` the bytes of one element.
void RegisterDtype(int numpy_type_num, PyObject* descr, int xla_dtype,
                   std::string name, size_t size);
// By NumPy type number (user types start at NPY_USERDEF, 256): the XLA
// dtype, 0 (INVALID) for none. A plain array, read inline: every eager call
// looks each argument's dtype up.
inline constexpr int kMaxNumpyTypeNum = 1024;
extern int8_t dtype_of_type_num[kMaxNumpyTypeNum];
// XLA_FFI_DataType_INVALID when NumPy's type has no XLA counterpart.
inline XLA_FFI_DataType DtypeOfTypeNum(int numpy_type_num) {
  if (static_cast<unsigned>(numpy_type_num) >=
      static_cast<unsigned>(kMaxNumpyTypeNum)) {
    return XLA_FFI_DataType_INVALID;
  }
  return static_cast<XLA_FFI_DataType>(dtype_of_type_num[numpy_type_num]);
}
// A new reference, or null when the XLA type has no NumPy dtype here.
PyArray_Descr* DescrOfDtype(XLA_FFI_DataType dtype);
// "f32", "bf16", ...: XLA's spelling, for messages.
std::string DtypeName(XLA_FFI_DataType dtype);
// The size in bytes of one element (sub-byte types: one byte each).
size_t DtypeSize(XLA_FFI_DataType dtype);

// The Python type of `object` as a message names it: "float",
// "numpy.float64", "str".
std::string PythonTypeName(nb::handle object);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_COMMON_H_
