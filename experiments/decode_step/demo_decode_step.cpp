// softfloat demo decode-step (also `softfloat demo decode`): one decode step of a stack
// of matrix-vector products per weight format, against this machine's measured read
// bandwidth. Plot: ms per token against bytes per weight, the bound as a line.
#include <string>
#include <vector>

#include "cli/demo.hpp"
#include "cli/number_text.hpp"
#include "softfloat/cost/weights.hpp"
#include "softfloat/experiments/decode_step.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::experiments;

class DecodeStepDemo : public Demo {
 public:
  std::string name() const override { return "decode-step"; }
  std::vector<std::string> aliases() const override { return {"decode"}; }
  std::string summary() const override {
    return "Bytes, not FLOPs: one decode step (matrix-vector products, fp32 activations) per weight format, "
           "against this machine's bandwidth bound";
  }
  std::string plot_script() const override { return "plot_decode_step.py"; }

  void add_options(CLI::App& command) override {
    command.add_option("--formats", options_.formats,
                       "weight formats: format specs (fp32, bf16, e4m3, e2m1, ...) and mxfp8_e4m3, mxfp6_e2m3, "
                       "mxfp4, nvfp4")
        ->delimiter(',')->capture_default_str();
    command.add_option("--dim", options_.dim, "d: each layer's weights are d x d")
        ->check(CLI::Range(std::size_t{2}, std::size_t{16384}))->capture_default_str();
    command.add_option("--layers", options_.layers, "layers (matrix-vector products) per token")
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}))->capture_default_str();
    command.add_option("--repeats", options_.repeats, "timed steps per format (the median counts)")
        ->check(CLI::Range(1, 1000))->capture_default_str();
  }

  DemoOutput run(std::uint64_t seed) override {
    options_.seed = seed;
    const DecodeStepResult result = run_decode_step(options_);
    DemoOutput output;
    Table table;
    const std::string d = std::to_string(options_.dim);
    table.title = "One decode step: x (" + d + " fp32 values) through " + std::to_string(options_.layers) + " layers of " +
                  d + " x " + d + " weights, y = x W per layer (fp32 activations, in-order fp32 sums), " +
                  std::to_string(result.threads) + (result.threads == 1 ? " thread" : " threads") + "; median of " +
                  std::to_string(options_.repeats) + " steps";
    table.columns = {"format", "bytes/weight", "ms/token", "bound ms", "of bound", "speed-up over fp32",
                     "relative error"};
    for (const auto& f : result.formats)
      table.rows.push_back({f.spec, significant(f.bytes_per_weight, 4), significant(f.ms_per_token, 3),
                            significant(f.bound_ms, 3), percent(f.fraction_of_bound, 3),
                            f.speedup_over_fp32 > 0 ? significant(f.speedup_over_fp32, 3) + "x" : "-",
                            significant(f.relative_error, 3)});
    table.notes.push_back("bound: the weights' bytes (elements and block scales) / this machine's read bandwidth, " +
                          significant(result.bandwidth / 1e9, 3) + " GB/s (one thread summing " +
                          std::to_string(result.bandwidth_bytes >> 20) + " MiB, best of 5).");
    table.notes.push_back("relative error: ||y - y64|| / ||y64||, y64 the step in fp64 on the fp32 weights; the "
                          "plain formats of narrow range (fp16, e4m3, e5m2, e2m1) store W * 2^s with max |W| "
                          "brought near the format's largest value, scaled back exactly.");
    // The same arithmetic at a data-centre accelerator's scale (softfloat cost).
    const double params = 7e10, hbm = 3.35e12;
    std::string at_scale;
    for (const char* spec : {"bf16", "e4m3", "e2m1"})
      at_scale += (at_scale.empty() ? "" : ", ") +
                  significant(cost::decode_seconds_per_token(params, cost::parse_storage_format(spec), hbm) * 1e3, 3) +
                  " ms (" + spec + ")";
    table.notes.push_back("At a 70B model's scale on 3.35 TB/s of HBM (softfloat cost): " + at_scale +
                          " per token, by the same bound.");
    output.tables.push_back(table);
    output.data.columns = {"format",     "bytes_per_weight",   "ms_per_token",  "bound_ms",
                           "fraction_of_bound", "speedup_over_fp32", "relative_error"};
    for (const auto& f : result.formats)
      output.data.rows.push_back({f.spec, csv_number(f.bytes_per_weight), csv_number(f.ms_per_token),
                                  csv_number(f.bound_ms), csv_number(f.fraction_of_bound),
                                  csv_number(f.speedup_over_fp32), csv_number(f.relative_error)});
    return output;
  }

 private:
  DecodeStepOptions options_;
};

const DemoRegistration registration{[] { return std::make_unique<DecodeStepDemo>(); }};

}  // namespace
}  // namespace softfloat::cli
