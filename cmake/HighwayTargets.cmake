# SOFTFLOAT_HWY_DISABLED_TARGETS: Highway targets this build leaves out, by name
# ("SSE4;SSSE3;AVX3"), for the builds that only check (sanitizers, ThreadSanitizer,
# fuzzing, the cross build) and need not compile code the machine cannot run. The names
# are Highway's own (HWY_<NAME> in hwy/detect_targets.h), and their bits are read from
# the installed header rather than restated here, so that a Highway with other bits
# still gets the right value. The result is HWY_DISABLED_TARGETS for every translation
# unit of the project (the dispatch tables must agree); nothing of it is exported.
set(SOFTFLOAT_HWY_DISABLED_TARGETS "" CACHE STRING
    "Highway targets not to compile, by name (e.g. SSE4;SSSE3): development and CI builds only")
# And the AVX-512 targets when the building machine's CPU lacks AVX-512F (read from
# /proc/cpuinfo; x86 Linux, not cross compiling): a checking build cannot run them there,
# so compiling them would only cost minutes. (The Release build compiles every target;
# its tests report the ones the CPU lacks as skipped.)
option(SOFTFLOAT_HWY_ONLY_RUNNABLE "Also leave out AVX3 and AVX3_DL where this CPU lacks AVX-512F" OFF)
if(SOFTFLOAT_HWY_ONLY_RUNNABLE AND NOT CMAKE_CROSSCOMPILING AND EXISTS /proc/cpuinfo
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  file(STRINGS /proc/cpuinfo cpu_flags REGEX "^flags" LIMIT_COUNT 1)
  if(NOT cpu_flags MATCHES " avx512f( |$)")
    message(STATUS "No AVX-512F on this CPU: AVX3 and AVX3_DL left out as well")
    list(APPEND SOFTFLOAT_HWY_DISABLED_TARGETS AVX3 AVX3_DL)
    list(REMOVE_DUPLICATES SOFTFLOAT_HWY_DISABLED_TARGETS)
  endif()
endif()

# softfloat_hwy_target_bits(OUT WHAT NAME...): the bit set of the named Highway targets,
# as hwy/detect_targets.h defines them (HWY_<NAME> (1LL << N)); an unknown name stops the
# configure with WHAT (the setting that named it) and the names the header knows.
function(softfloat_hwy_target_bits out what)
  find_package(hwy REQUIRED)
  get_target_property(hwy_include_dirs hwy::hwy INTERFACE_INCLUDE_DIRECTORIES)
  find_file(SOFTFLOAT_HWY_DETECT_TARGETS hwy/detect_targets.h HINTS ${hwy_include_dirs} NO_CMAKE_FIND_ROOT_PATH)
  if(NOT SOFTFLOAT_HWY_DETECT_TARGETS)
    message(FATAL_ERROR "${what}: hwy/detect_targets.h not found (Highway's headers)")
  endif()
  file(STRINGS "${SOFTFLOAT_HWY_DETECT_TARGETS}" target_lines REGEX "^#define HWY_[A-Z0-9_]+ \\(1LL << [0-9]+\\)")
  set(known_names "")
  foreach(line IN LISTS target_lines)
    string(REGEX MATCH "^#define HWY_([A-Z0-9_]+) \\(1LL << ([0-9]+)\\)" matched "${line}")
    set(hwy_target_bit_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    list(APPEND known_names ${CMAKE_MATCH_1})
  endforeach()
  set(bits 0)
  foreach(name IN LISTS ARGN)
    string(TOUPPER "${name}" name)
    if(NOT DEFINED hwy_target_bit_${name})
      list(JOIN known_names ", " known_text)
      message(FATAL_ERROR "${what}: '${name}' is not a Highway target of ${SOFTFLOAT_HWY_DETECT_TARGETS} (known: ${known_text})")
    endif()
    # Bits reach 62 (HWY_SCALAR): math(EXPR) works in 64-bit signed integers.
    math(EXPR bits "${bits} | (1 << ${hwy_target_bit_${name}})" OUTPUT_FORMAT DECIMAL)
  endforeach()
  set(${out} ${bits} PARENT_SCOPE)
endfunction()

if(SOFTFLOAT_HWY_DISABLED_TARGETS)
  softfloat_hwy_target_bits(disabled_bits SOFTFLOAT_HWY_DISABLED_TARGETS ${SOFTFLOAT_HWY_DISABLED_TARGETS})
  message(STATUS "Highway targets left out: ${SOFTFLOAT_HWY_DISABLED_TARGETS} (HWY_DISABLED_TARGETS=${disabled_bits})")
  add_compile_definitions(HWY_DISABLED_TARGETS=${disabled_bits})
endif()
