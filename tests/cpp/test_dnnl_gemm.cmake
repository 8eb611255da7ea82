# oneDNN is optional: dnnl_gemm.cc must also compile as a build without it
# compiles it (no XFFI_HAVE_DNNL, no oneDNN header), warnings as errors.
add_test(NAME DnnlGemm.CompilesWithoutOneDnn
         COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -Wall -Wextra -Werror
                 -fsyntax-only -I${PROJECT_SOURCE_DIR}/src
                 ${PROJECT_SOURCE_DIR}/src/cpu/dnnl_gemm.cc)
