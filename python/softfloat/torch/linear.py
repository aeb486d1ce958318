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
import numpy as np
import torch

from softfloat import _core
from softfloat.torch import _tensors
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
        return _Operand(_tensors.encode(x, spec, rounding), spec)
    if kind == "mx":
        return _fp32_operand(mx_quantize(x.detach(), spec, axis=axis, rounding=rounding))
    if kind == "nvfp4":
        return _fp32_operand(nvfp4_quantize(x.detach(), axis=axis, rounding=rounding))
    with torch.no_grad():
        scale = spec.scale_of(x.detach().float())
        if scale.numel() == 1:
            scaled = x.detach().float() * scale
            return _Operand(_tensors.encode(scaled, spec.fmt, spec.rounding, spec.saturate), spec.fmt,
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


class _LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, settings):
        qx = settings.operand("input", x, axis=1)
        qw = settings.operand("weight", weight, axis=1)
        y = _product(qx, qw, settings.acc, b_transposed=True)
        if bias is not None:
            y = y + bias.detach().to(torch.float32)
        ctx.settings = settings
        ctx.forward_operands = (qx, qw)
        ctx.has_bias = bias is not None
        ctx.save_for_backward(x, weight)
        return y.to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        settings = ctx.settings
        x, weight = ctx.saved_tensors
        qx, qw = ctx.forward_operands
        grad = grad.to(torch.float32)
        grad_x = grad_w = grad_b = None
        need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        # The incoming gradient, rounded once where its rounding does not depend on the
        # axis (a delayed-scaling recipe then records one amax per step), else once for
        # each product with the blocks along that product's reduction axis.
        if settings.axis_free("grad_output"):
            qg = settings.operand("grad_output", grad, axis=1)
            qg_t = _Operand(qg.codes.t().contiguous(), qg.fmt, qg.scale)
        else:
            qg = settings.operand("grad_output", grad, axis=1) if need_x else None
            qg_t = settings.operand("grad_output", grad.t(), axis=1) if need_w else None
        if need_x:  # g (m x n) @ W (n x k): reduces over n
            w_along_n = qw if settings.axis_free("weight") else settings.operand("weight", weight, axis=0)
            grad_x = _product(qg, w_along_n, settings.acc, b_transposed=False).to(x.dtype)
        if need_w:  # g^T (n x m) @ x (m x k): reduces over m
            x_along_m = qx if settings.axis_free("input") else settings.operand("input", x, axis=0)
            grad_w = _product(qg_t, x_along_m, settings.acc, b_transposed=False).to(weight.dtype)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_b = grad.sum(0)
        return grad_x, grad_w, grad_b, None


def linear(x, weight, bias=None, *, weight_format=None, input_format=None, grad_output_format=None, acc="fp32"):
    """y = x @ weight^T + bias with the operands rounded by their specs (module docstring).

    x has shape (..., in_features), weight (out_features, in_features); float tensors on
    the CPU. Differentiable in x, weight and bias."""
    for name, t in (("x", x), ("weight", weight)):
        _tensors.check_float_tensor(t, "linear", name)
    if bias is not None:
        _tensors.check_float_tensor(bias, "linear", "bias")
    if weight.dim() != 2 or x.dim() < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"softfloat.torch.linear: x of shape {tuple(x.shape)} and weight of shape "
                         f"{tuple(weight.shape)} do not fit (x's last axis must equal weight's second)")
    settings = _Settings(weight_format, input_format, grad_output_format, acc, "linear")
    leading = x.shape[:-1]
    x2d = x.reshape(-1, x.shape[-1])
    y = _LinearFunction.apply(x2d, weight, bias, settings)
    return y.reshape(*leading, weight.shape[0])


def matmul(a, b, *, a_format=None, b_format=None, grad_format=None, acc="fp32"):
    """a @ b for 2-D tensors with the operands rounded by their specs; differentiable."""
    for name, t in (("a", a), ("b", b)):
        _tensors.check_float_tensor(t, "matmul", name)
        if t.dim() != 2:
            raise ValueError(f"softfloat.torch.matmul: {name} must be 2-D, got {t.dim()} dimensions")
    return linear(a, b.t(), weight_format=b_format, input_format=a_format, grad_output_format=grad_format, acc=acc)


class Linear(torch.nn.Linear):
    """nn.Linear whose product rounds its operands: weight=, input=, grad_output= specs
    (None: float32 as it is), acc= the accumulator format. A recipe's state (amax
    history, scale) belongs to the module and its state_dict."""

    def __init__(self, in_features, out_features, bias=True, *, weight=None, input=None, grad_output=None,
                 acc="fp32", device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device=device, dtype=dtype)
        settings = _Settings(weight, input, grad_output, acc, "Linear")  # checks the specs now
        self.acc = acc
        self.weight_spec, self.input_spec, self.grad_output_spec = weight, input, grad_output
        # Recipes are submodules, so their buffers travel with state_dict().
        self.recipes = torch.nn.ModuleDict({name: spec for name, spec in settings.specs.items()
                                            if isinstance(spec, torch.nn.Module)})

    def forward(self, x):
        return linear(x, self.weight, self.bias, weight_format=self.weight_spec, input_format=self.input_spec,
                      grad_output_format=self.grad_output_spec, acc=self.acc)

    def extra_repr(self):
        specs = ", ".join(f"{name}={spec!r}" for name, spec in (("weight", self.weight_spec),
                                                                 ("input", self.input_spec),
                                                                 ("grad_output", self.grad_output_spec))
                          if spec is not None and not isinstance(spec, torch.nn.Module))
        return super().extra_repr() + (", " + specs if specs else "") + f", acc={self.acc!r}"


def convert(model, *, weight=None, input=None, grad_output=None, acc="fp32", skip=()):
    """Replaces every nn.Linear of `model` (in place; also returned) by a Linear with the
    same parameters and the given specs. A spec may be a callable taking the module's
    qualified name and returning the spec (a fresh recipe per layer, say); names in
    `skip` are left alone."""
    def resolve(spec, name):
        return spec(name) if callable(spec) and not isinstance(spec, torch.nn.Module) else spec

    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            qualified = f"{name}.{child_name}" if name else child_name
            if type(child) is not torch.nn.Linear or qualified in skip:
                continue
            replacement = Linear(child.in_features, child.out_features, child.bias is not None,
                                 weight=resolve(weight, qualified), input=resolve(input, qualified),
                                 grad_output=resolve(grad_output, qualified), acc=acc,
                                 dtype=child.weight.dtype)
            with torch.no_grad():
                replacement.weight.copy_(child.weight)
                if child.bias is not None:
                    replacement.bias.copy_(child.bias)
            setattr(module, child_name, replacement)
    return model


__all__ = ["linear", "matmul", "Linear", "convert", "CurrentScaling", "DelayedScaling", "RowScaling",
           "BlockScaling"]
