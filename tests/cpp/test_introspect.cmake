# Describes the exported handlers of a test plugin that test_plugin.cmake
# builds (target names resolve at generate time, so order does not matter).
add_dependencies(${unit} xffi_test_plugin_described_handlers
                 xffi_test_plugin_exported_handlers)
target_compile_definitions(${unit} PRIVATE
  XFFI_TEST_PLUGIN_DESCRIBED_HANDLERS="$<TARGET_FILE:xffi_test_plugin_described_handlers>"
  XFFI_TEST_PLUGIN_EXPORTED_HANDLERS="$<TARGET_FILE:xffi_test_plugin_exported_handlers>")
