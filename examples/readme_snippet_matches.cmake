# Checks that the API tour in README.md is examples/api_tour.cpp (without the file's
# leading comment), so the snippet users copy is the one the package test compiles.
#   cmake -DSOURCE_DIR=<repo> -P examples/readme_snippet_matches.cmake
file(READ "${SOURCE_DIR}/README.md" readme)
file(READ "${SOURCE_DIR}/examples/api_tour.cpp" example)
string(FIND "${readme}" "## API tour" section)
if(section EQUAL -1)
  message(FATAL_ERROR "README.md has no '## API tour' section")
endif()
string(SUBSTRING "${readme}" ${section} -1 readme)
string(FIND "${readme}" "```cpp\n" start)
string(FIND "${readme}" "\n```\n" end)
if(start EQUAL -1 OR end LESS start)
  message(FATAL_ERROR "README.md: no ```cpp block in the API tour")
endif()
math(EXPR start "${start} + 7")
math(EXPR length "${end} + 1 - ${start}")
string(SUBSTRING "${readme}" ${start} ${length} snippet)
# The example without its leading // comment lines.
string(REGEX REPLACE "^(//[^\n]*\n)+" "" example "${example}")
if(NOT snippet STREQUAL example)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_snippet.cpp" "${snippet}")
  message(FATAL_ERROR "README.md's API tour differs from examples/api_tour.cpp; "
                      "the README's version is in ${CMAKE_CURRENT_BINARY_DIR}/readme_snippet.cpp")
endif()
message(STATUS "README.md's API tour matches examples/api_tour.cpp")
