// Mixed-precision matmul with FP32 accumulation beside OpenBLAS on fp32 copies of the
// same values, one thread each (the library's default; OPENBLAS_NUM_THREADS=1 and
// openblas_set_num_threads(1) before the first BLAS call), and both again on two
// threads, so that the two-thread scaling is measured beside it:
//   square E4M3 x E4M3 and BF16 x BF16 at 256 .. 2048 beside cblas_sgemm (GFLOP/s),
//   in each summation ("summation:0" fastest, the default: the kernel the CPU's row of
//   the table in softfloat/matmul_summation.hpp names; "summation:1" in order, the FMA
//   chain; "summation:2" pairs of products by vdpbf16ps where the CPU has it;
//   "summation:3" AMX tiles where the CPU and system allow them), with
//   the FLOPs per word of main-memory traffic that the blocking moves
//   (matmul_fast_path_traffic);
//   1 x 8192 x 8192 matrix-vector products (E4M3, E5M2, BF16, FP16 weights, with
//   activations in the weights' format or in FP32; weights from N(0, 1) and from
//   N(0, 0.05)) beside cblas_sgemv (GFLOP/s and the bytes of the weight matrix read
//   per second);
//   1 x n x n matrix-vector products at n = 16 .. 4096 beside cblas_sgemv on the same
//   shapes ("matvec_small_*", "openblas_sgemv_small"): the cost of a call;
//   the same with block-scaled weights and fp32 activations (E2M1 plain, MXFP4, NVFP4,
//   MXFP6 E2M3, MXFP8 E4M3; softfloat/block_scaled_matmul.hpp);
//   BF16 x BF16 at 512^3 with BF16, FP16 and E5M2 accumulators ("matmul_acc").
// Each row's label names the kernel that ran (matmul_path), so that a table row can be
// checked against the CPU it was measured on (printed in the context as well).
//   bench_matmul --benchmark_min_time=0.5 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/common/cpu_context.hpp"
#include "softfloat/softfloat.hpp"

#if SOFTFLOAT_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace {

using namespace softfloat;

// Normally distributed values rounded to F: the codes, and their values as fp32.
template <class F>
struct Matrix {
  std::vector<typename F::storage_type> codes;
  std::vector<float> values;
};
template <class F>
Matrix<F> random_matrix(std::size_t count, std::uint64_t seed, float sigma = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  Matrix<F> x{std::vector<typename F::storage_type>(count), std::vector<float>(count)};
  for (std::size_t i = 0; i < count; ++i) {
    const F v(normal(rng));
    x.codes[i] = v.bits();
    x.values[i] = float(v);
  }
  return x;
}

void set_gflops(benchmark::State& state, double m, double n, double k) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(double(matmul_flops(std::uint64_t(m), std::uint64_t(n), std::uint64_t(k))) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

// Arguments after the sizes: threads, and the summation (0 fastest, 1 in_order, 2 pairs,
// 3 tiles).
constexpr MatmulSummation kSummations[] = {MatmulSummation::fastest, MatmulSummation::in_order,
                                           MatmulSummation::pairs, MatmulSummation::tiles};
constexpr const char* kSummationNames[] = {"fastest", "in_order", "pairs", "tiles"};

struct Setting {
  Setting(benchmark::State& state, int first, std::size_t m, std::size_t n, std::size_t k, const Format& format)
      : Setting(state, first, m, n, k, format, format) {}
  Setting(benchmark::State& state, int first, std::size_t m, std::size_t n, std::size_t k, const Format& format_a,
          const Format& format_b)
      : summation(kSummations[state.range(first + 1)]) {
    set_num_threads(int(state.range(first)));
    const MatmulKernel kernel = matmul_path(format_a, format_b, m, n, k, binary32_format, summation);
    state.SetLabel(std::string(kSummationNames[state.range(first + 1)]) + ": " +
                   std::string(matmul_kernel_name(kernel)));
  }
  ~Setting() { set_num_threads(1); }
  MatmulSummation summation;
};

// A of FA, B of FB (fp32 activations times E4M3 weights: a quantized Linear's forward).
template <class FA, class FB = FA>
void square_matmul(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const Setting setting(state, 1, n, n, n, FA::format, FB::format);
  const Matrix<FA> a = random_matrix<FA>(n * n, 1);
  const Matrix<FB> b = random_matrix<FB>(n * n, 2);
  std::vector<float> c(n * n);
  for (auto _ : state) {
    matmul<FA, FB>(a.codes.data(), b.codes.data(), c.data(), n, n, n, setting.summation);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, double(n), double(n), double(n));
  const MatmulKernel kernel = matmul_path(FA::format, FB::format, n, n, n, binary32_format, setting.summation);
  state.counters["flops_per_word"] =
      matmul_fast_path_traffic(n, n, n, kernel).intensity(1.0);
}
void square_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads", "summation"});
  for (int summation : {0, 1, 2, 3})
    for (int n : {256, 512, 1024, 2048}) b->Args({n, 1, summation});
  for (int summation : {0, 1, 2, 3}) b->Args({1024, 2, summation});
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();  // two threads: CPU time would count both
}
BENCHMARK(square_matmul<E4M3>)->Name("matmul_e4m3_x_e4m3")->Apply(square_sizes);
BENCHMARK(square_matmul<BF16>)->Name("matmul_bf16_x_bf16")->Apply(square_sizes);
BENCHMARK(square_matmul<FP32, E4M3>)->Name("matmul_fp32_x_e4m3")->Apply(square_sizes);

// A low-precision accumulator (the general accumulator path): BF16 inputs, each step
// one rounding of product plus running sum to Acc, at 512^3 on one and two threads.
template <class Acc>
void accumulator_matmul(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  set_num_threads(int(state.range(1)));
  state.SetLabel(std::string(matmul_kernel_name(matmul_path<BF16, BF16, Acc>(n, n, n))));
  const Matrix<BF16> a = random_matrix<BF16>(n * n, 1), b = random_matrix<BF16>(n * n, 2);
  std::vector<float> c(n * n);
  for (auto _ : state) {
    matmul<BF16, BF16, Acc>(a.codes.data(), b.codes.data(), c.data(), n, n, n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_num_threads(1);
  set_gflops(state, double(n), double(n), double(n));
}
void accumulator_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads"});
  b->Args({512, 1});
  b->Args({512, 2});
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();
}
BENCHMARK(accumulator_matmul<BF16>)->Name("matmul_acc/bf16")->Apply(accumulator_sizes);
BENCHMARK(accumulator_matmul<FP16>)->Name("matmul_acc/fp16")->Apply(accumulator_sizes);
BENCHMARK(accumulator_matmul<E5M2>)->Name("matmul_acc/e5m2")->Apply(accumulator_sizes);

constexpr std::size_t kVectorLength = 8192;  // k
constexpr std::size_t kOutputs = 8192;       // n

// The weights of the matrix-vector rows, made once per format and spread (64 Mi codes
// take seconds to draw): N(0, 1) as in the GEMM rows, and N(0, 0.05), the spread of an
// LLM's weights, where a third of the E4M3 codes are subnormal (|w| < 2^-6 = 0.0156).
template <class F>
const std::vector<typename F::storage_type>& vector_weights(int sigma_in_thousandths) {
  static std::vector<typename F::storage_type> unit, narrow;
  std::vector<typename F::storage_type>& w = sigma_in_thousandths == 1000 ? unit : narrow;
  if (w.empty()) w = random_matrix<F>(kVectorLength * kOutputs, 4, float(sigma_in_thousandths) / 1000).codes;
  return w;
}

// y = x * W: x of k values in FA (the weights' format, or FP32 activations), W of
// k x n codes in FB. Arguments: threads, summation, and the weights' standard deviation
// in thousandths.
template <class FA, class FB>
void matrix_vector(benchmark::State& state) {
  const Setting setting(state, 0, 1, kOutputs, kVectorLength, FA::format, FB::format);
  const Matrix<FA> x = random_matrix<FA>(kVectorLength, 3);
  const auto& w = vector_weights<FB>(int(state.range(2)));
  std::vector<float> y(kOutputs);
  for (auto _ : state) {
    matmul<FA, FB>(x.codes.data(), w.data(), y.data(), 1, kOutputs, kVectorLength, setting.summation);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, 1, double(kOutputs), double(kVectorLength));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(w.size() * sizeof(w[0])));
}
void vector_settings(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "summation", "sigma_milli"});
  for (int sigma : {1000, 50})
    for (int threads : {1, 2})
      for (int summation : {0, 1, 2}) b->Args({threads, summation, sigma});
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();
}
BENCHMARK(matrix_vector<E4M3, E4M3>)->Name("matvec_e4m3_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<E5M2, E5M2>)->Name("matvec_e5m2_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<BF16, BF16>)->Name("matvec_bf16_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<FP16, FP16>)->Name("matvec_fp16_1x8192x8192")->Apply(vector_settings);
// FP32 activations (format_a = FP32): the pairs of products do not apply.
BENCHMARK(matrix_vector<FP32, E4M3>)->Name("matvec_fp32_x_e4m3_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<FP32, E5M2>)->Name("matvec_fp32_x_e5m2_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<FP32, BF16>)->Name("matvec_fp32_x_bf16_1x8192x8192")->Apply(vector_settings);
BENCHMARK(matrix_vector<FP32, FP16>)->Name("matvec_fp32_x_fp16_1x8192x8192")->Apply(vector_settings);

// The matrix-vector product at small sizes, 1 x n x n for n = 16 .. 4096 (N(0, 0.05)
// weights), one thread: what a call costs beside its arithmetic (the checks, the
// kernel's choice and set-up), next to cblas_sgemv on the same shape
// ("openblas_sgemv_small"). Arguments: n, threads (1), summation.
template <class FA, class FB>
void small_matrix_vector(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const Setting setting(state, 1, 1, n, n, FA::format, FB::format);
  const Matrix<FA> x = random_matrix<FA>(n, 3);
  const Matrix<FB> w = random_matrix<FB>(n * n, 4, 0.05f);
  std::vector<float> y(n);
  for (auto _ : state) {
    matmul<FA, FB>(x.codes.data(), w.codes.data(), y.data(), 1, n, n, setting.summation);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, 1, double(n), double(n));
}
void small_vector_settings(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads", "summation"});
  for (int n : {16, 64, 256, 1024, 4096})
    for (int summation : {0, 1}) b->Args({n, 1, summation});
  b->UseRealTime();
}
BENCHMARK(small_matrix_vector<E4M3, E4M3>)->Name("matvec_small_e4m3")->Apply(small_vector_settings);
BENCHMARK(small_matrix_vector<E5M2, E5M2>)->Name("matvec_small_e5m2")->Apply(small_vector_settings);
BENCHMARK(small_matrix_vector<FP32, E4M3>)->Name("matvec_small_fp32_x_e4m3")->Apply(small_vector_settings);
BENCHMARK(small_matrix_vector<BF16, BF16>)->Name("matvec_small_bf16")->Apply(small_vector_settings);

// y = x * W with fp32 activations and block-scaled weights (softfloat/block_scaled_matmul.hpp):
// W from N(0, 0.05) quantized once along k, then one matrix-vector product per
// iteration, in the in-order chain (the only order of that entry point). The bytes
// processed are the element and scale bytes read.
void block_scaled_vector(benchmark::State& state, mx::Element element, WeightScaling scaling) {
  set_num_threads(int(state.range(0)));
  const Matrix<FP32> x = random_matrix<FP32>(kVectorLength, 3);
  static std::vector<float> weights;
  if (weights.empty()) weights = random_matrix<FP32>(kVectorLength * kOutputs, 4, 0.05f).values;
  const BlockScaledMatrix w = quantize_weights(weights.data(), kVectorLength, kOutputs, element, scaling);
  std::vector<float> y(kOutputs);
  state.SetLabel("in_order: block-scaled matvec");
  for (auto _ : state) {
    matmul(x.values.data(), w.view(), y.data(), 1, MatmulSummation::in_order);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_num_threads(1);
  set_gflops(state, 1, double(kOutputs), double(kVectorLength));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(w.elements.size() + w.scales.size()));
}
void block_scaled_settings(benchmark::internal::Benchmark* b) {
  b->ArgNames({"threads", "summation", "sigma_milli"});
  b->Args({1, 1, 50});
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();
}
BENCHMARK_CAPTURE(block_scaled_vector, e2m1, mx::Element::fp4_e2m1, WeightScaling::none)
    ->Name("matvec_fp32_x_e2m1_1x8192x8192")->Apply(block_scaled_settings);
BENCHMARK_CAPTURE(block_scaled_vector, mxfp4, mx::Element::fp4_e2m1, WeightScaling::mx)
    ->Name("matvec_fp32_x_mxfp4_1x8192x8192")->Apply(block_scaled_settings);
BENCHMARK_CAPTURE(block_scaled_vector, nvfp4, mx::Element::fp4_e2m1, WeightScaling::nvfp4)
    ->Name("matvec_fp32_x_nvfp4_1x8192x8192")->Apply(block_scaled_settings);
BENCHMARK_CAPTURE(block_scaled_vector, mxfp6, mx::Element::fp6_e2m3, WeightScaling::mx)
    ->Name("matvec_fp32_x_mxfp6_e2m3_1x8192x8192")->Apply(block_scaled_settings);
BENCHMARK_CAPTURE(block_scaled_vector, mxfp8, mx::Element::fp8_e4m3, WeightScaling::mx)
    ->Name("matvec_fp32_x_mxfp8_e4m3_1x8192x8192")->Apply(block_scaled_settings);

#if SOFTFLOAT_BENCH_OPENBLAS
// The baselines, on the fp32 values of the E4M3 matrices above.
void sgemm(benchmark::State& state) {
  const int n = int(state.range(0));
  openblas_set_num_threads(int(state.range(1)));
  const std::size_t count = std::size_t(n) * std::size_t(n);
  const Matrix<E4M3> a = random_matrix<E4M3>(count, 1), b = random_matrix<E4M3>(count, 2);
  std::vector<float> c(count);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.values.data(), n, b.values.data(), n,
                0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, n, n, n);
  openblas_set_num_threads(1);
}
void blas_square_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "threads"});
  for (int n : {256, 512, 1024, 2048}) b->Args({n, 1});
  b->Args({1024, 2});
  b->Unit(benchmark::kMillisecond);
  b->UseRealTime();
}
BENCHMARK(sgemm)->Name("openblas_sgemm")->Apply(blas_square_sizes);

// y (n) = x (k) * W (k x n), row-major: y = W^T x.
void sgemv(benchmark::State& state) {
  openblas_set_num_threads(int(state.range(0)));
  const Matrix<E4M3> x = random_matrix<E4M3>(kVectorLength, 3), w = random_matrix<E4M3>(kVectorLength * kOutputs, 4);
  std::vector<float> y(kOutputs);
  for (auto _ : state) {
    cblas_sgemv(CblasRowMajor, CblasTrans, int(kVectorLength), int(kOutputs), 1.0f, w.values.data(), int(kOutputs),
                x.values.data(), 1, 0.0f, y.data(), 1);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, 1, double(kOutputs), double(kVectorLength));
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(w.values.size() * sizeof(float)));
  openblas_set_num_threads(1);
}
// The same at the small sizes of small_matrix_vector, one thread.
void small_sgemv(benchmark::State& state) {
  const int n = int(state.range(0));
  const Matrix<E4M3> x = random_matrix<E4M3>(std::size_t(n), 3), w = random_matrix<E4M3>(std::size_t(n) * n, 4);
  std::vector<float> y(static_cast<std::size_t>(n));
  for (auto _ : state) {
    cblas_sgemv(CblasRowMajor, CblasTrans, n, n, 1.0f, w.values.data(), n, x.values.data(), 1, 0.0f, y.data(), 1);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_gflops(state, 1, double(n), double(n));
}
BENCHMARK(small_sgemv)->Name("openblas_sgemv_small")->ArgName("n")->Arg(16)->Arg(64)->Arg(256)->Arg(1024)->Arg(4096)
    ->UseRealTime();
BENCHMARK(sgemv)
    ->Name("openblas_sgemv_1x8192x8192")
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

}  // namespace

int main(int argc, char** argv) {
#if SOFTFLOAT_BENCH_OPENBLAS
  // One thread, like the library's default; the two-thread rows ask for two. (Its pool
  // is sized when the library loads, so OPENBLAS_NUM_THREADS=1 in the environment would
  // make those rows single-threaded: leave it unset.)
  openblas_set_num_threads(1);
  // OpenBLAS picks its kernels by CPU model, and falls back to its SSE3 "Prescott"
  // kernels on one it does not know (0.3.21 on an Emerald Rapids Xeon, model 207: a
  // baseline 4 to 7 times too slow). Printed so that such a run shows it;
  // OPENBLAS_CORETYPE=Cooperlake (or SkylakeX) selects the AVX-512 kernels.
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
