// Format specs and rounding names on the command line.
#include "cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
std::string rounding_names() {
  std::string names;
  for (const Rounding mode : kAllRoundings) (names += names.empty() ? "" : ", ") += rounding_name(mode);
  return names;
}

CLI::Validator format_spec_validator() {
  return parse_validator([](const std::string& spec) { parse_format(spec); }, "format spec", "SPEC");
}

CLI::Option* add_rounding_option(CLI::App& command, Rounding& mode) {
  // The transform turns the name into the enumerator's number, which CLI11 stores.
  const CLI::Validator by_name(
      [](std::string& text) -> std::string {
        std::string lower = text;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        try {
          text = std::to_string(int(parse_rounding(lower)));
          return {};
        } catch (const std::invalid_argument& error) {
          return error.what();
        }
      },
      "", "rounding name");
  return command.add_option("--round", mode, "rounding direction: " + rounding_names())
      ->type_name("MODE")
      ->transform(by_name)
      ->default_str(std::string(rounding_name(mode)));
}

}  // namespace softfloat::cli
