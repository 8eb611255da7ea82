# Builds the test plugins test_plugin.cc loads, and tells it where they are.
set(_xffi_test_plugins static_handlers.cc exported_handlers.cc unresolved.cc
    conflicting_legacy.cc described_handlers.cc c_legacy.c)
foreach(_source ${_xffi_test_plugins})
  get_filename_component(_plugin ${_source} NAME_WE)
  set(_target xffi_test_plugin_${_plugin})
  add_library(${_target} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/plugins/${_source})
  # Like a real handler library: headers only, never libxffi.
  target_link_libraries(${_target} PRIVATE xffi_headers xffi_warnings)
  set_target_properties(${_target} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugins)
  add_dependencies(${unit} ${_target})
  string(TOUPPER ${_plugin} _upper)
  target_compile_definitions(${unit} PRIVATE
    XFFI_TEST_PLUGIN_${_upper}="$<TARGET_FILE:${_target}>")
endforeach()
target_compile_definitions(${unit} PRIVATE
  XFFI_TEST_PLUGIN_DIR="${CMAKE_CURRENT_BINARY_DIR}/plugins")
