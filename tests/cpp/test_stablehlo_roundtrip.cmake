# Reads tests/programs and the parser samples under tests/cpp/data.
target_compile_definitions(${unit} PRIVATE
  XFFI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
