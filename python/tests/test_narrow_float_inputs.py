"""float16 and ml_dtypes' float arrays as input to round_trip and quantize: read exactly as
float32 from their codes (every value of theirs is a float32), rounded once from there,
and returned as float32 by round_trip, so that no value of a wider format is rounded again
into the input's dtype.

The reference is a peer's cast from the same narrow dtype: ml_dtypes 0.6.0 casts float16
and bfloat16 straight to its float8 / float6 / float4 types. Every one of the 2^16 float16
and bfloat16 patterns is checked. NaN inputs are compared by being NaN only: ml_dtypes
gives E5M2's NaNs one payload where ours keeps the top payload bit
(test_peer_sweep_ml_dtypes.py holds that rule).
"""
import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
import softfloat  # noqa: E402

# Formats whose codes ml_dtypes' cast gives as ours on every non-NaN input (E8M0 has rules
# of its own for zero and for float32's subnormals, see test_peer_sweep_ml_dtypes.py).
PEER_DTYPES = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
               "e2m1": ml_dtypes.float4_e2m1fn, "e3m2": ml_dtypes.float6_e3m2fn, "e2m3": ml_dtypes.float6_e2m3fn}
SOURCES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def every_pattern(source):
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(source)


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("fmt", sorted(PEER_DTYPES))
def test_every_pattern_quantizes_as_the_peers_cast(source, fmt):
    x = every_pattern(SOURCES[source])
    with np.errstate(all="ignore"):
        theirs = x.astype(PEER_DTYPES[fmt]).view(np.uint8)
    ours = softfloat.quantize(x, fmt)
    assert ours.dtype == np.uint8 and ours.shape == x.shape
    nan = np.isnan(x.astype(np.float32))
    assert nan.sum() > 0
    wrong = np.flatnonzero((ours != theirs) & ~nan)
    assert wrong.size == 0, [(hex(int(x.view(np.uint16)[i])), hex(int(ours[i])), hex(int(theirs[i])))
                             for i in wrong[:8]]
    decoded = softfloat.dequantize(ours[nan], fmt)
    assert np.isnan(decoded).all() or not softfloat.format_info(fmt).has_nan


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("fmt", ["e4m3", "e2m1"])
def test_round_trip_returns_the_peers_values_as_float32(source, fmt):
    x = every_pattern(SOURCES[source]).reshape(256, 256)
    with np.errstate(all="ignore"):
        theirs = x.astype(PEER_DTYPES[fmt]).astype(np.float32)
    ours = softfloat.round_trip(x, fmt)
    assert ours.dtype == np.float32 and ours.shape == x.shape
    assert np.array_equal(ours, theirs, equal_nan=True)


def test_wider_formats_are_not_rounded_again_into_the_input_dtype():
    # 1 + 2^-10 is a float16; rounded to bf16 (8 bits) it is 1; to fp32 it stays itself.
    # A result in float16 would hold either exactly, but fp16's largest value 65504 rounded
    # to e8m0 is 2^16 = 65536, beyond float16's range: float32 keeps it.
    x = np.array([1 + 2.0 ** -10, 65504.0], dtype=np.float16)
    assert softfloat.round_trip(x, "fp32").tolist() == [1 + 2.0 ** -10, 65504.0]
    assert softfloat.round_trip(x, "bf16").tolist() == [1.0, 65536.0]
    assert softfloat.round_trip(x, "e8m0").tolist() == [1.0, 65536.0]


def test_float8_values_round_to_a_narrower_format_as_the_peers_cast():
    x = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    with np.errstate(all="ignore"):
        theirs = x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    nan = np.isnan(x.astype(np.float32))
    ours = softfloat.quantize(x, "e2m1")
    assert np.array_equal(ours[~nan], theirs[~nan])
    # Packed, from a non-contiguous view: the peer's codes too.
    packed = softfloat.quantize(x[::2], "e2m1", packed=True)
    assert packed.size == 64
    assert np.array_equal(softfloat.unpack_codes(packed, 4, 128)[~nan[::2]], theirs[::2][~nan[::2]])


def test_ml_dtypes_integer_types_are_refused():
    with pytest.raises(TypeError, match=r"softfloat\.quantize: expected an array of floats .* got dtype int4"):
        softfloat.quantize(np.zeros(3, ml_dtypes.int4), "e4m3")


@pytest.mark.parametrize("fmt", ["fp16", "bf16", "e5m2", "e3m4", "e4m3:ieee", "e4m3"])
def test_every_code_of_the_formats_own_dtype_comes_back_as_itself(fmt):
    # The values of a format's own dtype are read from their codes, so each rounds to
    # itself, a NaN with its sign and whole payload, made quiet (round_to_format's NaN
    # rule: the quiet bit, the top mantissa bit, set). ml_dtypes' cast to float32 would
    # keep the NaN but not its payload.
    dtype = softfloat._native_dtypes.numpy_dtype(fmt)
    info = softfloat.format_info(fmt)
    codes = np.arange(1 << info.bits, dtype=np.uint32).astype(np.uint8 if info.bits == 8 else np.uint16)
    x = codes.view(dtype)
    nan = np.isnan(x.astype(np.float32))
    assert nan.sum() > 1
    quiet = codes.dtype.type(1 << (info.mantissa_bits - 1))
    expected = np.where(nan, codes | quiet, codes)
    assert np.array_equal(softfloat.quantize(x, fmt), expected)
    assert np.array_equal(softfloat.round_trip(x, fmt).view(np.uint32),
                          softfloat.dequantize(expected, fmt).view(np.uint32))
