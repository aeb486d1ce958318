"""MX and NVFP4 blocks as the tensors torch and torchao keep them: mx_encode / mx_decode
and nvfp4_encode / nvfp4_decode.

Elements come out in torch's own dtypes: float8_e4m3fn or float8_e5m2 for MXFP8,
float4_e2m1fn_x2 for FP4 (two values a byte along the blocks' axis, element 0 in the low
nibble, as torchao's pack_uint4), one uint8 code a value for FP6 (as torchao keeps it),
int8 for MXINT8. Scales are float8_e8m0fnu (MX) or float8_e4m3fn (NVFP4, with the
tensor's fp32 amax). By default the scales are plain rows, one per block in the
elements' layout; scale_layout="blocked" gives torchao's and cuBLAS's blocked layout
(to_blocked in torchao/prototype/mx_formats/utils.py: the scales of the last axis as a
(rows, blocks) matrix, padded to 128 x 4 tiles, each tile stored as 32 x 16, flattened).

The arithmetic is softfloat.mx_quantize's and softfloat.nvfp4_quantize's, bit for bit:
these functions only move bytes between those results and torch's dtypes.
"""
from typing import NamedTuple

import numpy as np
import torch

from softfloat import _core
from softfloat.torch import _tensors
from softfloat.torch import blocks

__all__ = ["MXEncoding", "NVFP4Encoding", "mx_encode", "mx_decode", "nvfp4_encode", "nvfp4_decode", "to_blocked",
           "from_blocked", "SCALE_LAYOUTS"]

SCALE_LAYOUTS = ("rows", "blocked")
# 2688 = 448 * 6: E4M3's largest scale times E2M1's largest element (softfloat/nvfp4.hpp).
_NVFP4_RANGE = 448.0 * 6.0


class MXEncoding(NamedTuple):
    """An MX tensor: elements and one E8M0 scale per block."""
    elements: torch.Tensor
    scales: torch.Tensor


class NVFP4Encoding(NamedTuple):
    """An NVFP4 tensor: E2M1 elements, one E4M3 scale per 16 values, the tensor's amax."""
    elements: torch.Tensor
    scales: torch.Tensor
    tensor_amax: torch.Tensor

    @property
    def tensor_scale(self):
        """The fp32 tensor-wide decode scale amax / 2688 (torchao's per_tensor_scale).
        nvfp4_decode multiplies by the amax as TransformerEngine does,
        ((scale * amax) * float(1/2688)), not by this rounded quotient."""
        return self.tensor_amax / _NVFP4_RANGE


_ELEMENT_DTYPES = {"mxfp8_e4m3": torch.float8_e4m3fn, "mxfp8_e5m2": torch.float8_e5m2, "mxint8": torch.int8,
                   "mxfp6_e3m2": torch.uint8, "mxfp6_e2m3": torch.uint8}
_FP4 = getattr(torch, "float4_e2m1fn_x2", None)  # torch 2.8 and newer
_E8M0 = getattr(torch, "float8_e8m0fnu", None)  # torch 2.7 and newer
if _FP4 is not None:
    _ELEMENT_DTYPES["mxfp4_e2m1"] = _FP4
_BITS = {"mxfp6_e3m2": 6, "mxfp6_e2m3": 6, "mxfp4_e2m1": 4}


def _scale_layout(layout, axis, dim, function):
    if layout not in SCALE_LAYOUTS:
        raise ValueError(f"softfloat.torch.{function}: scale_layout must be one of {', '.join(SCALE_LAYOUTS)}, "
                         f"not {layout!r}")
    if layout == "blocked" and axis != dim - 1:
        raise ValueError(f"softfloat.torch.{function}: the blocked scale layout is that of blocks along the last "
                         f"axis; axis {axis} of a {dim}-d tensor is not")
    return layout


def _ceil_div(a, b):
    return -(-a // b)


def to_blocked(scales):
    """torchao's to_blocked: a (rows, cols) scale matrix padded with zeros to 128 x 4
    tiles, each tile stored as 32 x 16 (row r of the tile at (r % 32, 4 * (r // 32))),
    flattened. Element 0 of the result is scale (0, 0), element 4 is scale (32, 0)."""
    rows, cols = scales.shape
    row_tiles, col_tiles = _ceil_div(rows, 128), _ceil_div(cols, 4)
    padded = scales.new_zeros((row_tiles * 128, col_tiles * 4))
    padded[:rows, :cols] = scales
    tiles = padded.view(row_tiles, 128, col_tiles, 4).permute(0, 2, 1, 3)
    return tiles.reshape(-1, 4, 32, 4).transpose(1, 2).reshape(-1).contiguous()


def from_blocked(blocked, rows, cols):
    """The (rows, cols) scale matrix of to_blocked's result."""
    row_tiles, col_tiles = _ceil_div(rows, 128), _ceil_div(cols, 4)
    if blocked.numel() != row_tiles * col_tiles * 512:
        raise ValueError(f"softfloat.torch: blocked scales of a {rows} x {cols} scale matrix have "
                         f"{row_tiles * col_tiles * 512} elements; got {blocked.numel()}")
    tiles = blocked.reshape(row_tiles * col_tiles, 32, 4, 4).transpose(1, 2)
    padded = tiles.reshape(row_tiles, col_tiles, 128, 4).permute(0, 2, 1, 3).reshape(row_tiles * 128, col_tiles * 4)
    return padded[:rows, :cols].contiguous()


def _blocked_scales(scales):
    """Row scales (..., blocks) in torchao's blocked layout."""
    return to_blocked(scales.reshape(-1, scales.shape[-1]))


def _row_scales(scales, shape, layout, function):
    """Scales as rows of the given (..., blocks) shape, from either layout."""
    if layout == "blocked":
        rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        return from_blocked(scales.reshape(-1), rows, shape[-1]).reshape(shape)
    if scales.shape != shape:
        raise ValueError(f"softfloat.torch.{function}: scales have shape {tuple(scales.shape)} (blocks' axis "
                         f"last); the elements need {tuple(shape)}")
    return scales


def _unpack_six_bit_rows(packed, length):
    """One uint8 code a value from rows of 6-bit codes packed as softfloat packs them (a
    little-endian bit stream per row, four codes in three bytes). Each row is padded to
    a multiple of three bytes so that all rows form one stream."""
    rows = packed.reshape(-1, packed.shape[-1])
    whole = _ceil_div(rows.shape[1], 3) * 3
    padded = np.zeros((rows.shape[0], whole), np.uint8)
    padded[:, :rows.shape[1]] = rows
    codes = _core.unpack_codes(padded.reshape(-1), 6).reshape(rows.shape[0], whole // 3 * 4)
    return codes[:, :length].reshape(*packed.shape[:-1], length)


def _pack_six_bit_rows(codes):
    """The inverse of _unpack_six_bit_rows: rows of one code a byte packed row by row."""
    rows = codes.reshape(-1, codes.shape[-1])
    length = rows.shape[1]
    whole = _ceil_div(length, 4) * 4
    padded = np.zeros((rows.shape[0], whole), np.uint8)
    padded[:, :length] = rows
    packed = _core.pack_codes(padded.reshape(-1), 6).reshape(rows.shape[0], whole // 4 * 3)
    return np.ascontiguousarray(packed[:, :_ceil_div(length * 6, 8)]).reshape(*codes.shape[:-1], -1)


def _element_name(element, function):
    return blocks.check_mx_element(element, function)


def _back(t, axis, dim):
    return t if axis == dim - 1 else t.movedim(-1, axis).contiguous()


def mx_encode(x, element, block_size=32, axis=-1, scale_rule="floor", rounding="nearest_even", seed=None, offset=0,
              *, scale_layout="rows"):
    """x in OCP MX blocks of `block_size` values along `axis`: MXEncoding(elements, scales).

    Elements keep x's shape (FP4: halved along `axis`, which must be even, two values a
    byte) in the dtype of the module docstring; scales are float8_e8m0fnu of x's shape
    with `axis` counting blocks, or with scale_layout="blocked" (blocks along the last
    axis only) torchao's 1-d blocked layout. element, scale_rule, rounding, seed and
    offset are softfloat.torch.mx_quantize's; mx_decode(*mx_encode(x, ...)) equals
    mx_quantize(x, ...) as float32 bit for bit."""
    element = _element_name(element, "mx_encode")
    values, axis = blocks.blocks_last(x, axis, "mx_encode")
    _scale_layout(scale_layout, axis, values.dim(), "mx_encode")
    length = values.shape[-1]
    if element == "mxfp4_e2m1" and length % 2:
        raise ValueError(f"softfloat.torch.mx_encode: FP4 elements are stored two a byte (float4_e2m1fn_x2), so the "
                         f"blocks' axis must be even; it has {length} values")
    elements, scales = _core.mx_quantize(values.numpy(), element, block_size=block_size, scale_rule=scale_rule,
                                         rounding=rounding, seed=_tensors.resolve_seed(seed, rounding), offset=offset)
    if _BITS.get(element) == 6:
        elements = _unpack_six_bit_rows(elements, length)
    elements = torch.from_numpy(np.ascontiguousarray(elements)).view(_ELEMENT_DTYPES[element])
    if _E8M0 is None:
        raise RuntimeError(f"softfloat.torch.mx_encode: torch {torch.__version__} has no float8_e8m0fnu (torch 2.7 "
                           f"and newer)")
    scales = torch.from_numpy(scales).view(_E8M0)
    if scale_layout == "blocked":
        return MXEncoding(elements, _blocked_scales(scales))
    return MXEncoding(_back(elements, axis, values.dim()), _back(scales, axis, values.dim()))


def _codes_blocks_last(elements, axis, function):
    _tensors.check_tensor(elements, function, "elements")
    if elements.dim() == 0:
        raise ValueError(f"softfloat.torch.{function}: elements are 0-d; blocks need an axis to run along")
    if not -elements.dim() <= axis < elements.dim():
        raise ValueError(f"softfloat.torch.{function}: axis {axis} is out of range for elements of "
                         f"{elements.dim()} dimensions")
    axis %= elements.dim()
    return elements.movedim(axis, -1).contiguous(), axis


def mx_decode(elements, scales, element=None, block_size=32, axis=-1, *, scale_layout="rows"):
    """The float32 values of mx_encode's result. element may be left out where the
    elements' dtype names it (float8_e4m3fn, float8_e5m2, float4_e2m1fn_x2, int8);
    uint8 FP6 codes need it."""
    by_dtype = {dtype: name for name, dtype in _ELEMENT_DTYPES.items() if dtype != torch.uint8}
    _tensors.check_tensor(elements, "mx_decode", "elements")
    _tensors.check_tensor(scales, "mx_decode", "scales")
    if element is None:
        if elements.dtype not in by_dtype:
            raise TypeError(f"softfloat.torch.mx_decode: {elements.dtype} elements need element= (for example "
                            f"'mxfp6_e3m2')")
        element = by_dtype[elements.dtype]
    element = _element_name(element, "mx_decode")
    if elements.dtype != _ELEMENT_DTYPES[element]:
        raise TypeError(f"softfloat.torch.mx_decode: {element} elements are {_ELEMENT_DTYPES[element]}, "
                        f"got {elements.dtype}")
    if scales.dtype not in (_E8M0, torch.uint8):
        raise TypeError(f"softfloat.torch.mx_decode: MX scales are float8_e8m0fnu (or their uint8 codes), "
                        f"got {scales.dtype}")
    codes, axis = _codes_blocks_last(elements, axis, "mx_decode")
    _scale_layout(scale_layout, axis, codes.dim(), "mx_decode")
    pairs = element == "mxfp4_e2m1"
    length = codes.shape[-1] * (2 if pairs else 1)
    shape = (*codes.shape[:-1], _ceil_div(length, block_size) if block_size > 0 else 0)
    if scale_layout == "rows":
        scales = scales.movedim(axis, -1).contiguous() if scales.dim() == codes.dim() else scales
    scales = _row_scales(scales.view(torch.uint8), torch.Size(shape), scale_layout, "mx_decode")
    array = codes.view(torch.uint8).numpy()
    if _BITS.get(element) == 6:
        array = _pack_six_bit_rows(array)
    values = _core.mx_dequantize(array, scales.numpy(), element, block_size=block_size, length=length)
    return _back(torch.from_numpy(values), axis, codes.dim())


def nvfp4_encode(x, axis=-1, rounding="nearest_even", seed=None, offset=0, *, scale_layout="rows"):
    """x in NVFP4 (E2M1 elements, an E4M3 scale per 16 values along `axis`, one fp32
    amax for the tensor): NVFP4Encoding(elements as float4_e2m1fn_x2, scales as
    float8_e4m3fn, tensor_amax as a 0-d float32 tensor). The blocks' axis must be a
    multiple of 16 long. nvfp4_decode(*nvfp4_encode(x, ...)) equals nvfp4_quantize(x, ...)
    as float32 bit for bit."""
    if _FP4 is None:
        raise RuntimeError(f"softfloat.torch.nvfp4_encode: torch {torch.__version__} has no float4_e2m1fn_x2 "
                           f"(torch 2.8 and newer)")
    values, axis = blocks.blocks_last(x, axis, "nvfp4_encode")
    _scale_layout(scale_layout, axis, values.dim(), "nvfp4_encode")
    elements, scales, amax = _core.nvfp4_quantize(values.numpy(), rounding=rounding,
                                                  seed=_tensors.resolve_seed(seed, rounding), offset=offset)
    elements = torch.from_numpy(elements).view(_FP4)
    scales = torch.from_numpy(scales).view(torch.float8_e4m3fn)
    amax = torch.tensor(amax, dtype=torch.float32)
    if scale_layout == "blocked":
        return NVFP4Encoding(elements, _blocked_scales(scales), amax)
    return NVFP4Encoding(_back(elements, axis, values.dim()), _back(scales, axis, values.dim()), amax)


def nvfp4_decode(elements, scales, tensor_amax, axis=-1, *, scale_layout="rows"):
    """The float32 values of nvfp4_encode's result."""
    _tensors.check_tensor(scales, "nvfp4_decode", "scales")
    if _FP4 is None or elements.dtype not in (_FP4, torch.uint8):
        raise TypeError(f"softfloat.torch.nvfp4_decode: elements are float4_e2m1fn_x2 (or their packed uint8 "
                        f"bytes), got {elements.dtype}")
    if scales.dtype not in (torch.float8_e4m3fn, torch.uint8):
        raise TypeError(f"softfloat.torch.nvfp4_decode: NVFP4 scales are float8_e4m3fn (or their uint8 codes), "
                        f"got {scales.dtype}")
    codes, axis = _codes_blocks_last(elements, axis, "nvfp4_decode")
    _scale_layout(scale_layout, axis, codes.dim(), "nvfp4_decode")
    length = 2 * codes.shape[-1]
    shape = (*codes.shape[:-1], length // 16)
    if scale_layout == "rows":
        scales = scales.movedim(axis, -1).contiguous() if scales.dim() == codes.dim() else scales
    scales = _row_scales(scales.view(torch.uint8), torch.Size(shape), scale_layout, "nvfp4_decode")
    amax = float(tensor_amax.item() if isinstance(tensor_amax, torch.Tensor) else tensor_amax)
    values = _core.nvfp4_dequantize(codes.view(torch.uint8).numpy(), scales.numpy(), amax, length=length)
    return _back(torch.from_numpy(values), axis, codes.dim())
