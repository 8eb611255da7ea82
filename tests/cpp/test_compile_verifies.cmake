# The malformed programs live in tests/cpp/data/malformed.
target_compile_definitions(${unit} PRIVATE
  XFFI_MALFORMED_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/malformed")
