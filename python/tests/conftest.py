"""Shared helpers for the softfloat module's tests.

The tests import the module from PYTHONPATH (ctest points it at the build tree).
"""
import numpy as np
import pytest

import softfloat

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
