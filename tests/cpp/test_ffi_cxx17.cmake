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

# GCC is the project's compiler, but users also build handlers with clang,
# whose warnings differ: a user-style handler library must compile cleanly
# under clang's -Wall -Wextra -Werror too.
find_program(XFFI_CLANGXX NAMES clang++ clang++-16 clang++-14)
if(XFFI_CLANGXX)
  add_test(NAME FfiCxx17.ClangStrictUserHandlers
           COMMAND ${XFFI_CLANGXX} -std=c++17 -Wall -Wextra -Werror
                   -fsyntax-only -I${PROJECT_SOURCE_DIR}/include
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/clang_strict_user_handlers.cc)
endif()
