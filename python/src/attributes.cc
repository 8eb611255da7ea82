#include "attributes.h"

#include "strict_attributes.h"
#include "xffi/runtime/registry.h"

#include <nanobind/stl/string.h>

#include <complex>
#include <limits>
#include <string_view>
#include <vector>

namespace xffi::python {
namespace {

struct Context {
  const std::string& call;  // "ffi_call('name')", as messages name the call
  std::string attribute;    // dotted path for nested dictionaries

  [[noreturn]] void Fail(const std::string& what) const {
    ThrowTypeError(call + ": attribute '" + attribute + "' " + what);
  }
  [[noreturn]] void Mismatch(const std::string& expected,
                             nb::handle value) const {
    Fail("expects " + expected + ", got " + PythonTypeName(value));
  }
};

bool IsPythonInt(nb::handle v) {
  return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
}

template <typename T>
T IntegerInRange(nb::handle value, const Context& ctx,
                 const std::string& expected) {
  int overflow = 0;
  if constexpr (std::is_unsigned_v<T>) {
    unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      overflow = 1;
    } else if (v <= std::numeric_limits<T>::max()) {
      return static_cast<T>(v);
    } else {
      overflow = 1;
    }
  } else {
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (!overflow && v >= std::numeric_limits<T>::min() &&
        v <= std::numeric_limits<T>::max()) {
      return static_cast<T>(v);
    }
  }
  ctx.Fail("expects " + expected + ", got int " +
           nb::cast<std::string>(nb::repr(value)) + ", which is out of range");
}

// A NumPy scalar (np.float32(1), np.int8(3)) as the exact type it carries.
bool NumpyScalar(nb::handle value, XLA_FFI_DataType* dtype) {
  if (!PyArray_IsScalar(value.ptr(), Generic)) return false;
  PyArray_Descr* descr = PyArray_DescrFromScalar(value.ptr());
  *dtype = DtypeOfTypeNum(descr->type_num);
  Py_DECREF(descr);
  return true;
}

template <typename T>
T ScalarValue(nb::handle value) {
  T out{};
  PyArray_ScalarAsCtype(value.ptr(), &out);
  return out;
}

AttrValue NumpyScalarValue(nb::handle value, XLA_FFI_DataType dtype,
                           const Context& ctx) {
  switch (dtype) {
    case XLA_FFI_DataType_PRED:
      return ScalarValue<npy_bool>(value) != 0;
    case XLA_FFI_DataType_S8:
      return ScalarValue<int8_t>(value);
    case XLA_FFI_DataType_S16:
      return ScalarValue<int16_t>(value);
    case XLA_FFI_DataType_S32:
      return ScalarValue<int32_t>(value);
    case XLA_FFI_DataType_S64:
      return ScalarValue<int64_t>(value);
    case XLA_FFI_DataType_U8:
      return ScalarValue<uint8_t>(value);
    case XLA_FFI_DataType_U16:
      return ScalarValue<uint16_t>(value);
    case XLA_FFI_DataType_U32:
      return ScalarValue<uint32_t>(value);
    case XLA_FFI_DataType_U64:
      return ScalarValue<uint64_t>(value);
    case XLA_FFI_DataType_F32:
      return ScalarValue<float>(value);
    case XLA_FFI_DataType_F64:
      return ScalarValue<double>(value);
    case XLA_FFI_DataType_C64:
      return ScalarValue<std::complex<float>>(value);
    case XLA_FFI_DataType_C128:
      return ScalarValue<std::complex<double>>(value);
    default:
      ctx.Fail("is a NumPy " + PythonTypeName(value) +
               " scalar, which FFI attributes cannot carry");
  }
}

// A Python number as the scalar type `dtype` (narrowing floats; ints must
// fit; bool only for PRED).
AttrValue PythonScalarAs(nb::handle value, XLA_FFI_DataType dtype,
                         const std::string& expected, const Context& ctx) {
  PyObject* v = value.ptr();
  const bool is_bool = PyBool_Check(v);
  const bool is_int = IsPythonInt(value);
  const bool is_float = PyFloat_Check(v);
  switch (dtype) {
    case XLA_FFI_DataType_PRED:
      if (is_bool) return v == Py_True;
      break;
    case XLA_FFI_DataType_S8:
      if (is_int) return IntegerInRange<int8_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_S16:
      if (is_int) return IntegerInRange<int16_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_S32:
      if (is_int) return IntegerInRange<int32_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_S64:
      if (is_int) return IntegerInRange<int64_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_U8:
      if (is_int) return IntegerInRange<uint8_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_U16:
      if (is_int) return IntegerInRange<uint16_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_U32:
      if (is_int) return IntegerInRange<uint32_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_U64:
      if (is_int) return IntegerInRange<uint64_t>(value, ctx, expected);
      break;
    case XLA_FFI_DataType_F32:
      if (is_float || is_int) return static_cast<float>(PyFloat_AsDouble(v));
      break;
    case XLA_FFI_DataType_F64:
      if (is_float || is_int) return PyFloat_AsDouble(v);
      break;
    case XLA_FFI_DataType_C64:
    case XLA_FFI_DataType_C128:
      if (is_float || is_int || PyComplex_Check(v)) {
        std::complex<double> c(PyComplex_RealAsDouble(v),
                               PyComplex_ImagAsDouble(v));
        if (dtype == XLA_FFI_DataType_C64) return std::complex<float>(c);
        return c;
      }
      break;
    default:
      ctx.Fail("has type " + expected + ", which xffi cannot pass from Python");
  }
  ctx.Mismatch(expected, value);
}

template <typename T>
std::vector<T> SequenceAs(nb::handle sequence, XLA_FFI_DataType dtype,
                          const std::string& expected, const Context& ctx) {
  std::vector<T> out;
  nb::sequence items = nb::borrow<nb::sequence>(sequence);
  size_t n = nb::len(items);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    nb::object item = items[i];
    XLA_FFI_DataType item_dtype;
    AttrValue element;
    if (NumpyScalar(item, &item_dtype)) {
      if (item_dtype != dtype) {
        ctx.Fail("expects " + expected + ", got a NumPy " +
                 PythonTypeName(item) + " at index " + std::to_string(i));
      }
      element = NumpyScalarValue(item, item_dtype, ctx);
    } else {
      element = PythonScalarAs(item, dtype, expected, ctx);
    }
    out.push_back(std::get<T>(element));
  }
  return out;
}

template <typename T>
std::vector<T> ArrayAs(PyArrayObject* array) {
  npy_intp n = PyArray_SIZE(array);
  std::vector<T> out(static_cast<size_t>(n));
  // Any layout: NumPy copies it out in row-major order.
  nb::object contiguous = nb::steal(PyArray_FROM_OF(
      reinterpret_cast<PyObject*>(array), NPY_ARRAY_C_CONTIGUOUS));
  if (!contiguous.is_valid()) throw nb::python_error();
  std::memcpy(out.data(),
              PyArray_DATA(reinterpret_cast<PyArrayObject*>(contiguous.ptr())),
              out.size() * sizeof(T));
  return out;
}

AttrValue ArrayValue(PyArrayObject* array, XLA_FFI_DataType dtype,
                     nb::handle value, const Context& ctx) {
  switch (dtype) {
    case XLA_FFI_DataType_S8:
      return ArrayAs<int8_t>(array);
    case XLA_FFI_DataType_S16:
      return ArrayAs<int16_t>(array);
    case XLA_FFI_DataType_S32:
      return ArrayAs<int32_t>(array);
    case XLA_FFI_DataType_S64:
      return ArrayAs<int64_t>(array);
    case XLA_FFI_DataType_U8:
      return ArrayAs<uint8_t>(array);
    case XLA_FFI_DataType_U16:
      return ArrayAs<uint16_t>(array);
    case XLA_FFI_DataType_U32:
      return ArrayAs<uint32_t>(array);
    case XLA_FFI_DataType_U64:
      return ArrayAs<uint64_t>(array);
    case XLA_FFI_DataType_F32:
      return ArrayAs<float>(array);
    case XLA_FFI_DataType_F64:
      return ArrayAs<double>(array);
    default:
      ctx.Fail("is an array of " + DtypeName(dtype) + " (" +
               PythonTypeName(value) +
               "); FFI array attributes hold integers or f32/f64");
  }
}

AttrValue SequenceValue(nb::handle value, XLA_FFI_DataType dtype,
                        const std::string& expected, const Context& ctx) {
  switch (dtype) {
    case XLA_FFI_DataType_S8:
      return SequenceAs<int8_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_S16:
      return SequenceAs<int16_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_S32:
      return SequenceAs<int32_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_S64:
      return SequenceAs<int64_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_U8:
      return SequenceAs<uint8_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_U16:
      return SequenceAs<uint16_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_U32:
      return SequenceAs<uint32_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_U64:
      return SequenceAs<uint64_t>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_F32:
      return SequenceAs<float>(value, dtype, expected, ctx);
    case XLA_FFI_DataType_F64:
      return SequenceAs<double>(value, dtype, expected, ctx);
    default:
      ctx.Fail("has type " + expected + ", which xffi cannot pass from Python");
  }
}

AttributeMap ConvertDict(nb::handle dict,
                         const std::vector<const XFFI_Signature*>* signatures,
                         const std::string& call, const std::string& prefix,
                         bool strict = false);

// No declaration to follow: each value takes its natural type.
AttrValue NaturalValue(nb::handle value, const Context& ctx) {
  PyObject* v = value.ptr();
  XLA_FFI_DataType dtype;
  if (PyBool_Check(v)) return v == Py_True;
  if (PyLong_Check(v)) {
    return IntegerInRange<int64_t>(value, ctx, "int64_t");
  }
  if (PyFloat_Check(v)) return PyFloat_AsDouble(v);
  if (PyComplex_Check(v)) {
    return std::complex<double>(PyComplex_RealAsDouble(v),
                                PyComplex_ImagAsDouble(v));
  }
  if (PyUnicode_Check(v)) return nb::cast<std::string>(value);
  if (PyBytes_Check(v)) {
    return std::string(PyBytes_AS_STRING(v),
                       static_cast<size_t>(PyBytes_GET_SIZE(v)));
  }
  if (NumpyScalar(value, &dtype)) return NumpyScalarValue(value, dtype, ctx);
  if (PyArray_Check(v)) {
    auto* array = reinterpret_cast<PyArrayObject*>(v);
    return ArrayValue(array, DtypeOfTypeNum(PyArray_TYPE(array)), value, ctx);
  }
  if (PyDict_Check(v))
    return ConvertDict(value, nullptr, ctx.call, ctx.attribute + ".");
  if (PyList_Check(v) || PyTuple_Check(v)) {
    // Integers make an int64 array; any float makes it f64.
    nb::sequence items = nb::borrow<nb::sequence>(value);
    bool any_float = false;
    for (nb::handle item : items) {
      if (PyFloat_Check(item.ptr())) {
        any_float = true;
      } else if (!IsPythonInt(item) && !PyArray_IsScalar(item.ptr(), Integer) &&
                 !PyArray_IsScalar(item.ptr(), Floating)) {
        ctx.Fail("is a " + PythonTypeName(value) + " holding a " +
                 PythonTypeName(item) + "; sequences must hold only numbers");
      } else if (PyArray_IsScalar(item.ptr(), Floating)) {
        any_float = true;
      }
    }
    if (any_float) {
      std::vector<double> out;
      for (nb::handle item : items) out.push_back(PyFloat_AsDouble(item.ptr()));
      return out;
    }
    std::vector<int64_t> out;
    for (nb::handle item : items) {
      out.push_back(IntegerInRange<int64_t>(
          nb::steal(PyNumber_Index(item.ptr())), ctx, "int64_t"));
    }
    return out;
  }
  ctx.Fail("has a value of type " + PythonTypeName(value) +
           ", which FFI attributes cannot carry (use a number, string, "
           "NumPy array, list of numbers or dict)");
}

std::string Expected(const XFFI_Param& param) {
  std::string type = param.type_name ? param.type_name : "?";
  return type;
}

AttrValue DeclaredValue(nb::handle value, const XFFI_Param& param,
                        const Context& ctx) {
  const std::string expected = Expected(param);
  PyObject* v = value.ptr();
  XLA_FFI_DataType dtype;
  switch (param.attr_type) {
    case XLA_FFI_AttrType_SCALAR:
      if (NumpyScalar(value, &dtype)) {
        if (dtype != param.dtype) ctx.Mismatch(expected, value);
        return NumpyScalarValue(value, dtype, ctx);
      }
      if (PyArray_Check(v) || PyList_Check(v) || PyTuple_Check(v) ||
          PyUnicode_Check(v) || PyDict_Check(v) || PyBytes_Check(v)) {
        ctx.Mismatch(expected, value);
      }
      return PythonScalarAs(value, param.dtype, expected, ctx);
    case XLA_FFI_AttrType_ARRAY:
      if (PyArray_Check(v)) {
        auto* array = reinterpret_cast<PyArrayObject*>(v);
        XLA_FFI_DataType given = DtypeOfTypeNum(PyArray_TYPE(array));
        if (given != param.dtype) {
          ctx.Fail("expects " + expected + ", got a NumPy array of " +
                   DtypeName(given));
        }
        return ArrayValue(array, given, value, ctx);
      }
      if (PyList_Check(v) || PyTuple_Check(v)) {
        return SequenceValue(value, param.dtype, expected, ctx);
      }
      ctx.Mismatch(expected, value);
    case XLA_FFI_AttrType_STRING:
      if (PyUnicode_Check(v) || PyBytes_Check(v)) {
        return NaturalValue(value, ctx);
      }
      ctx.Mismatch(expected, value);
    case XLA_FFI_AttrType_DICTIONARY:
      if (PyDict_Check(v)) return NaturalValue(value, ctx);
      ctx.Mismatch(expected, value);
    default:
      return NaturalValue(value, ctx);
  }
}

AttributeMap ConvertDict(nb::handle dict,
                         const std::vector<const XFFI_Signature*>* signatures,
                         const std::string& call, const std::string& prefix,
                         bool strict) {
  AttributeMap out;
  bool takes_any = signatures == nullptr || signatures->empty();
  std::vector<const XFFI_Param*> declared;
  for (const XFFI_Signature* signature :
       signatures ? *signatures : std::vector<const XFFI_Signature*>{}) {
    if (signature == nullptr) {
      takes_any = true;
      continue;
    }
    for (int64_t i = 0; i < signature->num_params; ++i) {
      const XFFI_Param& p = signature->params[i];
      if (p.kind == XFFI_Param_ATTRS) takes_any = true;
      if (p.kind != XFFI_Param_ATTR || p.name == nullptr) continue;
      bool seen = false;
      for (const XFFI_Param* d : declared) {
        seen = seen || std::string_view(d->name) == p.name;
      }
      if (!seen) declared.push_back(&p);
    }
  }
  for (auto [key, value] : nb::borrow<nb::dict>(dict)) {
    if (!PyUnicode_Check(key.ptr())) {
      ThrowTypeError(call +
                     ": attribute names must be "
                     "strings, got " +
                     PythonTypeName(key));
    }
    std::string name = nb::cast<std::string>(key);
    Context ctx{call, prefix + name};
    const XFFI_Param* param = nullptr;
    for (const XFFI_Param* p : declared) {
      if (name == p->name) param = p;
    }
    if (param == nullptr && !takes_any) {
      std::string names;
      for (const XFFI_Param* p : declared) {
        names += (names.empty() ? "" : ", ") + std::string(p->name);
      }
      ThrowTypeError(call + ": unknown attribute '" + name +
                     "'; the handler takes " +
                     (names.empty() ? std::string("no attributes")
                                    : "the attributes " + names));
    }
    if (strict) {
      // What passes here converts below without narrowing: its type is
      // exactly the declared one (or its natural one).
      const StrictPlace place{call, prefix + name, name, prefix.empty()};
      const std::string kind = StrictAttributeKind(value, place);
      if (param != nullptr) CheckStrictDeclaredKind(*param, kind, place);
    }
    out.Set(name, param != nullptr ? DeclaredValue(value, *param, ctx)
                                   : NaturalValue(value, ctx));
  }
  for (const XFFI_Param* p : declared) {
    if (!out.contains(p->name)) {
      ThrowTypeError(call + ": missing attribute '" + std::string(p->name) +
                     "' (" + Expected(*p) + ")");
    }
  }
  return out;
}

}  // namespace

std::vector<const XFFI_Signature*> StageSignatures(
    const std::string& target, const XLA_FFI_Handler_Bundle& bundle) {
  std::vector<const XFFI_Signature*> out;
  for (XLA_FFI_Handler* stage : {bundle.instantiate, bundle.prepare,
                                 bundle.initialize, bundle.execute}) {
    if (stage == nullptr) continue;
    // A handler built with xffi's header describes itself whatever its
    // stage, so each one is asked as if it were an execute handler.
    XLA_FFI_Handler_Bundle alone{};
    alone.execute = stage;
    StatusOr<HandlerRecord> record = DescribeHandler(target, alone);
    out.push_back(record.ok() ? record->signature : nullptr);
  }
  return out;
}

AttributeMap ConvertAttributes(
    nb::handle kwargs, const std::vector<const XFFI_Signature*>& signatures,
    const std::string& target, const char* call_kind, bool strict) {
  return ConvertDict(kwargs, &signatures,
                     std::string(call_kind) + "('" + target + "')", "", strict);
}

}  // namespace xffi::python
