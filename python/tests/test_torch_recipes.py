"""softfloat.torch.recipes: the systems' recipes GEMM by GEMM, their scale arithmetic
against torchao's own functions bit for bit (float8_utils.py / float8_scaling_utils.py,
Float8Linear(emulate=True)), TransformerEngine's formulas worked by hand (its delayed
scaling's history, NVFP4's two-level scales and 16 x 16 weight tiles, the Hadamard
transform), and Linear / convert with recipe=."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat.torch as sft  # noqa: E402
from softfloat.torch import recipes  # noqa: E402

F = torch.nn.functional


def bits(t):
    return t.detach().contiguous().view(torch.int32)


# --- the recipes' contents -------------------------------------------------------------------

def test_te_recipes_defaults():
    delayed = recipes.te_delayed()
    assert (delayed.history_len, delayed.amax_compute, delayed.margin, delayed.reduce_amax) == (1024, "max", 0, True)
    assert [operand.fmt for _, _, operand in delayed.operands()] == ["e4m3", "e4m3", "e5m2", "e4m3", "e5m2", "e4m3"]
    assert {operand.scaling for _, _, operand in delayed.operands()} == {"delayed"}
    assert recipes.te_delayed(fp8_format="E4M3").dgrad.a.fmt == "e4m3"
    current = recipes.te_current()
    assert current.forward.a == recipes.Operand("e4m3", "tensor", "te") and current.wgrad.a.fmt == "e5m2"
    mx = recipes.te_mxfp8()
    assert {(o.fmt, o.block, o.scale_rule) for _, _, o in mx.operands()} == {("mxfp8_e4m3", 32, "rceil")}
    nvfp4 = recipes.te_nvfp4()
    assert nvfp4.forward.b.tile and nvfp4.dgrad.b.tile and not nvfp4.forward.a.tile
    assert nvfp4.dgrad.a.rounding == nvfp4.wgrad.a.rounding == "stochastic"
    assert nvfp4.forward.a.rounding == nvfp4.wgrad.b.rounding == "nearest_even"
    assert nvfp4.wgrad.a.hadamard and nvfp4.wgrad.b.hadamard and not nvfp4.dgrad.a.hadamard
    plain = recipes.te_nvfp4(disable_rht=True, disable_stochastic_rounding=True, disable_2d_quantization=True)
    assert {(o.tile, o.hadamard, o.rounding) for _, _, o in plain.operands()} == {(False, False, "nearest_even")}


def test_torchao_recipes():
    tensorwise = recipes.torchao_float8()
    assert [o.fmt for _, _, o in tensorwise.operands()] == ["e4m3", "e4m3", "e5m2", "e4m3", "e5m2", "e4m3"]
    assert {(o.epsilon, o.power_of_two, o.arithmetic) for _, _, o in tensorwise.operands()} == {(1e-12, False,
                                                                                              "torchao")}
    rowwise = recipes.torchao_float8("rowwise")
    assert {(o.fmt, o.scaling, o.power_of_two) for _, _, o in rowwise.operands()} == {("e4m3", "axis", True)}
    hp = recipes.torchao_float8("rowwise_with_gw_hp")
    assert hp.dgrad.b.scaling == "tensor" and hp.dgrad.b.power_of_two
    assert hp.wgrad == recipes.Gemm(recipes.HIGH_PRECISION, recipes.HIGH_PRECISION)
    mx = recipes.torchao_mxfp8()
    assert {(o.fmt, o.scale_rule) for _, _, o in mx.operands()} == {("mxfp8_e4m3", "rceil")}
    assert recipes.torchao_mxfp8("mxfp8_rceil_wgrad_with_hp").wgrad.a.scaling == "high_precision"


@pytest.mark.parametrize("call, message", [
    (lambda: recipes.torchao_float8("columnwise"), "recipe_name must be one of"),
    (lambda: recipes.torchao_mxfp8("mxfp8_floor"), "recipe_name must be one of"),
    (lambda: recipes.te_delayed(fp8_format="E5M2"), "fp8_format must be 'HYBRID' or 'E4M3'"),
    (lambda: recipes.te_delayed(amax_compute_algo="mean"), "amax_compute_algo"),
    (lambda: recipes.Operand("e4m3", "sideways"), "scaling must be one of"),
    (lambda: recipes.Operand(None, "tensor"), "a format goes with every scaling"),
    (lambda: sft.Linear(4, 4, weight="e4m3", recipe=recipes.te_current()), "give it alone, without weight"),
    (lambda: sft.convert(torch.nn.Linear(4, 4), input="e4m3", recipe=recipes.te_current()), "give it alone"),
])
def test_bad_recipes_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_recipe_must_be_a_recipe():
    with pytest.raises(TypeError, match="recipe must be a softfloat.torch.recipes.Recipe"):
        sft.Linear(4, 4, recipe="te_nvfp4")


# --- torchao's own float8 functions, bit for bit ---------------------------------------------

float8_scaling = pytest.importorskip("torchao.float8.float8_scaling_utils")
float8_tensor = pytest.importorskip("torchao.float8.float8_training_tensor")
float8_config = pytest.importorskip("torchao.float8.config")


def torchao_values(t, dtype, axiswise_dim=None, power_of_two=False):
    """torchao's float8 operand (hp_tensor_to_float8_dynamic) as its values data / scale."""
    granularity = (float8_config.ScalingGranularity.AXISWISE if axiswise_dim is not None
                   else float8_config.ScalingGranularity.TENSORWISE)
    mm_config = float8_tensor.LinearMMConfig()
    q = float8_scaling.hp_tensor_to_float8_dynamic(t, dtype, mm_config, scaling_granularity=granularity,
                                                   axiswise_dim=axiswise_dim, round_scales_to_power_of_2=power_of_two)
    return q._data.to(torch.float32) / q._scale


def awkward_tensor(rows, cols, seed):
    """Values over 40 binades, with a zero row, a row of subnormal E4M3 values, and an
    amax just below a power of two (where a float32 log2 of the scale rounds up)."""
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(rows, cols, generator=g) * torch.exp2(torch.randint(-20, 20, (rows, 1), generator=g).float())
    t[0] = 0.0
    t[1] = torch.randn(cols, generator=g) * 2.0**-12
    t[2, 0] = 448.0 / (2.0**5 * (1 + 2.0**-22))
    return t


@pytest.mark.parametrize("fmt, dtype", [("e4m3", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2)])
@pytest.mark.parametrize("seed", range(3))
def test_tensorwise_operands_equal_torchaos(fmt, dtype, seed):
    t = awkward_tensor(24, 48, seed)
    operand = recipes.Operand(fmt, "tensor", "torchao", epsilon=1e-12)
    assert torch.equal(bits(recipes.operand_values(t, operand, axis=1)), bits(torchao_values(t, dtype)))
    # An all-zero tensor: amax 0 clamps at 1e-12, as torchao's does.
    zeros = torch.zeros(3, 4)
    assert torch.equal(bits(recipes.operand_values(zeros, operand, 1)), bits(torchao_values(zeros, dtype)))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("power_of_two", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_rowwise_operands_equal_torchaos(axis, power_of_two, seed):
    t = awkward_tensor(32, 48, seed)
    operand = recipes.Operand("e4m3", "axis", "torchao", epsilon=1e-12, power_of_two=power_of_two)
    ours = recipes.operand_values(t, operand, axis)
    theirs = torchao_values(t, torch.float8_e4m3fn, axiswise_dim=0 if axis == 0 else -1,
                            power_of_two=power_of_two)
    assert torch.equal(bits(ours), bits(theirs))


@pytest.mark.parametrize("recipe_name", ["tensorwise", "rowwise", "rowwise_with_gw_hp"])
def test_linear_against_torchaos_emulated_float8_linear(recipe_name):
    """Float8Linear(emulate=True) multiplies the same operands in float32 (torch.mm): the
    outputs and gradients agree within float32 summation's bound, k * 2^-24 * sum |a||b|
    for k-term sums, and the quantized operands agree bit for bit (tests above)."""
    float8_linear = pytest.importorskip("torchao.float8.float8_linear")
    torch.manual_seed(1)
    config = float8_config.Float8LinearConfig.from_recipe_name(recipe_name)
    config = float8_config.Float8LinearConfig(**{**config.__dict__, "emulate": True})
    reference = torch.nn.Linear(64, 48)
    theirs = float8_linear.Float8Linear.from_float(torch.nn.Linear(64, 48), config=config)
    ours = sft.Linear(64, 48, recipe=recipes.torchao_float8(recipe_name))
    for layer in (theirs, ours):
        with torch.no_grad():
            layer.weight.copy_(reference.weight)
            layer.bias.copy_(reference.bias)
    x = torch.randn(32, 64) * 3
    results = []
    for layer in (theirs, ours):
        xi = x.clone().requires_grad_()
        y = layer(xi)
        y.backward(torch.linspace(-2, 2, y.numel()).reshape(y.shape))
        results.append((y.detach(), xi.grad, layer.weight.grad))
    bound = lambda k, a, b: k * 2.0**-24 * (a.abs() @ b.abs()) * 4 + 1e-30  # noqa: E731 (4: two rounded operands)
    (y0, gx0, gw0), (y1, gx1, gw1) = results
    w, g = reference.weight.detach(), torch.linspace(-2, 2, y0.numel()).reshape(y0.shape)
    assert torch.all((y0 - y1).abs() <= bound(64, x, w.t()) + 1e-6)
    assert torch.all((gx0 - gx1).abs() <= bound(48, g, w))
    assert torch.all((gw0 - gw1).abs() <= bound(32, g.t(), x))
    assert not torch.equal(y1, reference(x))  # rounded, not the plain product


# --- TransformerEngine's formulas, worked by hand ---------------------------------------------

def test_te_current_scale_arithmetic():
    operand = recipes.Operand("e4m3", "tensor", "te")
    t = torch.tensor([[3.0, -0.1, 0.0, 7.0]])
    scale = np.float32(448.0) / np.float32(7.0)  # fl32(max / amax)
    q = sft.quantize(t * float(scale), "e4m3", saturate=True)
    assert torch.equal(recipes.operand_values(t, operand, 1), q * float(np.float32(1.0) / scale))
    # amax 0: scale 1; power of two: the mantissa masked off (448 / 7 = 64 exactly).
    assert torch.equal(recipes.operand_values(torch.zeros(1, 4), operand, 1), torch.zeros(1, 4))
    pow2 = recipes.Operand("e4m3", "tensor", "te", power_of_two=True)
    t = torch.tensor([[3.0, 6.0]])  # scale fl32(448 / 6) = 74.666..., masked: 64
    assert torch.equal(recipes.operand_values(t, pow2, 1), sft.quantize(t * 64, "e4m3", saturate=True) / 64)


def test_te_delayed_history_and_scales():
    """TransformerEngine's kernel_bulk: the scale used at a step comes from the history
    up to the previous step; a zero amax neither rolls the history nor changes the scale."""
    state = recipes.RecipeState(recipes.te_delayed(amax_history_len=3))
    used = [float(state.use("x", torch.tensor(a), 448.0)) for a in (2.0, 0.0, 8.0, 1.0, 0.5, 0.25)]
    f = lambda v: float(np.float32(v))  # noqa: E731
    assert used == [1.0, f(448 / 2), f(448 / 2), f(448 / 8), f(448 / 8), f(448 / 8)]
    # After 0.25 the window holds 1, 0.5, 0.25 (8 has left it): the next scale is 448.
    assert state.x_history.tolist() == [0.25, 0.5, 1.0] and float(state.x_scale) == 448.0
    most_recent = recipes.RecipeState(recipes.te_delayed(amax_compute_algo="most_recent"))
    for a in (8.0, 2.0):
        most_recent.use("dy", torch.tensor(a), 57344.0)
    assert float(most_recent.dy_scale) == 57344.0 / 2


def test_te_nvfp4_worked_block():
    # Tensor amax 6: S_enc = 448; the first block's amax 6 gives sdec = 448, enc = 1; the
    # second's amax 0.75 gives sdec = E4M3(56) = 56, enc = 8.
    first = torch.tensor([6.0, 5.0, -2.5, 0.25] + [0.0] * 12)
    second = torch.tensor([0.75, 0.3, -0.1] + [0.0] * 13)
    t = torch.cat([first, second]).reshape(1, 32)
    values = recipes.te_nvfp4_values(t, axis=1)
    assert values[0, :4].tolist() == [6.0, 4.0, -2.0, 0.0]  # E2M1: 5 ties to 4, 2.5 to 2, 0.25 to 0
    assert values[0, 16:19].tolist() == [0.75, 0.25, -0.125]  # x * 8 = 6, 2.4 -> 2, -0.8 -> -1; / 8


def test_te_nvfp4_weight_tiles_serve_both_gemms():
    torch.manual_seed(3)
    w = torch.randn(32, 48)
    w[5, 7] = 40.0  # one large value sets the scale of its whole 16 x 16 tile
    tiles = recipes.te_nvfp4_values(w, axis=1, tile=True)
    assert torch.equal(tiles, recipes.te_nvfp4_values(w.t(), axis=0, tile=True).t())  # the transpose, exactly
    rows = recipes.te_nvfp4_values(w, axis=1)
    assert not torch.equal(tiles[:16, :16], rows[:16, :16])  # 1 x 16 blocks would scale each row alone
    # The tile's amax 40 is the tensor's: S_enc = 2688 / 40, sdec = E4M3(40 * S_enc / 6) = 448,
    # so every value of the tile is an E2M1 value times 448 * 40 / 2688 = 40 / 6.
    assert tiles[5, 7] == 40.0
    ratios = tiles[:16, :16].double() / (40.0 / 6)
    assert torch.allclose(ratios, sft.quantize(ratios, "e2m1"), rtol=0, atol=1e-6)
    assert torch.any((ratios.abs() - 0.5).abs() < 1e-6)  # values the row's own scale would have kept finer
    # Padding: 10 output rows (the digits head) pad to a whole tile with zeros.
    head = torch.randn(10, 32)
    assert recipes.te_nvfp4_values(head, axis=1, tile=True).shape == (10, 32)


def test_te_hadamard():
    e0 = torch.zeros(1, 16)
    e0[0, 0] = 1.0
    assert recipes.te_hadamard(e0, 1).tolist() == [[0.25] * 16]
    e3 = torch.zeros(1, 16)
    e3[0, 3] = 2.0
    signs = [(-1) ** bin(3 & j).count("1") for j in range(16)]
    assert recipes.te_hadamard(e3, 1).tolist() == [[-0.5 * s for s in signs]]
    # Orthogonal: both operands transformed along the reduction axis keep the product
    # (bf16 inputs whose sums are exact in float32 here).
    torch.manual_seed(4)
    dy = torch.randint(-8, 9, (32, 6)).float()
    x = torch.randint(-8, 9, (32, 5)).float()
    assert torch.equal(recipes.te_hadamard(dy, 0).t() @ recipes.te_hadamard(x, 0), dy.t() @ x)


# --- layers -----------------------------------------------------------------------------------

ALL_RECIPES = [recipes.te_delayed(), recipes.te_current(), recipes.te_mxfp8(), recipes.te_nvfp4(),
               *[recipes.torchao_float8(name) for name in recipes.TORCHAO_FLOAT8],
               *[recipes.torchao_mxfp8(name) for name in recipes.TORCHAO_MXFP8]]


@pytest.mark.parametrize("recipe", ALL_RECIPES, ids=lambda r: r.name)
def test_every_recipe_trains_a_layer(recipe):
    """Each GEMM follows the recipe: the output is the product of the forward operands
    rounded by it, and the gradients of the backward operands'."""
    torch.manual_seed(5)
    layer = sft.Linear(64, 48, recipe=recipe)
    x = (torch.randn(40, 64) * 2).requires_grad_()
    y = layer(x)
    state = recipes.RecipeState(recipe)
    state.load_state_dict(layer.recipe_state.state_dict())
    if not recipe.uses_delayed_scaling():  # the delayed state has moved on; its scales are tested above
        xa = recipes.operand_values(x, recipe.forward.a, 1)
        wb = recipes.operand_values(layer.weight, recipe.forward.b, 1)
        expected = xa.double() @ wb.double().t() + layer.bias.double()
        assert torch.allclose(y.double(), expected, rtol=0, atol=64 * 2.0**-23 * float(expected.abs().max()))
    y.square().sum().backward()
    assert x.grad.shape == x.shape and layer.weight.grad.shape == layer.weight.shape
    assert torch.isfinite(layer.weight.grad).all()
    reference = F.linear(x.detach(), layer.weight.detach(), layer.bias.detach())
    assert float((y.detach() - reference).abs().max()) < 0.25 * float(reference.abs().max())


def test_convert_applies_a_recipe_to_every_linear():
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    sft.convert(model, recipe=recipes.te_nvfp4())
    assert all(isinstance(model[i], sft.Linear) and model[i].recipe.name == "te_nvfp4" for i in (0, 2))
    y = model(torch.randn(8, 64))  # 10 outputs: the weight tiles pad with zeros
    assert y.shape == (8, 10)
    assert "recipe='te_nvfp4'" in repr(model[0])


def test_delayed_state_travels_with_state_dict():
    layer = sft.Linear(16, 16, recipe=recipes.te_delayed(amax_history_len=4))
    layer(torch.full((2, 16), 3.0))
    state = layer.state_dict()
    assert state["recipe_state.x_history"].tolist() == [3.0, 0.0, 0.0, 0.0]
    assert math.isclose(float(state["recipe_state.x_scale"]), 448 / 3, rel_tol=1e-7)


# --- layers beyond Linear (recipe_layers.py's rule: im2col rows, blocks along k) ---------------

def close(actual, expected, k):
    """Within float32 summation's bound for k-term sums of the same rounded products."""
    tolerance = k * 2.0**-23 * float(expected.abs().max()) + 1e-6
    return torch.allclose(actual.double(), expected.double(), rtol=0, atol=tolerance)


@pytest.mark.parametrize("spatial", [1, 2])
def test_convolution_is_the_gemm_of_its_im2col_rows(spatial):
    """With one scale per tensor, the GEMM of the im2col rows is the convolution of the
    rounded input by the rounded weight (each element of x appears in several rows, all
    rounded alike); a wrong im2col order of k would not be."""
    torch.manual_seed(6)
    recipe = recipes.te_current()
    if spatial == 1:
        layer = sft.Conv1d(3, 5, 3, padding=1, stride=2, recipe=recipe)
        x = torch.randn(2, 3, 11) * 4
        conv = F.conv1d
    else:
        layer = sft.Conv2d(3, 5, (3, 2), padding=(1, 0), dilation=(1, 2), recipe=recipe)
        x = torch.randn(2, 3, 7, 9) * 4
        conv = F.conv2d
    xq = recipes.operand_values(x.reshape(1, -1), recipe.forward.a, 1).reshape(x.shape)
    wq = recipes.operand_values(layer.weight.reshape(5, -1), recipe.forward.b, 1).reshape(layer.weight.shape)
    expected = conv(xq.double(), wq.double(), layer.bias.double(), layer.stride, layer.padding, layer.dilation)
    y = layer(x)
    assert y.shape == expected.shape and close(y, expected, wq[0].numel())
    y.sum().backward()
    assert layer.weight.grad.shape == layer.weight.shape


def test_conv_blocks_run_along_k_in_channel_kernel_order():
    """MXFP8 weight blocks of 32 along k = C_in * kh * kw in unfold's order: the weight's
    rounding is mx_quantize of weight.reshape(C_out, k) along k."""
    torch.manual_seed(7)
    recipe = recipes.te_mxfp8()
    layer = sft.Conv2d(8, 4, 3, recipe=recipe)  # k = 72: blocks 32, 32 and a short 8
    x = torch.randn(1, 8, 5, 5)
    rows = F.unfold(x, 3).transpose(1, 2).reshape(-1, 72)
    xq = sft.mx_quantize(rows, "mxfp8_e4m3", axis=1, scale_rule="rceil")
    wq = sft.mx_quantize(layer.weight.detach().reshape(4, 72), "mxfp8_e4m3", axis=1, scale_rule="rceil")
    expected = (xq.double() @ wq.double().t() + layer.bias.double()).reshape(1, 9, 4).transpose(1, 2)
    assert close(layer(x).reshape(1, 4, 9), expected, 72)


def test_embedding_rounds_its_weight_and_passes_the_gradient():
    torch.manual_seed(8)
    recipe = recipes.te_nvfp4()
    layer = sft.Embedding(12, 32, recipe=recipe)
    indices = torch.tensor([[3, 3, 0], [11, 5, 3]])
    rounded = recipes.te_nvfp4_values(layer.weight, axis=1, tile=True)  # the forward weight operand: 16 x 16 tiles
    assert torch.equal(layer(indices), rounded[indices])
    layer(indices).sum().backward()
    assert torch.equal(layer.weight.grad[3], torch.full((32,), 3.0)) and layer.weight.grad[1].abs().sum() == 0


def test_batched_matmul_runs_each_index_through_the_recipe():
    torch.manual_seed(9)
    recipe = recipes.torchao_float8("rowwise")
    layer = sft.BatchedMatmul(recipe)
    a, b = torch.randn(2, 3, 6, 32, requires_grad=True), torch.randn(3, 32, 5)  # b broadcast over the first axis
    y = layer(a, b)
    assert y.shape == (2, 3, 6, 5)
    for i in range(2):
        for j in range(3):
            aq = recipes.operand_values(a[i, j], recipe.forward.a, 1)
            bq = recipes.operand_values(b[j].t(), recipe.forward.b, 1)
            assert close(y[i, j], aq.double() @ bq.double().t(), 32)
    y.sum().backward()
    assert a.grad.shape == a.shape


def test_convert_with_a_recipe_swaps_convolutions_and_embeddings():
    model = torch.nn.Sequential(torch.nn.Embedding(10, 16), torch.nn.Conv1d(4, 4, 3), torch.nn.Conv2d(1, 2, 3),
                                torch.nn.Conv2d(2, 2, 3, groups=2), torch.nn.Linear(16, 3))
    before = [p.detach().clone() for p in model.parameters()]
    sft.convert(model, recipe=recipes.te_mxfp8(), skip=("3",))
    assert [type(m) for m in model] == [sft.Embedding, sft.Conv1d, sft.Conv2d, torch.nn.Conv2d, sft.Linear]
    assert all(torch.equal(p, q) for p, q in zip(before, model.parameters()))
    with pytest.raises(ValueError, match="groups=1"):
        sft.Conv2d(2, 2, 3, groups=2, recipe=recipes.te_mxfp8())(torch.randn(1, 2, 5, 5))


# --- torchao's MXFP8 training, emulated on the CPU ---------------------------------------------

def bf16_valued(*shape, scale=1.0):
    """float32 tensors holding bfloat16 values (as in bf16 training): torchao's eager RCEIL,
    a float32 log2 of amax / 448, is exact for them (docs/peers/torchao.md counts the
    float32 amaxes where it is not)."""
    return (torch.randn(*shape) * scale).to(torch.bfloat16).to(torch.float32)


def test_mxfp8_operands_equal_torchaos_to_mx():
    mx_tensor = pytest.importorskip("torchao.prototype.mx_formats.mx_tensor")
    mx_config = pytest.importorskip("torchao.prototype.mx_formats.config")
    torch.manual_seed(10)
    operand = recipes.torchao_mxfp8().forward.a
    for scale in (2.0**-20, 1.0, 2.0**20):
        t = bf16_valued(16, 96, scale=scale)
        s, q = mx_tensor.to_mx(t, torch.float8_e4m3fn, 32, mx_config.ScaleCalculationMode.RCEIL)
        theirs = (q.to(torch.float32).reshape(16, 3, 32) * torch.exp2(s.view(torch.uint8).to(torch.float32) - 127)
                  .reshape(16, 3, 1)).reshape(16, 96)
        assert torch.equal(bits(recipes.operand_values(t, operand, axis=1)), bits(theirs))


@pytest.mark.parametrize("recipe_name", recipes.TORCHAO_MXFP8)
def test_linear_against_torchaos_emulated_mxfp8_linear(recipe_name):
    """MXFP8Linear(kernel_preference=EMULATED) dequantizes the same MXFP8 operands and
    multiplies them in the training dtype (float32 here): outputs and gradients agree
    within float32 summation's bound."""
    mxfp8_linear = pytest.importorskip("torchao.prototype.moe_training.mxfp8_linear")
    preference = pytest.importorskip("torchao.quantization.quantize_.common.kernel_preference")
    torch.manual_seed(11)
    theirs = mxfp8_linear.MXFP8Linear(64, 64, kernel_preference=preference.KernelPreference.EMULATED,
                                      wgrad_with_hp=recipe_name.endswith("with_hp"))
    ours = sft.Linear(64, 64, recipe=recipes.torchao_mxfp8(recipe_name))  # torchao: whole blocks only
    with torch.no_grad():
        theirs.weight.copy_(bf16_valued(64, 64))
        ours.weight.copy_(theirs.weight)
        ours.bias.copy_(theirs.bias)
    x, g = bf16_valued(32, 64, scale=3.0), bf16_valued(32, 64)
    results = []
    for layer in (theirs, ours):
        xi = x.clone().requires_grad_()
        y = layer(xi)
        y.backward(g)
        results.append((y.detach(), xi.grad, layer.weight.grad))
    w = theirs.weight.detach()
    bound = lambda k, a, b: k * 2.0**-24 * (a.abs() @ b.abs()) * 4 + 1e-30  # noqa: E731
    (y0, gx0, gw0), (y1, gx1, gw1) = results
    assert torch.all((y0 - y1).abs() <= bound(64, x, w.t()) + 1e-6)
    assert torch.all((gx0 - gx1).abs() <= bound(64, g, w))
    assert torch.all((gw0 - gw1).abs() <= bound(32, g.t(), x))
    assert not torch.equal(y1, F.linear(x, w, ours.bias.detach()))
