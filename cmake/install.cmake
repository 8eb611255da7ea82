# Installation and the find_package(xffi) package.
#
# Two layouts from one set of rules:
# - `cmake --install`: the usual prefix (lib/, include/, bin/,
#   lib/cmake/xffi);
# - a wheel (scikit-build-core sets SKBUILD; pyproject.toml installs the
#   xffi_python component only): everything inside the `xffi` package, so a
#   pip install is a complete prefix of its own: the libraries beside the
#   extension module, include/ (xffi.include_dir()), bin/xffi (the `xffi`
#   console entry point runs it) and cmake/ (xffi.cmake_dir(), for
#   find_package(xffi) against a pip install, as nanobind does).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  set(XFFI_INSTALL_LIBDIR xffi)
  set(XFFI_INSTALL_INCLUDEDIR xffi/include)
  set(XFFI_INSTALL_BINDIR xffi/bin)
  set(XFFI_CMAKE_DIR xffi/cmake)
  set(XFFI_INSTALL_COMPONENT xffi_python)
else()
  set(XFFI_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
  set(XFFI_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
  set(XFFI_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})
  set(XFFI_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xffi)
  set(XFFI_INSTALL_COMPONENT xffi_devel)
endif()

# Installed binaries find the libraries beside them by relative paths, so
# either tree can move (a wheel always does).
file(RELATIVE_PATH XFFI_BIN_TO_LIB ${CMAKE_INSTALL_PREFIX}/${XFFI_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${XFFI_INSTALL_LIBDIR})
set_target_properties(xffi xffi_device xffi_program PROPERTIES
                      INSTALL_RPATH "$ORIGIN")

set_target_properties(xffi_headers PROPERTIES EXPORT_NAME headers)
set_target_properties(xffi_program PROPERTIES EXPORT_NAME program)
# (COMPONENT before the artifact kinds applies to all of them.)
install(TARGETS xffi_headers xffi xffi_device xffi_program EXPORT xffiTargets
        COMPONENT ${XFFI_INSTALL_COMPONENT}
        LIBRARY DESTINATION ${XFFI_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${XFFI_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${XFFI_INSTALL_BINDIR}
        INCLUDES DESTINATION ${XFFI_INSTALL_INCLUDEDIR})
if(TARGET xffi_cli)
  set_target_properties(xffi_cli PROPERTIES
                        INSTALL_RPATH "$ORIGIN/${XFFI_BIN_TO_LIB}")
  install(TARGETS xffi_cli COMPONENT ${XFFI_INSTALL_COMPONENT}
          RUNTIME DESTINATION ${XFFI_INSTALL_BINDIR})
endif()
# CudaDevice: libxffi_program loads it from its own directory when a program
# asks for platform "cuda" (it links cudart, so a machine without the CUDA
# runtime still loads everything else and gets a clear error for "cuda").
if(TARGET xffi_cuda)
  set_target_properties(xffi_cuda PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS xffi_cuda COMPONENT ${XFFI_INSTALL_COMPONENT}
          LIBRARY DESTINATION ${XFFI_INSTALL_LIBDIR})
endif()
# The code generator: libxffi_program loads it from its own directory.
if(TARGET xffi_codegen)
  set_target_properties(xffi_codegen PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS xffi_codegen COMPONENT ${XFFI_INSTALL_COMPONENT}
          LIBRARY DESTINATION ${XFFI_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xffi
                  ${PROJECT_SOURCE_DIR}/include/xla
        DESTINATION ${XFFI_INSTALL_INCLUDEDIR}
        COMPONENT ${XFFI_INSTALL_COMPONENT})

install(EXPORT xffiTargets NAMESPACE xffi:: DESTINATION ${XFFI_CMAKE_DIR}
        COMPONENT ${XFFI_INSTALL_COMPONENT})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/xffiConfig.cmake.in
  ${PROJECT_BINARY_DIR}/xffiConfig.cmake
  INSTALL_DESTINATION ${XFFI_CMAKE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/xffiConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xffiConfig.cmake
              ${PROJECT_BINARY_DIR}/xffiConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/xffiHelpers.cmake
        DESTINATION ${XFFI_CMAKE_DIR}
        COMPONENT ${XFFI_INSTALL_COMPONENT})
