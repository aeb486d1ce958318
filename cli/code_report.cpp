// Fields, exact value and neighbours of a code.
#include "cli/code_report.hpp"

#include <cstdio>

#include "softfloat/decimal.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::cli {
namespace {

std::string binary(std::uint64_t field, int width) {
  std::string text;
  for (int i = width - 1; i >= 0; --i) text += ((field >> i) & 1) ? '1' : '0';
  return text;
}

std::string value_class(std::uint64_t code, const Format& f) {
  if (f.is_nan(code)) return "NaN";
  if (f.is_infinite(code)) return "infinity";
  if (f.is_zero(code)) return "zero";
  const bool subnormal = f.has_zero && (f.magnitude(code) >> f.mantissa_bits) == 0;
  return subnormal ? "subnormal" : "normal";
}

}  // namespace

std::string bit_string(std::uint64_t code, const Format& format) {
  std::string text;
  auto append = [&](std::uint64_t field, int width) {
    if (width == 0) return;
    if (!text.empty()) text += ' ';
    text += binary(field, width);
  };
  if (format.is_signed) append(format.is_negative(code) ? 1 : 0, 1);
  append(format.magnitude(code) >> format.mantissa_bits, format.exponent_bits);
  append(code & format.mantissa_mask(), format.mantissa_bits);
  return text;
}

std::string hex_code(std::uint64_t code, const Format& format) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%0*llx", (format.total_bits() + 3) / 4, static_cast<unsigned long long>(code));
  return text;
}

std::string special_values(const Format& f) {
  std::string text;
  if (!f.is_signed) text += "unsigned, ";
  if (!f.has_zero) text += "no zero, ";
  switch (f.specials) {
    case Specials::ieee: return text + "+-inf, NaN = exponent all ones";
    case Specials::fn: return text + "no inf, NaN = magnitude all ones";
    case Specials::finite: return text + "no inf, no NaN";
    case Specials::fnuz: return text + "no inf, no -0, NaN = " + hex_code(f.nan_code(false), f);
    case Specials::p3109:
      return text + "+-inf = magnitude all ones, no -0, NaN = " + hex_code(f.nan_code(false), f);
  }
  return text;
}

std::string describe_format(const Format& f) {
  std::string text = format_name(f) + ": " + std::to_string(f.total_bits()) + " bits (";
  if (f.is_signed) text += "sign 1, ";
  text += "exponent " + std::to_string(f.exponent_bits) + ", mantissa " + std::to_string(f.mantissa_bits) +
          "), bias " + std::to_string(f.bias) + "; " + special_values(f);
  return text;
}

std::optional<std::uint64_t> next_code(std::uint64_t code, const Format& f, bool up) {
  if (f.is_nan(code)) return std::nullopt;
  const std::uint64_t sign = f.sign_bit();
  if (f.is_zero(code)) {
    if (up) return std::uint64_t{1};  // the smallest positive value
    return f.is_signed ? std::optional<std::uint64_t>(sign | 1) : std::nullopt;
  }
  const bool negative = f.is_negative(code);
  const std::uint64_t magnitude = f.magnitude(code), own_sign = code & sign;
  if (up != negative) {  // away from zero
    if (f.is_infinite(code)) return std::nullopt;
    if (magnitude == f.max_finite_magnitude())
      return f.has_infinity() ? std::optional<std::uint64_t>(own_sign | f.infinity_magnitude()) : std::nullopt;
    return own_sign | (magnitude + 1);
  }
  // Toward zero.
  if (f.is_infinite(code)) return own_sign | f.max_finite_magnitude();
  if (magnitude == 0) {  // the smallest magnitude of a format without zero
    if (!f.is_signed) return std::nullopt;
    return own_sign ^ sign;  // the same magnitude with the other sign
  }
  if (magnitude == 1 && f.has_zero) return f.zero_code(negative);
  return own_sign | (magnitude - 1);
}

void print_field(std::ostream& out, const std::string& label, const std::string& text) {
  out << "  " << label << std::string(label.size() < 11 ? 11 - label.size() : 1, ' ') << text << '\n';
}

void print_encoding(std::ostream& out, std::uint64_t code, const Format& f) {
  print_field(out, "bits", bit_string(code, f) + "  (" + hex_code(code, f) + ")");
  const std::string kind = value_class(code, f);
  if (f.is_signed) print_field(out, "sign", f.is_negative(code) ? "1 (negative)" : "0 (positive)");
  const std::uint64_t field = f.magnitude(code) >> f.mantissa_bits;
  const std::uint64_t fraction = code & f.mantissa_mask();
  const bool finite_nonzero = kind == "normal" || kind == "subnormal";
  if (finite_nonzero) {
    const bool subnormal = kind == "subnormal";
    const long exponent = long(subnormal ? 1 : field) - f.bias;
    print_field(out, "exponent", binary(field, f.exponent_bits) + " = " + std::to_string(field) +
                                     (subnormal ? " (subnormal: as 1)" : "") + ", 2^(" +
                                     std::to_string(subnormal ? 1 : field) + " - " + std::to_string(f.bias) +
                                     ") = 2^" + std::to_string(exponent));
    if (f.mantissa_bits > 0) {
      const std::string lead = subnormal ? "0" : "1";
      print_field(out, "mantissa", binary(fraction, f.mantissa_bits) + " = " + lead + " + " +
                                       std::to_string(fraction) + "/2^" + std::to_string(f.mantissa_bits));
    }
  } else {
    print_field(out, "exponent", binary(field, f.exponent_bits));
    if (f.mantissa_bits > 0) print_field(out, "mantissa", binary(fraction, f.mantissa_bits));
  }
  print_field(out, "class", kind);
}

void print_value(std::ostream& out, std::uint64_t code, const Format& f) {
  const bool finite = !f.is_nan(code) && !f.is_infinite(code);
  print_field(out, "value", exact_decimal(code, f) + (finite ? "  (exact)" : ""));
  print_field(out, "shortest", shortest_decimal(code, f) + "  (reads back to the same bits)");
}

void print_neighbours(std::ostream& out, std::uint64_t code, const Format& f) {
  for (const bool up : {false, true}) {
    const auto neighbour = next_code(code, f, up);
    print_field(out, up ? "next up" : "next down",
                neighbour ? exact_decimal(*neighbour, f) + "  (" + hex_code(*neighbour, f) + ")" : "none");
  }
}

}  // namespace softfloat::cli
