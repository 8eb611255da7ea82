# The reader is tested on real libraries: libxffi, and a test plugin linked
# with each hash table style (the section-less fallback reads them).
add_library(xffi_test_elf_sysv_hash SHARED
            ${CMAKE_CURRENT_SOURCE_DIR}/plugins/exported_handlers.cc)
target_link_libraries(xffi_test_elf_sysv_hash PRIVATE xffi_headers)
target_link_options(xffi_test_elf_sysv_hash PRIVATE
                    "LINKER:--hash-style=sysv")
set_target_properties(xffi_test_elf_sysv_hash PROPERTIES
  CXX_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugins)
add_library(xffi_test_elf_gnu_hash SHARED
            ${CMAKE_CURRENT_SOURCE_DIR}/plugins/exported_handlers.cc)
target_link_libraries(xffi_test_elf_gnu_hash PRIVATE xffi_headers)
target_link_options(xffi_test_elf_gnu_hash PRIVATE "LINKER:--hash-style=gnu")
set_target_properties(xffi_test_elf_gnu_hash PROPERTIES
  CXX_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugins)
add_dependencies(${unit} xffi_test_elf_sysv_hash xffi_test_elf_gnu_hash)
target_compile_definitions(${unit} PRIVATE
  XFFI_TEST_LIBXFFI="$<TARGET_FILE:xffi>"
  XFFI_TEST_ELF_SYSV_HASH="$<TARGET_FILE:xffi_test_elf_sysv_hash>"
  XFFI_TEST_ELF_GNU_HASH="$<TARGET_FILE:xffi_test_elf_gnu_hash>")
