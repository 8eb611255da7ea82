# The pool lives in the Python module's sources (python/src) but needs no
# Python: its test builds it in directly.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/python/src/result_memory_pool.cc)
target_include_directories(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/python/src)
