# oneDNN is optional: the two sources that use it must also compile as a
# build without it compiles them (no XFFI_HAVE_DNNL, no oneDNN header),
# warnings as errors.
foreach(source dnnl_gemm dnnl_convolution)
  add_test(NAME DnnlGemm.CompilesWithoutOneDnn.${source}
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -Wall -Wextra -Werror
                   -fsyntax-only -I${PROJECT_SOURCE_DIR}/src
                   -I${PROJECT_SOURCE_DIR}/include
                   ${PROJECT_SOURCE_DIR}/src/cpu/${source}.cc)
endforeach()
