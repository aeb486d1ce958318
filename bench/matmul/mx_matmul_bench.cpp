// softfloat::mx_matmul (exact block products of MX operands) in the bench_matmul binary,
// beside the openblas_sgemm rows of matmul_bench.cpp (same process, same sizes): square
// products of normally distributed values MX-quantized to E2M1, E2M3 or MXINT8, GFLOP/s
// counted as 2 m n k like sgemm's. Each kernel runs where the CPU has its instructions
// and is named in the label; one it lacks is reported as skipped with the reason.
//   bench_matmul --benchmark_filter='mx_matmul|openblas_sgemm/n:1024'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "softfloat/softfloat.hpp"

namespace {

using namespace softfloat;

struct MxMatrix {
  std::vector<std::uint8_t> elements, scales;
  MxOperand operand(mx::Element element) const {
    return {elements.data(), elements.size(), scales.data(), scales.size(), element};
  }
};

MxMatrix random_mx(std::size_t count, mx::Element element, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = normal(rng);
  MxMatrix x{std::vector<std::uint8_t>(mx::element_bytes(element, count)), std::vector<std::uint8_t>(count / 32)};
  mx::quantize(values.data(), count, x.elements.data(), x.elements.size(), x.scales.data(), x.scales.size(), element);
  return x;
}

constexpr MxMatmulKernel kKernels[] = {MxMatmulKernel::avx512_vnni, MxMatmulKernel::exact_scalar,
                                       MxMatmulKernel::amx_int8};

// Arguments: n, threads, kernel (0 vpdpbusd, 1 exact scalar, 2 AMX int8 tiles).
template <mx::Element kElement>
void square_mx_matmul(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const MxMatmulKernel kernel = kKernels[state.range(2)];
  if (!mx_matmul_kernel_supported(kernel)) {
    state.SkipWithError((std::string(mx_matmul_kernel_name(kernel)) + " skipped: this CPU, system or build lacks "
                         "its instructions").c_str());
    return;
  }
  set_num_threads(int(state.range(1)));
  const MxMatrix a = random_mx(n * n, kElement, 1), b = random_mx(n * n, kElement, 2);
  const auto c = hwy::AllocateAligned<float>(n * n);  // 64-byte rows: C by non-temporal stores
  for (auto _ : state) {
    mx_matmul(a.operand(kElement), b.operand(kElement), c.get(), n, n, n, kernel);
    benchmark::DoNotOptimize(c.get());
    benchmark::ClobberMemory();
  }
  set_num_threads(1);
  state.SetLabel(std::string(mx_matmul_kernel_name(kernel)));
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
void mx_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads", "kernel"});
  for (int n : {256, 1024, 2048}) b->Args({n, 1, 0});
  b->Args({1024, 2, 0});
  for (int n : {256, 1024, 2048}) b->Args({n, 1, 2});
  b->Args({1024, 2, 2});
  b->Args({256, 1, 1});  // the exact scalar loop: the definition, not a fast path
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();  // two threads: CPU time would count both
}
BENCHMARK(square_mx_matmul<mx::Element::fp4_e2m1>)->Name("mx_matmul_e2m1")->Apply(mx_sizes);
BENCHMARK(square_mx_matmul<mx::Element::fp6_e2m3>)->Name("mx_matmul_e2m3")->Apply(mx_sizes);
BENCHMARK(square_mx_matmul<mx::Element::int8>)->Name("mx_matmul_int8")->Apply(mx_sizes);

}  // namespace
