"""scripts/bench_report.py on a small Google Benchmark document: the machine from the
context, each row's median, and its ratio to the baseline of the same size (a plain "/N"
argument or a named "n:N")."""
import json
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench_report.py"


def row(name, time, unit="ns", aggregate="median"):
    return {"name": f"{name}_{aggregate}", "run_name": name, "run_type": "aggregate", "aggregate_name": aggregate,
            "real_time": time, "cpu_time": time, "time_unit": unit}


DOCUMENT = {
    "context": {"date": "2026-12-04T18:00:00+00:00", "num_cpus": 2, "cpu_model": "Intel(R) Xeon(R) Processor",
                "cpuid_vendor": "GenuineIntel", "cpuid_family": "6", "cpuid_model": "167",
                "capabilities": "avx2 f16c avx512", "softfloat_max_isa": "unset"},
    "benchmarks": [row("memcpy_fp32/16", 2.0), row("memcpy_fp32/16", 9.0, aggregate="mean"),
                   row("quantize/fp16/16", 30.0), row("memcpy_fp32/256", 8.0), row("quantize/fp16/256", 40.0),
                   row("sgemv/threads:1/real_time", 20.0, "ms"), row("matvec/threads:1/real_time", 5.0, "ms")],
}


def run(*arguments, document=DOCUMENT):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(document, file)
    return subprocess.run([sys.executable, str(SCRIPT), file.name, *arguments], capture_output=True, text=True,
                          timeout=60)


def main():
    result = run("--baseline", "memcpy_fp32/{size}", "--command", "bench_small_calls", "--title", "Calls")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "### Calls"
    assert "- CPU: Intel(R) Xeon(R) Processor" in lines and "- cpuid model: 167" in lines
    assert "- command: `bench_small_calls`" in lines
    assert "| quantize/fp16/16 | 30 ns | 15.00x |" in lines  # the median, not the mean's 9
    assert "| quantize/fp16/256 | 40 ns | 5.00x |" in lines
    assert "| memcpy_fp32/16 | 2 ns |  |" in lines
    result = run("--baseline", "sgemv/threads:1/real_time", "--speedup")
    assert "| matvec/threads:1/real_time | 5 ms | 4.00x |" in result.stdout.splitlines(), result.stdout
    # Runs interleaved at random come out in the order they were registered.
    shuffled = [dict(row("b/16", 4.0), family_index=1, per_family_instance_index=2),
                dict(row("memcpy_fp32/16", 2.0), family_index=0, per_family_instance_index=0),
                dict(row("c/16", 6.0), family_index=1, per_family_instance_index=1),
                dict(row("a/16", 8.0), family_index=1, per_family_instance_index=0)]
    result = run("--baseline", "memcpy_fp32/{size}", document={"context": DOCUMENT["context"], "benchmarks": shuffled})
    names = [line.split(" | ")[0][2:] for line in result.stdout.splitlines() if line.startswith("| ") and "/16" in line]
    assert names == ["memcpy_fp32/16", "a/16", "c/16", "b/16"], result.stdout
    # A size named by its argument, n:N, wherever it stands.
    named = [row("sgemv_small/n:16/real_time", 40.0), row("sgemv_small/n:64/real_time", 200.0),
             row("matvec_small/n:16/threads:1/summation:0/real_time", 400.0),
             row("matvec_small/n:64/threads:1/summation:0/real_time", 500.0)]
    result = run("--baseline", "sgemv_small/n:{size}/real_time", "--speedup",
                 document={"context": DOCUMENT["context"], "benchmarks": named})
    lines = result.stdout.splitlines()
    assert "| matvec_small/n:16/threads:1/summation:0/real_time | 400 ns | 0.10x |" in lines, result.stdout
    assert "| matvec_small/n:64/threads:1/summation:0/real_time | 500 ns | 0.40x |" in lines, result.stdout
    result = run("--baseline", "nothing/{size}")
    assert result.returncode != 0 and "no row has the baseline 'nothing/{size}'" in result.stderr
    print("6 passed, 0 failed")


if __name__ == "__main__":
    main()
