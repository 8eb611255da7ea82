# The comparison `xffi run --expect` and the corpus test use.
target_sources(${unit} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli/compare.cc)
