# The reader is tested on libxffi itself, as a real library.
target_compile_definitions(${unit} PRIVATE
  XFFI_TEST_LIBXFFI="$<TARGET_FILE:xffi>")
