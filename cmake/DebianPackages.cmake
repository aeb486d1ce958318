# Debian packages, one per install component: `cpack -G DEB` in the build tree writes
#   libsoftfloat-dev         headers, static libraries, CMake package and softfloat.pc
#   libsoftfloat-verify-dev  the MPFR reference: softfloat::verify, softfloat-verify.pc
#   softfloat                the command and the plot scripts it runs
# installed under /usr. The runtime dependencies of the command come from
# dpkg-shlibdeps (libhwy1, libstdc++6, ...); the rest are named. The Python module is
# no Debian package: Python users install the wheel (`pip install .`, pyproject.toml)
# into their own environment.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME softfloat)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Exact emulation of any floating-point format (FP4, FP8, bf16, fp16, MX, ...)")
set(CPACK_PACKAGE_CONTACT "softfloat developers <dev@softfloat.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # name_version_architecture.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(deb_version ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})

set(CPACK_COMPONENTS_ALL library command)

set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libsoftfloat-dev)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libdevel)
# A static library: a program linking it links Highway (shared) and threads too.
set(CPACK_DEBIAN_LIBRARY_PACKAGE_DEPENDS "libhwy-dev")
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION
    "C++20 library emulating any floating-point format exactly (headers, static libraries, CMake and pkg-config files)")

if(TARGET softfloat_verify)
  list(APPEND CPACK_COMPONENTS_ALL verify)
  set(CPACK_DEBIAN_VERIFY_PACKAGE_NAME libsoftfloat-verify-dev)
  set(CPACK_DEBIAN_VERIFY_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_VERIFY_PACKAGE_DEPENDS "libsoftfloat-dev (= ${deb_version}), libmpfr-dev")
  set(CPACK_COMPONENT_VERIFY_DESCRIPTION
      "The MPFR reference of softfloat (CMake component verify), to check formats of your own bit for bit")
endif()

set(CPACK_DEBIAN_COMMAND_PACKAGE_NAME softfloat)
set(CPACK_DEBIAN_COMMAND_PACKAGE_SHLIBDEPS ON)
# The plot scripts need a Python with matplotlib: SOFTFLOAT_PYTHON names it at run time
# (cli/plot.hpp), python3 on PATH otherwise.
set(CPACK_DEBIAN_COMMAND_PACKAGE_SUGGESTS "python3-matplotlib")
set(CPACK_COMPONENT_COMMAND_DESCRIPTION
    "The softfloat command: encode, decode and tabulate formats, and run the precision experiments with plots")

include(CPack)
