# softfloat/matmul_summation.hpp quotes the rule of MatmulSummation::fastest from
# matmul/kernel_rule.cpp: every quoted line (the "//   " lines after "quoted here from",
# up to the next empty comment line) must stand in the source as written, whitespace
# aside, so that the documentation cannot drift from the code.
#   cmake -DSOURCE_DIR=. -P verify/matmul/rule_quote_matches.cmake
file(STRINGS ${SOURCE_DIR}/matmul/include/softfloat/matmul_summation.hpp header)
file(READ ${SOURCE_DIR}/matmul/kernel_rule.cpp code)
string(REGEX REPLACE "[ \t\r\n]+" " " code "${code}")
set(quoting OFF)
set(quoted 0)
foreach(line IN LISTS header)
  if(line MATCHES "quoted here from")
    set(quoting ON)
  elseif(quoting AND line MATCHES "^//[ ]*$" AND quoted GREATER 0)
    break()
  elseif(quoting AND line MATCHES "^//   (.+)$")
    string(STRIP "${CMAKE_MATCH_1}" quote)
    string(REGEX REPLACE "[ \t]+" " " quote "${quote}")
    string(FIND "${code}" "${quote}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "matmul_summation.hpp quotes a line that matmul/kernel_rule.cpp does not have:\n  ${quote}")
    endif()
    math(EXPR quoted "${quoted} + 1")
  endif()
endforeach()
if(quoted LESS 5)
  message(FATAL_ERROR "matmul_summation.hpp: found ${quoted} quoted lines of the rule, expected at least 5")
endif()
message(STATUS "matmul_summation.hpp quotes ${quoted} lines of matmul/kernel_rule.cpp, each as the code has it")
