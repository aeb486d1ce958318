"""Convert and compare with NumPy's own casts, under whichever NumPy is installed.

softfloat supports NumPy 1.26 and 2.x; the wheel check of scripts/dev.sh (phase 7) runs
this file under NumPy 1.26, the main suite under 2.4. NumPy's float16 cast is the peer:
round to nearest even, subnormals kept, overflow to infinity. float64 input is rounded
once, straight from the double, which NumPy's float64 -> float16 cast also does.
"""
import numpy as np

import softfloat
from conftest import assert_same_bits, every_float16_value


def float32_inputs():
    """Every float16 value, the midpoints between neighbours (ties, both parities), a
    float32 ulp either side of each midpoint, and the overflow boundary."""
    values = every_float16_value()
    finite = np.sort(np.unique(values[np.isfinite(values)]))
    midpoints = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)  # exact in float32
    around = np.concatenate([np.nextafter(midpoints, np.float32(np.inf)), np.nextafter(midpoints, np.float32(-np.inf))])
    overflow = np.array([65504, 65519.996, 65520, 65536, 1e10, -65520], np.float32)
    return np.concatenate([values, midpoints, around, overflow])


def test_fp16_codes_and_values_match_numpys_cast():
    x = float32_inputs()
    with np.errstate(over="ignore", invalid="ignore"):
        expected = x.astype(np.float16)
    numbers = ~np.isnan(x)
    codes = softfloat.quantize(x, "fp16")
    assert codes.dtype == np.uint16
    np.testing.assert_array_equal(codes[numbers], expected.view(np.uint16)[numbers])
    assert np.all(np.isnan(softfloat.round_trip(x, "fp16")[~numbers]))
    assert_same_bits(softfloat.round_trip(x[numbers], "fp16"), expected[numbers].astype(np.float32))
    assert softfloat.quantize(np.array([65520, 65519.996], np.float32), "fp16").tolist() == [0x7C00, 0x7BFF]


def test_float64_input_matches_numpys_cast_from_the_double():
    # Just above a tie in float64, a tie (hence down to even) once rounded to float32 first.
    x = np.array([1 + 2.0**-11 + 2.0**-40, -(1 + 2.0**-11 + 2.0**-40), 2.0**-24 * 0.5000001, 7e4], np.float64)
    with np.errstate(over="ignore"):
        expected = x.astype(np.float16)
    np.testing.assert_array_equal(softfloat.quantize(x, "fp16"), expected.view(np.uint16))
    assert softfloat.quantize(x[:1], "fp16")[0] == 0x3C01  # 1 + 2^-10, where float32 would give 1.0
    assert_same_bits(softfloat.round_trip(x, "fp16"), expected.astype(np.float64))


def test_decoding_every_fp16_code_matches_numpy():
    codes = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    expected = codes.view(np.float16).astype(np.float32)
    numbers = ~np.isnan(expected)
    values = softfloat.dequantize(codes, "fp16")
    assert values.dtype == np.float32
    assert_same_bits(values[numbers], expected[numbers])
    assert np.all(np.isnan(values[~numbers]))
