// softfloat tradeoffs (also softfloat demo tradeoffs): matmul's relative error against
// fp64 for every input format, with fp32 and bf16 accumulation, over the depth k,
// beside the bytes per element and the measured fp32-accumulated throughput. Plot:
// error against bytes per element, and error against k.
#include <string>
#include <vector>

#include "cli/demo.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "softfloat/experiments/tradeoffs.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::experiments;

std::vector<std::string> names(const std::vector<Format>& formats) {
  std::vector<std::string> specs;
  for (const Format& format : formats) specs.push_back(format_name(format));
  return specs;
}

std::vector<Format> parsed(const std::vector<std::string>& specs) {
  std::vector<Format> formats;
  for (const auto& spec : specs) formats.push_back(parse_format(spec));
  return formats;
}

std::string power_of_two(int exponent) { return "2^" + std::to_string(exponent); }

class TradeoffsDemo : public Demo {
 public:
  std::string name() const override { return "tradeoffs"; }
  std::string summary() const override {
    return "Matmul error against fp64 for each input format with fp32 and bf16 accumulation, beside bytes per "
           "element and measured throughput";
  }
  std::string plot_script() const override { return "plot_tradeoffs.py"; }
  bool top_level() const override { return true; }

  void add_options(CLI::App& command) override {
    command.add_option("--formats", formats_, "input formats (A and B), comma-separated")
        ->delimiter(',')->check(format_spec_validator())->capture_default_str();
    command.add_option("--accumulators", accumulators_, "accumulator formats of the k-sum, comma-separated")
        ->delimiter(',')->check(format_spec_validator())->capture_default_str();
    command.add_option("--depths", options_.depths, "depths k (terms per dot product), increasing, comma-separated")
        ->delimiter(',')->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))->capture_default_str();
    command.add_option("--rows", options_.rows, "rows m of C")->check(CLI::Range(1, 4096))->capture_default_str();
    command.add_option("--columns", options_.columns, "columns n of C")->check(CLI::Range(1, 4096))
        ->capture_default_str();
    command.add_option("--throughput-size", options_.throughput_size,
                       "N of the timed N x N x N fp32-accumulated multiply (0: not timed)")
        ->check(CLI::Range(0, 8192))->capture_default_str();
    command.add_option("--repeats", options_.throughput_repeats, "timed runs per format (the best counts)")
        ->check(CLI::Range(1, 1000))->capture_default_str();
  }

  DemoOutput run(std::uint64_t seed) override {
    options_.seed = seed;
    options_.formats = parsed(formats_);
    options_.accumulators = parsed(accumulators_);
    const TradeoffResult result = run_tradeoffs(options_);
    DemoOutput output;
    output.tables.push_back(error_table(result));
    output.data.columns = {"format", "bytes_per_element", "accumulator", "k",
                           "relative_error", "input_error", "fp32_gflops"};
    for (const auto& tradeoff : result.formats)
      for (std::size_t a = 0; a < options_.accumulators.size(); ++a)
        for (std::size_t d = 0; d < options_.depths.size(); ++d)
          output.data.rows.push_back({format_name(tradeoff.format), csv_number(tradeoff.bytes_per_element),
                                      accumulators_[a], std::to_string(options_.depths[d]),
                                      csv_number(tradeoff.error[a][d]), csv_number(tradeoff.input_error[d]),
                                      csv_number(tradeoff.gflops)});
    return output;
  }

 private:
  Table error_table(const TradeoffResult& result) const {
    Table table;
    table.title = "Matmul C = A B (" + std::to_string(options_.rows) + " x k times k x " +
                  std::to_string(options_.columns) + "), A and B standard normal in fp64 (seed " +
                  std::to_string(options_.seed) +
                  ") rounded to the input format, the k products summed in the accumulator: "
                  "relative error ||C - C64||_F / ||C64||_F against the fp64 product";
    table.columns = {"format", "bytes", "accumulator"};
    for (const std::size_t k : options_.depths) table.columns.push_back("k = " + std::to_string(k));
    table.columns.push_back("GFLOP/s");
    std::string scaled;
    for (const auto& tradeoff : result.formats) {
      for (std::size_t a = 0; a < options_.accumulators.size(); ++a) {
        std::vector<std::string> row = {format_name(tradeoff.format), significant(tradeoff.bytes_per_element, 3),
                                        accumulators_[a]};
        for (const double error : tradeoff.error[a]) row.push_back(significant(error, 3));
        const bool timed = options_.throughput_size > 0 && options_.accumulators[a] == FP32::format;
        row.push_back(timed ? significant(tradeoff.gflops, 3) : "-");
        table.rows.push_back(row);
      }
      if (tradeoff.log2_scale_a != 0 || tradeoff.log2_scale_b != 0)
        (scaled += scaled.empty() ? "" : ", ") += format_name(tradeoff.format) + " by " +
                                                   power_of_two(tradeoff.log2_scale_a) + " (A) and " +
                                                   power_of_two(tradeoff.log2_scale_b) + " (B)";
    }
    table.notes.push_back("bytes: per element in memory, 6-bit codes four in three bytes and 4-bit codes two a byte.");
    if (!scaled.empty())
      table.notes.push_back("Scaled to fit the format's max before rounding, C scaled back exactly: " + scaled + ".");
    if (options_.throughput_size > 0) {
      const std::string n = std::to_string(options_.throughput_size);
      const std::string threads = result.threads == 1 ? "one thread" : std::to_string(result.threads) + " threads";
      table.notes.push_back("GFLOP/s: measured here, 2 N^3 / time of one fp32-accumulated " + n + " x " + n +
                            " x " + n + " matmul, best of " + std::to_string(options_.throughput_repeats) + ", " +
                            threads + "; other accumulators run a scalar loop, one rounding per step, not timed.");
    }
    return table;
  }

  std::vector<std::string> formats_ = names(tradeoff_formats());
  std::vector<std::string> accumulators_ = {"fp32", "bf16"};
  TradeoffOptions options_;
};

const DemoRegistration registration{[] { return std::make_unique<TradeoffsDemo>(); }};

}  // namespace
}  // namespace softfloat::cli
