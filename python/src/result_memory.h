// NumPy arrays whose memory comes from the ResultMemoryPool
// (result_memory_pool.h): the result arrays of xffi.Program calls.
#ifndef XFFI_PYTHON_RESULT_MEMORY_H_
#define XFFI_PYTHON_RESULT_MEMORY_H_

#include "common.h"

namespace xffi::python {

// A new, uninitialised C-contiguous array (a new reference; null with a
// Python error set on failure); steals a reference to `descr`, as
// PyArray_Empty does. Large arrays take their memory from the pool through
// a NumPy memory handler, so the array owns its data as any other does
// (resize, pickling, views behave as usual) and gives it back to the pool
// when it dies.
PyObject* NewResultArray(int ndim, const npy_intp* dims, PyArray_Descr* descr);

}  // namespace xffi::python

#endif  // XFFI_PYTHON_RESULT_MEMORY_H_
