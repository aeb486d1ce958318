// train(): least-squares regression by minibatch SGD with low-precision weights.
// The data, the minibatches and the stochastic rounding each draw from their own
// seeded stream, so the five WeightUpdate runs of one seed see the same data and the
// same minibatches and differ only in how the update is stored.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/exact_steps.hpp"
#include "experiments/seeded_random.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/experiments/vanishing_updates.hpp"

namespace softfloat::experiments {
namespace {

struct Dataset {
  int samples = 0, dimensions = 0;
  std::vector<float> x;  // samples x dimensions, row-major
  std::vector<float> y;
};

Dataset make_dataset(const TrainingConfig& config) {
  Dataset data{config.samples, config.dimensions, {}, {}};
  const std::uint64_t input_seed = detail::stream_seed(config.seed, 0);
  const std::uint64_t target_seed = detail::stream_seed(config.seed, 1);
  std::vector<double> optimum(std::size_t(config.dimensions));
  for (int j = 0; j < config.dimensions; ++j) {
    const double magnitude = 0.5 + 1.5 * (double(random_bits(target_seed, 2 * std::uint64_t(j))) * 0x1p-32);
    optimum[j] = (random_bits(target_seed, 2 * std::uint64_t(j) + 1) & 1) ? -magnitude : magnitude;
  }
  data.x.resize(std::size_t(config.samples) * config.dimensions);
  data.y.resize(std::size_t(config.samples));
  for (int i = 0; i < config.samples; ++i) {
    double target = 0;
    for (int j = 0; j < config.dimensions; ++j) {
      const std::size_t at = std::size_t(i) * config.dimensions + j;
      data.x[at] = float(detail::normal_at(input_seed, at));
      target += double(data.x[at]) * optimum[j];
    }
    data.y[i] = float(target);
  }
  return data;
}

double residual(const Dataset& data, int i, const std::vector<double>& w) {
  double prediction = 0;
  for (int j = 0; j < data.dimensions; ++j) prediction += double(data.x[std::size_t(i) * data.dimensions + j]) * w[j];
  return prediction - double(data.y[i]);
}

// mean((x . w - y)^2) / 2 over the whole data set.
double loss(const Dataset& data, const std::vector<double>& w) {
  double sum = 0;
  for (int i = 0; i < data.samples; ++i) sum += residual(data, i, w) * residual(data, i, w);
  return sum / (2.0 * data.samples);
}

// Half a unit in the last place of the value of `code`: the updates smaller than this
// round back to the same code under round-to-nearest.
double half_ulp(std::uint64_t code, const Format& format) {
  const int field = int(format.magnitude(code) >> format.mantissa_bits);
  const int binade = (field == 0 && format.has_zero ? 1 : field) - format.bias;
  return std::ldexp(1.0, binade - format.mantissa_bits - 1);
}

void check(const TrainingConfig& config) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("train: ") + what);
  };
  require(config.dimensions >= 1, "dimensions must be at least 1");
  require(config.samples >= 1, "samples must be at least 1");
  require(config.batch_size >= 1, "batch_size must be at least 1");
  require(config.steps >= 1, "steps must be at least 1");
  require(config.record_every >= 1, "record_every must be at least 1");
  require(std::isfinite(config.learning_rate) && config.learning_rate > 0, "learning_rate must be positive and finite");
  require(config.weights.valid(), "the weight format is not valid");
}

}  // namespace

std::string_view weight_update_name(WeightUpdate update) {
  switch (update) {
    case WeightUpdate::plain: return "plain";
    case WeightUpdate::master_weights: return "master_weights";
    case WeightUpdate::kahan: return "kahan";
    case WeightUpdate::stochastic_rounding: return "stochastic_rounding";
    case WeightUpdate::fp32: return "fp32";
  }
  return "unknown";
}

TrainingRun train(const TrainingConfig& config, WeightUpdate update) {
  check(config);
  const Dataset data = make_dataset(config);
  const std::uint64_t batch_seed = detail::stream_seed(config.seed, 2);
  const std::uint64_t rounding_seed = detail::stream_seed(config.seed, 3);
  const Format storage = update == WeightUpdate::fp32 ? binary32_format : config.weights;
  const Format master = binary32_format;
  const int d = config.dimensions;

  const std::uint64_t zero = round_to_format(ExactValue{}, storage);
  std::vector<std::uint64_t> weights(std::size_t(d), zero);
  // The master copy (fp32 codes) or the Kahan compensation (codes of the storage format).
  std::vector<std::uint64_t> companion(std::size_t(d), update == WeightUpdate::master_weights ? 0 : zero);
  std::vector<double> model(std::size_t(d), 0.0);
  std::vector<double> gradient(std::size_t(d), 0.0);
  auto refresh_model = [&] {
    for (int j = 0; j < d; ++j) model[j] = detail::to_double(weights[j], storage);
  };
  refresh_model();

  TrainingRun run;
  run.update = update;
  run.curve.push_back({0, loss(data, model)});
  std::uint64_t nonzero_updates = 0, small_updates = 0;
  const int last_quarter = config.steps - config.steps / 4;
  for (int step = 1; step <= config.steps; ++step) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    for (int k = 0; k < config.batch_size; ++k) {
      const std::uint64_t counter = std::uint64_t(step - 1) * config.batch_size + k;
      const int i = int(random_bits(batch_seed, counter) % std::uint32_t(config.samples));
      const double r = residual(data, i, model);
      for (int j = 0; j < d; ++j) gradient[j] += r * double(data.x[std::size_t(i) * d + j]);
    }
    for (int j = 0; j < d; ++j) {
      const double delta = -config.learning_rate * gradient[j] / config.batch_size;
      if (step > last_quarter && delta != 0) {
        ++nonzero_updates;
        if (std::abs(delta) < half_ulp(weights[j], storage)) ++small_updates;
      }
      const ExactValue w = decode(weights[j], storage), change = decode(delta);
      std::uint64_t next = 0;
      switch (update) {
        case WeightUpdate::plain:
        case WeightUpdate::fp32: next = detail::rounded_sum(w, change, storage); break;
        case WeightUpdate::stochastic_rounding:
          next = detail::rounded_sum(w, change, storage, Rounding::stochastic,
                                     random_bits(rounding_seed, std::uint64_t(step - 1) * d + j));
          break;
        case WeightUpdate::master_weights:
          companion[j] = detail::rounded_sum(decode(companion[j], master), change, master);
          next = round_to_format(decode(companion[j], master), storage);
          break;
        case WeightUpdate::kahan: {
          // Kahan summation of the updates into w: y = update - c, t = w + y,
          // c = (t - w) - y (what the rounding of t dropped, negated), w = t.
          const std::uint64_t y = detail::rounded_sum(change, detail::negated(decode(companion[j], storage)), storage);
          next = runtime::add(weights[j], y, storage);
          companion[j] = runtime::subtract(runtime::subtract(next, weights[j], storage), y, storage);
          break;
        }
      }
      weights[j] = next;
    }
    refresh_model();
    if (step % config.record_every == 0 || step == config.steps) run.curve.push_back({step, loss(data, model)});
  }
  run.updates_below_half_ulp = nonzero_updates == 0 ? 0.0 : double(small_updates) / double(nonzero_updates);
  return run;
}

}  // namespace softfloat::experiments
