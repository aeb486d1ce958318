"""The dtypes that hold a format's encoding exactly, in torch and in ml_dtypes.

One table, read by softfloat.encode / decode (NumPy, with ml_dtypes where it is
installed) and softfloat.torch.encode / decode: a format whose codes are bit for bit the
storage of a peer's dtype is handed out in that dtype, and that dtype is taken back as
the format's codes. Formats are matched by their canonical name (softfloat.format_name),
so "e4m3", "e4m3:fn" and "E4M3" all find float8_e4m3fn.

Each row: format spec, torch dtype name, ml_dtypes (or NumPy) dtype name, and how many
values one element of the dtype holds (2 for torch's float4_e2m1fn_x2, packed along the
last axis with element 0 in the low nibble, as torchao's pack_uint4 and cuBLAS do).
A name the installed release lacks (float4_e2m1fn_x2 before torch 2.8) is skipped.
"""
import functools

from softfloat import _core

__all__ = ["TORCH_DTYPES", "ML_DTYPES", "torch_dtype", "torch_format", "numpy_dtype", "numpy_format",
           "values_per_element"]

#  spec          torch dtype            ml_dtypes / NumPy dtype   values per torch element
_TABLE = (
    ("fp32",      "float32",             "float32",                1),
    ("fp64",      "float64",             "float64",                1),
    ("fp16",      "float16",             "float16",                1),
    ("bf16",      "bfloat16",            "bfloat16",               1),
    ("e4m3",      "float8_e4m3fn",       "float8_e4m3fn",          1),
    ("e5m2",      "float8_e5m2",         "float8_e5m2",            1),
    ("e4m3fnuz",  "float8_e4m3fnuz",     "float8_e4m3fnuz",        1),
    ("e5m2fnuz",  "float8_e5m2fnuz",     "float8_e5m2fnuz",        1),
    ("e8m0",      "float8_e8m0fnu",      "float8_e8m0fnu",         1),
    ("e2m1",      "float4_e2m1fn_x2",    "float4_e2m1fn",          2),
    ("e3m2",      None,                  "float6_e3m2fn",          1),
    ("e2m3",      None,                  "float6_e2m3fn",          1),
    ("e3m4",      None,                  "float8_e3m4",            1),
    ("e4m3:ieee", None,                  "float8_e4m3",            1),
    ("e4m3:fnuz:bias=11", None,          "float8_e4m3b11fnuz",     1),
)
_NUMPY_NATIVE = ("float32", "float64", "float16")  # NumPy's own; the rest need ml_dtypes


def _canonical(spec):
    return _core.format_name(spec)


@functools.lru_cache(maxsize=None)
def _torch_tables():
    import torch
    by_format, by_dtype = {}, {}
    for spec, name, _, per_element in _TABLE:
        dtype = getattr(torch, name, None) if name else None
        if dtype is not None:
            by_format[_canonical(spec)] = (dtype, per_element)
            by_dtype[dtype] = (_canonical(spec), per_element)
    return by_format, by_dtype


@functools.lru_cache(maxsize=None)
def _numpy_tables():
    import numpy as np
    try:
        import ml_dtypes
    except ImportError:  # ml_dtypes is never required: NumPy's own float types remain
        ml_dtypes = None
    by_format, by_dtype = {}, {}
    for spec, _, name, _ in _TABLE:
        if name in _NUMPY_NATIVE:
            dtype = np.dtype(name)
        elif ml_dtypes is not None and hasattr(ml_dtypes, name):
            dtype = np.dtype(getattr(ml_dtypes, name))
        else:
            continue
        by_format[_canonical(spec)] = dtype
        by_dtype[dtype] = _canonical(spec)
    return by_format, by_dtype


def torch_dtype(fmt):
    """(torch dtype, values per element) holding `fmt`'s codes, or None."""
    return _torch_tables()[0].get(_canonical(fmt))


def torch_format(dtype):
    """(canonical format name, values per element) whose codes `dtype` stores, or None."""
    return _torch_tables()[1].get(dtype)


def numpy_dtype(fmt):
    """The NumPy dtype (ml_dtypes' where installed) holding `fmt`'s codes, or None."""
    return _numpy_tables()[0].get(_canonical(fmt))


def numpy_format(dtype):
    """The canonical format name whose codes NumPy dtype `dtype` stores, or None."""
    return _numpy_tables()[1].get(dtype)


def values_per_element(fmt):
    entry = torch_dtype(fmt)
    return 1 if entry is None else entry[1]


TORCH_DTYPES = tuple(row[1] for row in _TABLE if row[1])
ML_DTYPES = tuple(row[2] for row in _TABLE if row[2] not in _NUMPY_NATIVE)
