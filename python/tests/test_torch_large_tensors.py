"""A tensor of more than 2^31 elements: no count, index or offset may pass through a
32-bit integer on its way from torch to the kernel and back.

The input is an expanded view of one bfloat16 row of 4096 values, (2^19 + 1) x 4096 =
2^31 + 4096 elements, encoded to E4M3 (one byte a value). encode makes the view
contiguous (4 GiB of bfloat16) and writes 2 GiB of codes: the test needs about 6.5 GiB
of memory at its peak, so ctest runs it alone (RUN_SERIAL in python/tests/CMakeLists.txt),
within the 24 GiB of the CI machine.
"""
import pytest

torch = pytest.importorskip("torch")
import softfloat.torch as sft  # noqa: E402

ROW = 4096
ROWS = 2**19 + 1  # 2^31 + 4096 elements


def test_encode_of_more_than_two_to_the_31_elements():
    torch.manual_seed(0)
    # Every bfloat16 value class in the row: normal, subnormal in E4M3, overflowing, NaN.
    row = (torch.randn(ROW) * torch.logspace(-12, 12, ROW, base=2)).to(torch.bfloat16)
    row[:4] = torch.tensor([float("nan"), 1e6, -2.0**-10, 0.0])
    x = row.unsqueeze(0).expand(ROWS, ROW)
    assert x.numel() > 2**31 and x.stride() == (0, 1)
    expected = sft.encode(row, "e4m3").view(torch.uint8)
    codes = sft.encode(x, "e4m3")
    assert codes.dtype == torch.float8_e4m3fn and codes.shape == (ROWS, ROW)
    rows = codes.view(torch.uint8)
    # Every row, in slices of 2^16 rows (a bool mask of the whole would be 2 GiB more).
    for start in range(0, ROWS, 2**16):
        assert torch.equal(rows[start:start + 2**16], expected.expand(min(2**16, ROWS - start), ROW)), start
    # The last row lies past element 2^31: a count cut to 32 bits would have left it unwritten.
    assert (ROWS - 1) * ROW >= 2**31 and torch.equal(rows[-1], expected)
