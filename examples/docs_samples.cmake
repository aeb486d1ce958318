# The C++ samples of the documentation, compiled against the library and run (tests
# docs_sample_<page>_<n>, labels "docs" and "examples"; target docs_samples builds them).
#
# At configuration every ```cpp block of README.md and docs/**/*.md is read, and the line
# right before its fence says what it is:
#   <!-- sample: compile -->         a fragment: its #include lines go to the top of a file
#                                    that includes <softfloat/softfloat.hpp> and the
#                                    standard headers the samples use, the rest becomes
#                                    the body of main() (assert is live: NDEBUG undefined);
#   <!-- sample: examples/FILE -->   the block is that file, compiled as its example (and
#                                    compared with it by readme_snippet_matches.cmake);
#   <!-- sample: skip (reason) -->   left out.
# A block without a marker is compiled as it stands if it holds `int main(`, and is
# otherwise prose (a fragment that names values it does not declare). Editing a page
# configures again, which rewrites only the samples that changed.
if(NOT BUILD_TESTING)
  return()  # they are tests: a user's build (preset package, pip) does not compile them
endif()
file(GLOB_RECURSE docs_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
list(PREPEND docs_pages ${PROJECT_SOURCE_DIR}/README.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${docs_pages})

set(docs_sample_targets)
foreach(page IN LISTS docs_pages)
  file(READ "${page}" text)
  file(RELATIVE_PATH page_name "${PROJECT_SOURCE_DIR}" "${page}")
  string(REGEX REPLACE "\\.md$" "" stem "${page_name}")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" stem "${stem}")
  set(index 0)
  while(TRUE)
    string(FIND "${text}" "\n```cpp\n" start)
    if(start EQUAL -1)
      break()
    endif()
    math(EXPR index "${index} + 1")
    string(SUBSTRING "${text}" 0 ${start} before)
    math(EXPR start "${start} + 8")
    string(SUBSTRING "${text}" ${start} -1 text)
    string(FIND "${text}" "\n```" end)
    if(end EQUAL -1)
      message(FATAL_ERROR "${page_name}: C++ block ${index} is not closed")
    endif()
    math(EXPR end "${end} + 1")
    string(SUBSTRING "${text}" 0 ${end} block)
    string(SUBSTRING "${text}" ${end} -1 text)

    set(mode "")
    if(before MATCHES "<!-- sample: ([^\n]*) -->$")
      set(mode "${CMAKE_MATCH_1}")
    endif()
    if(mode MATCHES "^(skip|examples/)")
      continue()
    endif()
    string(FIND "${block}" "int main(" main_at)
    if(mode STREQUAL "compile" AND main_at EQUAL -1)
      string(REGEX MATCHALL "#include [^\n]*\n" includes "${block}")
      string(REPLACE ";" "" includes "${includes}")
      string(REGEX REPLACE "#include [^\n]*\n" "" statements "${block}")
      set(source "// ${page_name}, C++ block ${index}, as the body of main().
#undef NDEBUG
${includes}#include <softfloat/softfloat.hpp>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
${statements}  return 0;
}
")
    elseif(NOT main_at EQUAL -1)
      set(source "// ${page_name}, C++ block ${index}.\n${block}")
    elseif(mode STREQUAL "")
      continue()
    else()
      message(FATAL_ERROR "${page_name}: C++ block ${index} has an unknown marker '<!-- sample: ${mode} -->'")
    endif()

    set(name docs_sample_${stem}_${index})
    set(path ${CMAKE_CURRENT_BINARY_DIR}/docs_samples/${name}.cpp)
    set(old "")
    if(EXISTS ${path})
      file(READ ${path} old)
    endif()
    if(NOT old STREQUAL source)
      file(WRITE ${path} "${source}")
    endif()
    add_executable(${name} ${path})
    target_link_libraries(${name} PRIVATE softfloat)
    if(TARGET softfloat_experiments)
      target_link_libraries(${name} PRIVATE softfloat_experiments)
    endif()
    list(APPEND docs_sample_targets ${name})
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "docs;examples")
  endwhile()
endforeach()
# A guard against the reading above silently finding nothing.
list(LENGTH docs_sample_targets sample_count)
if(sample_count LESS 5)
  message(FATAL_ERROR "examples/docs_samples.cmake found ${sample_count} C++ samples in README.md and docs/; "
                      "expected at least 5")
endif()
add_custom_target(docs_samples DEPENDS ${docs_sample_targets})
