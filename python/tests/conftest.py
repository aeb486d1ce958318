"""Shared helpers for the softfloat module's tests.

The tests import the module from PYTHONPATH (ctest points it at the build tree).
"""
import os

import numpy as np
import pytest

import softfloat

try:
    import hypothesis
except ImportError:  # only the test_properties_* files need it, and they import it themselves
    hypothesis = None

if hypothesis is not None:
    # The property suites (test_properties_*.py). "ci", the default, draws the same examples
    # on every run (derandomize), keeps no example database, and sets no per-example deadline,
    # which a sanitizer build or a busy machine would miss; "explore" draws fresh random
    # examples, ten times as many, for a developer's run:
    # SOFTFLOAT_HYPOTHESIS_PROFILE=explore ctest --test-dir build -R properties
    hypothesis.settings.register_profile(
        "ci", max_examples=100, derandomize=True, deadline=None, database=None, print_blob=True,
        suppress_health_check=[hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.data_too_large])
    hypothesis.settings.register_profile(
        "explore", max_examples=1000, deadline=None, database=None, print_blob=True,
        suppress_health_check=[hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.data_too_large])
    hypothesis.settings.load_profile(os.environ.get("SOFTFLOAT_HYPOTHESIS_PROFILE", "ci"))

# The named formats the array functions take (codes of at most 32 bits).
ARRAY_FORMATS = [name for name in softfloat.named_formats() if softfloat.format_info(name).bits <= 32]


def bits_of(array):
    """The array's bit patterns, so that NaNs compare by payload and -0 differs from +0."""
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "u":
        return array
    return array.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[array.dtype.itemsize])


def assert_same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    mismatch = np.flatnonzero(bits_of(actual).ravel() != bits_of(expected).ravel())
    if mismatch.size:
        i = mismatch[0]
        pytest.fail(f"{mismatch.size} of {actual.size} elements differ; first at flat index {i}: "
                    f"{actual.ravel()[i]!r} (bits {bits_of(actual).ravel()[i]:#x}) != "
                    f"{expected.ravel()[i]!r} (bits {bits_of(expected).ravel()[i]:#x})")


def every_float16_value():
    """All 65536 float16 bit patterns (NaNs with every payload, infinities, subnormals), as float32."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)


def widened(x):
    """float32 -> float64, exact; the signaling NaNs among the inputs become quiet, which
    raises the invalid flag that NumPy would report as a warning."""
    with np.errstate(invalid="ignore"):
        return x.astype(np.float64)
