"""softfloat.torch under torch.compile: the operations are torch.library custom ops with
fake kernels and registered autograd, so that a model using Linear, quantize and
mx_quantize compiles into one graph (fullgraph=True) and gives the same bits as eager,
forward and backward; torch.library.opcheck checks each op's registration; meta tensors
go through the fake kernels; a stochastic rounding draws its seed inside the op."""
import pytest

torch = pytest.importorskip("torch")
import softfloat.torch as sft  # noqa: E402


class Model(torch.nn.Module):
    """A layer of each kind: an E4M3 Linear, fake quantization to bf16 and to E5M2 with a
    clipped gradient, MXFP8 blocks with a rounded gradient, NVFP4 blocks."""

    def __init__(self):
        super().__init__()
        self.first = sft.Linear(64, 32, weight="e4m3", input="e4m3", grad_output="e5m2")
        self.second = sft.Linear(32, 16, bias=False, weight="mxfp8_e4m3")

    def forward(self, x):
        h = self.first(sft.quantize(x, "bf16"))
        h = sft.mx_quantize(torch.relu(h), "mxfp8_e4m3", backward="mxfp8_e5m2")
        h = sft.quantize(h, "e5m2", gradient="clipped", backward="e4m3")
        return sft.nvfp4_quantize(self.second(h))


def run(call, model, x):
    """call(x)'s output and the gradients of x and of model's parameters, by name."""
    x = x.clone().requires_grad_()
    y = call(x)
    y.square().sum().backward()
    grads = {"x": x.grad}
    grads.update({name: p.grad.clone() for name, p in model.named_parameters()})
    model.zero_grad()
    return y.detach(), grads


def assert_same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert torch.equal(a.view(torch.int32) if a.dtype == torch.float32 else a, b.view(torch.int32)
                       if b.dtype == torch.float32 else b)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_model_compiles_to_one_graph_with_eager_bits(backend):
    torch.manual_seed(0)
    model = Model()
    x = torch.randn(8, 64) * 4
    eager_y, eager_grads = run(model, model, x)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend, fullgraph=True)  # fullgraph: a graph break raises
    compiled_y, compiled_grads = run(compiled, model, x)
    assert_same_bits(compiled_y, eager_y)
    assert len(eager_grads) == 4  # x, first.weight, first.bias, second.weight
    for name in eager_grads:
        assert_same_bits(compiled_grads[name], eager_grads[name])
    # The rounding happened: the output holds NVFP4 values, not the plain product's.
    assert not torch.equal(eager_y, model.second(model.first(x)).detach())


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_quantize_module_with_a_fixed_seed_compiles_once(backend):
    """A Quantize module with a fixed seed continues its stochastic stream from call to
    call. Under torch.compile the stream's position is data (a buffer), not a constant of
    the graph: one compilation serves every call, and each call's bits are those of
    quantize(x, seed=123, offset=the elements rounded before)."""
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    module = sft.Quantize("e4m3", rounding="stochastic", seed=123)
    compiled = torch.compile(module, backend=backend, fullgraph=True)
    torch.manual_seed(3)
    x = torch.randn(8, 64) * 4
    outputs = []
    for call in range(5):
        y = compiled(x)
        assert_same_bits(y, sft.quantize(x, "e4m3", "stochastic", seed=123, offset=call * x.numel()))
        outputs.append(y)
    assert module.offset == 5 * x.numel()
    assert not torch.equal(outputs[0], outputs[1])  # the stream moved on: other draws, other roundings
    assert counters["stats"]["unique_graphs"] == 1
    # The gradient passes straight through, as in eager.
    x_grad = x.clone().requires_grad_()
    compiled(x_grad).sum().backward()
    assert torch.equal(x_grad.grad, torch.ones_like(x))


@pytest.mark.parametrize("seed, offset", [(2**64 - 1, 0), (2**63 + 5, 2**63 + 7), (2**63 - 1, 2**64 - 16)])
def test_seeds_and_offsets_up_to_2_64_pass_through_the_ops(seed, offset):
    """torch's op schema holds ints as int64; seeds and offsets of 2**63 or more (valid in
    eager calls, [0, 2**64)) cross as value - 2**64 and come back inside the op: every
    operation with a seed gives the eager bits."""
    torch._dynamo.reset()
    torch.manual_seed(4)
    x = torch.randn(4, 32) * 4
    calls = [
        lambda t, s: sft.quantize(t, "e4m3", "stochastic", seed=s, offset=offset),
        lambda t, s: sft.encode(t, "e5m2", rounding="stochastic", seed=s, offset=offset, as_codes=True),
        lambda t, s: sft.mx_quantize(t, "mxfp4_e2m1", rounding="stochastic", seed=s, offset=offset),
        lambda t, s: sft.nvfp4_quantize(t, rounding="stochastic", seed=s, offset=offset),
    ]
    for call in calls:
        eager = call(x, seed)
        assert_same_bits(torch.compile(lambda t: call(t, seed), backend="aot_eager", fullgraph=True)(x), eager)
        assert not torch.equal(eager, call(x, seed ^ 1))  # the seed's bits matter: another gives other roundings


def test_graph_holds_the_custom_ops():
    seen = []

    def backend(graph_module, example_inputs):
        seen.extend(str(node.target) for node in graph_module.graph.nodes if node.op == "call_function")
        return graph_module.forward

    torch._dynamo.reset()
    compiled = torch.compile(lambda x: sft.mx_quantize(sft.quantize(x, "e4m3"), "mxfp4_e2m1"), backend=backend,
                             fullgraph=True)
    x = torch.randn(4, 32)
    assert torch.equal(compiled(x), sft.mx_quantize(sft.quantize(x, "e4m3"), "mxfp4_e2m1"))
    assert {"softfloat.quantize", "softfloat.mx_quantize"} <= {target.removesuffix(".default") for target in seen}


def test_encode_and_decode_compile_with_native_dtypes():
    torch._dynamo.reset()

    def codes(x):
        return sft.encode(x, "e4m3"), sft.encode(x, "e2m1"), sft.encode(x, "e3m2", as_codes=True)

    compiled = torch.compile(codes, backend="aot_eager", fullgraph=True)
    x = torch.randn(3, 10) * 8
    for got, expected in zip(compiled(x), codes(x)):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert torch.equal(got.view(torch.uint8), expected.view(torch.uint8))
    assert compiled(x)[0].dtype == torch.float8_e4m3fn and compiled(x)[1].shape == (3, 5)
    decoded = torch.compile(lambda q: sft.decode(q), backend="aot_eager", fullgraph=True)
    q = sft.encode(x, "e5m2")
    assert torch.equal(decoded(q), q.to(torch.float32))  # torch's own cast of its float8 codes


def test_stochastic_rounding_draws_its_seed_inside_the_op():
    """seed=None under fullgraph: no .item() in the traced code; torch.manual_seed makes
    the compiled call repeat the eager one (both draw the seed from the same generator)."""
    torch._dynamo.reset()
    step = lambda x: sft.quantize(x, "e4m3", rounding="stochastic")  # noqa: E731
    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    x = torch.randn(1000)
    torch.manual_seed(7)
    eager = step(x)
    torch.manual_seed(7)
    assert torch.equal(compiled(x), eager)
    assert not torch.equal(compiled(x), eager)  # the next call draws another seed


def test_linear_with_float8_weights_compiles():
    torch._dynamo.reset()
    torch.manual_seed(1)
    w = sft.encode(torch.randn(16, 32), "e4m3")  # float8_e4m3fn
    x = torch.randn(4, 32)
    f = lambda x, w: sft.linear(x, w, input_format="e4m3")  # noqa: E731
    assert torch.equal(torch.compile(f, backend="aot_eager", fullgraph=True)(x, w), f(x, w))


META = torch.device("meta")


@pytest.mark.parametrize("call, shape, dtype", [
    (lambda x: torch.ops.softfloat.quantize(x, "e4m3", "nearest_even", False, None, 0, None, "straight_through",
                                            None, "nearest_even", False, None), (6, 32), torch.bfloat16),
    (lambda x: torch.ops.softfloat.quantize(x, "e4m3", "nearest_even", False, None, 0, torch.float64,
                                            "straight_through", None, "nearest_even", False, None),
     (6, 32), torch.float64),
    (lambda x: torch.ops.softfloat.encode(x, "e4m3", "nearest_even", False, None, 0, False), (6, 32),
     torch.float8_e4m3fn),
    (lambda x: torch.ops.softfloat.encode(x, "e2m1", "nearest_even", False, None, 0, False), (6, 16),
     torch.float4_e2m1fn_x2),
    (lambda x: torch.ops.softfloat.encode(x, "bf16", "nearest_even", False, None, 0, True), (6, 32), torch.int16),
    (lambda x: torch.ops.softfloat.encode(x, "e3m2", "nearest_even", False, None, 0, False), (6, 32), torch.uint8),
    (lambda x: torch.ops.softfloat.mx_quantize(x, "mxfp6_e3m2", 32, -1, "floor", "nearest_even", None, 0, None,
                                               "nearest_even", None), (6, 32), torch.bfloat16),
    (lambda x: torch.ops.softfloat.nvfp4_quantize(x, 0, "nearest_even", None, 0, False, "stochastic",
                                                  torch.float32), (6, 32), torch.float32),
    (lambda x: torch.ops.softfloat.linear(x, x, None, "e4m3", None, None, "fp32"), (6, 6), torch.bfloat16),
])
def test_fake_kernels_give_meta_tensors_of_the_right_shape_and_dtype(call, shape, dtype):
    y = call(torch.empty(6, 32, dtype=torch.bfloat16, device=META))
    assert y.device == META and tuple(y.shape) == shape and y.dtype == dtype


def test_decode_fake_kernel_doubles_float4_pairs():
    y = torch.ops.softfloat.decode(torch.empty(3, 4, dtype=torch.float4_e2m1fn_x2, device=META), None, torch.float16)
    assert y.device == META and tuple(y.shape) == (3, 8) and y.dtype == torch.float16


@pytest.mark.parametrize("call, error, message", [
    (lambda x: torch.ops.softfloat.quantize(x, "nonsense", "nearest_even", False, None, 0, None, "straight_through",
                                            None, "nearest_even", False, None), ValueError, "nonsense"),
    (lambda x: torch.ops.softfloat.quantize(x, "e4m3", "nearest_even", False, None, 0, None, "sideways", None,
                                            "nearest_even", False, None), ValueError, "sideways"),
    (lambda x: torch.ops.softfloat.encode(x[:, :3], "e2m1", "nearest_even", False, None, 0, False), ValueError,
     "even"),
    (lambda x: torch.ops.softfloat.mx_quantize(x, "mxfp7", 32, -1, "floor", "nearest_even", None, 0, None,
                                               "nearest_even", None), ValueError, "mxfp7"),
    (lambda x: torch.ops.softfloat.mx_quantize(x, "mxfp8_e4m3", 32, 2, "floor", "nearest_even", None, 0, None,
                                               "nearest_even", None), ValueError, "axis 2"),
    (lambda x: torch.ops.softfloat.linear(x, x.t(), None, "e4m3", None, None, "fp32"), ValueError, "do not fit"),
    (lambda x: torch.ops.softfloat.decode(x.to(torch.uint8), None, torch.float32), TypeError, "need the format"),
    (lambda x: torch.ops.softfloat.decode(x.to(torch.float8_e5m2), "e4m3", torch.float32), TypeError,
     "holds e5m2 codes, not e4m3"),
    (lambda x: torch.ops.softfloat.decode(x.to(torch.uint8), "bf16", torch.float32), ValueError, "do not fit"),
    (lambda x: torch.ops.softfloat.encode(x.to(torch.int32), "e4m3", "nearest_even", False, None, 0, False),
     TypeError, "got torch.int32"),
])
def test_fake_kernels_check_arguments_while_tracing(call, error, message):
    with pytest.raises(error, match=message):
        call(torch.empty(6, 32, device=META))


def quantize_args(x):
    return (x, "e4m3", "nearest_even", False, None, 0, None, "clipped", "e5m2", "nearest_even", False, None)


ALL_OPCHECKS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
# torch's schema check compares a float8 input before and after the call with arithmetic
# that float8 lacks ("mul_cpu_reduced_float" not implemented for 'Float8_e4m3fn'), so
# decode of float8 codes runs the other three.
OPCHECKS = {op: ALL_OPCHECKS
            for op in ("quantize", "quantize_from", "encode", "mx_quantize", "nvfp4_quantize", "linear")}
OPCHECKS["decode"] = ALL_OPCHECKS[1:]


@pytest.mark.parametrize("op, make_args", [
    ("quantize", quantize_args),
    ("quantize_from", lambda x: (x, "e4m3", "stochastic", False, 7, torch.tensor(1000), None, "clipped", "e5m2",
                                 "nearest_even", False, None)),
    ("encode", lambda x: (x.detach(), "e5m2", "nearest_even", True, None, 0, False)),
    ("decode", lambda x: (sft.encode(x.detach(), "e4m3"), None, torch.float32)),
    ("mx_quantize", lambda x: (x, "mxfp8_e4m3", 32, -1, "floor", "nearest_even", None, 0, "mxfp8_e5m2",
                               "nearest_even", None)),
    ("nvfp4_quantize", lambda x: (x, -1, "nearest_even", None, 0, True, "nearest_even", None)),
    ("linear", lambda x: (x, torch.randn(8, 32, requires_grad=True), torch.randn(8, requires_grad=True), "e4m3",
                          "e4m3", "e5m2", "fp32")),
])
def test_opcheck(op, make_args):
    """torch.library.opcheck: the schema, the fake kernel against the real one, the
    registered autograd, and tracing by AOTAutograd with dynamic shapes."""
    torch.manual_seed(2)
    x = torch.randn(4, 32, requires_grad=True)
    checks = torch.library.opcheck(getattr(torch.ops.softfloat, op), make_args(x), test_utils=OPCHECKS[op])
    assert set(checks.values()) == {"SUCCESS"} and len(checks) == len(OPCHECKS[op])
