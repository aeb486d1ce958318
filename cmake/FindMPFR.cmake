# Finds GNU MPFR (and GMP, which it needs) through pkg-config and defines MPFR::MPFR.
# Installed with the package so that softfloat::verify users find it the same way.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_MPFR QUIET mpfr)
endif()
find_path(MPFR_INCLUDE_DIR mpfr.h HINTS ${PC_MPFR_INCLUDE_DIRS})
find_library(MPFR_LIBRARY mpfr HINTS ${PC_MPFR_LIBRARY_DIRS})
find_library(GMP_LIBRARY gmp HINTS ${PC_MPFR_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MPFR REQUIRED_VARS MPFR_LIBRARY GMP_LIBRARY MPFR_INCLUDE_DIR)
if(MPFR_FOUND AND NOT TARGET MPFR::MPFR)
  add_library(MPFR::MPFR UNKNOWN IMPORTED)
  set_target_properties(MPFR::MPFR PROPERTIES
    IMPORTED_LOCATION "${MPFR_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${MPFR_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${GMP_LIBRARY}")
endif()
mark_as_advanced(MPFR_INCLUDE_DIR MPFR_LIBRARY GMP_LIBRARY)
