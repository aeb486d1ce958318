// The report `encode` and `decode` print for one code of a format: its fields, its
// bit string, its value in full and its neighbours.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "softfloat/format.hpp"

namespace softfloat::cli {

// "1 10000001 1010000" for bf16 -6.5: sign (if any), exponent and mantissa fields.
std::string bit_string(std::uint64_t code, const Format& format);
// "0xc0d0": as many hex digits as the format's bits need.
std::string hex_code(std::uint64_t code, const Format& format);
// "bf16: 16 bits (sign 1, exponent 8, mantissa 7), bias 127, IEEE infinities and NaNs"
std::string describe_format(const Format& format);
// "+-inf, NaN = exponent all ones" and the like: where the format keeps its specials.
std::string special_values(const Format& format);

// The neighbouring code toward +infinity (up) or -infinity, as IEEE nextUp and
// nextDown; nothing beyond the ends of the format or for NaN.
std::optional<std::uint64_t> next_code(std::uint64_t code, const Format& format, bool up);

// "label  text" lines about a code: print_encoding gives bits, sign, exponent,
// mantissa and class; print_value the exact value and the shortest decimal that reads
// back to it; print_neighbours the codes next down and next up with their values.
void print_encoding(std::ostream& out, std::uint64_t code, const Format& format);
void print_value(std::ostream& out, std::uint64_t code, const Format& format);
void print_neighbours(std::ostream& out, std::uint64_t code, const Format& format);

// One "label  text" line, labels padded to one width.
void print_field(std::ostream& out, const std::string& label, const std::string& text);

}  // namespace softfloat::cli
