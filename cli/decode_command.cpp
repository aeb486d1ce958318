// softfloat decode SPEC CODE: a code given in hexadecimal or binary, decoded exactly.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/code_report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

struct DecodeRequest {
  std::string spec;
  std::string code;
};

// "0xc0d0" or "0b1100000011010000" (case-insensitive, '_' or ''' between digits allowed).
std::uint64_t read_code(const std::string& text, const Format& f) {
  auto reject = [&](const std::string& why) -> std::uint64_t {
    throw std::invalid_argument("invalid code '" + escape_unprintable(text) + "': " + why);
  };
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const bool bin = text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B');
  if (!hex && !bin) return reject("expected 0x<hex digits> or 0b<binary digits>");
  const int bits_per_digit = hex ? 4 : 1;
  std::uint64_t code = 0;
  int significant_bits = 0;
  for (std::size_t i = 2; i < text.size(); ++i) {
    const char c = char(std::tolower(static_cast<unsigned char>(text[i])));
    if (c == '_' || c == '\'') continue;
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (hex && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (digit < 0 || digit >= (hex ? 16 : 2))
      return reject("'" + escape_unprintable(text.substr(i, 1)) + "' is not a " + (hex ? "hexadecimal" : "binary") +
                    " digit");
    if (significant_bits > 0 || digit != 0) significant_bits += bits_per_digit;
    if (significant_bits > 64) return reject("more than 64 bits");
    code = code << bits_per_digit | std::uint64_t(digit);
  }
  const int width = f.total_bits();
  if (width < 64 && code >> width != 0)
    return reject("does not fit in the " + std::to_string(width) + " bits of " + format_name(f) + " (largest " +
                  hex_code((std::uint64_t{1} << width) - 1, f) + ")");
  return code;
}

void decode_code(const DecodeRequest& request) {
  const Format f = parse_format(request.spec);
  const std::uint64_t code = read_code(request.code, f);
  std::ostream& out = std::cout;
  print_field(out, "format", describe_format(f));
  print_encoding(out, code, f);
  print_value(out, code, f);
  print_neighbours(out, code, f);
}

}  // namespace

void add_decode_command(CLI::App& app, Execution execution) {
  auto request = std::make_shared<DecodeRequest>();
  CLI::App* command =
      app.add_subcommand("decode", "Show the fields, exact value and neighbours of a code of a format");
  command->add_option("SPEC", request->spec, "format spec: bf16, e4m3, e6m9:bias=31, e4m3:fnuz, p3109_8p4, ...")
      ->required()
      ->check(format_spec_validator());
  command->add_option("CODE", request->code, "the code's bits: 0x<hex> (0xc0d0) or 0b<binary>")->required();
  set_action(
      *command, execution, [request] { read_code(request->code, parse_format(request->spec)); },
      [request] { decode_code(*request); });
}

}  // namespace softfloat::cli
