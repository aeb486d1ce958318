// Throughput of the MX block scaling (softfloat/mx.hpp), quantize and dequantize for
// each element kind in blocks of 32, in cache (2^14 values) and out of cache (2^26), beside
// plain nearest-even quantize to E4M3 (simd::quantize, no scales) and memcpy of the same
// fp32 bytes; the round-up scale rule and the scalar definition once for comparison, and
// the two-level NVFP4 scaling.
// Data: N(0, 1) times a per-block magnitude 2^k, k uniform in [-8, 8], as tensors whose
// rows differ in scale. Counter ns_per_value; one thread (the library's default).
//   bench_mx_conversion --benchmark_min_time=0.2 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat::bench_support {
namespace {

constexpr std::size_t kBlock = 32;

const std::vector<float>& inputs(std::size_t n) {
  static std::vector<float> cache[2];
  std::vector<float>& values = cache[n == kInCache ? 0 : 1];
  if (values.size() != n) {
    std::mt19937 rng(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> binade(-8, 8);
    values.resize(n);
    for (std::size_t begin = 0; begin < n; begin += kBlock) {
      const float scale = std::ldexp(1.0f, binade(rng));
      for (std::size_t i = begin; i < begin + kBlock && i < n; ++i) values[i] = normal(rng) * scale;
    }
  }
  return values;
}

void mx_quantize_bench(benchmark::State& state, mx::Element element, mx::ScaleRule rule) {
  const std::size_t n = std::size_t(state.range(0));
  const mx::Options options{kBlock, rule};
  const std::vector<float>& in = inputs(n);
  const std::size_t bytes = mx::element_bytes(element, n), scale_count = mx::scale_count(n, options);
  std::uint8_t* elements = scratch<std::uint8_t>(0, bytes);
  std::uint8_t* scales = scratch<std::uint8_t>(1, scale_count);
  time_conversion(state, n, elements,
                  [&] { mx::quantize(in.data(), n, elements, bytes, scales, scale_count, element, options); });
}

void mx_scalar_quantize_bench(benchmark::State& state, mx::Element element) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n);
  const std::size_t bytes = mx::element_bytes(element, n), scale_count = mx::scale_count(n);
  std::uint8_t* elements = scratch<std::uint8_t>(0, bytes);
  std::uint8_t* scales = scratch<std::uint8_t>(1, scale_count);
  time_conversion(state, n, elements,
                  [&] { mx::scalar_quantize(in.data(), n, elements, bytes, scales, scale_count, element); });
}

void mx_dequantize_bench(benchmark::State& state, mx::Element element) {
  const std::size_t n = std::size_t(state.range(0));
  const std::size_t bytes = mx::element_bytes(element, n), scale_count = mx::scale_count(n);
  std::uint8_t* elements = scratch<std::uint8_t>(0, bytes);
  std::uint8_t* scales = scratch<std::uint8_t>(1, scale_count);
  mx::quantize(inputs(n).data(), n, elements, bytes, scales, scale_count, element);
  float* out = scratch<float>(2, n);
  time_conversion(state, n, out,
                  [&] { mx::dequantize(elements, bytes, scales, scale_count, n, out, element); });
}

// Two-level NVFP4 (softfloat/nvfp4.hpp): E2M1 elements, an E4M3 scale per 16 values.
void nvfp4_quantize_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n);
  const std::size_t bytes = nvfp4::element_bytes(n), scale_count = nvfp4::scale_count(n);
  std::uint8_t* elements = scratch<std::uint8_t>(0, bytes);
  std::uint8_t* scales = scratch<std::uint8_t>(1, scale_count);
  float amax = 0.0f;
  time_conversion(state, n, elements,
                  [&] { nvfp4::quantize(in.data(), n, elements, bytes, scales, scale_count, &amax); });
}

void nvfp4_dequantize_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const std::size_t bytes = nvfp4::element_bytes(n), scale_count = nvfp4::scale_count(n);
  std::uint8_t* elements = scratch<std::uint8_t>(0, bytes);
  std::uint8_t* scales = scratch<std::uint8_t>(1, scale_count);
  float amax = 0.0f;
  nvfp4::quantize(inputs(n).data(), n, elements, bytes, scales, scale_count, &amax);
  float* out = scratch<float>(2, n);
  time_conversion(state, n, out, [&] { nvfp4::dequantize(elements, bytes, scales, scale_count, amax, n, out); });
}

// Plain nearest-even quantize to E4M3 of the same data, without scales (values beyond 448
// would become NaN; here they stay below it).
void e4m3_quantize_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n);
  std::uint8_t* out = scratch<std::uint8_t>(0, n);
  time_conversion(state, n, out, [&] { simd::quantize<E4M3>(in.data(), n, out); });
}

void memcpy_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n);
  float* out = scratch<float>(2, n);
  time_conversion(state, n, out, [&] { std::memcpy(out, in.data(), n * sizeof(float)); });
}

int register_all() {
  for (std::int64_t n : {std::int64_t(kInCache), std::int64_t(kOutOfCache)}) {
    benchmark::RegisterBenchmark("memcpy_fp32", memcpy_bench)->Arg(n);
    benchmark::RegisterBenchmark("quantize_plain/e4m3", e4m3_quantize_bench)->Arg(n);
    for (mx::Element element : mx::kAllElements) {
      const std::string name(mx::element_name(element));
      benchmark::RegisterBenchmark(("mx_quantize/" + name).c_str(), mx_quantize_bench, element,
                                   mx::ScaleRule::floor)
          ->Arg(n);
      benchmark::RegisterBenchmark(("mx_dequantize/" + name).c_str(), mx_dequantize_bench, element)->Arg(n);
    }
    benchmark::RegisterBenchmark("nvfp4_quantize", nvfp4_quantize_bench)->Arg(n);
    benchmark::RegisterBenchmark("nvfp4_dequantize", nvfp4_dequantize_bench)->Arg(n);
  }
  benchmark::RegisterBenchmark("mx_quantize_ceil/mxfp8_e4m3", mx_quantize_bench, mx::Element::fp8_e4m3,
                               mx::ScaleRule::rceil)
      ->Arg(kInCache);
  benchmark::RegisterBenchmark("mx_quantize_ceil/mxfp4_e2m1", mx_quantize_bench, mx::Element::fp4_e2m1,
                               mx::ScaleRule::rceil)
      ->Arg(kInCache);
  benchmark::RegisterBenchmark("mx_scalar_quantize/mxfp8_e4m3", mx_scalar_quantize_bench, mx::Element::fp8_e4m3)
      ->Arg(kInCache);
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace softfloat::bench_support

BENCHMARK_MAIN();
