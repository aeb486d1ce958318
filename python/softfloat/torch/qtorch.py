"""QPyTorch's API over the exact library, for moving code off QPyTorch (which compiles a
libtorch extension at import and is no Debian package).

    from softfloat.torch.qtorch import float_quantize, quantizer, Quantizer, lower, FloatingPoint

Signatures and semantics are QPyTorch's (github.com/Tiiiger/QPyTorch, qtorch/quant and
qtorch/auto_low): fixed point is k * 2^-fl with k a wl-bit two's complement integer, range
[-2^(wl-fl-1), 2^(wl-fl-1) - 2^-fl], clamped only when clamp is set; clamping_grad_zero
zeroes the gradient only where the rounded value fell outside that range, and, as in
QPyTorch, needs a clamping FixedPoint (or no) forward_number; lower() hooks a Quantizer
after every module of the named layer types, sequential_lower() returns a copy with
nn.Sequential(layer, Quantizer) in their place.

The results are this library's exact roundings. They differ from QPyTorch's in the
cases below, most of them where QPyTorch rounds wrongly (its CPU kernels, float32 bit
operations; each QPyTorch value below was worked through those kernels):
  - fixed_point_quantize, "nearest": QPyTorch computes nearbyint((t + 0.5f) - 0.5) with
    the first sum rounded to float32, so t = 0.5 + 2^-24 becomes 0 (here 1: it lies above
    the tie) and odd integers in [2^23, 2^24) move by one: t = 8388609 gives 8388610, and
    -8388609 gives -8388608 (here t itself). t is x * 2^fl: fixed_point_quantize(
    0.50000006, 8, 0, rounding="nearest") is 0.0 in QPyTorch, 1.0 here.
  - fixed_point_quantize, "stochastic": QPyTorch computes nearbyint((t + r) - 0.5) with r
    a 24-bit uniform draw and the sum rounded to float32, so t = 2^-26 never rounds up
    (mean 0, not 2^-26), and even a value on the grid moves: t = 3 becomes 2 when r = 0
    and 4 when r >= 1 - 2^-23 (probabilities 2^-24 and 2^-23). Here a value on the grid
    stays, and the probability of rounding up is the distance, to 2^-32 of a step.
  - float_quantize, "nearest": ties away from zero in QPyTorch (float_quantize(1.0625, 4,
    3) is 1.125), ties to even here (1.0).
  - float_quantize, subnormal results: QPyTorch adds 2^emin in float32 first, rounding
    twice: 2^-10 - 2^-34 (below half the subnormal step 2^-9 of exp=4, man=3) gives 2^-9
    there, 0 here.
  - float_quantize(x, exp, man) is the format e{exp}m{man}:finite: every exponent code is
    finite (exp=4, man=3 reaches 480, not OCP E4M3's 448) and overflow saturates at +-max,
    as in QPyTorch; NaN stays NaN (QPyTorch: +max, 480 for exp=4, man=3).
  - block_quantize, "nearest": QPyTorch adds 6 * 2^e_max in float32 and rounds half up,
    so of the block [1.0, 2^-7 - 2^-30] with wl=8 (step 2^-6) the second value becomes
    2^-6 there (double rounding) and 0 here; ties go toward +infinity there (2^-7 -> 2^-6,
    -2^-7 -> 0) and to even here (both -> 0).
  - block_quantize with a NaN or an infinity in a block: QPyTorch makes the whole block
    NaN; here NaN stays NaN, infinities clamp to +-max, and the other values share the
    exponent of the largest finite magnitude.
  - stochastic rounding draws from softfloat's counter stream (seeded from torch's
    generator), rounding away from zero with probability equal to the distance.
  - quantizer(backward_hooks=...) applies the hooks to the gradient in every
    configuration, and clamping_grad_zero zeroes the clamped gradients whether or not a
    backward_number is given; QPyTorch does either only when clamping_grad_zero is set and
    a backward_number is given.
  - inputs may be float64, float16 or bfloat16 as well as float32; results keep the dtype.
"""
import copy

import torch

from softfloat.torch import _tensors
from softfloat.torch.fake_quantize import quantize

__all__ = ["float_quantize", "fixed_point_quantize", "block_quantize", "FloatingPoint", "FixedPoint",
           "BlockFloatingPoint", "quantizer", "Quantizer", "lower", "sequential_lower", "LAYER_TYPES",
           "OptimLP"]

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


def _round_to_integers(t, rounding, function):
    """t (float64) rounded to an integer, with no bound. e1m52:finite:bias=1 holds
    k * 2^-52 for 0 <= k <= 2^53 - 1 (code 0'0'm: m * 2^-52; code 0'1'm: 1 + m * 2^-52),
    so t * 2^-52 rounded into it and scaled back is t rounded to an integer; a float64
    of magnitude >= 2^52 has no fraction bits and is already one (or infinite)."""
    k = quantize(t * 2.0 ** -52, "e1m52:finite:bias=1", _rounding(rounding, function), saturate=True) * 2.0 ** 52
    return torch.where(t.abs() >= 2.0 ** 52, t, k)


def _fixed_point_integers(x, wl, fl, symmetric, rounding, function):
    """(k, low, high): x * 2^fl rounded to an integer k, unclamped, and QPyTorch's
    wl-bit range [low, high] of k: [-2^(wl-1), 2^(wl-1) - 1], or [-(2^(wl-1) - 1), ...]
    when symmetric. k is float64, so x * 2^fl is exact for every float input."""
    wl, fl = int(wl), int(fl)
    if wl < 1:
        raise ValueError(f"softfloat.torch.qtorch.{function}: wl must be at least 1, got {wl}")
    _tensors.check_float_tensor(x, f"qtorch.{function}")
    k = _round_to_integers(x.to(torch.float64) * 2.0 ** fl, rounding, function)
    high = 2.0 ** (wl - 1) - 1
    low = -high if symmetric else -(2.0 ** (wl - 1))
    return k, low, high


def _from_integers(x, k, fl):
    return _keep_nan(x, (k * 2.0 ** -int(fl)).to(x.dtype))


def fixed_point_quantize(x, wl, fl, clamp=True, symmetric=False, rounding="stochastic"):
    """x rounded to a multiple of 2^-fl (QPyTorch's FixedPoint). With clamp, the result is
    clamped to the wl-bit two's complement range [-2^(wl-fl-1), 2^(wl-fl-1) - 2^-fl]
    (lowest value 2^-fl higher when symmetric); without, only the precision is limited:
    fixed_point_quantize(x, 8, 8, clamp=False, rounding="nearest") is
    torch.round(x * 2**8) / 2**8 for every float32 x."""
    k, low, high = _fixed_point_integers(x, wl, fl, symmetric, rounding, "fixed_point_quantize")
    if clamp:
        k = torch.clamp(k, low, high)
    return _from_integers(x, k, fl)


def block_quantize(x, wl, dim=-1, rounding="stochastic"):
    """Block floating point (QPyTorch's BlockFloatingPoint): a shared exponent e, the
    largest binade of the block (the whole tensor for dim=-1, else each slice along
    `dim`), and wl-bit signed mantissas: x rounded to a multiple of 2^(e - wl + 2),
    clamped to +-(2^(wl-1) - 1) of them."""
    _tensors.check_float_tensor(x, "qtorch.block_quantize")
    wl = int(wl)
    if wl < 2:
        raise ValueError(f"softfloat.torch.qtorch.block_quantize: wl must be at least 2, got {wl}")
    magnitude = x.detach().abs().to(torch.float64)
    magnitude = torch.where(torch.isfinite(magnitude), magnitude, 0.0)  # NaN and infinity share no exponent
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


_NUMBERS = (FloatingPoint, FixedPoint, BlockFloatingPoint)


def _check_number(number, function):
    if number is not None and not isinstance(number, _NUMBERS):
        raise TypeError(f"softfloat.torch.qtorch.{function}: expected a FloatingPoint, FixedPoint or "
                        f"BlockFloatingPoint, not {type(number).__name__}")


def _quantize_number(x, number, rounding):
    if number is None:
        return x
    if isinstance(number, FloatingPoint):
        return float_quantize(x, number.exp, number.man, rounding)
    if isinstance(number, FixedPoint):
        return fixed_point_quantize(x, number.wl, number.fl, number.clamp, number.symmetric, rounding)
    return block_quantize(x, number.wl, number.dim, rounding)


class _Quantizer(torch.autograd.Function):
    """Forward: x rounded by forward_number. Backward: the gradient rounded by
    backward_number, then, with clamp_zero, set to 0 where the forward value was clamped
    (QPyTorch's mask: the rounded fixed-point value lay outside the range), whatever the
    gradient was (NaN included)."""

    @staticmethod
    def forward(ctx, x, forward_number, backward_number, forward_rounding, backward_rounding, clamp_zero):
        ctx.settings = (backward_number, backward_rounding, clamp_zero)
        x = x.detach()
        with torch.no_grad():
            if clamp_zero and forward_number is not None:
                k, low, high = _fixed_point_integers(x, forward_number.wl, forward_number.fl,
                                                     forward_number.symmetric, forward_rounding, "quantizer")
                out = _from_integers(x, torch.clamp(k, low, high), forward_number.fl)
                ctx.save_for_backward((k < low) | (k > high))
            else:
                out = _quantize_number(x, forward_number, forward_rounding)
                if clamp_zero:
                    ctx.save_for_backward(torch.zeros_like(x, dtype=torch.bool))
        return out

    @staticmethod
    def backward(ctx, grad):
        backward_number, backward_rounding, clamp_zero = ctx.settings
        with torch.no_grad():
            grad = _quantize_number(grad, backward_number, backward_rounding)
            if clamp_zero:
                (clamped,) = ctx.saved_tensors
                grad = grad.masked_fill(clamped, 0.0)
        return grad, None, None, None, None, None


def quantizer(forward_number=None, backward_number=None, forward_rounding="stochastic",
              backward_rounding="stochastic", clamping_grad_zero=False, backward_hooks=()):
    """A function that rounds its input by forward_number and the gradient by
    backward_number (QPyTorch's quantizer; None leaves either unchanged).
    clamping_grad_zero zeroes the gradient where the forward value was clamped, that is
    where x rounded to a multiple of 2^-fl lay outside [-2^(wl-fl-1), 2^(wl-fl-1) - 2^-fl]
    (FixedPoint(5, 4): -0.6 -> -0.625 keeps its gradient, 1.0 -> 0.9375 loses it). As in
    QPyTorch it needs forward_number to be None or a FixedPoint with clamp=True (and then
    clamps whatever that FixedPoint's clamp says). backward_hooks are applied to the
    gradient before backward_number rounds it."""
    for rounding in (forward_rounding, backward_rounding):
        _rounding(rounding, "quantizer")
    for number in (forward_number, backward_number):
        _check_number(number, "quantizer")
    if clamping_grad_zero:
        if forward_number is not None and not isinstance(forward_number, FixedPoint):
            raise ValueError("softfloat.torch.qtorch.quantizer: clamping_grad_zero needs a FixedPoint "
                             f"forward_number (as in QPyTorch), not {type(forward_number).__name__}")
        if forward_number is not None and not forward_number.clamp:
            raise ValueError("softfloat.torch.qtorch.quantizer: clamping_grad_zero needs a FixedPoint with "
                             "clamp=True")
    hooks = list(backward_hooks)
    clamp_zero = bool(clamping_grad_zero)

    def quantize_function(x):
        out = _Quantizer.apply(x, forward_number, backward_number, forward_rounding, backward_rounding,
                               clamp_zero)
        if out.requires_grad:
            for hook in hooks:
                out.register_hook(hook)
        return out

    return quantize_function


class Quantizer(torch.nn.Module):
    """quantizer() as a module (QPyTorch's qtorch.quant.Quantizer): the forward pass
    rounds by forward_number, the backward pass the gradient by backward_number."""

    def __init__(self, forward_number=None, backward_number=None, forward_rounding="stochastic",
                 backward_rounding="stochastic"):
        super().__init__()
        self.forward_number, self.backward_number = forward_number, backward_number
        self.forward_rounding, self.backward_rounding = forward_rounding, backward_rounding
        self.quantize = quantizer(forward_number, backward_number, forward_rounding, backward_rounding)

    def forward(self, x):
        return self.quantize(x)

    def extra_repr(self):
        return (f"forward_number={self.forward_number!r}, backward_number={self.backward_number!r}, "
                f"forward_rounding={self.forward_rounding!r}, backward_rounding={self.backward_rounding!r}")


_nn = torch.nn
# QPyTorch's layer types (qtorch/auto_low): a module is of a type when its class is one of
# these exactly (subclasses are not), as QPyTorch tests type(module) in the list.
LAYER_TYPES = {
    "conv": (_nn.Conv1d, _nn.Conv2d, _nn.Conv3d, _nn.ConvTranspose1d, _nn.ConvTranspose2d, _nn.ConvTranspose3d,
             _nn.Unfold, _nn.Fold),
    "linear": (_nn.Linear, _nn.Bilinear),
    "pool": (_nn.MaxPool1d, _nn.MaxPool2d, _nn.MaxPool3d, _nn.MaxUnpool1d, _nn.MaxUnpool2d, _nn.MaxUnpool3d,
             _nn.AvgPool1d, _nn.AvgPool2d, _nn.AvgPool3d, _nn.FractionalMaxPool2d, _nn.LPPool1d, _nn.LPPool2d,
             _nn.AdaptiveMaxPool1d, _nn.AdaptiveMaxPool2d, _nn.AdaptiveMaxPool3d, _nn.AdaptiveAvgPool1d,
             _nn.AdaptiveAvgPool2d, _nn.AdaptiveAvgPool3d),
    "pad": (_nn.ReflectionPad1d, _nn.ReflectionPad2d, _nn.ReplicationPad1d, _nn.ReplicationPad2d, _nn.ZeroPad2d,
            _nn.ConstantPad1d, _nn.ConstantPad2d, _nn.ConstantPad3d),
    "activation": (_nn.ELU, _nn.Hardshrink, _nn.Hardtanh, _nn.LeakyReLU, _nn.LogSigmoid, _nn.PReLU, _nn.ReLU,
                   _nn.ReLU6, _nn.RReLU, _nn.SELU, _nn.Sigmoid, _nn.Softplus, _nn.Softshrink, _nn.Softsign,
                   _nn.Tanh, _nn.Tanhshrink, _nn.Threshold, _nn.Softmin, _nn.Softmax, _nn.Softmax2d,
                   _nn.LogSoftmax),
    "normalization": (_nn.BatchNorm1d, _nn.BatchNorm2d, _nn.BatchNorm3d, _nn.GroupNorm, _nn.InstanceNorm1d,
                      _nn.InstanceNorm2d, _nn.InstanceNorm3d, _nn.LayerNorm, _nn.LocalResponseNorm),
    "dropout": (_nn.Dropout, _nn.Dropout2d, _nn.Dropout3d, _nn.AlphaDropout),
    "loss": (_nn.L1Loss, _nn.MSELoss, _nn.CrossEntropyLoss, _nn.NLLLoss, _nn.PoissonNLLLoss, _nn.KLDivLoss,
             _nn.BCELoss, _nn.BCEWithLogitsLoss, _nn.MarginRankingLoss, _nn.HingeEmbeddingLoss,
             _nn.MultiLabelMarginLoss, _nn.SmoothL1Loss, _nn.SoftMarginLoss, _nn.MultiLabelSoftMarginLoss,
             _nn.MultiMarginLoss, _nn.TripletMarginLoss),
}


def _layer_classes(layer_types, function):
    classes = ()
    for name in layer_types:
        if name not in LAYER_TYPES:
            raise ValueError(f"softfloat.torch.qtorch.{function}: unknown layer type {name!r} (accepted: "
                             f"{', '.join(LAYER_TYPES)})")
        classes += LAYER_TYPES[name]
    return classes


def lower(model, layer_types=(), forward_number=None, backward_number=None, forward_rounding="stochastic",
          backward_rounding="stochastic"):
    """Rounds, in place, the output of every module of `model` (itself included) whose
    class is one of `layer_types` ("conv", "linear", "pool", "pad", "activation",
    "normalization", "dropout", "loss") by one shared Quantizer (QPyTorch's
    qtorch.auto_low.lower; returns None like it). The Quantizer runs as a forward hook."""
    classes = _layer_classes(layer_types, "lower")
    quant = Quantizer(forward_number, backward_number, forward_rounding, backward_rounding)
    for module in model.modules():
        if type(module) in classes:
            module.register_forward_hook(lambda _module, _inputs, output: quant(output))


def sequential_lower(model, layer_types=(), forward_number=None, backward_number=None,
                     forward_rounding="stochastic", backward_rounding="stochastic"):
    """A copy of `model` in which every module without children whose class is one of
    `layer_types` is replaced by nn.Sequential(module, quantizer), one shared Quantizer
    (QPyTorch's qtorch.auto_low.sequential_lower); `model` is left unchanged."""
    classes = _layer_classes(layer_types, "sequential_lower")
    quant = Quantizer(forward_number, backward_number, forward_rounding, backward_rounding)

    def lowered(module):
        children = list(module.named_children())
        if not children:
            return torch.nn.Sequential(module, quant) if type(module) in classes else module
        for name, child in children:
            setattr(module, name, lowered(child))
        return module

    return lowered(copy.deepcopy(model))


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
