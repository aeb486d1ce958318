"""softfloat.torch.quantize(x, ..., out=x): in place gives the out-of-place bits; an `out`
that is another view of x's memory (another dtype, or shifted) is refused with a
ValueError naming the function, as the C++ array functions refuse it."""
import re

import pytest
import torch

import softfloat.torch as sft


def values(n=4099):
    """Normal values over E4M3's range and beyond, with NaNs of two payloads among them."""
    generator = torch.Generator().manual_seed(4)
    x = torch.randn(n, generator=generator) * 300
    nans = torch.tensor([0x7F800001, 0xFFC12345 - (1 << 32)], dtype=torch.int32).view(torch.float32)
    x[::7] = nans.repeat(n)[: x[::7].numel()]
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("fmt", ["e4m3", "bf16", "e2m1", "fp16"])
def test_in_place_equals_out_of_place(dtype, fmt):
    x = values().to(dtype)
    expected = sft.quantize(x, fmt)
    y = x.clone()
    result = sft.quantize(y, fmt, out=y)
    assert result.data_ptr() == y.data_ptr()
    bits = {torch.float32: torch.int32, torch.float64: torch.int64, torch.float16: torch.int16,
            torch.bfloat16: torch.int16}[dtype]
    assert torch.equal(y.view(bits), expected.view(bits))


def test_overlapping_out_is_refused():
    x = values(64)
    halves = x.view(torch.float16)[:64]  # x's first 128 bytes, as float16
    with pytest.raises(ValueError, match=r"softfloat\.torch\.quantize: the output overlaps the input, whose elements "
                                         r"have 4 bytes"):
        sft.quantize(x, "bf16", out_dtype=torch.float16, out=halves)
    storage = torch.zeros(65)
    with pytest.raises(ValueError, match=r"softfloat\.torch\.quantize: the output overlaps the input without starting"):
        sft.quantize(storage[:64], "bf16", out=storage[1:])


def test_torch_1_is_refused():
    from softfloat.torch._version import require_supported_torch

    for supported in ("2.13.0+cpu", "2.13.0", "2.1.0", "2.14.0a0+git1234", "3.0.0"):
        require_supported_torch(supported)
    for old, message in (("1.13.1", "torch 1.13.1"), ("2.0.1+cu118", "torch 2.0.1+cu118")):
        with pytest.raises(ImportError, match=r"needs torch 2\.1 or newer; this environment has " + re.escape(message)):
            require_supported_torch(old)
    with pytest.raises(ImportError, match="cannot read torch's version 'nightly'"):
        require_supported_torch("nightly")
