#!/usr/bin/env bash
# choose_debian_packages (scripts/debian_packages.sh) over the names Debian 12 and 13
# offer: the clang that `clang` pulls in decides the libFuzzer and runtime packages,
# whatever other LLVM versions the release also offers.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/debian_packages.sh"
failures=0

check() {  # check WHAT EXPECTED ACTUAL
  if [[ $2 == "$3" ]]; then
    echo "ok: $1"
  else
    echo "FAILED: $1"
    echo "  expected: $2"
    echo "  actual:   $3"
    failures=$((failures + 1))
  fi
}

# Package names as apt-cache pkgnames lists them (the part that matters).
common=("${debian_common_packages[@]}" pkg-config pkgconf python3 clang-13 clang-15)
bookworm=("${common[@]}" clang-14 clang-16 libfuzzer-13-dev libfuzzer-14-dev libfuzzer-15-dev libfuzzer-16-dev
          libclang-rt-14-dev libclang-rt-15-dev libclang-rt-16-dev)
trixie=("${common[@]}" clang-17 clang-18 clang-19 libfuzzer-17-dev libfuzzer-18-dev libfuzzer-19-dev
        libclang-rt-17-dev libclang-rt-18-dev libclang-rt-19-dev)
expected_tail() { printf '%s\n' "${debian_common_packages[@]}" "libfuzzer-$1-dev" "libclang-rt-$1-dev" "$2"; }

check "Debian 12: clang 14's libFuzzer, pkgconf" "$(expected_tail 14 pkgconf)" \
  "$(choose_debian_packages 'clang-14 (>= 14~)' "${bookworm[@]}")"
check "Debian 13: clang 19's libFuzzer, pkgconf" "$(expected_tail 19 pkgconf)" \
  "$(choose_debian_packages 'clang-19 (>= 1:19.1.4-1~)' "${trixie[@]}")"
without_pkgconf=()
for name in "${bookworm[@]}"; do [[ $name == pkgconf ]] || without_pkgconf+=("$name"); done
check "no pkgconf offered: pkg-config" "$(expected_tail 14 pkg-config)" \
  "$(choose_debian_packages 'clang-14 (>= 14~)' "${without_pkgconf[@]}")"

# Refusals, each with its reason on stderr and a failing status.
message=$(choose_debian_packages 'clang-19 (>= 19~)' "${bookworm[@]}" 2>&1 >/dev/null)
check "clang 19 on Debian 12's names: refused" "1 choose_debian_packages: apt offers no libfuzzer-19-dev libclang-rt-19-dev (run apt-get update?)" \
  "$(choose_debian_packages 'clang-19 (>= 19~)' "${bookworm[@]}" >/dev/null 2>&1; echo $?) $message"
message=$(choose_debian_packages '' "${trixie[@]}" 2>&1 >/dev/null)
check "no clang Depends: refused" "1 choose_debian_packages: cannot read clang's LLVM version from its Depends: ''" \
  "$(choose_debian_packages '' "${trixie[@]}" >/dev/null 2>&1; echo $?) $message"
message=$(choose_debian_packages 'clang-19 (>= 19~)' 2>&1 >/dev/null)
check "nothing offered (no apt-get update): refused" \
  "choose_debian_packages: apt offers no ${debian_common_packages[*]} libfuzzer-19-dev libclang-rt-19-dev pkg-config (run apt-get update?)" \
  "$message"

echo "$((6 - failures)) passed, ${failures} failed"
[[ $failures -eq 0 ]]
