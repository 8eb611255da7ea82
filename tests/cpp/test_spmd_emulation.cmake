# The corpus's shard_map programs (tests/programs/sm_*).
target_compile_definitions(${unit} PRIVATE
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs")
