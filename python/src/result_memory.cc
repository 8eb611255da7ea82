// The NumPy memory handler over the result memory pool, and the module's
// introspection of the pool (for tests and for users who want the cached
// memory back).
#include "result_memory.h"

#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstring>

#include "bindings.h"
#include "result_memory_pool.h"

namespace xffi::python {
namespace {

void* HandlerMalloc(void* /*ctx*/, size_t size) {
  return ResultMemoryPool::Global().Allocate(size);
}

void* HandlerCalloc(void* /*ctx*/, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* data = ResultMemoryPool::Global().Allocate(count * size);
  if (data != nullptr) std::memset(data, 0, count * size);
  return data;
}

void* HandlerRealloc(void* /*ctx*/, void* data, size_t size) {
  return ResultMemoryPool::Global().Reallocate(data, size);
}

void HandlerFree(void* /*ctx*/, void* data, size_t /*size*/) {
  ResultMemoryPool::Global().Free(data);
}

// NumPy keeps a reference to the handler's capsule in every array made
// under it; the capsule (and the struct it points at) is never freed.
PyObject* HandlerCapsule() {
  static PyObject* capsule = [] {
    static PyDataMem_Handler handler = [] {
      PyDataMem_Handler h{};
      std::strncpy(h.name, "xffi_result_memory", sizeof(h.name) - 1);
      h.version = 1;
      h.allocator = {nullptr, HandlerMalloc, HandlerCalloc, HandlerRealloc,
                     HandlerFree};
      return h;
    }();
    return PyCapsule_New(&handler, "mem_handler", nullptr);
  }();
  return capsule;
}

}  // namespace

PyObject* NewResultArray(int ndim, const npy_intp* dims, PyArray_Descr* descr) {
  size_t bytes = static_cast<size_t>(PyDataType_ELSIZE(descr));
  for (int i = 0; i < ndim; ++i) bytes *= static_cast<size_t>(dims[i]);
  npy_intp* shape = const_cast<npy_intp*>(dims);
  if (bytes < ResultMemoryPool::kMinPooledBytes) {
    return PyArray_Empty(ndim, shape, descr, 0);
  }
  PyObject* handler = HandlerCapsule();
  if (handler == nullptr) {
    Py_DECREF(descr);
    return nullptr;
  }
  // The handler is a context variable: set it for this one allocation and
  // put the caller's back.
  PyObject* previous = PyDataMem_SetHandler(handler);
  if (previous == nullptr) {
    Py_DECREF(descr);
    return nullptr;
  }
  PyObject* array = PyArray_Empty(ndim, shape, descr, 0);
  PyObject* restored = PyDataMem_SetHandler(previous);
  Py_DECREF(previous);
  if (restored == nullptr) {
    Py_XDECREF(array);
    return nullptr;
  }
  Py_DECREF(restored);
  return array;
}

void BindResultMemory(nb::module_& m) {
  m.def(
      "_result_memory_stats",
      [] {
        ResultMemoryPool::Stats stats = ResultMemoryPool::Global().stats();
        nb::dict d;
        d["cache_limit_bytes"] = stats.cache_limit_bytes;
        d["cached_bytes"] = stats.cached_bytes;
        d["cached_blocks"] = stats.cached_blocks;
        d["reused"] = stats.reused;
        d["allocated"] = stats.allocated;
        return d;
      },
      "What the pool behind large Program results holds: its limit, the "
      "bytes and blocks cached, and how many allocations it served from the "
      "cache and from malloc.");
  m.def(
      "_set_result_memory_limit",
      [](size_t bytes) {
        return ResultMemoryPool::Global().SetCacheLimit(bytes);
      },
      nb::arg("bytes"),
      "Sets how many bytes of freed Program results the pool keeps for "
      "reuse (0: none; cached blocks above the limit are freed at once) and "
      "returns the previous limit.");
}

}  // namespace xffi::python
