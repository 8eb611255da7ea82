// xffi._core: the extension module. Bindings of the runtime's registries,
// plugins, eager calls and programs live in one file per concern beside
// this one (bindings.h); what they share is in common.h.
#define XFFI_PYTHON_IMPORTS_NUMPY
#include "common.h"

#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "xffi/program/builtin_targets.h"

NB_MODULE(_core, m) {
  using namespace xffi::python;
  if (_import_array() < 0) throw nb::python_error();
  m.doc() = "xffi's runtime: registries, plugins and eager calls";
  m.def(
      "_register_dtype",
      [](nb::handle descr, int xla_dtype, std::string name, size_t size) {
        if (!PyArray_DescrCheck(descr.ptr())) {
          ThrowTypeError("_register_dtype: expected a numpy.dtype");
        }
        auto* d = reinterpret_cast<PyArray_Descr*>(descr.ptr());
        RegisterDtype(d->type_num, descr.ptr(), xla_dtype, std::move(name),
                      size);
      },
      nb::arg("dtype"), nb::arg("xla_dtype"), nb::arg("name"), nb::arg("size"));
  // jaxlib's CPU targets are built in: register them before anything else
  // can claim their names, so eager calls and programs find them.
  ThrowIfError(xffi::RegisterBuiltinCpuTargets());
  BindRegistration(m);
  BindPlugin(m);
  BindCall(m);
  BindDeviceArrays(m);
  BindProgram(m);
  BindResultMemory(m);
}
