"""ml_dtypes' casts from float32 (ml_dtypes 0.6.0, `array.astype(dtype)`) against quantize,
bit for bit, on all 2^32 float32 patterns, for every format we share with ml_dtypes:
bfloat16, float8_e4m3fn, float8_e5m2, the fnuz pair, float8_e8m0fnu, float4_e2m1fn,
float6_e3m2fn, float6_e2m3fn, float8_e3m4, float8_e4m3 and float8_e4m3b11fnuz. NumPy's
own float32 -> float16 cast is checked on the sharp subset only: it runs element by element
and raises the floating-point flags as it goes, 266 s for the 2^32 patterns against 15-20 s
for an ml_dtypes cast (docs/peers/ml_dtypes.md).

Where the peer's rule departs from our default (nearest-even, overflow to the format's
infinity, NaN or largest value, NaN keeps its sign and top payload bits, NaN into a format
without NaN gives +0), the rule is written below as the expected code, built from our own
codes with the matching option, as the peer's source states it (ml_dtypes 0.6.0's
ml_dtypes/include/float8.h and mxfloat.h, Eigen's bfloat16, NumPy's half_private.hpp;
docs/peers/ml_dtypes.md cites them). The sweep asserts the peer's code equals the expected
code on every input, and counts each class of input where the expected code differs from
our default: each count must be exactly the number the rule predicts, so that no class can
pass without being reached.

The 2^32 sweeps run under ctest (label exhaustive, which sets SOFTFLOAT_PEER_SWEEPS=1);
test_rules_on_the_sharp_subset checks the same rules always, on every float32 within two
ulps of each format's values, midpoints and overflow threshold, the zeros, infinities and
NaNs with many payloads.
"""
import functools

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
import softfloat  # noqa: E402

import peer_sweeps  # noqa: E402
from peer_sweeps import exhaustive, nan_mask, negative, same_as_ours  # noqa: E402

DTYPES = {"bf16": "bfloat16", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2",
          "e4m3fnuz": "float8_e4m3fnuz", "e5m2fnuz": "float8_e5m2fnuz", "e8m0": "float8_e8m0fnu",
          "e2m1": "float4_e2m1fn", "e3m2": "float6_e3m2fn", "e2m3": "float6_e2m3fn",
          "e3m4": "float8_e3m4", "e4m3:ieee": "float8_e4m3", "e4m3:fnuz:bias=11": "float8_e4m3b11fnuz"}
DTYPES = {fmt: np.dtype(getattr(ml_dtypes, name)) for fmt, name in DTYPES.items()}
SUBSET_ONLY = {"fp16": np.dtype(np.float16)}  # NumPy's own cast: too slow for 2^32 (see above)


def peer_codes(u, dtype):
    """The peer's cast of the float32 patterns u, as our code dtype (uint8 / uint16). The
    4- and 6-bit types hold their code in the low bits of a byte, as ours do."""
    with np.errstate(all="ignore"):  # NaN, overflow and underflow are the point here
        out = u.view(np.float32).astype(dtype)
    return out.view(np.uint8 if dtype.itemsize == 1 else np.uint16)


# ml_dtypes' and NumPy's rules, each as peer_sweeps.py describes a rule.

def one_quiet_nan(code):
    """float8.h, ConvertImpl<From, To>::run, step 1: a NaN becomes the target's quiet_NaN()
    with the input's sign, whatever its payload (we keep the top payload bits)."""
    def rule(u, x, ours):
        nan = nan_mask(u)
        if not nan.any():
            return ours, {}
        sign = ((u >> 24) & 0x80).astype(np.uint8)
        return np.where(nan, sign | np.uint8(code), ours), {f"NaN -> S|{code:#x}": nan}
    return rule


def nan_to_minus_zero(sign_bit):
    """mxfloat.h: quiet_NaN() of float4_e2m1fn / float6_e3m2fn / float6_e2m3fn is the code of
    -0 (sign bit alone; "Conversion from NaNs is implementation-defined"), and step 1 of
    ConvertImpl negates it for a negative NaN: +NaN -> -0, -NaN -> +0 (ours: +0 for both)."""
    def rule(u, x, ours):
        nan = nan_mask(u) & ~negative(u)
        if not nan.any():
            return ours, {}
        return np.where(nan, np.uint8(sign_bit), ours), {"+NaN -> -0": nan}
    return rule


def rule_e8m0(u, x, ours):
    """float8.h, ConvertImpl<From, To>::run: step 2 turns +-0 into NaN (0xFF) for a target
    without zero (kSaturate is false in a cast); steps 4-6 give targets below their normal
    range a subnormal alignment shift, which E8M0 (no subnormals: 0x00 is 2^-127) does not
    have, so x in (2^-127, 2^-126) is rounded against the midpoint 2^-127 and goes up to
    2^-126: our rounding="up" there (ours rounds (2^-127, 1.5 * 2^-127) down to 2^-127).
    Negative x gives NaN, as ours does."""
    magnitude = u & 0x7FFFFFFF
    zero = magnitude == 0
    binade = (u > 0x00400000) & (u < 0x00800000)  # positive only
    if not (zero.any() or binade.any()):
        return ours, {}
    expected = np.where(zero, np.uint8(0xFF), ours)
    at = np.flatnonzero(binade)
    expected[at] = softfloat.quantize(x[at], "e8m0", rounding="up")
    return expected, {"+-0 -> NaN": zero, "x in (2^-127, 2^-126) -> 2^-126": binade}


def rule_bf16(u, x, ours):
    """ml_dtypes' bfloat16 is Eigen::bfloat16 (ml_dtypes/_src/common.h), whose
    float_to_bfloat16_rtne<false> (Eigen/src/Core/arch/Default/BFloat16.h) rounds to nearest
    even as ours and squashes every NaN to 0x7FC0 / 0xFFC0 by its sign (we keep the top six
    payload bits)."""
    nan = nan_mask(u)
    if not nan.any():
        return ours, {}
    sign = ((u >> 16) & 0x8000).astype(np.uint16)
    return np.where(nan, sign | np.uint16(0x7FC0), ours), {"NaN -> S|0x7FC0": nan}


def rule_fp16_numpy(u, x, ours):
    """NumPy's float32 -> float16 (numpy/_core/src/common/half_private.hpp, FromFloatBits, the
    path of a wheel built without F16C in its baseline): a NaN keeps its sign and its top ten
    mantissa bits as they are, quiet bit included, and gets bit 0 set if those are all zero.
    Ours (as x86's F16C) sets the quiet bit, so a signalling NaN differs: ours with the quiet
    bit cleared, and bit 0 set if no payload bit is left."""
    signalling = nan_mask(u) & ((u & 0x00400000) == 0)
    if not signalling.any():
        return ours, {}
    cleared = ours & np.uint16(0xFDFF)
    fixed = cleared | ((cleared & 0x03FF) == 0).astype(np.uint16)
    return np.where(signalling, fixed, ours), {"signalling NaN stays signalling": signalling}


RULES = {"bf16": rule_bf16, "e4m3": same_as_ours, "e5m2": one_quiet_nan(0x7E),
         "e4m3fnuz": same_as_ours, "e5m2fnuz": same_as_ours, "e8m0": rule_e8m0,
         "e2m1": nan_to_minus_zero(0x08), "e3m2": nan_to_minus_zero(0x20), "e2m3": nan_to_minus_zero(0x20),
         "e3m4": one_quiet_nan(0x78), "e4m3:ieee": one_quiet_nan(0x7C), "e4m3:fnuz:bias=11": same_as_ours,
         "fp16": rule_fp16_numpy}


def predicted_counts(fmt):
    """How many of the 2^32 inputs each class of the rule moves off our default code. Our NaN
    code equals the peer's where the payload bits we keep are all clear: 2^k - 1 NaNs of a
    sign when we keep k payload bits below the quiet bit (the quiet bit itself is free, the
    all-clear pattern with quiet bit clear is infinity)."""
    nans_per_sign = (1 << 23) - 1

    def nan_differences(kept_payload_bits):
        return 2 * (nans_per_sign - ((1 << (23 - kept_payload_bits)) - 1))
    if fmt == "e5m2":
        return {"NaN -> S|0x7e": nan_differences(1)}
    if fmt == "e3m4":
        return {"NaN -> S|0x78": nan_differences(3)}
    if fmt == "e4m3:ieee":
        return {"NaN -> S|0x7c": nan_differences(2)}
    if fmt == "bf16":
        return {"NaN -> S|0x7FC0": nan_differences(6)}
    if fmt in ("e2m1", "e3m2", "e2m3"):
        return {"+NaN -> -0": nans_per_sign}
    if fmt == "e8m0":  # from 1.5 * 2^-127 up ours round up too
        return {"+-0 -> NaN": 2, "x in (2^-127, 2^-126) -> 2^-126": 0x00600000 - 0x00400001}
    if fmt == "fp16":  # signalling NaNs: quiet bit clear, payload not all clear
        return {"signalling NaN stays signalling": 2 * ((1 << 22) - 1)}
    return {}


@pytest.mark.parametrize("fmt", sorted(DTYPES) + sorted(SUBSET_ONLY))
def test_rules_on_the_sharp_subset(fmt):
    dtype = DTYPES.get(fmt, SUBSET_ONLY.get(fmt))
    peer_sweeps.check_sharp_subset(fmt, list(DTYPES) + list(SUBSET_ONLY), RULES[fmt],
                                   functools.partial(peer_codes, dtype=dtype), predicted_counts(fmt))


@exhaustive
@pytest.mark.parametrize("fmt", sorted(DTYPES))
def test_every_float32(fmt):
    peer_sweeps.check_every_float32(fmt, RULES[fmt], functools.partial(peer_codes, dtype=DTYPES[fmt]),
                                    predicted_counts(fmt))
