# Finds XLA's official FFI headers among XFFI_XLA_INCLUDE_DIRS and sets
#   XFFI_XLA_V03_INCLUDE_DIR   the dir whose xla/ffi/api/c_api.h is FFI 0.3
#   XFFI_XLA_V05_INCLUDE_DIR   the dir whose xla/ffi/api/c_api.h is FFI 0.5
# Each dir is identified by the version its header declares, not by its
# position in the list. Unless XFFI_REQUIRE_XLA_HEADERS is OFF, a missing
# list, dir or version fails configuration: CI must never skip the ABI,
# interop and benchmark comparisons silently.

option(XFFI_REQUIRE_XLA_HEADERS
       "Fail configuration when XLA's official FFI headers are not given" ON)

set(XFFI_XLA_V03_INCLUDE_DIR "")
set(XFFI_XLA_V05_INCLUDE_DIR "")
set(_xffi_xla_problems "")

if(NOT XFFI_XLA_INCLUDE_DIRS)
  list(APPEND _xffi_xla_problems "XFFI_XLA_INCLUDE_DIRS is empty")
endif()
foreach(_dir IN LISTS XFFI_XLA_INCLUDE_DIRS)
  set(_header "${_dir}/xla/ffi/api/c_api.h")
  if(NOT EXISTS "${_header}")
    list(APPEND _xffi_xla_problems "'${_header}' does not exist")
    continue()
  endif()
  file(STRINGS "${_header}" _minor_line
       REGEX "^#define[ \t]+XLA_FFI_API_MINOR[ \t]+[0-9]+")
  string(REGEX MATCH "[0-9]+$" _minor "${_minor_line}")
  if(_minor STREQUAL "3")
    set(XFFI_XLA_V03_INCLUDE_DIR "${_dir}")
  elseif(_minor STREQUAL "5")
    set(XFFI_XLA_V05_INCLUDE_DIR "${_dir}")
  else()
    list(APPEND _xffi_xla_problems
         "'${_header}' declares FFI 0.${_minor}; expected 0.3 or 0.5")
  endif()
endforeach()
if(XFFI_XLA_INCLUDE_DIRS AND NOT XFFI_XLA_V03_INCLUDE_DIR)
  list(APPEND _xffi_xla_problems
       "no dir holds the FFI 0.3 header (jaxlib 0.10.2)")
endif()
if(XFFI_XLA_INCLUDE_DIRS AND NOT XFFI_XLA_V05_INCLUDE_DIR)
  list(APPEND _xffi_xla_problems
       "no dir holds the FFI 0.5 header (jaxlib 0.12.0.1)")
endif()

if(_xffi_xla_problems)
  list(JOIN _xffi_xla_problems "\n  " _xffi_xla_text)
  set(_xffi_xla_text
      "XLA's official FFI headers are needed for the ABI comparison, interop "
      "and benchmark targets:\n  ${_xffi_xla_text}\n"
      "Pass -DXFFI_XLA_INCLUDE_DIRS=<list> naming jaxlib 0.10.2's and "
      "jaxlib 0.12.0.1's include dirs, separated by a semicolon "
      "(scripts/build.sh does, after scripts/deps.sh fetched them), or -DXFFI_REQUIRE_XLA_HEADERS=OFF to "
      "build without those targets.")
  if(XFFI_REQUIRE_XLA_HEADERS)
    message(FATAL_ERROR ${_xffi_xla_text})
  endif()
  message(WARNING ${_xffi_xla_text})
  set(XFFI_XLA_V03_INCLUDE_DIR "")
  set(XFFI_XLA_V05_INCLUDE_DIR "")
endif()
