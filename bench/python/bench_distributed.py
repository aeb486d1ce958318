#!/usr/bin/env python3
"""softfloat.torch.distributed's own work against the all-reduce it replaces.

Two processes on 127.0.0.1 (gloo), one thread each, a bucket of 2^24 float32 gradients
(N(0, 1) * 1e-3). Per format: the hook's own work, without the network (encode this
rank's payload, decode the N payloads and sum them in float32: what the "gather" hook
computes), beside one fp32 all-reduce of the same bucket over gloo (torch's own
dist.all_reduce, what DDP sends by default), and the whole hook with its exchange of
bytes ("gather" and "ring"). Each figure is rank 0's median of --runs in milliseconds,
the ranks starting each run together (a barrier); the ratio is to the fp32 all-reduce.

    PYTHONPATH=build/python .venv/bin/python bench/python/bench_distributed.py
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import softfloat  # noqa: E402
import softfloat.torch.distributed as sfd  # noqa: E402
from softfloat.torch.distributed._algorithms import sum_payloads  # noqa: E402
from softfloat.torch.distributed._codec import Codec  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import median_ms  # noqa: E402 (bench/python/timing.py)

FORMATS = [("e4m3", "tensor"), ("e5m2", "tensor"), ("bf16", "none"), ("mxfp8_e4m3", "block"),
           ("mxfp4_e2m1", "block"), ("nvfp4", "block")]


def synchronised(function):
    def run():
        dist.barrier()
        function()
    return run


def measure(rank, size, n, runs):
    torch.set_num_threads(1)
    softfloat.set_num_threads(1)
    g = torch.Generator().manual_seed(rank)
    bucket = torch.randn(n, generator=g) * 1e-3
    rows = []
    wire = bucket.clone()
    rows.append(("fp32 dist.all_reduce (gloo)", median_ms(synchronised(lambda: dist.all_reduce(wire)), runs), None))
    for fmt, scaling in FORMATS:
        codec = Codec(fmt, "nearest_even", scaling)

        total = torch.empty(n)

        def own_work():  # the gather hook's computation, the all-gather left out
            payload = codec.encode(bucket, None)
            sum_payloads(codec, [payload] * size, n, total).div_(size)
        rows.append((f"{fmt}: own work (encode, {size} decodes, sum)", median_ms(synchronised(own_work), runs),
                     codec.payload_bytes(n)))
        for algorithm in ("gather", "ring"):
            x = bucket.clone()
            call = lambda: sfd.all_reduce(x, fmt, algorithm=algorithm, scaling=scaling, check=False)  # noqa: E731
            rows.append((f"{fmt}: whole all_reduce, {algorithm}", median_ms(synchronised(call), runs), call()))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2n", type=int, default=24, help="bucket of 2^log2n values (default 24)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per row (median)")
    args = parser.parse_args()
    n = 1 << args.log2n
    rows = sfd.launch(2, measure, n, args.runs, timeout=600)[0]
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    print(f"{cpu}, {os.cpu_count()} CPUs; 2 ranks on 127.0.0.1 (gloo), 1 thread each; bucket 2^{args.log2n} float32 "
          f"({4 * n / 2**20:.0f} MiB); torch {torch.__version__}; median of {args.runs}")
    baseline = rows[0][1]
    print(f"{'operation':<46} {'ms':>9} {'vs fp32 all-reduce':>19} {'bytes (payload / sent)':>23}")
    for name, ms, count in rows:
        print(f"{name:<46} {ms:>9.2f} {ms / baseline:>18.2f}x {'' if count is None else count:>23}")


if __name__ == "__main__":
    main()
