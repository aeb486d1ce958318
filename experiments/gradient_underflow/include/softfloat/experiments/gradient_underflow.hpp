// Gradient underflow: gradients span many decades, and a format with a narrow
// exponent range flushes the small ones to zero (fp16's smallest subnormal is 2^-24,
// so 1e-8 becomes 0, while bf16 keeps it as 1.00117...e-8) or overflows the large
// ones. Loss scaling multiplies the gradients by 2^k before they are stored (and
// divides after), moving the spread into the format's range:
//
//   range_loss             what storing gradients * 2^k does: the fractions flushed
//                          to zero, overflowed (infinity or NaN) and surviving
//   static_loss_scaling    range_loss for every k in a range
//   dynamic_loss_scaling   the usual automatic scaler: start high, halve the scale and
//                          skip the step when any gradient overflows, double it after
//                          a run of steps without overflow
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "softfloat/format.hpp"

namespace softfloat::experiments {

// `text` (a decimal such as "1e-8") parsed exactly and rounded once to `format`,
// nearest even: the code a gradient of that value is stored as.
std::uint64_t store_decimal(std::string_view text, const Format& format);

// Gradient magnitudes 10^z with z ~ N(log10_median, log10_deviation), random signs,
// stored as fp32 (as a framework computes them). The defaults put the median at 1e-7
// with a standard deviation of 1.5 decades, so the middle 99% spans 1e-11 .. 1e-3.
struct GradientSpread {
  double log10_median = -7.0;
  double log10_deviation = 1.5;
  std::size_t count = 100000;
  std::uint64_t seed = 1;
};
// Element i depends only on (seed, i): the first `count` elements of the stream.
std::vector<float> lognormal_gradients(const GradientSpread& spread);
// Elements [first, first + count) of the same stream.
std::vector<float> lognormal_gradients(const GradientSpread& spread, std::uint64_t first, std::size_t count);

// Fractions of the gradients; survived = 1 - flushed_to_zero - overflowed.
struct RangeLoss {
  double flushed_to_zero = 0;  // nonzero gradients stored as zero
  double overflowed = 0;       // gradients stored as infinity or NaN
  double survived = 0;         // stored as finite nonzero values
};

// Stores each gradient * 2^log2_scale (computed exactly) in `format`, nearest even,
// the format's overflow rule.
RangeLoss range_loss(std::span<const float> gradients, const Format& format, int log2_scale = 0);

struct ScaledRangeLoss {
  int log2_scale = 0;
  RangeLoss loss;
};
// range_loss for log2_scale = min_log2_scale .. max_log2_scale.
std::vector<ScaledRangeLoss> static_loss_scaling(std::span<const float> gradients, const Format& format,
                                                 int min_log2_scale, int max_log2_scale);

struct DynamicScalingConfig {
  int initial_log2_scale = 16;  // 65536, the usual starting scale
  int growth_interval = 100;    // steps without overflow before the scale doubles
  int steps = 1000;
  std::size_t batch = 1024;     // gradients per step, fresh from the spread's stream
};

struct DynamicScalingStep {
  int log2_scale = 0;  // the scale used in this step
  RangeLoss loss;      // of this step's batch; overflowed > 0 means the step was skipped
};

struct DynamicScalingRun {
  Format format;
  std::vector<DynamicScalingStep> steps;
  // Share of the steps skipped because a gradient overflowed.
  double skipped_fraction() const;
  // Mean surviving fraction over the steps that were applied.
  double mean_survived() const;
  // The median of the scales used, as a power of two.
  int median_log2_scale() const;
};

// The batches are elements spread.count + step * batch + [0, batch) of the spread's
// stream, so they never repeat the sample that range_loss() sees.
DynamicScalingRun dynamic_loss_scaling(const GradientSpread& spread, const Format& format,
                                       const DynamicScalingConfig& config = {});

}  // namespace softfloat::experiments
