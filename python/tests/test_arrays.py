"""round_trip / quantize / dequantize: values worked out by hand, dtypes and shapes,
double rounding, stochastic seeds, the packed layout, and the errors."""
import numpy as np
import pytest

import softfloat
from conftest import assert_same_bits


# --- Values worked out by hand -------------------------------------------------------

def test_rounding_directions_on_a_tie():
    # E4M3 around 1: the gap is 2^-3, so 1.0625 lies halfway between 1 (0b0'0111'000)
    # and 1.125 (0b0'0111'001).
    x = np.array([1.0625, -1.0625], np.float32)
    expected = {
        "nearest_even": [1.0, -1.0], "nearest_away": [1.125, -1.125], "nearest_zero": [1.0, -1.0],
        "toward_zero": [1.0, -1.0], "away_from_zero": [1.125, -1.125], "up": [1.125, -1.0],
        "down": [1.0, -1.125],
        "odd": [1.125, -1.125],  # the kept 1.0 has an even last bit: an inexact result sets it
    }
    for mode, values in expected.items():
        assert softfloat.round_trip(x, "e4m3", mode).tolist() == values, mode


def test_overflow_and_saturation():
    x = np.array([1000.0, -np.inf, 1e6], np.float32)
    # E4M3 has no infinity: overflow gives NaN (0x7F / 0xFF) unless saturating to +-448.
    assert softfloat.quantize(x[:2], "e4m3").tolist() == [0x7F, 0xFF]
    assert softfloat.round_trip(x[:2], "e4m3", saturate=True).tolist() == [448.0, -448.0]
    # E5M2 has infinity: 1e6 > 57344 overflows to inf, or to 57344 = 1.75 * 2^15 saturating.
    assert softfloat.round_trip(x[2:], "e5m2").tolist() == [np.inf]
    assert softfloat.round_trip(x[2:], "e5m2", saturate=True).tolist() == [57344.0]
    # E2M1 has neither: 7 clamps to 6 = 1.5 * 2^2 in every case.
    assert softfloat.round_trip(np.array([7.0]), "e2m1").tolist() == [6.0]


def test_float64_is_rounded_once_straight_from_the_double():
    # -431.99999999999994 lies just above -432 = -(416 + 448) / 2, the midpoint of two E4M3
    # neighbours: once rounded it is -416. Through float32 it would first become -432, a
    # tie, and then -448 (ties to the even mantissa 0b110).
    x = np.array([-431.99999999999994])
    result = softfloat.round_trip(x, "e4m3")
    assert result.dtype == np.float64 and result.tolist() == [-416.0]
    assert softfloat.round_trip(x.astype(np.float32), "e4m3").tolist() == [-448.0]
    assert softfloat.quantize(x, "e4m3").tolist() == [0b1_1111_101]  # -1.625 * 2^8


@pytest.mark.parametrize("fmt", ["bf16", "fp16", "e5m2", "e4m3", "e3m2", "e2m3", "e2m1", "e4m3fnuz"])
def test_double_rounding_cases(fmt):
    """For every pair of adjacent positive values a < b, the float64 just below the
    midpoint (a + b) / 2 must round to a and the one just above to b; float32 turns both
    into the midpoint itself, which a second rounding would send to the even neighbour."""
    info = softfloat.format_info(fmt)
    grid = np.unique(np.abs(softfloat.dequantize(np.arange(1 << min(info.bits, 16), dtype=np.uint32).astype(
        {4: np.uint8, 6: np.uint8, 8: np.uint8, 16: np.uint16}[info.bits]), fmt, dtype=np.float64)))
    grid = grid[np.isfinite(grid)]
    low, high = grid[:-1], grid[1:]
    midpoint = (low + high) / 2  # exact in float64: both have at most 12 significant bits
    below, above = np.nextafter(midpoint, 0), np.nextafter(midpoint, np.inf)
    assert_same_bits(softfloat.round_trip(below, fmt), low)
    assert_same_bits(softfloat.round_trip(above, fmt), high)
    assert_same_bits(softfloat.round_trip(-below[1:], fmt), -low[1:])  # (-0 is the format's business)
    assert np.all(below.astype(np.float32) == midpoint)  # what a float32 detour would see


def test_formats_beyond_float32():
    # E11M10 (IEEE-style, bias 1023): 2^200 has exponent field 1223, so its code is
    # 1223 << 10. float32 cannot hold it (inf); float64 can.
    codes = np.array([1223 << 10], np.uint32)
    assert softfloat.dequantize(codes, "e11m10", dtype=np.float64).tolist() == [2.0**200]
    assert softfloat.dequantize(codes, "e11m10").tolist() == [np.inf]
    # 2^200 * (1 + 2^-11 + 2^-40) lies above the midpoint of 2^200 and 2^200 * (1 + 2^-10).
    x = np.array([2.0**200 * (1 + 2**-11 + 2**-40), 2.0**200 * (1 + 2**-11)])
    assert softfloat.round_trip(x, "e11m10").tolist() == [2.0**200 * (1 + 2**-10), 2.0**200]
    # fp64 codes of a double are its own bits; its round trip is the identity.
    y = np.array([np.pi, -1e-310, 1.0])
    assert softfloat.quantize(y, "fp64").tolist() == y.view(np.uint64).tolist()
    assert_same_bits(softfloat.round_trip(y, "fp64"), y)
    assert_same_bits(softfloat.round_trip(y.astype(np.float32), "fp64"), y.astype(np.float32))


# --- dtypes and shapes -----------------------------------------------------------------

def test_code_dtypes_follow_the_width():
    x = np.ones(3, np.float32)
    dtypes = {"e2m1": np.uint8, "e3m2": np.uint8, "e4m3": np.uint8, "bf16": np.uint16, "fp16": np.uint16,
              "tf32": np.uint32, "fp32": np.uint32, "fp64": np.uint64}
    for fmt, dtype in dtypes.items():
        assert softfloat.quantize(x, fmt).dtype == dtype, fmt


def test_dtype_and_shape_are_kept():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x = rng.normal(size=(3, 4, 5)).astype(dtype)
        result = softfloat.round_trip(x, "bf16")
        assert result.dtype == dtype and result.shape == (3, 4, 5) and result.flags.c_contiguous
        assert softfloat.quantize(x, "e4m3").shape == (3, 4, 5)
    scalar = softfloat.round_trip(np.float32(0.1), "bf16")
    assert scalar.shape == () and scalar.dtype == np.float32 and scalar == np.float32(0.10009765625)
    assert softfloat.round_trip(np.zeros((0, 7), np.float32), "e4m3").shape == (0, 7)
    # A list becomes the float64 array NumPy makes of it.
    assert softfloat.round_trip([0.1, 3.0], "e2m1").tolist() == [0.0, 3.0]


def test_non_contiguous_and_byte_swapped_arrays_are_copied():
    rng = np.random.default_rng(2)
    base = rng.normal(size=(8, 9)).astype(np.float32)
    views = [base[::2, 1::3], base.T, base[::-1, ::-1], np.asfortranarray(base), base.astype(">f4")]
    for view in views:
        before = view.copy()
        expected = softfloat.round_trip(np.ascontiguousarray(view, dtype=np.float32), "e5m2")
        assert_same_bits(softfloat.round_trip(view, "e5m2"), expected)
        assert np.array_equal(view, before)  # the input is never written
        assert softfloat.quantize(view, "e5m2").tolist() == softfloat.quantize(expected, "e5m2").tolist()


def test_dequantize_float64_and_code_arrays_wider_than_needed():
    x = np.array([0.1, -3.5, 1e-3], np.float32)
    codes = softfloat.quantize(x, "bf16")
    as_float32 = softfloat.dequantize(codes, "bf16")
    assert softfloat.dequantize(codes, "bf16", dtype=np.float64).tolist() == as_float32.astype(np.float64).tolist()
    assert softfloat.dequantize(codes.astype(np.uint32), "bf16").tolist() == as_float32.tolist()
    assert softfloat.dequantize(codes.astype(np.uint64), "bf16").tolist() == as_float32.tolist()
    # A code with bits above the format's width is refused, never truncated (300 is not
    # the E4M3 code 300 - 256 = 44 = 0.375).
    with pytest.raises(ValueError, match=r"dequantize: code 300 at flat index 1 does not fit e4m3's 8 bits"):
        softfloat.dequantize(np.array([0x38, 300], np.uint16), "e4m3")
    with pytest.raises(ValueError, match=r"code 16 at flat index 0 does not fit e2m1's 4 bits"):
        softfloat.dequantize(np.array([16, 1], np.uint8), "e2m1")
    with pytest.raises(ValueError, match=r"does not fit bf16's 16 bits"):
        softfloat.dequantize(np.array([1 << 16], np.uint32), "bf16")
    assert softfloat.dequantize(np.array([0x0F], np.uint8), "e2m1").tolist() == [-6.0]


# --- Stochastic rounding ------------------------------------------------------------------

def test_stochastic_seeds():
    # 1 + 2^-5 lies a quarter of the way from 1 to E4M3's next value 1.125.
    x = np.full(1 << 14, 1 + 2**-5, np.float32)
    a = softfloat.round_trip(x, "e4m3", "stochastic", seed=42)
    assert set(np.unique(a).tolist()) == {1.0, 1.125}
    assert_same_bits(softfloat.round_trip(x, "e4m3", "stochastic", seed=42), a)
    assert not np.array_equal(softfloat.round_trip(x, "e4m3", "stochastic", seed=43), a)
    # seed=None draws a fresh seed each call: 2^14 coin flips agree with chance 2^-13000.
    assert not np.array_equal(softfloat.round_trip(x, "e4m3", "stochastic"),
                              softfloat.round_trip(x, "e4m3", "stochastic"))
    # An array done in two pieces, the second starting at offset = its position, matches.
    half = x.size // 2
    pieces = np.concatenate([softfloat.round_trip(x[:half], "e4m3", "stochastic", seed=42),
                             softfloat.round_trip(x[half:], "e4m3", "stochastic", seed=42, offset=half)])
    assert_same_bits(pieces, a)
    # The deterministic modes ignore the seed.
    assert_same_bits(softfloat.round_trip(x, "e4m3", seed=1), softfloat.round_trip(x, "e4m3", seed=2))


# --- Packed codes ------------------------------------------------------------------------

def test_packed_layouts_worked_by_hand():
    # E2M1 {1.0, -0.5}: codes 0b0'01'0 = 0x2 and 0b1'00'1 = 0x9, element 0 in the low nibble.
    assert softfloat.quantize(np.array([1.0, -0.5], np.float32), "e2m1", packed=True).tolist() == [0x92]
    # An odd count leaves the high nibble of the last byte zero: 6 = 0b0'11'1 = 0x7.
    assert softfloat.quantize(np.array([1.0, -0.5, 6.0]), "e2m1", packed=True).tolist() == [0x92, 0x07]
    # E3M2 {1, -2, 0.25, 28}: codes 0x0C, 0x30, 0x04, 0x1F as a little-endian bit stream:
    # 0x0C | 0x30 << 6 | 0x04 << 12 | 0x1F << 18 = 0x7C4C0C -> bytes 0x0C 0x4C 0x7C.
    packed = softfloat.quantize(np.array([1.0, -2.0, 0.25, 28.0], np.float32), "e3m2", packed=True)
    assert packed.tolist() == [0x0C, 0x4C, 0x7C]
    assert softfloat.dequantize(packed, "e3m2", packed=True).tolist() == [1.0, -2.0, 0.25, 28.0]
    assert softfloat.dequantize(packed, "e3m2", packed=True, shape=(2, 2)).tolist() == [[1.0, -2.0], [0.25, 28.0]]
    assert softfloat.pack_codes(np.array([0x0C, 0x30, 0x04, 0x1F], np.uint8), 6).tolist() == [0x0C, 0x4C, 0x7C]
    assert softfloat.unpack_codes(packed, 6).tolist() == [0x0C, 0x30, 0x04, 0x1F]


@pytest.mark.parametrize("fmt", ["e2m1", "e2m1:ieee", "e3m2", "e2m3", "e3m2:ieee", "e3m3:unsigned", "e4m2:unsigned"])
def test_every_code_survives_packing(fmt):
    bits = softfloat.format_info(fmt).bits
    codes = np.tile(np.arange(1 << bits, dtype=np.uint8), 3)[:-1]  # not a whole number of groups
    packed = softfloat.pack_codes(codes, bits)
    assert packed.size == (codes.size * bits + 7) // 8
    assert softfloat.unpack_codes(packed, bits, codes.size).tolist() == codes.tolist()
    assert_same_bits(softfloat.dequantize(packed, fmt, packed=True, shape=codes.size),
                     softfloat.dequantize(codes, fmt))
    assert_same_bits(softfloat.dequantize(packed, fmt, packed=True, shape=codes.size, dtype=np.float64),
                     softfloat.dequantize(codes, fmt, dtype=np.float64))


def test_packed_float64_input_is_rounded_from_the_double():
    # E3M2 between 4 and 8: 4, 5, 6, 7. Just below 5.5 rounds to 5 = 0b0'101'01 = 0x15
    # (-5: 0x35); float32 would make it 5.5, a tie, and then 6 (the even mantissa 0b10).
    # 1.0 = 0b0'011'00 = 0x0C. Bit stream 0x15 | 0x35 << 6 | 0x0C << 12 = 0xCD55.
    below = np.nextafter(5.5, 0)
    x = np.array([below, -below, 1.0])
    assert softfloat.quantize(x, "e3m2", packed=True).tolist() == [0x55, 0xCD, 0x00]
    assert softfloat.round_trip(x.astype(np.float32), "e3m2").tolist() == [6.0, -6.0, 1.0]
    # E2M1 between 2 and 3: just above 2.5 rounds to 3 = 0b0'10'1 = 0x5 (float32: 2.5, then 2).
    assert softfloat.quantize(np.array([np.nextafter(2.5, 3)]), "e2m1", packed=True).tolist() == [0x05]


# --- Errors ---------------------------------------------------------------------------------

def test_wrong_dtypes_raise_type_error():
    with pytest.raises(TypeError, match=r"softfloat\.round_trip: expected an array of floats \(float32, float64, "
                                        r"float16 or an ml_dtypes float type\), got dtype int64"):
        softfloat.round_trip(np.arange(3), "e4m3")
    with pytest.raises(TypeError, match="complex128"):
        softfloat.round_trip(np.zeros(3, complex), "e4m3")
    with pytest.raises(TypeError, match=r"softfloat\.dequantize: expected codes as uint8.*got dtype int8"):
        softfloat.dequantize(np.zeros(3, np.int8), "e4m3")
    with pytest.raises(TypeError, match="packed codes are bytes"):
        softfloat.dequantize(np.zeros(3, np.uint16), "e2m1", packed=True)
    with pytest.raises(TypeError, match="dtype must be float32 or float64"):
        softfloat.dequantize(np.zeros(3, np.uint8), "e4m3", dtype=np.float16)


def test_bad_options_raise_value_error():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"unknown rounding mode 'nearest' \(accepted: nearest_even, "):
        softfloat.round_trip(x, "e4m3", "nearest")
    with pytest.raises(ValueError, match=r"softfloat\.quantize: unknown format|softfloat\.quantize: .*'e4m9z'"):
        softfloat.quantize(x, "e4m9z")
    with pytest.raises(ValueError, match="packed=True needs a 4- or 6-bit format; e4m3 has 8 bits"):
        softfloat.quantize(x, "e4m3", packed=True)
    with pytest.raises(ValueError, match="bf16 codes have 16 bits and do not fit the array's uint8"):
        softfloat.dequantize(np.zeros(3, np.uint8), "bf16")
    with pytest.raises(ValueError, match="5 packed 4-bit codes take 3 bytes; the array has 2"):
        softfloat.dequantize(np.zeros(2, np.uint8), "e2m1", packed=True, shape=5)
    with pytest.raises(ValueError, match=r"softfloat\.unpack_codes: 3 packed 6-bit codes take 3 bytes; the array has 2"):
        softfloat.unpack_codes(np.zeros(2, np.uint8), 6, 3)
    with pytest.raises(TypeError, match=r"softfloat\.unpack_codes: packed codes are bytes \(uint8\), got uint16"):
        softfloat.unpack_codes(np.zeros(2, np.uint16), 4)
    with pytest.raises(ValueError, match="shape= is for packed codes"):
        softfloat.dequantize(np.zeros(2, np.uint8), "e2m1", shape=2)
    with pytest.raises(ValueError, match=r"seed must lie in \[0, 2\*\*64\)"):
        softfloat.round_trip(x, "e4m3", "stochastic", seed=-1)
    with pytest.raises(TypeError, match="seed must be an integer, not float"):
        softfloat.round_trip(x, "e4m3", "stochastic", seed=1.5)
    with pytest.raises(ValueError, match="bits must be 4 or 6"):
        softfloat.pack_codes(np.zeros(2, np.uint8), 8)
    with pytest.raises(ValueError, match="the shape has a negative extent"):
        softfloat.dequantize(np.zeros(2, np.uint8), "e2m1", packed=True, shape=(2, -1))
    with pytest.raises(TypeError, match="shape must be an int or a tuple of ints, not 'four'"):
        softfloat.unpack_codes(np.zeros(2, np.uint8), 4, shape="four")


# --- Threads --------------------------------------------------------------------------------

def test_concurrent_calls_from_python_threads():
    """The calls release the GIL, so Python threads convert side by side (and with the
    library's own worker threads); each result is what one call alone gives."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(6)
    arrays = [rng.normal(size=1 << 18).astype(np.float32) for _ in range(4)]
    expected = [softfloat.round_trip(x, "e4m3", "stochastic", seed=i) for i, x in enumerate(arrays)]
    previous = softfloat.num_threads()
    softfloat.set_num_threads(2)
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda i: softfloat.round_trip(arrays[i], "e4m3", "stochastic", seed=i),
                                    range(4)))
    finally:
        softfloat.set_num_threads(previous)
    for result, want in zip(results, expected):
        assert_same_bits(result, want)
    with pytest.raises(ValueError):
        softfloat.set_num_threads(0)
