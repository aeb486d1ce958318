"""The package layout: softfloat over the compiled softfloat._core, every name of the
compiled module under softfloat, no torch needed for `import softfloat`, and a clear
ImportError from softfloat.torch where torch is missing."""
import subprocess
import sys

import softfloat
from softfloat import _core


def test_every_compiled_name_is_reexported():
    names = [name for name in dir(_core) if not name.startswith("__")]
    assert "round_trip" in names and "_scalar_quantize" in names and "nvfp4_quantize" in names
    for name in names:
        assert getattr(softfloat, name) is getattr(_core, name), name
    assert softfloat.__version__ == _core.__version__
    assert "round_trip" in softfloat.__all__ and "_scalar_quantize" not in softfloat.__all__


def run_without_torch(program):
    """Runs `program` in a fresh interpreter in which `import torch` fails."""
    blocker = "import sys\nsys.modules['torch'] = None\n"
    return subprocess.run([sys.executable, "-c", blocker + program], capture_output=True, text=True, timeout=120)


def test_import_softfloat_needs_no_torch():
    result = run_without_torch("import numpy, softfloat\n"
                               "print(softfloat.round_trip(numpy.array([0.1], numpy.float32), 'e4m3')[0])\n"
                               "print('torch' in sys.modules and sys.modules['torch'] is not None)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0.1015625", "False"]


def test_softfloat_torch_without_torch_is_an_import_error():
    result = run_without_torch("try:\n    import softfloat.torch\nexcept ImportError as error:\n"
                               "    print('ImportError', error)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ImportError")


def test_installed_package_is_the_one_imported():
    """scripts/dev.sh's pip phase runs the suite against `pip install .` from outside the
    checkout with SOFTFLOAT_TEST_INSTALLED=1: softfloat must then come from site-packages,
    with its type information beside it, and never from the source or build tree."""
    import os
    import sysconfig

    import pytest

    if os.environ.get("SOFTFLOAT_TEST_INSTALLED") != "1":
        pytest.skip("the suite runs against a build tree here (SOFTFLOAT_TEST_INSTALLED=1 checks an installed copy)")
    package_dir = os.path.dirname(os.path.realpath(softfloat.__file__))
    site_packages = os.path.realpath(sysconfig.get_paths()["platlib"])
    assert package_dir == os.path.join(site_packages, "softfloat"), (package_dir, site_packages)
    assert os.path.dirname(os.path.realpath(_core.__file__)) == package_dir
    assert os.path.isfile(os.path.join(package_dir, "torch", "__init__.py"))
