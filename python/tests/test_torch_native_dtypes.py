"""softfloat.torch in torch's own low-precision dtypes: encode hands out float8_e4m3fn,
float8_e5m2, the fnuz pair, float8_e8m0fnu, float4_e2m1fn_x2, bfloat16 and float16;
decode, quantize, linear and matmul take them; mx_encode / nvfp4_encode give torchao's
element and scale dtypes and layouts. The peer is torch itself: its cast of our float8
tensors back to float32 must give our decoded values (the same bits mean the same
numbers), and torchao's pack_uint4 / to_blocked must lay out our bytes as we do."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402

FLOAT8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "e4m3fnuz": torch.float8_e4m3fnuz,
          "e5m2fnuz": torch.float8_e5m2fnuz, "e8m0": torch.float8_e8m0fnu}
WIDE = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "fp64": torch.float64}


def every_fp16_value():
    """All 65536 float16 patterns as float32 (exact): normals, subnormals, both zeros,
    infinities and NaNs, and every rounding boundary of the 8-bit formats in range."""
    return torch.arange(1 << 16, dtype=torch.int32).to(torch.int16).view(torch.float16).to(torch.float32)


def same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    size = a.element_size()
    integer = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    assert torch.equal(a.contiguous().view(integer), b.contiguous().view(integer))


@pytest.mark.parametrize("fmt", sorted(FLOAT8))
def test_encode_gives_torch_float8_that_torch_reads_as_our_values(fmt):
    x = every_fp16_value()
    q = sft.encode(x, fmt)
    assert q.dtype == FLOAT8[fmt] and q.shape == x.shape
    codes = sft.encode(x, fmt, as_codes=True)
    assert codes.dtype == torch.uint8
    assert torch.equal(q.view(torch.uint8), codes)
    ours = sft.decode(q)
    assert torch.equal(sft.decode(codes, fmt).view(torch.int32), ours.view(torch.int32))
    theirs = q.to(torch.float32)  # torch's own widening cast: exact, so it must be our value
    nan = torch.isnan(ours)
    assert torch.equal(torch.isnan(theirs), nan)
    assert torch.equal(theirs[~nan].view(torch.int32), ours[~nan].view(torch.int32))


@pytest.mark.parametrize("fmt", sorted(WIDE))
def test_encode_gives_the_wide_dtypes(fmt):
    x = every_fp16_value()
    q = sft.encode(x, fmt)
    assert q.dtype == WIDE[fmt]
    same_bits(sft.decode(q, dtype=torch.float64), sft.quantize(x, fmt, out_dtype=torch.float64))
    if fmt in ("fp32", "fp64", "fp16"):  # every float16 value is exact in these: torch's cast agrees
        same_bits(q, x.to(WIDE[fmt]))


def test_formats_without_a_torch_dtype_stay_codes():
    x = every_fp16_value()
    codes = sft.encode(x, "e3m2")
    assert codes.dtype == torch.uint8
    assert torch.equal(codes, sft.encode(x, "e3m2", as_codes=True))


def test_e2m1_packs_two_a_byte_as_torchao_does():
    kernels = pytest.importorskip("torchao.prototype.mx_formats.kernels")
    x = torch.tensor([[1.0, -0.5, 6.0, 0.0], [-6.0, 3.0, 0.25, -0.0]])
    q = sft.encode(x, "e2m1")
    assert q.dtype == torch.float4_e2m1fn_x2 and q.shape == (2, 2)
    # E2M1 1.0 = 0x2, -0.5 = 0x9: element 0 in the low nibble gives 0x92.
    assert q.view(torch.uint8)[0, 0].item() == 0x92
    codes = sft.encode(x, "e2m1", as_codes=True)
    assert torch.equal(q.view(torch.uint8), kernels.pack_uint4(codes))
    same_bits(sft.decode(q), sft.quantize(x, "e2m1"))
    every = every_fp16_value().reshape(256, 256)
    same_bits(sft.decode(sft.encode(every, "e2m1")), sft.quantize(every, "e2m1"))


def test_e2m1_needs_an_even_last_axis():
    with pytest.raises(ValueError, match="even"):
        sft.encode(torch.ones(3), "e2m1")
    with pytest.raises(ValueError, match="even"):
        sft.encode(torch.tensor(1.0), "e2m1")
    assert sft.encode(torch.ones(3), "e2m1", as_codes=True).dtype == torch.uint8


def test_decode_checks_the_format_of_a_native_tensor():
    q = sft.encode(torch.tensor([1.0, 2.0]), "e5m2")
    same_bits(sft.decode(q, "e5m2"), torch.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="e5m2 codes, not e4m3"):
        sft.decode(q, "e4m3")
    with pytest.raises(TypeError, match="need the format"):
        sft.decode(torch.zeros(2, dtype=torch.uint8))
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        sft.decode(torch.zeros(2, dtype=torch.complex64), "e4m3")


@pytest.mark.parametrize("fmt", sorted(FLOAT8) + ["e2m1"])
def test_quantize_reads_native_tensors_as_their_values(fmt):
    x = every_fp16_value()
    if fmt == "e2m1":
        x = x.reshape(-1, 2)
    q = sft.encode(x, fmt)
    values = sft.decode(q)
    for target in ("e3m2", "bf16", "e4m3"):
        same_bits(sft.quantize(q, target), sft.quantize(values, target))
    same_bits(sft.quantize(q, fmt, out_dtype=torch.float64), values.to(torch.float64))


def test_linear_and_matmul_take_native_operands():
    torch.manual_seed(0)
    x = torch.randn(5, 64)
    w = torch.randn(7, 64) * 0.1
    wq = sft.encode(w, "e4m3")
    expected = sft.linear(x, w, weight_format="e4m3", input_format="bf16")
    same_bits(sft.linear(x, wq, input_format="bf16"), expected)
    same_bits(sft.linear(x, wq, weight_format="e4m3", input_format="bf16"), expected)
    with pytest.raises(ValueError, match="holds e4m3 codes"):
        sft.linear(x, wq, weight_format="e5m2")
    a4 = sft.encode(x, "e2m1")
    same_bits(sft.matmul(a4, w.t(), b_format="e5m2"), sft.matmul(x, w.t(), a_format="e2m1", b_format="e5m2"))
    layer = sft.Linear(64, 7, bias=False, weight="e4m3")
    with torch.no_grad():
        layer.weight.copy_(w)
    same_bits(layer(sft.encode(x, "e5m2")), sft.linear(x, w, weight_format="e4m3", input_format="e5m2"))


MX_ELEMENTS = {"mxfp8_e4m3": torch.float8_e4m3fn, "mxfp8_e5m2": torch.float8_e5m2, "mxfp6_e3m2": torch.uint8,
               "mxfp6_e2m3": torch.uint8, "mxfp4_e2m1": torch.float4_e2m1fn_x2, "mxint8": torch.int8}


def mixed_tensor(shape, seed=0):
    """Normal values over many binades, a zero block, a NaN and an infinity."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=generator) * torch.exp2(torch.randint(-20, 20, shape, generator=generator))
    x.view(-1)[:32] = 0.0
    x.view(-1)[40] = float("nan")
    x.view(-1)[77] = float("inf")
    return x


@pytest.mark.parametrize("element", sorted(MX_ELEMENTS))
@pytest.mark.parametrize("axis", [-1, 0])
def test_mx_encode_decode_is_mx_quantize(element, axis):
    x = mixed_tensor((64, 96))
    elements, scales = sft.mx_encode(x, element, axis=axis, scale_rule="rceil")
    assert elements.dtype == MX_ELEMENTS[element] and scales.dtype == torch.float8_e8m0fnu
    blocks_shape = list(x.shape)
    blocks_shape[axis] //= 32
    assert list(scales.shape) == blocks_shape
    element_shape = list(x.shape)
    if element == "mxfp4_e2m1":
        element_shape[axis] //= 2
    assert list(elements.shape) == element_shape
    same_bits(sft.mx_decode(elements, scales, element, axis=axis),
              sft.mx_quantize(x, element, axis=axis, scale_rule="rceil"))
    # The same bytes as the NumPy function's (FP6 there packed four codes in three bytes).
    np_elements, np_scales = softfloat.mx_quantize(x.numpy(), element, axis=axis, scale_rule="rceil")
    assert np.array_equal(scales.view(torch.uint8).numpy(), np_scales)
    if element.startswith("mxfp6"):
        # One code a byte: each element's value times its block's 2^(scale - 127) is the MX value.
        values = sft.decode(elements, element.split("_")[1]).to(torch.float64)
        exponent = torch.from_numpy(np_scales.astype(np.float64) - 127).repeat_interleave(32, dim=axis)
        expected = sft.mx_quantize(x, element, axis=axis, scale_rule="rceil").to(torch.float64)
        finite = torch.isfinite(expected)
        assert torch.equal((values * torch.exp2(exponent))[finite], expected[finite])
        assert torch.equal(torch.from_numpy(softfloat.unpack_codes(np.ascontiguousarray(
            np.moveaxis(np_elements, axis, -1)).ravel(), 6)).reshape(elements.movedim(axis, -1).shape),
            elements.movedim(axis, -1))
    else:
        assert np.array_equal(elements.view(torch.uint8).numpy().ravel(), np_elements.view(np.uint8).ravel())


def test_mx_blocked_scales_are_torchaos_layout():
    utils = pytest.importorskip("torchao.prototype.mx_formats.utils")
    x = mixed_tensor((200, 320))  # 200 rows: two 128-row tiles, the second padded; 10 blocks: 3 column tiles
    elements, rows = sft.mx_encode(x, "mxfp8_e4m3")
    _, blocked = sft.mx_encode(x, "mxfp8_e4m3", scale_layout="blocked")
    assert torch.equal(blocked.view(torch.uint8), utils.to_blocked(rows.view(torch.uint8)))
    same_bits(sft.mx_decode(elements, blocked, scale_layout="blocked"), sft.mx_decode(elements, rows))
    with pytest.raises(ValueError, match="last axis"):
        sft.mx_encode(x, "mxfp8_e4m3", axis=0, scale_layout="blocked")


def test_mx_encode_matches_torchaos_to_mx_on_fp8():
    mx_tensor = pytest.importorskip("torchao.prototype.mx_formats.mx_tensor")
    config = pytest.importorskip("torchao.prototype.mx_formats.config")
    x = mixed_tensor((32, 256), seed=3)
    x.view(-1)[40] = 1.0  # torchao's reference takes finite input here; NaN blocks are compared elsewhere
    x.view(-1)[77] = -3.0
    scale, data = mx_tensor.to_mx(x, torch.float8_e4m3fn, 32, config.ScaleCalculationMode.FLOOR)
    elements, scales = sft.mx_encode(x, "mxfp8_e4m3")
    assert torch.equal(scales.view(torch.uint8).reshape(scale.shape), scale.view(torch.uint8))
    assert torch.equal(elements.view(torch.uint8), data.view(torch.uint8).reshape(elements.shape))


@pytest.mark.parametrize("axis", [-1, 0])
def test_nvfp4_encode_decode_is_nvfp4_quantize(axis):
    x = mixed_tensor((48, 64))
    x.view(-1)[40] = 2.0
    x.view(-1)[77] = -1.0
    encoding = sft.nvfp4_encode(x, axis=axis)
    assert encoding.elements.dtype == torch.float4_e2m1fn_x2 and encoding.scales.dtype == torch.float8_e4m3fn
    assert encoding.tensor_amax.dtype == torch.float32 and encoding.tensor_amax.item() == x.abs().max().item()
    assert encoding.tensor_scale.item() == np.float32(x.abs().max().item()) / np.float32(2688.0)
    same_bits(sft.nvfp4_decode(*encoding, axis=axis), sft.nvfp4_quantize(x, axis=axis))
    if axis == -1:
        blocked = sft.nvfp4_encode(x, scale_layout="blocked")
        same_bits(sft.nvfp4_decode(*blocked, scale_layout="blocked"), sft.nvfp4_quantize(x))


def test_mx_decode_checks_its_arguments():
    elements, scales = sft.mx_encode(mixed_tensor((4, 64)), "mxfp6_e3m2")
    with pytest.raises(TypeError, match="element="):
        sft.mx_decode(elements, scales)
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        sft.mx_decode(elements, scales, "mxfp8_e4m3")
    with pytest.raises(ValueError, match="shape"):
        sft.mx_decode(elements, scales[:, :1], "mxfp6_e3m2")
    with pytest.raises(ValueError, match="even"):
        sft.mx_encode(torch.ones(4, 33), "mxfp4_e2m1")
