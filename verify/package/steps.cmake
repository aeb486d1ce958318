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
