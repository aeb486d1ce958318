#!/usr/bin/env python3
"""softfloat.round_trip against the NumPy bit manipulation people write by hand.

Times fake quantization of 2^24 float32 values (N(0, 1) * 16, so that E4M3 sees normal,
subnormal and a few overflowing values) to bf16 and to E4M3, round to nearest even:
the hand-written NumPy recipes below and softfloat.round_trip, after checking that both
give the same bits. Each row is the median of --runs calls, in milliseconds and in
nanoseconds per value; a copy of the array is the baseline.

    PYTHONPATH=build/python .venv/bin/python bench/python/bench_round_trip.py
"""
import argparse
import os

import numpy as np

import softfloat
from timing import median_ms  # bench/python/timing.py, beside this script


def numpy_bf16_round_trip(x):
    """float32 -> bf16 -> float32, ties to even: add 0x7FFF plus the kept part's last bit
    and clear the low 16 bits (a carry moves into the exponent, and past the largest
    bf16 into infinity, as it should); NaNs are made quiet instead, keeping their sign."""
    u = x.view(np.uint32)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1)))) & np.uint32(0xFFFF0000)
    nan = np.isnan(x)
    rounded[nan] = (u[nan] | np.uint32(0x00400000)) & np.uint32(0xFFFF0000)
    return rounded.view(np.float32)


def numpy_e4m3_round_trip(x):
    """float32 -> OCP E4M3 -> float32, ties to even. Normal results (|x| >= 2^-6): round the
    23-bit mantissa to 3 bits as above (add 0x7FFFF plus bit 20, clear the low 20 bits).
    Subnormal results: multiples of 2^-9, by rint(|x| * 2^9) / 2^9 (exact scalings, rint
    ties to even). Anything above 448 after rounding, and NaN or infinite input, is NaN;
    the sign is put back last (E4M3 has -0 and -NaN)."""
    u = x.view(np.uint32)
    sign = u & np.uint32(0x80000000)
    magnitude = u & np.uint32(0x7FFFFFFF)
    normal = (magnitude + (np.uint32(0x7FFFF) + ((magnitude >> 20) & np.uint32(1)))) & np.uint32(0xFFF00000)
    subnormal = (np.rint(np.abs(x) * np.float32(512)) / np.float32(512)).view(np.uint32)
    result = np.where(magnitude < np.uint32(121 << 23), subnormal, normal)  # 2^-6 has exponent field 121
    result = np.where((result > np.uint32(0x43E00000)) | (magnitude >= np.uint32(0x7F800000)),
                      np.uint32(0x7FC00000), result)  # 0x43E00000 is 448 = 1.75 * 2^8
    return (result | sign).view(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2-size", type=int, default=24)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    n = 1 << args.log2_size
    x = (np.random.default_rng(0).normal(size=n) * 16).astype(np.float32)
    x64 = x.astype(np.float64) * (1 + 2.0**-30)  # bits below float32's, so float64 matters

    for name, recipe, fmt in (("bf16", numpy_bf16_round_trip, "bf16"), ("e4m3", numpy_e4m3_round_trip, "e4m3")):
        same = np.array_equal(recipe(x).view(np.uint32), softfloat.round_trip(x, fmt).view(np.uint32))
        print(f"NumPy {name} recipe gives softfloat's bits: {'yes' if same else 'NO'}")

    rows = [
        ("copy of the float32 array (baseline)", lambda: x.copy()),
        ("NumPy bit manipulation, float32 -> bf16 -> float32", lambda: numpy_bf16_round_trip(x)),
        ("softfloat.round_trip(x, 'bf16')", lambda: softfloat.round_trip(x, "bf16")),
        ("NumPy bit manipulation, float32 -> e4m3 -> float32", lambda: numpy_e4m3_round_trip(x)),
        ("softfloat.round_trip(x, 'e4m3')", lambda: softfloat.round_trip(x, "e4m3")),
        ("softfloat.quantize(x, 'e4m3') (uint8 codes)", lambda: softfloat.quantize(x, "e4m3")),
        ("softfloat.round_trip(x, 'e4m3', 'stochastic', seed=1)",
         lambda: softfloat.round_trip(x, "e4m3", "stochastic", seed=1)),
        ("softfloat.round_trip(x, 'e2m1')", lambda: softfloat.round_trip(x, "e2m1")),
        ("softfloat.round_trip(x64, 'e4m3') (float64, rounded from the double)",
         lambda: softfloat.round_trip(x64, "e4m3")),
    ]
    print(f"\n2^{args.log2_size} values, median of {args.runs} runs, {softfloat.num_threads()} thread(s), "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"| operation | ms | ns/value |\n|---|---:|---:|")
    for label, function in rows:
        function()  # warm up: page faults of the first output allocation
        ms = median_ms(function, args.runs, warm_up=False)
        print(f"| {label} | {ms:.1f} | {1e6 * ms / n:.2f} |")


if __name__ == "__main__":
    main()
