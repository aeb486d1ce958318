# Installs the exported targets and a CMake package config, so that outside code does
#   find_package(softfloat CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE softfloat::softfloat)
include(CMakePackageConfigHelpers)

install(EXPORT softfloatTargets NAMESPACE softfloat:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softfloat)
configure_package_config_file(cmake/softfloatConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softfloat)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/softfloatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfigVersion.cmake
  cmake/FindMPFR.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/softfloat)
