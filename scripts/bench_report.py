#!/usr/bin/env python3
"""A performance page's section from Google Benchmark's JSON: the machine, the command, and
one table whose every row carries its ratio to a baseline measured in the same process.

    build/bench/simd/bench_small_calls --benchmark_repetitions=3 \\
        --benchmark_report_aggregates_only=true --benchmark_format=json > small_calls.json
    python3 scripts/bench_report.py small_calls.json --baseline 'memcpy_fp32/{size}' \\
        --command 'bench_small_calls --benchmark_repetitions=3' > section.md

A row's time is its median over the repetitions (real time when the benchmark asked for
it), else its single run. --baseline names the row it is divided by; "{size}" stands for
the row's "n:N" argument, else its last "/N" argument, so that each size is compared
with the baseline of the same size. --speedup writes baseline / row instead (how many
times faster than the baseline: for matrix-vector products against sgemv); without it
the ratio is row / baseline (how many times the baseline's time: for conversions
against memcpy).
The machine comes from the context that bench/common/cpu_context.hpp adds: the model
string, cpuid's vendor, family and model, the capabilities and SOFTFLOAT_MAX_ISA.
"""
import argparse
import json
import re
import sys

CONTEXT_FIELDS = [("cpu_model", "CPU"), ("cpuid_vendor", "cpuid vendor"), ("cpuid_family", "cpuid family"),
                  ("cpuid_model", "cpuid model"), ("capabilities", "capabilities used"),
                  ("softfloat_max_isa", "SOFTFLOAT_MAX_ISA"), ("openblas_core", "OpenBLAS core"),
                  ("num_cpus", "CPUs"), ("date", "date")]


def registration_order(benchmark):
    """Where a benchmark was registered: with --benchmark_enable_random_interleaving the
    document lists the runs in random order, and the table should not."""
    return benchmark.get("family_index", 0), benchmark.get("per_family_instance_index", 0)


def row_times(benchmarks):
    """{name: (time, unit)}: the median where there are repetitions, else the one run, in
    the order the benchmarks were registered."""
    benchmarks = sorted(benchmarks, key=registration_order)  # stable: documents without indices keep their order
    medians = {b["run_name"]: b for b in benchmarks if b.get("aggregate_name") == "median"}
    singles = {b["run_name"]: b for b in benchmarks if b.get("run_type") == "iteration"}
    rows = medians or singles
    return {name: (b["real_time"], b["time_unit"]) for name, b in rows.items()}, rows


def size_of(name):
    match = re.search(r"/n:(\d+)(?:/|$)", name) or re.search(r"/(\d+)(?:/[a-z_]+)*$", name)
    return match.group(1) if match else ""


def to_ns(time, unit):
    return time * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def report(document, baseline, speedup, command, title):
    context = document["context"]
    times, rows = row_times(document["benchmarks"])
    lines = [f"### {title}", ""] if title else []
    for key, label in CONTEXT_FIELDS:
        if key in context:
            lines.append(f"- {label}: {context[key]}")
    if command:
        lines.append(f"- command: `{command}`")
    lines.append("")
    ratio_name = "speed-up over baseline" if speedup else "time / baseline"
    lines.append(f"| benchmark | time | {ratio_name} |")
    lines.append("|---|---:|---:|")
    missing = []
    for name, (time, unit) in times.items():
        base_name = baseline.replace("{size}", size_of(name))
        cell = ""
        if base_name in times and base_name != name:
            base = to_ns(*times[base_name])
            ours = to_ns(time, unit)
            cell = f"{base / ours:.2f}x" if speedup else f"{ours / base:.2f}x"
        elif base_name != name:
            missing.append(name)
        lines.append(f"| {name} | {time:.4g} {unit} | {cell} |")
    if missing and len(missing) == len(times):
        raise SystemExit(f"bench_report: no row has the baseline '{baseline}'")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="Google Benchmark's --benchmark_format=json output")
    parser.add_argument("--baseline", required=True, help="the baseline row's name; {size} is the row's size")
    parser.add_argument("--speedup", action="store_true", help="baseline / row instead of row / baseline")
    parser.add_argument("--command", default="", help="the command that produced the JSON, for the page")
    parser.add_argument("--title", default="", help="a heading for the section")
    arguments = parser.parse_args(argv)
    with open(arguments.json) as source:
        document = json.load(source)
    sys.stdout.write(report(document, arguments.baseline, arguments.speedup, arguments.command, arguments.title))


if __name__ == "__main__":
    main()
