"""Hostile input at the module's entry points: the C++ refusals reach Python as
ValueError / TypeError naming the function, codes that do not fit are refused, a bad
SOFTFLOAT_NUM_THREADS is reported, and NaN payloads follow docs/formats.md's rules (written out
here from the rules: IEEE-style formats keep the sign, set the quiet bit and keep the top
payload bits; fn formats keep the sign; fnuz has the one NaN 0x80; formats without NaN
give +0; MX and NVFP4 blocks holding a NaN decode to 0x7FC00000)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import softfloat

PAYLOADS = [0x400000, 0x000001, 0x7FFFFF, 0x200000, 0x3FFFFF, 0x555555, 0x2AAAAA, 0x000100, 0x7F0000]


def nan_inputs():
    """Every payload with both signs, as float32 bit patterns."""
    bits = [sign | 0x7F800000 | payload for sign in (0, 0x80000000) for payload in PAYLOADS]
    return np.array(bits, np.uint32)


def expected_ieee_code(bits, exponent_bits, mantissa_bits, payload_bits=23):
    sign = int(bits) >> (payload_bits + (8 if payload_bits == 23 else 11))
    payload = int(bits) & ((1 << payload_bits) - 1)
    total = exponent_bits + mantissa_bits
    return (sign << total) | (((1 << exponent_bits) - 1) << mantissa_bits) | (1 << (mantissa_bits - 1)) | (
        payload >> (payload_bits - mantissa_bits))


@pytest.mark.parametrize("fmt, exponent_bits, mantissa_bits", [("fp16", 5, 10), ("bf16", 8, 7), ("e5m2", 5, 2),
                                                                 ("tf32", 8, 10), ("fp32", 8, 23)])
def test_nan_payloads_into_ieee_formats(fmt, exponent_bits, mantissa_bits):
    bits = nan_inputs()
    codes = softfloat.quantize(bits.view(np.float32), fmt)
    assert [int(c) for c in codes] == [expected_ieee_code(b, exponent_bits, mantissa_bits) for b in bits]
    back = softfloat.round_trip(bits.view(np.float32), fmt).view(np.uint32)
    kept = (bits & 0x7FFFFF) >> (23 - mantissa_bits) << (23 - mantissa_bits)
    assert back.tolist() == ((bits & 0x80000000) | 0x7FC00000 | kept).tolist()
    wide = np.array([(int(b) >> 31 << 63) | 0x7FF0000000000000 | (int(b) & 0x7FFFFF) << 29 | 0x1 for b in bits],
                    np.uint64)
    from_double = softfloat.quantize(wide.view(np.float64), fmt)
    assert [int(c) for c in from_double] == [expected_ieee_code(w, exponent_bits, mantissa_bits, 52) for w in wide]


def test_nan_payloads_into_formats_with_one_nan_or_none():
    bits = nan_inputs()
    x = bits.view(np.float32)
    negative = (bits >> 31).astype(bool)
    assert softfloat.quantize(x, "e4m3").tolist() == np.where(negative, 0xFF, 0x7F).tolist()
    assert set(softfloat.quantize(x, "e4m3fnuz").tolist()) == {0x80}
    assert set(softfloat.quantize(x, "p3109_8p3").tolist()) == {0x80}
    assert set(softfloat.quantize(x, "e8m0").tolist()) == {0xFF}
    for fmt in ("e2m1", "e2m3", "e3m2", "e4m3:finite"):
        assert set(softfloat.quantize(x, fmt).tolist()) == {0}, fmt
        assert set(softfloat.round_trip(x, fmt).view(np.uint32).tolist()) == {0}, fmt
        assert set(softfloat.quantize(x, fmt, packed=fmt != "e4m3:finite").tolist()) == {0}, fmt


def test_nan_codes_decode_with_their_payload():
    codes = np.array([0x7C01, 0xFC01, 0x7E00, 0x7FFF, 0xFD55], np.uint16)
    values = softfloat.dequantize(codes, "fp16").view(np.uint32)
    expected = [(int(c) >> 15 << 31) | 0x7FC00000 | (int(c) & 0x3FF) << 13 for c in codes]
    assert values.tolist() == expected


def test_nan_blocks_in_mx_and_nvfp4():
    x = np.full((3, 32), 0.75, np.float32)
    x[0, 5] = np.uint32(0x7F800001).view(np.float32)
    x[1, 9] = np.uint32(0xFFC12345).view(np.float32)
    for kind in softfloat.mx_elements():
        elements, scales = softfloat.mx_quantize(x, kind)
        assert scales[:2, 0].tolist() == [0xFF, 0xFF] and scales[2, 0] != 0xFF, kind
        assert not elements[:2].any(), kind
        back = softfloat.mx_dequantize(elements, scales, kind).view(np.uint32)
        assert set(back[:2].ravel().tolist()) == {0x7FC00000}, kind
        assert set(softfloat.mx_round_trip(x, kind)[:2].view(np.uint32).ravel().tolist()) == {0x7FC00000}, kind
        assert (softfloat.mx_round_trip(x, kind)[2] == 0.75).all(), kind
    y = np.full((2, 16), 3.0, np.float32)
    y[0, 3] = np.uint32(0xFF800007).view(np.float32)
    elements, scales, amax = softfloat.nvfp4_quantize(y)
    assert scales[0, 0] == 0x7F and amax == 3.0 and not elements[0].any()
    assert set(softfloat.nvfp4_round_trip(y)[0].view(np.uint32).tolist()) == {0x7FC00000}


def test_codes_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match=r"softfloat\.pack_codes: code 16 at flat index 1 does not fit the 4 bits"):
        softfloat.pack_codes(np.array([3, 16, 2], np.uint8), 4)
    with pytest.raises(ValueError, match=r"softfloat\.pack_codes: code 64 at flat index 0 does not fit the 6 bits"):
        softfloat.pack_codes(np.array([64], np.uint8), 6)
    with pytest.raises(ValueError, match=r"softfloat\.dequantize: code 31 at flat index 1 does not fit e2m1's 4"):
        softfloat.dequantize(np.array([1, 0x1F], np.uint8), "e2m1")
    a = np.zeros((3, 4), np.uint8)
    a[2, 1] = 0x1F
    with pytest.raises(ValueError, match=r"softfloat\.matmul: a_codes: code 31 at flat index 9 does not fit e2m1's 4"):
        softfloat.matmul(a, np.ones((4, 2), np.uint8), "e2m1", "e2m1")
    rows = np.zeros((6, 2), np.uint8)
    rows[4, 1] = 0x1F
    with pytest.raises(ValueError, match=r"softfloat\.matmul: b_codes: code 31 at flat index 5 does not fit"):
        softfloat.matmul(np.ones((2, 3), np.uint8), rows[::2], "e2m1", "e2m1")  # every other row: strided
    # Every code that fits is accepted.
    assert softfloat.pack_codes(np.arange(16, dtype=np.uint8), 4).size == 8


@pytest.mark.parametrize("function", ["mx_quantize", "mx_round_trip"])
def test_block_sizes(function):
    x = np.ones((2, 64), np.float32)
    with pytest.raises(ValueError, match=rf"softfloat\.{function}: block_size must be a positive number of values, not 0"):
        getattr(softfloat, function)(x, "mxint8", block_size=0)
    with pytest.raises(ValueError, match=rf"softfloat\.{function}: .*multiple of 2"):
        getattr(softfloat, function)(x, "mxfp4_e2m1", block_size=3)
    with pytest.raises(ValueError, match=rf"softfloat\.{function}: .*multiple of 4"):
        getattr(softfloat, function)(x, "mxfp6_e2m3", block_size=6)


def test_thread_counts():
    with pytest.raises(ValueError, match=r"set_num_threads: 0 threads; the count must be at least 1"):
        softfloat.set_num_threads(0)
    script = ("import numpy as np, softfloat\n"
              "try:\n"
              "    softfloat.round_trip(np.ones(1 << 18, np.float32), 'e4m3')\n"
              "except ValueError as error:\n"
              "    print('ValueError:', error)\n")
    environment = dict(os.environ, SOFTFLOAT_NUM_THREADS="2x")
    result = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True,
                            timeout=120, check=True)
    assert 'ValueError: softfloat::num_threads: SOFTFLOAT_NUM_THREADS="2x" is not a thread count' in result.stdout
