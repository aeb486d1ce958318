"""Property tests of softfloat.torch on hostile input: float32, float64, float16 and
bfloat16 tensors of any shape (0-d, empty, up to rank 7) and strides (steps,
permutations, stride-0 expansions), any format, rounding, overflow policy, seed and
offset, through quantize (its result dtype, out_dtype, out= and gradients), encode,
decode, mx_quantize and nvfp4_quantize. The reference is the scalar path
(softfloat._scalar_quantize / _scalar_dequantize) on the values as NumPy holds them,
and, where a result is rounded once more into float16 or bfloat16, the scalar path into
fp16 or bf16 from the exact float64 value; MX and NVFP4 are compared with the NumPy
module's functions (checked against their definitions in test_properties_mx.py). Every
rejection must be the documented TypeError or ValueError.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import softfloat
import softfloat.torch as sft
from strategies import float_values, formats, modes, offsets, rejection_settings, seeds, shapes

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTEGER_DTYPES = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def bits(tensor):
    """The tensor's bit patterns as a NumPy array (NaN payloads and -0 kept)."""
    t = tensor.detach().contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy().view(np.uint16)
    if t.dtype == torch.float32:
        return t.numpy().view(np.uint32)
    if t.dtype == torch.float64:
        return t.numpy().view(np.uint64)
    return t.numpy()


def assert_same_tensor(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(bits(actual), bits(expected))


def values_as_numpy(x):
    """x's values, contiguous, as float32 (float16 and bfloat16 widen exactly) or float64."""
    x = x.detach().contiguous()
    return (x if x.dtype == torch.float64 else x.float()).numpy()


def values_in(codes, fmt, dtype):
    """The values of codes (a flat NumPy array) as a torch tensor of dtype: the scalar
    path's float32 or float64, or the exact value rounded once into fp16 or bf16."""
    if dtype in (torch.float32, torch.float64):
        numpy_dtype = np.float32 if dtype == torch.float32 else np.float64
        return torch.from_numpy(softfloat._scalar_dequantize(codes, fmt, dtype=numpy_dtype))
    exact = softfloat._scalar_dequantize(codes, fmt, dtype=np.float64)  # exact up to 53 significant bits
    narrow = softfloat._scalar_quantize(exact, "fp16" if dtype == torch.float16 else "bf16")
    return torch.from_numpy(narrow.view(np.int16)).view(dtype)


@st.composite
def tensors(draw, fmt, dtype, max_size=96):
    shape = draw(shapes(max_size=max_size))
    width = 64 if dtype == torch.float64 else 32
    values = draw(st.lists(float_values(fmt, width), min_size=math.prod(shape), max_size=math.prod(shape)))
    with np.errstate(over="ignore"):
        x = torch.from_numpy(np.array(values, np.float64).reshape(shape)).to(dtype)
    kind = draw(st.sampled_from(["as is", "strided", "expanded"]))
    if kind == "expanded":
        return x.unsqueeze(0).expand((draw(st.integers(0, 2)),) + tuple(x.shape))
    if kind == "strided" and x.dim() > 0:
        x = x[tuple(slice(draw(st.integers(0, 1)), None, draw(st.integers(1, 3))) for _ in range(x.dim()))]
        x = x.permute(*draw(st.permutations(range(x.dim()))))
    return x


@st.composite
def quantize_cases(draw):
    fmt = draw(formats)
    dtype = draw(st.sampled_from(DTYPES))
    out_dtype = draw(st.sampled_from([None] + DTYPES))
    return draw(tensors(fmt, dtype)), fmt, draw(modes), draw(st.booleans()), draw(seeds), draw(offsets), out_dtype


@given(quantize_cases())
def test_quantize_and_encode_equal_the_scalar_path(case):
    x, fmt, mode, saturate, seed, offset, out_dtype = case
    codes = softfloat._scalar_quantize(values_as_numpy(x).reshape(-1), fmt, mode, saturate, seed, offset=offset)
    dtype = x.dtype if out_dtype is None else out_dtype
    expected = values_in(codes, fmt, dtype).reshape(x.shape)
    assert_same_tensor(sft.quantize(x, fmt, mode, saturate, seed, offset, out_dtype=out_dtype), expected)
    out = torch.empty(x.shape, dtype=dtype)
    sft.quantize(x, fmt, mode, saturate, seed, offset, out=out, out_dtype=out_dtype)
    assert_same_tensor(out, expected)
    code_dtype = INTEGER_DTYPES[codes.itemsize]
    expected_codes = torch.from_numpy(codes.view({1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[codes.itemsize]))
    assert_same_tensor(sft.encode(x, fmt, mode, saturate, seed, offset, as_codes=True), expected_codes.reshape(x.shape).to(code_dtype))


@given(st.data())
def test_decode_equals_the_scalar_path(data):
    fmt = data.draw(formats)
    width = softfloat.format_info(fmt).bits
    shape = data.draw(shapes())
    codes = np.array(data.draw(st.lists(st.integers(0, (1 << width) - 1), min_size=math.prod(shape),
                                        max_size=math.prod(shape))), dtype=np.uint64)
    holders = [size for size in INTEGER_DTYPES if 8 * size >= width]
    size = data.draw(st.sampled_from(holders))
    signed = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[size]
    tensor = torch.from_numpy(codes.astype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
                              .view(signed).reshape(shape))
    if size == 1 and data.draw(st.booleans()):
        tensor = tensor.view(torch.int8)
    dtype = data.draw(st.sampled_from(DTYPES))
    expected = values_in(codes, fmt, dtype).reshape(shape)
    assert_same_tensor(sft.decode(tensor, fmt, dtype), expected)


@given(st.data())
def test_gradients_pass_straight_through_or_rounded_to_the_backward_format(data):
    fmt, backward = data.draw(formats), data.draw(st.one_of(st.none(), formats))
    x = data.draw(tensors(fmt, torch.float32, max_size=48)).detach().clone().requires_grad_(True)
    grad = data.draw(tensors(fmt, torch.float32, max_size=48))
    grad = torch.from_numpy(np.resize(values_as_numpy(grad), x.shape).astype(np.float32))
    sft.quantize(x, fmt, backward=backward).backward(grad)
    expected = grad
    if backward is not None:
        codes = softfloat._scalar_quantize(grad.numpy().reshape(-1), backward)
        expected = values_in(codes, backward, torch.float32).reshape(x.shape)
    assert_same_tensor(x.grad, expected)


@st.composite
def block_cases(draw):
    shape = draw(shapes(max_size=128, max_dims=3).filter(lambda s: len(s) > 0))
    fmt = draw(st.sampled_from(["e2m1", "e4m3", "e3m2"]))
    x = draw(tensors(fmt, draw(st.sampled_from(DTYPES))).filter(lambda t: t.dim() > 0))
    return x, draw(st.integers(-x.dim(), x.dim() - 1)), draw(seeds), draw(st.integers(0, 2**32))


@given(block_cases(), st.sampled_from(sorted(softfloat.mx_elements())), st.integers(1, 8),
       st.sampled_from(softfloat.mx_scale_rules()),
       st.sampled_from(["nearest_even", "nearest_away", "nearest_zero", "toward_zero", "stochastic"]))
def test_mx_quantize_equals_the_numpy_module(case, kind, blocks, rule, mode):
    x, axis, seed, offset = case
    block_size = blocks * (4 if kind.startswith("mxfp6") else 2)
    as_float32 = x.detach().float().contiguous().numpy()  # float64 is rounded to float32 first (documented)
    expected = softfloat.mx_round_trip(as_float32, kind, block_size=block_size, scale_rule=rule, axis=axis,
                                       rounding=mode, seed=seed, offset=offset)
    result = sft.mx_quantize(x, kind, block_size, axis, rule, mode, seed, offset)
    assert_same_tensor(result, torch.from_numpy(expected).to(x.dtype))


@given(block_cases(), st.sampled_from(softfloat.rounding_modes()))
def test_nvfp4_quantize_equals_the_numpy_module(case, mode):
    x, axis, seed, offset = case
    as_float32 = x.detach().float().contiguous().numpy()
    if as_float32.shape[axis] % 16:
        with pytest.raises(ValueError, match="softfloat.nvfp4_round_trip: NVFP4 blocks hold 16 values|"
                                             "softfloat.torch.nvfp4_quantize"):
            sft.nvfp4_quantize(x, axis, mode, seed, offset)
        return
    expected = softfloat.nvfp4_round_trip(as_float32, axis=axis, rounding=mode, seed=seed, offset=offset)
    assert_same_tensor(sft.nvfp4_quantize(x, axis, mode, seed, offset), torch.from_numpy(expected).to(x.dtype))


@given(formats, st.sampled_from(["stochastic", "stochastic_equal"]), st.integers(0, 2**31))
def test_unseeded_stochastic_rounding_follows_torch_manual_seed(fmt, mode, torch_seed):
    x = torch.linspace(-3, 3, 40)
    torch.manual_seed(torch_seed)
    first = sft.quantize(x, fmt, mode)
    torch.manual_seed(torch_seed)
    assert_same_tensor(sft.quantize(x, fmt, mode), first)


# --- Rejections.

@rejection_settings
@given(st.sampled_from([torch.int8, torch.int32, torch.int64, torch.uint8, torch.bool, torch.complex64]),
       shapes(max_size=8), st.sampled_from(["quantize", "encode", "mx_quantize", "nvfp4_quantize"]))
def test_tensors_of_other_dtypes_raise_type_error(dtype, shape, function):
    x = torch.zeros(shape, dtype=dtype)
    args = {"quantize": ("e4m3",), "encode": ("e4m3",), "mx_quantize": ("mxfp8_e4m3",), "nvfp4_quantize": ()}
    with pytest.raises(TypeError, match=f"softfloat.torch.{function}: x must be a float32, float64, float16 or "
                                        "bfloat16 tensor"):
        getattr(sft, function)(x, *args[function])


@rejection_settings
@given(st.one_of(st.floats(), st.lists(st.floats(), max_size=3), st.just(np.ones(3, np.float32))))
def test_things_that_are_not_tensors_raise_type_error(x):
    with pytest.raises(TypeError, match="softfloat.torch.quantize: x must be a torch.Tensor"):
        sft.quantize(x, "e4m3")


@rejection_settings
@given(st.one_of(st.integers(), st.none(), st.floats(), st.binary(max_size=4)))
def test_formats_that_are_not_strings_raise_type_error(fmt):
    with pytest.raises(TypeError, match="softfloat.torch.encode: the format must be a spec string"):
        sft.encode(torch.ones(3), fmt)


@rejection_settings
@given(st.text(max_size=12))
def test_unknown_formats_raise_value_error(fmt):
    try:
        softfloat.format_info(fmt)
    except ValueError:
        for call in (lambda: sft.quantize(torch.ones(3), fmt), lambda: sft.encode(torch.ones(3), fmt),
                     lambda: sft.decode(torch.zeros(3, dtype=torch.int64), fmt)):
            with pytest.raises(ValueError):
                call()


@rejection_settings
@given(st.sampled_from([torch.float32, torch.float16, torch.bool, torch.complex64]), st.sampled_from(DTYPES))
def test_decoding_codes_that_are_not_integers_raises_type_error(code_dtype, dtype):
    # bool and complex are no format's dtype; float32 and float16 hold fp32's and fp16's codes, not e4m3's.
    with pytest.raises(TypeError, match=r"softfloat.torch.decode: (codes must be a tensor of a format's own dtype|"
                                        r"a torch.float(32|16) tensor holds fp(32|16) codes, not e4m3)"):
        sft.decode(torch.zeros(4, dtype=code_dtype), "e4m3", dtype)


@rejection_settings
@given(formats, st.data())
def test_codes_too_narrow_or_too_wide_for_the_format_raise_value_error(fmt, data):
    width = softfloat.format_info(fmt).bits
    narrow = [size for size in INTEGER_DTYPES if 8 * size < width]
    if narrow:
        with pytest.raises(ValueError, match="softfloat.torch.decode: .* do not fit"):
            sft.decode(torch.zeros(3, dtype=INTEGER_DTYPES[data.draw(st.sampled_from(narrow))]), fmt)
    if width < 63:
        codes = torch.zeros(5, dtype=torch.int64)
        codes[data.draw(st.integers(0, 4))] = data.draw(st.integers(1 << width, 2**63 - 1))
        with pytest.raises(ValueError):
            sft.decode(codes, fmt)


@rejection_settings
@given(st.sampled_from([torch.int32, torch.uint8, "float16?", None]))
def test_decode_dtypes_other_than_floats_raise_type_error(dtype):
    with pytest.raises(TypeError, match="softfloat.torch.decode: dtype must be"):
        sft.decode(torch.zeros(3, dtype=torch.uint8), "e4m3", dtype)


@rejection_settings
@given(shapes(max_size=24, max_dims=3), st.integers(-5, 5))
def test_block_axes_out_of_range_raise_value_error(shape, axis):
    x = torch.ones(shape)
    if len(shape) and -len(shape) <= axis < len(shape):
        return
    for call in (lambda: sft.mx_quantize(x, "mxfp8_e4m3", axis=axis), lambda: sft.nvfp4_quantize(x, axis=axis)):
        with pytest.raises(ValueError, match="softfloat.torch.(mx|nvfp4)_quantize: "):
            call()


@rejection_settings
@given(st.one_of(st.floats(), st.text(max_size=3), st.none()))
def test_block_sizes_that_are_not_integers_raise_type_error(block_size):
    with pytest.raises(TypeError, match="softfloat.torch.mx_quantize: block_size must be an integer"):
        sft.mx_quantize(torch.ones(4, 32), "mxfp8_e4m3", block_size)


@rejection_settings
@given(shapes(max_size=24), st.sampled_from(DTYPES))
def test_out_of_another_shape_or_dtype_raises_value_error(shape, dtype):
    x = torch.ones(shape)
    wrong = torch.empty((math.prod(shape) + 1,), dtype=dtype)
    with pytest.raises(ValueError, match="softfloat.torch.quantize: out must have shape"):
        sft.quantize(x, "e4m3", out=wrong)


@rejection_settings
@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=2**64)))
def test_seeds_outside_64_bits_raise_value_error(seed):
    with pytest.raises(ValueError):
        sft.quantize(torch.ones(3), "e4m3", "stochastic", seed=seed)
