# Installation and the find_package(xffi) package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(xffi_headers PROPERTIES EXPORT_NAME headers)
set_target_properties(xffi_program PROPERTIES EXPORT_NAME program)
install(TARGETS xffi_headers xffi xffi_program EXPORT xffiTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET xffi_cli)
  install(TARGETS xffi_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xffi
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(XFFI_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xffi)
install(EXPORT xffiTargets NAMESPACE xffi:: DESTINATION ${XFFI_CMAKE_DIR})
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
        DESTINATION ${XFFI_CMAKE_DIR})
