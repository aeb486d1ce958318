#!/usr/bin/env bash
# Developer entry points on a fresh Debian 12 or 13 machine (see docs/development.md).
#
#   bash scripts/dev.sh demo   install the missing Debian packages (scripts/debian_packages.sh
#                              chooses them by what apt offers), make the project's virtual
#                              environment .venv from the python3 on PATH with the Python
#                              tools at pinned versions (python/requirements/), configure a
#                              Release build in build/, build the softfloat command and run
#                              the main demonstration, a short tour of it (scripts/tour.sh:
#                              formats, encodings, the precision experiments, figures in
#                              build/tour/)
#   bash scripts/dev.sh test   the same install and build, then everything CI checks:
#                              1. ctest in build/ (all labels, the exhaustive sweeps too,
#                                 but not rerun_installed: the Python test files that 7
#                                 runs against the installed package)
#                              2. a sanitizer build in build-sanitize/ (ASan + UBSan) and
#                                 ctest -LE exhaustive there
#                              3. a ThreadSanitizer build in build-tsan/ of only the tests
#                                 labelled threads, and ctest -L threads there (one phase,
#                                 the build included, a few minutes)
#                              4. the package configuration: the project configures without
#                                 tests, GTest, Google Benchmark and MPFR (build-package/).
#                                 (The install itself is ctest's package_install_and_use, run
#                                 in 1 and 2: build/ installed into a scratch prefix, used by
#                                 outside projects through find_package(softfloat), with and
#                                 without COMPONENTS verify, and pkg-config, and its softfloat
#                                 command run; and package_debian, run in 1: the .debs of
#                                 build/ built by cpack, unpacked and used.)
#                              5. the aarch64 cross build in build-aarch64/ and the unit,
#                                 conversion, SIMD, matmul and block-format suites under
#                                 qemu-user (one phase, the build included, minutes)
#                              6. the fuzz targets (verify/fuzz/), built with clang, ASan and
#                                 UBSan in build-fuzz/, each run for 30 s from a fixed seed
#                              7. the Python package as a user installs it: `pip install .`
#                                 into a fresh virtual environment (build-pip/), the Python
#                                 tests run against it from outside the checkout; the wheel
#                                 (`pip wheel .`), repaired by auditwheel, in a second fresh
#                                 environment with NumPy 1.26 and Debian's Highway hidden
#                              5 runs in the background beside 7 (run_beside below), its
#                              output printed when it ends.
#                              Prints the time of each phase and a summary; exits non-zero
#                              if any phase failed.
#   bash scripts/dev.sh fuzz [SECONDS [SEED]]   phase 6 alone, SECONDS per target (default
#                              30) from SEED (default: the fixed seed CI uses; "random" for a
#                              fresh one per target, as a longer campaign wants)
#   bash scripts/dev.sh aarch64          phase 5 alone (with the install)
#   bash scripts/dev.sh pip              phase 7 alone (with the install)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root=$(pwd)
jobs=$(nproc)

# The Debian packages (debian_common_packages, debian_arm64_packages, and the function
# choosing the rest by release).
source scripts/debian_packages.sh

phase_names=()
phase_results=()
phase_seconds=()

# run_phase NAME COMMAND...: runs the command, records pass/fail and the elapsed time.
run_phase() {
  local name=$1
  shift
  echo
  echo "=== ${name} ==="
  local start=$SECONDS
  "$@"
  local status=$?
  record_phase "$name" "$status" $((SECONDS - start))
  return $status
}

# record_phase NAME STATUS SECONDS: the phase's line in the summary, and its last line.
record_phase() {
  local name=$1 status=$2 elapsed=$3
  phase_names+=("$name")
  phase_seconds+=("$elapsed")
  if [[ $status -eq 0 ]]; then
    phase_results+=("passed")
    echo "=== ${name}: passed in ${elapsed}s ==="
  else
    phase_results+=("FAILED (exit ${status})")
    echo "=== ${name}: FAILED (exit ${status}) after ${elapsed}s ==="
  fi
}

skip_phase() {
  phase_names+=("$1")
  phase_results+=("skipped ($2)")
  phase_seconds+=("-")
  echo
  echo "=== $1: skipped ($2) ==="
}

print_summary() {
  echo
  echo "=== Summary ==="
  local i failed=0
  for i in "${!phase_names[@]}"; do
    local seconds=${phase_seconds[$i]}
    [[ $seconds != "-" ]] && seconds="${seconds}s"
    printf '  %-42s %-24s %s\n' "${phase_names[$i]}" "${phase_results[$i]}" "$seconds"
    [[ ${phase_results[$i]} == passed ]] || failed=1
  done
  if [[ $failed -eq 0 ]]; then
    echo "  All phases passed (total ${SECONDS}s)."
  else
    echo "  Some phases did not pass (total ${SECONDS}s)."
  fi
  return $failed
}

# Installs the Debian packages that are missing: those choose_debian_packages names for
# this release, and the aarch64 cross build's multiarch libraries (debian_arm64_packages,
# beside the host's in /usr/lib/aarch64-linux-gnu; they need the foreign architecture
# arm64). apt-get update runs only when something is missing, or when apt's lists are
# too old or empty to offer the names (a fresh machine).
install_packages() {
  local packages
  if ! packages=$(debian_packages_of_this_machine 2>/dev/null); then
    echo "apt's package lists do not offer every package: apt-get update first"
    apt_get update || return 1
    packages=$(debian_packages_of_this_machine) || return 1
  fi
  local missing=() package status native
  native=$(dpkg --print-architecture)
  for package in $packages "${debian_arm64_packages[@]}"; do
    # An unqualified name is the host's package: asked as name:amd64 (once arm64's copy
    # is installed too, the bare name reports both), or, for an architecture-independent
    # package, by its bare name.
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)
    [[ $package != *:* ]] && status=$(dpkg-query -W -f='${db:Status-Status}' "$package:$native" 2>/dev/null || echo "$status")
    [[ $status == installed ]] || missing+=("$package")
  done
  local count=$(($(wc -w <<<"$packages") + ${#debian_arm64_packages[@]}))
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "All ${count} Debian packages are installed: $(tr '\n' ' ' <<<"$packages")"
    return 0
  fi
  echo "Installing: ${missing[*]}"
  if [[ " ${missing[*]}" == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    as_root dpkg --add-architecture arm64 || return 1
  fi
  apt_get update && apt_get install -y "${missing[@]}"
}

as_root() {
  if [[ $(id -u) -ne 0 ]]; then sudo "$@"; else "$@"; fi
}
apt_get() { as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

# The Python side: pip, never Debian's python3-* packages. Every install passes the
# constraints file, whose torch==2.13.0 is the CPU build on this machine's disk (any
# other torch is a CUDA build of several GB), and is checked afterwards for NVIDIA's
# CUDA packages, which only such a torch brings in.
constraints=python/requirements/constraints.txt
pip_install() {  # pip_install VENV CONSTRAINTS ARGS...: pip install into VENV under CONSTRAINTS
  local venv=$1 constraints_file=$2
  shift 2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -c "$constraints_file" "$@" || return 1
  local cuda
  cuda=$("$venv/bin/python" -m pip list --format=freeze 2>/dev/null | grep -i '^nvidia-')
  if [[ -n $cuda ]]; then
    echo "A CUDA build of torch got into $venv (only torch==2.13.0, the CPU build, is allowed):" >&2
    echo "$cuda" >&2
    return 1
  fi
}

# The project's virtual environment .venv, made from the python3 on PATH (3.10 or
# newer), with the tools of python/requirements/dev.txt at the pinned versions. The
# builds find it (the top-level CMakeLists.txt), and every later phase runs with it
# first on PATH, so that `python3` is its interpreter (the command's plots, the scripts).
python_environment() {
  local python
  python=$(type -P python3) || { echo "no python3 on PATH (3.10 or newer)" >&2; return 1; }
  if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "$python is Python $("$python" -c 'import sys; print(sys.version.split()[0])'); softfloat needs 3.10 or newer" >&2
    return 1
  fi
  if [[ ! -x .venv/bin/python ]]; then
    "$python" -m venv .venv || return 1
  fi
  pip_install .venv "$constraints" -r python/requirements/dev.txt &&
    .venv/bin/python -c 'import numpy, torch; print(f"numpy {numpy.__version__}, torch {torch.__version__} in .venv")'
}

use_python_environment() {
  export VIRTUAL_ENV=$repo_root/.venv
  export PATH=$VIRTUAL_ENV/bin:$PATH
}

# The builds are CMakePresets.json's configure presets (the flags are stated there once);
# configure_and_build PRESET [CMAKE_ARGS...] configures one and builds its build preset.
configure_and_build() {
  local preset=$1
  shift
  cmake --preset "$preset" "$@" && cmake --build --preset "$preset" -j"$jobs"
}

build_release() { configure_and_build release; }

# The demonstration needs only the library and the command, not the test suites.
build_demo() {
  cmake --preset release && cmake --build --preset release -j"$jobs" --target softfloat_cli
}

# The sanitizer build (preset "sanitize", from the hidden "checking" one):
# -O1 keeps the sanitized tests reasonably fast while the stack traces stay readable
# (the preset's level; the tests and most of the library take -Og, which compiles
# several times faster under both sanitizers: cmake/ProjectWarnings.cmake);
# -g1 (line tables only) is all a sanitizer's stack trace needs and compiles about a
# quarter faster than -g (21 s against 16 s of CPU for a typical test file).
# It runs `ctest -LE exhaustive` and no benchmark, so it builds neither. Of the
# Highway targets it compiles AVX3, AVX2 and the scalar fallback, not SSE4 and SSSE3:
# those two are near copies of each other with AVX2's code shape, the Release build
# checks their results on all 2^32 floats, and the time saved keeps the whole run
# inside CI's budget. On a CPU without AVX-512 it leaves out AVX3 and AVX3_DL too
# (SOFTFLOAT_HWY_ONLY_RUNNABLE): their code could not run under the sanitizers there,
# so compiling it would only cost minutes (the Release build still compiles every
# target, and its tests report the ones this CPU lacks as skipped). The targets are
# named in SOFTFLOAT_HWY_DISABLED_TARGETS (cmake/HighwayTargets.cmake reads their bits
# from Highway's header). For the same reason each test binary is one ctest there
# (SOFTFLOAT_TEST_EVERY_CASE=OFF): a thousand instrumented processes cost more than a
# minute just to start. (simd_array_conversion_test, minutes long even with its
# shorter sanitizer stride, keeps one ctest per case so that both cores share it:
# verify/simd/CMakeLists.txt.)
build_sanitize() { configure_and_build sanitize; }

# ThreadSanitizer over the tests labelled "threads" (verify/runtime/, the threaded cases
# of other suites, the Python threads test): the build preset "tsan" builds only the
# target softfloat_threads_tests, so that the phase takes minutes. Of the x86 Highway
# targets it compiles AVX2, and AVX3 where the CPU has AVX-512, with the scalar
# fallback (the static target, always compiled): the races TSan looks for are in the
# threading around the kernels (the worker pool, the dispatch, the per-thread
# constants), the same whichever target runs, while each further target costs a minute
# or more of instrumented compilation. (The Release build checks every target's
# results.) The optimisation levels are the sanitizer build's.
build_tsan() { configure_and_build tsan; }

# One phase, the build included (its time is the phase's budget). Any report fails its
# test: halt_on_error stops the process at the first one, with TSan's exit code 66.
tsan_phase() {
  build_tsan &&
    TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
      ctest --test-dir build-tsan --output-on-failure -j2 -L threads
}

# The package as a user configures it (preset "package"): no tests, and GTest / Google
# Benchmark hidden so that a dependency on them fails here; MPFR hidden too, which only
# the component verify needs (it is then left out). Configure only: the libraries are the
# same as build/'s, whose install ctest's package_install_and_use checks.
package_test() { cmake --preset package --no-warn-unused-cli; }

# The fuzz targets (verify/fuzz/) in a build of their own, build-fuzz/ (preset "fuzz"): clang with
# libFuzzer, ASan and UBSan, at -O0 with line tables only. clang 14 with both sanitizers
# at -O1 spends minutes on each Highway translation unit (matmul/exact_accumulation.cpp:
# 85 s of CPU with ASan alone, 66 s with UBSan alone; simd/conversion_dispatch.cpp more than 10
# minutes with both), at -O0 seconds (6.5 s with both): the fuzz inputs are
# short, so the slower code costs executions, not findings, and the phase stays inside
# its minutes. Only the library, the MPFR
# reference, the command's parser and the five targets are built (target
# fuzz_targets). Of the Highway targets it compiles AVX2 and the scalar fallback, plus
# AVX3 where the CPU has AVX-512 (SOFTFLOAT_HWY_DISABLED_TARGETS, SOFTFLOAT_HWY_ONLY_RUNNABLE): the arrays target switches
# between the compiled targets that the CPU runs, so one it cannot run would only cost
# compile minutes, and SSE4 / SSSE3 have AVX2's code shape and are checked on every
# float by the Release build. That keeps the phase, build included, within minutes.
build_fuzz() { configure_and_build fuzz; }

# The aarch64 cross build in build-aarch64/ (preset "aarch64":
# cmake/toolchains/aarch64-linux-gnu.cmake, Debian's g++-aarch64-linux-gnu and the arm64
# multiarch libraries), and the unit, conversion, SIMD, matmul and block-format suites
# (verify/unit/, ..., verify/block_formats/) run under qemu-user (the toolchain's
# CMAKE_CROSSCOMPILING_EMULATOR). Only the command and those suites are
# built (build preset: targets softfloat_cli and softfloat_core_suites): no Python
# module, benchmarks or exhaustive sweeps (hours under emulation; the suites built keep
# their strides, shorter under the emulator). Of the Highway targets it compiles NEON
# (aarch64's baseline, so no scalar fallback is compiled) and SVE, both run by qemu's
# default CPU ("max", 512-bit SVE), and leaves out SVE2 (SVE's code with a few more
# instructions; a third of the phase's compilation and SIMD test time) and SVE_256 /
# SVE2_128 (SVE with the vector length fixed at compile time).
build_aarch64() { configure_and_build aarch64; }

# One phase, the build included. The suites' folders one after the other, each with
# ctest -j; the command is checked by running it once under qemu. Each test binary is
# one ctest (SOFTFLOAT_TEST_EVERY_CASE=OFF, as in the sanitizer build): qemu takes
# about half a second to start a process, which a ctest per case would pay a thousand
# times (simd_array_conversion_test keeps one per case, EVERY_CASE, so that both cores
# share it). Not run under qemu, each minutes there and each run natively in the
# Release and sanitizer builds (GTEST_FILTER, which qemu passes on to the binaries):
# - the cases of the threads label, read from the verify/ folders'
#   softfloat_add_threads_case lines (large arrays and products split over 2 and 3
#   threads: PairsOfProducts.TwoThreadsGiveTheBitsOfOne more than 17 minutes under qemu
#   against 6.6 s natively; the thread splitting is the same code on every architecture);
# - Fp32Accuracy1024.SampledRows: two 1024^3 products, more than 12 minutes under qemu
#   (the kernels' block edges are the other Fp32Accuracy cases', which run there);
# - the tests labelled native_only (minutes each there; verify/conversion/CMakeLists.txt
#   says which and why; not even built).
aarch64_threads_cases=$(sed -n 's/^softfloat_add_threads_case([^ ]* \([^ )]*\)).*/\1/p' verify/*/CMakeLists.txt | paste -sd:)
aarch64_not_under_qemu="${aarch64_threads_cases}:Fp32Accuracy1024.SampledRows"
# The same cases as a ctest -E pattern, for the binaries whose cases are ctests of their
# own (EVERY_CASE): there GTEST_FILTER would leave such a ctest running no case at all,
# reported as passed.
aarch64_not_under_qemu_ctests="^(${aarch64_not_under_qemu//./\\.})\$"
aarch64_not_under_qemu_ctests=${aarch64_not_under_qemu_ctests//:/|}
aarch64_phase() {
  build_aarch64 || return 1
  local status=0 suite
  qemu-aarch64 -L /usr/aarch64-linux-gnu build-aarch64/cli/softfloat formats >/dev/null || status=1
  echo "Not run under qemu (scripts/dev.sh): the tests labelled threads or native_only, and ${aarch64_not_under_qemu}"
  for suite in unit conversion simd matmul block_formats; do
    GTEST_FILTER="-${aarch64_not_under_qemu}" ctest --test-dir "build-aarch64/verify/$suite" \
      --output-on-failure -j"$jobs" -LE 'threads|native_only' -E "$aarch64_not_under_qemu_ctests" || status=1
  done
  return $status
}

fuzz_target_names=(parse_format parse_number arithmetic arrays command_line)

# run_fuzzers SECONDS [SEED]: each target for SECONDS, starting from its committed corpus;
# new inputs go to build-fuzz/corpus/, not into the repository. A libFuzzer process uses
# one core, so as many run at once as there are cores (two: the five targets take three
# rounds of SECONDS rather than five). CI's run starts each target from a fixed seed
# (SEED plus the target's place in the list), so that a submission is judged on its own
# change and not on what a random walk happens to reach that day; SEED=random lets
# libFuzzer draw a fresh seed per target, for a longer campaign (docs/development.md).
# A finding (a failed check, a crash, a sanitizer report, a unit slower than 20 s) fails
# the phase and leaves the input in build-fuzz/findings/; reproduce it with the target
# and the file.
fuzz_seed() {  # fuzz_seed INDEX SEED: libFuzzer's -seed (0 asks it for a random one)
  if [[ $2 == random ]]; then echo 0; else echo $(($2 + $1)); fi
}

run_one_fuzzer() {
  local name=$1 seconds=$2 seed=$3
  mkdir -p "build-fuzz/corpus/$name"
  build-fuzz/verify/fuzz/softfloat_fuzz_"$name" -max_total_time="$seconds" -seed="$seed" -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$name-" \
    "build-fuzz/corpus/$name" "verify/fuzz/corpus/$name" >"build-fuzz/$name.log" 2>&1
}

run_fuzzers() {
  local seconds=$1 seed=${2:-1} name status=0 first index
  rm -rf build-fuzz/corpus  # CI's runs start from the committed corpus alone
  mkdir -p build-fuzz/findings
  local -A pid_of=()
  for ((first = 0; first < ${#fuzz_target_names[@]}; first += jobs)); do
    for ((index = first; index < first + jobs && index < ${#fuzz_target_names[@]}; index++)); do
      name=${fuzz_target_names[$index]}
      run_one_fuzzer "$name" "$seconds" "$(fuzz_seed "$index" "$seed")" &
      pid_of[$name]=$!
    done
    for name in "${fuzz_target_names[@]:first:jobs}"; do
      echo "--- $name: ${seconds}s ---"
      if wait "${pid_of[$name]}"; then
        grep -E '^(INFO: Seed|Done|stat::number_of_executed_units|stat::peak_rss_mb)' "build-fuzz/$name.log"
      else
        tail -n 60 "build-fuzz/$name.log"
        status=1
      fi
    done
  done
  return $status
}

fuzz_all() {
  run_phase "Fuzz build (build-fuzz/)" build_fuzz || { skip_phase "Fuzzing" "build failed"; return 1; }
  run_phase "Fuzzing (build-fuzz/, ${1}s per target, seed ${2:-1})" run_fuzzers "$1" "${2:-1}"
}

# The Python package as a user gets it (phase 7), in build-pip/ (made anew each run):
#  1. `pip wheel .` in a fresh virtual environment: pip's isolated build environment,
#     where scikit-build-core builds the library and the module (pyproject.toml), as
#     `pip install .` does before it installs; then `pip install` of that wheel with the
#     extras torch and test. (Not `pip install .` and then `pip wheel .`: every isolated
#     build environment puts pybind11's headers under a new path, so the second would
#     compile the module again, a minute of CPU, for the same wheel.) Then the Python
#     tests, the whole of python/tests/, run from outside the checkout so that `import
#     softfloat` can only find the installed copy (SOFTFLOAT_TEST_INSTALLED=1:
#     test_package.py asserts it lies in site-packages). ctest in build/ leaves these
#     files to this step in CI (label rerun_installed, python/tests/CMakeLists.txt).
#  2. `auditwheel repair` of that wheel, which copies Debian's libhwy.so.1 into it.
#  3. The repaired wheel in a second fresh environment with NumPy 1.26, the oldest NumPy
#     supported: a short convert-and-compare run, and python/packaging/check_wheel.py,
#     which hides Debian's Highway and imports both installs (only the repaired one may
#     load).
#  4. `pip install -e .` into a third: the package's Python files from the source tree.
pip_package_phase() {
  local python work=build-pip start=$SECONDS
  pip_step() { echo "--- $1 (at $((SECONDS - start))s) ---"; }
  python=$(type -P python3) || return 1
  rm -rf "$work" && mkdir -p "$work/outside" || return 1
  local cmake_dir=$repo_root/$work/cmake
  pip_step "pip wheel . in $work/venv, and pip install of the wheel with [torch,test]"
  "$python" -m venv "$work/venv" &&
    "$work/venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -c "$constraints" \
      -C build-dir="$cmake_dir" -w "$work/dist" . || return 1
  local wheels=("$work"/dist/softfloat-*.whl)
  [[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || { echo "expected one wheel in $work/dist: ${wheels[*]}" >&2; return 1; }
  pip_install "$work/venv" "$constraints" "${wheels[0]}[torch,test]" || return 1
  pip_step "the Python tests against the installed package, from $work/outside"
  (cd "$work/outside" && SOFTFLOAT_TEST_INSTALLED=1 ../venv/bin/python -m pytest -q -rs -p no:cacheprovider \
    "$repo_root/python/tests") || return 1
  pip_step "auditwheel repair"
  .venv/bin/auditwheel repair --wheel-dir "$work/wheelhouse" "${wheels[0]}" || return 1
  pip_step "the repaired wheel in $work/wheel-venv, NumPy 1.26"
  "$python" -m venv "$work/wheel-venv" &&
    pip_install "$work/wheel-venv" python/requirements/constraints-numpy1.txt \
      "$work"/wheelhouse/softfloat-*.whl numpy pytest || return 1
  "$work/wheel-venv/bin/python" -c 'import numpy; print("NumPy", numpy.__version__, "beside the repaired wheel")'
  (cd "$work/outside" && SOFTFLOAT_TEST_INSTALLED=1 ../wheel-venv/bin/python -m pytest -q -rs -p no:cacheprovider \
    "$repo_root/python/tests/test_numpy_versions.py") || return 1
  "$work/wheel-venv/bin/python" python/packaging/check_wheel.py \
    --repaired "$work/wheel-venv/bin/python" --unrepaired "$work/venv/bin/python" || return 1
  pip_step "pip install -e . into $work/editable-venv"
  "$python" -m venv "$work/editable-venv" &&
    pip_install "$work/editable-venv" "$constraints" -C build-dir="$cmake_dir" -e . || return 1
  (cd "$work/outside" && ../editable-venv/bin/python -c "$editable_check" "$repo_root") || return 1
}

# The editable install serves the Python files from the source tree and the compiled
# module from site-packages; it must round like any other install.
editable_check='
import os, sys, numpy, softfloat
source = os.path.join(sys.argv[1], "python", "softfloat", "__init__.py")
assert os.path.realpath(softfloat.__file__) == os.path.realpath(source), softfloat.__file__
value = softfloat.round_trip(numpy.array([-431.99999999999994]), "e4m3")[0]
assert value == -416.0, value
print("editable install: softfloat from", softfloat.__file__, "and _core from", softfloat._core.__file__)
'


setup_phases() {
  run_phase "Install Debian packages" install_packages || { print_summary; exit 1; }
  run_phase "Python environment (.venv, pip)" python_environment || { print_summary; exit 1; }
  use_python_environment
}

demo() {
  setup_phases
  run_phase "Release build of the softfloat command (build/)" build_demo || { print_summary; exit 1; }
  run_phase "Demonstration (scripts/tour.sh)" bash scripts/tour.sh build
  print_summary
}

test_all() {
  setup_phases
  if run_phase "Release build (build/)" build_release; then
    run_phase "Tests (build/, ctest -j2 -LE rerun_installed)" \
      ctest --test-dir build --output-on-failure -j2 -LE rerun_installed
  else
    skip_phase "Tests (build/, ctest -j2 -LE rerun_installed)" "build failed"
  fi
  if run_phase "Sanitizer build (build-sanitize/)" build_sanitize; then
    run_phase "Sanitizer tests (ctest -LE exhaustive)" \
      ctest --test-dir build-sanitize --output-on-failure -j2 -LE exhaustive
  else
    skip_phase "Sanitizer tests (ctest -LE exhaustive)" "build failed"
  fi
  run_phase "ThreadSanitizer (build-tsan/, ctest -L threads)" tsan_phase
  run_phase "Package configuration (BUILD_TESTING=OFF)" package_test
  run_beside "ARM64 cross build and qemu tests (build-aarch64/)" aarch64_phase \
    -- "pip install . and the wheel (build-pip/)" pip_package_phase
  fuzz_all 30
  print_summary
}

# run_beside NAME_A COMMAND_A... -- NAME_B COMMAND_B...: the two phases at once, A in the
# background with its output held in a temporary file (printed whole when A ends, so
# that the two do not interleave), B in the foreground; each phase's time is its own,
# from its start to its end, so the two overlap in the summary. CI pairs the ARM64
# phase with the pip phase, much of which runs on one core (pip installing into fresh
# environments, pytest, auditwheel). The gain is modest, as both phases also compile:
# 879 s together on the model-207 Xeon, against 487 s + 469 s one after the other.
run_beside() {
  local name_a=$1
  shift
  local command_a=()
  while [[ $1 != -- ]]; do
    command_a+=("$1")
    shift
  done
  shift
  local name_b=$1
  shift
  local log start=$SECONDS
  log=$(mktemp) || return 1
  echo
  echo "=== ${name_a}: started in the background, beside the next phase ==="
  ("${command_a[@]}" >"$log" 2>&1; echo "$? $((SECONDS - start))" >"$log.status") &
  local pid=$!
  run_phase "$name_b" "$@"
  wait "$pid"
  local status elapsed
  read -r status elapsed <"$log.status"
  echo
  echo "=== ${name_a} (ran beside the phase above) ==="
  cat "$log"
  record_phase "$name_a" "$status" "$elapsed"
  rm -f "$log" "$log.status"
}

case "${1:-}" in
  demo) demo ;;
  test) test_all ;;
  fuzz)
    use_python_environment
    fuzz_all "${2:-30}" "${3:-1}"
    print_summary
    ;;
  aarch64)
    run_phase "Install Debian packages" install_packages || { print_summary; exit 1; }
    run_phase "ARM64 cross build and qemu tests (build-aarch64/)" aarch64_phase
    print_summary
    ;;
  pip)
    setup_phases
    run_phase "pip install . and the wheel (build-pip/)" pip_package_phase
    print_summary
    ;;
  *)
    echo "usage: bash scripts/dev.sh demo|test|fuzz [SECONDS per target [SEED|random]]|aarch64|pip" >&2
    exit 2
    ;;
esac
