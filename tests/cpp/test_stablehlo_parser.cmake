# The JAX-printed samples the parser test reads.
target_compile_definitions(${unit} PRIVATE
  XFFI_STABLEHLO_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/stablehlo")
