// Numbers as the tables show them. Exact values of codes come from the library
// (exact_decimal, shortest_decimal); these helpers format measured quantities.
#pragma once

#include <cstdint>
#include <string>

#include "softfloat/exact_value.hpp"

namespace softfloat::cli {

// `digits` significant digits, as printf's %g: "0.0189", "4.5e-05".
std::string significant(double value, int digits = 4);
// Full precision for CSV files: the double reads back exactly.
std::string csv_number(double value);
// A fraction as a percentage with `digits` significant digits: "36.66%", "0.0037%", "0%".
std::string percent(double fraction, int digits = 4);
// The value rounded to double (nearest even): for measured quantities, not for display
// of stored values (exact_decimal does that).
double to_double(const ExactValue& value);
// Exact and short: the exact decimal when it has at most `max_length` characters
// ("0.003936767578125"), else a sum of at most three powers of two ("2^-53 + 2^-105",
// "1 + 2^-52"), else "~" and ten significant digits.
std::string compact_exact(const ExactValue& value, std::size_t max_length = 20);
// "2^-24" for a power of two; otherwise the exact decimal.
std::string power_of_two_or_decimal(const ExactValue& value);
// A power of two with its value beside it, for readers who think in decimals: exact when
// short ("2^-6 = 0.015625"), else five significant digits ("2^-126 ~ 1.1755e-38"), also
// beyond double's range ("2^-16494 ~ 6.4752e-4966"); anything else as its exact decimal.
std::string power_of_two_with_value(const ExactValue& value);

}  // namespace softfloat::cli
