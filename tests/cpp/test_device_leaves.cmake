target_link_libraries(${unit} PRIVATE xffi_device)
