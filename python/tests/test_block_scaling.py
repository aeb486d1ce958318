"""MX and NVFP4 along any axis, with element roundings: mx_round_trip and
nvfp4_round_trip against quantize + dequantize, axis 0 against the transpose, stochastic
streams, NVFP4 against its recipe written out in NumPy float32, and the errors."""
import numpy as np
import pytest

import softfloat
from conftest import assert_same_bits

F32 = np.float32


def sample(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) * np.exp2(rng.integers(-8, 8, size=shape[:-1] + (1,)))).astype(F32)


@pytest.mark.parametrize("kind", softfloat.mx_elements())
@pytest.mark.parametrize("rule", softfloat.mx_scale_rules())
def test_mx_round_trip_is_dequantize_of_quantize(kind, rule):
    x = sample((5, 96), 1)
    for rounding, seed in (("nearest_even", None), ("stochastic", 7), ("toward_zero", None)):
        elements, scales = softfloat.mx_quantize(x, kind, scale_rule=rule, rounding=rounding, seed=seed)
        expected = softfloat.mx_dequantize(elements, scales, kind, length=96)
        assert_same_bits(softfloat.mx_round_trip(x, kind, scale_rule=rule, rounding=rounding, seed=seed), expected)


@pytest.mark.parametrize("kind", ["mxfp8_e4m3", "mxfp4_e2m1", "mxfp6_e3m2", "mxint8"])
def test_mx_along_axis_0_is_mx_of_the_transpose(kind):
    x = sample((64, 7), 2)  # blocks of 32 along axis 0
    elements, scales = softfloat.mx_quantize(x, kind, axis=0)
    t_elements, t_scales = softfloat.mx_quantize(np.ascontiguousarray(x.T), kind)
    assert np.array_equal(elements, t_elements.T) and np.array_equal(scales, t_scales.T)
    assert scales.shape == (2, 7)
    values = softfloat.mx_dequantize(elements, scales, kind, axis=0, length=64)
    assert_same_bits(values, np.ascontiguousarray(softfloat.mx_dequantize(t_elements, t_scales, kind, length=64).T))
    assert_same_bits(softfloat.mx_round_trip(x, kind, axis=0), values)
    assert_same_bits(softfloat.mx_round_trip(x, kind, axis=-2), values)


def test_mx_stochastic_elements_follow_seed_and_offset():
    x = np.full((4, 32), 1 + 2**-5, F32)  # each block's max is x: s = -8, x * 2^8 between E4M3 codes
    a = softfloat.mx_round_trip(x, "mxfp8_e4m3", rounding="stochastic", seed=3)
    assert_same_bits(a, softfloat.mx_round_trip(x, "mxfp8_e4m3", rounding="stochastic", seed=3))
    # The stream continues: rows 2 and 3 alone with offset 64 are rows 2 and 3 of the whole.
    assert_same_bits(softfloat.mx_round_trip(x[2:], "mxfp8_e4m3", rounding="stochastic", seed=3, offset=64), a[2:])
    # 1 + 2^-5 lies a quarter of the way from 1 to 1.125: about a quarter round up.
    ups = np.mean(a > 1)
    assert 0.1 < ups < 0.45
    assert np.all((a == 1) | (a == 1.125))


def test_mx_element_roundings():
    x = np.zeros(32, F32)
    x[:3] = [8, 1 + 2**-4, -(1 + 2**-4)]  # max 8: s = 3 - 8 = -5; the ties 1 + 2^-4 (E4M3 ulp 2^-3 at 1)
    assert softfloat.mx_round_trip(x, "mxfp8_e4m3")[:3].tolist() == [8, 1, -1]
    assert softfloat.mx_round_trip(x, "mxfp8_e4m3", rounding="nearest_away")[:3].tolist() == [8, 1.125, -1.125]
    for rounding in ("up", "down", "away_from_zero", "odd", "stochastic_equal", "sideways"):
        with pytest.raises(ValueError, match="mx_round_trip"):
            softfloat.mx_round_trip(x, "mxfp8_e4m3", rounding=rounding)


def nvfp4_by_recipe(x):
    """NVFP4 by TransformerEngine's steps in NumPy float32 (each operation rounded to
    nearest even in float32), the E4M3 and E2M1 roundings by softfloat.quantize."""
    flat = x.reshape(-1, 16)
    block_amax = np.max(np.abs(flat), axis=1)
    amax = F32(np.max(block_amax))
    s_enc = F32(1) if amax == 0 else np.minimum(F32(2688) / amax, F32(np.finfo(F32).max))
    s_dec = F32(1) / s_enc
    per_block = s_enc * F32(1.0 / 6.0)
    scales = softfloat.quantize(block_amax * per_block, "e4m3", saturate=True)
    scale_values = softfloat.dequantize(scales, "e4m3")
    with np.errstate(divide="ignore"):
        factors = np.minimum(F32(1) / (scale_values * s_dec), F32(np.finfo(F32).max))
    elements = softfloat.quantize(flat * factors[:, None], "e2m1", saturate=True)
    values = softfloat.dequantize(elements, "e2m1") * ((scale_values * amax) * F32(1.0 / 2688.0))[:, None]
    return values.reshape(x.shape), scales.reshape(x.shape[:-1] + (-1,)), amax


def test_nvfp4_follows_the_recipe():
    x = sample((6, 64), 4)
    expected, expected_scales, expected_amax = nvfp4_by_recipe(x)
    elements, scales, amax = softfloat.nvfp4_quantize(x)
    assert elements.shape == (6, 32) and scales.shape == (6, 4) and isinstance(amax, float)
    assert amax == expected_amax and np.array_equal(scales, expected_scales)
    assert_same_bits(softfloat.nvfp4_dequantize(elements, scales, amax), expected.astype(F32))
    assert_same_bits(softfloat.nvfp4_round_trip(x), expected.astype(F32))
    # Element 0 sits in the low nibble: unpacking gives the E2M1 codes of the recipe.
    codes = softfloat.unpack_codes(elements.ravel(), 4)
    factors_applied = softfloat.quantize(softfloat.dequantize(codes, "e2m1"), "e2m1")
    assert np.array_equal(codes, factors_applied)


def test_nvfp4_axis_and_stochastic():
    x = sample((32, 5), 5)
    along_0 = softfloat.nvfp4_round_trip(x, axis=0)
    assert_same_bits(along_0, np.ascontiguousarray(softfloat.nvfp4_round_trip(np.ascontiguousarray(x.T)).T))
    elements, scales, amax = softfloat.nvfp4_quantize(x, axis=0)
    assert scales.shape == (2, 5)
    assert_same_bits(softfloat.nvfp4_dequantize(elements, scales, amax, axis=0), along_0)
    a = softfloat.nvfp4_round_trip(x, axis=0, rounding="stochastic", seed=11)
    assert_same_bits(a, softfloat.nvfp4_round_trip(x, axis=0, rounding="stochastic", seed=11))
    assert not np.array_equal(a, softfloat.nvfp4_round_trip(x, axis=0, rounding="stochastic", seed=12))
    # Stochastic rounding is unbiased: the mean error over many draws is far below nearest's spread.
    y = np.tile(x[:, :1].T, (4000, 1)).astype(F32)  # 4000 rows of the same 32 values
    draws = softfloat.nvfp4_round_trip(y, rounding="stochastic", seed=1)
    assert np.max(np.abs(draws.mean(axis=0) - y[0])) < 0.02 * np.max(np.abs(y))


def test_block_scaling_errors():
    x = np.ones((3, 40), F32)
    with pytest.raises(ValueError, match="nvfp4_quantize: .*multiple of 16 long; it is 40"):
        softfloat.nvfp4_quantize(x)
    with pytest.raises(ValueError, match="axis 2 is out of range for an array of 2 dimensions"):
        softfloat.mx_quantize(x, "mxfp8_e4m3", axis=2)
    with pytest.raises(ValueError, match="0-d array"):
        softfloat.mx_round_trip(np.float32(1), "mxfp8_e4m3")
    with pytest.raises(TypeError, match="float32"):
        softfloat.nvfp4_round_trip(np.ones(16))
    with pytest.raises(ValueError, match="unknown"):
        softfloat.mx_round_trip(x, "mxfp3")
    with pytest.raises(ValueError, match="multiple of 2"):
        softfloat.mx_round_trip(x, "mxfp4_e2m1", block_size=3)
