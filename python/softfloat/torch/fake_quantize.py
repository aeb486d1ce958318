"""Differentiable fake quantization: softfloat.torch.quantize and the Quantize module.

The forward pass rounds every value into the format exactly (softfloat._core, bits
identical to the C++ scalar path). The backward pass is the straight-through estimator
by default (the incoming gradient passes unchanged), or, with gradient="clipped", zero
wherever the input lay outside the format's finite range [-max, max] (NaN included);
backward= names a format into which the incoming gradient is rounded first, with its own
rounding (stochastic allowed), as QPyTorch's quantizer(backward_number=...) does.
"""
from dataclasses import dataclass
from typing import Optional

import torch

from softfloat.torch import _tensors

__all__ = ["quantize", "Quantize", "BackwardRounding", "backward_settings", "GRADIENTS"]

GRADIENTS = ("straight_through", "clipped")


@dataclass(frozen=True)
class BackwardRounding:
    """How the incoming gradient is treated: clipped or not, and rounded into `fmt`."""
    gradient: str = "straight_through"
    fmt: Optional[str] = None
    rounding: str = "nearest_even"
    saturate: bool = False
    seed: Optional[int] = None
    limit: float = float("inf")  # the forward format's max, for the clipped gradient


class _QuantizeFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fmt, rounding, saturate, seed, offset, out_dtype, backward):
        ctx.backward_rounding = backward
        if backward.gradient == "clipped":
            ctx.save_for_backward(x.detach().abs() <= backward.limit)
        return _tensors.round_trip(x, fmt, rounding, saturate, seed, offset, out_dtype=out_dtype)

    @staticmethod
    def backward(ctx, grad):
        settings = ctx.backward_rounding
        if settings.gradient == "clipped":
            (inside,) = ctx.saved_tensors
            grad = grad * inside
        if settings.fmt is not None:
            grad = _tensors.round_trip(grad, settings.fmt, settings.rounding, settings.saturate, settings.seed,
                                       function="quantize (backward)")
        return grad, None, None, None, None, None, None, None


def backward_settings(fmt, gradient, backward, rounding, saturate, seed, function):
    """The checked backward settings of a quantize call."""
    if gradient not in GRADIENTS:
        raise ValueError(f"softfloat.torch.{function}: unknown gradient {gradient!r} (accepted: "
                         f"{', '.join(GRADIENTS)})")
    limit = _tensors.format_info(fmt, function).max if gradient == "clipped" else float("inf")
    if backward is not None:
        _tensors.format_info(backward, function)
    return BackwardRounding(gradient, backward, rounding, bool(saturate), seed, limit)


def quantize(x, fmt, rounding="nearest_even", saturate=False, seed=None, offset=0, *, backward=None,
             backward_rounding="nearest_even", backward_saturate=False, backward_seed=None,
             gradient="straight_through", out=None, out_dtype=None):
    """Fake quantization: every value of x replaced by the nearest value of `fmt`.

    Returns a tensor of x's shape and dtype (float32, float64, float16 or bfloat16; any
    strides, 0-d and empty tensors included; a contiguous tensor is read in place and
    the result written straight into the new tensor). A tensor of a format's own dtype
    (float8_e4m3fn, float8_e5m2, ..., float4_e2m1fn_x2) is read as its exact values and
    gives float32 (its last axis doubled for float4_e2m1fn_x2). float16 and bfloat16 inputs are
    exact in float32 and are not rounded twice on the way in. Where the format's values
    do not all fit x's dtype (fp16 values in a bfloat16 tensor, say), the default
    result rounds each of them once more, to nearest even, into that dtype;
    out_dtype=torch.float32 gives the exact values instead.

    rounding   nearest_even, nearest_away, nearest_zero, toward_zero, away_from_zero, up,
               down, odd, stochastic, stochastic_equal.
    saturate   overflow to +-max instead of the format's infinity or NaN.
    seed       stochastic rounding: element i uses softfloat's random_bits(seed, offset + i).
               None draws a seed from torch's default generator (torch.manual_seed
               makes the run reproducible).
    backward   a format spec for the incoming gradient (None: left as it is), rounded
               with backward_rounding (stochastic allowed), backward_saturate and
               backward_seed.
    gradient   "straight_through" (default) or "clipped" (zero where |x| > max or x is
               NaN).
    out        a contiguous tensor of the result's shape and dtype to write into (x
               itself for in place); not with autograd.

    Differentiable: x may require grad.
    """
    if out is None and _tensors.compiling():
        return torch.ops.softfloat.quantize(x, fmt, rounding, bool(saturate),
                                            _tensors.to_op_int(seed, "quantize", "seed"),
                                            _tensors.to_op_int(offset, "quantize", "offset"), out_dtype, gradient,
                                            backward, backward_rounding, bool(backward_saturate),
                                            _tensors.to_op_int(backward_seed, "quantize", "backward_seed"))
    x = _tensors.float_values(x, "quantize")
    settings = backward_settings(fmt, gradient, backward, backward_rounding, backward_saturate, backward_seed,
                                 "quantize")
    if out is not None or not (x.requires_grad and torch.is_grad_enabled()):
        return _tensors.round_trip(x, fmt, rounding, saturate, seed, offset, out_dtype=out_dtype, out=out)
    return _QuantizeFunction.apply(x, fmt, rounding, saturate, seed, offset, out_dtype, settings)


class Quantize(torch.nn.Module):
    """quantize() as a module: fmt and every option of quantize held as settings."""

    def __init__(self, fmt, rounding="nearest_even", saturate=False, seed=None, *, backward=None,
                 backward_rounding="nearest_even", backward_saturate=False, backward_seed=None,
                 gradient="straight_through", out_dtype=None):
        super().__init__()
        _tensors.format_info(fmt, "Quantize")
        backward_settings(fmt, gradient, backward, backward_rounding, backward_saturate, backward_seed,
                          "Quantize")
        self.fmt, self.rounding, self.saturate, self.seed = fmt, rounding, saturate, seed
        self.backward, self.backward_rounding = backward, backward_rounding
        self.backward_saturate, self.backward_seed = backward_saturate, backward_seed
        self.gradient, self.out_dtype = gradient, out_dtype
        # Stochastic rounding with a fixed seed: each call continues the stream, from the
        # position in this 0-d buffer (left out of the state dict). A Python int would be
        # a constant of a torch.compile graph, and its new value at every call a new
        # compilation (until Dynamo's cache limit, then eager calls).
        self.register_buffer("stream_offset", torch.zeros((), dtype=torch.int64), persistent=False)

    @property
    def offset(self):
        """Where the next call's stochastic stream starts (element counter of the seed)."""
        return int(self.stream_offset)

    @offset.setter
    def offset(self, value):
        self.stream_offset.fill_(int(value))

    def forward(self, x):
        settings = dict(backward=self.backward, backward_rounding=self.backward_rounding,
                        backward_saturate=self.backward_saturate, backward_seed=self.backward_seed,
                        gradient=self.gradient, out_dtype=self.out_dtype)
        if self.seed is None or not _tensors.is_stochastic(self.rounding):
            return quantize(x, self.fmt, self.rounding, self.saturate, self.seed, **settings)
        if _tensors.compiling():
            y = torch.ops.softfloat.quantize_from(x, self.fmt, self.rounding, bool(self.saturate),
                                                  _tensors.to_op_int(self.seed, "Quantize", "seed"),
                                                  self.stream_offset, self.out_dtype, self.gradient, self.backward,
                                                  self.backward_rounding, bool(self.backward_saturate),
                                                  _tensors.to_op_int(self.backward_seed, "Quantize", "backward_seed"))
        else:
            y = quantize(x, self.fmt, self.rounding, self.saturate, self.seed, self.offset, **settings)
        self.stream_offset.add_(x.numel())
        return y

    def extra_repr(self):
        text = f"fmt={self.fmt!r}, rounding={self.rounding!r}"
        if self.saturate:
            text += ", saturate=True"
        if self.backward is not None:
            text += f", backward={self.backward!r}"
        if self.gradient != "straight_through":
            text += f", gradient={self.gradient!r}"
        return text
