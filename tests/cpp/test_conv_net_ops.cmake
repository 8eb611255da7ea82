# hlo_test_util.h (DiffModules) reads the samples from the source tree.
target_compile_definitions(${unit} PRIVATE
  XFFI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
