// softfloat demo accumulation: n copies of 1e-4 and random dot products summed in
// fp32, bf16 and fp16 accumulators, plain and Kahan-compensated. Plot: relative
// error against n for both workloads.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "cli/demo.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/experiments/accumulation.hpp"
#include "softfloat/experiments/gradient_underflow.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::experiments;

class AccumulationDemo : public Demo {
 public:
  std::string name() const override { return "accumulation"; }
  std::string summary() const override {
    return "Running sums in 16-bit accumulators stall once the terms fall below half an ulp of the sum; "
           "fp32 and Kahan summation do not";
  }
  std::string plot_script() const override { return "plot_accumulation.py"; }

  void add_options(CLI::App& command) override {
    command.add_option("--formats", formats_, "accumulator formats (each plain and with Kahan summation)")
        ->check(format_spec_validator())->capture_default_str();
    command.add_option("--value", value_, "the repeated term, parsed exactly and stored in fp32")
        ->capture_default_str();
    command.add_option("--terms", terms_, "largest number of terms n")->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    command.add_option("--trials", trials_, "dot products averaged per n")->check(CLI::Range(1, 10000))
        ->capture_default_str();
  }

  DemoOutput run(std::uint64_t seed) override {
    const float term = std::bit_cast<float>(std::uint32_t(store_decimal(value_, binary32_format)));
    const std::vector<std::size_t> checkpoints = log_spaced_counts(terms_, 10);
    std::vector<AccumulationSeries> constant, dot;
    for (const auto& spec : formats_)
      for (const Summation summation : {Summation::plain, Summation::kahan}) {
        const Accumulator accumulator{parse_format(spec), summation};
        constant.push_back(sum_constant(accumulator, term, terms_, checkpoints));
        dot.push_back(sum_dot_products(accumulator, terms_, trials_, seed, checkpoints));
      }
    DemoOutput output;
    output.tables.push_back(constant_table(constant, term));
    output.tables.push_back(dot_table(dot, seed));
    output.data.columns = {"workload", "accumulator", "terms", "relative_error"};
    auto add_rows = [&](const std::string& workload, const std::vector<AccumulationSeries>& all) {
      for (const auto& series : all)
        for (const auto& point : series.errors)
          output.data.rows.push_back({workload, accumulator_name(series.accumulator), std::to_string(point.terms),
                                      csv_number(point.relative_error)});
    };
    add_rows("constant " + value_, constant);
    add_rows("dot", dot);
    return output;
  }

 private:
  Table constant_table(const std::vector<AccumulationSeries>& all, float term) const {
    Table table;
    table.title = "Sum of " + std::to_string(terms_) + " copies of " + value_ + " (as fp32: " +
                  exact_decimal(decode(term)) + "), each added with one rounding to the accumulator";
    table.columns = {"accumulator", "sum", "exact sum", "relative error", "stalls after n terms"};
    for (const auto& series : all)
      table.rows.push_back({accumulator_name(series.accumulator), significant(series.final_sum, 9),
                            significant(series.exact_sum, 9), significant(series.errors.back().relative_error, 3),
                            series.stalled_at == 0 ? "-" : std::to_string(series.stalled_at)});
    return table;
  }

  Table dot_table(const std::vector<AccumulationSeries>& all, std::uint64_t seed) const {
    Table table;
    table.title = "Dot products of n pairs uniform in [0, 1) (fp32, seed " + std::to_string(seed) +
                  "), each product added exactly with one rounding: mean relative error over " +
                  std::to_string(trials_) + " trials";
    table.columns = {"accumulator"};
    std::vector<std::size_t> shown;  // the powers of ten among the checkpoints
    for (const auto& point : all.front().errors)
      if (const std::string digits = std::to_string(point.terms);
          point.terms >= 10 && digits[0] == '1' && digits.find_first_not_of('0', 1) == std::string::npos) {
        shown.push_back(point.terms);
        table.columns.push_back("n = " + std::to_string(point.terms));
      }
    for (const auto& series : all) {
      std::vector<std::string> row = {accumulator_name(series.accumulator)};
      for (const auto& point : series.errors)
        if (std::find(shown.begin(), shown.end(), point.terms) != shown.end())
          row.push_back(significant(point.relative_error, 3));
      table.rows.push_back(row);
    }
    return table;
  }

  std::vector<std::string> formats_ = {"fp32", "bf16", "fp16"};
  std::string value_ = "1e-4";
  std::size_t terms_ = 100000;
  int trials_ = 8;
};

const DemoRegistration registration{[] { return std::make_unique<AccumulationDemo>(); }};

}  // namespace
}  // namespace softfloat::cli
