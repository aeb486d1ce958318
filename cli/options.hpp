// Options shared by the subcommands: formats by the spec grammar of parse_format(),
// rounding modes by the names of softfloat::Rounding's enumerators (parse_rounding()).
#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "softfloat/format.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::cli {

// Every rounding name (softfloat::rounding_name of each mode), comma-separated, for
// help texts.
std::string rounding_names();

// A validator that accepts what `parse` accepts (a function of the text that throws
// std::invalid_argument for bad text) and reports the exception's message.
template <class Parse>
CLI::Validator parse_validator(Parse parse, std::string name, std::string description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const std::invalid_argument& error) {
          return error.what();
        }
      },
      std::move(description), std::move(name));
}

// A validator that accepts what parse_format() accepts and reports its message.
CLI::Validator format_spec_validator();

// --round MODE, bound to `mode` (which keeps its value when the option is absent).
CLI::Option* add_rounding_option(CLI::App& command, Rounding& mode);

}  // namespace softfloat::cli
