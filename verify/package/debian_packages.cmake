# Builds the Debian packages of a Release build tree and uses them from a scratch root:
#   1. cpack -G DEB (cmake/DebianPackages.cmake) writes them into WORK_DIR/debs
#   2. each has its name, version and dependencies: the library's need no MPFR, the
#      verify package's do; the command depends on Highway's runtime package
#      (dpkg-shlibdeps). There is no Python package: Python users install the wheel.
#   3. each holds its own files: the MPFR reference's header and .pc only in the verify
#      package, the plot scripts beside the command
#   4. dpkg-deb -x all of them into WORK_DIR/root, then from there: the command prints a
#      format table and an encoding and draws a plot through its installed scripts
#      (PLOT_PYTHON, else the python3 on PATH, with matplotlib); a program compiled with
#      `pkg-config --cflags --libs softfloat-verify` (the unpacked .pc files) runs
#
#   cmake -DBUILD_DIR=build -DSOURCE_DIR=. -DWORK_DIR=/tmp/debs -DVERSION=0.1.0 [-DWITH_VERIFY=ON]
#         [-DCXX_COMPILER=g++] [-DPLOT_PYTHON=.venv/bin/python] -P verify/package/debian_packages.cmake
cmake_minimum_required(VERSION 3.25)
foreach(required BUILD_DIR SOURCE_DIR WORK_DIR VERSION)
  if(NOT ${required})
    message(FATAL_ERROR "debian_packages.cmake: pass -D${required}=...")
  endif()
endforeach()
if(NOT CXX_COMPILER)
  set(CXX_COMPILER c++)
endif()
get_filename_component(WORK_DIR "${WORK_DIR}" ABSOLUTE)
get_filename_component(BUILD_DIR "${BUILD_DIR}" ABSOLUTE)
set(debs "${WORK_DIR}/debs")
set(root "${WORK_DIR}/root")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${debs}" "${root}")

set(step_prefix "Debian packages")
include(${CMAKE_CURRENT_LIST_DIR}/steps.cmake)

# 1. Build them.
run_step("cpack -G DEB in ${BUILD_DIR}" cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${debs})

# 2, 3. Fields and contents, package by package; then unpack.
set(deb_version "${VERSION}-1")
set(packages libsoftfloat-dev softfloat)
if(WITH_VERIFY)
  list(APPEND packages libsoftfloat-verify-dev)
endif()
file(GLOB built RELATIVE "${debs}" "${debs}/*.deb")
list(LENGTH packages wanted_count)
list(LENGTH built built_count)
if(NOT built_count EQUAL wanted_count)
  message(FATAL_ERROR "Debian packages: expected ${wanted_count} packages (${packages}), cpack wrote: ${built}")
endif()
foreach(package IN LISTS packages)
  file(GLOB deb "${debs}/${package}_${deb_version}_*.deb")
  if(NOT deb)
    message(FATAL_ERROR "Debian packages: no ${package}_${deb_version}_<arch>.deb among ${built}")
  endif()
  run_step("fields of ${package}" dpkg-deb --field ${deb} Package Version Depends)
  set(fields_${package} "${step_output}")
  expect("${step_output}" "${package}'s fields" CONTAINS "Package: ${package}\n" "Version: ${deb_version}\n")
  run_step("contents of ${package}" dpkg-deb --contents ${deb})
  set(contents_${package} "${step_output}")
  run_step("unpack ${package}" dpkg-deb --extract ${deb} ${root})
endforeach()

expect("${fields_libsoftfloat-dev}" "libsoftfloat-dev's fields" CONTAINS "libhwy-dev" LACKS "mpfr")
expect("${contents_libsoftfloat-dev}" "libsoftfloat-dev"
       CONTAINS "./usr/include/softfloat/softfloat.hpp" "/libsoftfloat.a" "/libsoftfloat_experiments.a"
                # headers that live beside their feature's sources (block_formats/, cost/, experiments/NAME/)
                "./usr/include/softfloat/mx.hpp" "./usr/include/softfloat/nvfp4.hpp" "./usr/include/softfloat/mx_matmul.hpp"
                "./usr/include/softfloat/cost.hpp" "./usr/include/softfloat/cost/roofline.hpp"
                "./usr/include/softfloat/experiments/accumulation.hpp" "./usr/include/softfloat/experiments/tradeoffs.hpp"
                "/pkgconfig/softfloat.pc" "/cmake/softfloat/softfloatConfig.cmake" "/cmake/softfloat/softfloatTargets.cmake"
       LACKS "mpfr_reference" "softfloat-verify" "FindMPFR" "VerifyTargets" "/bin/" "dist-packages")
expect("${fields_softfloat}" "softfloat's fields" CONTAINS "libhwy1" "libstdc++6" LACKS "mpfr")
expect("${contents_softfloat}" "softfloat" CONTAINS "./usr/bin/softfloat" "./usr/share/softfloat/scripts/plot_common.py"
       "./usr/share/softfloat/scripts/plot_accumulation.py" "./usr/share/softfloat/scripts/plot_decode_step.py"
       "./usr/share/softfloat/scripts/plot_gradient_underflow.py"
       "./usr/share/softfloat/scripts/plot_tradeoffs.py" "./usr/share/softfloat/scripts/plot_vanishing_updates.py"
       LACKS "/include/" "\\.a\n")
if(WITH_VERIFY)
  expect("${fields_libsoftfloat-verify-dev}" "libsoftfloat-verify-dev's fields"
         CONTAINS "libsoftfloat-dev (= ${deb_version})" "libmpfr-dev")
  expect("${contents_libsoftfloat-verify-dev}" "libsoftfloat-verify-dev"
         CONTAINS "./usr/include/softfloat/verify/mpfr_reference.hpp" "/libsoftfloat_verify.a" "/pkgconfig/softfloat-verify.pc"
                  "/cmake/softfloat/FindMPFR.cmake" "/cmake/softfloat/softfloatVerifyTargets.cmake"
         LACKS "softfloat.hpp" "/libsoftfloat.a")
endif()
message(STATUS "Debian packages: ${packages} have their names, version ${deb_version}, dependencies and files")

# 4. Use them from the unpacked root. The command: a table, an encoding, a plot drawn by
# the scripts it finds beside itself (/usr/share/softfloat/scripts of the root).
set(command "${root}/usr/bin/softfloat")
run_step("softfloat formats e4m3" ${command} formats e4m3)
expect("${step_output}" "'softfloat formats e4m3'" CONTAINS "e4m3" " 448 " "2^-6" "2^-9")
run_step("softfloat encode bf16 -6.5" ${command} encode bf16 -6.5)
expect("${step_output}" "'softfloat encode bf16 -6.5'" CONTAINS "1 10000001 1010000")
set(plot_environment)
if(PLOT_PYTHON)  # else the python3 on PATH
  set(plot_environment ${CMAKE_COMMAND} -E env SOFTFLOAT_PYTHON=${PLOT_PYTHON})
endif()
run_step("softfloat demo vanishing-updates --plot" ${plot_environment} ${command} demo vanishing-updates --steps 100 --plot ${WORK_DIR}/plot.svg)
file(SIZE "${WORK_DIR}/plot.svg" plot_size)
if(plot_size LESS 1000)
  message(FATAL_ERROR "Debian packages: the unpacked command's plot is nearly empty (${plot_size} bytes)")
endif()
message(STATUS "Debian packages: the unpacked command prints a table and an encoding and plots through its scripts")


# pkg-config through the unpacked .pc files: they locate the root from where they lie.
if(WITH_VERIFY)
  build_with_pkg_config(${root}/usr softfloat-verify)
else()
  build_with_pkg_config(${root}/usr softfloat)
endif()
message(STATUS "Debian packages: passed")
