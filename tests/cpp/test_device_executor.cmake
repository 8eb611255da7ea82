# Programs run on SimDevice against the Host executor: the GPU examples'
# SimDevice handlers for CUDA, the CPU examples (loaded as plugins) for Host,
# the corpus and example programs with their .npy inputs.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/npy.cc
                               ${PROJECT_SOURCE_DIR}/src/cli/compare.cc)
target_link_libraries(${unit} PRIVATE xffi_device do_custom_call_sim
                      rms_norm_sim)
target_compile_definitions(${unit} PRIVATE
  XFFI_CORPUS_DIR="${PROJECT_SOURCE_DIR}/tests/programs"
  XFFI_EXAMPLE_PROGRAMS="${PROJECT_SOURCE_DIR}/examples/programs"
  XFFI_EXAMPLE_RMS_NORM="$<TARGET_FILE:rms_norm>"
  XFFI_EXAMPLE_DO_CUSTOM_CALL="$<TARGET_FILE:do_custom_call>")
add_dependencies(${unit} rms_norm do_custom_call)
# `platform=cuda` loads libxffi_cuda.so beside libxffi_program.
if(TARGET xffi_cuda)
  add_dependencies(${unit} xffi_cuda)
endif()
