# Included before project(): without a C++ compiler, project() would stop with CMake's
# own error about CMAKE_CXX_COMPILER. A user of `pip install .` gets this instead,
# naming the package that brings one.
if(NOT DEFINED CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  find_program(softfloat_cxx_compiler NAMES c++ g++ clang++)
  if(NOT softfloat_cxx_compiler)
    message(FATAL_ERROR "\nsoftfloat needs a C++20 compiler and found none (c++, g++ or clang++ on PATH).\n"
                        "On Debian: apt-get install g++\n")
  endif()
endif()
