"""Tensors a careless caller hands to softfloat.torch: every dtype, a CUDA tensor (mocked:
the CPU build of torch cannot make one), non-contiguous and overlapping views, 0-d and
empty tensors, inputs that require grad. Each gets the right answer or a clear error
naming the function, never a crash or silent garbage."""
from unittest import mock

import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402

F = torch.nn.functional

# Every public entry point that takes a tensor of values, as a call on t (2-D, 32 wide).
VALUE_CALLS = {
    "quantize": lambda t: sft.quantize(t, "e4m3"),
    "Quantize": lambda t: sft.Quantize("e4m3")(t),
    "encode": lambda t: sft.encode(t, "e4m3"),
    "mx_quantize": lambda t: sft.mx_quantize(t, "mxfp8_e4m3"),
    "nvfp4_quantize": lambda t: sft.nvfp4_quantize(t),
    "mx_encode": lambda t: sft.mx_encode(t, "mxfp8_e4m3"),
    "nvfp4_encode": lambda t: sft.nvfp4_encode(t),
    "linear": lambda t: sft.linear(t, torch.ones(2, 32)),
    "linear_weight": lambda t: sft.linear(torch.ones(2, 32), t),
    "matmul": lambda t: sft.matmul(t, torch.ones(32, 2)),
    "Linear": lambda t: torch.manual_seed(0) and sft.Linear(32, 2, weight="e4m3")(t),  # the same weights each call
}
# The name each call's errors carry.
FUNCTION = {"Quantize": "quantize", "linear_weight": "linear", "Linear": "linear"}

NOT_VALUES = [torch.bool, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.uint16,
              torch.uint32, torch.uint64, torch.complex64, torch.complex128]


def tensor_of(dtype, shape=(2, 32)):
    if dtype.is_complex:
        return torch.ones(shape, dtype=dtype)
    return torch.ones(shape).to(dtype)


@pytest.mark.parametrize("dtype", NOT_VALUES, ids=str)
@pytest.mark.parametrize("call", VALUE_CALLS)
def test_tensors_of_no_value_dtype_are_refused(call, dtype):
    name = FUNCTION.get(call, call)
    with pytest.raises(TypeError, match=rf"softfloat.torch.{name}: .* must be a float32, float64, float16 or "
                                        rf"bfloat16 tensor.* got {dtype}"):
        VALUE_CALLS[call](tensor_of(dtype))


@pytest.mark.parametrize("dtype", [torch.bool, torch.complex64, torch.float32, torch.bfloat16], ids=str)
def test_decode_refuses_what_cannot_hold_e4m3_codes(dtype):
    # bool and complex hold no codes; a float32 or bfloat16 tensor holds fp32's or bf16's.
    with pytest.raises(TypeError, match=r"softfloat.torch.decode: (codes must be a tensor of a format's own dtype|"
                                        r"a torch.\w+ tensor holds \w+ codes, not e4m3)"):
        sft.decode(tensor_of(dtype), "e4m3")


@pytest.mark.parametrize("dtype, fmt", [(torch.uint8, "e4m3"), (torch.int8, "e4m3"), (torch.int16, "bf16"),
                                        (torch.uint16, "fp16"), (torch.int32, "fp32"), (torch.uint32, "fp32"),
                                        (torch.int64, "e5m6"), (torch.uint64, "fp64")], ids=str)
def test_decode_takes_every_integer_dtype_wide_enough(dtype, fmt):
    info = softfloat.format_info(fmt)
    # The codes of 1.0 and 2.5 in each format, written out from its layout.
    codes = {"e4m3": [0x38, 0x42], "bf16": [0x3F80, 0x4020], "fp16": [0x3C00, 0x4100], "fp32": [0x3F800000, 0x40200000],
             "e5m6": [0x3C0, 0x410], "fp64": [0x3FF0000000000000, 0x4004000000000000]}[fmt]
    values = sft.decode(torch.tensor(codes).to(dtype), fmt, dtype=torch.float64)
    assert info.bits <= 8 * torch.empty(0, dtype=dtype).element_size()
    assert values.tolist() == [1.0, 2.5]


@pytest.fixture
def in_order_products():
    """The products summed in k order whatever the operands' formats: under the default
    summation, fastest, an e5m2 x e4m3 product may take another kernel (pairs of
    products on AVX512-BF16, AMX tiles) than fp32 x e4m3, and so another order."""
    saved = softfloat.matmul_summation()
    softfloat.set_matmul_summation("in_order")
    yield
    softfloat.set_matmul_summation(saved)


@pytest.mark.parametrize("call", VALUE_CALLS)
def test_float8_of_another_format_is_read_as_its_values(call, in_order_products):
    """A float8_e5m2 tensor given where e4m3 (or MXFP8 E4M3) is asked for: its exact
    values, rounded into the format asked for, as if given in float32."""
    x = torch.tensor([[0.0, 1.0, -1.5, 2.0 ** -16, 57344.0, 448.0, 0.875, -3.0] * 4])
    x = x.expand(2, 32).clone()
    e5m2 = x.to(torch.float8_e5m2)
    got = VALUE_CALLS[call](e5m2)
    want = VALUE_CALLS[call](e5m2.to(torch.float32))
    for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert a.dtype == b.dtype and torch.equal(bits(a), bits(b))


def bits(t):
    """t's bit patterns (NaN equal to itself), as an integer tensor of its element size."""
    return t.detach().view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def test_float8_of_another_format_where_codes_are_meant_is_refused():
    e5m2 = torch.ones(2, 32).to(torch.float8_e5m2)
    with pytest.raises(TypeError, match="softfloat.torch.decode: a torch.float8_e5m2 tensor holds e5m2 codes, not e4m3"):
        sft.decode(e5m2, "e4m3")
    with pytest.raises(ValueError, match="softfloat.torch.linear: weight holds e5m2 codes .* cannot be rounded by 'e4m3'"):
        sft.linear(torch.ones(2, 32), e5m2, weight_format="e4m3")
    with pytest.raises(ValueError, match="softfloat.torch.matmul: b holds e5m2 codes"):
        sft.matmul(torch.ones(2, 32), e5m2.t(), b_format="mxfp8_e4m3")


def cuda_tensor():
    """A stand-in for a CUDA tensor: isinstance(t, torch.Tensor) holds, its device is cuda:0,
    and any use of its memory would fail the test loudly."""
    t = mock.MagicMock(spec=torch.Tensor)
    t.device = torch.device("cuda:0")
    t.data_ptr.side_effect = AssertionError("the memory of a CUDA tensor was read")
    return t


@pytest.mark.parametrize("call", VALUE_CALLS)
def test_cuda_tensors_are_refused_naming_the_device(call):
    name = FUNCTION.get(call, call)
    with pytest.raises(ValueError, match=rf"softfloat.torch.{name}: \w+ is on cuda:0; softfloat computes on the CPU"):
        VALUE_CALLS[call](cuda_tensor())


@pytest.mark.parametrize("call, name, what", [
    (lambda t: sft.decode(t, "e4m3"), "decode", "codes"),
    (lambda t: sft.mx_decode(t, t, "mxfp8_e4m3"), "mx_decode", "elements"),
    (lambda t: sft.nvfp4_decode(torch.zeros(1, 8, dtype=torch.uint8).view(torch.float4_e2m1fn_x2), t, torch.ones(())),
     "nvfp4_decode", "scales"),
    (lambda t: sft.linear(torch.ones(2, 32), torch.ones(2, 32), t), "linear", "bias"),
    (lambda t: sft.quantize(torch.ones(3), "e4m3", out=t), "quantize", "out"),
])
def test_cuda_codes_scales_bias_and_out_are_refused(call, name, what):
    with pytest.raises(ValueError, match=rf"softfloat.torch.{name}: {what} is on cuda:0"):
        call(cuda_tensor())


def test_non_contiguous_and_overlapping_views_give_the_values_of_their_elements():
    base = torch.randn(200) * 50
    overlapping = torch.as_strided(base, (20, 32), (3, 1))  # rows share elements
    transposed = torch.randn(32, 20).t()
    expanded = torch.randn(1, 32).expand(20, 32)
    for view in (overlapping, transposed, expanded, base[::5][:32].reshape(1, 32).expand(3, 32)):
        copy = view.contiguous()
        assert torch.equal(sft.quantize(view, "e4m3"), sft.quantize(copy, "e4m3"))
        assert torch.equal(sft.encode(view, "e4m3").view(torch.uint8), sft.encode(copy, "e4m3").view(torch.uint8))
        assert torch.equal(sft.mx_quantize(view, "mxfp6_e3m2"), sft.mx_quantize(copy, "mxfp6_e3m2"))
        assert torch.equal(sft.nvfp4_quantize(view), sft.nvfp4_quantize(copy))
        assert torch.equal(sft.linear(view, torch.ones(2, 32), weight_format="e4m3"),
                           sft.linear(copy, torch.ones(2, 32), weight_format="e4m3"))
    assert torch.equal(overlapping[1, 0], base[3])  # the view really overlaps


def test_out_overlapping_the_input_is_refused_unless_it_is_the_input():
    buffer = torch.randn(1000) * 10
    expected = sft.quantize(buffer[:900].clone(), "e4m3")
    with pytest.raises(ValueError, match="softfloat.torch.quantize: the output overlaps the input without starting "
                                         "at it"):
        sft.quantize(buffer[:900], "e4m3", out=buffer[5:905])
    assert torch.equal(sft.quantize(buffer[:900], "e4m3", out=buffer[:900]), expected)  # in place
    with pytest.raises(ValueError, match="softfloat.torch.quantize: out must be contiguous"):
        sft.quantize(torch.ones(4, 4), "e4m3", out=torch.as_strided(torch.empty(7), (4, 4), (1, 1)))


def test_zero_d_tensors():
    x = torch.tensor(300.0)
    assert sft.quantize(x, "e4m3").shape == () and sft.quantize(x, "e4m3").item() == 288.0
    assert sft.encode(x, "e4m3").dtype == torch.float8_e4m3fn and sft.encode(x, "e4m3").shape == ()
    assert sft.decode(sft.encode(x, "e4m3")).item() == 288.0
    with pytest.raises(ValueError, match="softfloat.torch.encode: torch.float4_e2m1fn_x2 holds two values a byte"):
        sft.encode(x, "e2m1")
    for call, name in ((lambda: sft.mx_quantize(x, "mxfp8_e4m3"), "mx_quantize"),
                       (lambda: sft.nvfp4_quantize(x), "nvfp4_quantize"),
                       (lambda: sft.mx_encode(x, "mxfp8_e4m3"), "mx_encode"),
                       (lambda: sft.nvfp4_encode(x), "nvfp4_encode")):
        with pytest.raises(ValueError, match=rf"softfloat.torch.{name}: x is 0-d; blocks need an axis"):
            call()
    with pytest.raises(ValueError, match="softfloat.torch.linear: x of shape \\(\\) and weight of shape"):
        sft.linear(x, torch.ones(2, 1))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 32), (2, 0, 32)])
def test_empty_tensors(shape):
    x = torch.empty(shape)
    assert sft.quantize(x, "e4m3").shape == shape
    assert sft.encode(x, "e4m3").shape == shape and sft.decode(sft.encode(x, "e4m3")).shape == shape
    assert sft.mx_quantize(x, "mxfp8_e4m3").shape == shape and sft.nvfp4_quantize(x).shape == shape


@pytest.mark.parametrize("x_shape, w_shape", [((3, 0), (2, 0)), ((0,), (2, 0)), ((0, 4), (2, 4)), ((2, 4), (0, 4))])
def test_linear_of_empty_operands_is_f_linear(x_shape, w_shape):
    x = torch.randn(x_shape, requires_grad=True)
    w = torch.randn(w_shape, requires_grad=True)
    b = torch.randn(w_shape[0], requires_grad=True)
    y = sft.linear(x, w, b, weight_format="e4m3")
    assert torch.equal(y, F.linear(x, w, b))  # k = 0: the bias alone; m or n = 0: empty
    y.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    assert torch.equal(b.grad, torch.full((w_shape[0],), float(y.numel() // max(w_shape[0], 1))))


def test_encode_of_inputs_that_require_grad_gives_codes_without_history():
    x = (torch.randn(4, 32) * 3).requires_grad_()
    for fmt, dtype in (("e4m3", torch.float8_e4m3fn), ("bf16", torch.bfloat16), ("e3m2", torch.uint8)):
        codes = sft.encode(x, fmt)
        assert codes.dtype == dtype and not codes.requires_grad and codes.grad_fn is None
        assert torch.equal(sft.decode(codes, fmt), sft.quantize(x.detach(), fmt, out_dtype=torch.float32))
    elements, scales = sft.mx_encode(x, "mxfp8_e4m3")
    assert not elements.requires_grad and not scales.requires_grad
    encoding = sft.nvfp4_encode(x)
    assert not any(t.requires_grad for t in encoding)
    assert x.grad is None
