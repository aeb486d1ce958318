# Installs a softfloat build tree into a scratch prefix and uses it from outside:
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix
#   2. the installed softfloatTargets*.cmake must carry no machine flags (-march, -m...)
#      and none of the project's own build flags (-Werror, -fsanitize)
#   3. configure consumer/ with CMAKE_PREFIX_PATH=WORK_DIR/prefix, build it, run its programs:
#      find_package(softfloat) with MPFR made unfindable (softfloat::softfloat and
#      softfloat::experiments; the programs must not link MPFR or GMP), then
#      find_package(softfloat COMPONENTS verify) (softfloat::verify, the MPFR reference)
#   3b. compile a program with `pkg-config --cflags --libs softfloat` and the installed
#      softfloat.pc alone, and run it
#   4. run the installed command, bin/softfloat: an encoding, a demo with --csv, and a
#      plot through the plot scripts installed beside it (PLOT_PYTHON, else the python3 on
#      PATH, with matplotlib, draws it)
#   5. with -DPYTHON=interpreter -DPYTHON_MODULE_DIR=dir (relative to the prefix): import
#      the installed Python module from there and round the issue's double-rounding case
#      (PYTHON_PRELOAD: the sanitizer runtime an instrumented module needs)
#
#   cmake -DBUILD_DIR=build -DSOURCE_DIR=. -DWORK_DIR=/tmp/pkg [-DSANITIZE=ON] [-DCONFIG=Release]
#         [-DCXX_COMPILER=g++] [-DPLOT_PYTHON=.venv/bin/python] -P verify/package/install_and_use.cmake
#
# SANITIZE=ON builds the consumer with the same sanitizers, since the installed static
# libraries of a sanitizer build call into their runtime.
cmake_minimum_required(VERSION 3.25)
foreach(required BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT ${required})
    message(FATAL_ERROR "install_and_use.cmake: pass -D${required}=...")
  endif()
endforeach()
get_filename_component(WORK_DIR "${WORK_DIR}" ABSOLUTE)
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)
get_filename_component(BUILD_DIR "${BUILD_DIR}" ABSOLUTE)
set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(step_prefix "package test")
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)

# 1. Install.
set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run_step("install ${BUILD_DIR} into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${config_args})

# 2. The exported targets carry no flags that would impose our build choices on users.
file(GLOB_RECURSE target_files "${prefix}/softfloatTargets*.cmake")
if(NOT target_files)
  message(FATAL_ERROR "package test: no softfloatTargets*.cmake installed under ${prefix}")
endif()
foreach(file IN LISTS target_files)
  file(READ "${file}" text)
  # A flag stands after a quote, a semicolon or a space: "-march=native;-mavx2".
  foreach(pattern "[\"; ]-march" "[\"; ]-m[a-z0-9]" "-Werror" "-fsanitize")
    if(text MATCHES "${pattern}")
      string(REGEX MATCH "[^\n]*${pattern}[^\n]*" line "${text}")
      message(FATAL_ERROR "package test: ${file} exports a build flag (${pattern}):\n${line}")
    endif()
  endforeach()
endforeach()
list(LENGTH target_files target_file_count)
message(STATUS "package test: ${target_file_count} installed target file(s) carry no -march/-m/-Werror/-fsanitize")

# 3. The outside project.
set(consumer_args -S ${SOURCE_DIR}/verify/package/consumer
    -DCMAKE_PREFIX_PATH=${prefix} -DSOFTFLOAT_EXAMPLES_DIR=${SOURCE_DIR}/examples -DCMAKE_BUILD_TYPE=Release)
set(sanitizer_flags)
if(SANITIZE)
  set(sanitizer_flags -fsanitize=address,undefined -fno-sanitize-recover=all)
  list(JOIN sanitizer_flags " " sanitizer_flag_string)
  list(APPEND consumer_args "-DCMAKE_CXX_FLAGS=${sanitizer_flag_string}" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
if(NOT CXX_COMPILER)
  set(CXX_COMPILER c++)
endif()
list(APPEND consumer_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
# build_consumer(BUILD_DIR PROGRAMS CMAKE_ARGS...): configures, builds and runs them.
function(build_consumer build_dir programs)
  run_step("configure the outside project (${ARGN})" ${CMAKE_COMMAND} ${consumer_args} -B ${build_dir} ${ARGN})
  # It must have found the package just installed, not another copy on the system.
  file(STRINGS "${build_dir}/CMakeCache.txt" found_dir REGEX "^softfloat_DIR:")
  string(FIND "${found_dir}" "${prefix}/" at)
  if(NOT at GREATER -1)
    message(FATAL_ERROR "package test: the outside project found softfloat elsewhere: ${found_dir}")
  endif()
  run_step("build the outside project" ${CMAKE_COMMAND} --build ${build_dir} -j2)
  foreach(program IN LISTS programs)
    run_step("run ${program}" ${build_dir}/${program})
    message(STATUS "${step_output}")
  endforeach()
endfunction()
# Without components, as a user without MPFR: find_package(MPFR) would find nothing
# (and the consumer fails if the package looked for it at all).
set(library_programs api_tour contract_names experiments_check)
build_consumer(${consumer_build} "${library_programs}" -DCMAKE_DISABLE_FIND_PACKAGE_MPFR=ON)
foreach(program IN LISTS library_programs)
  run_step("read the libraries ${program} needs" readelf --dynamic ${consumer_build}/${program})
  if(step_output MATCHES "lib(mpfr|gmp)")
    message(FATAL_ERROR "package test: ${program}, linked with softfloat::softfloat alone, needs MPFR or GMP:\n${step_output}")
  endif()
endforeach()
message(STATUS "package test: find_package(softfloat) without MPFR: the library links, its programs run and need no MPFR/GMP")
build_consumer(${consumer_build}-verify reference_check -DWITH_VERIFY=ON)
message(STATUS "package test: find_package(softfloat COMPONENTS verify) gives softfloat::verify")

# 3b. pkg-config, with only the scratch prefix's .pc files (Highway's own come from the
# system).
build_with_pkg_config(${prefix} softfloat ${sanitizer_flags})

# 4. The installed command.
set(command "${prefix}/bin/softfloat")
if(NOT EXISTS "${command}")
  message(FATAL_ERROR "package test: the command was not installed at ${command}")
endif()
# Runs the installed command; `expected` must appear in what it prints.
# The plots run under PLOT_PYTHON where the build names one (verify/package/CMakeLists.txt).
set(run_command ${command})
if(PLOT_PYTHON)
  set(run_command ${CMAKE_COMMAND} -E env SOFTFLOAT_PYTHON=${PLOT_PYTHON} ${command})
endif()
function(check_command expected)
  run_step("softfloat ${ARGN}" ${run_command} ${ARGN})
  string(FIND "${step_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "package test: 'softfloat ${ARGN}' did not print '${expected}':\n${step_output}")
  endif()
endfunction()
check_command("1 10000001 1010000" encode bf16 -6.5)
check_command("0.10009765625" encode bf16 0.1)
set(csv "${WORK_DIR}/vanishing.csv")
set(plot "${WORK_DIR}/vanishing.svg")
check_command("bf16" demo vanishing-updates --steps 200 --csv ${csv} --plot ${plot})
foreach(file ${csv} ${plot})
  file(SIZE "${file}" size)
  if(size LESS 100)
    message(FATAL_ERROR "package test: ${file} is nearly empty (${size} bytes)")
  endif()
endforeach()
message(STATUS "package test: the installed softfloat command encodes, runs a demo, writes its CSV and plot")

# 5. The installed Python module.
if(PYTHON)
  if(IS_ABSOLUTE "${PYTHON_MODULE_DIR}")
    message(FATAL_ERROR "package test: SOFTFLOAT_PYTHON_INSTALL_DIR=${PYTHON_MODULE_DIR} is absolute, so installing "
                        "into the scratch prefix would write outside it; give a path relative to the prefix")
  endif()
  set(module_dir "${prefix}/${PYTHON_MODULE_DIR}")
  file(GLOB modules "${module_dir}/softfloat/_core*.so")
  if(NOT modules OR NOT EXISTS "${module_dir}/softfloat/__init__.py" OR NOT EXISTS "${module_dir}/softfloat/torch/__init__.py")
    message(FATAL_ERROR "package test: the package softfloat (softfloat/__init__.py, softfloat/_core*.so, "
                        "softfloat/torch/) is not installed in ${module_dir}")
  endif()
  set(python_environment "PYTHONPATH=${module_dir}" PYTHONDONTWRITEBYTECODE=1)
  if(PYTHON_PRELOAD)
    list(APPEND python_environment "LD_PRELOAD=${PYTHON_PRELOAD}" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc)
  endif()
  # import_and_round(WHAT PROGRAM FROM): runs the Python program, which prints the file
  # its module came from and the float64 -431.99999999999994 rounded into E4M3. That
  # value lies below the midpoint -432 of E4M3's -416 and -448: rounded once it is -416
  # (through float32 it would become -432, then -448). FROM is the folder the module must
  # come from. (Lines of the program end in \n, not ';', which would split CMake's argument.)
  function(import_and_round what program from)
    run_step("import the installed ${what}" ${CMAKE_COMMAND} -E env ${python_environment} ${PYTHON} -c "${program}")
    string(FIND "${step_output}" "${from}" from_prefix)
    string(FIND "${step_output}" "-416.0" rounded_once)
    if(from_prefix EQUAL -1 OR rounded_once EQUAL -1)
      message(FATAL_ERROR "package test: the installed ${what} was not the one imported, or rounded wrongly:\n${step_output}")
    endif()
    message(STATUS "package test: the installed ${what} imports from ${from} and rounds -431.99999999999994 to -416 in e4m3")
  endfunction()
  import_and_round("Python module"
    "import numpy, softfloat\nprint(softfloat.__file__)\nprint(softfloat.round_trip(numpy.array([-431.99999999999994]), 'e4m3')[0])"
    "${module_dir}/")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${python_environment} ${PYTHON} -c "import torch"
                  RESULT_VARIABLE torch_missing OUTPUT_QUIET ERROR_QUIET)
  if(torch_missing EQUAL 0 AND NOT PYTHON_PRELOAD)
    import_and_round("softfloat.torch"
      "import torch, softfloat.torch as sft\nprint(sft.__file__)\nprint(sft.quantize(torch.tensor([-431.99999999999994], dtype=torch.float64), 'e4m3').item())"
      "${module_dir}/softfloat/torch/")
  else()
    message(STATUS "package test: softfloat.torch import not checked (torch missing, or the sanitizer build)")
  endif()
endif()
message(STATUS "package test: passed")
