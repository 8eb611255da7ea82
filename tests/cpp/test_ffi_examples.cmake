# The examples are handler libraries (headers only, no libxffi); this unit
# loads them into the xffi runtime, so it needs their paths and must build
# after them.
foreach(example rms_norm do_custom_call)
  if(TARGET ${example})
    string(TOUPPER ${example} example_upper)
    target_compile_definitions(${unit} PRIVATE
      XFFI_EXAMPLE_${example_upper}="$<TARGET_FILE:${example}>")
    add_dependencies(${unit} ${example})
  endif()
endforeach()
target_link_libraries(${unit} PRIVATE ${CMAKE_DL_LIBS})
