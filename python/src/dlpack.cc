#include "dlpack.h"

#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "common.h"

namespace xffi::python {

namespace {

using AnyTensor = nb::ndarray<nb::ro>;

// The XLA type of a DLPack dtype NumPy does not import, or INVALID.
XLA_FFI_DataType ExtendedDtype(nb::dlpack::dtype dtype) {
  if (dtype.lanes != 1) return XLA_FFI_DataType_INVALID;
  if (dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) &&
      dtype.bits == 16) {
    return XLA_FFI_DataType_BF16;
  }
  return XLA_FFI_DataType_INVALID;
}

}  // namespace

nb::object ArrayFromDlpackExtendedDtype(nb::handle value) {
  AnyTensor tensor;
  // nanobind's importer speaks every DLPack version (capsules versioned or
  // not) and takes any dtype.
  if (!nb::try_cast(value, tensor, /*convert=*/false)) return nb::object();
  if (tensor.device_type() != nb::device::cpu::value) return nb::object();
  XLA_FFI_DataType type = ExtendedDtype(tensor.dtype());
  PyArray_Descr* descr =
      type == XLA_FFI_DataType_INVALID ? nullptr : DescrOfDtype(type);
  if (descr == nullptr) return nb::object();
  const size_t rank = tensor.ndim();
  const int64_t item = tensor.dtype().bits / 8;
  std::vector<npy_intp> dims(rank), strides(rank);
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = static_cast<npy_intp>(tensor.shape(i));
    strides[i] = static_cast<npy_intp>(tensor.stride(i) * item);
  }
  // Read-only, as numpy.from_dlpack's arrays of a read-only producer are:
  // the program only reads its arguments.
  PyObject* array = PyArray_NewFromDescr(
      &PyArray_Type, descr, static_cast<int>(rank), dims.data(), strides.data(),
      const_cast<void*>(tensor.data()), 0, nullptr);
  if (array == nullptr) throw nb::python_error();
  nb::object result = nb::steal(array);
  nb::capsule owner(new AnyTensor(std::move(tensor)), [](void* p) noexcept {
    delete static_cast<AnyTensor*>(p);
  });
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array),
                            owner.release().ptr()) != 0) {
    throw nb::python_error();
  }
  return result;
}

}  // namespace xffi::python
