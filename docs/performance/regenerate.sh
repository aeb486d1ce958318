#!/usr/bin/env bash
# One page per CPU: runs the benchmarks that docs/performance/ reports on this machine,
# keeps their Google Benchmark JSON in docs/performance/data/NAME/, and writes
# docs/performance/NAME.md from that JSON with scripts/bench_report.py. NAME names the
# CPU (for example xeon-sapphire-rapids-kvm); --from-json rewrites the page from the
# committed JSON without measuring again.
#
#   bash docs/performance/regenerate.sh NAME [--from-json]
#
# Needs a Release build in build/ with Google Benchmark and OpenBLAS (bash scripts/dev.sh
# demo, then cmake --build build --target bench_small_calls bench_matmul
# bench_simd_conversion). One thread unless a table says otherwise; medians of 3
# repetitions (5 out of cache), interleaved at random with the baseline's, so that a
# neighbour's burst on a shared host lands on every row alike rather than on a few.
# Run it on a quiet machine: other processes on the two cores move the numbers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
name=${1:?usage: bash docs/performance/regenerate.sh NAME [--from-json]}
data=docs/performance/data/$name
page=docs/performance/$name.md
python=${PYTHON:-.venv/bin/python}
mkdir -p "$data"

# OpenBLAS picks its kernels by CPU model and falls back to its SSE3 "Prescott" kernels on
# a model it does not know (OpenBLAS 0.3.21 on a KVM guest reporting family 6 model 207:
# sgemm at 1024^3 took 72-119 ms there, against 14-17 ms with its AVX-512 kernels), which
# would flatter every ratio. Unless the caller chose, name the best core the CPU's flags
# allow; the pages show the core that ran (openblas_core).
if [[ -z ${OPENBLAS_CORETYPE:-} && -r /proc/cpuinfo ]]; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  case " $flags " in
    *" avx512_bf16 "*) export OPENBLAS_CORETYPE=Cooperlake ;;
    *" avx512f "*) export OPENBLAS_CORETYPE=SkylakeX ;;
    *" avx2 "*) export OPENBLAS_CORETYPE=Haswell ;;
  esac
fi

# Each benchmark: its JSON file, the command (run from the repository root), the
# baseline row and whether the ratio is a speed-up over it.
small_calls="${BUILD:-build}/bench/simd/bench_small_calls --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true"
matvec="${BUILD:-build}/bench/matmul/bench_matmul --benchmark_filter='matvec_.*1x8192x8192/threads:1/|sgemv_1x8192x8192/threads:1' --benchmark_min_time=0.3 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true"
matvec_avx2="SOFTFLOAT_MAX_ISA=avx2 OPENBLAS_CORETYPE=Haswell $matvec"
# The matrix-vector product at 1 x n x n, n = 16 .. 4096: what a call costs beside sgemv.
matvec_small="${BUILD:-build}/bench/matmul/bench_matmul --benchmark_filter='^(matvec_small_|openblas_sgemv_small)' --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true"
# Out of cache (2^26 values): the 8- and 16-bit formats' round trip and stochastic
# rounding beside memcpy, on one thread and on the library's two.
out_of_cache="${BUILD:-build}/bench/simd/bench_simd_conversion --benchmark_filter='^(memcpy_fp32|(round_trip|round_trip_stochastic|quantize_stochastic)/(fp16|bf16|e5m2|e4m3))/67108864\$' --benchmark_min_time=0.3 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true"
out_of_cache_threads="SOFTFLOAT_NUM_THREADS=2 $out_of_cache"
# Square GEMMs, one thread, E4M3 and BF16 codes and fp32 times E4M3 (a quantized
# Linear's forward) at the default summation (fastest: AMX tiles where usable) and in
# order, beside sgemm on the same values; one JSON per size,
# since each size has its own sgemm row; 1024 again under the AVX2 ceiling.
gemm() {  # gemm SIZE: the command for one size
  echo "${BUILD:-build}/bench/matmul/bench_matmul --benchmark_filter='^(matmul_(e4m3_x_e4m3|bf16_x_bf16|fp32_x_e4m3)/n:$1/threads:1/summation:[01]|openblas_sgemm/n:$1/threads:1)/' --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true"
}
gemm_1024=$(gemm 1024)
gemm_2048=$(gemm 2048)
gemm_1024_avx2="SOFTFLOAT_MAX_ISA=avx2 OPENBLAS_CORETYPE=Haswell $gemm_1024"

if [[ ${2:-} != --from-json ]]; then
  bash -c "$small_calls --benchmark_format=json" >"$data/small_calls.json"
  bash -c "$matvec --benchmark_format=json" >"$data/matvec.json"
  bash -c "$matvec_avx2 --benchmark_format=json" >"$data/matvec_avx2.json"
  bash -c "$matvec_small --benchmark_format=json" >"$data/matvec_small.json"
  bash -c "$out_of_cache --benchmark_format=json" >"$data/out_of_cache.json"
  bash -c "$out_of_cache_threads --benchmark_format=json" >"$data/out_of_cache_threads.json"
  bash -c "$gemm_1024 --benchmark_format=json" >"$data/gemm_1024.json"
  bash -c "$gemm_2048 --benchmark_format=json" >"$data/gemm_2048.json"
  bash -c "$gemm_1024_avx2 --benchmark_format=json" >"$data/gemm_1024_avx2.json"
fi

{
  echo "# $name"
  echo
  echo "Made by \`bash docs/performance/regenerate.sh $name\` from the JSON in \`data/$name/\`"
  echo "(commit $(git rev-parse --short HEAD) when the page was written; each table's date is when its JSON was measured,"
  echo "which may be an earlier commit's). One thread unless a table"
  echo "says otherwise, medians of 3 repetitions (5 out of cache) run in random order; each ratio is to a baseline"
  echo "measured in the same process. Unless OPENBLAS_CORETYPE is set, the script names the best"
  echo "OpenBLAS core the CPU's flags allow (each table's header gives the core that ran)."
  echo
  "$python" scripts/bench_report.py "$data/small_calls.json" --baseline 'memcpy_fp32/{size}' \
    --title 'One call on 16 to 4096 values (time / memcpy of the same floats)' --command "$small_calls"
  echo
  "$python" scripts/bench_report.py "$data/matvec.json" --speedup \
    --baseline 'openblas_sgemv_1x8192x8192/threads:1/real_time' \
    --title 'Matrix-vector product, 1 x 8192 x 8192 (speed-up over OpenBLAS sgemv)' --command "$matvec"
  echo
  "$python" scripts/bench_report.py "$data/matvec_avx2.json" --speedup \
    --baseline 'openblas_sgemv_1x8192x8192/threads:1/real_time' \
    --title 'The same under SOFTFLOAT_MAX_ISA=avx2 and OpenBLAS Haswell kernels' --command "$matvec_avx2"
  # Pages measured before the small matrix-vector table existed have no matvec_small.json.
  if [[ -f $data/matvec_small.json ]]; then
    echo
    "$python" scripts/bench_report.py "$data/matvec_small.json" --speedup \
      --baseline 'openblas_sgemv_small/n:{size}/real_time' \
      --title 'Matrix-vector product at small sizes, 1 x n x n (speed-up over OpenBLAS sgemv of the same n)' \
      --command "$matvec_small"
  fi
  echo
  "$python" scripts/bench_report.py "$data/out_of_cache.json" --baseline 'memcpy_fp32/{size}' \
    --title 'Out of cache, 2^26 values, one thread (time / memcpy of the same floats)' --command "$out_of_cache"
  echo
  "$python" scripts/bench_report.py "$data/out_of_cache_threads.json" --baseline 'memcpy_fp32/{size}' \
    --title 'Out of cache, 2^26 values, two threads (memcpy: one)' --command "$out_of_cache_threads"
  # Pages measured before the GEMM tables existed have no gemm_*.json.
  for table in "1024#$gemm_1024#Square GEMM, 1024^3, one thread (speed-up over OpenBLAS sgemm)" \
               "2048#$gemm_2048#Square GEMM, 2048^3, one thread (speed-up over OpenBLAS sgemm)" \
               "1024_avx2#$gemm_1024_avx2#Square GEMM, 1024^3, under SOFTFLOAT_MAX_ISA=avx2 and OpenBLAS Haswell kernels"; do
    IFS='#' read -r suffix command title <<<"$table"
    [[ -f $data/gemm_$suffix.json ]] || continue
    echo
    "$python" scripts/bench_report.py "$data/gemm_$suffix.json" --speedup \
      --baseline "openblas_sgemm/n:${suffix%_avx2}/threads:1/real_time" --title "$title" --command "$command"
  done
} >"$page"
echo "wrote $page"
