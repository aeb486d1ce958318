// Throughput of the array conversions (softfloat/simd.hpp) for each named format, in
// cache (2^14 values) and out of cache (2^26 values), beside what bounds them: memcpy of
// the same fp32 bytes, loops of the native F16C and AVX512-BF16 instructions, and the
// scalar round_to_format() loop, on normally distributed data and (quantize_full_range)
// on the format's whole range; densely packed 4- and 6-bit arrays too; round_trip
// beside quantize followed by dequantize. Counters:
// ns_per_value, and bytes/s of fp32 data. One thread (the library's default).
//   bench_simd_conversion --benchmark_min_time=0.2 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/common/bench_support.hpp"
#include "simd/conversion_test_hooks.hpp"
#include "simd/hardware_shortcuts.hpp"
#include "bench/common/cpu_context.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat::bench_support {
namespace {

// Two kinds of data. Normal: normally distributed values scaled to the format's range,
// so that most lanes take the common path (as real tensors do); a few percent land in
// the format's subnormal or overflow range. Full range: log-uniform magnitudes from half
// the smallest subnormal to twice the largest value, random signs, so that most vectors
// mix binades, subnormals and overflow. Unsigned formats (E8M0) get magnitudes only.
enum class Data { normal, full_range };

const std::vector<float>& inputs(std::size_t n, const Format& f, Data data = Data::normal) {
  static std::vector<float> cache[4];
  static Format cached_format[4];
  const int slot = (n == kInCache ? 0 : 1) + (data == Data::full_range ? 2 : 0);
  if (cache[slot].size() != n || !(cached_format[slot] == f)) {
    std::mt19937 rng(42);
    cache[slot].resize(n);
    if (data == Data::normal) {
      std::normal_distribution<float> normal(0.0f, 1.0f);
      const double scale = std::ldexp(1.0, f.max_exponent() > 8 ? 4 : f.max_exponent() / 2);
      for (auto& x : cache[slot]) x = float(normal(rng) * scale);
    } else {
      const double low = f.min_normal_exponent() - f.mantissa_bits - 1, high = f.max_exponent() + 1;
      std::uniform_real_distribution<double> exponent(std::max(low, -149.0), std::min(high, 127.0));
      for (auto& x : cache[slot]) x = float(std::exp2(exponent(rng)) * ((rng() & 1) ? -1.0 : 1.0));
    }
    if (!f.is_signed)
      for (auto& x : cache[slot]) x = std::fabs(x);
    cached_format[slot] = f;
  }
  return cache[slot];
}

// Normal data as float64 arrays hold it (full 53-bit significands, not widened floats).
const std::vector<double>& double_inputs(std::size_t n, const Format& f) {
  static std::vector<double> cache[2];
  static Format cached_format[2];
  const int slot = n == kInCache ? 0 : 1;
  if (cache[slot].size() != n || !(cached_format[slot] == f)) {
    std::mt19937_64 rng(42);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double scale = std::ldexp(1.0, f.max_exponent() > 8 ? 4 : f.max_exponent() / 2);
    cache[slot].resize(n);
    for (auto& x : cache[slot]) x = f.is_signed ? normal(rng) * scale : std::fabs(normal(rng) * scale);
    cached_format[slot] = f;
  }
  return cache[slot];
}

template <class Code>
void quantize_double_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<double>& in = double_inputs(n, f);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out, [&] { simd::quantize(in.data(), n, out, f); });
}

// What quantize from double was before its vector path: round_to_format on each double.
template <class Code>
void quantize_double_scalar_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<double>& in = double_inputs(n, f);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out, [&] {
    for (std::size_t i = 0; i < n; ++i) out[i] = Code(round_to_format(decode(in[i]), f));
  });
}

void memcpy_double_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const double* in = double_inputs(n, FP32::format).data();
  double* out = scratch<double>(0, n);
  time_conversion(state, n, out, [&] { std::memcpy(out, in, n * sizeof(double)); });
}

template <class Code>
void quantize_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out, [&] { simd::quantize(in.data(), n, out, f); });
}

// Another rounding direction: the general integer path (a directed mode) or the
// random draw of stochastic rounding, beside quantize_bench's nearest even.
template <class Code>
void quantize_rounding_bench(benchmark::State& state, Format f, Rounding mode) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out,
                  [&] { simd::quantize(in.data(), n, out, f, mode, Overflow::standard, RandomStream{1, 0}); });
}

template <class Code>
void quantize_full_range_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f, Data::full_range);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out, [&] { simd::quantize(in.data(), n, out, f); });
}

// 4- and 6-bit formats packed densely (simd::quantize_packed / dequantize_packed).
void quantize_packed_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  const std::size_t bytes = simd::packed_size(f, n);
  std::uint8_t* out = scratch<std::uint8_t>(0, bytes);
  time_conversion(state, n, out, [&] { simd::quantize_packed(in.data(), n, out, bytes, f); });
}

void dequantize_packed_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::size_t bytes = simd::packed_size(f, n);
  std::uint8_t* packed = scratch<std::uint8_t>(1, bytes);
  simd::quantize_packed(inputs(n, f).data(), n, packed, bytes, f);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] { simd::dequantize_packed(packed, bytes, n, out, f); });
}

template <class Code>
void dequantize_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  Code* codes = scratch<Code>(1, n);
  simd::quantize(inputs(n, f).data(), n, codes, f);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] { simd::dequantize(codes, n, out, f); });
}

// Fake quantization in one pass (the fused loop), beside the three passes it replaces:
// quantize into a code array, then dequantize it.
void round_trip_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] { simd::round_trip(in.data(), n, out, f); });
}

// Fake quantization with stochastic rounding, the training path (gradients rounded
// with a fresh draw per value).
void round_trip_stochastic_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] {
    simd::round_trip(in.data(), n, out, f, Rounding::stochastic, Overflow::standard, RandomStream{1, 0});
  });
}

template <class Code>
void quantize_then_dequantize_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  Code* codes = scratch<Code>(1, n);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] {
    simd::quantize(in.data(), n, codes, f);
    simd::dequantize(codes, n, out, f);
  });
}

template <class Code>
void generic_quantize_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  Code* out = scratch<Code>(0, n);
  time_conversion(state, n, out, [&] { simd::detail::quantize_generic(in.data(), n, out, f, Rounding::nearest_even, Overflow::standard); });
}

void scalar_quantize_bench(benchmark::State& state, Format f) {
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, f);
  std::uint32_t* out = scratch<std::uint32_t>(0, n);
  time_conversion(state, n, out, [&] {
    simd::detail::quantize_scalar(in.data(), n, out, f, Rounding::nearest_even, Overflow::standard);
  });
}

void memcpy_bench(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const float* in = inputs(n, FP32::format).data();
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] { std::memcpy(out, in, n * sizeof(float)); });
}

void native_f16c_bench(benchmark::State& state) {
  if (!simd::detail::f16c_usable()) return state.SkipWithError("no F16C");
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, FP16::format);
  std::uint16_t* out = scratch<std::uint16_t>(0, n);
  time_conversion(state, n, out, [&] { simd::detail::fp16_from_float_f16c(in.data(), n, out); });
}

void native_f16c_to_float_bench(benchmark::State& state) {
  if (!simd::detail::f16c_usable()) return state.SkipWithError("no F16C");
  const std::size_t n = std::size_t(state.range(0));
  std::uint16_t* in = scratch<std::uint16_t>(1, n);
  simd::quantize<FP16>(inputs(n, FP16::format).data(), n, in);
  float* out = scratch<float>(0, n);
  time_conversion(state, n, out, [&] { simd::detail::float_from_fp16_f16c(in, n, out); });
}

void native_bf16_bench(benchmark::State& state) {
  if (!simd::detail::avx512bf16_usable()) return state.SkipWithError("no AVX512-BF16");
  const std::size_t n = std::size_t(state.range(0));
  const std::vector<float>& in = inputs(n, BF16::format);
  std::uint16_t* out = scratch<std::uint16_t>(0, n);
  time_conversion(state, n, out, [&] { simd::detail::bf16_from_float_avx512bf16(in.data(), n, out); });
}

struct Named {
  const char* name;
  Format format;
};
const Named kFormats[] = {{"fp16", FP16::format},     {"bf16", BF16::format},         {"tf32", TF32::format},
                          {"e5m2", E5M2::format},     {"e4m3", E4M3::format},         {"e3m2", E3M2::format},
                          {"e2m3", E2M3::format},     {"e2m1", E2M1::format},         {"e8m0", E8M0::format},
                          {"e4m3fnuz", E4M3FNUZ::format}, {"e5m2fnuz", E5M2FNUZ::format}, {"p3109_8p3", P3109<8, 3>::format}};

template <class Code>
void register_format(const Named& named) {
  const std::string name = named.name;
  for (std::int64_t n : {std::int64_t(kInCache), std::int64_t(kOutOfCache)}) {
    benchmark::RegisterBenchmark(("quantize/" + name).c_str(), quantize_bench<Code>, named.format)->Arg(n);
    benchmark::RegisterBenchmark(("dequantize/" + name).c_str(), dequantize_bench<Code>, named.format)->Arg(n);
    benchmark::RegisterBenchmark(("round_trip/" + name).c_str(), round_trip_bench, named.format)->Arg(n);
    benchmark::RegisterBenchmark(("round_trip_stochastic/" + name).c_str(), round_trip_stochastic_bench, named.format)
        ->Arg(n);
    benchmark::RegisterBenchmark(("quantize_then_dequantize/" + name).c_str(), quantize_then_dequantize_bench<Code>,
                                 named.format)->Arg(n);
    benchmark::RegisterBenchmark(("quantize_from_double/" + name).c_str(), quantize_double_bench<Code>, named.format)
        ->Arg(n);
  }
  benchmark::RegisterBenchmark(("quantize_from_double_scalar/" + name).c_str(), quantize_double_scalar_bench<Code>,
                               named.format)
      ->Arg(kInCache);
  benchmark::RegisterBenchmark(("quantize_full_range/" + name).c_str(), quantize_full_range_bench<Code>, named.format)
      ->Arg(kInCache);
  const struct {
    const char* name;
    Rounding mode;
  } modes[] = {{"toward_zero", Rounding::toward_zero},
               {"stochastic", Rounding::stochastic},
               {"stochastic_equal", Rounding::stochastic_equal}};
  for (const auto& [mode_name, mode] : modes)
    for (std::int64_t n : {std::int64_t(kInCache), std::int64_t(kOutOfCache)})
      benchmark::RegisterBenchmark(("quantize_" + std::string(mode_name) + "/" + name).c_str(),
                                   quantize_rounding_bench<Code>, named.format, mode)
          ->Arg(n);
  if (named.format.total_bits() == 4 || named.format.total_bits() == 6) {
    for (std::int64_t n : {std::int64_t(kInCache), std::int64_t(kOutOfCache)}) {
      benchmark::RegisterBenchmark(("quantize_packed/" + name).c_str(), quantize_packed_bench, named.format)->Arg(n);
      benchmark::RegisterBenchmark(("dequantize_packed/" + name).c_str(), dequantize_packed_bench, named.format)->Arg(n);
    }
  }
  if (named.format == FP16::format || named.format == BF16::format)
    benchmark::RegisterBenchmark(("quantize_generic/" + name).c_str(), generic_quantize_bench<Code>, named.format)
        ->Arg(kInCache);
  benchmark::RegisterBenchmark(("quantize_scalar/" + name).c_str(), scalar_quantize_bench, named.format)->Arg(kInCache);
}

int register_all() {
  for (std::int64_t n : {std::int64_t(kInCache), std::int64_t(kOutOfCache)}) {
    benchmark::RegisterBenchmark("memcpy_fp32", memcpy_bench)->Arg(n);
    benchmark::RegisterBenchmark("memcpy_fp64", memcpy_double_bench)->Arg(n);
    benchmark::RegisterBenchmark("native_f16c_fp16_from_float", native_f16c_bench)->Arg(n);
    benchmark::RegisterBenchmark("native_f16c_float_from_fp16", native_f16c_to_float_bench)->Arg(n);
    benchmark::RegisterBenchmark("native_avx512bf16_bf16_from_float", native_bf16_bench)->Arg(n);
  }
  for (const Named& named : kFormats) {
    if (named.format.total_bits() <= 8) register_format<std::uint8_t>(named);
    else if (named.format.total_bits() <= 16) register_format<std::uint16_t>(named);
    else register_format<std::uint32_t>(named);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace softfloat::bench_support

BENCHMARK_MAIN();
