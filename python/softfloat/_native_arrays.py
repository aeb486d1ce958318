"""softfloat.encode / softfloat.decode: NumPy arrays in the dtypes that hold a format's
encoding (ml_dtypes' float8_e4m3fn, bfloat16, float4_e2m1fn, ... where ml_dtypes is
installed; NumPy's float16, float32 and float64 always), in and out.

quantize and dequantize keep returning and taking integer codes; these two are the same
conversions with the codes handed out in the peer's dtype wherever one exists (the table
of _native_dtypes.py), so that ml_dtypes arrays go straight into JAX or NumPy code that
expects them. The values are always our own: an ml_dtypes array is read by its bits,
never through ml_dtypes' casts.
"""
import numpy as np

from softfloat import _core
from softfloat import _native_dtypes as native_dtypes

__all__ = ["encode", "decode"]

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _exact_values(array):
    """The float32 values of an array of a format's own dtype (float16, ml_dtypes' floats),
    decoded from its codes (every such value is a float32, and a NaN keeps its payload,
    which a cast through ml_dtypes would not); None for float32, float64 and any dtype that
    is not a format's. round_trip and quantize read such arrays through it."""
    array = np.asarray(array)
    if array.dtype in (np.float32, np.float64):
        return None
    fmt = native_dtypes.numpy_format(array.dtype)
    if fmt is None:
        return None
    return _core.dequantize(np.ascontiguousarray(array).view(_UNSIGNED[array.dtype.itemsize]), fmt)


def _values(array):
    """float32 or float64 values of an array: NumPy's floats as they are, a format's own
    dtype decoded exactly (_exact_values)."""
    array = np.asarray(array)
    if array.dtype in (np.float32, np.float64):
        return array
    values = _exact_values(array)
    if values is None:
        raise TypeError(f"softfloat.encode: the array must hold float32 or float64 values, or a format's own dtype "
                        f"({', '.join(('float16',) + native_dtypes.ML_DTYPES)}), got {array.dtype}")
    return values


def encode(array, format, rounding="nearest_even", saturate=False, seed=None, *, offset=0, as_codes=False):
    """quantize()'s codes in the NumPy dtype whose storage they are: ml_dtypes.float8_e4m3fn
    for "e4m3", bfloat16 for "bf16", float4_e2m1fn (one value a byte) for "e2m1",
    numpy.float16 for "fp16", ... (ml_dtypes where installed). Formats without such a
    dtype, and every format with as_codes=True, give quantize()'s unsigned integer codes.
    The input may be float32, float64 or any of those dtypes (read exactly)."""
    codes = _core.quantize(_values(array), format, rounding, saturate, seed, offset=offset)
    native = None if as_codes else native_dtypes.numpy_dtype(format)
    return codes if native is None else codes.view(native)


def decode(codes, format=None, dtype=np.float32):
    """dequantize() of an array of a format's own dtype (format may then be left out and
    must otherwise name the same format) or of integer codes (format required)."""
    codes = np.asarray(codes)
    native = native_dtypes.numpy_format(codes.dtype)
    if native is not None:
        if format is not None and _core.format_name(format) != native:
            raise TypeError(f"softfloat.decode: a {codes.dtype} array holds {native} codes, not "
                            f"{_core.format_name(format)}")
        return _core.dequantize(np.ascontiguousarray(codes).view(_UNSIGNED[codes.dtype.itemsize]), native,
                                dtype=dtype)
    if format is None:
        raise TypeError(f"softfloat.decode: integer codes ({codes.dtype}) need the format, e.g. decode(codes, 'e4m3')")
    return _core.dequantize(codes, format, dtype=dtype)
