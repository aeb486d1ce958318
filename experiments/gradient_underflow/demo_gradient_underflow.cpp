// softfloat demo gradient-underflow: 1e-8 in each format, and what a log-normal
// spread of gradients loses to underflow and overflow per format, without scaling,
// with static loss scaling at every power of two and with dynamic loss scaling.
// Plot: surviving fraction against scale, and the dynamic scale against step.
#include <string>
#include <vector>

#include "cli/demo.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/experiments/gradient_underflow.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::experiments;

std::string signed_percent(double fraction) { return (fraction > 0 ? "+" : "") + percent(fraction); }

class GradientUnderflowDemo : public Demo {
 public:
  std::string name() const override { return "gradient-underflow"; }
  std::string summary() const override {
    return "Small gradients flush to zero in fp16 and FP8 but not in bf16; static and dynamic loss "
           "scaling bring them back";
  }
  std::string plot_script() const override { return "plot_gradient_underflow.py"; }

  void add_options(CLI::App& command) override {
    command.add_option("--formats", formats_, "formats the gradients are stored in")
        ->check(format_spec_validator())->capture_default_str();
    command.add_option("--value", value_, "the single gradient of the first table, parsed exactly")
        ->capture_default_str();
    command.add_option("--samples", spread_.count, "gradients in the sample")->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    command.add_option("--median", spread_.log10_median, "log10 of the median gradient magnitude")
        ->capture_default_str();
    command.add_option("--deviation", spread_.log10_deviation, "standard deviation of log10 |gradient|")
        ->check(CLI::NonNegativeNumber)->capture_default_str();
    command.add_option("--max-scale", max_log2_scale_, "largest static scale, as a power of two")
        ->check(CLI::Range(-200, 200))->capture_default_str();
    command.add_option("--steps", dynamic_.steps, "steps of the dynamic scaler")->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    command.add_option("--batch", dynamic_.batch, "gradients per step of the dynamic scaler")
        ->check(CLI::Range(1, 10000000))->capture_default_str();
    command.add_option("--growth-interval", dynamic_.growth_interval,
                       "steps without overflow before the dynamic scale doubles")
        ->check(CLI::Range(1, 1000000))->capture_default_str();
  }

  DemoOutput run(std::uint64_t seed) override {
    spread_.seed = seed;
    DemoOutput output;
    output.tables.push_back(single_value_table());
    const std::vector<float> gradients = lognormal_gradients(spread_);
    Table summary = summary_table();
    output.data.columns = {"kind", "format", "step", "log2_scale", "survived", "flushed_to_zero", "overflowed"};
    for (const auto& spec : formats_) {
      const Format f = parse_format(spec);
      const std::string name = format_name(f);
      const auto curve = static_loss_scaling(gradients, f, min_log2_scale_, max_log2_scale_);
      const DynamicScalingRun dynamic = dynamic_loss_scaling(spread_, f, dynamic_);
      const RangeLoss unscaled = range_loss(gradients, f);
      const ScaledRangeLoss* best = &curve.front();
      for (const auto& point : curve)
        if (point.loss.survived > best->loss.survived) best = &point;
      summary.rows.push_back({name, percent(unscaled.flushed_to_zero), percent(unscaled.overflowed),
                              percent(unscaled.survived), "2^" + std::to_string(best->log2_scale),
                              percent(best->loss.survived), "2^" + std::to_string(dynamic.median_log2_scale()),
                              percent(dynamic.mean_survived()), percent(dynamic.skipped_fraction(), 3)});
      for (const auto& point : curve)
        output.data.rows.push_back({"static", name, "", std::to_string(point.log2_scale),
                                    csv_number(point.loss.survived), csv_number(point.loss.flushed_to_zero),
                                    csv_number(point.loss.overflowed)});
      for (std::size_t step = 0; step < dynamic.steps.size(); ++step) {
        const auto& s = dynamic.steps[step];
        output.data.rows.push_back({"dynamic", name, std::to_string(step), std::to_string(s.log2_scale),
                                    csv_number(s.loss.survived), csv_number(s.loss.flushed_to_zero),
                                    csv_number(s.loss.overflowed)});
      }
    }
    output.tables.push_back(summary);
    return output;
  }

 private:
  Table single_value_table() const {
    Table table;
    table.title = "One gradient of " + value_ + ", parsed exactly and stored in each format (nearest_even)";
    table.columns = {"format", "min subnormal", "stored as (exact)", "relative error"};
    const double input = to_double(parse_exact(value_));
    for (const auto& spec : formats_) {
      const Format f = parse_format(spec);
      const std::uint64_t code = store_decimal(value_, f);
      const double stored = to_double(decode(code, f));
      table.rows.push_back({format_name(f), f.has_subnormals() ? power_of_two_or_decimal(decode(1, f)) : "none",
                            exact_decimal(code, f), input == 0 ? "-" : signed_percent((stored - input) / input)});
    }
    return table;
  }

  Table summary_table() const {
    Table table;
    table.title = "Gradients |g| = 10^z, z ~ N(" + significant(spread_.log10_median) + ", " +
                  significant(spread_.log10_deviation) + "), random signs, " + std::to_string(spread_.count) +
                  " values (seed " + std::to_string(spread_.seed) + "), stored in each format (nearest_even)";
    table.columns = {"format", "flushed to 0", "overflowed", "survived", "best static scale", "survived",
                     "dynamic scale (median)", "survived", "steps skipped"};
    table.notes = {"Static: every power of two from 2^" + std::to_string(min_log2_scale_) + " to 2^" +
                       std::to_string(max_log2_scale_) + ". Dynamic: start at 2^" +
                       std::to_string(dynamic_.initial_log2_scale) + ", halve and skip the step on overflow, "
                       "double after " + std::to_string(dynamic_.growth_interval) + " clean steps; " +
                       std::to_string(dynamic_.steps) + " steps of " + std::to_string(dynamic_.batch) +
                       " fresh gradients; survived = mean over the applied steps."};
    return table;
  }

  GradientSpread spread_;
  DynamicScalingConfig dynamic_;
  int min_log2_scale_ = 0;
  int max_log2_scale_ = 40;
  std::string value_ = "1e-8";
  std::vector<std::string> formats_ = {"fp16", "bf16", "e5m2", "e4m3"};
};

const DemoRegistration registration{[] { return std::make_unique<GradientUnderflowDemo>(); }};

}  // namespace
}  // namespace softfloat::cli
