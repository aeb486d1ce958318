"""Exact emulation of low-precision floating-point formats on NumPy arrays.

The functions live in the compiled module softfloat._core and are re-exported here
under the names the NumPy module always had (round_trip, quantize, dequantize,
mx_quantize, nvfp4_quantize, matmul, format_info, ...). The PyTorch layer is the
subpackage softfloat.torch, imported only on request: `import softfloat` needs NumPy,
not torch.
"""
from softfloat import _core

# Every name of the compiled module, the private ones included (the reference paths
# _scalar_quantize and _scalar_dequantize, the torch layer's buffer entry points), so
# that `softfloat.X` is what it was when softfloat was a single compiled file. Named one
# by one so that type checkers see them (their types: _core.pyi); test_package.py and
# test_typing.py check that none is missing.
from softfloat._core import (
    FormatInfo,
    dequantize,
    format_info,
    format_name,
    matmul,
    matmul_path,
    matmul_summation,
    mx_dequantize,
    mx_elements,
    mx_matmul,
    mx_matmul_path,
    mx_quantize,
    mx_round_trip,
    mx_scale_rules,
    named_formats,
    num_threads,
    nvfp4_dequantize,
    nvfp4_quantize,
    nvfp4_round_trip,
    pack_codes,
    quantize,
    round_trip,
    rounding_modes,
    set_matmul_summation,
    set_num_threads,
    simulate_ring_all_reduce,
    unpack_codes,
)

# The private ones stay out of __all__; `X as X` tells a type checker that they are
# re-exported all the same (PEP 484).
from softfloat._core import (
    _dequantize_buffer as _dequantize_buffer,
    _mx_dequantize_buffer as _mx_dequantize_buffer,
    _mx_quantize_buffer as _mx_quantize_buffer,
    _mx_round_trip_buffer as _mx_round_trip_buffer,
    _nvfp4_dequantize_buffer as _nvfp4_dequantize_buffer,
    _nvfp4_quantize_buffer as _nvfp4_quantize_buffer,
    _nvfp4_round_trip_buffer as _nvfp4_round_trip_buffer,
    _quantize_buffer as _quantize_buffer,
    _round_trip_buffer as _round_trip_buffer,
    _scalar_dequantize as _scalar_dequantize,
    _scalar_quantize as _scalar_quantize,
)

# Codes in the dtypes that hold them (ml_dtypes' where installed, NumPy's own float16/32/64).
from softfloat._native_arrays import decode, encode

__doc__ = _core.__doc__ + "\n\n" + __doc__  # noqa: A001 (the compiled module's summary first)
__version__ = _core.__version__

__all__ = [
    # formats
    "FormatInfo", "format_info", "format_name", "named_formats", "rounding_modes",
    # arrays: rounding, codes and their packing
    "round_trip", "quantize", "dequantize", "pack_codes", "unpack_codes", "encode", "decode",
    # block scaling: OCP MX and NVFP4
    "mx_quantize", "mx_dequantize", "mx_round_trip", "mx_elements", "mx_scale_rules",
    "nvfp4_quantize", "nvfp4_dequantize", "nvfp4_round_trip",
    # products
    "mx_matmul", "mx_matmul_path", "matmul", "matmul_path", "matmul_summation", "set_matmul_summation",
    # threads and the cost model
    "num_threads", "set_num_threads", "simulate_ring_all_reduce",
]
