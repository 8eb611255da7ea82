# Public headers are C++17: this unit is built as C++17 (the rest of the
# project is C++20), and every public header also gets a translation unit of
# its own, so each one is checked to compile alone.
set_target_properties(${unit} PROPERTIES CXX_STANDARD 17
                                         CXX_STANDARD_REQUIRED ON
                                         CXX_EXTENSIONS OFF)
file(GLOB_RECURSE xffi_public_headers CONFIGURE_DEPENDS
     RELATIVE ${PROJECT_SOURCE_DIR}/include
     ${PROJECT_SOURCE_DIR}/include/xffi/*.h)
foreach(header ${xffi_public_headers})
  string(MAKE_C_IDENTIFIER ${header} header_id)
  set(header_tu ${CMAKE_CURRENT_BINARY_DIR}/${unit}_headers/${header_id}.cc)
  file(CONFIGURE OUTPUT ${header_tu} CONTENT "#include \"${header}\"\n")
  target_sources(${unit} PRIVATE ${header_tu})
endforeach()
