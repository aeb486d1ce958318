"""softfloat.torch.qtorch: QPyTorch's signatures over the exact library. Expected values
are worked out by hand (QPyTorch itself is no Debian package); the cases where
QPyTorch's own rounding differs are the README's table (ties, 480, NaN)."""
import math

import pytest

torch = pytest.importorskip("torch")
from softfloat.torch import qtorch  # noqa: E402


def test_float_quantize_worked_values():
    x = torch.tensor([0.3, 500.0, float("nan"), 1e-3, -7.77, 1 + 2**-4, 2**-10, 1.5 * 2**-9])
    y = qtorch.float_quantize(x, 4, 3, "nearest")
    # exp=4, man=3, bias 7, every exponent code finite: max 1.875 * 2^8 = 480, subnormal step 2^-9.
    # 0.3 = 9.6 * 2^-5 -> 10 * 2^-5; 500 -> 480 (saturates); NaN stays NaN; 1e-3 = 0.512 * 2^-9
    # -> 2^-9; -7.77 = -15.54 * 0.5 -> -16 * 0.5; 1 + 2^-4 ties to even (1; QPyTorch: 1.125);
    # 2^-10 ties to even (0); 1.5 * 2^-9 ties to even (2 * 2^-9).
    expected = [0.3125, 480.0, math.nan, 2**-9, -8.0, 1.0, 0.0, 2**-8]
    for got, want in zip(y.tolist(), expected):
        assert (math.isnan(got) and math.isnan(want)) or got == want
    assert qtorch.float_quantize(torch.tensor([1e6]), 5, 2, "nearest").item() == 114688.0  # 1.75 * 2^16


def test_float_quantize_stochastic_mean():
    x = torch.full((1 << 15,), 1 + 2**-5)  # a quarter of the way from 1 to 1.125
    y = qtorch.float_quantize(x, 4, 3, "stochastic")
    assert set(y.unique().tolist()) == {1.0, 1.125}
    assert abs(y.mean().item() - (1 + 2**-5)) < 5 * 0.125 * (3 / 16 / x.numel()) ** 0.5


def test_fixed_point_quantize_worked_values():
    x = torch.tensor([0.3, 500.0, 1e-3, -7.77, -9.0, 0.5 / 16, 1.5 / 16])
    # wl=8, fl=4: multiples of 1/16 in [-128/16, 127/16] = [-8, 7.9375].
    assert qtorch.fixed_point_quantize(x, 8, 4, rounding="nearest").tolist() == [
        0.3125, 7.9375, 0.0, -7.75, -8.0, 0.0, 0.125]
    symmetric = qtorch.fixed_point_quantize(x, 8, 4, symmetric=True, rounding="nearest")
    assert symmetric.tolist()[4] == -7.9375
    unclamped = qtorch.fixed_point_quantize(torch.tensor([9.03]), 8, 4, clamp=False, rounding="nearest")
    assert unclamped.item() == 9.0


def test_block_quantize_worked_values():
    x = torch.tensor([0.3, 500.0, float("nan"), 1e-3, -7.77])
    # The largest binade 2^8 (500 = 1.95 * 2^8); wl=8: multiples of 2^(8 - 6) = 4.
    y = qtorch.block_quantize(x, 8, rounding="nearest")
    assert y.tolist()[:2] == [0.0, 500.0] and math.isnan(y.tolist()[2]) and y.tolist()[3:] == [0.0, -8.0]
    rows = qtorch.block_quantize(torch.tensor([[1.0, 100.0], [0.3, 0.7]]), 4, dim=0, rounding="nearest")
    # Row 0: binade 2^6, step 2^(6 - 2) = 16; row 1: binade 2^-1, step 2^-3.
    assert rows.tolist() == [[0.0, 96.0], [0.25, 0.75]]


def test_quantizer_rounds_forward_and_backward():
    q = qtorch.quantizer(forward_number=qtorch.FloatingPoint(4, 3), backward_number=qtorch.FixedPoint(8, 4),
                         forward_rounding="nearest", backward_rounding="nearest")
    x = torch.tensor([0.3, 500.0], requires_grad=True)
    y = q(x)
    assert y.tolist() == [0.3125, 480.0]
    y.backward(torch.tensor([0.3, -9.0]))
    assert x.grad.tolist() == [0.3125, -8.0]
    clamped = qtorch.quantizer(forward_number=qtorch.FloatingPoint(4, 3), forward_rounding="nearest",
                               clamping_grad_zero=True)
    z = torch.tensor([0.25, 500.0], requires_grad=True)
    clamped(z).sum().backward()
    assert z.grad.tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="rounding must be 'nearest' or 'stochastic'"):
        qtorch.quantizer(forward_rounding="even")


def test_optim_lp_weights_and_accumulators():
    def run(**quants):
        w = torch.nn.Parameter(torch.ones(64))
        opt = qtorch.OptimLP(torch.optim.SGD([w], lr=1e-3), **quants)
        for _ in range(100):
            opt.zero_grad()
            (-w.sum()).backward()
            opt.step()
        return w.detach()

    bf16ish = lambda t: qtorch.float_quantize(t, 8, 7, "nearest")  # noqa: E731
    assert torch.all(run(weight_quant=bf16ish) == 1.0)  # each update is below half an ulp
    # fp32 accumulators keep the updates; the weights are their roundings: 1.1 -> 1.1015625.
    accumulated = run(weight_quant=bf16ish, acc_quant=lambda t: t)
    assert torch.all(accumulated == 1.1015625)
    grads = run(grad_quant=lambda t: qtorch.fixed_point_quantize(t, 4, 0, rounding="nearest"), grad_scaling=2.0)
    assert torch.allclose(grads, torch.full((64,), 1 + 100 * 2e-3))


def test_errors():
    with pytest.raises(ValueError, match="exp must lie in"):
        qtorch.float_quantize(torch.ones(2), 0, 3)
    with pytest.raises(TypeError, match="expected a FloatingPoint"):
        qtorch.quantizer(forward_number="e4m3", forward_rounding="nearest")(torch.ones(2))
    with pytest.raises(TypeError, match="torch.optim.Optimizer"):
        qtorch.OptimLP([torch.ones(2)])
