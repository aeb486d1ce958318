// Gradient underflow and loss scaling: range_loss() and the scalers built on it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "experiments/seeded_random.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/experiments/gradient_underflow.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::experiments {

std::uint64_t store_decimal(std::string_view text, const Format& format) {
  return round_to_format(parse_exact(text, exponent_limit(format)), format);
}

std::vector<float> lognormal_gradients(const GradientSpread& spread, std::uint64_t first, std::size_t count) {
  if (!(spread.log10_deviation >= 0) || !std::isfinite(spread.log10_median) || !std::isfinite(spread.log10_deviation))
    throw std::invalid_argument("lognormal_gradients: the median and deviation must be finite, the deviation >= 0");
  const std::uint64_t magnitude_seed = detail::stream_seed(spread.seed, 0);
  const std::uint64_t sign_seed = detail::stream_seed(spread.seed, 1);
  std::vector<float> gradients(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t index = first + i;
    const double z = spread.log10_median + spread.log10_deviation * detail::normal_at(magnitude_seed, index);
    const float magnitude = float(std::pow(10.0, z));
    gradients[i] = (random_bits(sign_seed, index) & 1) ? -magnitude : magnitude;
  }
  return gradients;
}

std::vector<float> lognormal_gradients(const GradientSpread& spread) {
  return lognormal_gradients(spread, 0, spread.count);
}

RangeLoss range_loss(std::span<const float> gradients, const Format& format, int log2_scale) {
  if (!format.valid()) throw std::invalid_argument("range_loss: " + std::string(describe(format.problem())));
  std::size_t nonzero = 0, flushed = 0, overflowed = 0;
  for (const float g : gradients) {
    ExactValue scaled = decode(g);
    if (scaled.kind != ValueClass::finite) continue;  // the spread has no zeros; skip any given
    ++nonzero;
    scaled.exponent += log2_scale;  // exact: a power-of-two scale only moves the exponent
    const std::uint64_t code = round_to_format(scaled, format);
    if (format.is_zero(code)) ++flushed;
    else if (format.is_infinite(code) || format.is_nan(code)) ++overflowed;
  }
  RangeLoss loss;
  if (nonzero == 0) return loss;
  loss.flushed_to_zero = double(flushed) / double(nonzero);
  loss.overflowed = double(overflowed) / double(nonzero);
  loss.survived = double(nonzero - flushed - overflowed) / double(nonzero);
  return loss;
}

std::vector<ScaledRangeLoss> static_loss_scaling(std::span<const float> gradients, const Format& format,
                                                 int min_log2_scale, int max_log2_scale) {
  if (min_log2_scale > max_log2_scale)
    throw std::invalid_argument("static_loss_scaling: the smallest scale exceeds the largest");
  std::vector<ScaledRangeLoss> curve;
  for (int k = min_log2_scale; k <= max_log2_scale; ++k) curve.push_back({k, range_loss(gradients, format, k)});
  return curve;
}

double DynamicScalingRun::skipped_fraction() const {
  const auto skipped = std::count_if(steps.begin(), steps.end(), [](const auto& s) { return s.loss.overflowed > 0; });
  return steps.empty() ? 0.0 : double(skipped) / double(steps.size());
}

double DynamicScalingRun::mean_survived() const {
  double sum = 0;
  std::size_t applied = 0;
  for (const auto& s : steps)
    if (s.loss.overflowed == 0) {
      sum += s.loss.survived;
      ++applied;
    }
  return applied == 0 ? 0.0 : sum / double(applied);
}

int DynamicScalingRun::median_log2_scale() const {
  if (steps.empty()) return 0;
  std::vector<int> scales;
  for (const auto& s : steps) scales.push_back(s.log2_scale);
  std::nth_element(scales.begin(), scales.begin() + scales.size() / 2, scales.end());
  return scales[scales.size() / 2];
}

DynamicScalingRun dynamic_loss_scaling(const GradientSpread& spread, const Format& format,
                                       const DynamicScalingConfig& config) {
  if (config.steps < 1 || config.batch < 1 || config.growth_interval < 1)
    throw std::invalid_argument("dynamic_loss_scaling: steps, batch and growth_interval must be at least 1");
  DynamicScalingRun run;
  run.format = format;
  int log2_scale = config.initial_log2_scale;
  int clean_steps = 0;
  for (int step = 0; step < config.steps; ++step) {
    const std::uint64_t first = spread.count + std::uint64_t(step) * config.batch;
    const RangeLoss loss = range_loss(lognormal_gradients(spread, first, config.batch), format, log2_scale);
    run.steps.push_back({log2_scale, loss});
    if (loss.overflowed > 0) {  // the step is skipped and the scale halves
      --log2_scale;
      clean_steps = 0;
    } else if (++clean_steps == config.growth_interval) {
      ++log2_scale;
      clean_steps = 0;
    }
  }
  return run;
}

}  // namespace softfloat::experiments
