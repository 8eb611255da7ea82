# Device runs under limits: SimDevice directly (bytes in use, its memory).
target_link_libraries(${unit} PRIVATE xffi_device)
