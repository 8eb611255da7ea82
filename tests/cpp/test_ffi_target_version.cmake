# Built as if for a newer JAX: the handler reports API 0.5 at the handshake.
target_compile_definitions(${unit} PRIVATE XFFI_TARGET_API_MINOR=5)
