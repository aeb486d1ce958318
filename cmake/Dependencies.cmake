# The library's one outside dependency, Highway (SIMD targets and runtime dispatch),
# found once for every folder that compiles kernels. Debian ships it as libhwy-dev
# (1.0.3 in Debian 12, 1.2 in Debian 13), a shared library (libhwy.so.1).
find_package(hwy QUIET)
if(NOT hwy_FOUND)
  message(FATAL_ERROR "\nsoftfloat needs Highway (its CMake package 'hwy') and did not find it.\n"
                      "On Debian: apt-get install libhwy-dev\n"
                      "(elsewhere: install Highway 1.0.3 or newer and set CMAKE_PREFIX_PATH to it)\n")
endif()
