# Runs the xffi executable on the program corpus and the example handler
# libraries; reads its .npy results with the command's own codec.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/npy.cc)
target_compile_definitions(${unit} PRIVATE
  XFFI_CLI="$<TARGET_FILE:xffi_cli>"
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs"
  XFFI_EXAMPLE_RMS_NORM="$<TARGET_FILE:rms_norm>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL="$<TARGET_FILE:do_custom_call>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL_LEGACY="$<TARGET_FILE:do_custom_call_legacy>")
add_dependencies(${unit} xffi_cli rms_norm do_custom_call
                 do_custom_call_legacy)
