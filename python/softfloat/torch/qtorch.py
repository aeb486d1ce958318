"""QPyTorch's API over the exact library, for moving code off QPyTorch (which compiles a
libtorch extension at import and is no Debian package).

    from softfloat.torch.qtorch import float_quantize, quantizer, OptimLP, FloatingPoint

Signatures are QPyTorch's; the results are this library's, which differ from QPyTorch's
where QPyTorch rounds wrongly (README "PyTorch", table of differences):
  - rounding="nearest" is round to nearest, ties to even (QPyTorch: ties away from zero);
  - subnormals are rounded once, to their own grid;
  - float_quantize(x, exp, man) is the format e{exp}m{man}:finite: every exponent code
    is finite (exp=4, man=3 reaches 480, not OCP E4M3's 448), overflow saturates at
    +-max, and NaN stays NaN (QPyTorch makes it the largest value);
  - stochastic rounding draws from softfloat's counter stream (seeded from torch's
    generator), rounding away from zero with probability equal to the distance.
"""
import torch

from softfloat.torch import _tensors
from softfloat.torch.fake_quantize import quantize

__all__ = ["float_quantize", "fixed_point_quantize", "block_quantize", "FloatingPoint", "FixedPoint",
           "BlockFloatingPoint", "quantizer", "OptimLP"]

_ROUNDINGS = {"nearest": "nearest_even", "stochastic": "stochastic"}


def _rounding(rounding, function):
    if rounding not in _ROUNDINGS:
        raise ValueError(f"softfloat.torch.qtorch.{function}: rounding must be 'nearest' or 'stochastic', not "
                         f"{rounding!r}")
    return _ROUNDINGS[rounding]


def _keep_nan(x, result):
    return torch.where(torch.isnan(x), x, result) if x.is_floating_point() else result


def float_quantize(x, exp, man, rounding="stochastic"):
    """x rounded to a float with `exp` exponent and `man` mantissa bits (QPyTorch's
    FloatingPoint(exp, man): bias 2^(exp-1) - 1, subnormals, no infinity), saturating."""
    if not (1 <= int(exp) <= 11 and 0 <= int(man) <= 52):
        raise ValueError(f"softfloat.torch.qtorch.float_quantize: exp must lie in [1, 11] and man in [0, 52], got "
                         f"exp={exp}, man={man}")
    fmt = f"e{int(exp)}m{int(man)}:finite"
    return _keep_nan(x, quantize(x, fmt, _rounding(rounding, "float_quantize"), saturate=True))


def _integer_grid(x, wl, rounding, function):
    """x rounded to an integer of at most wl + 1 bits (sign-magnitude grid k / 2^wl *
    2^wl): e1m{wl}:finite with bias 1 holds k * 2^-wl for |k| <= 2^(wl+1) - 1."""
    t = x * 2.0 ** int(wl)
    q = quantize(t, f"e1m{int(wl)}:finite:bias=1", _rounding(rounding, function), saturate=True)
    return q  # integers k in [-(2^(wl+1) - 1), 2^(wl+1) - 1]


def fixed_point_quantize(x, wl, fl, clamp=True, symmetric=False, rounding="stochastic"):
    """x rounded to a multiple of 2^-fl with a wl-bit two's complement integer:
    [-2^(wl-1), 2^(wl-1) - 1] * 2^-fl, or [-(2^(wl-1) - 1), ...] when symmetric; clamped
    to that range when clamp is set (QPyTorch's FixedPoint)."""
    wl, fl = int(wl), int(fl)
    if wl < 2:
        raise ValueError(f"softfloat.torch.qtorch.fixed_point_quantize: wl must be at least 2, got {wl}")
    _tensors.check_float_tensor(x, "qtorch.fixed_point_quantize")
    scaled = x * 2.0 ** fl  # exact: a power of two
    # The integers k with |k| < 2^wl, more than the wl-bit range, so that clamping after
    # rounding gives the same as QPyTorch's round-then-clamp.
    k = quantize(scaled * 2.0 ** -wl, f"e1m{wl}:finite:bias=1", _rounding(rounding, "fixed_point_quantize"),
                 saturate=True) * 2.0 ** wl
    if clamp:
        high = 2.0 ** (wl - 1) - 1
        low = -high if symmetric else -(2.0 ** (wl - 1))
        k = torch.clamp(k, low, high)
    return _keep_nan(x, k * 2.0 ** -fl)


def block_quantize(x, wl, dim=-1, rounding="stochastic"):
    """Block floating point (QPyTorch's BlockFloatingPoint): a shared exponent e, the
    largest binade of the block (the whole tensor for dim=-1, else each slice along
    `dim`), and wl-bit signed mantissas: x rounded to a multiple of 2^(e - wl + 2),
    clamped to +-(2^(wl-1) - 1) of them."""
    _tensors.check_float_tensor(x, "qtorch.block_quantize")
    wl = int(wl)
    if wl < 2:
        raise ValueError(f"softfloat.torch.qtorch.block_quantize: wl must be at least 2, got {wl}")
    magnitude = torch.nan_to_num(x.detach().abs().to(torch.float64), nan=0.0)  # NaNs share no exponent
    if dim == -1:
        amax = magnitude.max() if x.numel() else torch.tensor(0.0, dtype=torch.float64)
    else:
        others = [d for d in range(x.dim()) if d != dim % x.dim()]
        amax = magnitude.amax(dim=others, keepdim=True) if others else magnitude
    _, exponent = torch.frexp(torch.where(amax > 0, amax, torch.ones_like(amax)))  # amax = m * 2^e, m in [0.5, 1)
    fl = (wl - 2) - (exponent - 1)  # quantum 2^(e_max - wl + 2) with e_max = exponent - 1
    scale = torch.exp2(fl.to(torch.float64))
    scaled = x.to(torch.float64) * scale
    k = quantize(scaled * 2.0 ** -wl, f"e1m{wl}:finite:bias=1", _rounding(rounding, "block_quantize"),
                 saturate=True) * 2.0 ** wl
    high = 2.0 ** (wl - 1) - 1
    return _keep_nan(x, (torch.clamp(k, -high, high) / scale).to(x.dtype))


class FloatingPoint:
    def __init__(self, exp, man):
        self.exp, self.man = int(exp), int(man)

    def __repr__(self):
        return f"FloatingPoint (exponent={self.exp}, mantissa={self.man})"


class FixedPoint:
    def __init__(self, wl, fl, clamp=True, symmetric=False):
        self.wl, self.fl, self.clamp, self.symmetric = int(wl), int(fl), clamp, symmetric

    def __repr__(self):
        return f"FixedPoint (wl={self.wl:d}, fl={self.fl:d})"


class BlockFloatingPoint:
    def __init__(self, wl, dim=-1):
        self.wl, self.dim = int(wl), dim

    def __repr__(self):
        return f"BlockFloatingPoint (wl={self.wl:d}, dim={self.dim:d})"


def _quantize_number(x, number, rounding):
    if number is None:
        return x
    if isinstance(number, FloatingPoint):
        return float_quantize(x, number.exp, number.man, rounding)
    if isinstance(number, FixedPoint):
        return fixed_point_quantize(x, number.wl, number.fl, number.clamp, number.symmetric, rounding)
    if isinstance(number, BlockFloatingPoint):
        return block_quantize(x, number.wl, number.dim, rounding)
    raise TypeError(f"softfloat.torch.qtorch: expected a FloatingPoint, FixedPoint or BlockFloatingPoint, not "
                    f"{type(number).__name__}")


class _Quantizer(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, forward_number, backward_number, forward_rounding, backward_rounding, clamp_zero):
        ctx.settings = (backward_number, backward_rounding, clamp_zero)
        with torch.no_grad():
            out = _quantize_number(x.detach(), forward_number, forward_rounding)
        if clamp_zero:
            ctx.save_for_backward(out == x.detach())
        return out

    @staticmethod
    def backward(ctx, grad):
        backward_number, backward_rounding, clamp_zero = ctx.settings
        with torch.no_grad():
            if clamp_zero:
                (kept,) = ctx.saved_tensors
                grad = grad * kept
            grad = _quantize_number(grad, backward_number, backward_rounding)
        return grad, None, None, None, None, None


def quantizer(forward_number=None, backward_number=None, forward_rounding="stochastic",
              backward_rounding="stochastic", clamping_grad_zero=False, backward_hooks=()):
    """A function that rounds its input by forward_number and the gradient by
    backward_number (QPyTorch's quantizer). clamping_grad_zero zeroes the gradient where
    the forward value changed by clamping (here: wherever it changed, which for the
    saturating formats includes every clamped element); backward_hooks are applied to
    the gradient first."""
    for rounding in (forward_rounding, backward_rounding):
        _rounding(rounding, "quantizer")
    hooks = list(backward_hooks)

    def quantize_function(x):
        out = _Quantizer.apply(x, forward_number, backward_number, forward_rounding, backward_rounding,
                               clamping_grad_zero)
        for hook in hooks:
            if out.requires_grad:
                out.register_hook(hook)
        return out

    return quantize_function


class OptimLP(torch.optim.Optimizer):
    """QPyTorch's OptimLP: wraps an optimizer; grad_quant rounds the gradients before the
    step (after multiplying by grad_scaling), weight_quant the weights after it,
    momentum_quant the momentum buffers ("momentum_buffer", "exp_avg", "exp_avg_sq"),
    and with acc_quant the optimizer updates high-precision accumulators (rounded by
    acc_quant) from which the weights are rounded. Each quant is a function of a tensor,
    such as lambda x: float_quantize(x, 8, 7, "stochastic")."""

    def __init__(self, optim, weight_quant=None, grad_scaling=1.0, grad_quant=None, momentum_quant=None,
                 acc_quant=None):
        if not isinstance(optim, torch.optim.Optimizer):
            raise TypeError(f"softfloat.torch.qtorch.OptimLP: expected a torch.optim.Optimizer, not "
                            f"{type(optim).__name__}")
        super().__init__(optim.param_groups, optim.defaults)
        self.param_groups = optim.param_groups
        self.optim = optim
        self.grad_scaling, self.weight_quant, self.grad_quant = grad_scaling, weight_quant, grad_quant
        self.momentum_quant, self.acc_quant = momentum_quant, acc_quant
        self.weight_acc = {}
        if acc_quant is not None:
            for group in self.param_groups:
                for p in group["params"]:
                    self.weight_acc[p] = p.detach().clone()

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if self.grad_scaling != 1.0:
                    p.grad.mul_(self.grad_scaling)
                if self.grad_quant is not None:
                    p.grad.copy_(self.grad_quant(p.grad))
                if self.acc_quant is not None:
                    p.data, self.weight_acc[p] = self.weight_acc[p], p.data
        self.optim.step()
        for group in self.param_groups:
            for p in group["params"]:
                if self.acc_quant is not None:
                    p.data.copy_(self.acc_quant(p.data))
                    acc = p.data
                    p.data = self.weight_acc[p]
                    self.weight_acc[p] = acc
                    p.data.copy_(acc)
                if self.weight_quant is not None:
                    p.data.copy_(self.weight_quant(p.data))
                if self.momentum_quant is not None:
                    state = self.optim.state.get(p, {})
                    for name in ("momentum_buffer", "exp_avg", "exp_avg_sq"):
                        if torch.is_tensor(state.get(name)):
                            state[name].copy_(self.momentum_quant(state[name]))
        return loss

    def zero_grad(self, set_to_none=False):
        self.optim.zero_grad(set_to_none=set_to_none)

    def __repr__(self):
        return f"LP Optimizer: {self.optim!r}"
