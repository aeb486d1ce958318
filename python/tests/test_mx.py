"""mx_quantize / mx_dequantize: the specification's formulas (OCP MX v1.0, section 6.3)
written out in NumPy, the worked example of docs/design/block-formats.md, blocks along the last axis, the
special blocks, and the errors."""
import math

import numpy as np
import pytest

import softfloat
from conftest import assert_same_bits

# element kind: (element format spec, emax_elem = exponent of the element's largest binade)
ELEMENTS = {"mxfp8_e4m3": ("e4m3", 8), "mxfp8_e5m2": ("e5m2", 15), "mxfp6_e3m2": ("e3m2", 4),
            "mxfp6_e2m3": ("e2m3", 2), "mxfp4_e2m1": ("e2m1", 2), "mxint8": (None, 0)}


def expected_block(block, kind, rule):
    """The dequantized values of one block by the specification's formula, in float64."""
    spec, emax = ELEMENTS[kind]
    largest = float(np.max(np.abs(block.astype(np.float64))))
    if largest == 0:
        return np.zeros_like(block, dtype=np.float64) * np.sign(block), 0  # scale 2^-127, zeros
    significand, exponent = math.frexp(largest)  # largest = m * 2^e with m in [0.5, 1)
    floor_log2 = exponent - 1
    if rule == "floor":
        s = floor_log2 - emax
    elif rule == "rceil":  # the smallest s with largest <= max_elem * 2^s
        max_elem = softfloat.format_info(spec).max if spec else 127 / 64
        s = floor_log2 - emax - 1
        while largest > max_elem * 2.0**s:
            s += 1
    elif rule == "ceil":  # ceil(log2 largest) - emax
        s = floor_log2 + (significand != 0.5) - emax
    else:  # even: floor(log2 of largest rounded to M + 1 bits, ties away) - emax
        m = softfloat.format_info(spec).mantissa_bits if spec else 6
        units = 2.0 * significand * 2**m  # largest / 2^floor_log2 in units of 2^-M: [2^M, 2^(M+1))
        rounded = math.floor(units + 0.5)  # ties away: units is positive
        s = floor_log2 + (rounded == 2 ** (m + 1)) - emax
    s = min(max(s, -127), 127)
    scaled = block.astype(np.float64) * 2.0**-s  # exact: a power-of-two shift
    if spec is None:  # MXINT8: multiples of 1/64, ties to even, clamped to +-127/64; no -0
        elements = np.clip(np.rint(scaled * 64), -127, 127) / 64 + 0.0
    else:
        elements = softfloat.round_trip(scaled, spec, saturate=True)
    return elements * 2.0**s, s + 127


@pytest.mark.parametrize("kind", sorted(ELEMENTS))
@pytest.mark.parametrize("rule", ["floor", "rceil", "ceil", "even"])
def test_blocks_follow_the_specification(kind, rule):
    rng = np.random.default_rng(sorted(ELEMENTS).index(kind))
    # Rows of 70 values: blocks of 32, 32 and 6; each row at its own magnitude.
    x = (rng.normal(size=(6, 70)) * np.exp2(rng.integers(-20, 20, size=(6, 1)))).astype(np.float32)
    x[1, 40:64] = 0  # the middle block of row 1 is half zeros
    x[2, 32:64] = 0  # ... and of row 2 all zeros
    elements, scales = softfloat.mx_quantize(x, kind, scale_rule=rule)
    bits = softfloat.format_info(ELEMENTS[kind][0]).bits if ELEMENTS[kind][0] else 8
    assert elements.shape == (6, (70 * bits + 7) // 8) and elements.dtype == np.uint8
    assert scales.shape == (6, 3) and scales.dtype == np.uint8
    values = softfloat.mx_dequantize(elements, scales, kind, length=70)
    assert values.shape == x.shape and values.dtype == np.float32
    for row in range(6):
        for start in (0, 32, 64):
            block = x[row, start:start + 32]
            expected, scale = expected_block(block, kind, rule)
            assert scales[row, start // 32] == scale
            assert_same_bits(values[row, start:start + 32], expected.astype(np.float32))


def test_worked_example():
    # docs/design/block-formats.md: E2M1 elements of {1, 2, 3, 7, -0.5}: max 7 gives s = floor(log2 7) - 2 = 0,
    # scale 0x7F; codes 0x2, 0x4, 0x5, 0x7 (7 clamps to 6), 0x9, packed two a byte.
    x = np.zeros(32, np.float32)
    x[:5] = [1, 2, 3, 7, -0.5]
    elements, scales = softfloat.mx_quantize(x, "mxfp4_e2m1")
    assert scales.tolist() == [0x7F]
    assert elements.tolist() == [0x42, 0x75, 0x09] + [0] * 13
    assert softfloat.mx_dequantize(elements, scales, "mxfp4_e2m1").tolist()[:6] == [1, 2, 3, 6, -0.5, 0]


def test_special_blocks():
    x = np.ones((2, 32), np.float32)
    x[0, 5] = np.nan
    x[1, :] = 0
    elements, scales = softfloat.mx_quantize(x, "mxfp8_e4m3")
    assert scales.tolist() == [[0xFF], [0x00]]  # NaN scale; 2^-127 for zeros
    assert elements[0].tolist() == [0] * 32
    values = softfloat.mx_dequantize(elements, scales, "mxfp8_e4m3")
    assert np.all(np.isnan(values[0])) and values[1].tolist() == [0.0] * 32


def test_strided_input_and_odd_rows():
    rng = np.random.default_rng(9)
    base = rng.normal(size=(5, 2 * 45)).astype(np.float32)
    view = base[:, ::2]  # rows of 45: FP4 rows of 23 bytes, the last nibble unused
    elements, scales = softfloat.mx_quantize(view, "mxfp4_e2m1", block_size=16)
    contiguous_elements, contiguous_scales = softfloat.mx_quantize(np.ascontiguousarray(view), "mxfp4_e2m1",
                                                                   block_size=16)
    assert elements.tolist() == contiguous_elements.tolist() and scales.tolist() == contiguous_scales.tolist()
    assert elements.shape == (5, 23) and scales.shape == (5, 3)
    assert softfloat.mx_dequantize(elements, scales, "mxfp4_e2m1", block_size=16, length=45).shape == (5, 45)
    # Without length, the rows hold as many values as their bytes do.
    assert softfloat.mx_dequantize(elements, scales, "mxfp4_e2m1", block_size=16).shape == (5, 46)


def test_errors():
    x = np.ones((2, 64), np.float32)
    with pytest.raises(TypeError, match="expected a float32 array, got float64"):
        softfloat.mx_quantize(x.astype(np.float64), "mxfp8_e4m3")
    with pytest.raises(ValueError, match="mxfp5"):
        softfloat.mx_quantize(x, "mxfp5")
    with pytest.raises(ValueError, match=r"unknown scale rule 'round' \(accepted: floor, rceil, ceil, even\)"):
        softfloat.mx_quantize(x, "mxfp8_e4m3", scale_rule="round")
    with pytest.raises(ValueError, match="at least one axis"):
        softfloat.mx_quantize(np.float32(1.0), "mxfp8_e4m3")
    with pytest.raises(ValueError):  # an FP6 block must end on a byte boundary
        softfloat.mx_quantize(x, "mxfp6_e3m2", block_size=6)
    elements, scales = softfloat.mx_quantize(x, "mxfp8_e4m3")
    with pytest.raises(ValueError, match="agree in every axis but the blocks'"):
        softfloat.mx_dequantize(elements, scales[:1], "mxfp8_e4m3")
    with pytest.raises(ValueError, match="have 2 scales, but the scales' blocks axis has 1"):
        softfloat.mx_dequantize(elements, scales[:, :1], "mxfp8_e4m3")
    with pytest.raises(TypeError, match="uint8"):
        softfloat.mx_dequantize(elements.astype(np.uint16), scales, "mxfp8_e4m3")
