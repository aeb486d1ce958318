"""Tensors in and out of the compiled conversions, with no NumPy and no copy.

A contiguous CPU tensor is handed to softfloat._core by address (tensor.data_ptr()) and
its result written straight into the tensor allocated for it; a non-contiguous one is
made contiguous once first (tensor.contiguous(), one copy). Every check that the
compiled side does not repeat happens here: tensor type, device, layout, dtype, the
sizes of `out=`.
"""
import contextvars
import operator

import numpy as np
import torch

from softfloat import _core
from softfloat import _native_dtypes as native_dtypes

__all__ = ["FLOAT_TYPES", "CODE_TYPES", "CODE_NAMES", "ACCEPTED_FLOATS", "check_tensor", "check_float_tensor", "check_float_dtype",
           "format_info", "is_stochastic", "resolve_seed", "to_op_int", "from_op_int", "new_tensor", "contiguous_input", "checked_out",
           "round_trip", "code_dtype", "encode", "decode", "code_tensor", "float_values", "compiling", "checking_shapes_only", "check_value_tensor", "value_dtype",
           "checked_codes", "check_pairs"]

# The value dtypes and their names in the compiled module.
FLOAT_TYPES = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
}
# Integer dtypes that hold codes, by size: uint8 up to 8 bits, then the bit patterns of
# the 16-, 32- and 64-bit codes as int16 / int32 / int64 (torch 1.13 has no unsigned
# 16-, 32- or 64-bit type).
CODE_TYPES = {torch.uint8: 1, torch.int8: 1, torch.int16: 2, torch.int32: 4, torch.int64: 8}
# decode also takes torch's unsigned 16-, 32- and 64-bit dtypes (torch 2.3 and newer).
CODE_TYPES.update({getattr(torch, name): size for name, size in (("uint16", 2), ("uint32", 4), ("uint64", 8))
                   if hasattr(torch, name)})
CODE_NAMES = ", ".join(str(dtype).removeprefix("torch.") for dtype in CODE_TYPES)
ACCEPTED_FLOATS = "float32, float64, float16 or bfloat16"
# The integer dtype viewing a native dtype's storage, by element size.
_STORAGE_CODES = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


# Whether torch.compile is tracing the call: the public functions then call the custom
# ops of softfloat.torch.ops, which it can trace; eagerly they call the kernels directly.
compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or torch._dynamo.is_compiling


# Set while a fake kernel of softfloat.torch.ops runs: it makes the checks of a real call
# on meta tensors, which have shapes and dtypes but no memory for the kernels to read.
checking_shapes_only = contextvars.ContextVar("softfloat_checking_shapes_only", default=False)


def check_tensor(x, function, what="x"):
    """A strided CPU tensor, or TypeError / ValueError naming `function`."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"softfloat.torch.{function}: {what} must be a torch.Tensor, not {type(x).__name__}")
    if x.device.type != "cpu" and not (x.device.type == "meta" and checking_shapes_only.get()):
        raise ValueError(f"softfloat.torch.{function}: {what} is on {x.device}; softfloat computes on the CPU "
                         f"(move it with {what}.cpu())")
    if x.layout != torch.strided:
        raise ValueError(f"softfloat.torch.{function}: {what} has layout {x.layout}; dense (strided) tensors only "
                         f"(use {what}.to_dense())")


def check_float_tensor(x, function, what="x"):
    check_tensor(x, function, what)
    if x.dtype not in FLOAT_TYPES:
        raise TypeError(f"softfloat.torch.{function}: {what} must be a {ACCEPTED_FLOATS} tensor, got {x.dtype}")


def check_float_dtype(dtype, function, what="dtype"):
    if dtype not in FLOAT_TYPES:
        raise TypeError(f"softfloat.torch.{function}: {what} must be torch.float32, torch.float64, torch.float16 or "
                        f"torch.bfloat16, not {dtype!r}")
    return dtype


def format_info(fmt, function):
    """softfloat.format_info(fmt), with the calling function named in its error."""
    if not isinstance(fmt, str):
        raise TypeError(f"softfloat.torch.{function}: the format must be a spec string such as 'e4m3', "
                        f"not {type(fmt).__name__}")
    try:
        return _core.format_info(fmt)
    except ValueError as error:
        raise ValueError(f"softfloat.torch.{function}: {error}") from None


def is_stochastic(rounding):
    return rounding in ("stochastic", "stochastic_equal")


_UINT64_RANGE = 1 << 64


def to_op_int(value, function, name):
    """A seed or offset (None, or an int in [0, 2**64)) as a custom op's argument, which
    torch's schema holds as int64: checked with the eager call's message, and values of
    2**63 or more handed over as value - 2**64. Inside the op, from_op_int adds 2**64
    back, so a negative value there is always one of those. Worked value: 2**64 - 1
    crosses as -1."""
    if value is None:
        return None
    value = operator.index(value)
    if not 0 <= value < _UINT64_RANGE:
        raise ValueError(f"softfloat.torch.{function}: {name} must lie in [0, 2**64), not {value}")
    return value - _UINT64_RANGE if value >= _UINT64_RANGE // 2 else value


def from_op_int(value):
    """to_op_int's value back: the seed or offset as the caller gave it."""
    return value + _UINT64_RANGE if value is not None and value < 0 else value


def resolve_seed(seed, rounding):
    """The seed of a stochastic rounding: as given, or drawn from torch's default
    generator, so that torch.manual_seed makes a run reproducible."""
    if seed is not None or not is_stochastic(rounding):
        return seed
    return int(torch.randint(0, 2**62, (1,), dtype=torch.int64).item())


_NUMPY_STORAGE = {torch.float32: np.float32, torch.float64: np.float64, torch.float16: np.float16,
                  torch.bfloat16: np.int16, torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16,
                  torch.int32: np.int32, torch.int64: np.int64}


def new_tensor(shape, dtype):
    """An uninitialised contiguous CPU tensor whose memory NumPy allocates: for large
    arrays NumPy asks the kernel for transparent huge pages, so writing a fresh result
    costs a few page faults instead of one per 4 KiB (half the time of a 64 MiB result
    on the machines measured). The tensor owns the array through torch.from_numpy."""
    array = np.empty(tuple(shape), dtype=_NUMPY_STORAGE[dtype])
    tensor = torch.from_numpy(array)
    return tensor.view(torch.bfloat16) if dtype == torch.bfloat16 else tensor


def contiguous_input(x):
    """x's values, contiguous (x itself when it is), without autograd history."""
    x = x.detach()
    return x if x.is_contiguous() else x.contiguous()


def checked_out(out, shape, dtype, function):
    check_tensor(out, function, "out")
    if out.shape != shape or out.dtype != dtype:
        raise ValueError(f"softfloat.torch.{function}: out must have shape {tuple(shape)} and dtype {dtype}; "
                         f"got {tuple(out.shape)} and {out.dtype}")
    if not out.is_contiguous():
        raise ValueError(f"softfloat.torch.{function}: out must be contiguous")
    if out.requires_grad and torch.is_grad_enabled():
        raise ValueError(f"softfloat.torch.{function}: out requires grad; write into it under torch.no_grad()")
    return out


def round_trip(x, fmt, rounding="nearest_even", saturate=False, seed=None, offset=0, *, out_dtype=None, out=None,
               function="quantize"):
    """Fake quantization of a float tensor, no autograd: a new tensor (or `out`). A tensor
    of a format's own dtype (float8_*, float4_e2m1fn_x2) is read as its exact values and
    gives float32 unless out_dtype says otherwise."""
    x = float_values(x, function)
    dtype = x.dtype if out_dtype is None else check_float_dtype(out_dtype, function, "out_dtype")
    source = contiguous_input(x)
    result = new_tensor(x.shape, dtype) if out is None else checked_out(out, x.shape, dtype, function)
    n = source.numel()
    if n:
        _core._round_trip_buffer(source.data_ptr(), FLOAT_TYPES[source.dtype], result.data_ptr(), FLOAT_TYPES[dtype],
                                 n, fmt, rounding, bool(saturate), resolve_seed(seed, rounding), offset)
    return result


def code_dtype(bits):
    if bits <= 8:
        return torch.uint8
    if bits <= 16:
        return torch.int16
    if bits <= 32:
        return torch.int32
    return torch.int64


def encode(x, fmt, rounding="nearest_even", saturate=False, seed=None, offset=0, *, as_codes=False):
    """x's values rounded into `fmt`, in torch's own dtype for that format where torch has
    one (native_dtypes.py's table: float8_e4m3fn for e4m3, float8_e5m2, float8_e4m3fnuz,
    float8_e5m2fnuz, float8_e8m0fnu for e8m0, bfloat16, float16, float32, float64, and
    float4_e2m1fn_x2 for e2m1, two values a byte along the last axis, element 0 in the
    low nibble, so the last axis must be even). Other formats, and every format with
    as_codes=True, give the integer codes: uint8 up to 8 bits, else the 16-, 32- or 64-bit
    patterns as int16 / int32 / int64. Same shape as x (float4_e2m1fn_x2: the last axis
    halved); not differentiable."""
    if compiling():
        return torch.ops.softfloat.encode(x, fmt, rounding, bool(saturate), to_op_int(seed, "encode", "seed"),
                                          to_op_int(offset, "encode", "offset"), bool(as_codes))
    x = float_values(x, "encode")
    info = format_info(fmt, "encode")
    native = None if as_codes else native_dtypes.torch_dtype(fmt)
    if native is not None and native[1] == 2:
        return _encode_pairs(x, fmt, rounding, saturate, seed, offset, native[0])
    source = contiguous_input(x)
    dtype = code_dtype(info.bits)
    codes = new_tensor(x.shape, dtype)
    n = source.numel()
    if n:
        _core._quantize_buffer(source.data_ptr(), FLOAT_TYPES[source.dtype], codes.data_ptr(), codes.element_size(),
                               n, fmt, rounding, bool(saturate), resolve_seed(seed, rounding), offset)
    return codes if native is None else codes.view(native[0])


def _encode_pairs(x, fmt, rounding, saturate, seed, offset, dtype):
    """Codes of four bits packed two a byte along the last axis (float4_e2m1fn_x2)."""
    check_pairs(x.shape, dtype)
    source = contiguous_input(x)
    if source.dtype not in (torch.float32, torch.float64):
        source = source.to(torch.float32)  # exact for float16 and bfloat16
    packed = _core.quantize(source.numpy(), fmt, rounding, bool(saturate), resolve_seed(seed, rounding),
                            offset=offset, packed=True)
    return torch.from_numpy(packed).view(dtype).reshape(*x.shape[:-1], x.shape[-1] // 2)


def decode(codes, fmt=None, dtype=torch.float32):
    """The values of `codes` as a float tensor of `dtype`: exact for float32 wherever
    float32 holds the format's values, and for float64 up to 53 significant bits; float16
    and bfloat16 round each value once to nearest even.

    codes is either a tensor of torch's own dtype for a format (float8_e4m3fn,
    float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn_x2,
    bfloat16, float16, ...), whose format fmt may then omit and must otherwise name, or an
    integer tensor (uint8, int8, int16, int32, int64, uint16, uint32, uint64) of code bit patterns, which needs
    fmt. A code with bits above the format's width raises ValueError (never silently
    truncated)."""
    if compiling():
        return torch.ops.softfloat.decode(codes, fmt, dtype)
    codes, fmt = checked_codes(codes, fmt, dtype)
    size = CODE_TYPES[codes.dtype]
    source = contiguous_input(codes)
    values = new_tensor(codes.shape, dtype)
    n = source.numel()
    if n:
        _core._dequantize_buffer(source.data_ptr(), size, values.data_ptr(), FLOAT_TYPES[dtype], n, fmt)
    return values


def checked_codes(codes, fmt, dtype):
    """decode's arguments checked: (integer codes, format), as code_tensor gives them, wide
    enough for the format. Shapes and dtypes only (the fake kernel of decode calls it on
    meta tensors too)."""
    check_tensor(codes, "decode", "codes")
    check_float_dtype(dtype, "decode")
    codes, fmt = code_tensor(codes, fmt, "decode")
    info = format_info(fmt, "decode")
    if 8 * CODE_TYPES[codes.dtype] < info.bits:
        raise ValueError(f"softfloat.torch.decode: {info.name} codes have {info.bits} bits and do not fit "
                         f"{codes.dtype}")
    return codes, fmt


def check_pairs(shape, dtype):
    """A shape whose last axis float4_e2m1fn_x2 can hold two values a byte along."""
    if not shape or shape[-1] % 2:
        raise ValueError(f"softfloat.torch.encode: {dtype} holds two values a byte along the last axis, which must "
                         f"be even; x has shape {tuple(shape)} (as_codes=True gives one uint8 code a value)")


def code_tensor(codes, fmt, function):
    """(integer codes, format) of a tensor given to `function` as codes: a native dtype's
    storage viewed as integers (float4_e2m1fn_x2 unpacked to one uint8 a value), its
    format checked against fmt; an integer tensor as it is, with fmt required."""
    native = native_dtypes.torch_format(codes.dtype)
    if native is not None:
        name, per_element = native
        if fmt is not None and format_info(fmt, function).name != name:
            raise TypeError(f"softfloat.torch.{function}: a {codes.dtype} tensor holds {name} codes, not "
                            f"{format_info(fmt, function).name}; convert it with softfloat.torch.quantize, or "
                            f"view its bytes as integer codes")
        storage = _STORAGE_CODES[codes.element_size()]
        if per_element == 2:
            packed = contiguous_input(codes).view(torch.uint8)
            unpacked = torch.stack((packed & 0xF, packed >> 4), dim=-1)
            return unpacked.reshape(*codes.shape[:-1], 2 * codes.shape[-1]) if codes.dim() else unpacked, name
        return codes.view(storage), name
    if codes.dtype not in CODE_TYPES:
        raise TypeError(f"softfloat.torch.{function}: codes must be a tensor of a format's own dtype "
                        f"({', '.join(native_dtypes.TORCH_DTYPES)}) or of integer codes ({CODE_NAMES}), "
                        f"got {codes.dtype}")
    if fmt is None:
        raise TypeError(f"softfloat.torch.{function}: integer codes ({codes.dtype}) need the format, "
                        f"e.g. {function}(codes, 'e4m3')")
    return codes, fmt


def check_value_tensor(x, function, what="x"):
    """A tensor of values: float32, float64, float16, bfloat16, or a format's own dtype
    (float8_*, float4_e2m1fn_x2); anything else raises TypeError naming `function`."""
    check_tensor(x, function, what)
    if x.dtype in FLOAT_TYPES or native_dtypes.torch_format(x.dtype) is not None:
        return x
    others = ", ".join(name for name in native_dtypes.TORCH_DTYPES if name not in FLOAT_TYPES.values())
    raise TypeError(f"softfloat.torch.{function}: {what} must be a {ACCEPTED_FLOATS} tensor or one of a format's own "
                    f"dtype ({others}), got {x.dtype}")


def value_dtype(x):
    """The dtype of x's values: its own float dtype, float32 for a format's own dtype."""
    return x.dtype if x.dtype in FLOAT_TYPES else torch.float32


def float_values(x, function, what="x"):
    """x as a tensor of values (check_value_tensor): float32, float64, float16 and
    bfloat16 as they are; a format's own dtype decoded exactly to float32."""
    check_value_tensor(x, function, what)
    return x if x.dtype in FLOAT_TYPES else decode(x)
