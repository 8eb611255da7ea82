# The .npy codec is part of the xffi command; its tests read the program
# corpus, whose .npy files NumPy itself wrote.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/npy.cc)
target_compile_definitions(${unit} PRIVATE
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs")
