// What every binding file shares (common.h): Status as Python exceptions,
// the dtype table, type names for messages.
#include "common.h"

#include <nanobind/stl/string.h>

#include <array>
#include <string>
#include <vector>

namespace xffi::python {
namespace {

// Indexed by XLA_FFI_DataType; entries are owned references.
std::array<PyArray_Descr*, 64>& DescrTable() {
  static std::array<PyArray_Descr*, 64> table{};
  return table;
}

std::array<std::string, 64>& NameTable() {
  static std::array<std::string, 64> table{};
  return table;
}

std::array<size_t, 64>& SizeTable() {
  static std::array<size_t, 64> table{};
  return table;
}

}  // namespace

int8_t dtype_of_type_num[kMaxNumpyTypeNum] = {};

void ThrowStatus(const Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case XLA_FFI_Error_Code_INVALID_ARGUMENT:
    case XLA_FFI_Error_Code_ALREADY_EXISTS:
      type = PyExc_ValueError;
      break;
    case XLA_FFI_Error_Code_NOT_FOUND:
      type = PyExc_LookupError;
      break;
    case XLA_FFI_Error_Code_UNIMPLEMENTED:
      type = PyExc_NotImplementedError;
      break;
    case XLA_FFI_Error_Code_OUT_OF_RANGE:
      type = PyExc_IndexError;
      break;
    case XLA_FFI_Error_Code_RESOURCE_EXHAUSTED:
      type = PyExc_MemoryError;
      break;
    case XLA_FFI_Error_Code_DEADLINE_EXCEEDED:
      type = PyExc_TimeoutError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, status.message().c_str());
  throw nb::python_error();
}

void ThrowValueError(const std::string& message) {
  PyErr_SetString(PyExc_ValueError, message.c_str());
  throw nb::python_error();
}

std::string CountOf(size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

void ThrowTypeError(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw nb::python_error();
}

void RegisterDtype(int numpy_type_num, PyObject* descr, int xla_dtype,
                   std::string name, size_t size) {
  if (numpy_type_num < 0 || numpy_type_num >= kMaxNumpyTypeNum ||
      xla_dtype <= 0 || xla_dtype >= static_cast<int>(DescrTable().size())) {
    ThrowValueError("register_dtype: type number " +
                    std::to_string(numpy_type_num) + " or XLA dtype " +
                    std::to_string(xla_dtype) + " out of range");
  }
  dtype_of_type_num[numpy_type_num] = static_cast<int8_t>(xla_dtype);
  PyArray_Descr*& slot = DescrTable()[xla_dtype];
  if (slot == nullptr) {
    Py_INCREF(descr);
    slot = reinterpret_cast<PyArray_Descr*>(descr);
  }
  NameTable()[xla_dtype] = std::move(name);
  SizeTable()[xla_dtype] = size;
}

PyArray_Descr* DescrOfDtype(XLA_FFI_DataType dtype) {
  if (dtype <= 0 || dtype >= static_cast<int>(DescrTable().size())) {
    return nullptr;
  }
  PyArray_Descr* descr = DescrTable()[dtype];
  Py_XINCREF(descr);
  return descr;
}

std::string DtypeName(XLA_FFI_DataType dtype) {
  if (dtype > 0 && dtype < static_cast<int>(NameTable().size()) &&
      !NameTable()[dtype].empty()) {
    return NameTable()[dtype];
  }
  return "dtype " + std::to_string(static_cast<int>(dtype));
}

size_t DtypeSize(XLA_FFI_DataType dtype) {
  if (dtype > 0 && dtype < static_cast<int>(SizeTable().size())) {
    return SizeTable()[dtype];
  }
  return 0;
}

std::string PythonTypeName(nb::handle object) {
  PyTypeObject* type = Py_TYPE(object.ptr());
  nb::object module = nb::getattr(nb::handle(reinterpret_cast<PyObject*>(type)),
                                  "__module__", nb::none());
  std::string name = type->tp_name;
  if (nb::isinstance<nb::str>(module)) {
    std::string module_name = nb::cast<std::string>(module);
    if (module_name != "builtins" && name.find('.') == std::string::npos) {
      return module_name + "." + name;
    }
  }
  return name;
}

}  // namespace xffi::python
