// Accumulation: plain and Kahan-compensated running sums in any format, measured
// against an exact reference sum.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "experiments/exact_steps.hpp"
#include "experiments/seeded_random.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/experiments/accumulation.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::experiments {
namespace {

// A running sum in one format: the sum's code, and for Kahan the compensation c, the
// (negated) part of the terms that the rounding of the sum has dropped so far.
class RunningSum {
 public:
  explicit RunningSum(const Accumulator& accumulator)
      : format_(accumulator.format), kahan_(accumulator.summation == Summation::kahan),
        sum_(round_to_format(ExactValue{}, format_)), compensation_(sum_) {}

  // Adds a * b (exact) with the accumulator's rounding; a term is a * 1.
  void add_product(const ExactValue& a, const ExactValue& b) {
    if (!kahan_) {
      sum_ = detail::rounded_fma(a, b, decode(sum_, format_), format_);
      return;
    }
    // y = term - c, t = s + y, c = (t - s) - y, s = t (Kahan 1965), each step rounded.
    const std::uint64_t y = detail::rounded_fma(a, b, detail::negated(decode(compensation_, format_)), format_);
    const std::uint64_t t = runtime::add(sum_, y, format_);
    compensation_ = runtime::subtract(runtime::subtract(t, sum_, format_), y, format_);
    sum_ = t;
  }
  std::uint64_t code() const { return sum_; }
  // Equal states add the next term alike: the sum and, for Kahan, the compensation.
  bool same_state(const RunningSum& other) const {
    return sum_ == other.sum_ && compensation_ == other.compensation_;
  }
  double value() const { return detail::to_double(sum_, format_); }

 private:
  Format format_;
  bool kahan_;
  std::uint64_t sum_;
  std::uint64_t compensation_;
};

// The exact sum of doubles as an unevaluated pair high + low (Knuth's TwoSum): far
// more than enough digits to measure the error of any accumulator here.
class ReferenceSum {
 public:
  void add(double x) {
    const double sum = high_ + x;
    const double virtual_x = sum - high_;
    low_ += (high_ - (sum - virtual_x)) + (x - virtual_x);
    high_ = sum;
  }
  double value() const { return high_ + low_; }

 private:
  double high_ = 0, low_ = 0;
};

double relative_error(double sum, double exact) { return std::abs(sum - exact) / std::abs(exact); }

void check(const Accumulator& accumulator, std::size_t terms) {
  if (!accumulator.format.valid())
    throw std::invalid_argument("accumulation: " + std::string(describe(accumulator.format.problem())));
  if (terms < 1) throw std::invalid_argument("accumulation: at least one term");
}

}  // namespace

std::string accumulator_name(const Accumulator& accumulator) {
  return format_name(accumulator.format) + (accumulator.summation == Summation::kahan ? " + kahan" : "");
}

std::vector<std::size_t> log_spaced_counts(std::size_t largest, int per_decade) {
  if (largest < 1 || per_decade < 1) throw std::invalid_argument("log_spaced_counts: largest and per_decade >= 1");
  std::vector<std::size_t> counts;
  for (int i = 0;; ++i) {
    const auto n = std::size_t(std::llround(std::pow(10.0, double(i) / per_decade)));
    if (n >= largest) break;
    if (counts.empty() || n != counts.back()) counts.push_back(n);
  }
  counts.push_back(largest);
  return counts;
}

AccumulationSeries sum_constant(const Accumulator& accumulator, float value, std::size_t terms,
                                std::span<const std::size_t> checkpoints) {
  check(accumulator, terms);
  AccumulationSeries series{accumulator, {}, 0, 0, 0};
  RunningSum sum(accumulator);
  const ExactValue term = decode(value), one = decode(1);
  std::size_t last_change = 0;
  auto checkpoint = checkpoints.begin();
  for (std::size_t n = 1; n <= terms; ++n) {
    const RunningSum before = sum;
    sum.add_product(term, one);
    if (!sum.same_state(before)) last_change = n;
    // n * value is exact in double: a 24-bit significand times n < 2^29.
    while (checkpoint != checkpoints.end() && *checkpoint < n) ++checkpoint;
    if (checkpoint != checkpoints.end() && *checkpoint == n)
      series.errors.push_back({n, relative_error(sum.value(), double(n) * double(value))});
  }
  series.final_sum = sum.value();
  series.exact_sum = double(terms) * double(value);
  series.stalled_at = last_change == terms ? 0 : last_change;
  return series;
}

AccumulationSeries sum_dot_products(const Accumulator& accumulator, std::size_t terms, int trials,
                                    std::uint64_t seed, std::span<const std::size_t> checkpoints) {
  check(accumulator, terms);
  if (trials < 1) throw std::invalid_argument("sum_dot_products: at least one trial");
  AccumulationSeries series{accumulator, {}, 0, 0, 0};
  std::vector<double> error_sums;
  for (int trial = 0; trial < trials; ++trial) {
    const std::uint64_t trial_seed = detail::stream_seed(seed, std::uint64_t(trial));
    RunningSum sum(accumulator);
    ReferenceSum exact;
    auto checkpoint = checkpoints.begin();
    std::size_t at = 0;
    for (std::size_t n = 1; n <= terms; ++n) {
      const float a = detail::uniform_float(random_bits(trial_seed, 2 * (n - 1)));
      const float b = detail::uniform_float(random_bits(trial_seed, 2 * (n - 1) + 1));
      sum.add_product(decode(a), decode(b));
      exact.add(double(a) * double(b));  // exact: two 24-bit significands
      while (checkpoint != checkpoints.end() && *checkpoint < n) ++checkpoint;
      if (checkpoint != checkpoints.end() && *checkpoint == n) {
        const double error = exact.value() == 0 ? 0.0 : relative_error(sum.value(), exact.value());
        if (trial == 0) series.errors.push_back({n, 0.0});
        if (at < error_sums.size()) error_sums[at] += error;
        else error_sums.push_back(error);
        ++at;
      }
    }
    if (trial == 0) {
      series.final_sum = sum.value();
      series.exact_sum = exact.value();
    }
  }
  for (std::size_t i = 0; i < series.errors.size(); ++i) series.errors[i].relative_error = error_sums[i] / trials;
  return series;
}

}  // namespace softfloat::experiments
