"""softfloat.torch's operations as torch.library custom ops, for torch.compile.

torch.compile cannot look inside a call that hands a tensor's address to compiled code,
so each operation is also a custom op in the namespace `softfloat`, with

- a fake kernel: given meta or fake tensors it checks the arguments (the same checks
  and messages as the eager call, made while tracing) and returns an empty tensor of the
  result's shape and dtype;
- registered autograd: the same straight-through, clipped or rounded gradients as the
  eager autograd.Functions, written with the ops themselves so that the backward pass
  traces too;
- the random seed of a stochastic rounding drawn inside the op (from torch's default
  generator) when none is given, so traced code never calls .item().

The public functions call these ops only while torch.compile traces
(torch.compiler.is_compiling()); an eager call goes straight to the kernel and pays no
dispatcher cost. Both give the same bits.

    softfloat::quantize       quantize(x, fmt, ...) with its backward settings
    softfloat::quantize_from  the same with the stream's offset in a tensor (Quantize's
                              counter for a fixed seed)
    softfloat::encode         encode(x, fmt, ...)     (no gradient)
    softfloat::decode         decode(codes, fmt, dtype)
    softfloat::mx_quantize    mx_quantize(x, element, ...)
    softfloat::nvfp4_quantize nvfp4_quantize(x, ...)
    softfloat::linear         linear(x, weight, bias, ...) for format specs (strings);
                              softfloat::linear_backward computes its two gradients
"""
import functools
from typing import List, Optional

import torch
from torch import Tensor

from softfloat import _native_dtypes as native_dtypes
from softfloat.torch import _tensors

__all__ = ["quantize", "quantize_from", "encode", "decode", "mx_quantize", "nvfp4_quantize", "linear", "linear_backward"]


def _fake(kernel):
    """A fake kernel: the eager call's checks, which accept meta tensors while it runs."""
    @functools.wraps(kernel)
    def checked(*args):
        token = _tensors.checking_shapes_only.set(True)
        try:
            return kernel(*args)
        finally:
            _tensors.checking_shapes_only.reset(token)
    return checked


def _value_dtype(x, out_dtype):
    """The dtype of a fake quantization's result (round_trip's rule)."""
    if out_dtype is not None:
        return _tensors.check_float_dtype(out_dtype, "quantize", "out_dtype")
    return _tensors.value_dtype(x)


def _value_shape(x):
    """The shape of x's values: a float4_e2m1fn_x2 tensor holds two values an element."""
    entry = native_dtypes.torch_format(x.dtype)
    if entry is not None and entry[1] == 2:
        return (*x.shape[:-1], 2 * x.shape[-1])
    return tuple(x.shape)


# --- quantize -----------------------------------------------------------------------------

@torch.library.custom_op("softfloat::quantize", mutates_args=())
def quantize(x: Tensor, fmt: str, rounding: str, saturate: bool, seed: Optional[int], offset: int,
             out_dtype: Optional[torch.dtype], gradient: str, backward: Optional[str], backward_rounding: str,
             backward_saturate: bool, backward_seed: Optional[int]) -> Tensor:
    return _tensors.round_trip(x, fmt, rounding, saturate, _tensors.from_op_int(seed), _tensors.from_op_int(offset),
                               out_dtype=out_dtype)


@_fake
def _quantize_fake(x, fmt, rounding, saturate, seed, offset, out_dtype, gradient, backward, backward_rounding,
                   backward_saturate, backward_seed):
    from softfloat.torch.fake_quantize import backward_settings
    _tensors.check_value_tensor(x, "quantize")
    _tensors.format_info(fmt, "quantize")
    backward_settings(fmt, gradient, backward, backward_rounding, backward_saturate, backward_seed, "quantize")
    return x.new_empty(_value_shape(x), dtype=_value_dtype(x, out_dtype))


def _quantize_setup(ctx, inputs, output):
    x, fmt, _, _, _, _, _, gradient, backward, backward_rounding, backward_saturate, backward_seed = inputs
    ctx.gradient, ctx.backward = gradient, (backward, backward_rounding, backward_saturate, backward_seed)
    ctx.limit = _tensors.format_info(fmt, "quantize").max if gradient == "clipped" else None
    ctx.save_for_backward(x if gradient == "clipped" else None)


def _quantize_backward(ctx, grad):
    if ctx.gradient == "clipped":
        (x,) = ctx.saved_tensors
        grad = grad * (x.abs() <= ctx.limit)
    fmt, rounding, saturate, seed = ctx.backward
    if fmt is not None:
        grad = torch.ops.softfloat.quantize(grad, fmt, rounding, saturate, seed, 0, None, "straight_through", None,
                                            "nearest_even", False, None)
    return (grad,) + (None,) * 11


quantize.register_fake(_quantize_fake)
quantize.register_autograd(_quantize_backward, setup_context=_quantize_setup)


@torch.library.custom_op("softfloat::quantize_from", mutates_args=())
def quantize_from(x: Tensor, fmt: str, rounding: str, saturate: bool, seed: Optional[int], offset: Tensor,
                  out_dtype: Optional[torch.dtype], gradient: str, backward: Optional[str], backward_rounding: str,
                  backward_saturate: bool, backward_seed: Optional[int]) -> Tensor:
    """softfloat::quantize with the stochastic stream's position in a 0-d int64 tensor (the
    Quantize module's counter): a traced graph reads it as data, where an int would be a
    constant of the graph and each new value a new compilation."""
    return _tensors.round_trip(x, fmt, rounding, saturate, _tensors.from_op_int(seed), int(offset), out_dtype=out_dtype)


quantize_from.register_fake(_quantize_fake)
quantize_from.register_autograd(_quantize_backward, setup_context=_quantize_setup)


# --- encode and decode ----------------------------------------------------------------------

@torch.library.custom_op("softfloat::encode", mutates_args=())
def encode(x: Tensor, fmt: str, rounding: str, saturate: bool, seed: Optional[int], offset: int,
           as_codes: bool) -> Tensor:
    return _tensors.encode(x, fmt, rounding, saturate, _tensors.from_op_int(seed), _tensors.from_op_int(offset),
                           as_codes=as_codes)


@encode.register_fake
@_fake
def _(x, fmt, rounding, saturate, seed, offset, as_codes):
    _tensors.check_value_tensor(x, "encode")
    info = _tensors.format_info(fmt, "encode")
    native = None if as_codes else native_dtypes.torch_dtype(fmt)
    shape = _value_shape(x)
    if native is None:
        return x.new_empty(shape, dtype=_tensors.code_dtype(info.bits))
    if native[1] == 2:
        _tensors.check_pairs(shape, native[0])
        return x.new_empty((*shape[:-1], shape[-1] // 2), dtype=native[0])
    return x.new_empty(shape, dtype=native[0])


@torch.library.custom_op("softfloat::decode", mutates_args=())
def decode(codes: Tensor, fmt: Optional[str], dtype: torch.dtype) -> Tensor:
    return _tensors.decode(codes, fmt, dtype)


@decode.register_fake
@_fake
def _(codes, fmt, dtype):
    _tensors.checked_codes(codes, fmt, dtype)
    return codes.new_empty(_value_shape(codes), dtype=dtype)


# --- MX and NVFP4 blocks ------------------------------------------------------------------

@torch.library.custom_op("softfloat::mx_quantize", mutates_args=())
def mx_quantize(x: Tensor, element: str, block_size: int, axis: int, scale_rule: str, rounding: str,
                seed: Optional[int], offset: int, backward: Optional[str], backward_rounding: str,
                out_dtype: Optional[torch.dtype]) -> Tensor:
    from softfloat.torch.blocks import mx_values
    return mx_values(x, element, block_size, axis, scale_rule, rounding, _tensors.from_op_int(seed),
                     _tensors.from_op_int(offset), out_dtype)


@mx_quantize.register_fake
@_fake
def _(x, element, block_size, axis, scale_rule, rounding, seed, offset, backward, backward_rounding, out_dtype):
    from softfloat.torch.blocks import check_blocks, check_mx_element
    check_blocks(x, axis, "mx_quantize")
    check_mx_element(element, "mx_quantize")
    return x.new_empty(_value_shape(x), dtype=_value_dtype(x, out_dtype))


def _mx_setup(ctx, inputs, output):
    _, _, block_size, axis, scale_rule, _, _, _, backward, backward_rounding, _ = inputs
    ctx.settings = (block_size, axis, scale_rule, backward, backward_rounding)


def _mx_backward(ctx, grad):
    block_size, axis, scale_rule, backward, backward_rounding = ctx.settings
    if backward is not None:
        grad = torch.ops.softfloat.mx_quantize(grad, backward, block_size, axis, scale_rule, backward_rounding, None, 0,
                                               None, "nearest_even", None)
    return (grad,) + (None,) * 10


mx_quantize.register_autograd(_mx_backward, setup_context=_mx_setup)


@torch.library.custom_op("softfloat::nvfp4_quantize", mutates_args=())
def nvfp4_quantize(x: Tensor, axis: int, rounding: str, seed: Optional[int], offset: int, backward: bool,
                   backward_rounding: str, out_dtype: Optional[torch.dtype]) -> Tensor:
    from softfloat.torch.blocks import nvfp4_values
    return nvfp4_values(x, axis, rounding, _tensors.from_op_int(seed), _tensors.from_op_int(offset), out_dtype)


@nvfp4_quantize.register_fake
@_fake
def _(x, axis, rounding, seed, offset, backward, backward_rounding, out_dtype):
    from softfloat.torch.blocks import check_blocks
    check_blocks(x, axis, "nvfp4_quantize")
    return x.new_empty(_value_shape(x), dtype=_value_dtype(x, out_dtype))


def _nvfp4_setup(ctx, inputs, output):
    _, axis, _, _, _, backward, backward_rounding, _ = inputs
    ctx.settings = (axis, backward, backward_rounding)


def _nvfp4_backward(ctx, grad):
    axis, backward, backward_rounding = ctx.settings
    if backward:
        grad = torch.ops.softfloat.nvfp4_quantize(grad, axis, backward_rounding, None, 0, False, "stochastic", None)
    return (grad,) + (None,) * 7


nvfp4_quantize.register_autograd(_nvfp4_backward, setup_context=_nvfp4_setup)


# --- linear -------------------------------------------------------------------------------

def _fake_operand(t, spec, name):
    """The value shape and the spec of an operand of linear, from its dtype alone."""
    from softfloat.torch.linear import operand_spec
    return _value_shape(t), operand_spec(t, spec, "linear", name)


def _fake_linear(x, weight, bias, weight_format, input_format, grad_output_format, acc):
    """(x's value shape, weight's value shape) after linear()'s checks, from shapes alone."""
    from softfloat.torch.linear import _Settings
    x_shape, input_format = _fake_operand(x, input_format, "x")
    w_shape, weight_format = _fake_operand(weight, weight_format, "weight")
    if bias is not None:
        _tensors.check_float_tensor(bias, "linear", "bias")
    if len(w_shape) != 2 or len(x_shape) < 1 or x_shape[-1] != w_shape[1]:
        raise ValueError(f"softfloat.torch.linear: x of shape {tuple(x_shape)} and weight of shape "
                         f"{tuple(w_shape)} do not fit (x's last axis must equal weight's second)")
    _Settings(weight_format, input_format, grad_output_format, acc, "linear")
    return x_shape, w_shape


@torch.library.custom_op("softfloat::linear", mutates_args=())
def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor], weight_format: Optional[str],
           input_format: Optional[str], grad_output_format: Optional[str], acc: str) -> Tensor:
    from softfloat.torch.linear import linear_values
    return linear_values(x, weight, bias, weight_format, input_format, grad_output_format, acc)


@linear.register_fake
@_fake
def _(x, weight, bias, weight_format, input_format, grad_output_format, acc):
    x_shape, w_shape = _fake_linear(x, weight, bias, weight_format, input_format, grad_output_format, acc)
    return x.new_empty((*x_shape[:-1], w_shape[0]), dtype=_tensors.value_dtype(x))


@torch.library.custom_op("softfloat::linear_backward", mutates_args=())
def linear_backward(grad: Tensor, x: Tensor, weight: Tensor, weight_format: Optional[str],
                    input_format: Optional[str], grad_output_format: Optional[str], acc: str, need_x: bool,
                    need_w: bool) -> List[Tensor]:
    """[grad_x, grad_w]; an unneeded one is an empty tensor (a custom op returns tensors)."""
    from softfloat.torch.linear import linear_gradients
    grad_x, grad_w = linear_gradients(grad, x, weight, weight_format, input_format, grad_output_format, acc, need_x,
                                      need_w)
    return [grad_x if need_x else x.new_empty(0), grad_w if need_w else weight.new_empty(0)]


@linear_backward.register_fake
@_fake
def _(grad, x, weight, weight_format, input_format, grad_output_format, acc, need_x, need_w):
    x_shape, w_shape = _fake_linear(x, weight, None, weight_format, input_format, grad_output_format, acc)
    return [x.new_empty(x_shape if need_x else 0, dtype=_tensors.value_dtype(x)),
            weight.new_empty(w_shape if need_w else 0, dtype=_tensors.value_dtype(weight))]


def _linear_setup(ctx, inputs, output):
    x, weight, bias, weight_format, input_format, grad_output_format, acc = inputs
    ctx.specs = (weight_format, input_format, grad_output_format, acc)
    ctx.has_bias = bias is not None
    ctx.save_for_backward(x, weight)


def _linear_backward(ctx, grad):
    from softfloat.torch.linear import as_rows
    x, weight = ctx.saved_tensors
    need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    grad_x = grad_w = grad_b = None
    if need_x or need_w:
        grad_x, grad_w = torch.ops.softfloat.linear_backward(grad, x, weight, *ctx.specs, need_x, need_w)
    if ctx.has_bias and ctx.needs_input_grad[2]:
        grad_b = as_rows(grad.to(torch.float32)).sum(0)
    return (grad_x if need_x else None, grad_w if need_w else None, grad_b, None, None, None, None)


linear.register_autograd(_linear_backward, setup_context=_linear_setup)
