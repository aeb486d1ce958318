// softfloat encode SPEC VALUE [--round MODE] [--saturate] [--seed N]: the value parsed
// exactly, rounded once to the format, and everything about the code it becomes.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/code_report.hpp"
#include "cli/commands.hpp"
#include "cli/decimal_difference.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::cli {
namespace {

struct EncodeRequest {
  std::string spec;
  std::string value;
  Rounding mode = Rounding::nearest_even;
  bool saturate = false;
  std::uint64_t seed = 0;
};

// The input's exact decimal: the text itself for decimal notation, the expansion of
// the parsed value for a hexadecimal float (exact whenever it has at most 64 bits).
std::optional<DecimalNumber> input_decimal(const std::string& text, const ExactValue& parsed) {
  if (auto decimal = read_decimal(text)) return decimal;
  if (parsed.kind == ValueClass::finite && !parsed.sticky) return read_decimal(exact_decimal(parsed));
  return std::nullopt;
}

void print_error(std::ostream& out, const EncodeRequest& request, const ExactValue& input, std::uint64_t code,
                 const Format& f) {
  const ExactValue stored = decode(code, f);
  auto finite = [](const ExactValue& x) { return x.kind == ValueClass::finite || x.kind == ValueClass::zero; };
  if (!finite(input) || !finite(stored)) {
    print_field(out, "error", "none defined (the input or the stored value is not finite)");
    return;
  }
  const auto exact_input = input_decimal(request.value, input);
  const auto exact_stored = read_decimal(exact_decimal(code, f));
  const auto difference = exact_input && exact_stored ? subtract(*exact_stored, *exact_input) : std::nullopt;
  if (!difference) {
    print_field(out, "error", "not computed (the input has too many digits to subtract exactly)");
    return;
  }
  std::string error = to_text(*difference);
  if (!difference->is_zero() && !difference->negative) error.insert(0, "+");
  print_field(out, "error", error + (difference->is_zero() ? "  (exact)" : "  (stored - input, exact)"));
  if (exact_input->is_zero()) return;
  if (difference->is_zero()) {
    print_field(out, "relative", "0");
    return;
  }
  const long double relative = std::strtold(to_text(*difference).c_str(), nullptr) /
                               std::strtold(to_text(*exact_input).c_str(), nullptr);
  std::string text = significant(double(relative), 6);
  if (relative > 0) text.insert(0, "+");
  print_field(out, "relative", text + "  (error / input)");
}

void encode(const EncodeRequest& request) {
  const Format f = parse_format(request.spec);
  const ExactValue input = parse_exact(request.value, exponent_limit(f));
  const bool stochastic = request.mode == Rounding::stochastic || request.mode == Rounding::stochastic_equal;
  const std::uint32_t random = stochastic ? random_bits(request.seed, 0) : 0;
  const Overflow policy = request.saturate ? Overflow::saturate : Overflow::standard;
  const std::uint64_t code = round_to_format(input, f, request.mode, policy, random);

  std::ostream& out = std::cout;
  print_field(out, "input", request.value + "  (parsed exactly)");
  print_field(out, "format", describe_format(f));
  std::string rounding = std::string(rounding_name(request.mode)) + ", overflow " +
                         (request.saturate ? "saturate" : "standard");
  if (stochastic)
    rounding += ", random bits " + std::to_string(random) + " = random_bits(" + std::to_string(request.seed) + ", 0)";
  print_field(out, "rounding", rounding);
  print_encoding(out, code, f);
  print_value(out, code, f);
  print_error(out, request, input, code, f);
  print_neighbours(out, code, f);
}

}  // namespace

void add_encode_command(CLI::App& app, Execution execution) {
  auto request = std::make_shared<EncodeRequest>();
  CLI::App* command = app.add_subcommand("encode", "Round a number to a format and show its code, fields, "
                                                   "exact stored value, error and neighbours");
  command->add_option("SPEC", request->spec, "format spec: bf16, e4m3, e6m9:bias=31, e4m3:fnuz, p3109_8p4, ...")
      ->required()
      ->check(format_spec_validator());
  command->add_option("VALUE", request->value,
                      "decimal (0.1, -6.5, 1e-8), hexadecimal float (0x1.8p3), inf or nan; parsed exactly, "
                      "never through double (put -- before a negative value if it reads as an option)")
      ->required();
  add_rounding_option(*command, request->mode);
  command->add_flag("--saturate", request->saturate,
                    "overflow to +-max (OCP SAT) instead of the format's infinity or NaN");
  command->add_option("--seed", request->seed, "seed of the stochastic modes' random bits: random_bits(seed, 0)")
      ->default_val(0);
  set_action(
      *command, execution,
      [request] { parse_exact(request->value, exponent_limit(parse_format(request->spec))); },
      [request] { encode(*request); });
}

}  // namespace softfloat::cli
