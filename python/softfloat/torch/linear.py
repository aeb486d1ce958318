"""Quantized matrix products: softfloat.torch.linear / matmul and the Linear module.

Each operand is rounded by its spec, then multiplied through the library's matmul
(softfloat.matmul: an fp32 accumulator takes the fast paths; bf16, fp16, fp8 or any
other accumulator format is emulated exactly, every step rounded once):

    None                  the operand as it is, in float32
    "e4m3", "bf16", ...   rounded into that format (codes go straight to the matmul)
    "mxfp8_e4m3", ...     an MX element: blocks of 32 along the product's reduction axis
    "nvfp4"               NVFP4 blocks of 16 along the reduction axis
    a recipe              softfloat.torch.scaling: CurrentScaling / DelayedScaling (one
                          scale: the codes are multiplied and the product divided by both
                          scales once, as FP8 GEMMs do), RowScaling / BlockScaling

The backward pass rounds the incoming gradient by grad_output's spec and multiplies it
with the operands rounded again along the reduction axis of each backward product
(grad_input = g @ W reduces over the output features, grad_weight = g^T @ x over the
batch): as microxcaling does for MX; element formats and one-scale recipes give the same
codes along either axis, so their forward codes are reused. Gradients reach the input,
the weight and the bias (straight through the rounding).
"""
import math

import numpy as np
import torch

from softfloat import _core
from softfloat import _native_dtypes as native_dtypes
from softfloat.torch import _tensors, recipes
from softfloat.torch.blocks import mx_quantize, nvfp4_quantize
from softfloat.torch.scaling import BlockScaling, CurrentScaling, DelayedScaling, RowScaling, _Recipe

_NUMPY_CODES = {torch.uint8: np.uint8, torch.int16: np.uint16, torch.int32: np.uint32}


class _Operand:
    """An operand ready for the matmul: codes of `fmt` (2-D), and a scalar scale that
    divides the product (None: 1)."""

    def __init__(self, codes, fmt, scale=None):
        self.codes, self.fmt, self.scale = codes, fmt, scale

    def numpy(self, transpose=False):
        """The codes as a NumPy array (no copy; a transposed view is copied once by the matmul)."""
        codes = self.codes.numpy().view(_NUMPY_CODES[self.codes.dtype])
        return codes.T if transpose else codes



def as_rows(t):
    """t (..., k) as a 2-D (rows, k) view or copy; reshape(-1, k) cannot when k is 0."""
    return t.reshape(math.prod(t.shape[:-1]), t.shape[-1])


def _fp32_operand(values):
    values = values.detach().to(torch.float32).contiguous()
    return _Operand(values.view(torch.int32), "fp32")


def _spec_kind(spec, function, what):
    """'none', 'format', 'mx', 'nvfp4' or 'recipe', checking the spec."""
    if spec is None:
        return "none"
    if isinstance(spec, _Recipe):
        return "recipe"
    if not isinstance(spec, str):
        raise TypeError(f"softfloat.torch.{function}: {what} must be None, a format spec, an MX element, 'nvfp4' "
                        f"or a scaling recipe, not {type(spec).__name__}")
    if spec == "nvfp4":
        return "nvfp4"
    if spec in _core.mx_elements():
        return "mx"
    info = _tensors.format_info(spec, function)
    if info.bits > 32:
        raise ValueError(f"softfloat.torch.{function}: {what}={spec!r} has {info.bits} bits; the matmul takes "
                         f"formats of at most 32 bits")
    return "format"


def _operand(x, spec, kind, axis, rounding="nearest_even"):
    """x (2-D) rounded by spec with the blocks (if any) along `axis`."""
    if kind == "none":
        return _fp32_operand(x)
    if kind == "format":
        return _Operand(_tensors.encode(x, spec, rounding, as_codes=True), spec)
    if kind == "mx":
        return _fp32_operand(mx_quantize(x.detach(), spec, axis=axis, rounding=rounding))
    if kind == "nvfp4":
        return _fp32_operand(nvfp4_quantize(x.detach(), axis=axis, rounding=rounding))
    with torch.no_grad():
        scale = spec.scale_of(x.detach().float())
        if scale.numel() == 1:
            scaled = x.detach().float() * scale
            return _Operand(_tensors.encode(scaled, spec.fmt, spec.rounding, spec.saturate, as_codes=True), spec.fmt,
                            scale.reshape(()))
        values, _ = spec(x.detach().float())
        return _fp32_operand(values)


def _product(a, b, acc, b_transposed):
    """a (m x k) times b (k x n; b_transposed: b holds n x k) as float32."""
    c = _core.matmul(a.numpy(), b.numpy(transpose=b_transposed), a.fmt, b.fmt, acc)
    result = torch.from_numpy(c)
    if a.scale is not None or b.scale is not None:
        scale = (a.scale if a.scale is not None else 1.0) * (b.scale if b.scale is not None else 1.0)
        result = result / scale
    return result


class _Settings:
    def __init__(self, weight, input, grad_output, acc, function):
        self.specs = {"weight": weight, "input": input, "grad_output": grad_output}
        self.kinds = {name: _spec_kind(spec, function, name) for name, spec in self.specs.items()}
        _tensors.format_info(acc, function)
        self.acc = acc

    def operand(self, name, x, axis, rounding="nearest_even"):
        return _operand(x, self.specs[name], self.kinds[name], axis, rounding)

    def axis_free(self, name):
        """Whether the operand's rounding is the same along either axis."""
        kind = self.kinds[name]
        return kind in ("none", "format") or (kind == "recipe" and isinstance(self.specs[name],
                                                                                 (CurrentScaling, DelayedScaling)))


def forward_product(x, weight, bias, settings):
    """(y, forward operands): x (m x k) @ weight^T (k x n) + bias, in x's dtype."""
    qx = settings.operand("input", x, axis=1)
    qw = settings.operand("weight", weight, axis=1)
    y = _product(qx, qw, settings.acc, b_transposed=True)
    if bias is not None:
        y = y + bias.detach().to(torch.float32)
    return y.to(x.dtype), (qx, qw)


def backward_products(grad, x, weight, settings, forward_operands, need_x, need_w):
    """(grad_x, grad_w), each None where not needed. forward_operands (qx, qw) are reused
    where the rounding does not depend on the axis; None computes them again."""
    grad = grad.to(torch.float32)
    grad_x = grad_w = None
    # The incoming gradient, rounded once where its rounding does not depend on the
    # axis (a delayed-scaling recipe then records one amax per step), else once for
    # each product with the blocks along that product's reduction axis.
    if settings.axis_free("grad_output"):
        qg = settings.operand("grad_output", grad, axis=1)
        qg_t = _Operand(qg.codes.t().contiguous(), qg.fmt, qg.scale)
    else:
        qg = settings.operand("grad_output", grad, axis=1) if need_x else None
        qg_t = settings.operand("grad_output", grad.t(), axis=1) if need_w else None
    qx, qw = forward_operands or (None, None)
    if need_x:  # g (m x n) @ W (n x k): reduces over n
        if qw is None or not settings.axis_free("weight"):
            qw = settings.operand("weight", weight, axis=0 if not settings.axis_free("weight") else 1)
        grad_x = _product(qg, qw, settings.acc, b_transposed=False).to(x.dtype)
    if need_w:  # g^T (n x m) @ x (m x k): reduces over m
        if qx is None or not settings.axis_free("input"):
            qx = settings.operand("input", x, axis=0 if not settings.axis_free("input") else 1)
        grad_w = _product(qg_t, qx, settings.acc, b_transposed=False).to(weight.dtype)
    return grad_x, grad_w


class _LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, settings):
        y, forward_operands = forward_product(x, weight, bias, settings)
        ctx.settings = settings
        ctx.forward_operands = forward_operands
        ctx.has_bias = bias is not None
        ctx.save_for_backward(x, weight)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_x, grad_w = backward_products(grad, x, weight, ctx.settings, ctx.forward_operands,
                                           ctx.needs_input_grad[0], ctx.needs_input_grad[1])
        grad_b = grad.to(torch.float32).sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return grad_x, grad_w, grad_b, None


def operand_spec(t, spec, function, name):
    """The spec an operand is rounded by: `spec` for a float tensor; for a tensor of a
    format's own dtype (float8_e4m3fn, ..., float4_e2m1fn_x2), that format, which rounds
    its values to the very same codes. A spec naming another format is an error, since
    the codes would be rounded a second time. Reads t's dtype only (torch.compile's fake
    kernel calls it too)."""
    _tensors.check_tensor(t, function, name)
    if t.dtype in _tensors.FLOAT_TYPES:
        return spec
    native = native_dtypes.torch_format(t.dtype)
    if native is None:
        _tensors.check_float_tensor(t, function, name)  # raises the TypeError naming the accepted dtypes
    fmt = native[0]
    if spec is not None and not (isinstance(spec, str) and spec not in ("nvfp4", *_core.mx_elements())
                                 and _tensors.format_info(spec, function).name == fmt):
        raise ValueError(f"softfloat.torch.{function}: {name} holds {fmt} codes ({t.dtype}) and cannot be rounded "
                         f"by {spec!r}; leave its format out or name {fmt!r}")
    return fmt


def _values_and_spec(t, spec, function, name):
    """An operand's values (a native dtype decoded exactly) and its spec (operand_spec)."""
    spec = operand_spec(t, spec, function, name)
    return (t if t.dtype in _tensors.FLOAT_TYPES else _tensors.decode(t)), spec


def _checked(x, weight, bias, weight_format, input_format, function="linear"):
    """(x values, weight values, input spec, weight spec) with the operands checked."""
    x, input_format = _values_and_spec(x, input_format, function, "x")
    weight, weight_format = _values_and_spec(weight, weight_format, function, "weight")
    if bias is not None:
        _tensors.check_float_tensor(bias, function, "bias")
    if weight.dim() != 2 or x.dim() < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"softfloat.torch.{function}: x of shape {tuple(x.shape)} and weight of shape "
                         f"{tuple(weight.shape)} do not fit (x's last axis must equal weight's second)")
    return x, weight, input_format, weight_format


def linear_values(x, weight, bias, weight_format, input_format, grad_output_format, acc):
    """linear()'s values with no autograd (the custom op softfloat::linear runs it)."""
    x, weight, input_format, weight_format = _checked(x, weight, bias, weight_format, input_format)
    settings = _Settings(weight_format, input_format, grad_output_format, acc, "linear")
    y, _ = forward_product(as_rows(x), weight, bias, settings)
    return y.reshape(*x.shape[:-1], weight.shape[0])


def linear_gradients(grad, x, weight, weight_format, input_format, grad_output_format, acc, need_x, need_w):
    """(grad_x, grad_w) of linear() for the custom op softfloat::linear_backward."""
    x, weight, input_format, weight_format = _checked(x, weight, None, weight_format, input_format)
    settings = _Settings(weight_format, input_format, grad_output_format, acc, "linear")
    grad_x, grad_w = backward_products(as_rows(grad), as_rows(x), weight,
                                       settings, None, need_x, need_w)
    return grad_x.reshape(x.shape) if need_x else None, grad_w


def linear(x, weight, bias=None, *, weight_format=None, input_format=None, grad_output_format=None, acc="fp32"):
    """y = x @ weight^T + bias with the operands rounded by their specs (module docstring).

    x has shape (..., in_features), weight (out_features, in_features); float tensors on
    the CPU, or tensors of a format's own dtype (float8_e4m3fn, float8_e5m2, ...,
    float4_e2m1fn_x2), whose codes go to the product as they are (their spec may be left
    out). Differentiable in x, weight and bias. Under torch.compile it is the custom op
    softfloat::linear (softfloat.torch.ops), except with a scaling recipe, whose amax
    history is module state: that call runs eagerly (a graph break)."""
    if _tensors.compiling() and not any(isinstance(spec, _Recipe)
                                        for spec in (weight_format, input_format, grad_output_format)):
        return torch.ops.softfloat.linear(x, weight, bias, weight_format, input_format, grad_output_format, acc)
    x, weight, input_format, weight_format = _checked(x, weight, bias, weight_format, input_format)
    settings = _Settings(weight_format, input_format, grad_output_format, acc, "linear")
    leading = x.shape[:-1]
    x2d = as_rows(x)
    y = _LinearFunction.apply(x2d, weight, bias, settings)
    return y.reshape(*leading, weight.shape[0])


def matmul(a, b, *, a_format=None, b_format=None, grad_format=None, acc="fp32"):
    """a @ b for 2-D tensors with the operands rounded by their specs; differentiable.
    Tensors of a format's own dtype are taken as linear() takes them."""
    if _tensors.compiling():  # the custom op softfloat::linear, through linear(), decodes native operands
        if b.dtype == getattr(torch, "float4_e2m1fn_x2", None):
            raise TypeError("softfloat.torch.matmul: under torch.compile, b cannot be float4_e2m1fn_x2 (its pairs "
                            "lie along the axis matmul transposes); give linear() the weight as (n, k) codes")
    else:
        a, a_format = _values_and_spec(a, a_format, "matmul", "a")
        b, b_format = _values_and_spec(b, b_format, "matmul", "b")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"softfloat.torch.matmul: {name} must be 2-D, got {t.dim()} dimensions")
    return linear(a, b.t(), weight_format=b_format, input_format=a_format, grad_output_format=grad_format, acc=acc)


def _check_recipe(recipe, specs, acc, function):
    if recipe is None:
        return
    recipes.check_recipe(recipe, function)
    given = [name for name, spec in specs.items() if spec is not None]
    if given or acc != "fp32":
        raise ValueError(f"softfloat.torch.{function}: a recipe says how every operand is rounded; give it alone, "
                         f"without {', '.join(given) or 'acc'}")


class Linear(torch.nn.Linear):
    """nn.Linear whose product rounds its operands: weight=, input=, grad_output= specs
    (None: float32 as it is), acc= the accumulator format; or recipe= a system's recipe
    (softfloat.torch.recipes), which rounds each operand of each of the three GEMMs as
    that system does. A scaling recipe's state (amax history, scale) belongs to the
    module and its state_dict."""

    def __init__(self, in_features, out_features, bias=True, *, weight=None, input=None, grad_output=None,
                 acc="fp32", recipe=None, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        _check_recipe(recipe, {"weight": weight, "input": input, "grad_output": grad_output}, acc, "Linear")
        self.recipe = recipe
        self.recipe_state = recipes.RecipeState(recipe) if recipe is not None else None
        settings = _Settings(weight, input, grad_output, acc, "Linear")  # checks the specs now
        self.acc = acc
        self.weight_spec, self.input_spec, self.grad_output_spec = weight, input, grad_output
        # Recipes are submodules, so their buffers travel with state_dict().
        self.recipes = torch.nn.ModuleDict({name: spec for name, spec in settings.specs.items()
                                            if isinstance(spec, torch.nn.Module)})

    def forward(self, x):
        if self.recipe is not None:
            from softfloat.torch.recipe_linear import recipe_linear
            _tensors.check_float_tensor(x, "Linear")
            return recipe_linear(x, self.weight, self.bias, self.recipe, self.recipe_state)
        return linear(x, self.weight, self.bias, weight_format=self.weight_spec, input_format=self.input_spec,
                      grad_output_format=self.grad_output_spec, acc=self.acc)

    def extra_repr(self):
        specs = ", ".join(f"{name}={spec!r}" for name, spec in (("weight", self.weight_spec),
                                                                 ("input", self.input_spec),
                                                                 ("grad_output", self.grad_output_spec))
                          if spec is not None and not isinstance(spec, torch.nn.Module))
        if self.recipe is not None:
            return super().extra_repr() + f", recipe={self.recipe.name!r}"
        return super().extra_repr() + (", " + specs if specs else "") + f", acc={self.acc!r}"


def convert(model, *, weight=None, input=None, grad_output=None, acc="fp32", recipe=None, skip=()):
    """Replaces every nn.Linear of `model` (in place; also returned) by a Linear with the
    same parameters and the given specs. A spec may be a callable taking the module's
    qualified name and returning the spec (a fresh recipe per layer, say); names in
    `skip` are left alone. recipe= a system's recipe (softfloat.torch.recipes, such as
    recipes.te_nvfp4()) for every layer instead of the specs; giving both is an error.
    With a recipe, nn.Conv1d, nn.Conv2d and nn.Embedding are replaced too
    (softfloat.torch.recipe_layers: convolutions as im2col GEMMs, embeddings' weights)."""
    _check_recipe(recipe if not callable(recipe) else None,
                  {"weight": weight, "input": input, "grad_output": grad_output}, acc, "convert")

    def resolve(spec, name):
        return spec(name) if callable(spec) and not isinstance(spec, torch.nn.Module) else spec

    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            qualified = f"{name}.{child_name}" if name else child_name
            if qualified in skip:
                continue
            if recipe is not None and type(child) is not torch.nn.Linear:
                from softfloat.torch.recipe_layers import replacement
                layer = replacement(child, resolve(recipe, qualified))
                if layer is not None:
                    setattr(module, child_name, layer)
                continue
            if type(child) is not torch.nn.Linear:
                continue
            replacement = Linear(child.in_features, child.out_features, child.bias is not None,
                                 weight=resolve(weight, qualified), input=resolve(input, qualified),
                                 grad_output=resolve(grad_output, qualified), acc=acc,
                                 recipe=resolve(recipe, qualified), dtype=child.weight.dtype)
            with torch.no_grad():
                replacement.weight.copy_(child.weight)
                if child.bias is not None:
                    replacement.bias.copy_(child.bias)
            setattr(module, child_name, replacement)
    return model


__all__ = ["linear", "matmul", "Linear", "convert", "CurrentScaling", "DelayedScaling", "RowScaling",
           "BlockScaling", "operand_spec", "forward_product", "backward_products", "linear_values", "linear_gradients", "as_rows"]
