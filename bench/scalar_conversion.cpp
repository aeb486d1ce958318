// Scalar conversion speed for every named format: the baseline that the SIMD paths
// must beat. Each benchmark converts one array per iteration and reports the time per
// value (counter "per_value", in seconds with an SI prefix: "2.5n" is 2.5 ns;
// items_per_second is its inverse). Two references run in the
// same binary: a plain copy of floats (what memory traffic alone costs) and the CPU's
// own fp16 conversion (F16C _cvtss_sh / _cvtsh_ss, one value at a time), and where
// Debian's libeigen3-dev is installed, Eigen::bfloat16 and Eigen::half (what C++ code
// reaches for), on the same normally distributed data as to_format_normal.
// to_format_double and to_format_normal_double time F(double) on the same values
// widened to double.
//
//   build/bench/bench_scalar_conversion --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <softfloat/softfloat.hpp>
#if SOFTFLOAT_BENCH_EIGEN
#include <Eigen/Core>
#endif

namespace {

using namespace softfloat;

constexpr std::size_t array_size = 4096;

void report_per_value(benchmark::State& state, std::size_t values_per_iteration) {
  const auto values = static_cast<int64_t>(values_per_iteration);
  state.SetItemsProcessed(state.iterations() * values);
  // Values per second, inverted: seconds per value.
  state.counters["per_value"] = benchmark::Counter(
      double(values), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// 4096 floats whose binary exponents spread evenly from 4 binades below the format's
// smallest value to 4 above its largest (clamped to float's range), so the array holds
// subnormals, normals, underflow and overflow in the proportions of the exponent span,
// with random signs and mantissas. Fixed seed: every run converts the same data.
std::vector<float> varied_floats(const Format& format) {
  const int smallest = format.has_subnormals() ? format.min_normal_exponent() - format.mantissa_bits
                                              : format.min_normal_exponent();
  const int low = std::max(smallest - 4, -149);
  const int high = std::min(format.max_exponent() + 4, 127);
  std::mt19937 random(12345);
  std::uniform_int_distribution<int> exponent(low, high);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::vector<float> values(array_size);
  for (float& value : values) {
    const float magnitude = std::ldexp(mantissa(random), exponent(random));
    value = (random() & 1) ? -magnitude : magnitude;
  }
  return values;
}

// Every code of the format, repeated to fill at least 4096 entries; formats wider than
// 16 bits take 65536 codes evenly spaced over the code space.
template <class F>
std::vector<typename F::storage_type> all_codes() {
  using Code = typename F::storage_type;
  const int bits = F::format.total_bits();
  const std::uint64_t count = bits <= 16 ? std::uint64_t{1} << bits : 65536;
  const std::uint64_t stride = bits <= 16 ? 1 : (std::uint64_t{1} << bits) / 65536;
  std::vector<Code> codes(std::max<std::uint64_t>(count, array_size));
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = Code((i % count) * stride);
  return codes;
}

// 4096 floats N(0, 1) scaled to the format (2^4 for wide formats, 2^(max_exponent / 2)
// otherwise), as tensors hold them: nearly all normal in the format.
std::vector<float> normal_floats(const Format& format) {
  std::mt19937 random(12345);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float scale = std::ldexp(1.0f, format.max_exponent() > 8 ? 4 : format.max_exponent() / 2);
  std::vector<float> values(array_size);
  for (float& value : values) value = normal(random) * scale;
  if (!format.is_signed)
    for (float& value : values) value = std::fabs(value);
  return values;
}


#if SOFTFLOAT_BENCH_EIGEN
template <class T>
void eigen_from_float(benchmark::State& state, Format format) {
  const std::vector<float> input = normal_floats(format);
  std::vector<std::uint16_t> output(input.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < input.size(); ++i) output[i] = Eigen::numext::bit_cast<std::uint16_t>(T(input[i]));
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

template <class T>
void eigen_to_float(benchmark::State& state) {
  std::vector<std::uint16_t> input(65536);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = std::uint16_t(i);
  std::vector<float> output(input.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < input.size(); ++i) output[i] = float(Eigen::numext::bit_cast<T>(input[i]));
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}
#endif

// F(Source) over the floats `data` gives for the format (varied_floats or
// normal_floats), as Source: float, or the same values widened to double (the double
// path on the same values).
template <class F, class Source, std::vector<float> (*data)(const Format&)>
void to_format(benchmark::State& state) {
  const std::vector<float> floats = data(F::format);
  const std::vector<Source> input(floats.begin(), floats.end());
  std::vector<typename F::storage_type> output(input.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < input.size(); ++i) output[i] = F(input[i]).bits();
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

template <class F>
void from_format(benchmark::State& state) {
  const auto input = all_codes<F>();
  std::vector<float> output(input.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < input.size(); ++i) output[i] = float(F::from_bits(input[i]));
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

// The floor: moving 4096 floats from one array to another.
void copy_floats(benchmark::State& state) {
  const std::vector<float> input = varied_floats(format_of<FP32>());
  std::vector<float> output(input.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < input.size(); ++i) output[i] = input[i];
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

// The CPU's fp16 conversion, one value per instruction. Compiled for F16C through a
// target attribute (the build adds no -m flags) and run only where the CPU has it.
__attribute__((target("f16c"))) void floats_to_fp16_f16c(const float* in, std::uint16_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::uint16_t(_cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) void fp16_to_floats_f16c(const std::uint16_t* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}

void to_fp16_f16c(benchmark::State& state) {
  if (!__builtin_cpu_supports("f16c")) {
    state.SkipWithError("this CPU has no F16C");
    return;
  }
  const std::vector<float> input = varied_floats(format_of<FP16>());
  std::vector<std::uint16_t> output(input.size());
  for (auto _ : state) {
    floats_to_fp16_f16c(input.data(), output.data(), input.size());
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

void from_fp16_f16c(benchmark::State& state) {
  if (!__builtin_cpu_supports("f16c")) {
    state.SkipWithError("this CPU has no F16C");
    return;
  }
  const auto input = all_codes<FP16>();
  std::vector<float> output(input.size());
  for (auto _ : state) {
    fp16_to_floats_f16c(input.data(), output.data(), input.size());
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  report_per_value(state, input.size());
}

template <class F>
void register_format() {
  const std::string name = format_name(format_of<F>());
  benchmark::RegisterBenchmark(("to_format/" + name).c_str(), to_format<F, float, varied_floats>);
  benchmark::RegisterBenchmark(("to_format_normal/" + name).c_str(), to_format<F, float, normal_floats>);
  benchmark::RegisterBenchmark(("to_format_double/" + name).c_str(), to_format<F, double, varied_floats>);
  benchmark::RegisterBenchmark(("to_format_normal_double/" + name).c_str(), to_format<F, double, normal_floats>);
  benchmark::RegisterBenchmark(("from_format/" + name).c_str(), from_format<F>);
}

template <class... F>
void register_formats() {
  (register_format<F>(), ...);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("baseline/copy_float", copy_floats);
  benchmark::RegisterBenchmark("native_f16c/to_fp16", to_fp16_f16c);
  benchmark::RegisterBenchmark("native_f16c/from_fp16", from_fp16_f16c);
#if SOFTFLOAT_BENCH_EIGEN
  benchmark::RegisterBenchmark("eigen/bfloat16_from_float", eigen_from_float<Eigen::bfloat16>, BF16::format);
  benchmark::RegisterBenchmark("eigen/half_from_float", eigen_from_float<Eigen::half>, FP16::format);
  benchmark::RegisterBenchmark("eigen/float_from_bfloat16", eigen_to_float<Eigen::bfloat16>);
  benchmark::RegisterBenchmark("eigen/float_from_half", eigen_to_float<Eigen::half>);
#endif
  register_formats<FP32, TF32, BF16, FP16, E5M2, E4M3, E3M2, E2M3, E2M1, E8M0, E4M3FNUZ, E5M2FNUZ, P3109<8, 1>,
                   P3109<8, 2>, P3109<8, 3>, P3109<8, 4>, P3109<8, 5>, P3109<8, 6>, P3109<8, 7>>();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
