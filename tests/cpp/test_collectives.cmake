# hlo_test_util.h names the HLO samples under the source tree.
target_compile_definitions(${unit} PRIVATE
  XFFI_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
