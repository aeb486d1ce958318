// softfloat demo vanishing-updates: the smallest u with fmt(1 + u) != 1 per format,
// and SGD with weights stored in bf16 (plain, fp32 master weights, Kahan-compensated,
// stochastic rounding) beside fp32 weights. Plot: loss against step.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/demo.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/experiments/vanishing_updates.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::experiments;

class VanishingUpdatesDemo : public Demo {
 public:
  std::string name() const override { return "vanishing-updates"; }
  std::string summary() const override {
    return "Updates below half an ulp vanish: the smallest u with fmt(1 + u) != 1, and SGD with bf16 "
           "weights (plain, fp32 master weights, Kahan, stochastic rounding) against fp32";
  }
  std::string plot_script() const override { return "plot_vanishing_updates.py"; }

  void add_options(CLI::App& command) override {
    command.add_option("--formats", formats_, "formats of the 1 + u table")->check(format_spec_validator())
        ->capture_default_str();
    command.add_option("--weights", weights_, "format the weights are stored in")->check(format_spec_validator())
        ->capture_default_str();
    command.add_option("--steps", config_.steps, "SGD steps")->check(CLI::Range(1, 10000000))->capture_default_str();
    command.add_option("--learning-rate", config_.learning_rate, "SGD learning rate")
        ->check(CLI::PositiveNumber)->capture_default_str();
    command.add_option("--batch", config_.batch_size, "minibatch size")->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    command.add_option("--dimensions", config_.dimensions, "number of weights")->check(CLI::Range(1, 100000))
        ->capture_default_str();
  }

  DemoOutput run(std::uint64_t seed) override {
    config_.seed = seed;
    config_.weights = parse_format(weights_);
    config_.record_every = std::max(1, config_.steps / 200);
    DemoOutput output;
    output.tables.push_back(increment_table());
    std::vector<TrainingRun> runs;
    for (const WeightUpdate update : all_weight_updates) runs.push_back(train(config_, update));
    output.tables.push_back(training_table(runs));
    output.data.columns = {"update", "weights", "step", "loss"};
    for (const auto& run : runs)
      for (const auto& point : run.curve)
        output.data.rows.push_back({std::string(weight_update_name(run.update)), stored_in(run.update),
                                    std::to_string(point.step), csv_number(point.loss)});
    return output;
  }

 private:
  std::string stored_in(WeightUpdate update) const {
    return update == WeightUpdate::fp32 ? "fp32" : format_name(config_.weights);
  }

  Table increment_table() const {
    Table table;
    table.title = "The smallest u with fmt(1 + u) != 1: u and 1 + u are values of the format, the sum "
                  "is exact and rounded once (nearest_even)";
    table.columns = {"format", "M", "half ulp of 1", "smallest u", "1 + u", "0.001 stored", "1 + 0.001"};
    for (const auto& spec : formats_) {
      const Format f = parse_format(spec);
      const SmallestIncrement r = smallest_increment(f);
      const ExactValue half_ulp{ValueClass::finite, false, 1, -f.mantissa_bits - 1};
      table.rows.push_back({format_name(f), std::to_string(f.mantissa_bits), power_of_two_or_decimal(half_ulp),
                            compact_exact(decode(r.increment, f)), compact_exact(decode(r.one_plus_increment, f)),
                            compact_exact(decode(r.thousandth, f)), compact_exact(decode(r.one_plus_thousandth, f))});
    }
    table.notes = {"1 + 2^-(M+1) is a tie that rounds to the even 1, so u is the next value above half an ulp.",
                   "Values are exact; ~ marks 10 significant digits of a longer exact value."};
    return table;
  }

  Table training_table(const std::vector<TrainingRun>& runs) const {
    Table table;
    table.title = "Least squares by SGD: " + std::to_string(config_.dimensions) + " weights, " +
                  std::to_string(config_.samples) + " samples, batch " + std::to_string(config_.batch_size) +
                  ", learning rate " + significant(config_.learning_rate) + ", " + std::to_string(config_.steps) +
                  " steps, seed " + std::to_string(config_.seed) + "; weights stored in " +
                  format_name(config_.weights) + " except fp32";
    const int quarter = config_.steps / 4, half = config_.steps / 2;
    table.columns = {"update", "loss @0", "loss @" + std::to_string(quarter), "loss @" + std::to_string(half),
                     "final loss", "plain / final", "updates < ulp/2"};
    const double plain_final = runs.front().final_loss();
    auto loss_at = [](const TrainingRun& run, int step) {
      for (const auto& point : run.curve)
        if (point.step >= step) return point.loss;
      return run.final_loss();
    };
    for (const auto& run : runs) {
      table.rows.push_back({std::string(weight_update_name(run.update)), significant(run.curve.front().loss),
                            significant(loss_at(run, quarter)), significant(loss_at(run, half)),
                            significant(run.final_loss()), significant(plain_final / run.final_loss(), 3) + "x",
                            percent(run.updates_below_half_ulp, 3)});
    }
    table.notes = {"loss = mean((x . w - y)^2) / 2 over the data, with the weights the model uses "
                   "(master_weights: their " + format_name(config_.weights) + " copy);",
                   "updates < ulp/2: share of the last quarter's updates smaller than half an ulp of their "
                   "weight, which plain storage drops and the three fixes keep."};
    return table;
  }

  TrainingConfig config_;
  std::string weights_ = "bf16";
  std::vector<std::string> formats_ = {"fp64", "fp32", "tf32", "bf16", "fp16", "e5m2", "e4m3", "e3m2", "e2m3", "e2m1"};
};

const DemoRegistration registration{[] { return std::make_unique<VanishingUpdatesDemo>(); }};

}  // namespace
}  // namespace softfloat::cli
