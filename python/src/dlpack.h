// Arrays from DLPack producers whose dtype NumPy's own importer refuses.
#ifndef XFFI_PYTHON_DLPACK_H_
#define XFFI_PYTHON_DLPACK_H_

#include <nanobind/nanobind.h>

namespace xffi::python {

// A NumPy array over a DLPack producer's memory (no copy), for a CPU
// tensor of a dtype NumPy's from_dlpack does not know but xffi's dtype table
// does: bfloat16 (kDLBfloat). numpy.from_dlpack raises "Unsupported dtype in
// DLTensor" for it, since NumPy itself has no bfloat16; ml_dtypes' dtype is
// what xffi registers for BF16. The array keeps the producer's tensor alive.
// Returns a null object when `value` is no such tensor, so the caller can
// report its own error.
nanobind::object ArrayFromDlpackExtendedDtype(nanobind::handle value);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_DLPACK_H_
