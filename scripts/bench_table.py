#!/usr/bin/env python3
"""Turns the JSON output of bench_scalar_conversion into a Markdown table (docs/development.md, "Benchmarks").

    build/bench/bench_scalar_conversion --benchmark_min_time=0.2 --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true --benchmark_format=json > scalar.json
    python3 scripts/bench_table.py scalar.json

ns/value is the benchmark's "per_value" counter (CPU time per value), the median over
the repetitions when the run has repetitions; the ratio divides it by the time per
value of baseline/copy_float, a plain copy of the same floats.
"""
import json
import sys


def main() -> None:
    with open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin as source:
        results = json.load(source)["benchmarks"]
    has_medians = any(r.get("aggregate_name") == "median" for r in results)
    ns = {
        r["run_name"]: r["per_value"] * 1e9
        for r in results
        if "per_value" in r and (r.get("aggregate_name") == "median" if has_medians else r["run_type"] == "iteration")
    }
    copy = ns["baseline/copy_float"]

    def cell(name: str) -> str:
        return f"{ns[name]:.2f} | {ns[name] / copy:.0f}x" if name in ns else "n/a | n/a"

    print("| format | float -> format ns/value | ratio to copy | format -> float ns/value | ratio to copy |")
    print("|---|---:|---:|---:|---:|")
    print(f"| copy of floats (baseline) | {copy:.2f} | 1x | | |")
    print(f"| fp16, native F16C `_cvtss_sh` / `_cvtsh_ss` | {cell('native_f16c/to_fp16')} | {cell('native_f16c/from_fp16')} |")
    formats = [n.split("/", 1)[1] for n in ns if n.startswith("to_format/")]
    for fmt in formats:
        print(f"| {fmt} | {cell('to_format/' + fmt)} | {cell('from_format/' + fmt)} |")


if __name__ == "__main__":
    main()
