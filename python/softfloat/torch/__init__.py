"""softfloat for PyTorch: exact fake quantization, codes, MX and NVFP4 blocks, scaling
recipes, quantized layers and low-precision optimizers for CPU tensors.

    import softfloat.torch as sft
    y = sft.quantize(x, "e4m3")                 # x's dtype and shape, differentiable
    q = sft.encode(x, "e4m3")                   # a torch.float8_e4m3fn tensor
    z = sft.decode(q)                           # float32 values
    codes = sft.encode(x, "e3m2", as_codes=True)  # uint8 codes (formats torch has no dtype for, too)
    elements, scales = sft.mx_encode(x, "mxfp8_e4m3")  # float8_e4m3fn, float8_e8m0fnu

Everything calls the compiled module softfloat._core on the tensors' memory (nothing is
compiled at import). softfloat.torch.distributed puts gradients on the wire in any
format (a DDP communication hook and an all-reduce). Needs torch 2 (2.1 or newer); the
tests run torch 2.13, which pyproject.toml's extra `torch` asks for. torch 1 is refused
at import.
"""
import torch as _torch  # noqa: F401 (a clear ImportError here when torch is missing)

from softfloat.torch._version import require_supported_torch as _require_supported_torch

_require_supported_torch(_torch.__version__)

from softfloat.torch._tensors import decode, encode
from softfloat.torch.block_codes import MXEncoding, NVFP4Encoding, mx_decode, mx_encode, nvfp4_decode, nvfp4_encode
from softfloat.torch.blocks import mx_quantize, nvfp4_quantize
from softfloat.torch.fake_quantize import Quantize, quantize
from softfloat.torch.linear import Linear, convert, linear, matmul
from softfloat.torch.optim import LowPrecisionOptimizer
from softfloat.torch.scaling import BlockScaling, CurrentScaling, DelayedScaling, RowScaling
from softfloat.torch import recipes
from softfloat.torch.recipe_layers import BatchedMatmul, Conv1d, Conv2d, Embedding
from softfloat.torch import ops  # registers the torch.library ops that torch.compile traces

if _torch.distributed.is_available():  # torch builds without it keep the rest
    from softfloat.torch import distributed

__all__ = ["quantize", "encode", "decode", "Quantize", "mx_quantize", "nvfp4_quantize", "mx_encode", "mx_decode",
           "nvfp4_encode", "nvfp4_decode", "MXEncoding", "NVFP4Encoding", "linear", "matmul",
           "Linear", "convert", "LowPrecisionOptimizer", "CurrentScaling", "DelayedScaling", "RowScaling", "BlockScaling",
           "recipes", "Conv1d", "Conv2d", "Embedding", "BatchedMatmul"]
