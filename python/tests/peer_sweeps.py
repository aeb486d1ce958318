"""What the sweeps against the peers (test_peer_sweep_*.py) share: the float32 patterns
they run over, and the comparison of a peer's cast with its rule.

A rule maps (float32 patterns u, their values x, our default codes) to (the codes the
peer gives, {class: inputs where that code may differ from our default}); the classes
are disjoint, and every difference from our default must fall in one of them. The sweep
asserts that the peer's code equals the rule's on every input, and counts each class's
inputs where the rule moves off our default, so that each count can be held to the
number the rule predicts and no class passes without being reached.
"""
import functools
import os

import numpy as np
import pytest

import softfloat

SWEEPS = os.environ.get("SOFTFLOAT_PEER_SWEEPS") == "1"
exhaustive = pytest.mark.skipif(
    not SWEEPS, reason="the 2^32 sweeps against the peers run under ctest (label exhaustive); "
                       "set SOFTFLOAT_PEER_SWEEPS=1")
CHUNK = 1 << 22  # float32 patterns a step: 16 MiB an array, a few of them in cache-sized passes
INF = 0x7F800000  # float32 +inf; |u| above it is NaN
PEER_DIFFERS = "peer differs from the rule"
UNEXPLAINED = "differs from ours outside the classes"


def nan_mask(u):
    return (u & 0x7FFFFFFF) > INF


def negative(u):
    return u >= 0x80000000


def same_as_ours(u, x, ours):
    return ours, {}


def new_counts(predicted):
    return dict({name: 0 for name in predicted}, **{PEER_DIFFERS: 0, UNEXPLAINED: 0})


def check(fmt, u, rule, peer_codes, counts, failures):
    """Compare the peer's codes of the patterns u with the rule; add each class's
    differences from our default to counts; record up to eight inputs where the peer is
    not the rule."""
    x = u.view(np.float32)
    ours = softfloat.quantize(x, fmt)
    expected, classes = rule(u, x, ours)
    theirs = peer_codes(u)
    wrong = theirs != expected
    if wrong.any():
        for i in np.flatnonzero(wrong)[:8 - len(failures)]:
            failures.append(f"x = {int(u[i]):#010x}: peer {int(theirs[i]):#x}, rule {int(expected[i]):#x}, "
                            f"ours {int(ours[i]):#x}")
        counts[PEER_DIFFERS] += int(np.count_nonzero(wrong))
    if expected is ours:
        return
    differs = expected != ours
    unexplained = differs.copy()
    for name, mask in classes.items():
        counts[name] += int(np.count_nonzero(differs & mask))
        unexplained &= ~mask
    counts[UNEXPLAINED] += int(np.count_nonzero(unexplained))


@functools.lru_cache(maxsize=None)
def sharp_subset(formats):
    """Float32 patterns within two ulps of every value, every midpoint of neighbouring values
    and the overflow threshold (max plus half its ulp) of each of `formats`, of every power
    of two and 1.5 times it, with both signs; +-0, +-inf, the largest float32, and NaNs with
    every combination of the top eleven mantissa bits (low bits 0, 1 or all ones), both signs."""
    centres = [np.ldexp(1.0, np.arange(-149, 128)), 1.5 * np.ldexp(1.0, np.arange(-149, 127))]
    for fmt in formats:
        bits = softfloat.format_info(fmt).bits
        codes = np.arange(1 << bits, dtype=np.uint8 if bits <= 8 else np.uint16)
        values = softfloat.dequantize(codes, fmt, dtype=np.float64)
        values = np.unique(np.abs(values[np.isfinite(values)]))
        centres += [values, (values[:-1] + values[1:]) / 2, [values[-1] + (values[-1] - values[-2]) / 2]]
    centres = np.concatenate(centres).astype(np.float32).view(np.uint32).astype(np.int64)
    near = np.clip((centres[:, None] + np.arange(-2, 3)).ravel(), 0, INF)
    top = np.arange(1 << 11, dtype=np.int64) << 12
    nans = (INF | (top[:, None] | np.array([0, 1, 0xFFF])).ravel())
    nans = nans[nans > INF]
    u = np.concatenate([near, nans, [0, 0x7F7FFFFF, INF]])
    return np.unique(np.concatenate([u, u | 0x80000000])).astype(np.uint32)


def check_sharp_subset(fmt, formats, rule, peer_codes, predicted):
    """The rule on the sharp subset: the peer follows it, and every class is reached."""
    counts, failures = new_counts(predicted), []
    check(fmt, sharp_subset(tuple(formats)).copy(), rule, peer_codes, counts, failures)
    assert not failures, "\n".join(failures)
    assert counts[UNEXPLAINED] == 0
    for name in predicted:
        assert counts[name] > 0, f"{fmt}: the subset never reaches class {name!r}"


def check_every_float32(fmt, rule, peer_codes, predicted):
    """The rule on all 2^32 float32 patterns, each class's count exactly as predicted."""
    counts, failures = new_counts(predicted), []
    base = np.arange(CHUNK, dtype=np.uint32)
    u = np.empty_like(base)
    for start in range(0, 1 << 32, CHUNK):
        np.add(base, np.uint32(start), out=u)
        check(fmt, u, rule, peer_codes, counts, failures)
    assert not failures, f"{counts[PEER_DIFFERS]} inputs differ; first:\n" + "\n".join(failures)
    assert counts == dict(new_counts(predicted), **predicted)
