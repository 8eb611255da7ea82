# Generated kernels exist only where the code generator module is built
# (LLVM 16 found); without it the tests skip.
if(TARGET xffi_codegen)
  target_compile_definitions(${unit} PRIVATE XFFI_HAVE_CODEGEN=1)
endif()
