"""The array path equals the C++ scalar path bit for bit.

softfloat._scalar_quantize / _scalar_dequantize run the library's value-by-value
definition (decode exactly, round_to_format once, random_bits(seed, offset + i) for the
stochastic modes), which the C++ suites check against GNU MPFR. quantize, dequantize and
round_trip must give the same bits for every float16-representable input and for large
random float32 and float64 samples, in every named format of at most 32 bits.
"""
import zlib

import numpy as np
import pytest

import softfloat
from conftest import ARRAY_FORMATS, assert_same_bits, every_float16_value, widened

MODES = softfloat.rounding_modes()


def random_float32_sample(rng, fmt, count):
    """Half random bit patterns (every exponent, NaN payloads, infinities), half values
    spread log-uniformly over the format's range and a few binades beyond."""
    patterns = rng.integers(0, 1 << 32, size=count // 2, dtype=np.uint64).astype(np.uint32).view(np.float32)
    info = softfloat.format_info(fmt)
    low = max(np.log2(info.min_subnormal) - 3, -150)
    high = min(np.log2(info.max) + 2, 127)
    magnitudes = np.exp2(rng.uniform(low, high, size=count - count // 2))
    signs = rng.choice([-1.0, 1.0], size=magnitudes.size)
    return np.concatenate([patterns, (signs * magnitudes).astype(np.float32)])


def random_float64_sample(rng, fmt, count):
    """float64 values with all 52 mantissa bits random (so float32 could not hold them),
    log-uniform over the format's range and beyond, plus random bit patterns."""
    patterns = rng.integers(0, 1 << 63, size=count // 4, dtype=np.uint64).view(np.float64)
    info = softfloat.format_info(fmt)
    low = max(np.log2(info.min_subnormal) - 3, -1070)
    high = min(np.log2(info.max) + 2, 1020)
    magnitudes = np.exp2(rng.uniform(low, high, size=count - patterns.size))
    signs = rng.choice([-1.0, 1.0], size=magnitudes.size)
    return np.concatenate([patterns, signs * magnitudes])


def check_agreement(x, fmt, mode, saturate, seed=7, offset=0):
    codes = softfloat.quantize(x, fmt, mode, saturate, seed, offset=offset)
    expected_codes = softfloat._scalar_quantize(x, fmt, mode, saturate, seed, offset=offset)
    assert_same_bits(codes, expected_codes)
    result = softfloat.round_trip(x, fmt, mode, saturate, seed, offset=offset)
    assert_same_bits(result, softfloat._scalar_dequantize(expected_codes, fmt, dtype=x.dtype))
    assert_same_bits(softfloat.dequantize(codes, fmt, dtype=x.dtype), result)


@pytest.mark.parametrize("fmt", ARRAY_FORMATS)
@pytest.mark.parametrize("saturate", [False, True])
def test_every_float16_value_nearest_even(fmt, saturate):
    x = every_float16_value()
    check_agreement(x, fmt, "nearest_even", saturate)
    check_agreement(widened(x), fmt, "nearest_even", saturate)


# Every rounding direction on one format per special-value convention and width.
@pytest.mark.parametrize("fmt", ["bf16", "fp16", "e5m2", "e4m3", "e4m3fnuz", "e2m1", "e8m0", "p3109_8p3"])
@pytest.mark.parametrize("mode", [m for m in MODES if m != "nearest_even"])
def test_every_float16_value_other_modes(fmt, mode):
    x = every_float16_value()
    check_agreement(x, fmt, mode, saturate=False, seed=11, offset=5)
    check_agreement(x, fmt, mode, saturate=True, seed=11)
    check_agreement(widened(x), fmt, mode, saturate=False, seed=12)


@pytest.mark.parametrize("fmt", ARRAY_FORMATS)
def test_random_float32_sample(fmt):
    rng = np.random.default_rng(zlib.crc32(fmt.encode()))
    x = random_float32_sample(rng, fmt, 1 << 18)
    check_agreement(x, fmt, "nearest_even", saturate=False)
    check_agreement(x[: 1 << 16], fmt, "toward_zero", saturate=True)
    check_agreement(x[: 1 << 16], fmt, "stochastic", saturate=False, seed=3)


@pytest.mark.parametrize("fmt", ARRAY_FORMATS)
def test_random_float64_sample(fmt):
    rng = np.random.default_rng(zlib.crc32(fmt.encode()) + 1)
    x = random_float64_sample(rng, fmt, 1 << 17)
    check_agreement(x, fmt, "nearest_even", saturate=False)
    check_agreement(x[: 1 << 15], fmt, "up", saturate=True)
    check_agreement(x[: 1 << 15], fmt, "stochastic", saturate=False, seed=4)


@pytest.mark.parametrize("fmt", ["e2m1", "e3m2", "e2m3"])
def test_packed_codes_are_the_scalar_codes(fmt):
    rng = np.random.default_rng(5)
    bits = softfloat.format_info(fmt).bits
    for x in (random_float32_sample(rng, fmt, 4099), random_float64_sample(rng, fmt, 4099)):
        packed = softfloat.quantize(x, fmt, "stochastic", seed=9, packed=True)
        expected = softfloat._scalar_quantize(x, fmt, "stochastic", seed=9)
        assert_same_bits(softfloat.unpack_codes(packed, bits, x.size), expected)
