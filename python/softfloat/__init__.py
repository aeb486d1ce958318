"""Exact emulation of low-precision floating-point formats on NumPy arrays.

The functions live in the compiled module softfloat._core and are re-exported here
under the names the NumPy module always had (round_trip, quantize, dequantize,
mx_quantize, nvfp4_quantize, matmul, format_info, ...). The PyTorch layer is the
subpackage softfloat.torch, imported only on request: `import softfloat` needs NumPy,
not torch.
"""
from softfloat import _core

__doc__ = _core.__doc__ + "\n\n" + __doc__  # noqa: A001 (the compiled module's summary first)
__version__ = _core.__version__

# Every name of the compiled module, the private reference paths (_scalar_quantize,
# _scalar_dequantize) included, so that `softfloat.X` is what it was when softfloat
# was a single compiled file.
for _name in dir(_core):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_core, _name)
del _name

__all__ = [name for name in dir(_core) if not name.startswith("_")]
