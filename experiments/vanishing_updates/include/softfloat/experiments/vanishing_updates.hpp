// Vanishing updates: an increment smaller than half a unit in the last place of a
// weight rounds away, so a weight stored in a 16-bit format stops moving while its
// gradient is still far from zero. Two measurements:
//
//   smallest_increment   per format, the smallest u with fmt(1 + u) != 1
//                        (in bf16 1 + 0.001 rounds back to exactly 1)
//   train                a seeded least-squares regression trained by minibatch SGD
//                        with the weights stored in a low-precision format (bf16 by
//                        default): plain storage stalls once lr * gradient falls below
//                        half an ulp of the weights, while fp32 master weights,
//                        Kahan-compensated updates and stochastic rounding keep
//                        learning down to the format's resolution, and fp32 weights
//                        keep learning throughout.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::experiments {

// The smallest positive value u of `format` for which 1 + u, computed exactly and
// rounded once to the format, is not 1. Under round-to-nearest-even u lies just above
// half an ulp of 1: bf16's 1 + 2^-8 is a tie that goes to the even 1, so u is the next
// bf16 value, 2^-8 + 2^-15. All fields are codes of `format`.
struct SmallestIncrement {
  Format format;
  std::uint64_t one = 0;
  std::uint64_t increment = 0;            // u
  std::uint64_t one_plus_increment = 0;   // fmt(1 + u)
  std::uint64_t thousandth = 0;           // fmt(0.001), parsed exactly
  std::uint64_t one_plus_thousandth = 0;  // fmt(1 + fmt(0.001)): exactly 1 in bf16
};

// Found by bisection over the codes (1 + u grows with u). Throws
// std::invalid_argument if 1 is not a value of `format` or `mode` is stochastic
// (a random rounding has no smallest u).
SmallestIncrement smallest_increment(const Format& format, Rounding mode = Rounding::nearest_even);

// How a training step applies the update -lr * gradient to the stored weights.
enum class WeightUpdate : std::uint8_t {
  plain,                // w = fmt(w + update): updates below half an ulp vanish
  master_weights,       // an fp32 master copy takes the update; the model uses fmt(master)
  kahan,                // w = fmt(w + update) with a compensation term, also in fmt, that
                        // keeps what the rounding lost and adds it to the next update
  stochastic_rounding,  // w = fmt(w + update) rounded up or down at random, in expectation exact
  fp32,                 // the reference: weights stored in fp32
};
inline constexpr WeightUpdate all_weight_updates[] = {WeightUpdate::plain, WeightUpdate::master_weights,
                                                      WeightUpdate::kahan, WeightUpdate::stochastic_rounding,
                                                      WeightUpdate::fp32};
// "plain", "master_weights", "kahan", "stochastic_rounding", "fp32".
std::string_view weight_update_name(WeightUpdate update);

// Least squares y = x . w* with x ~ N(0, 1) (stored as fp32), w*_j = +-U[0.5, 2)
// and y = fp32(x . w*), so the optimum has loss ~0 and only storage precision limits
// training. Weights start at 0; each step draws a minibatch, computes the gradient of
// loss = mean((x . w - y)^2) / 2 in double from the weights as stored, and applies
// the update -lr * gradient (a double) with one rounding as `WeightUpdate` says.
// With the defaults, bf16 weights stall within a few hundred steps (lr * gradient
// falls below half an ulp, 2^-8 |w|) at a loss ~1000 times above what the three fixes
// reach, while fp32 weights keep learning to the end.
struct TrainingConfig {
  int dimensions = 16;
  int samples = 1024;
  int batch_size = 32;
  int steps = 2000;
  double learning_rate = 0.01;
  int record_every = 10;  // the loss is recorded at step 0, every record_every steps and at the end
  std::uint64_t seed = 1;
  Format weights = format_of<BF16>();
};

struct TrainingPoint {
  int step = 0;
  double loss = 0;  // over the whole data set, in double, with the weights the model uses
};

struct TrainingRun {
  WeightUpdate update = WeightUpdate::plain;
  std::vector<TrainingPoint> curve;
  // Over the last quarter of the steps, the share of nonzero updates smaller than half
  // an ulp of the weight they were added to: the updates plain storage drops.
  double updates_below_half_ulp = 0;
  double final_loss() const { return curve.empty() ? 0.0 : curve.back().loss; }
};

// Throws std::invalid_argument for sizes or rates out of range.
TrainingRun train(const TrainingConfig& config, WeightUpdate update);

}  // namespace softfloat::experiments
