#!/usr/bin/env python3
"""Turns the JSON output of bench_matmul into Markdown tables (docs/development.md, "Benchmarks").

    build/bench/matmul/bench_matmul --benchmark_min_time=0.5 --benchmark_repetitions=3 \\
        --benchmark_report_aggregates_only=true --benchmark_out=matmul.json --benchmark_out_format=json
    .venv/bin/python scripts/matmul_bench_table.py matmul.json

Every figure is the median over the repetitions of the benchmark's GFLOP/s (real time);
each ratio divides by the OpenBLAS row of the same size and thread count, run in the
same process; the two-thread rows also show their scaling over one thread. The default
rows name the kernel that the CPU's table row chose (the benchmark's label).
"""
import json
import sys

SUMMATIONS = (0, 1, 2)  # bench_matmul's summation argument: fastest (the default), in_order, pairs


def main() -> None:
    with open(sys.argv[1]) as source:
        results = json.load(source)["benchmarks"]
    gflops, kernel = {}, {}
    for r in results:
        if r.get("aggregate_name") == "median":
            name = r["run_name"].removesuffix("/real_time")
            gflops[name] = r["GFLOP/s"] / 1e9 if r["GFLOP/s"] > 1e6 else r["GFLOP/s"]
            kernel[name] = r.get("label", "").partition(": ")[2]

    def label(summation: int, name: str, first: str) -> str:
        # "default (fma gemm)", "in order (FMA chain)", "pairs (vdpbf16ps)"
        return (f"{first} ({kernel.get(name) or 'fastest'})", "in order (FMA chain)", "pairs (vdpbf16ps)")[summation]

    def cell(name: str, baseline: str) -> str:
        return f"{gflops[name]:.0f} ({gflops[name] / gflops[baseline]:.2f}x)" if name in gflops else "n/a"

    print("| GFLOP/s (ratio to sgemm) | 256 | 512 | 1024 | 2048 |")
    print("|---|---:|---:|---:|---:|")
    sizes = (256, 512, 1024, 2048)
    print("| OpenBLAS `cblas_sgemm` on fp32 copies | " +
          " | ".join(f"{gflops[f'openblas_sgemm/n:{n}/threads:1']:.0f}" for n in sizes) + " |")
    for fmt in ("e4m3", "bf16"):
        for summation in SUMMATIONS:
            row = [cell(f"matmul_{fmt}_x_{fmt}/n:{n}/threads:1/summation:{summation}", f"openblas_sgemm/n:{n}/threads:1")
                   for n in sizes]
            name = f"matmul_{fmt}_x_{fmt}/n:1024/threads:1/summation:{summation}"
            print(f"| {fmt.upper()} x {fmt.upper()}, {label(summation, name, 'default')} | " + " | ".join(row) + " |")
    print()
    print("| 1024^3 on two threads | GFLOP/s | ratio to sgemm (2 threads) | scaling over 1 thread |")
    print("|---|---:|---:|---:|")
    blas1, blas2 = "openblas_sgemm/n:1024/threads:1", "openblas_sgemm/n:1024/threads:2"
    print(f"| OpenBLAS `cblas_sgemm` | {gflops[blas2]:.0f} | 1.00x | {gflops[blas2] / gflops[blas1]:.2f}x |")
    for fmt in ("e4m3", "bf16"):
        for summation in SUMMATIONS:
            one = f"matmul_{fmt}_x_{fmt}/n:1024/threads:1/summation:{summation}"
            two = f"matmul_{fmt}_x_{fmt}/n:1024/threads:2/summation:{summation}"
            print(f"| {fmt.upper()} x {fmt.upper()}, {label(summation, one, 'default')} | {gflops[two]:.0f} | {gflops[two] / gflops[blas2]:.2f}x | "
                  f"{gflops[two] / gflops[one]:.2f}x |")
    print()
    print("| 1 x 8192 x 8192 matrix-vector | ms, 1 thread | speed-up over sgemv | ms, 2 threads | speed-up over sgemv (2 threads) | scaling over 1 thread |")
    print("|---|---:|---:|---:|---:|---:|")
    ms = {name: 2 * 8192 * 8192 / (g * 1e9) * 1e3 for name, g in gflops.items()}
    v1, v2 = "openblas_sgemv_1x8192x8192/threads:1", "openblas_sgemv_1x8192x8192/threads:2"
    print(f"| OpenBLAS `cblas_sgemv` on fp32 (4 bytes a weight) | {ms[v1]:.2f} | 1.00x | {ms[v2]:.2f} | 1.00x | "
          f"{ms[v1] / ms[v2]:.2f}x |")
    for fmt, width in (("e4m3", 1), ("bf16", 2)):
        for summation in SUMMATIONS:
            one = f"matvec_{fmt}_1x8192x8192/threads:1/summation:{summation}"
            two = f"matvec_{fmt}_1x8192x8192/threads:2/summation:{summation}"
            print(f"| {fmt.upper()} weights ({width} byte{'s' if width > 1 else ''}), {label(summation, one, 'default')} | {ms[one]:.2f} | "
                  f"{ms[v1] / ms[one]:.2f}x | {ms[two]:.2f} | {ms[v2] / ms[two]:.2f}x | {ms[one] / ms[two]:.2f}x |")


if __name__ == "__main__":
    main()
