# xffi_add_handler_library(<name> <sources>...)
#
# Builds a handler library: a shared library that uses only xffi's headers,
# so the same .so loads into xffi (as a plugin) and into JAX/XLA (through
# jax.ffi.pycapsule or a registration). Symbols are hidden by default; the
# handler macros export exactly the handler symbols and their markers.
function(xffi_add_handler_library name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE xffi::headers)
  set_target_properties(${name} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  # A handler library must not need libxffi (XLA does not have it): every
  # symbol must resolve at link time, except the weak reference the
  # registration macros take to the xffi runtime's XLA_FFI_GetApi.
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()
