"""softfloat.torch's tensors: quantize / encode / decode bit for bit against the C++
scalar path (softfloat._scalar_quantize / _scalar_dequantize: round_to_format value by
value) over every float16 bit pattern as float32, float16, float64 and the bfloat16
patterns, in every named format; both overflow policies and every rounding direction on
a few formats; strides, 0-d and empty tensors, out=; stochastic streams; bad input."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402

NAMED = softfloat.named_formats()
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
STORAGE = {torch.float32: "fp32", torch.float64: "fp64", torch.float16: "fp16", torch.bfloat16: "bf16"}
UNSIGNED = {torch.float32: np.uint32, torch.float64: np.uint64, torch.float16: np.uint16, torch.bfloat16: np.uint16}


def every_pattern(dtype):
    """All 65536 float16 patterns as `dtype` (exact), or for bfloat16 all 65536 bfloat16 patterns."""
    patterns = torch.arange(1 << 16, dtype=torch.int32).to(torch.int16)
    if dtype == torch.bfloat16:
        return patterns.view(torch.bfloat16)
    return patterns.view(torch.float16).to(dtype)


def bits(t):
    """A tensor's bit patterns as a NumPy unsigned array (NaNs by payload, -0 apart from +0)."""
    signed = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
              torch.bfloat16: torch.int16}[t.dtype]
    return t.contiguous().view(signed).numpy().view(UNSIGNED[t.dtype])


def expected(x, fmt, rounding="nearest_even", saturate=False, seed=None, offset=0, out_dtype=None):
    """The C++ scalar path: x's exact values (float64 holds every input) rounded once into
    fmt, then the format's values rounded once (nearest even) into the result dtype."""
    values = x.detach().to(torch.float64).numpy()
    codes = softfloat._scalar_quantize(values, fmt, rounding, saturate, seed, offset=offset)
    exact = softfloat._scalar_dequantize(codes, fmt, dtype=np.float64)
    dtype = out_dtype or x.dtype
    if dtype == torch.float64:
        return exact.view(np.uint64)
    return softfloat._scalar_quantize(exact, STORAGE[dtype]).astype(UNSIGNED[dtype])


def assert_bits(actual, expected_bits):
    got = bits(actual).ravel()
    want = np.asarray(expected_bits).ravel()
    mismatch = np.flatnonzero(got != want)
    if mismatch.size:
        i = mismatch[0]
        pytest.fail(f"{mismatch.size} of {got.size} differ; first at {i}: {got[i]:#x} != {want[i]:#x}")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("fmt", NAMED)
def test_every_pattern_in_every_named_format(fmt, dtype):
    x = every_pattern(dtype)
    y = sft.quantize(x, fmt)
    assert y.dtype == dtype and y.shape == x.shape
    assert_bits(y, expected(x, fmt))
    exact = sft.quantize(x, fmt, out_dtype=torch.float64)
    assert_bits(exact, expected(x, fmt, out_dtype=torch.float64))
    codes = sft.encode(x, fmt, as_codes=True)
    info = softfloat.format_info(fmt)
    assert codes.dtype == {8: torch.uint8, 16: torch.int16, 32: torch.int32, 64: torch.int64}[
        8 if info.bits <= 8 else 16 if info.bits <= 16 else 32 if info.bits <= 32 else 64]
    native = sft.encode(x, fmt)  # torch's own dtype where it has one with these codes, else the same codes
    if native.dtype == torch.float4_e2m1fn_x2:  # two codes a byte, element 0 in the low nibble
        assert torch.equal(native.view(torch.uint8), codes[0::2] | (codes[1::2] << 4))
    else:
        assert torch.equal(native.view(codes.dtype), codes)
    scalar_codes = softfloat._scalar_quantize(x.to(torch.float64).numpy(), fmt)
    assert np.array_equal(codes.numpy().view(scalar_codes.dtype) if info.bits > 8 else codes.numpy(), scalar_codes)
    for out_dtype in DTYPES:
        decoded = sft.decode(codes, fmt, dtype=out_dtype)
        assert decoded.dtype == out_dtype
        want = softfloat._scalar_dequantize(scalar_codes, fmt, dtype=np.float64)
        if out_dtype == torch.float64:
            assert_bits(decoded, want.view(np.uint64))
        else:
            assert_bits(decoded, softfloat._scalar_quantize(want, STORAGE[out_dtype]).astype(UNSIGNED[out_dtype]))


MODES = softfloat.rounding_modes()


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("rounding", MODES)
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "bf16", "e2m1", "fp16", "e3m4:bias=5"])
def test_every_rounding_and_policy(fmt, rounding, saturate):
    for dtype in (torch.float32, torch.bfloat16, torch.float64):
        x = every_pattern(dtype)
        y = sft.quantize(x, fmt, rounding, saturate, seed=99, offset=12345)
        assert_bits(y, expected(x, fmt, rounding, saturate, seed=99, offset=12345))


def test_double_input_is_rounded_once():
    # float64 -431.99999999999994 lies below the midpoint -432 of E4M3's -416 and -448:
    # rounded once it is -416; through float32 it would become -432, then -448.
    x = torch.tensor([-431.99999999999994], dtype=torch.float64)
    assert sft.quantize(x, "e4m3").item() == -416.0


def test_second_rounding_of_values_the_dtype_cannot_hold():
    # 1 + 2^-10 is an fp16 value but not a bfloat16 one (8 significant bits): the default
    # rounds it once more (to 1, nearest even); out_dtype=torch.float32 keeps it.
    x = torch.tensor([1 + 2**-10], dtype=torch.float32).bfloat16()  # bfloat16(1 + 2^-10) is 1.0
    assert x.item() == 1.0
    y = torch.tensor([1 + 2**-10 + 2**-9], dtype=torch.bfloat16)  # = 1.0 + 2^-8 after bfloat16 rounding
    assert sft.quantize(y, "fp16", out_dtype=torch.float32).item() == float(y.item())
    z = torch.tensor([3.0], dtype=torch.float16) * 1e-5  # an fp16 subnormal
    assert sft.quantize(z, "bf16", out_dtype=torch.float32).item() == pytest.approx(float(z), rel=2**-8)


def test_shapes_strides_zero_d_empty_and_out():
    x = torch.randn(6, 10)
    for view in (x.t(), x[:, ::3], x[1:4].unsqueeze(0), x.flip(0)):
        y = sft.quantize(view, "e4m3")
        assert y.shape == view.shape and y.is_contiguous()
        assert_bits(y, expected(view.contiguous(), "e4m3"))
    scalar = torch.tensor(0.3)
    assert sft.quantize(scalar, "e2m1").shape == () and sft.quantize(scalar, "e2m1").item() == 0.5
    assert sft.quantize(torch.empty(0, 3), "e4m3").shape == (0, 3)
    assert sft.encode(torch.empty(0), "bf16", as_codes=True).dtype == torch.int16
    assert sft.encode(torch.empty(0), "bf16").dtype == torch.bfloat16
    out = torch.empty(6, 10)
    assert sft.quantize(x, "e5m2", out=out) is out
    assert_bits(out, expected(x, "e5m2"))
    in_place = x.clone()
    sft.quantize(in_place, "e5m2", out=in_place)
    assert torch.equal(in_place, out)


def test_stochastic_streams():
    x = torch.full((1 << 14,), 1 + 2**-5)  # a quarter of the way from 1 to 1.125 in E4M3
    a = sft.quantize(x, "e4m3", "stochastic", seed=5)
    assert torch.equal(a, sft.quantize(x, "e4m3", "stochastic", seed=5))
    assert torch.equal(a[100:], sft.quantize(x[100:], "e4m3", "stochastic", seed=5, offset=100))
    assert not torch.equal(a, sft.quantize(x, "e4m3", "stochastic", seed=6))
    # The mean is the input: a quarter round up (the exact count of ups is binomial).
    ups = int((a > 1).sum())
    n = x.numel()
    assert abs(ups - n / 4) < 5 * (n * 3 / 16) ** 0.5
    # Without a seed, torch's generator decides: torch.manual_seed reproduces a run.
    torch.manual_seed(1)
    b = sft.quantize(x, "e4m3", "stochastic")
    torch.manual_seed(1)
    assert torch.equal(b, sft.quantize(x, "e4m3", "stochastic"))


def test_bad_input():
    x = torch.ones(4)
    with pytest.raises(TypeError, match=r"softfloat.torch.quantize: x must be a float32, float64, float16 or bfloat16"
                                        r" tensor or one of a format's own dtype \(float8_e4m3fn, .*\), got torch.int32"):
        sft.quantize(torch.ones(4, dtype=torch.int32), "e4m3")
    with pytest.raises(TypeError, match="got torch.complex64"):
        sft.quantize(torch.ones(4, dtype=torch.complex64), "e4m3")
    with pytest.raises(TypeError, match="must be a torch.Tensor, not ndarray"):
        sft.quantize(np.ones(4, np.float32), "e4m3")
    with pytest.raises(ValueError, match="is on meta"):
        sft.quantize(torch.ones(4, device="meta"), "e4m3")
    with pytest.raises(ValueError, match="layout torch.sparse_coo"):
        sft.quantize(torch.ones(4).to_sparse(), "e4m3")
    with pytest.raises(ValueError, match="softfloat.torch.quantize: invalid format spec .e9m9x."):
        sft.quantize(x, "e9m9x")
    with pytest.raises(ValueError, match="softfloat.torch.quantize: unknown rounding"):
        sft.quantize(x, "e4m3", "sideways")
    with pytest.raises(ValueError, match="out must have shape"):
        sft.quantize(x, "e4m3", out=torch.empty(5))
    with pytest.raises(ValueError, match="out must be contiguous"):
        sft.quantize(torch.ones(2, 2), "e4m3", out=torch.empty(2, 2).t())
    # Codes that do not fit the format are refused, never truncated.
    with pytest.raises(ValueError, match=r"softfloat.torch.decode: code 16 at flat index 1 does not fit e2m1's 4 bits"):
        sft.decode(torch.tensor([1, 16], dtype=torch.uint8), "e2m1")
    with pytest.raises(ValueError, match="does not fit e4m3's 8 bits"):
        sft.decode(torch.tensor([300], dtype=torch.int16), "e4m3")
    with pytest.raises(ValueError, match="bf16 codes have 16 bits and do not fit torch.uint8"):
        sft.decode(torch.tensor([1], dtype=torch.uint8), "bf16")
    with pytest.raises(TypeError, match="dtype must be torch.float32, torch.float64, torch.float16 or torch.bfloat16"):
        sft.decode(torch.zeros(2, dtype=torch.uint8), "e4m3", dtype=torch.int8)
    with pytest.raises(TypeError, match="out_dtype must be torch.float32"):
        sft.quantize(torch.ones(2), "e4m3", out_dtype=torch.int32)
    with pytest.raises(TypeError, match="a torch.float32 tensor holds fp32 codes, not e4m3"):
        sft.decode(torch.ones(3), "e4m3")
    with pytest.raises(TypeError, match="codes must be a tensor of a format's own dtype .* got torch.bool"):
        sft.decode(torch.ones(3, dtype=torch.bool), "e4m3")
    # A 12-bit format's codes in int16: -1 is 0xFFFF, which does not fit 12 bits.
    with pytest.raises(ValueError, match="does not fit e5m6's 12 bits"):
        sft.decode(torch.tensor([-1], dtype=torch.int16), "e5m6")
    assert sft.decode(torch.tensor([-1], dtype=torch.int16), "bf16").isnan().item()
