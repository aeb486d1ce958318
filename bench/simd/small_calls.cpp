// The cost of one call on few values: 16 to 4096 float32 values per call of quantize,
// dequantize and round_trip for every format within fp32's range (packed for the 4- and
// 6-bit ones), and MX and NVFP4 on one block, beside memcpy of the same fp32 bytes. At
// these sizes the per-call work (argument checks, dispatch, the shortcut choice) is what
// a user pays, so no call may query the CPU (runtime/cpu_features.hpp). Counters:
// ns_per_call, and ns_per_value. One thread.
//   bench_small_calls --benchmark_min_time=0.1 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "softfloat/mx.hpp"
#include "softfloat/nvfp4.hpp"
#include "bench/common/cpu_context.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat::bench_small {
namespace {

constexpr std::int64_t kSizes[] = {16, 64, 256, 1024, 4096};
constexpr std::size_t kMost = 4096;

// Normally distributed values over a few binades of the format, as a tensor's are.
std::vector<float> inputs(const Format& f) {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float scale = std::ldexp(1.0f, f.max_exponent() > 8 ? 4 : f.max_exponent() / 2);
  std::vector<float> values(kMost);
  for (float& x : values) x = f.is_signed ? normal(rng) * scale : std::fabs(normal(rng) * scale);
  return values;
}

void set_counters(benchmark::State& state, std::size_t n) {
  state.counters["ns_per_call"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate |
                                                            benchmark::Counter::kInvert);
  state.counters["ns_per_value"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate |
                                                                     benchmark::Counter::kInvert);
}

template <class Call>
void time_calls(benchmark::State& state, Call call) {
  for (auto _ : state) {
    call();
    benchmark::ClobberMemory();
  }
  set_counters(state, std::size_t(state.range(0)));
}

template <class Code>
void register_format(const char* name, const Format& f) {
  const auto in = std::make_shared<std::vector<float>>(inputs(f));
  const auto codes = std::make_shared<std::vector<Code>>(kMost);
  const auto out = std::make_shared<std::vector<float>>(kMost);
  simd::quantize(in->data(), kMost, codes->data(), f);
  const std::string suffix = std::string("/") + name;
  for (const std::int64_t n : kSizes) {
    benchmark::RegisterBenchmark(("quantize" + suffix).c_str(), [=](benchmark::State& s) {
      time_calls(s, [&] { simd::quantize(in->data(), std::size_t(n), codes->data(), f); });
    })->Arg(n);
    benchmark::RegisterBenchmark(("dequantize" + suffix).c_str(), [=](benchmark::State& s) {
      time_calls(s, [&] { simd::dequantize(codes->data(), std::size_t(n), out->data(), f); });
    })->Arg(n);
    benchmark::RegisterBenchmark(("round_trip" + suffix).c_str(), [=](benchmark::State& s) {
      time_calls(s, [&] { simd::round_trip(in->data(), std::size_t(n), out->data(), f); });
    })->Arg(n);
    if (f.total_bits() == 4 || f.total_bits() == 6) {
      const auto packed = std::make_shared<std::vector<std::uint8_t>>(kMost);
      benchmark::RegisterBenchmark(("quantize_packed" + suffix).c_str(), [=](benchmark::State& s) {
        time_calls(s, [&] { simd::quantize_packed(in->data(), std::size_t(n), packed->data(), packed->size(), f); });
      })->Arg(n);
      benchmark::RegisterBenchmark(("dequantize_packed" + suffix).c_str(), [=](benchmark::State& s) {
        time_calls(s, [&] {
          simd::dequantize_packed(packed->data(), packed->size(), std::size_t(n), out->data(), f);
        });
      })->Arg(n);
    }
  }
}

// One block: 32 values for MX, 16 for NVFP4.
void register_blocks() {
  const auto in = std::make_shared<std::vector<float>>(inputs(E4M3::format));
  const auto elements = std::make_shared<std::vector<std::uint8_t>>(64);
  const auto scales = std::make_shared<std::vector<std::uint8_t>>(4);
  const auto out = std::make_shared<std::vector<float>>(64);
  for (const mx::Element element : {mx::Element::fp8_e4m3, mx::Element::fp4_e2m1}) {
    const std::string name(mx::element_name(element));
    benchmark::RegisterBenchmark(("mx_quantize/" + name).c_str(), [=](benchmark::State& s) {
      time_calls(s, [&] {
        mx::quantize(in->data(), 32, elements->data(), elements->size(), scales->data(), scales->size(), element);
      });
    })->Arg(32);
    benchmark::RegisterBenchmark(("mx_round_trip/" + name).c_str(), [=](benchmark::State& s) {
      time_calls(s, [&] { mx::round_trip(in->data(), 32, out->data(), element); });
    })->Arg(32);
  }
  benchmark::RegisterBenchmark("nvfp4_quantize", [=](benchmark::State& s) {
    float amax = 0;
    time_calls(s, [&] {
      nvfp4::quantize(in->data(), 16, elements->data(), elements->size(), scales->data(), scales->size(), &amax);
    });
  })->Arg(16);
}

int register_all() {
  const auto from = std::make_shared<std::vector<float>>(kMost), to = std::make_shared<std::vector<float>>(kMost);
  for (const std::int64_t n : kSizes)
    benchmark::RegisterBenchmark("memcpy_fp32", [=](benchmark::State& s) {
      time_calls(s, [&] { std::memcpy(to->data(), from->data(), std::size_t(n) * sizeof(float)); });
    })->Arg(n);
  register_format<std::uint16_t>("fp16", FP16::format);
  register_format<std::uint16_t>("bf16", BF16::format);
  register_format<std::uint8_t>("e5m2", E5M2::format);
  register_format<std::uint8_t>("e4m3", E4M3::format);
  register_format<std::uint8_t>("e3m2", E3M2::format);
  register_format<std::uint8_t>("e2m3", E2M3::format);
  register_format<std::uint8_t>("e2m1", E2M1::format);
  register_format<std::uint8_t>("e8m0", E8M0::format);
  register_blocks();
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace softfloat::bench_small

BENCHMARK_MAIN();
