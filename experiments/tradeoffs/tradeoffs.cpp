// Precision trade-offs: matmul's error for each input format and accumulator against
// an fp64 product, the bytes each format saves, and the fp32-accumulated throughput.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "experiments/exact_steps.hpp"
#include "experiments/seeded_random.hpp"
#include "softfloat/experiments/tradeoffs.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/portability.hpp"  // long double of at least 64 bits
#include "softfloat/matmul.hpp"
#include "softfloat/simd.hpp"
#include "softfloat/threads.hpp"

namespace softfloat::experiments {
namespace {

// The random streams under the user's seed.
constexpr std::uint64_t stream_a = 0, stream_b = 1, stream_timed_a = 2, stream_timed_b = 3;

std::vector<double> normal_matrix(std::uint64_t seed, std::uint64_t stream, std::size_t count) {
  const std::uint64_t stream_seed = detail::stream_seed(seed, stream);
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = detail::normal_at(stream_seed, i);
  return values;
}

double largest_magnitude(const std::vector<double>& values) {
  double largest = 0;
  for (const double x : values) largest = std::max(largest, std::abs(x));
  return largest;
}

// matmul's summation order for the life of the object, then the caller's again.
class ScopedSummation {
 public:
  explicit ScopedSummation(MatmulSummation summation) : saved_(matmul_summation()) { set_matmul_summation(summation); }
  ~ScopedSummation() { set_matmul_summation(saved_); }
  ScopedSummation(const ScopedSummation&) = delete;
  ScopedSummation& operator=(const ScopedSummation&) = delete;

 private:
  MatmulSummation saved_;
};

// Calls `body` with a value of the narrowest code type matmul takes for `format`.
template <class Body>
void with_code_type(const Format& format, Body&& body) {
  if (format.total_bits() <= 8) body(std::uint8_t{});
  else if (format.total_bits() <= 16) body(std::uint16_t{});
  else body(std::uint32_t{});
}

// The matrices in fp64, and their exact product at every depth.
struct Problem {
  std::size_t m, n, depth;  // A is m x depth, B depth x n (the largest depth)
  std::vector<double> a, b;
  std::vector<std::vector<double>> exact;  // [depth index]: m x n
  std::vector<double> exact_norms;         // their Frobenius norms
};

// Sums of a_ip * b_pj over p < each depth, for every (i, j), in long double: each
// product of two values of at most 53 bits is then rounded to at least 64 bits
// (softfloat/portability.hpp), and the sums' errors (at most about k * 2^-64
// relative to sum |a b|) stay far below the smallest error
// measured (fp32's, about 2^-24).
template <class ValueA, class ValueB>
std::vector<std::vector<double>> products_at_depths(const std::vector<ValueA>& a, const std::vector<ValueB>& b,
                                                    std::size_t m, std::size_t n, std::size_t ld_a,
                                                    const std::vector<std::size_t>& depths) {
  std::vector<std::vector<double>> products(depths.size(), std::vector<double>(m * n));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      long double sum = 0;
      std::size_t p = 0;
      for (std::size_t d = 0; d < depths.size(); ++d) {
        for (; p < depths[d]; ++p) sum += (long double)a[i * ld_a + p] * (long double)b[p * n + j];
        products[d][i * n + j] = double(sum);
      }
    }
  return products;
}

double frobenius_norm(const std::vector<double>& matrix) {
  long double sum = 0;
  for (const double x : matrix) sum += (long double)x * x;
  return double(std::sqrt(sum));
}

double relative_error(const std::vector<double>& computed, const std::vector<double>& exact, double exact_norm) {
  long double sum = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const long double difference = (long double)computed[i] - exact[i];
    sum += difference * difference;
  }
  return double(std::sqrt(sum)) / exact_norm;
}

// `values` * 2^log2_scale rounded once to `format` (nearest even), straight from fp64.
template <class Code>
std::vector<Code> rounded_codes(const std::vector<double>& values, int log2_scale, const Format& format) {
  std::vector<double> scaled(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) scaled[i] = std::ldexp(values[i], log2_scale);
  std::vector<Code> codes(values.size());
  simd::quantize(scaled.data(), scaled.size(), codes.data(), format);
  return codes;
}

// The values of the codes with the scale taken out again (exact: powers of two, and
// fp32 holds every value of the formats matmul takes).
template <class Code>
std::vector<double> unscaled_values(const std::vector<Code>& codes, int log2_scale, const Format& format) {
  std::vector<float> decoded(codes.size());
  simd::dequantize(codes.data(), codes.size(), decoded.data(), format);
  std::vector<double> values(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) values[i] = std::ldexp(double(decoded[i]), -log2_scale);
  return values;
}

template <class Code>
void measure_errors(const Problem& problem, const TradeoffOptions& options, FormatTradeoff& result) {
  const Format& format = result.format;
  result.log2_scale_a = fitting_log2_scale(largest_magnitude(problem.a), format);
  result.log2_scale_b = fitting_log2_scale(largest_magnitude(problem.b), format);
  const std::vector<Code> a = rounded_codes<Code>(problem.a, result.log2_scale_a, format);
  const std::vector<Code> b = rounded_codes<Code>(problem.b, result.log2_scale_b, format);

  const std::vector<std::vector<double>> rounded_inputs_product =
      products_at_depths(unscaled_values(a, result.log2_scale_a, format),
                         unscaled_values(b, result.log2_scale_b, format), problem.m, problem.n, problem.depth,
                         options.depths);
  for (std::size_t d = 0; d < options.depths.size(); ++d)
    result.input_error.push_back(relative_error(rounded_inputs_product[d], problem.exact[d], problem.exact_norms[d]));

  const int unscale = -(result.log2_scale_a + result.log2_scale_b);
  // The in-order fp32 chain: the same bits on every CPU, so the errors are reproduced
  // exactly anywhere (the pairs of the fastest order obey the same bound).
  const ScopedSummation in_order(MatmulSummation::in_order);
  std::vector<float> c(problem.m * problem.n);
  std::vector<double> computed(c.size());
  for (const Format& accumulator : options.accumulators) {
    std::vector<double>& errors = result.error.emplace_back();
    for (std::size_t d = 0; d < options.depths.size(); ++d) {
      // The first k columns of A (leading dimension: the largest depth) and the first k rows of B.
      softfloat::matmul(1.0f, a.data(), format, problem.depth, b.data(), format, problem.n, 0.0f, c.data(),
                        problem.n, problem.m, problem.n, options.depths[d], accumulator);
      for (std::size_t i = 0; i < c.size(); ++i) computed[i] = std::ldexp(double(c[i]), unscale);
      errors.push_back(relative_error(computed, problem.exact[d], problem.exact_norms[d]));
    }
  }
}

// Best of the repeats, in GFLOP/s: 2 N^3 floating-point operations per multiply.
template <class Code>
double measure_throughput(const std::vector<double>& timed_a, const std::vector<double>& timed_b,
                          const TradeoffOptions& options, const Format& format) {
  const std::size_t size = options.throughput_size;
  auto codes = [&](const std::vector<double>& values) {
    return rounded_codes<Code>(values, fitting_log2_scale(largest_magnitude(values), format), format);
  };
  const std::vector<Code> a = codes(timed_a), b = codes(timed_b);
  std::vector<float> c(size * size);
  double best = 0;
  for (int repeat = 0; repeat < options.throughput_repeats; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    softfloat::matmul(a.data(), format, b.data(), format, c.data(), size, size, size, FP32::format);
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    if (repeat == 0 || seconds.count() < best) best = seconds.count();
  }
  return 2.0 * double(size) * double(size) * double(size) / best * 1e-9;
}

void check(const TradeoffOptions& options) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("tradeoffs: " + what); };
  if (options.formats.empty()) fail("at least one input format");
  for (const Format& format : options.formats) {
    if (!format.valid()) fail(std::string(describe(format.problem())));
    if (format.total_bits() > 32) fail(format_name(format) + " has more than 32 bits, matmul's widest input");
    if (!format.is_signed || !format.has_zero)
      fail(format_name(format) + " is unsigned or has no zero, so it cannot hold the signed normal inputs");
  }
  if (options.accumulators.empty()) fail("at least one accumulator");
  for (const Format& accumulator : options.accumulators)
    if (!accumulator.valid()) fail("accumulator: " + std::string(describe(accumulator.problem())));
  if (options.depths.empty()) fail("at least one depth k");
  for (std::size_t d = 0; d < options.depths.size(); ++d)
    if (options.depths[d] == 0 || (d > 0 && options.depths[d] <= options.depths[d - 1]))
      fail("depths must be positive and increasing");
  if (options.rows == 0 || options.columns == 0) fail("at least one row and one column");
  if (options.throughput_size > 0 && options.throughput_repeats < 1) fail("at least one timed repeat");
}

}  // namespace

int fitting_log2_scale(double largest_magnitude, const Format& format) {
  if (!std::isfinite(largest_magnitude)) throw std::invalid_argument("fitting_log2_scale: a finite magnitude");
  const double max = detail::to_double(format.max_finite_magnitude(), format);
  int s = 0;
  while (std::ldexp(largest_magnitude, s) > max) --s;
  return s;
}

TradeoffInputs tradeoff_inputs(const TradeoffOptions& options) {
  check(options);
  const std::size_t depth = options.depths.back();
  return {normal_matrix(options.seed, stream_a, options.rows * depth),
          normal_matrix(options.seed, stream_b, depth * options.columns)};
}

std::vector<Format> tradeoff_formats() {
  std::vector<Format> formats = {FP32::format};
  for (const std::string_view spec : named_format_specs()) {
    const Format format = parse_format(spec);
    if (format.total_bits() <= 16 && format.is_signed && format.has_zero) formats.push_back(format);
  }
  std::stable_sort(formats.begin(), formats.end(),
                   [](const Format& x, const Format& y) { return x.total_bits() > y.total_bits(); });
  return formats;
}

double bytes_per_element(const Format& format) {
  // A dense bit stream: 4-bit codes two a byte, 6-bit codes four in three bytes.
  return format.total_bits() / 8.0;
}

TradeoffResult run_tradeoffs(const TradeoffOptions& options) {
  TradeoffInputs inputs = tradeoff_inputs(options);
  Problem problem{options.rows, options.columns, options.depths.back(), std::move(inputs.a), std::move(inputs.b),
                  {}, {}};
  problem.exact = products_at_depths(problem.a, problem.b, problem.m, problem.n, problem.depth, options.depths);
  for (const auto& product : problem.exact) problem.exact_norms.push_back(frobenius_norm(product));

  const std::size_t timed_count = options.throughput_size * options.throughput_size;
  const std::vector<double> timed_a = normal_matrix(options.seed, stream_timed_a, timed_count);
  const std::vector<double> timed_b = normal_matrix(options.seed, stream_timed_b, timed_count);

  TradeoffResult result{options, {}, num_threads()};
  for (const Format& format : options.formats) {
    FormatTradeoff& tradeoff = result.formats.emplace_back();
    tradeoff.format = format;
    tradeoff.bytes_per_element = bytes_per_element(format);
    with_code_type(format, [&]<class Code>(Code) {
      measure_errors<Code>(problem, options, tradeoff);
      if (timed_count > 0) tradeoff.gflops = measure_throughput<Code>(timed_a, timed_b, options, format);
    });
  }
  return result;
}

}  // namespace softfloat::experiments
