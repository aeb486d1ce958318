# Installs the exported targets, a CMake package config and pkg-config files, so that
# outside code does
#   find_package(softfloat CONFIG REQUIRED)                      # softfloat::softfloat, softfloat::experiments
#   find_package(softfloat CONFIG REQUIRED COMPONENTS verify)    # and softfloat::verify (MPFR)
# or `pkg-config --cflags --libs softfloat` (softfloat-verify for the MPFR reference).
# Everything here belongs to the install component `library`, the verify parts to `verify`
# (cmake/DebianPackages.cmake makes a Debian package of each component).
include(CMakePackageConfigHelpers)

set(cmake_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/softfloat)
install(EXPORT softfloatTargets NAMESPACE softfloat:: DESTINATION ${cmake_package_dir} COMPONENT library)
configure_package_config_file(cmake/softfloatConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfig.cmake
  INSTALL_DESTINATION ${cmake_package_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/softfloatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/softfloatConfigVersion.cmake
  DESTINATION ${cmake_package_dir} COMPONENT library)

# The .pc files find the prefix from where they lie (${pcfiledir}), so that an install
# moved elsewhere (a scratch prefix, a package unpacked into another root) still works.
set(pkg_config_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH pc_prefix_from_pcfiledir /prefix/${pkg_config_dir} /prefix)
string(REGEX REPLACE "/$" "" pc_prefix_from_pcfiledir "${pc_prefix_from_pcfiledir}")
configure_file(cmake/softfloat.pc.in ${CMAKE_CURRENT_BINARY_DIR}/softfloat.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/softfloat.pc DESTINATION ${pkg_config_dir} COMPONENT library)

# The component verify: only where the MPFR reference was built (reference/).
if(TARGET softfloat_verify)
  install(EXPORT softfloatVerifyTargets NAMESPACE softfloat:: DESTINATION ${cmake_package_dir} COMPONENT verify)
  install(FILES cmake/FindMPFR.cmake DESTINATION ${cmake_package_dir} COMPONENT verify)
  configure_file(cmake/softfloat-verify.pc.in ${CMAKE_CURRENT_BINARY_DIR}/softfloat-verify.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/softfloat-verify.pc DESTINATION ${pkg_config_dir} COMPONENT verify)
endif()
