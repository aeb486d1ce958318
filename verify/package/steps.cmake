# The steps of the package tests' scripts (install_and_use.cmake, debian_packages.cmake).
# Messages start with ${step_prefix}.

# run_step(DESCRIPTION COMMAND...): runs the command in WORK_DIR; on failure prints its
# output and stops with the step's name. Its output is left in step_output.
function(run_step description)
  message(STATUS "${step_prefix}: ${description}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output
                  WORKING_DIRECTORY "${WORK_DIR}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${step_prefix}: ${description} failed (${result}):\n${output}")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

# expect(TEXT DESCRIPTION [CONTAINS string...] [LACKS regex...]): stops unless TEXT holds
# every string and matches none of the regular expressions.
function(expect text description)
  cmake_parse_arguments(ARG "" "" "CONTAINS;LACKS" ${ARGN})
  foreach(wanted IN LISTS ARG_CONTAINS)
    string(FIND "${text}" "${wanted}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${step_prefix}: ${description} lacks '${wanted}':\n${text}")
    endif()
  endforeach()
  foreach(unwanted IN LISTS ARG_LACKS)
    if(text MATCHES "${unwanted}")
      message(FATAL_ERROR "${step_prefix}: ${description} matches '${unwanted}':\n${text}")
    endif()
  endforeach()
endfunction()

# build_with_pkg_config(INSTALL_ROOT MODULE [COMPILER_FLAGS...]): compiles
# pkg_config_check.cpp (SOURCE_DIR) with CXX_COMPILER and nothing but the flags of
# `pkg-config --cflags --libs MODULE` from the .pc files under INSTALL_ROOT (which they
# must point into), then runs it. MODULE softfloat must name neither MPFR nor GMP;
# softfloat-verify builds the program's MPFR part too (-DWITH_VERIFY).
function(build_with_pkg_config install_root module)
  file(GLOB_RECURSE pc_file "${install_root}/*/softfloat.pc")
  if(NOT pc_file)
    message(FATAL_ERROR "${step_prefix}: no softfloat.pc installed under ${install_root}")
  endif()
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  run_step("pkg-config --cflags --libs ${module}"
           ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} pkg-config --cflags --libs ${module})
  string(STRIP "${step_output}" flags)
  set(compiler_flags ${ARGN})
  if(module STREQUAL "softfloat-verify")
    list(APPEND compiler_flags -DWITH_VERIFY)
    expect("${flags}" "${module}'s flags" CONTAINS "${install_root}/" "-lmpfr")
  else()
    expect("${flags}" "${module}'s flags" CONTAINS "${install_root}/" LACKS "mpfr|gmp")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run_step("compile pkg_config_check.cpp with ${module}'s flags"
           ${CXX_COMPILER} -std=c++20 -O1 ${compiler_flags} ${SOURCE_DIR}/verify/package/pkg_config_check.cpp
           -o ${WORK_DIR}/pkg_config_check ${flags})
  run_step("run pkg_config_check" ${WORK_DIR}/pkg_config_check)
  expect("${step_output}" "pkg_config_check" CONTAINS "passed")
  message(STATUS "${step_prefix}: a program built with nothing but pkg-config's ${module} flags runs")
endfunction()
