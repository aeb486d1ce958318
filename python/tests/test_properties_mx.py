"""Property tests of the MX and NVFP4 functions on hostile input: every element kind,
scale rule and element rounding, block sizes that do and do not divide the rows, any
axis of arrays up to rank 4, strided views, blocks of specials, zeros, subnormals and
values at the scale rules' thresholds. The reference is written out here from the
definitions (docs/design/block-formats.md, softfloat/nvfp4.hpp): the shared exponent
computed exactly in Python, each element rounded by the scalar path
(softfloat._scalar_quantize, whose bits the C++ suites check against MPFR), and NVFP4's
fp32 recipe in NumPy float32 arithmetic, step by step. Every rejection must be the
documented ValueError or TypeError.
"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import softfloat
from conftest import assert_same_bits
from strategies import float_values, rejection_settings, seeds, shapes, views

# kind: (format of the element grid, emax_elem, mantissa bits, bits per element). MXINT8
# is the grid k / 64, |k| <= 127: a one-exponent-bit finite format of six fraction bits.
KINDS = {"mxfp8_e4m3": ("e4m3", 8, 3, 8), "mxfp8_e5m2": ("e5m2", 15, 2, 8), "mxfp6_e3m2": ("e3m2", 4, 2, 6),
         "mxfp6_e2m3": ("e2m3", 2, 3, 6), "mxfp4_e2m1": ("e2m1", 2, 1, 4), "mxint8": ("e1m6:finite:bias=1", 0, 6, 8)}
RULES = ["floor", "rceil", "ceil", "even"]
ELEMENT_MODES = ["nearest_even", "nearest_away", "nearest_zero", "toward_zero", "stochastic"]


def shared_exponent(amax, kind, rule):
    """s of a block whose largest magnitude is amax > 0 (finite), by the rule, clamped to
    E8M0's [-127, 127]."""
    grid, emax, mantissa_bits, _ = KINDS[kind]
    significand, exponent = math.frexp(amax)  # amax = significand * 2^exponent, significand in [0.5, 1)
    floor_log2 = exponent - 1
    if rule == "floor":
        s = floor_log2 - emax
    elif rule == "ceil":
        s = floor_log2 + (significand != 0.5) - emax
    elif rule == "rceil":  # the smallest s with amax <= max_elem * 2^s
        max_elem = softfloat.format_info(grid).max
        s = floor_log2 - emax - 1
        while amax > max_elem * 2.0**s:
            s += 1
    else:  # even: amax rounded to mantissa_bits + 1 bits, ties away
        units = math.floor(2 * significand * 2**mantissa_bits + 0.5)  # exact: float64 holds these
        s = floor_log2 + (units == 2 ** (mantissa_bits + 1)) - emax
    return min(max(s, -127), 127)


def expected_mx(rows, kind, block_size, rule, mode, seed, offset):
    """(values, scale codes) of float32 rows (blocks along the last axis) by the definition."""
    grid = KINDS[kind][0]
    values = np.empty(rows.shape, np.float32)
    scales = np.empty(rows.shape[:-1] + (-(-rows.shape[-1] // block_size),), np.uint8)
    if rows.size == 0:
        return values, scales
    flat_rows = rows.reshape(-1, rows.shape[-1])
    flat_values = values.reshape(flat_rows.shape)
    flat_scales = scales.reshape(flat_rows.shape[0], -1)
    length = rows.shape[-1]
    for r, row in enumerate(flat_rows):
        for b, start in enumerate(range(0, length, block_size)):
            block = row[start:start + block_size].astype(np.float64)
            out = flat_values[r, start:start + block_size]
            if not np.all(np.isfinite(block)):
                flat_scales[r, b] = 0xFF
                out[:] = np.nan
                continue
            amax = float(np.max(np.abs(block)))
            s = shared_exponent(amax, kind, rule) if amax > 0 else -127
            flat_scales[r, b] = s + 127
            scaled = block * 2.0**-s  # exact: a power-of-two shift of float32 values
            codes = softfloat._scalar_quantize(scaled, grid, mode, True, seed, offset=offset + r * length + start)
            elements = softfloat._scalar_dequantize(codes, grid, dtype=np.float64)
            if kind == "mxint8":
                elements = elements + 0.0  # two's complement has no -0
            with np.errstate(over="ignore"):
                out[:] = (elements * 2.0**s).astype(np.float32)  # exact product, one rounding to fp32
    return values, scales


@st.composite
def mx_cases(draw):
    kind = draw(st.sampled_from(sorted(KINDS)))
    multiple = {4: 2, 6: 4, 8: 1}[KINDS[kind][3]]
    block_size = multiple * draw(st.integers(1, 12))
    shape = draw(shapes(max_size=160, max_dims=4).filter(lambda s: len(s) > 0))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    grid = KINDS[kind][0]
    size = math.prod(shape)
    # Values at the grid's boundaries, spread over binades by powers of two, so blocks hit
    # the rules' thresholds at every scale; and any float32 at all.
    magnitudes = st.integers(-140, 120).map(lambda k: 2.0**k)
    boundary = st.tuples(float_values(grid, 64), magnitudes).map(lambda p: p[0] * p[1])
    values = draw(st.lists(st.one_of(boundary, float_values(grid, 32)), min_size=size, max_size=size))
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(values, np.float64).astype(np.float32).reshape(shape)
    x = draw(views(x))  # strided, transposed or byte-swapped: the same rank
    return x, kind, block_size, draw(st.sampled_from(RULES)), axis, draw(st.sampled_from(ELEMENT_MODES)), \
        draw(seeds), draw(st.integers(0, 2**32))


@given(mx_cases())
def test_mx_blocks_follow_the_definition(case):
    x, kind, block_size, rule, axis, mode, seed, offset = case
    options = dict(block_size=block_size, scale_rule=rule, axis=axis, rounding=mode, seed=seed, offset=offset)
    rows = np.moveaxis(np.ascontiguousarray(x).astype(np.float32), axis, -1)
    expected_values, expected_scales = expected_mx(np.ascontiguousarray(rows), kind, block_size, rule, mode, seed,
                                                   offset)
    elements, scales = softfloat.mx_quantize(x, kind, **options)
    assert_same_bits(scales, np.ascontiguousarray(np.moveaxis(expected_scales, -1, axis)))
    expected = np.ascontiguousarray(np.moveaxis(expected_values, -1, axis))
    values = softfloat.mx_dequantize(elements, scales, kind, block_size=block_size, length=x.shape[axis], axis=axis)
    assert_same_bits(values, expected)
    assert_same_bits(softfloat.mx_round_trip(x, kind, **options), expected)


def expected_nvfp4(x, mode, seed, offset):
    """NVFP4 of float32 values (blocks of 16 along the flat C order) by the recipe of
    softfloat/nvfp4.hpp, every step an fp32 operation: (values, block scales, amax)."""
    f32 = np.float32
    blocks = x.reshape(-1, 16)
    special = ~np.all(np.isfinite(blocks), axis=1)
    amax = f32(np.max(np.abs(blocks[~special]), initial=0))
    flt_max = np.finfo(f32).max
    with np.errstate(all="ignore"):
        s_enc = f32(1) if amax == 0 else min(f32(2688) / amax, flt_max)
        s_dec = f32(1) / s_enc
        block_amax = np.max(np.abs(blocks), axis=1).astype(f32)
        scales = softfloat._scalar_quantize(block_amax * (s_enc * (f32(1) / f32(6))), "e4m3", saturate=True)
        scale_values = softfloat._scalar_dequantize(scales, "e4m3")
        factors = np.minimum(f32(1) / (scale_values * s_dec), flt_max).astype(f32)
        products = (blocks * factors[:, None]).astype(f32).reshape(-1)
        codes = softfloat._scalar_quantize(products, "e2m1", mode, True, seed, offset=offset)
        elements = softfloat._scalar_dequantize(codes, "e2m1").reshape(-1, 16)
        values = (elements * ((scale_values * amax) * (f32(1) / f32(2688)))[:, None]).astype(f32)
    values[np.isnan(values)] = np.nan  # the quiet NaN 0x7FC00000
    values[special] = np.nan
    scales[special] = 0x7F
    return values.reshape(x.shape), scales, amax


@st.composite
def nvfp4_cases(draw):
    rows = draw(st.integers(0, 4))
    length = 16 * draw(st.integers(1, 3))
    magnitudes = st.integers(-150, 125).map(lambda k: 2.0**k)
    boundary = st.tuples(float_values("e2m1", 64), magnitudes).map(lambda p: p[0] * p[1])
    values = draw(st.lists(st.one_of(boundary, float_values("e4m3", 32)), min_size=rows * length,
                           max_size=rows * length))
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(values, np.float64).astype(np.float32).reshape(rows, length)
    return x, draw(st.sampled_from(softfloat.rounding_modes())), draw(seeds), draw(st.integers(0, 2**32))


@given(nvfp4_cases())
def test_nvfp4_follows_the_recipe(case):
    x, mode, seed, offset = case
    values, scales, amax = expected_nvfp4(x, mode, seed, offset)
    elements, block_scales, tensor_amax = softfloat.nvfp4_quantize(x, rounding=mode, seed=seed, offset=offset)
    assert_same_bits(block_scales.reshape(-1), scales.astype(np.uint8))
    assert_same_bits(np.array([tensor_amax], np.float32), np.array([amax], np.float32))
    assert_same_bits(softfloat.nvfp4_dequantize(elements, block_scales, tensor_amax, length=x.shape[-1]), values)
    assert_same_bits(softfloat.nvfp4_round_trip(x, rounding=mode, seed=seed, offset=offset), values)
    # Along axis 0 of the transpose: the same blocks.
    assert_same_bits(softfloat.nvfp4_round_trip(x.T, axis=0, rounding=mode, seed=seed, offset=offset), values.T)


# --- Rejections.

@rejection_settings
@given(st.sampled_from(sorted(KINDS)), st.integers(0, 40), st.integers(1, 70))
def test_block_sizes_that_do_not_fit_raise_value_error(kind, block_size, length):
    multiple = {4: 2, 6: 4, 8: 1}[KINDS[kind][3]]
    x = np.ones((2, length), np.float32)
    if block_size % multiple == 0 and block_size > 0:
        softfloat.mx_round_trip(x, kind, block_size=block_size)
        return
    for function in (softfloat.mx_quantize, softfloat.mx_round_trip):
        with pytest.raises(ValueError, match=f"softfloat.{function.__name__}: "):
            function(x, kind, block_size=block_size)
    with pytest.raises(ValueError, match="softfloat.mx_dequantize: "):
        softfloat.mx_dequantize(np.zeros((2, length), np.uint8), np.zeros((2, 1), np.uint8), kind,
                                block_size=block_size)


@rejection_settings
@given(st.sampled_from(sorted(KINDS)), st.integers(max_value=-1))
def test_negative_block_sizes_raise_value_error(kind, block_size):
    x = np.ones(32, np.float32)
    with pytest.raises(ValueError, match="softfloat.mx_quantize: block_size must be a positive number"):
        softfloat.mx_quantize(x, kind, block_size=block_size)
    with pytest.raises(ValueError, match="softfloat.mx_dequantize: block_size must be a positive number"):
        softfloat.mx_dequantize(np.zeros(32, np.uint8), np.zeros(1, np.uint8), kind, block_size=block_size)


@rejection_settings
@given(st.one_of(st.floats(), st.text(max_size=3), st.lists(st.integers(), max_size=2),
                 st.integers(max_value=-1), st.integers(min_value=2**63)),
       st.sampled_from(["mx_dequantize", "nvfp4_dequantize"]))
def test_lengths_that_are_not_integers_or_out_of_range_raise_type_or_value_error(length, function):
    args = (np.zeros((2, 16), np.uint8), np.zeros((2, 1), np.uint8))
    args += ("mxfp8_e4m3",) if function == "mx_dequantize" else (1.0,)
    if isinstance(length, int):
        expected, message = ValueError, f"softfloat.{function}: length"
    else:
        expected, message = TypeError, f"softfloat.{function}: length must be an integer or None"
    with pytest.raises(expected, match=message):
        getattr(softfloat, function)(*args, length=length)


@rejection_settings
@given(st.sampled_from(sorted(KINDS)), st.sampled_from([m for m in softfloat.rounding_modes() if m not in ELEMENT_MODES]))
def test_element_roundings_outside_the_five_raise_value_error(kind, mode):
    with pytest.raises(ValueError, match="softfloat.mx_quantize: "):
        softfloat.mx_quantize(np.ones(32, np.float32), kind, rounding=mode, seed=1)


@rejection_settings
@given(shapes(max_size=24, max_dims=3), st.integers(-5, 5), st.sampled_from(["mx_quantize", "mx_round_trip",
                                                                             "nvfp4_quantize", "nvfp4_round_trip"]))
def test_axes_out_of_range_and_0d_arrays_raise_value_error(shape, axis, function):
    x = np.ones(shape, np.float32)
    args = (x, "mxfp8_e4m3") if function.startswith("mx") else (x,)
    if len(shape) == 0 or not -len(shape) <= axis < len(shape):
        with pytest.raises(ValueError, match=f"softfloat.{function}: "):
            getattr(softfloat, function)(*args, axis=axis)
    elif function.startswith("nvfp4") and shape[axis] % 16:
        with pytest.raises(ValueError, match=f"softfloat.{function}: NVFP4 blocks hold 16 values"):
            getattr(softfloat, function)(*args, axis=axis)


@rejection_settings
@given(st.sampled_from([np.float64, np.int32, np.complex64, np.object_]),
       st.sampled_from(["mx_quantize", "mx_round_trip", "nvfp4_quantize", "nvfp4_round_trip"]))
def test_inputs_other_than_float32_and_narrower_floats_raise_type_error(dtype, function):
    # float16 and ml_dtypes' floats are read exactly as float32 (test_narrow_float_inputs.py).
    x = np.ones((2, 32), dtype)
    args = (x, "mxfp8_e4m3") if function.startswith("mx") else (x,)
    with pytest.raises(TypeError, match=f"softfloat.{function}: expected (a float32|an array of floats)"):
        getattr(softfloat, function)(*args)


@rejection_settings
@given(st.text(max_size=12), st.text(max_size=8))
def test_unknown_kinds_and_scale_rules_raise_value_error(kind, rule):
    x = np.ones(32, np.float32)
    try:
        softfloat.mx_quantize(x, kind)
    except ValueError as error:
        assert "softfloat.mx_quantize: " in str(error)
    else:
        assert kind.lower() in KINDS
    try:
        softfloat.mx_round_trip(x, "mxfp4_e2m1", scale_rule=rule)
    except ValueError as error:
        assert "softfloat.mx_round_trip: " in str(error)
    else:
        assert rule.lower() in RULES
