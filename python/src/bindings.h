// The parts of xffi._core, one per binding file; module.cc calls each once
// when Python imports the module.
#ifndef XFFI_PYTHON_BINDINGS_H_
#define XFFI_PYTHON_BINDINGS_H_

#include <nanobind/nanobind.h>

namespace xffi::python {

void BindRegistration(nanobind::module_& m);  // registration.cc
void BindPlugin(nanobind::module_& m);        // plugin.cc
void BindCall(nanobind::module_& m);          // call.cc
void BindProgram(nanobind::module_& m);       // program.cc
void BindResultMemory(nanobind::module_& m);  // result_memory.cc
void BindDeviceArrays(nanobind::module_& m);  // device_arrays.cc

}  // namespace xffi::python

#endif  // XFFI_PYTHON_BINDINGS_H_
