"""softfloat.torch.qtorch: QPyTorch's signatures over the exact library. Expected values
are worked out by hand or computed independently with torch (torch.round is round half
to even, .half() is IEEE binary16), never with this library. The later tests carry
QPyTorch's own invariants (its test/test_backward.py, test_clamp.py, test_relation.py,
test_stochastic.py and test_random.py) to the CPU; the cases where QPyTorch's rounding
differs are the module docstring's list."""
import math

import numpy as np

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


# --- QPyTorch's invariants -------------------------------------------------------------

def fixed_reference(x, wl, fl, clamp=True, symmetric=False):
    """QPyTorch's fixed point by hand: round half to even on the grid 2^-fl (torch.round),
    then clamped to [-2^(wl-fl-1), 2^(wl-fl-1) - 2^-fl] (lowest + 2^-fl when symmetric)."""
    y = torch.round(x.double() * 2.0**fl) / 2.0**fl
    if clamp:
        t_min = -(2.0 ** (wl - fl - 1)) + (2.0**-fl if symmetric else 0.0)
        y = torch.clamp(y, t_min, 2.0 ** (wl - fl - 1) - 2.0**-fl)
    return y.to(x.dtype)


@pytest.mark.parametrize("rounding", ["nearest", "stochastic"])
def test_fixed_clamp_saturates_at_the_bounds_and_no_clamp_does_not(rounding):
    # test_clamp.test_fixed: wl=5, fl=4 holds [-1, 1 - 1/16] = [-1, 0.9375].
    torch.manual_seed(1)
    wl, fl, t_min, t_max = 5, 4, -1.0, 0.9375
    a = torch.linspace(-2, 2, steps=100)
    clamped = qtorch.fixed_point_quantize(a, wl=wl, fl=fl, clamp=True, rounding=rounding)
    assert clamped.max().item() == t_max and clamped.min().item() == t_min
    unclamped = qtorch.fixed_point_quantize(a, wl=wl, fl=fl, clamp=False, rounding=rounding)
    assert unclamped.max().item() > t_max and unclamped.min().item() < t_min
    if rounding == "nearest":
        assert torch.equal(clamped, fixed_reference(a, wl, fl))
        assert torch.equal(unclamped, fixed_reference(a, wl, fl, clamp=False))
        assert unclamped.max().item() == 2.0 and unclamped.min().item() == -2.0
    else:  # each value one of its two neighbours on the grid 1/16
        floor, ceil = torch.floor(a * 16) / 16, torch.ceil(a * 16) / 16
        assert torch.all((unclamped == floor) | (unclamped == ceil))
        floor, ceil = torch.clamp(floor, t_min, t_max), torch.clamp(ceil, t_min, t_max)
        assert torch.all((clamped == floor) | (clamped == ceil))
    symmetric = qtorch.fixed_point_quantize(a, wl=wl, fl=fl, symmetric=True, rounding=rounding)
    assert symmetric.min().item() == -0.9375 and symmetric.max().item() == t_max


def test_fixed_random_unclamped_is_torch_round():
    # test_random.test_fixed_random (10^8 values there, 10^6 here): wl=8, fl=8 without
    # clamping is round(x * 2^8) / 2^8; 4.6% of N(0, 1) lies beyond the wl=8 range
    # [-0.5, 0.49609375] and keeps its value.
    torch.manual_seed(2)
    x = torch.randn(10**6)
    y = qtorch.fixed_point_quantize(x, wl=8, fl=8, clamp=False, rounding="nearest")
    assert torch.equal(y, torch.round(x * 2**8) / 2**8)
    assert (y.abs() > 2).sum().item() > 40000
    clamped = qtorch.fixed_point_quantize(x, wl=8, fl=8, clamp=True, rounding="nearest")
    assert torch.equal(clamped, torch.clamp(torch.round(x * 2**8) / 2**8, -0.5, 0.49609375))


def test_float_representable_values():
    # test_clamp.test_float: sweeping [-30, 30) by 0.01 reaches every value of
    # FloatingPoint(exp, man) (bias 2^(exp-1) - 1, every exponent code finite, subnormals)
    # and no other, with either rounding.
    torch.manual_seed(3)
    sweep = torch.tensor(np.arange(-30, 30, 0.01), dtype=torch.float32)
    for exp, man in [(2, 2), (2, 3), (3, 2)]:
        min_exp = -(2 ** (exp - 1) - 2)
        expected = set()
        for sign in (1, -1):
            for e in range(2**exp):
                for m in range(2**man):
                    if e == 0:
                        expected.add(sign * 2.0**min_exp * m * 2.0**-man)
                    else:
                        expected.add(sign * 2.0 ** (e + min_exp - 1) * (1 + m * 2.0**-man))
        for rounding in ("nearest", "stochastic"):
            got = set(qtorch.float_quantize(sweep, exp=exp, man=man, rounding=rounding).tolist())
            assert got == expected, (exp, man, rounding)


def test_float_half_is_torch_half():
    # test_relation.test_float_half, value for value: exp=5, man=10 rounds like .half()
    # wherever binary16 is finite (this format goes on to 131008, binary16 stops at 65504).
    torch.manual_seed(4)
    a = torch.cat([torch.rand(10**4), torch.randn(10**4) * 1000, torch.randn(10**4) * 1e-5])
    assert torch.equal(qtorch.float_quantize(a, exp=5, man=10, rounding="nearest"), a.half().float())


@pytest.mark.parametrize("wl, fl", [(3, 2), (5, 4)])
def test_fixed_block_zero_exponent(wl, fl):
    # test_relation.test_fixed_block_zero_exponent: a block whose largest magnitude is in
    # [0.5, 1) has step 2^(-1 + 2 - wl) = 2^-fl and range +-(1 - 2^-fl), so it rounds like
    # fixed point with fl = wl - 1.
    t_max = 1 - 2.0**-fl
    x = torch.linspace(-t_max, t_max, steps=1000)
    fixed = qtorch.fixed_point_quantize(x, wl=wl, fl=fl, rounding="nearest")
    block = qtorch.block_quantize(x, wl=wl, rounding="nearest")
    assert torch.equal(fixed, torch.round(x * 2**fl) / 2**fl)
    assert torch.equal(block, fixed)


def backward_of(quant, a):
    a = a.clone().requires_grad_(True)
    quant(a).sum().backward()
    return a.grad


def test_backward_fixed_zeroes_only_clamped_gradients():
    # test_backward.test_backward_fixed: the gradient 1 rounded into FixedPoint(5, 4)
    # clamps to t_max = 0.9375; with clamping_grad_zero only 1.0 (which rounds to 1.0 >
    # 0.9375) loses it: -1 is in range, -0.6 only rounds (to -0.625), 0 is exact.
    number = qtorch.FixedPoint(wl=5, fl=4)
    quant = qtorch.quantizer(forward_number=number, forward_rounding="nearest", backward_number=number,
                             backward_rounding="nearest")
    grad = backward_of(quant, torch.linspace(-1, 0.9375, steps=100))
    assert torch.all(grad == 0.9375)
    zeroing = qtorch.quantizer(forward_number=number, forward_rounding="nearest", backward_number=number,
                               backward_rounding="nearest", clamping_grad_zero=True)
    a = torch.tensor([-1, -0.6, 0, 1], requires_grad=True)
    out = zeroing(a)
    assert out.tolist() == [-1.0, -0.625, 0.0, 0.9375]
    out.sum().backward()
    assert a.grad.tolist() == [0.9375, 0.9375, 0.9375, 0.0]


@pytest.mark.parametrize("rounding", ["nearest", "stochastic"])
def test_clamp_zero_matches_the_hand_oracle(rounding):
    # test_backward.test_clamp_zero: FixedPoint(4, 3, symmetric) holds [-0.875, 0.875];
    # the gradient is zero exactly where round(x * 8) / 8 lies outside it.
    torch.manual_seed(5)
    number = qtorch.FixedPoint(wl=4, fl=3, clamp=True, symmetric=True)
    quant = qtorch.quantizer(forward_number=number, forward_rounding=rounding, backward_number=number,
                             backward_rounding="nearest", clamping_grad_zero=True)
    x = torch.linspace(-2, 2, steps=10).requires_grad_(True)
    out = quant(x)
    out.sum().backward()
    values = x.detach()
    below, above = torch.floor(values * 8) / 8, torch.ceil(values * 8) / 8

    def outside(v):
        return (v > 0.875) | (v < -0.875)

    # Both neighbours of each of these x lie on the same side of the range, so which
    # values are clamped does not depend on the rounding: +-2, +-1.5556, +-1.1111.
    assert torch.equal(outside(below), outside(above))
    clamped = outside(below)
    assert clamped.tolist() == [True] * 3 + [False] * 4 + [True] * 3
    assert torch.equal(x.grad, torch.where(clamped, 0.0, 0.875))
    if rounding == "nearest":
        assert torch.equal(out, torch.clamp(torch.round(values * 8) / 8, -0.875, 0.875))


def test_clamp_zero_at_the_boundary_depends_on_the_rounded_value():
    # x between t_max = 0.9375 and 1: rounded down it is in range (gradient kept), rounded
    # up to 1 it is clamped (gradient zeroed); over many stochastic draws both happen, and
    # the gradient is zero exactly where the output is t_max after rounding up.
    torch.manual_seed(6)
    number = qtorch.FixedPoint(wl=5, fl=4)
    quant = qtorch.quantizer(forward_number=number, forward_rounding="stochastic", clamping_grad_zero=True)
    x = torch.full((4096,), 0.96875, requires_grad=True)  # halfway between 0.9375 and 1
    out = quant(x)
    assert torch.all(out == 0.9375)
    out.sum().backward()
    zeroed = (x.grad == 0).sum().item()
    assert set(x.grad.tolist()) == {0.0, 1.0}
    assert abs(zeroed - 2048) < 6 * 32  # binomial(4096, 1/2): sd 32


def test_backward_block_and_float_pass_the_gradient():
    # test_backward.test_backward_block / test_backward_float: 1 is exact in both.
    a = torch.linspace(-0.9, 0.9, steps=100)
    for number in (qtorch.BlockFloatingPoint(wl=5), qtorch.FloatingPoint(exp=3, man=5)):
        quant = qtorch.quantizer(forward_number=number, forward_rounding="nearest", backward_number=number,
                                 backward_rounding="nearest")
        assert torch.all(backward_of(quant, a) == 1.0)


def test_clamping_grad_zero_needs_a_clamping_fixed_point():
    for number in (qtorch.FloatingPoint(4, 3), qtorch.BlockFloatingPoint(8)):
        with pytest.raises(ValueError, match="clamping_grad_zero needs a FixedPoint"):
            qtorch.quantizer(forward_number=number, clamping_grad_zero=True)
    with pytest.raises(ValueError, match="clamp=True"):
        qtorch.quantizer(forward_number=qtorch.FixedPoint(8, 4, clamp=False), clamping_grad_zero=True)
    # No forward number: nothing is clamped, the gradient passes.
    assert backward_of(qtorch.quantizer(clamping_grad_zero=True), torch.tensor([5.0, -7.0])).tolist() == [1.0, 1.0]


def test_clamping_grad_zero_without_backward_number_and_hooks():
    # Our choice (module docstring): the clamped gradient is zeroed and the hooks run even
    # with no backward_number. Hook: times 3; x = [0.5, 9]: 9 clamps to 7.9375 (wl=8, fl=4).
    quant = qtorch.quantizer(forward_number=qtorch.FixedPoint(8, 4), forward_rounding="nearest",
                             clamping_grad_zero=True, backward_hooks=[lambda g: g * 3])
    assert backward_of(quant, torch.tensor([0.5, 9.0])).tolist() == [3.0, 0.0]
    nan_grad = torch.tensor([0.5, 9.0], requires_grad=True)
    quant(nan_grad).backward(torch.tensor([1.0, float("nan")]))
    assert nan_grad.grad.tolist() == [3.0, 0.0]  # zeroed, not NaN * 0


def unbiased(samples, x, step, n, limit=float("inf")):
    """The mean of n stochastic roundings of x (each one of two neighbours `step` apart,
    variance at most step^2 / 4) lies within 6 standard deviations, 3 * step / sqrt(n),
    wherever |x| <= limit (beyond it the format clamps, and the mean is the limit)."""
    mean = samples.double().mean(dim=0)
    x = x.double()
    inside = x.abs() <= limit
    assert torch.all(((mean - x).abs() <= 3 * step / n**0.5) | ~inside)
    assert torch.all((mean == torch.sign(x) * limit) | inside)
    return ((mean - x) ** 2).mean().item()


def test_stochastic_fixed_is_unbiased():
    # test_stochastic.test_stochastic_fixed: FixedPoint(7, 6), 10^4 draws of 100 values
    # (QPyTorch averages 10^5 and asks a mean squared error below 1e-6).
    torch.manual_seed(7)
    n, a = 10**4, torch.linspace(-0.9, 0.9, steps=100)
    draws = qtorch.fixed_point_quantize(a.expand(n, -1).contiguous(), wl=7, fl=6, clamp=True)
    floor, ceil = torch.floor(a * 64) / 64, torch.ceil(a * 64) / 64
    assert torch.all((draws == floor) | (draws == ceil))
    assert unbiased(draws, a, 2.0**-6, n) < 1e-6
    quant = qtorch.quantizer(forward_number=qtorch.FixedPoint(wl=7, fl=6), forward_rounding="stochastic")
    assert unbiased(quant(a.expand(n, -1).contiguous()), a, 2.0**-6, n) < 1e-6


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_stochastic_block_is_unbiased(dim):
    # test_stochastic.test_stochastic_block: wl=6 on rand(10, 10, 10). The n copies are
    # stacked in front, so the block of an element (dim + 1 of the stack) is unchanged.
    # A block's mantissas stop at 31 steps: above 31/32 of 2^(e+1) values clamp.
    torch.manual_seed(8)
    n, a = 4096, torch.rand(10, 10, 10)
    stacked = a.expand(n, -1, -1, -1).contiguous()
    stacked_dim = -1 if dim == -1 else dim + 1
    if dim == -1:
        amax = a.abs().max().expand_as(a)
    else:
        others = [d for d in range(3) if d != dim]
        amax = a.abs().amax(dim=others, keepdim=True).expand_as(a)
    _, exponent = torch.frexp(amax)  # amax = m * 2^exponent, m in [0.5, 1): binade exponent - 1
    step = torch.exp2((exponent - 1 + 2 - 6).double())
    limit = (2**5 - 1) * step
    assert unbiased(qtorch.block_quantize(stacked, wl=6, dim=stacked_dim), a, step, n, limit) < 1e-4
    quant = qtorch.quantizer(forward_number=qtorch.BlockFloatingPoint(wl=6, dim=stacked_dim),
                             forward_rounding="stochastic")
    assert unbiased(quant(stacked), a, step, n, limit) < 1e-4


def test_stochastic_float_is_unbiased():
    # test_stochastic.test_stochastic_float: FloatingPoint(6, 5) on rand(100); the step of
    # x in [2^e, 2^(e+1)) is 2^(e - 5).
    torch.manual_seed(9)
    n, a = 10**4, torch.rand(100)
    _, exponent = torch.frexp(a)
    step = torch.exp2((exponent - 1 - 5).double())
    assert unbiased(qtorch.float_quantize(a.expand(n, -1).contiguous(), exp=6, man=5), a, step, n) < 1e-6
    quant = qtorch.quantizer(forward_number=qtorch.FloatingPoint(exp=6, man=5), forward_rounding="stochastic")
    assert unbiased(quant(a.expand(n, -1).contiguous()), a, step, n) < 1e-6


def test_documented_differences_from_qpytorch():
    # Our side of the module docstring's list (QPyTorch's side: 0.0, 8388610, 2^-9, 2^-6, 480).
    x = torch.tensor([0.5 + 2**-24, 8388609.0, -8388609.0])
    assert qtorch.fixed_point_quantize(x, 32, 0, clamp=False, rounding="nearest").tolist() == [
        1.0, 8388609.0, -8388609.0]
    assert qtorch.fixed_point_quantize(torch.tensor([0.50000006]), 8, 0, rounding="nearest").item() == 1.0
    torch.manual_seed(11)
    on_grid = torch.full((1 << 20,), 3.0)  # QPyTorch moves each with probability 3 * 2^-24
    assert torch.all(qtorch.fixed_point_quantize(on_grid, 8, 0, rounding="stochastic") == 3.0)
    assert qtorch.float_quantize(torch.tensor([2**-10 - 2**-34]), 4, 3, "nearest").item() == 0.0
    block = qtorch.block_quantize(torch.tensor([1.0, 2**-7 - 2**-30, 2**-7, -(2**-7), 3 * 2**-7]), 8,
                                  rounding="nearest")
    assert block.tolist() == [1.0, 0.0, 0.0, 0.0, 2**-5]
    special = qtorch.block_quantize(torch.tensor([1.0, float("inf"), float("nan")]), 8, rounding="nearest")
    assert special.tolist()[:2] == [1.0, 2 - 2**-6] and math.isnan(special[2].item())


# --- Quantizer, lower, sequential_lower --------------------------------------------------

def small_model():
    torch.manual_seed(10)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                               torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Tanh()))


def q84(z):
    """FixedPoint(8, 4), nearest, by hand: multiples of 1/16 in [-8, 7.9375]."""
    return torch.clamp(torch.round(z * 16) / 16, -8.0, 7.9375)


def test_quantizer_module_rounds_forward_and_backward():
    quant = qtorch.Quantizer(forward_number=qtorch.FixedPoint(8, 4), backward_number=qtorch.FixedPoint(8, 2),
                             forward_rounding="nearest", backward_rounding="nearest")
    x = torch.tensor([0.3, -9.0, 2.71828], requires_grad=True)
    y = quant(x)
    assert torch.equal(y, q84(x.detach()))
    y.backward(torch.tensor([0.3, 0.6, -40.0]))
    assert x.grad.tolist() == [0.25, 0.5, -32.0]  # multiples of 1/4 in [-32, 31.75]
    assert "FixedPoint (wl=8, fl=4)" in repr(quant)


def test_lower_rounds_the_outputs_of_the_named_layers():
    model, x = small_model(), torch.randn(5, 3)
    lin1, lin2, tanh = model[0], model[2][0], model[2][1]
    with torch.no_grad():
        plain = model(x)
        expected = tanh(q84(lin2(torch.relu(q84(lin1(x))))))
        expected_with_activations = q84(tanh(q84(lin2(q84(torch.relu(q84(lin1(x))))))))
    assert qtorch.lower(model, layer_types=["linear"], forward_number=qtorch.FixedPoint(8, 4),
                        forward_rounding="nearest") is None
    with torch.no_grad():
        assert torch.equal(model(x), expected)
        assert not torch.equal(expected, plain)
    again = small_model()
    qtorch.lower(again, ["linear", "activation"], qtorch.FixedPoint(8, 4), None, "nearest")
    with torch.no_grad():
        assert torch.equal(again(x), expected_with_activations)
    with pytest.raises(ValueError, match="unknown layer type 'dense'"):
        qtorch.lower(small_model(), ["dense"])


def test_sequential_lower_returns_a_lowered_copy():
    model, x = small_model(), torch.randn(5, 3)
    lowered = qtorch.sequential_lower(model, layer_types=["linear"], forward_number=qtorch.FixedPoint(8, 4),
                                      backward_number=qtorch.FixedPoint(8, 2), forward_rounding="nearest",
                                      backward_rounding="nearest")
    assert isinstance(lowered[0], torch.nn.Sequential) and isinstance(lowered[0][1], qtorch.Quantizer)
    assert isinstance(lowered[2][0], torch.nn.Sequential) and isinstance(lowered[2][1], torch.nn.Tanh)
    assert type(model[0]) is torch.nn.Linear  # the original is untouched
    lin1, lin2 = model[0], model[2][0]
    with torch.no_grad():
        expected = torch.tanh(q84(lin2(torch.relu(q84(lin1(x))))))
        assert torch.equal(lowered(x), expected)
        assert torch.equal(model(x), torch.tanh(lin2(torch.relu(lin1(x)))))
    # The gradient reaching the first layer's output is rounded to multiples of 1/4.
    lowered[0][0].weight.grad = None
    (lowered(x).sum() * 1.37).backward()
    assert lowered[0][0].weight.grad is not None
    assert torch.all(torch.remainder(lowered[0][0].bias.grad * 4, 1) == 0)
