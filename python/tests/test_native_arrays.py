"""softfloat.encode / softfloat.decode with NumPy arrays in ml_dtypes' dtypes: every code
of every format we share with ml_dtypes means the same number to ml_dtypes' own cast to
float32 as to our decoder, encode hands out ml_dtypes arrays whose bits are quantize's
codes, and those arrays go back into decode and encode. Without ml_dtypes, encode and
decode still work for NumPy's own float16 / float32 / float64 and give integer codes for
the rest (checked by hiding ml_dtypes)."""
import sys

import numpy as np
import pytest

import softfloat
from softfloat import _native_dtypes

ml_dtypes = pytest.importorskip("ml_dtypes")

# format spec: (ml_dtypes name, bits of the code)
SHARED = {"e4m3": ("float8_e4m3fn", 8), "e5m2": ("float8_e5m2", 8), "e4m3fnuz": ("float8_e4m3fnuz", 8),
          "e5m2fnuz": ("float8_e5m2fnuz", 8), "e8m0": ("float8_e8m0fnu", 8), "e3m4": ("float8_e3m4", 8),
          "e4m3:ieee": ("float8_e4m3", 8), "e4m3:fnuz:bias=11": ("float8_e4m3b11fnuz", 8),
          "e2m1": ("float4_e2m1fn", 4), "e3m2": ("float6_e3m2fn", 6), "e2m3": ("float6_e2m3fn", 6),
          "bf16": ("bfloat16", 16)}


def every_code(bits):
    return np.arange(1 << bits, dtype=np.uint8 if bits <= 8 else np.uint16)


@pytest.mark.parametrize("fmt", sorted(SHARED))
def test_every_code_means_the_same_number_to_ml_dtypes(fmt):
    name, bits = SHARED[fmt]
    dtype = np.dtype(getattr(ml_dtypes, name))
    codes = every_code(bits)
    ours = softfloat.dequantize(codes, fmt)
    theirs = codes.view(dtype).astype(np.float32)
    nan = np.isnan(ours)
    assert np.array_equal(np.isnan(theirs), nan), fmt
    assert np.array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32)), fmt
    native = codes.view(dtype)
    assert np.array_equal(softfloat.decode(native).view(np.uint32), ours.view(np.uint32))
    assert np.array_equal(softfloat.decode(native, fmt).view(np.uint32), ours.view(np.uint32))


@pytest.mark.parametrize("fmt", sorted(SHARED) + ["fp16", "fp32", "fp64"])
def test_encode_hands_out_the_dtype_with_quantizes_bits(fmt):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    encoded = softfloat.encode(x, fmt)
    expected_dtype = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64}.get(fmt)
    if expected_dtype is None:
        expected_dtype = getattr(ml_dtypes, SHARED[fmt][0])
    assert encoded.dtype == np.dtype(expected_dtype)
    codes = softfloat.quantize(x, fmt)
    assert np.array_equal(encoded.view(codes.dtype), codes)
    assert np.array_equal(softfloat.encode(x, fmt, as_codes=True), codes)
    # An ml_dtypes array goes back in: encode reads its exact values, decode its codes.
    again = softfloat.encode(encoded, fmt)
    assert np.array_equal(again.view(codes.dtype), codes)


def test_a_format_without_a_dtype_gives_codes():
    x = np.linspace(-4, 4, 101, dtype=np.float32)
    assert softfloat.encode(x, "e3m3").dtype == np.uint8


def test_decode_checks_the_format():
    q = softfloat.encode(np.array([1.0, 2.0], np.float32), "e4m3")
    with pytest.raises(TypeError, match="e4m3 codes, not e5m2"):
        softfloat.decode(q, "e5m2")
    with pytest.raises(TypeError, match="need the format"):
        softfloat.decode(np.zeros(2, np.uint8))
    with pytest.raises(TypeError, match="float32 or float64"):
        softfloat.encode(np.zeros(2, np.int32), "e4m3")


def test_without_ml_dtypes(monkeypatch):
    """ml_dtypes is never required: hidden, NumPy's own floats still come out and the
    narrow formats give codes."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    _native_dtypes._numpy_tables.cache_clear()
    try:
        x = np.array([1.0, -2.5, 3.0e5], np.float32)
        assert softfloat.encode(x, "e4m3").dtype == np.uint8
        assert softfloat.encode(x, "fp16").dtype == np.float16
        assert np.array_equal(softfloat.decode(softfloat.encode(x, "fp16")), softfloat.round_trip(x, "fp16"))
    finally:
        _native_dtypes._numpy_tables.cache_clear()
