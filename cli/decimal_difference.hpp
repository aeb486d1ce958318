// The exact difference of two decimal numbers given as text: how `encode` prints the
// error of a stored value (a binary fraction, whose decimal expansion is finite)
// against the decimal the user typed. Digit-string arithmetic, no rounding.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace softfloat::cli {

// (-1)^negative * digits * 10^exponent; digits without leading zeros ("0" for zero).
struct DecimalNumber {
  bool negative = false;
  std::string digits = "0";
  long exponent = 0;
  bool is_zero() const { return digits == "0"; }
};

// Reads plain or scientific decimal notation ("-6.5", ".5", "1.5e-08"); nothing for
// anything else (hexadecimal floats, "inf", "nan", malformed text).
std::optional<DecimalNumber> read_decimal(std::string_view text);

// a - b, exactly. Nothing when the result would need more than a million digits
// (operands of wildly different magnitudes: "1e-999999" against 1).
std::optional<DecimalNumber> subtract(const DecimalNumber& a, const DecimalNumber& b);

// Plain notation for decimal exponents (of the leading digit) in [-5, 16], else
// d.ddd(e+|e-)XX, as the library prints exact_decimal().
std::string to_text(const DecimalNumber& x);

}  // namespace softfloat::cli
