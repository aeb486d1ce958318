"""softfloat.torch's Linear / linear / matmul against explicit quantize + F.linear and
against the library's matmul with a bf16 accumulator (worked out step by step), the
backward products, MX along the reduction axes, convert(); the scaling recipes' scales
and amax histories worked out by hand and their state_dict; LowPrecisionOptimizer
reproducing the vanishing-update gap."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402

F = torch.nn.functional


def integer_valued(*shape, low=-4, high=5, seed=0):
    """Small integers: every product and partial sum is exact in fp32, so any summation
    order gives the same bits (the comparisons below are then exact)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g).to(torch.float32)


def test_linear_forward_is_quantize_then_linear():
    torch.manual_seed(0)
    x, w, b = torch.randn(5, 16), torch.randn(7, 16), torch.randn(7)
    y = sft.linear(x, w, b, weight_format="e4m3", input_format="e5m2")
    reference = F.linear(sft.quantize(x, "e5m2").double(), sft.quantize(w, "e4m3").double(), b.double())
    # One fp32 rounding per product and step: within k ulps of the exact float64 sum.
    assert torch.allclose(y.double(), reference, rtol=16 * 2**-23, atol=1e-6)
    # Integer-valued operands: exact, so equal bit for bit.
    xi, wi, bi = integer_valued(5, 16), integer_valued(7, 16, seed=1), integer_valued(7, seed=2)
    assert torch.equal(sft.linear(xi, wi, bi, weight_format="e4m3", input_format="e4m3"), F.linear(xi, wi, bi))


def bf16_chain(a, b):
    """C = A @ B with a bf16 accumulator: c = +0, then c = bf16(c + a_ik * b_kj) for k in
    order (one rounding per step; the product of two e4m3 values is exact in float64)."""
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n))
    for step in range(k):
        exact = c + np.outer(a[:, step], b[step, :])
        c = softfloat.round_trip(exact, "bf16")
    return c


def test_bf16_accumulator_is_emulated_step_by_step():
    torch.manual_seed(1)
    x, w = torch.randn(4, 64), torch.randn(3, 64)
    y = sft.linear(x, w, weight_format="e4m3", input_format="e4m3", acc="bf16")
    qx, qw = sft.quantize(x, "e4m3").double().numpy(), sft.quantize(w, "e4m3").double().numpy()
    assert np.array_equal(y.double().numpy(), bf16_chain(qx, qw.T))
    # ... and it loses what fp32 accumulation keeps.
    assert not torch.equal(y, sft.linear(x, w, weight_format="e4m3", input_format="e4m3"))


def test_backward_products_and_bias():
    x = integer_valued(6, 8).requires_grad_()
    w = integer_valued(4, 8, seed=3).requires_grad_()
    b = integer_valued(4, seed=4).requires_grad_()
    g = integer_valued(6, 4, seed=5) / 4  # quarter integers: exact in e5m2's range too
    sft.linear(x, w, b, weight_format="e4m3", input_format="e4m3", grad_output_format="e5m2").backward(g)
    qg = sft.quantize(g, "e5m2")
    assert torch.equal(x.grad, qg @ sft.quantize(w.detach(), "e4m3"))
    assert torch.equal(w.grad, qg.t() @ sft.quantize(x.detach(), "e4m3"))
    assert torch.equal(b.grad, g.sum(0))


def test_mx_operands_use_the_reduction_axis_of_each_product():
    torch.manual_seed(2)
    x = torch.randn(64, 64, requires_grad=True)
    w = torch.randn(32, 64, requires_grad=True)
    g = torch.randn(64, 32)
    y = sft.linear(x, w, weight_format="mxfp8_e4m3", input_format="mxfp8_e4m3", grad_output_format="mxfp8_e5m2")
    forward = sft.mx_quantize(x.detach(), "mxfp8_e4m3", axis=1) @ sft.mx_quantize(w.detach(), "mxfp8_e4m3",
                                                                                  axis=1).t()
    assert torch.allclose(y, forward, rtol=1e-5, atol=1e-5)
    y.backward(g)
    grad_x = sft.mx_quantize(g, "mxfp8_e5m2", axis=1) @ sft.mx_quantize(w.detach(), "mxfp8_e4m3", axis=0)
    grad_w = sft.mx_quantize(g, "mxfp8_e5m2", axis=0).t() @ sft.mx_quantize(x.detach(), "mxfp8_e4m3", axis=0)
    assert torch.allclose(x.grad, grad_x, rtol=1e-5, atol=1e-4)
    assert torch.allclose(w.grad, grad_w, rtol=1e-5, atol=1e-4)
    # Not the forward blocks: the weight along axis 0 differs from along axis 1.
    assert not torch.equal(sft.mx_quantize(w.detach(), "mxfp8_e4m3", axis=0),
                           sft.mx_quantize(w.detach(), "mxfp8_e4m3", axis=1))


def test_matmul_and_module_and_convert():
    a, b = integer_valued(3, 5), integer_valued(5, 2, seed=6)
    assert torch.equal(sft.matmul(a, b, a_format="e4m3", b_format="bf16"), a @ b)
    model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2))
    x = torch.randn(4, 8)
    before = model(x)
    sft.convert(model, weight="bf16", input="bf16", skip=("2",))
    assert isinstance(model[0], sft.Linear) and type(model[2]) is torch.nn.Linear
    after = model(x)
    assert after.shape == before.shape and not torch.equal(after, before)
    assert torch.allclose(after, before, atol=0.1)
    layer = sft.Linear(8, 3, weight="e4m3", input=sft.DelayedScaling("e4m3", history_len=4))
    assert "weight='e4m3'" in repr(layer)
    state = layer.state_dict()
    assert "recipes.input.amax_history" in state and "weight" in state


def test_current_scaling():
    recipe = sft.CurrentScaling("e4m3")
    x = torch.tensor([1.0, -3.5, 0.25])
    values, scale = recipe(x)
    assert scale.item() == pytest.approx(448 / 3.5)  # max_fmt / amax, rounded to float32
    assert torch.equal(values, sft.quantize(x * scale, "e4m3", saturate=True) / scale)
    assert sft.CurrentScaling("e4m3", power_of_two=True).scale_of(x).item() == 128.0  # 2^floor(log2 128)
    assert sft.CurrentScaling("e4m3", margin=1).scale_of(x).item() == pytest.approx(448 / 3.5 / 2)
    assert sft.CurrentScaling("e4m3").scale_of(torch.zeros(3)).item() == 1.0


def test_delayed_scaling_history_worked_by_hand():
    recipe = sft.DelayedScaling("e5m2", history_len=3, amax_compute="max")
    amaxes = [2.0, 8.0, 1.0, 0.5, 0.25]
    scales = [recipe.scale_of(torch.tensor([a, -a / 2])).item() for a in amaxes]
    # Use 1 has no history: scale 1. Then max_fmt / max(history so far), history of 3:
    # after 2 -> 57344/2; after 8 -> /8; after 1 -> /8; after 0.5 -> max(8, 1, .5) = 8;
    # after 0.25 (history 1, 0.5, 0.25) -> /1.
    assert scales == [1.0, 57344 / 2, 57344 / 8, 57344 / 8, 57344 / 8]
    assert recipe.amax_history.tolist() == [0.25, 0.5, 1.0]
    assert recipe.scale.item() == 57344.0
    recent = sft.DelayedScaling("e5m2", history_len=3, amax_compute="most_recent", margin=2)
    for a in amaxes[:3]:
        recent.scale_of(torch.tensor([a]))
    assert recent.scale.item() == 57344 / 1.0 / 4
    copy = sft.DelayedScaling("e5m2", history_len=3)
    copy.load_state_dict(recipe.state_dict())
    assert torch.equal(copy.amax_history, recipe.amax_history) and copy.scale.item() == 57344.0
    with pytest.raises(ValueError, match="amax_compute must be 'max' or 'most_recent'"):
        sft.DelayedScaling("e5m2", amax_compute="mean")


def test_row_and_block_scaling():
    x = torch.tensor([[1.0, 2.0], [0.5, -0.25]])
    scales = sft.RowScaling("e4m3").scale_of(x)
    assert scales.flatten().tolist() == [224.0, 896.0]  # 448 / 2, 448 / 0.5
    block = sft.BlockScaling("e4m3", (1, 1)).scale_of(x)
    assert block.tolist() == [[448.0, 224.0], [896.0, 1792.0]]
    tiles = sft.BlockScaling("e4m3", (2, 128), power_of_two=True).scale_of(x)
    assert tiles.tolist() == [[128.0, 128.0], [128.0, 128.0]]  # one tile: 448 / 2 -> 2^7
    values, _ = sft.RowScaling("e2m1")(x)
    assert values.tolist() == [[1.0, 2.0], [0.5, -0.25]]  # exact after scaling to E2M1's 6


def vanishing_update_run(optimizer_factory, steps=200):
    w = torch.nn.Parameter(torch.ones(256))
    opt = optimizer_factory([w])
    for _ in range(steps):
        opt.zero_grad()
        (-w.sum()).backward()  # gradient -1: each SGD step adds lr
        opt.step()
    return w.detach()


def test_optimizer_reproduces_the_vanishing_update_gap():
    lr = 1e-3  # below half of bf16's ulp at 1 (2^-8): a nearest-rounded update vanishes
    sgd = lambda p: torch.optim.SGD(p, lr=lr)  # noqa: E731
    plain = vanishing_update_run(lambda p: sft.LowPrecisionOptimizer(sgd(p), "bf16", rounding="nearest_even"))
    assert torch.all(plain == 1.0)
    stochastic = vanishing_update_run(lambda p: sft.LowPrecisionOptimizer(sgd(p), "bf16", seed=3))
    expected = 1 + 200 * lr
    assert abs(stochastic.mean().item() - expected) < 0.01
    master = vanishing_update_run(lambda p: sft.LowPrecisionOptimizer(sgd(p), "bf16", rounding="nearest_even",
                                                                      master_weights=True))
    assert torch.all(master == softfloat.round_trip(np.array([expected], np.float32), "bf16")[0])
    reference = vanishing_update_run(sgd)
    assert abs(reference.mean().item() - expected) < 1e-4


def test_optimizer_state_and_errors():
    w = torch.nn.Parameter(torch.randn(64))
    opt = sft.LowPrecisionOptimizer(torch.optim.Adam([w], lr=0.01), "bf16", state="e5m2", seed=1)
    for _ in range(3):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
    exp_avg = opt.state[w]["exp_avg"]
    assert torch.equal(exp_avg, sft.quantize(exp_avg, "e5m2"))
    assert torch.equal(w.detach(), sft.quantize(w.detach(), "bf16"))
    assert "LowPrecisionOptimizer(Adam" in repr(opt)
    with pytest.raises(TypeError, match="expected a torch.optim.Optimizer"):
        sft.LowPrecisionOptimizer([w], "bf16")
    with pytest.raises(ValueError, match="invalid format spec"):
        sft.LowPrecisionOptimizer(torch.optim.SGD([w], lr=1), "bf17")


def test_layer_errors():
    with pytest.raises(ValueError, match="do not fit"):
        sft.linear(torch.ones(2, 3), torch.ones(4, 5))
    with pytest.raises(ValueError, match="has 64 bits"):
        sft.Linear(2, 2, weight="fp64")
    with pytest.raises(TypeError, match="must be None, a format spec"):
        sft.Linear(2, 2, weight=3)
    with pytest.raises(ValueError, match="invalid format spec"):
        sft.Linear(2, 2, acc="bf17")


def first_python_block(page, heading):
    """The first ```python block after `heading` in `page` (relative to the repository), run; its names."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    text = (root / page).read_text()
    section = text[text.index(heading):]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    names = {}
    exec(compile(snippet, f"{page} ({heading.strip()})", "exec"), names)
    return names


def test_readme_torch_example():
    """README.md's PyTorch example runs, and gives what its comments say."""
    torch.manual_seed(0)
    names = first_python_block("README.md", "\n### PyTorch\n")
    x, y, layer, out = names["x"], names["y"], names["layer"], names["out"]
    values = x.detach()
    assert torch.equal(y.detach(), sft.quantize(values, "e4m3"))
    assert torch.equal(sft.quantize(y.detach(), "e4m3"), y.detach())  # E4M3 values already
    assert torch.equal(x.grad, torch.ones_like(values))                # straight-through
    assert names["q"].dtype == torch.float8_e4m3fn and torch.equal(names["q"].float(), y.detach())
    assert out.shape == (4, 32)
    # The layer rounds its operands by their specs and sums in bf16: the same product of
    # operands rounded beforehand (E4M3 and MXFP4 rounding leave their own values as they are).
    weight = layer.weight.detach()
    rounded = sft.linear(sft.quantize(values, "e4m3"), sft.mx_quantize(weight, "mxfp4_e2m1"), None, acc="bf16")
    assert torch.equal(sft.linear(values, weight, None, weight_format="mxfp4_e2m1", input_format="e4m3",
                                  acc="bf16"), rounded)
    assert torch.equal(out.detach(), sft.linear(values, weight, layer.bias.detach(), weight_format="mxfp4_e2m1",
                                                input_format="e4m3", acc="bf16"))


def test_torch_reference_example():
    """The example at the top of docs/reference/torch.md runs, and gives what it says."""
    names = first_python_block("docs/reference/torch.md", "# torch reference")
    x = names["x"].detach()
    assert names["q"].dtype == torch.float8_e4m3fn and names["q"].shape == (4, 64)
    assert torch.equal(names["q"].float(), sft.quantize(x, "e4m3"))  # torch's own cast of the codes
    assert names["codes"].dtype == torch.uint8 and names["codes"].shape == (4, 64)
    assert torch.equal(sft.decode(names["codes"], "e3m2"), sft.quantize(x, "e3m2"))
    assert names["elements"].dtype == torch.float8_e4m3fn and names["scales"].dtype == torch.float8_e8m0fnu
    assert names["scales"].shape == (4, 2)
    assert torch.equal(sft.mx_decode(names["elements"], names["scales"]),
                       sft.mx_quantize(x, "mxfp8_e4m3"))
    assert isinstance(names["layer"], sft.Linear) and isinstance(names["model"][0], sft.Linear)
    assert isinstance(names["opt"], sft.LowPrecisionOptimizer)
