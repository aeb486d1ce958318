# Checks that the C++ example of README.md is examples/api_tour.cpp (without the file's
# leading comment), so the program users copy is the one the package test compiles. The
# example is the ```cpp block right after the line <!-- sample: examples/api_tour.cpp -->.
#   cmake -DSOURCE_DIR=<repo> -P examples/readme_snippet_matches.cmake
file(READ "${SOURCE_DIR}/README.md" readme)
file(READ "${SOURCE_DIR}/examples/api_tour.cpp" example)
set(marker "<!-- sample: examples/api_tour.cpp -->\n```cpp\n")
string(FIND "${readme}" "${marker}" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md has no ```cpp block after '<!-- sample: examples/api_tour.cpp -->'")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR start "${start} + ${marker_length}")
string(SUBSTRING "${readme}" ${start} -1 readme)
string(FIND "${readme}" "\n```\n" end)
if(end EQUAL -1)
  message(FATAL_ERROR "README.md: the C++ example's block is not closed")
endif()
math(EXPR length "${end} + 1")
string(SUBSTRING "${readme}" 0 ${length} snippet)
# The example without its leading // comment lines.
string(REGEX REPLACE "^(//[^\n]*\n)+" "" example "${example}")
if(NOT snippet STREQUAL example)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_snippet.cpp" "${snippet}")
  message(FATAL_ERROR "README.md's C++ example differs from examples/api_tour.cpp; "
                      "the README's version is in ${CMAKE_CURRENT_BINARY_DIR}/readme_snippet.cpp")
endif()
message(STATUS "README.md's C++ example matches examples/api_tour.cpp")
