#!/usr/bin/env python3
"""softfloat.torch against what PyTorch users write by hand, one thread, one process.

Fake quantization of 2^24 float32 values (N(0, 1) * 16) in a torch tensor: bf16 by
torch's own x.bfloat16().float() and by integer ops (add 0x7FFF plus the kept last bit,
clear the low half), E4M3 by torch.frexp and by log2 / floor (as microxcaling computes
exponents), the NumPy module on the same memory, MX and NVFP4 blocks; then a Linear
forward of 1024 x 1024 x 1024 with E4M3 inputs and an fp32 accumulator against torch's
own fp32 and bf16 F.linear, and the module softfloat.torch.Linear with E4M3 weights
(inputs in float32, or in E4M3 too) at the default summation. Each row is the median
of --runs calls in milliseconds, with its ratio to the row it is compared with. torch
runs on one thread (torch.set_num_threads(1)); a torch that multiplies through
OpenBLAS reads OPENBLAS_NUM_THREADS, so it is set to 1 before torch is imported; the
thread counts are printed.

    PYTHONPATH=build/python .venv/bin/python bench/python/bench_torch.py
"""
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before torch (and NumPy) load OpenBLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402

import torch  # noqa: E402

import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402
from timing import median_ms  # noqa: E402 (bench/python/timing.py, beside this script)


def torch_bf16_by_integer_ops(x):
    u = x.view(torch.int32)
    rounded = (u + (0x7FFF + ((u >> 16) & 1))) & -65536  # -65536 is 0xFFFF0000 as int32
    return rounded.view(torch.float32)


def torch_e4m3_by_frexp(x):
    """E4M3 nearest even from torch.frexp: quantum 2^(max(e - 1, -6) - 3), torch.round
    (ties to even), clamped to +-448 (no NaN handling, as such code usually has none)."""
    _, e = torch.frexp(x)
    quantum = torch.exp2((torch.clamp(e - 1, min=-6) - 3).to(torch.float32))
    return torch.clamp(torch.round(x / quantum) * quantum, -448.0, 448.0)


def torch_e4m3_by_log2(x):
    """The same with the exponent from floor(log2 |x|), as microxcaling computes it."""
    exponent = torch.floor(torch.log2(torch.abs(x)))
    quantum = torch.exp2(torch.clamp(exponent, min=-6) - 3)
    return torch.clamp(torch.round(x / quantum) * quantum, -448.0, 448.0)


def differing(a, b):
    return int((a.view(torch.int32) != b.view(torch.int32)).sum())


def cpu_name():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2-size", type=int, default=24)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--gemm", type=int, default=1024, help="m = n = k of the Linear forward")
    args = parser.parse_args()
    torch.set_num_threads(1)
    softfloat.set_num_threads(1)
    print(f"CPU: {cpu_name()}; torch {torch.__version__}, torch threads {torch.get_num_threads()}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, softfloat threads {softfloat.num_threads()}")
    n = 1 << args.log2_size
    torch.manual_seed(0)
    x = torch.randn(n) * 16
    blocks = x.view(-1, 4096)

    ours_bf16 = sft.quantize(x, "bf16")
    ours_e4m3 = sft.quantize(x, "e4m3")
    print(f"bits differing from softfloat's: bf16 by integer ops {differing(torch_bf16_by_integer_ops(x), ours_bf16)}, "
          f"torch .bfloat16() {differing(x.bfloat16().float(), ours_bf16)}, "
          f"E4M3 by frexp {differing(torch_e4m3_by_frexp(x), ours_e4m3)}, "
          f"E4M3 by log2/floor {differing(torch_e4m3_by_log2(x), ours_e4m3)} of {n}")

    rows = [
        ("x.clone() (baseline)", lambda: x.clone(), None),
        ("bf16: torch integer ops (add 0x7FFF + lsb, clear)", lambda: torch_bf16_by_integer_ops(x), None),
        ("bf16: torch x.bfloat16().float()", lambda: x.bfloat16().float(), None),
        ("bf16: sft.quantize(x, 'bf16')", lambda: sft.quantize(x, "bf16"), "bf16: torch integer ops (add 0x7FFF + lsb, clear)"),
        ("bf16: softfloat.round_trip(x.numpy(), 'bf16')", lambda: softfloat.round_trip(x.numpy(), "bf16"), None),
        ("e4m3: torch.frexp recipe", lambda: torch_e4m3_by_frexp(x), None),
        ("e4m3: torch log2/floor recipe (microxcaling)", lambda: torch_e4m3_by_log2(x), None),
        ("e4m3: sft.quantize(x, 'e4m3')", lambda: sft.quantize(x, "e4m3"), "e4m3: torch.frexp recipe"),
        ("e4m3: softfloat.round_trip(x.numpy(), 'e4m3')", lambda: softfloat.round_trip(x.numpy(), "e4m3"), None),
        ("e4m3 stochastic: sft.quantize(..., 'stochastic')", lambda: sft.quantize(x, "e4m3", "stochastic", seed=1),
         None),
        ("mxfp8_e4m3: sft.mx_quantize (blocks of 32)", lambda: sft.mx_quantize(blocks, "mxfp8_e4m3"), None),
        ("mxfp4_e2m1: sft.mx_quantize (blocks of 32)", lambda: sft.mx_quantize(blocks, "mxfp4_e2m1"), None),
        ("nvfp4: sft.nvfp4_quantize", lambda: sft.nvfp4_quantize(blocks), None),
    ]
    times = {}
    print(f"\nfake quantization of 2^{args.log2_size} float32 values, median of {args.runs} runs")
    print(f"{'operation':<52} {'ms':>9} {'ns/value':>9}  ratio")
    for name, function, _ in rows:
        times[name] = median_ms(function, args.runs)
    for name, _, versus in rows:
        ms = times[name]
        notes = [f"{ms / times['x.clone() (baseline)']:.2f}x clone"]
        if name.startswith("bf16: sft"):
            notes.append(f"{times['bf16: torch integer ops (add 0x7FFF + lsb, clear)'] / ms:.1f}x faster than integer ops")
            notes.append(f"{times['bf16: torch x.bfloat16().float()'] / ms:.2f}x torch .bfloat16() speed")
            notes.append(f"{ms / times['bf16: softfloat.round_trip(x.numpy(), ' + repr('bf16') + ')']:.2f}x NumPy path time")
        if name.startswith("e4m3: sft"):
            notes.append(f"{times['e4m3: torch.frexp recipe'] / ms:.1f}x faster than frexp")
            notes.append(f"{times['e4m3: torch log2/floor recipe (microxcaling)'] / ms:.1f}x faster than log2/floor")
            notes.append(f"{ms / times['e4m3: softfloat.round_trip(x.numpy(), ' + repr('e4m3') + ')']:.2f}x NumPy path time")
        if name.startswith("mx") or name.startswith("nvfp4"):
            notes.append(f"{ms / times['e4m3: sft.quantize(x, ' + repr('e4m3') + ')']:.2f}x plain e4m3 time")
        print(f"{name:<52} {ms:>9.2f} {1e6 * ms / n:>9.3f}  {'; '.join(notes)}")

    size = args.gemm
    a = torch.randn(size, size)
    w = torch.randn(size, size)
    flops = 2.0 * size**3
    linear_ms = median_ms(lambda: torch.nn.functional.linear(a, w), max(3, args.runs // 2))
    # torch's own bf16 product (oneDNN, with AMX tiles on CPUs that have them).
    a16, w16 = a.bfloat16(), w.bfloat16()
    linear_bf16_ms = median_ms(lambda: torch.nn.functional.linear(a16, w16), max(3, args.runs // 2))
    ours = {}
    for summation in ("in_order", "tiles", "fastest"):
        softfloat.set_matmul_summation(summation)
        ours[summation] = median_ms(lambda: sft.linear(a, w, weight_format="e4m3", input_format="e4m3"),
                                    max(3, args.runs // 2))
    softfloat.set_matmul_summation("fastest")
    best = min(ours, key=ours.get)
    # The module as a user builds it: nn.Linear's layout, E4M3 weights, default summation;
    # the input in float32 as it is, or rounded to E4M3 too.
    modules = {}
    with torch.no_grad():
        for inputs in (None, "e4m3"):
            layer = sft.Linear(size, size, bias=False, weight="e4m3", input=inputs)
            layer.weight.copy_(w)
            modules[inputs or "fp32"] = median_ms(lambda: layer(a), max(3, args.runs // 2))
    print(f"\nLinear forward {size} x {size} x {size}, one thread")
    print(f"{'torch F.linear fp32':<52} {linear_ms:>9.2f} ms {flops / linear_ms / 1e6:>8.1f} GFLOP/s")
    print(f"{'torch F.linear bf16':<52} {linear_bf16_ms:>9.2f} ms {flops / linear_bf16_ms / 1e6:>8.1f} GFLOP/s")
    for summation, ms in ours.items():
        kernel = softfloat.matmul_path("e4m3", "e4m3", size, size, size, summation=summation)
        print(f"{'sft.linear e4m3 inputs, fp32 acc, ' + summation:<52} {ms:>9.2f} ms {flops / ms / 1e6:>8.1f} GFLOP/s"
              f"  {linear_ms / ms:.2f}x F.linear fp32 speed, {linear_bf16_ms / ms:.2f}x bf16 ({kernel})")
    for inputs, ms in modules.items():
        kernel = softfloat.matmul_path("e4m3" if inputs == "e4m3" else "fp32", "e4m3", size, size, size)
        print(f"{'sft.Linear(weight=e4m3, input=' + inputs + ')':<52} {ms:>9.2f} ms {flops / ms / 1e6:>8.1f} GFLOP/s"
              f"  {linear_ms / ms:.2f}x F.linear fp32 speed ({kernel})")
    print(f"fastest summation order here: {best}")


if __name__ == "__main__":
    main()
