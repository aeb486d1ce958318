// Formatting measured quantities for tables and CSV files.
#include "cli/number_text.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>

#include "softfloat/decimal.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::cli {

std::string significant(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

std::string csv_number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string percent(double fraction, int digits) {
  if (fraction == 0) return "0%";
  return significant(100 * fraction, digits) + "%";
}

double to_double(const ExactValue& value) {
  return std::bit_cast<double>(round_to_format(value, binary64_format));
}

std::string compact_exact(const ExactValue& value, std::size_t max_length) {
  const std::string exact = exact_decimal(value);
  if (exact.size() <= max_length || value.kind != ValueClass::finite || value.sticky) return exact;
  if (std::popcount(value.significand) <= 3) {
    std::string text = value.negative ? "-(" : "";
    for (int bit = 63; bit >= 0; --bit)
      if ((value.significand >> bit) & 1) {
        const int exponent = value.exponent + bit;
        if (text.size() > 2 || (!value.negative && !text.empty())) text += " + ";
        if (exponent == 0) {
          text += '1';
        } else {
          text += "2^";
          text += std::to_string(exponent);
        }
      }
    return value.negative ? text + ")" : text;
  }
  std::string approximate = "~";  // built with += : g++ 12 warns falsely (-Wrestrict) on "~" + string
  approximate += significant(to_double(value), 10);
  return approximate;
}

namespace {

// The e of a value that is exactly +-2^e.
std::optional<int> power_of_two_exponent(const ExactValue& value) {
  if (value.kind != ValueClass::finite || value.sticky || !std::has_single_bit(value.significand)) return {};
  return value.exponent + std::countr_zero(value.significand);
}

}  // namespace

std::string power_of_two_or_decimal(const ExactValue& value) {
  if (const auto exponent = power_of_two_exponent(value))
    return std::string(value.negative ? "-" : "") + "2^" + std::to_string(*exponent);
  return exact_decimal(value);
}

namespace {

// 2^exponent in five significant digits, as printf's %.5g would print it. Past double's
// range the decimal exponent and digits come from exponent * log10(2): its fractional
// part keeps some 12 correct digits for |exponent| < 2^20, far more than five need.
std::string approximate_power_of_two(int exponent) {
  if (exponent >= -1074 && exponent <= 1023) return significant(std::ldexp(1.0, exponent), 5);
  const double decimal_exponent = exponent * std::log10(2.0);
  int power = static_cast<int>(std::floor(decimal_exponent));
  double digits = std::pow(10.0, decimal_exponent - power);
  if (digits >= 9.99995) {  // would print as 10.0000
    digits /= 10;
    ++power;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.4fe%c%02d", digits, power < 0 ? '-' : '+', std::abs(power));
  return text;
}

}  // namespace

std::string power_of_two_with_value(const ExactValue& value) {
  const auto power_exponent = power_of_two_exponent(value);
  if (!power_exponent) return exact_decimal(value);
  const int exponent = *power_exponent;
  const std::string sign = value.negative ? "-" : "";
  const std::string power = power_of_two_or_decimal(value);
  // 2^-8 = 0.00390625 and 2^33 = 8589934592 are the widest exact decimals shown.
  if (exponent >= -8 && exponent <= 33) return power + " = " + exact_decimal(value);
  return power + " ~ " + sign + approximate_power_of_two(exponent);
}

}  // namespace softfloat::cli
