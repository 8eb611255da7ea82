#include "strict_attributes.h"

#include <nanobind/stl/string.h>

#include <cctype>

namespace xffi::python {
namespace {

// XLA's spelling of a type in its messages: "F32", "S64", "PRED".
std::string XlaTypeName(XLA_FFI_DataType dtype) {
  std::string name = DtypeName(dtype);
  for (char& c : name) c = static_cast<char>(std::toupper(c));
  return name;
}

[[noreturn]] void Refuse(const StrictPlace& place, const std::string& reason,
                         PyObject* exception = PyExc_TypeError) {
  const std::string message =
      place.call + ": attribute '" + place.path +
      "' is refused by strict mode, as jax.ffi.ffi_call refuses it: " + reason;
  PyErr_SetString(exception, message.c_str());
  throw nb::python_error();
}

std::string ClassText(nb::handle value) {
  return nb::cast<std::string>(
      nb::str(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(value.ptr())))));
}

bool IsArrayElementType(XLA_FFI_DataType dtype) {
  switch (dtype) {
    case XLA_FFI_DataType_S8:
    case XLA_FFI_DataType_S16:
    case XLA_FFI_DataType_S32:
    case XLA_FFI_DataType_S64:
    case XLA_FFI_DataType_U8:
    case XLA_FFI_DataType_U16:
    case XLA_FFI_DataType_U32:
    case XLA_FFI_DataType_U64:
    case XLA_FFI_DataType_F32:
    case XLA_FFI_DataType_F64:
      return true;
    default:
      return false;
  }
}

// JAX keeps attributes in its jit cache key, so each must hash; a
// dictionary's entries are hashed when the dictionary is.
void CheckHashable(nb::handle value, const StrictPlace& place) {
  PyObject* v = value.ptr();
  if (place.top_level && (PyArray_Check(v) || PyDict_Check(v))) return;
  if (PyObject_Hash(v) != -1) return;
  // Python's own words: "unhashable type: 'list'".
  const std::string unhashable =
      nb::cast<std::string>(nb::str(nb::python_error().value()));
  if (place.top_level) {
    Refuse(place, "Non-hashable keyword argument to ffi_call " + place.key +
                      ": " + nb::cast<std::string>(nb::str(value)));
  }
  Refuse(place, unhashable);
}

std::string NumpyScalarKind(nb::handle value, const StrictPlace& place) {
  PyArray_Descr* descr = PyArray_DescrFromScalar(value.ptr());
  const int type_num = descr->type_num;
  Py_DECREF(descr);
  const XLA_FFI_DataType dtype = DtypeOfTypeNum(type_num);
  switch (dtype) {
    case XLA_FFI_DataType_PRED:
    case XLA_FFI_DataType_F32:
    case XLA_FFI_DataType_F64:
      return XlaTypeName(dtype) + " scalar";
    case XLA_FFI_DataType_F16:
      Refuse(place, "Unsupported float attribute bit width for attribute: " +
                        place.key);
    case XLA_FFI_DataType_C64:
    case XLA_FFI_DataType_C128:
      Refuse(place, "Unsupported scalar attribute type: " + ClassText(value));
    default:
      if (IsArrayElementType(dtype)) return XlaTypeName(dtype) + " scalar";
      // JAX lowers other NumPy scalars (datetimes, ...) as a type.
      Refuse(place, "Unsupported attribute type for attribute: " + place.key);
  }
}

}  // namespace

std::string StrictAttributeKind(nb::handle value, const StrictPlace& place) {
  CheckHashable(value, place);
  PyObject* v = value.ptr();
  // In the order JAX's handlers match the type's MRO: NumPy's scalar types
  // before the Python types some of them derive from (np.float64: float).
  if (PyArray_Check(v)) {
    auto* array = reinterpret_cast<PyArrayObject*>(v);
    const XLA_FFI_DataType dtype = DtypeOfTypeNum(PyArray_TYPE(array));
    for (int d = 0; d < PyArray_NDIM(array); ++d) {
      if (PyArray_STRIDES(array)[d] == 0 && PyArray_SIZE(array) > 0) {
        Refuse(place,
               "NumPy arrays with zero strides are not supported as MLIR "
               "attributes");
      }
    }
    if (!IsArrayElementType(dtype)) {
      Refuse(place,
             "Unsupported array element type for attribute: " + place.key);
    }
    return "array of " + XlaTypeName(dtype);
  }
  // np.str_ and np.bytes_ find str and bytes before NumPy's generic.
  if (PyUnicode_Check(v) || PyBytes_Check(v)) return "string";
  if (PyArray_IsScalar(v, Generic)) return NumpyScalarKind(value, place);
  if (PyBool_Check(v)) return "PRED scalar";
  if (PyLong_Check(v)) {
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) {
      Refuse(place, "Python int too large to convert to C long",
             PyExc_OverflowError);
    }
    return "S64 scalar";
  }
  if (PyFloat_Check(v)) return "F64 scalar";
  if (PyComplex_Check(v)) {
    // JAX makes a complex128 array of it first, then finds no scalar
    // attribute for that.
    Refuse(place, "Unsupported scalar attribute type: <class 'numpy.ndarray'>");
  }
  if (PyDict_Check(v)) {
    for (auto [key, entry] : nb::borrow<nb::dict>(value)) {
      std::string name = nb::cast<std::string>(nb::str(key));
      (void)StrictAttributeKind(
          entry, StrictPlace{place.call, place.path + "." + name, name, false});
    }
    return "dictionary";
  }
  if (PyList_Check(v) || PyTuple_Check(v) || PyArray_DescrCheck(v)) {
    // Lowered to an MLIR array (or type) attribute, which XLA's FFI cannot
    // pass to a handler.
    Refuse(place, "Unsupported attribute type for attribute: " + place.key);
  }
  Refuse(place, "No attribute handler defined for type: " + ClassText(value));
}

void CheckStrictDeclaredKind(const XFFI_Param& param, const std::string& kind,
                             const StrictPlace& place) {
  std::string expected;
  switch (param.attr_type) {
    case XLA_FFI_AttrType_SCALAR:
      expected = XlaTypeName(param.dtype) + " scalar";
      break;
    case XLA_FFI_AttrType_ARRAY:
      expected = "array of " + XlaTypeName(param.dtype);
      break;
    case XLA_FFI_AttrType_STRING:
      expected = "string";
      break;
    case XLA_FFI_AttrType_DICTIONARY:
      expected = "dictionary";
      break;
    default:
      return;  // a custom decoder: the handler decides
  }
  if (kind == expected) return;
  Refuse(place, "attribute '" + place.key + "': expected " +
                    (param.type_name ? param.type_name : "?") + " (" +
                    expected + "), got " + kind);
}

}  // namespace xffi::python
