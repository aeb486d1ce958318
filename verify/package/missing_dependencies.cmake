# What a user sees when the build lacks something (`pip install .` shows the same
# configuration output): a message naming the Debian package to install, not CMake's
# own error about a variable.
#   1. no Highway (find_package(hwy) made to fail): "apt-get install libhwy-dev"
#   2. no C++ compiler (PATH without one, CXX unset): "apt-get install g++"
#
#   cmake -DSOURCE_DIR=. -DWORK_DIR=/tmp/missing -P verify/package/missing_dependencies.cmake
cmake_minimum_required(VERSION 3.25)
foreach(required SOURCE_DIR WORK_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "missing_dependencies.cmake: pass -D${required}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")

# configure_expecting_failure(NAME EXPECTED [ENV VAR=VALUE...] [ARGS -D...]): configures the
# source tree as pip's build does and checks that it fails saying EXPECTED.
function(configure_expecting_failure name expected)
  cmake_parse_arguments(ARG "" "" "ENV;ARGS" ${ARGN})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CXX ${ARG_ENV}
                          ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/${name} -DBUILD_TESTING=OFF
                          -DSOFTFLOAT_COMMAND=OFF -DSOFTFLOAT_EXPERIMENTS=OFF -DSOFTFLOAT_EXAMPLES=OFF
                          -DSOFTFLOAT_BENCHMARKS=OFF -DSOFTFLOAT_PYTHON_MODULE=OFF ${ARG_ARGS}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 120)
  if(status EQUAL 0)
    message(FATAL_ERROR "missing dependencies, ${name}: the configuration succeeded:\n${output}")
  endif()
  string(FIND "${output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing dependencies, ${name}: the message does not say '${expected}':\n${output}")
  endif()
  message(STATUS "missing dependencies, ${name}: stops saying '${expected}'")
endfunction()

configure_expecting_failure(no_highway "On Debian: apt-get install libhwy-dev" ARGS -DCMAKE_DISABLE_FIND_PACKAGE_hwy=ON)
configure_expecting_failure(no_compiler "On Debian: apt-get install g++" ENV PATH=${WORK_DIR}/empty)
