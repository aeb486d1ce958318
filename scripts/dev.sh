#!/usr/bin/env bash
# Developer entry points on a fresh Debian machine (see README.md, "Quick start").
#
#   bash scripts/dev.sh demo   install missing packages, configure a Release build in build/,
#                              build the main demonstration and run it
#                              (build/examples/format_tour)
#   bash scripts/dev.sh test   the same install and build, then everything CI checks:
#                              1. ctest in build/ (all labels, the exhaustive sweeps too)
#                              2. a sanitizer build in build-sanitize/ (ASan + UBSan) and
#                                 ctest -LE exhaustive there
#                              3. the package test against a build without tests or
#                                 benchmarks (build-package/, -DBUILD_TESTING=OFF, GTest and
#                                 Google Benchmark hidden): install it and build an outside
#                                 project with find_package(softfloat)
#                              Prints the time of each phase and a summary; exits non-zero
#                              if any phase failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root=$(pwd)
jobs=$(nproc)

debian_packages=(cmake g++ libhwy-dev libmpfr-dev libgmp-dev libgtest-dev libgmock-dev libbenchmark-dev
                 libopenblas-dev libcli11-dev pybind11-dev python3-numpy python3-matplotlib python3-pytest
                 pkg-config)

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
  local elapsed=$((SECONDS - start))
  phase_names+=("$name")
  phase_seconds+=("$elapsed")
  if [[ $status -eq 0 ]]; then
    phase_results+=("passed")
    echo "=== ${name}: passed in ${elapsed}s ==="
  else
    phase_results+=("FAILED (exit ${status})")
    echo "=== ${name}: FAILED (exit ${status}) after ${elapsed}s ==="
  fi
  return $status
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

# Installs the Debian packages that are missing; apt-get update only if any are.
install_packages() {
  local missing=() package
  for package in "${debian_packages[@]}"; do
    if [[ $(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null) != installed ]]; then
      missing+=("$package")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "All ${#debian_packages[@]} Debian packages are installed."
    return 0
  fi
  echo "Installing: ${missing[*]}"
  local sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# configure_and_build DIR CMAKE_ARGS...
configure_and_build() {
  local dir=$1
  shift
  cmake -S "$repo_root" -B "$dir" "$@" && cmake --build "$dir" -j"$jobs"
}

build_release() { configure_and_build build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON; }

# The demonstration needs only the library and its own target, not the test suites.
build_demo() {
  cmake -S "$repo_root" -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON &&
    cmake --build build -j"$jobs" --target format_tour
}

build_sanitize() {
  # -O1 keeps the sanitized tests reasonably fast while the stack traces stay readable.
  # It runs `ctest -LE exhaustive` and no benchmark, so it builds neither.
  configure_and_build build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTFLOAT_SANITIZE=ON \
    -DBUILD_TESTING=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -DSOFTFLOAT_EXHAUSTIVE_TESTS=OFF -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
}

# The package as a user builds it: no tests, and GTest / Google Benchmark hidden so that
# a dependency on them would fail here.
package_test() {
  configure_and_build build-package --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON &&
    cmake -DBUILD_DIR="$repo_root/build-package" -DSOURCE_DIR="$repo_root" \
      -DWORK_DIR="$repo_root/build-package/package-test" -P verify/package/install_and_use.cmake
}

demo() {
  run_phase "Install Debian packages" install_packages || { print_summary; exit 1; }
  run_phase "Release build of format_tour (build/)" build_demo || { print_summary; exit 1; }
  run_phase "Demonstration (build/examples/format_tour)" build/examples/format_tour
  print_summary
}

test_all() {
  run_phase "Install Debian packages" install_packages || { print_summary; exit 1; }
  if run_phase "Release build (build/)" build_release; then
    run_phase "All tests (build/, ctest -j2)" ctest --test-dir build --output-on-failure -j2
  else
    skip_phase "All tests (build/, ctest -j2)" "build failed"
  fi
  if run_phase "Sanitizer build (build-sanitize/)" build_sanitize; then
    run_phase "Sanitizer tests (ctest -LE exhaustive)" \
      ctest --test-dir build-sanitize --output-on-failure -j2 -LE exhaustive
  else
    skip_phase "Sanitizer tests (ctest -LE exhaustive)" "build failed"
  fi
  run_phase "Package test (BUILD_TESTING=OFF install)" package_test
  print_summary
}

case "${1:-}" in
  demo) demo ;;
  test) test_all ;;
  *)
    echo "usage: bash scripts/dev.sh demo|test" >&2
    exit 2
    ;;
esac
