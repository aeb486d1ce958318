"""The repaired wheel runs without Debian's Highway.

Debian ships Highway as a shared library only (libhwy.so.1), which the compiled module
links. `auditwheel repair` copies it into the wheel (softfloat.libs/, under a name of its
own) and points the module at the copy. This check hides Debian's copy, as on a machine
without libhwy1, in a private mount namespace (`unshare --mount`, as root: the real file
is covered by /dev/null there, nowhere else), and in it imports two installs:
  --repaired PYTHON    an interpreter with the repaired wheel: must import and round;
  --unrepaired PYTHON  one with the plain `pip install .`: must fail to load libhwy,
                       which shows that the hiding works.

    python python/packaging/check_wheel.py --repaired A/bin/python --unrepaired B/bin/python

Exits 0 when both hold, 1 when one does not, 77 (skipped) when no mount namespace can be
made here (not root, or no unshare), saying so.
"""
import argparse
import ctypes.util
import os
import shutil
import subprocess
import sys

# -431.99999999999994 (= -432 + 2^-44) rounds once to -416 in E4M3; through float32 it
# would become -432, a tie, then -448: a wrong library would show.
PROGRAM = """
import numpy, softfloat, sys
value = softfloat.round_trip(numpy.array([-431.99999999999994]), 'e4m3')[0]
maps = open('/proc/self/maps').read()
print(value, softfloat.__file__, sep='\\n')
print('\\n'.join(sorted({line.split()[-1] for line in maps.splitlines() if 'hwy' in line})))
"""


def debian_highway():
    """The real file behind the system's libhwy.so.1 (the one a plain build links)."""
    for directory in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"):
        path = os.path.join(directory, "libhwy.so.1")
        if os.path.exists(path):
            return os.path.realpath(path)
    found = ctypes.util.find_library("hwy")
    return os.path.realpath(found) if found and os.path.isabs(found) else None


def run_hidden(library, python):
    script = f'mount --bind /dev/null "{library}" && exec "{python}" -c "$0"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, PROGRAM],
                          capture_output=True, text=True, timeout=300)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repaired", required=True)
    parser.add_argument("--unrepaired", required=True)
    arguments = parser.parse_args()

    library = debian_highway()
    if library is None:
        print("check_wheel: no system libhwy.so.1 to hide: this machine already lacks Debian's Highway")
        hidden = None
    elif os.geteuid() != 0 or shutil.which("unshare") is None:
        print("check_wheel: SKIPPED: hiding Debian's Highway needs root and unshare (a private mount namespace)")
        return 77
    else:
        hidden = library
    failures = []

    repaired = run_hidden(hidden, arguments.repaired) if hidden else subprocess.run(
        [arguments.repaired, "-c", PROGRAM], capture_output=True, text=True, timeout=300)
    lines = repaired.stdout.splitlines()
    if repaired.returncode != 0 or not lines or lines[0] != "-416.0":
        failures.append(f"the repaired wheel did not import and round with {hidden} hidden:\n"
                        f"{repaired.stdout}{repaired.stderr}")
    else:
        loaded = lines[2:]
        inside = [path for path in loaded if "softfloat.libs" in path]
        print(f"repaired wheel, {hidden or 'no system Highway'} hidden: rounds -431.99999999999994 to -416 "
              f"in e4m3; Highway loaded from {', '.join(loaded)}")
        if not inside or any(path == library for path in loaded):
            failures.append(f"the repaired wheel loaded Highway from {loaded}, not from its softfloat.libs/")

    if hidden:
        plain = run_hidden(hidden, arguments.unrepaired)
        if plain.returncode == 0 or "libhwy" not in plain.stderr:
            failures.append("with Debian's Highway hidden the plain install still imported, so the hiding "
                            f"proves nothing:\n{plain.stdout}{plain.stderr}")
        else:
            print(f"plain install, {hidden} hidden: fails as it should ({plain.stderr.strip().splitlines()[-1]})")

    for failure in failures:
        print("check_wheel: FAILED:", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
