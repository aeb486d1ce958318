"""Fake quantization through OCP MX blocks and NVFP4's two-level scaling, for tensors.

Both run along any axis: the blocks of a weight matrix lie along its reduction axis, and
the backward products of a layer need the other one (microxcaling quantizes the saved
operands again along it). A tensor whose blocks lie along another axis than the last is
moved so that they do (one contiguous copy) and the result moved back. Both are
differentiable with the straight-through gradient (or, with backward=, the gradient
rounded through the same kind of blocks along the same axis).
"""
import math
import operator

import torch

from softfloat import _core
from softfloat.torch import _tensors

__all__ = ["mx_quantize", "nvfp4_quantize", "mx_values", "nvfp4_values", "check_blocks", "check_mx_element", "blocks_last"]


def check_blocks(x, axis, function):
    """The checks of x and axis that need no values (torch.compile's fake kernels make
    them too); returns the axis as a non-negative index. x holds values: a float tensor
    or one of a format's own dtype (float8_*, float4_e2m1fn_x2)."""
    _tensors.check_value_tensor(x, function)
    if x.dim() == 0:
        raise ValueError(f"softfloat.torch.{function}: x is 0-d; blocks need an axis to run along")
    axis = operator.index(axis)
    if not -x.dim() <= axis < x.dim():
        raise ValueError(f"softfloat.torch.{function}: axis {axis} is out of range for a tensor of {x.dim()} "
                         f"dimensions")
    return axis % x.dim()


def check_mx_element(element, function):
    """An MX element's name, or the error naming the known ones."""
    if element not in _core.mx_elements():
        raise ValueError(f"softfloat.torch.{function}: unknown MX element {element!r} (known: "
                         f"{', '.join(_core.mx_elements())})")
    return element


def blocks_last(x, axis, function):
    """x's values as contiguous float32 with the blocks' axis last, and the axis index."""
    axis = check_blocks(x, axis, function)
    moved = _tensors.float_values(x, function).detach().to(torch.float32)  # exact for float16 and bfloat16;
    if axis != x.dim() - 1:                                                  # float64 is rounded (documented)
        moved = moved.movedim(axis, -1)
    return moved.contiguous(), axis


def _rows(source):
    """The rows along the last axis (none of an empty tensor, whatever its last extent)."""
    return math.prod(source.shape[:-1]) if source.numel() else 0


def _block_size(block_size):
    """An integer block size (operator.index: int, numpy.int64), never a float truncated."""
    try:
        return operator.index(block_size)
    except TypeError:
        raise TypeError(f"softfloat.torch.mx_quantize: block_size must be an integer, not "
                        f"{type(block_size).__name__}") from None


def _restore(result, axis, like, out_dtype):
    if axis != like.dim() - 1:
        result = result.movedim(-1, axis).contiguous()
    dtype = _tensors.value_dtype(like) if out_dtype is None else _tensors.check_float_dtype(out_dtype, "mx_quantize", "out_dtype")
    return result if dtype == torch.float32 else result.to(dtype)


def mx_values(x, element, block_size, axis, scale_rule, rounding, seed, offset, out_dtype):
    source, axis = blocks_last(x, axis, "mx_quantize")
    result = _tensors.new_tensor(source.shape, torch.float32)
    # Called for empty tensors too, so that their arguments are checked as NumPy's are.
    _core._mx_round_trip_buffer(source.data_ptr(), result.data_ptr(), _rows(source), source.shape[-1], element,
                                _block_size(block_size), scale_rule, rounding, _tensors.resolve_seed(seed, rounding), offset)
    return _restore(result, axis, x, out_dtype)


def nvfp4_values(x, axis, rounding, seed, offset, out_dtype):
    source, axis = blocks_last(x, axis, "nvfp4_quantize")
    result = _tensors.new_tensor(source.shape, torch.float32)
    _core._nvfp4_round_trip_buffer(source.data_ptr(), result.data_ptr(), _rows(source), source.shape[-1], rounding,
                                   _tensors.resolve_seed(seed, rounding), offset)
    return _restore(result, axis, x, out_dtype)


class _StraightThrough(torch.autograd.Function):
    """values(x) forward; the gradient unchanged, or through backward_values, backward."""

    @staticmethod
    def forward(ctx, x, values, backward_values):
        ctx.backward_values = backward_values
        return values(x)

    @staticmethod
    def backward(ctx, grad):
        if ctx.backward_values is not None:
            grad = ctx.backward_values(grad)
        return grad, None, None


def _apply(x, values, backward_values):
    if x.requires_grad and torch.is_grad_enabled():
        return _StraightThrough.apply(x, values, backward_values)
    return values(x)


def mx_quantize(x, element, block_size=32, axis=-1, scale_rule="floor", rounding="nearest_even", seed=None,
                offset=0, *, backward=None, backward_rounding="nearest_even", out_dtype=None):
    """Fake quantization through OCP MX blocks of `block_size` values along `axis`.

    element     "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8".
    scale_rule  "floor" (OCP), "rceil" (cuBLAS, torchao RCEIL), "ceil" (torchao CEIL),
                "even" (torchao EVEN); formulas in docs/design/block-formats.md.
    rounding    the elements': nearest_even, nearest_away, nearest_zero, toward_zero or
                stochastic (element i, counted in C order with `axis` last, draws
                random_bits(seed, offset + i); seed None draws from torch's generator).
    backward    an MX element for the incoming gradient (blocks along the same axis,
                rounded with backward_rounding), or None for the plain straight-through
                gradient.

    The values are computed in float32 (float16 and bfloat16 inputs exactly; float64 is
    rounded to float32 first) and returned in x's dtype (out_dtype= to choose).
    Bits identical to softfloat.mx_dequantize(*softfloat.mx_quantize(...)).
    """
    if _tensors.compiling():
        return torch.ops.softfloat.mx_quantize(x, element, block_size, axis, scale_rule, rounding,
                                               _tensors.to_op_int(seed, "mx_quantize", "seed"),
                                               _tensors.to_op_int(offset, "mx_quantize", "offset"), backward,
                                               backward_rounding, out_dtype)
    check_blocks(x, axis, "mx_quantize")  # before autograd sees x, which must be a CPU tensor
    values = lambda t: mx_values(t, element, block_size, axis, scale_rule, rounding, seed, offset, out_dtype)  # noqa: E731
    backward_values = None
    if backward is not None:
        backward_values = lambda g: mx_values(g, backward, block_size, axis, scale_rule, backward_rounding,  # noqa: E731
                                               None, 0, None)
    return _apply(x, values, backward_values)


def nvfp4_quantize(x, axis=-1, rounding="nearest_even", seed=None, offset=0, *, backward=False,
                   backward_rounding="stochastic", out_dtype=None):
    """Fake quantization through NVFP4 (E2M1 elements, an E4M3 scale per 16 values along
    `axis`, one fp32 amax for the tensor), bit-identical to softfloat/nvfp4.hpp. The
    blocks' axis must be a multiple of 16 long. rounding is the elements'; backward=True
    rounds the incoming gradient through NVFP4 too (stochastically by default, as
    NVFP4 training recipes do)."""
    if _tensors.compiling():
        return torch.ops.softfloat.nvfp4_quantize(x, axis, rounding,
                                                  _tensors.to_op_int(seed, "nvfp4_quantize", "seed"),
                                                  _tensors.to_op_int(offset, "nvfp4_quantize", "offset"),
                                                  bool(backward), backward_rounding, out_dtype)
    check_blocks(x, axis, "nvfp4_quantize")
    values = lambda t: nvfp4_values(t, axis, rounding, seed, offset, out_dtype)  # noqa: E731
    backward_values = None
    if backward:
        backward_values = lambda g: nvfp4_values(g, axis, backward_rounding, None, 0, None)  # noqa: E731
    return _apply(x, values, backward_values)
