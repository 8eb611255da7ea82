# The HLO samples live in tests/cpp/data/hlo.
target_compile_definitions(${unit} PRIVATE
  XFFI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
