# Convolution and fft programs on SimDevice against the Host executor.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/compare.cc)
target_link_libraries(${unit} PRIVATE xffi_device)
