# Builds the test plugins test_plugin.cc loads, and tells it where they are.
set(_xffi_test_plugins static_handlers exported_handlers unresolved
    conflicting_legacy described_handlers)
foreach(_plugin ${_xffi_test_plugins})
  set(_target xffi_test_plugin_${_plugin})
  add_library(${_target} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/plugins/${_plugin}.cc)
  # Like a real handler library: headers only, never libxffi.
  target_link_libraries(${_target} PRIVATE xffi_headers xffi_warnings)
  set_target_properties(${_target} PROPERTIES
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
