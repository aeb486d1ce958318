"""softfloat.torch's gradients (straight-through, clipped, backward formats) element by
element, the Quantize module, and MX / NVFP4 fake quantization: bits of the NumPy
module's block functions, axis 0 against the transpose, stochastic elements, gradients."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402


def test_straight_through_gradient():
    x = torch.tensor([0.3, 500.0, -7.0, float("nan")], requires_grad=True)
    y = sft.quantize(x, "e4m3")
    assert y.requires_grad
    upstream = torch.tensor([1.0, 2.0, 3.0, 4.0])
    y.backward(upstream)
    assert torch.equal(x.grad, upstream)


def test_clipped_gradient_is_zero_outside_the_finite_range():
    # E4M3's max is 448: 448 is inside, 449 and -1e4 and NaN are not.
    x = torch.tensor([0.3, 448.0, 449.0, -1e4, float("nan"), -448.0], requires_grad=True)
    sft.quantize(x, "e4m3", gradient="clipped").backward(torch.full((6,), 2.0))
    assert x.grad.tolist() == [2.0, 2.0, 0.0, 0.0, 0.0, 2.0]


def test_backward_format_rounds_the_incoming_gradient():
    x = torch.ones(3, requires_grad=True)
    upstream = torch.tensor([0.1, 1e-9, 70000.0])
    sft.quantize(x, "e4m3", backward="e5m2").backward(upstream)
    # Each gradient element is the E5M2 rounding of the upstream one: 0.1 -> 0.09375,
    # 1e-9 -> 0 (below half E5M2's smallest subnormal 2^-16), 70000 -> infinity.
    assert x.grad.tolist() == [0.09375, 0.0, float("inf")]
    x.grad = None
    sft.quantize(x, "e4m3", backward="e5m2", backward_saturate=True).backward(upstream)
    assert x.grad.tolist()[2] == 57344.0


def test_stochastic_backward_is_unbiased_and_seedable():
    x = torch.ones(1 << 14, requires_grad=True)
    upstream = torch.full((1 << 14,), 1 + 2**-4)  # a quarter of E5M2's gap from 1 to 1.25
    sft.quantize(x, "bf16", backward="e5m2", backward_rounding="stochastic", backward_seed=3).backward(upstream)
    first = x.grad.clone()
    assert set(first.unique().tolist()) == {1.0, 1.25}
    ups = int((first > 1).sum())
    n = first.numel()
    assert abs(ups - n / 4) < 5 * (n * 3 / 16) ** 0.5
    x.grad = None
    sft.quantize(x, "bf16", backward="e5m2", backward_rounding="stochastic", backward_seed=3).backward(upstream)
    assert torch.equal(x.grad, first)


def test_gradient_options_are_checked():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="unknown gradient 'ste'"):
        sft.quantize(x, "e4m3", gradient="ste")
    with pytest.raises(ValueError, match="invalid format spec 'e99'"):
        sft.quantize(x, "e4m3", backward="e99")
    with pytest.raises(ValueError, match="out requires grad"):
        sft.quantize(torch.ones(2), "e4m3", out=torch.ones(2, requires_grad=True))


def test_quantize_module():
    module = sft.Quantize("e2m1", gradient="clipped")
    x = torch.tensor([0.3, 7.0, -2.6], requires_grad=True)
    y = module(x)
    assert y.tolist() == [0.5, 6.0, -3.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    assert "e2m1" in repr(module) and "clipped" in repr(module)
    # A fixed seed continues its stream from call to call.
    stochastic = sft.Quantize("e4m3", "stochastic", seed=1)
    z = torch.full((64,), 1 + 2**-5)
    a, b = stochastic(z), stochastic(z)
    assert torch.equal(a, sft.quantize(z, "e4m3", "stochastic", seed=1, offset=0))
    assert torch.equal(b, sft.quantize(z, "e4m3", "stochastic", seed=1, offset=64))


@pytest.mark.parametrize("kind", softfloat.mx_elements())
@pytest.mark.parametrize("rule", softfloat.mx_scale_rules())
def test_mx_matches_the_numpy_module(kind, rule):
    x = torch.randn(4, 96) * torch.exp2(torch.randint(-6, 6, (4, 1)).float())
    y = sft.mx_quantize(x, kind, scale_rule=rule)
    expected = softfloat.mx_round_trip(x.numpy(), kind, scale_rule=rule)
    assert np.array_equal(y.numpy().view(np.uint32), expected.view(np.uint32))
    y16 = sft.mx_quantize(x.bfloat16(), kind, scale_rule=rule, out_dtype=torch.float32)
    expected16 = softfloat.mx_round_trip(x.bfloat16().float().numpy(), kind, scale_rule=rule)
    assert np.array_equal(y16.numpy().view(np.uint32), expected16.view(np.uint32))


@pytest.mark.parametrize("kind", ["mxfp8_e4m3", "mxfp4_e2m1", "mxint8"])
def test_mx_along_axis_0_equals_mx_of_the_transpose(kind):
    x = torch.randn(64, 5)
    along_0 = sft.mx_quantize(x, kind, axis=0)
    assert torch.equal(along_0, sft.mx_quantize(x.t(), kind).t())
    assert torch.equal(sft.mx_quantize(x, kind, axis=-2), along_0)
    assert not torch.equal(along_0, sft.mx_quantize(x, kind, axis=1, block_size=4))


def test_mx_stochastic_elements_and_gradient():
    x = torch.full((8, 32), 1 + 2**-5, requires_grad=True)
    a = sft.mx_quantize(x, "mxfp8_e4m3", rounding="stochastic", seed=4)
    assert torch.equal(a, sft.mx_quantize(x, "mxfp8_e4m3", rounding="stochastic", seed=4))
    assert set(a.detach().unique().tolist()) == {1.0, 1.125}
    a.backward(torch.full((8, 32), 3.0))
    assert torch.equal(x.grad, torch.full((8, 32), 3.0))  # straight through
    x.grad = None
    upstream = torch.zeros(8, 32)
    upstream[:, 0] = 7.0  # each row's block max: 7 is E2M1's 6 * 2^0 block, so 7 clamps to 6
    sft.mx_quantize(x, "mxfp8_e4m3", backward="mxfp4_e2m1").backward(upstream)
    assert x.grad[:, 0].tolist() == [6.0] * 8


def test_nvfp4_matches_the_numpy_module():
    x = torch.randn(6, 64)
    y = sft.nvfp4_quantize(x)
    assert np.array_equal(y.numpy().view(np.uint32), softfloat.nvfp4_round_trip(x.numpy()).view(np.uint32))
    along_0 = sft.nvfp4_quantize(x.t().contiguous(), axis=0)
    assert torch.equal(along_0, y.t())
    s = sft.nvfp4_quantize(x, rounding="stochastic", seed=2)
    assert np.array_equal(s.numpy(), softfloat.nvfp4_round_trip(x.numpy(), rounding="stochastic", seed=2))


def test_block_errors():
    with pytest.raises(ValueError, match="multiple of 16 long; it is 20"):
        sft.nvfp4_quantize(torch.ones(3, 20))
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        sft.mx_quantize(torch.ones(3, 32), "mxfp8_e4m3", axis=3)
    with pytest.raises(ValueError, match="0-d"):
        sft.mx_quantize(torch.tensor(1.0), "mxfp8_e4m3")
    with pytest.raises(ValueError, match="unknown MX element|unknown element"):
        sft.mx_quantize(torch.ones(32), "mxfp5")
    with pytest.raises(ValueError, match="multiple of 2"):
        sft.mx_quantize(torch.ones(32), "mxfp4_e2m1", block_size=3)
    with pytest.raises(ValueError, match="cannot be rounded up"):
        sft.mx_quantize(torch.ones(32), "mxfp8_e4m3", rounding="up")
    with pytest.raises(TypeError, match="got torch.int64"):
        sft.mx_quantize(torch.ones(32, dtype=torch.int64), "mxfp8_e4m3")
