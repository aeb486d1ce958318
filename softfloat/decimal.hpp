// Reading and writing numbers as text: parse<F>() rounds a decimal or hexadecimal
// string exactly (never through double), to_string() and operator<< print the
// shortest decimal that parse<F>() reads back to the same bits, exact_decimal() the
// value's full decimal expansion.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "softfloat/exact_value.hpp"
#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat {

// The exact value of `text`, reduced to a 64-bit significand plus sticky bit, which
// is all that rounding to any format needs. Accepts, case-insensitively, an optional
// sign and then a decimal ("12", "-1.5e-3", ".5"), a hexadecimal float ("0x1.8p3"),
// "inf", "infinity" or "nan". Values whose magnitude lies beyond 2^+-exponent_limit
// are replaced by one that rounds the same in every format whose exponents stay
// inside that limit (this keeps huge decimal exponents cheap). Throws
// std::invalid_argument with a message for anything else.
ExactValue parse_exact(std::string_view text, int exponent_limit = 1 << 21);

// The largest binary exponent magnitude that matters to `format` (with margin).
constexpr int exponent_limit(const Format& format) {
  const int high = format.max_exponent() + 2;
  const int low = format.min_normal_exponent() - format.mantissa_bits - 2;
  return (high > -low ? high : -low) + 8;
}

// The shortest decimal text that parses back to `code` in `format`: "0.1", "448",
// "-0", "inf", "nan" ("-nan" for a NaN with its sign bit set: NaN payloads are not
// printed). Where a value lies outside the range of long double (formats with huge
// biases) the text is the exact hexadecimal float instead.
std::string shortest_decimal(std::uint64_t code, const Format& format);

// The exact decimal value of `code` in `format`: every binary fraction has a finite
// decimal expansion, so nothing is rounded (bf16 0.1 is "0.10009765625", fp16 0.1 is
// "0.0999755859375"). Same notation as shortest_decimal(): plain for decimal exponents
// in [-5, 16], else "d.ddde-XX"; "nan", "inf", "-0" as there. Values beyond 2^+-20000
// (formats with huge biases) would need tens of thousands of digits and are given as
// the exact hexadecimal float instead.
std::string exact_decimal(std::uint64_t code, const Format& format);
// The same for a decoded value; throws std::invalid_argument if `value` is not exact
// (its sticky bit is set).
std::string exact_decimal(const ExactValue& value);

template <FloatType F>
F parse(std::string_view text, Rounding mode = Rounding::nearest_even) {
  return F::from_exact(parse_exact(text, exponent_limit(F::format)), mode);
}

template <FloatType F>
std::string to_string(F x) {
  return shortest_decimal(x.bits(), F::format);
}

template <FloatType F>
std::ostream& operator<<(std::ostream& out, F x) {
  return out << to_string(x);
}

}  // namespace softfloat
