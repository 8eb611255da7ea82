# Runs the xffi executable on the program corpus, the example handler
# libraries and its own test plugins (cli_plugins/); reads its .npy results
# with the command's own codec.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/npy.cc)
foreach(_plugin cli_handlers cli_unresolved cli_gpu)
  set(_target xffi_test_${_plugin})
  add_library(${_target} SHARED
              ${CMAKE_CURRENT_SOURCE_DIR}/cli_plugins/${_plugin}.cc)
  # Like a real handler library: headers only, never libxffi.
  target_link_libraries(${_target} PRIVATE xffi_headers xffi_warnings)
  set_target_properties(${_target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cli_plugins)
  add_dependencies(${unit} ${_target})
endforeach()
target_compile_definitions(${unit} PRIVATE
  XFFI_CLI="$<TARGET_FILE:xffi_cli>"
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs"
  XFFI_MALFORMED_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/malformed"
  XFFI_EXAMPLE_RMS_NORM="$<TARGET_FILE:rms_norm>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL="$<TARGET_FILE:do_custom_call>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL_LEGACY="$<TARGET_FILE:do_custom_call_legacy>"
  XFFI_CLI_HANDLERS="$<TARGET_FILE:xffi_test_cli_handlers>"
  XFFI_CLI_UNRESOLVED="$<TARGET_FILE:xffi_test_cli_unresolved>"
  XFFI_CLI_GPU="$<TARGET_FILE:xffi_test_cli_gpu>")
add_dependencies(${unit} xffi_cli rms_norm do_custom_call
                 do_custom_call_legacy)
