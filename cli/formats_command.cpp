// softfloat formats [SPEC...] [--csv FILE]: one table of the named formats (or the
// given specs) with their limits, conventions and multiplier cost, all computed from
// the runtime Format.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/code_report.hpp"
#include "cli/commands.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

struct FormatsRequest {
  std::vector<std::string> specs;
  std::string csv;
};

// The largest finite value: exact when that is short (65504, 448), else ~8 digits.
std::string max_text(const Format& f) {
  const std::string exact = exact_decimal(f.max_finite_magnitude(), f);
  if (exact.size() <= 12) return exact;
  return "~" + significant(to_double(decode(f.max_finite_magnitude(), f)), 8);
}

Table format_table(const std::vector<std::string>& specs) {
  Table table;
  table.title = "Formats: limits decoded exactly from each format's codes";
  table.columns = {"spec", "bits", "E", "M", "bias", "max", "min normal", "min subnormal", "epsilon",
                   "infinity / NaN", "multiplier cells"};
  for (const auto& spec : specs) {
    const Format f = parse_format(spec);
    const std::uint64_t min_normal = f.has_zero ? std::uint64_t{1} << f.mantissa_bits : 0;
    const ExactValue epsilon{ValueClass::finite, false, 1, -f.mantissa_bits};
    // An array multiplier of p-bit significands (p = M + 1, the implicit bit
    // included) has p^2 partial-product cells: 576 for fp32, 121 for fp16, 64 for bf16.
    const long p = f.mantissa_bits + 1;
    table.rows.push_back({format_name(f), std::to_string(f.total_bits()), std::to_string(f.exponent_bits),
                          std::to_string(f.mantissa_bits), std::to_string(f.bias),
                          max_text(f),
                          power_of_two_with_value(decode(min_normal, f)),
                          f.has_subnormals() ? power_of_two_with_value(decode(1, f)) : "none",
                          power_of_two_or_decimal(epsilon), special_values(f), std::to_string(p * p)});
  }
  table.notes = {"max: exact, or ~ 8 significant digits; min normal and min subnormal: = exact, ~ 5 significant digits; epsilon = 2^-M, the gap above 1; "
                 "multiplier cells = (M + 1)^2, the partial products of an array multiplier."};
  return table;
}

void list_formats(const FormatsRequest& request) {
  std::vector<std::string> specs = request.specs;
  if (specs.empty())
    for (const auto name : named_format_specs()) specs.emplace_back(name);
  const Table table = format_table(specs);
  print_table(std::cout, table);
  if (!request.csv.empty()) write_csv(request.csv, table);
}

}  // namespace

void add_formats_command(CLI::App& app, Execution execution) {
  auto request = std::make_shared<FormatsRequest>();
  CLI::App* command = app.add_subcommand(
      "formats", "Table of formats: bits, fields, bias, max, min normal, min subnormal, epsilon, "
                 "infinity/NaN convention, multiplier cells (every named format unless specs are given)");
  command->add_option("SPEC", request->specs, "format specs (default: every named format)")
      ->check(format_spec_validator());
  command->add_option("--csv", request->csv, "also write the table to this CSV file")->type_name("FILE");
  set_action(*command, execution, [] {}, [request] { list_formats(*request); });
}

}  // namespace softfloat::cli
