# Options for the project's own targets only: -Wall -Wextra (-Werror) and the optional
# sanitizers. They live on an internal interface target that the exported targets
# never carry, so users of the installed package get no flags from us.
option(SOFTFLOAT_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
# ThreadSanitizer: its own build (build-tsan/ in scripts/dev.sh), for the tests labelled
# "threads". It cannot share a process with AddressSanitizer: both take over the
# allocator and the shadow memory.
option(SOFTFLOAT_TSAN "Build with ThreadSanitizer (for ctest -L threads)" OFF)
if(SOFTFLOAT_SANITIZE AND SOFTFLOAT_TSAN)
  message(FATAL_ERROR "SOFTFLOAT_SANITIZE and SOFTFLOAT_TSAN cannot both be ON: ThreadSanitizer does not combine "
                      "with AddressSanitizer. Configure a separate build directory for each.")
endif()
# The libFuzzer targets of verify/fuzz/: a build of its own with clang (libFuzzer is
# clang's), ASan and UBSan. The project's code gets libFuzzer's coverage instrumentation
# (fuzzer-no-link); only the fuzz executables link libFuzzer's main.
option(SOFTFLOAT_FUZZ "Build the libFuzzer targets (clang, ASan, UBSan)" OFF)
if(SOFTFLOAT_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SOFTFLOAT_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
endif()
if(SOFTFLOAT_FUZZ AND SOFTFLOAT_TSAN)
  message(FATAL_ERROR "SOFTFLOAT_FUZZ and SOFTFLOAT_TSAN cannot both be ON: the fuzz build uses AddressSanitizer.")
endif()

# -Werror holds the project's own builds to no warnings; a user's build (pip's, with
# another compiler version that may warn where ours does not) turns it off.
option(SOFTFLOAT_WERROR "Treat warnings in the project's own code as errors" ON)

add_library(softfloat_project_options INTERFACE)
target_compile_options(softfloat_project_options INTERFACE -Wall -Wextra $<$<BOOL:${SOFTFLOAT_WERROR}>:-Werror>)
# Every rounding the code writes happens: a * b + c is two roundings, never one fused
# multiply-add the compiler chose. GCC contracts by default in C++ even under -std=c++20
# (clang within a statement), and wherever FMA is in the baseline (aarch64, an x86
# function compiled for AVX2) it would. Worked value: fl(fl(a * s) + c) with
# a = s = 1 + 2^-23 and c = -(1 + 2^-22) is +0, the fused form 2^-46
# (verify/matmul/semantics_test.cpp, EpilogueRoundsProductsThenSum, under qemu).
target_compile_options(softfloat_project_options INTERFACE -ffp-contract=off)
if(SOFTFLOAT_SANITIZE OR SOFTFLOAT_FUZZ)
  set(sanitizer_flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
elseif(SOFTFLOAT_TSAN)
  set(sanitizer_flags -fsanitize=thread -fno-omit-frame-pointer)
endif()
if(sanitizer_flags)
  target_compile_options(softfloat_project_options INTERFACE ${sanitizer_flags})
  target_link_options(softfloat_project_options INTERFACE ${sanitizer_flags})
endif()
if(SOFTFLOAT_FUZZ)
  target_compile_options(softfloat_project_options INTERFACE -fsanitize=fuzzer-no-link)
endif()

# Links the project options privately (build-only: not part of the export set).
function(softfloat_use_project_options target)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:softfloat_project_options>)
endfunction()

# The checking builds (sanitizers) compile a target's own code with less optimisation
# than the library's: the tests, the command's parts and the bindings are mostly glue
# and gtest templates whose optimisation costs more compile time under the sanitizers
# (-O1 against -Og: about 16 s against 9 s a test file) than it saves at run time. The
# library takes -Og too, all but one file (below). Release builds are untouched.
function(softfloat_checking_optimisation target level)
  if(SOFTFLOAT_SANITIZE OR SOFTFLOAT_TSAN)
    target_compile_options(${target} PRIVATE ${level})
  endif()
endfunction()

# softfloat_checking_source_optimisation(TARGET SOURCE LEVEL): one source file of TARGET
# at LEVEL in the checking builds, after the target's own level (GCC takes the last -O).
# The library is compiled at -Og there but for the array conversions' dispatch, whose
# tests run the kernels over millions of values on every target and take twice as long
# from code compiled at -Og (softfloat/CMakeLists.txt has the measurements).
function(softfloat_checking_source_optimisation target source level)
  if(SOFTFLOAT_SANITIZE OR SOFTFLOAT_TSAN)
    set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS ${level})
  endif()
endfunction()
