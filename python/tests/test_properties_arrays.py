"""Property tests of round_trip, quantize and dequantize on hostile input: any format
(named, or a custom eXmY spec with options), rounding mode, overflow policy, seed and
offset; float32 and float64 arrays of any shape (0-d, empty, up to rank 7) and any
strides (steps, reversed axes, transpositions, byte-swapped); values at every rounding
boundary of the format, specials and subnormals. Each result must equal the scalar path
(softfloat._scalar_quantize / _scalar_dequantize: decode, round_to_format once, which the
C++ suites check against GNU MPFR) applied to a contiguous copy made by NumPy, value by
value; every rejection must be the documented ValueError or TypeError.
"""
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import softfloat
from conftest import assert_same_bits
from strategies import (custom_specs, float_arrays, formats, is_valid_spec, modes, offsets, rejection_settings,
                        seeds, shapes, views)


def scalar_codes(x, fmt, mode, saturate, seed, offset):
    """The codes of x's values by the scalar path, element i (in C order) drawing
    random_bits(seed, offset + i); x's shape."""
    flat = np.ascontiguousarray(x).astype(x.dtype.newbyteorder("="), copy=False).reshape(-1)
    return softfloat._scalar_quantize(flat, fmt, mode, saturate, seed, offset=offset).reshape(x.shape)


@st.composite
def conversions(draw):
    fmt = draw(formats)
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    x = draw(views(draw(float_arrays(fmt, dtype))))
    return x, fmt, draw(modes), draw(st.booleans()), draw(seeds), draw(offsets)


@given(conversions())
def test_quantize_and_round_trip_equal_the_scalar_path(case):
    x, fmt, mode, saturate, seed, offset = case
    expected = scalar_codes(x, fmt, mode, saturate, seed, offset)
    assert_same_bits(softfloat.quantize(x, fmt, mode, saturate, seed, offset=offset), expected)
    native = np.dtype(x.dtype.type)  # the result is native-endian
    result = softfloat.round_trip(x, fmt, mode, saturate, seed, offset=offset)
    assert_same_bits(result, softfloat._scalar_dequantize(expected.reshape(-1), fmt, dtype=native).reshape(x.shape))


@st.composite
def code_arrays(draw):
    fmt = draw(formats)
    bits = softfloat.format_info(fmt).bits
    # The smallest unsigned dtype that holds the codes, or a wider one.
    dtype = draw(st.sampled_from([t for t in (np.uint8, np.uint16, np.uint32, np.uint64)
                                  if 8 * np.dtype(t).itemsize >= bits]))
    shape = draw(shapes())
    codes = draw(st.lists(st.integers(0, (1 << bits) - 1), min_size=int(np.prod(shape)),
                          max_size=int(np.prod(shape))))
    array = np.array(codes, dtype=np.uint64).astype(dtype).reshape(shape)
    return draw(views(array)), fmt, draw(st.sampled_from([np.float32, np.float64]))


@given(code_arrays())
def test_dequantize_equals_the_scalar_path(case):
    codes, fmt, dtype = case
    contiguous = np.ascontiguousarray(codes).astype(codes.dtype.newbyteorder("="), copy=False)
    expected = softfloat._scalar_dequantize(contiguous.reshape(-1), fmt, dtype=dtype).reshape(codes.shape)
    assert_same_bits(softfloat.dequantize(codes, fmt, dtype=dtype), expected)


@given(st.data())
def test_stochastic_streams_reproduce_and_split(data):
    """A seed gives the same codes every time, and a stream cut in two pieces (the second
    continuing at offset + the first's length) gives the codes of the whole."""
    fmt = data.draw(formats)
    mode = data.draw(st.sampled_from(["stochastic", "stochastic_equal"]))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    x = data.draw(float_arrays(fmt, dtype)).reshape(-1)
    seed, offset = data.draw(seeds), data.draw(st.integers(0, 2**63))
    cut = data.draw(st.integers(0, x.size))
    whole = softfloat.quantize(x, fmt, mode, False, seed, offset=offset)
    assert_same_bits(softfloat.quantize(x, fmt, mode, False, seed, offset=offset), whole)
    pieces = np.concatenate([softfloat.quantize(x[:cut], fmt, mode, False, seed, offset=offset),
                             softfloat.quantize(x[cut:], fmt, mode, False, seed, offset=offset + cut)])
    assert_same_bits(pieces.astype(whole.dtype), whole)


@given(st.data())
def test_packed_codes_equal_the_scalar_codes_packed(data):
    fmt = data.draw(st.sampled_from(["e2m1", "e3m2", "e2m3", "e1m2:fn", "e2m1:finite", "e3m1:unsigned:finite",
                                     "e2m3:bias=3", "e4m1"]))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    x = data.draw(views(data.draw(float_arrays(fmt, dtype))))
    mode, saturate, seed = data.draw(modes), data.draw(st.booleans()), data.draw(seeds)
    bits = softfloat.format_info(fmt).bits
    codes = scalar_codes(x, fmt, mode, saturate, seed, 0).reshape(-1)
    packed = softfloat.quantize(x, fmt, mode, saturate, seed, packed=True)
    assert packed.dtype == np.uint8 and packed.shape == ((codes.size * bits + 7) // 8,)
    assert_same_bits(packed, softfloat.pack_codes(codes, bits))
    assert_same_bits(softfloat.unpack_codes(packed, bits, codes.size), codes)
    assert_same_bits(softfloat.dequantize(packed, fmt, packed=True, shape=x.shape),
                     softfloat._scalar_dequantize(codes, fmt).reshape(x.shape))


# --- Rejections: each one the documented exception, never a crash or garbage.

REJECTED_DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.bool_, np.complex64,
                   np.complex128, np.longdouble, np.object_, "U3", "datetime64[s]"]


@rejection_settings
@given(st.sampled_from(REJECTED_DTYPES), shapes(max_size=8), st.sampled_from(["round_trip", "quantize"]))
def test_other_dtypes_raise_type_error(dtype, shape, function):
    x = np.zeros(shape, dtype=dtype)
    if np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize == 8:  # longdouble is float64 on some machines
        return
    with pytest.raises(TypeError, match=f"softfloat.{function}: expected an array of floats"):
        getattr(softfloat, function)(x, "e4m3")


@rejection_settings
@given(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.float32, np.float64, np.bool_, np.complex64]),
       shapes(max_size=8))
def test_codes_of_other_dtypes_raise_type_error(dtype, shape):
    with pytest.raises(TypeError, match="softfloat.dequantize: expected codes as uint8, uint16 or uint32"):
        softfloat.dequantize(np.zeros(shape, dtype=dtype), "e4m3")


@rejection_settings
@given(formats, st.data())
def test_codes_beyond_the_format_raise_value_error(fmt, data):
    bits = softfloat.format_info(fmt).bits
    assume(bits < 64)
    dtype = np.uint64 if bits >= 32 else np.uint32
    codes = np.zeros(data.draw(st.integers(1, 40)), dtype=dtype)
    index = data.draw(st.integers(0, codes.size - 1))
    codes[index] = data.draw(st.integers(1 << bits, (1 << (8 * codes.itemsize)) - 1))
    with pytest.raises(ValueError, match=f"index {index}"):
        softfloat.dequantize(codes, fmt)


@rejection_settings
@given(custom_specs())
def test_every_custom_spec_parses_or_raises_value_error(spec):
    """format_info and the conversions agree on which specs exist; a bad one is a
    ValueError naming the function, never another exception."""
    x = np.array([1.5, -0.0, np.inf], np.float32)
    if is_valid_spec(spec):
        info = softfloat.format_info(spec)
        assert softfloat.format_info(info.name).bits == info.bits
        softfloat.round_trip(x, spec)
        return
    for function in (softfloat.round_trip, softfloat.quantize):
        with pytest.raises(ValueError, match=f"softfloat.{function.__name__}: "):
            function(x, spec)
    with pytest.raises(ValueError, match="softfloat.dequantize: "):
        softfloat.dequantize(np.zeros(3, np.uint8), spec)


@rejection_settings
@given(st.text(max_size=20))
def test_any_text_as_format_or_rounding_is_accepted_or_a_value_error(text):
    x = np.array([0.1, 300.0], np.float32)
    try:
        softfloat.round_trip(x, text)
    except ValueError as error:
        assert "softfloat.round_trip: " in str(error)
    else:
        assert is_valid_spec(text)
    try:
        softfloat.quantize(x, "e4m3", text, seed=1)
    except ValueError as error:
        assert "softfloat.quantize: " in str(error)
    else:
        assert text.lower() in softfloat.rounding_modes()


@rejection_settings
@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=2**64)), st.sampled_from(["seed", "offset"]))
def test_seeds_and_offsets_outside_64_bits_raise_value_error(value, name):
    with pytest.raises(ValueError, match=f"softfloat.round_trip: {name} must lie in"):
        softfloat.round_trip(np.ones(3, np.float32), "e4m3", "stochastic", **{name: value})


@rejection_settings
@given(st.one_of(st.floats(), st.text(max_size=3), st.lists(st.integers(), max_size=2)), st.sampled_from(["seed", "offset"]))
def test_seeds_and_offsets_that_are_not_integers_raise_type_error(value, name):
    with pytest.raises(TypeError, match=f"softfloat.quantize: {name} must be an integer"):
        softfloat.quantize(np.ones(3, np.float32), "e4m3", "stochastic", **{name: value})


@rejection_settings
@given(st.sampled_from(["e4m3", "bf16", "e3m2", "e5m2:fnuz"]), st.integers(1, 40))
def test_packing_a_format_not_4_or_6_bits_wide_raises_value_error(fmt, n):
    if softfloat.format_info(fmt).bits in (4, 6):
        return
    with pytest.raises(ValueError, match="packed=True needs a 4- or 6-bit format"):
        softfloat.quantize(np.ones(n, np.float32), fmt, packed=True)
    with pytest.raises(ValueError, match="packed=True needs a 4- or 6-bit format"):
        softfloat.dequantize(np.zeros(n, np.uint8), fmt, packed=True)
