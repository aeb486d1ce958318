#!/usr/bin/env python3
"""The cost of one call on few values, beside the peers' own casts of the same data.

At 16 to 4096 values a call's fixed cost (argument checks, buffer access, the kernel's
choice) is what a user pays. For each size, one thread:
  - torch: softfloat.torch.quantize(x, F) beside torch's own x.to(dtype).float() for the
    formats torch has (bf16, fp16, float8_e4m3fn, float8_e5m2);
  - NumPy: softfloat.round_trip(x, F) beside ml_dtypes' x.astype(dtype).astype(float32)
    where ml_dtypes is installed (bf16, float8_e4m3fn, float8_e5m2, float4_e2m1fn), and
    NumPy's own float16 cast for fp16.
Each row: the median of --calls calls, repeated --runs times (the median of those), in
microseconds per call, and the ratio to the peer's cast.

    PYTHONPATH=build/python .venv/bin/python bench/python/bench_call_overhead.py
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import softfloat  # noqa: E402

SIZES = (16, 256, 4096)


def microseconds_per_call(function, calls, runs):
    function()
    medians = []
    for _ in range(runs):
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            function()
            times.append(time.perf_counter() - start)
        medians.append(statistics.median(times))
    return 1e6 * statistics.median(medians)


def rows_torch(calls, runs):
    try:
        import torch

        import softfloat.torch as sft
    except ImportError:
        print("torch rows: skipped (torch is not installed)")
        return
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread")
    formats = [("bf16", torch.bfloat16), ("fp16", torch.float16), ("e4m3", torch.float8_e4m3fn),
               ("e5m2", torch.float8_e5m2)]
    print(f"{'size':>6} {'format':>6} {'softfloat.torch us':>19} {'torch cast us':>14} {'ratio':>7}")
    for n in SIZES:
        x = torch.randn(n) * 4
        for name, dtype in formats:
            ours = microseconds_per_call(lambda: sft.quantize(x, name, saturate=name == "e4m3"), calls, runs)
            theirs = microseconds_per_call(lambda: x.to(dtype).float(), calls, runs)
            print(f"{n:>6} {name:>6} {ours:>19.2f} {theirs:>14.2f} {ours / theirs:>6.2f}x")


def rows_numpy(calls, runs):
    try:
        import ml_dtypes
    except ImportError:
        ml_dtypes = None
    peers = [("fp16", np.float16)]
    if ml_dtypes is not None:
        peers += [("bf16", ml_dtypes.bfloat16), ("e4m3", ml_dtypes.float8_e4m3fn), ("e5m2", ml_dtypes.float8_e5m2),
                  ("e2m1", ml_dtypes.float4_e2m1fn)]
        print(f"ml_dtypes {ml_dtypes.__version__}, NumPy {np.__version__}")
    print(f"{'size':>6} {'format':>6} {'softfloat us':>13} {'peer cast us':>13} {'ratio':>7}")
    for n in SIZES:
        x = (np.random.default_rng(0).standard_normal(n) * 4).astype(np.float32)
        for name, dtype in peers:
            saturate = name in ("e4m3", "e2m1")  # ml_dtypes saturates where the format has no infinity
            ours = microseconds_per_call(lambda: softfloat.round_trip(x, name, saturate=saturate), calls, runs)
            theirs = microseconds_per_call(lambda: x.astype(dtype).astype(np.float32), calls, runs)
            print(f"{n:>6} {name:>6} {ours:>13.2f} {theirs:>13.2f} {ours / theirs:>6.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    print(f"CPU: {platform.processor() or platform.machine()}; softfloat {softfloat.__version__}")
    rows_torch(arguments.calls, arguments.runs)
    rows_numpy(arguments.calls, arguments.runs)


if __name__ == "__main__":
    main()
