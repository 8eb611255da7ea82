# The corpus programs run through the .npy codec of the xffi command, and
# the custom-call ones need the example handler libraries loaded.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/npy.cc)
target_compile_definitions(${unit} PRIVATE
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs"
  XFFI_EXAMPLE_RMS_NORM="$<TARGET_FILE:rms_norm>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL="$<TARGET_FILE:do_custom_call>")
add_dependencies(${unit} rms_norm do_custom_call)
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/compare.cc)
