# The Debian packages the project builds and tests with, chosen by what apt offers, so
# that one list serves Debian 12 (bookworm) and 13 (trixie). Sourced by scripts/dev.sh;
# verify/scripts/debian_packages_test.sh checks the choice over both releases' names.
#
# What differs between the releases is versioned names: clang's libFuzzer and runtime
# libraries carry the LLVM major version (libfuzzer-14-dev on 12, libfuzzer-19-dev on
# 13), which must match the clang that the unversioned `clang` package installs (the
# fuzz build compiles with clang++ and links that clang's libFuzzer). Highway is
# libhwy-dev on both (1.0.3 on 12, 1.2 on 13), and pkg-config became pkgconf.

# The packages every release names alike. The C++ build: compiler, Highway, MPFR,
# GoogleTest, Google Benchmark, CLI11, OpenBLAS (a benchmark baseline), Eigen (likewise);
# dpkg-dev for the .deb test; the aarch64 cross compiler, its multiarch libraries and
# qemu-user for the ARM64 phase. Python and its packages come from pip (.venv), not apt.
debian_common_packages=(cmake g++ libhwy-dev libmpfr-dev libgmp-dev libgtest-dev libgmock-dev libbenchmark-dev
                        libopenblas-dev libcli11-dev libeigen3-dev dpkg-dev clang g++-aarch64-linux-gnu qemu-user)
debian_arm64_packages=(libhwy-dev:arm64 libmpfr-dev:arm64 libgmp-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64)

# choose_debian_packages CLANG_DEPENDS OFFERED...: prints the packages to install, one a
# line. CLANG_DEPENDS is the Depends field of the `clang` package as apt shows it (for
# example "clang-14 (>= 1:14.0-55~exp2)" on Debian 12); OFFERED are the package names
# apt offers (`apt-cache pkgnames`). Fails, saying why, when a needed name is not offered.
choose_debian_packages() {
  local clang_depends=$1
  shift
  local -A offered=()
  local name
  for name in "$@"; do offered[$name]=1; done

  local llvm_version
  llvm_version=$(grep -oE '(^|[ ,])clang-[0-9]+' <<<"$clang_depends" | head -n 1 | grep -oE '[0-9]+$')
  if [[ -z $llvm_version ]]; then
    echo "choose_debian_packages: cannot read clang's LLVM version from its Depends: '$clang_depends'" >&2
    return 1
  fi
  local chosen=("${debian_common_packages[@]}" "libfuzzer-${llvm_version}-dev" "libclang-rt-${llvm_version}-dev")
  if [[ -n ${offered[pkgconf]:-} ]]; then chosen+=(pkgconf); else chosen+=(pkg-config); fi

  local missing=()
  for name in "${chosen[@]}"; do [[ -n ${offered[$name]:-} ]] || missing+=("$name"); done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "choose_debian_packages: apt offers no ${missing[*]} (run apt-get update?)" >&2
    return 1
  fi
  printf '%s\n' "${chosen[@]}"
}

# The same, asking this machine's apt (after apt-get update: an empty package list
# offers nothing).
debian_packages_of_this_machine() {
  local depends
  depends=$(apt-cache show --no-all-versions clang 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
  # shellcheck disable=SC2046  # one package name a word
  choose_debian_packages "$depends" $(apt-cache pkgnames)
}
