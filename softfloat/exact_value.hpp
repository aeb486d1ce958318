// An exact value in sign / integer significand / power-of-two form: what every
// conversion decodes its argument into before the one rounding routine packs it
// into a format. Decoding is exact; only round_to_format() rounds.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>

#include "softfloat/format.hpp"

namespace softfloat {

enum class ValueClass : std::uint8_t { zero, finite, infinite, nan };

struct ExactValue {
  ValueClass kind = ValueClass::zero;
  bool negative = false;
  // For finite values: |value| = (significand + tail) * 2^exponent, where the tail
  // is 0 when `sticky` is false and strictly between 0 and 1 when it is true.
  // Callers with more than 64 significant bits shift the excess into `sticky`.
  std::uint64_t significand = 0;
  int exponent = 0;
  bool sticky = false;
  // For NaN: the source mantissa left-aligned in 64 bits (quiet bit on top).
  std::uint64_t nan_payload = 0;
};

// Decodes a code of `format` exactly. The same routine decodes float and double
// arguments (binary32_format / binary64_format), so there is one decoder.
constexpr ExactValue decode(std::uint64_t code, const Format& format) {
  ExactValue value;
  value.negative = format.is_negative(code);
  const std::uint64_t magnitude = format.magnitude(code);
  const int m = format.mantissa_bits;
  if (format.is_nan(code)) {
    value.kind = ValueClass::nan;
    // IEEE NaNs carry a payload in the mantissa; the other conventions have one
    // NaN code per sign, which reads as a quiet NaN without payload bits.
    value.nan_payload = format.specials == Specials::ieee
                            ? (magnitude & format.mantissa_mask()) << (64 - m)
                            : std::uint64_t{1} << 63;
    return value;
  }
  if (format.is_infinite(code)) {
    value.kind = ValueClass::infinite;
    return value;
  }
  if (format.is_zero(code)) {
    value.kind = ValueClass::zero;
    return value;
  }
  value.kind = ValueClass::finite;
  const int field = int(magnitude >> m);
  const std::uint64_t fraction = magnitude & format.mantissa_mask();
  if (field == 0 && format.has_zero) {  // subnormal: 0.fraction * 2^(1 - bias)
    value.significand = fraction;
    value.exponent = 1 - format.bias - m;
  } else {  // normal: 1.fraction * 2^(field - bias)
    value.significand = fraction | (std::uint64_t{1} << m);
    value.exponent = field - format.bias - m;
  }
  return value;
}

constexpr ExactValue decode(float x) { return decode(std::bit_cast<std::uint32_t>(x), binary32_format); }
constexpr ExactValue decode(double x) { return decode(std::bit_cast<std::uint64_t>(x), binary64_format); }

// Integers are exact as they stand: significand |v|, exponent 0.
template <std::integral Int>
  requires(!std::same_as<Int, bool>)
constexpr ExactValue decode(Int v) {
  ExactValue value;
  if (v == 0) return value;
  value.kind = ValueClass::finite;
  value.negative = v < 0;
  const auto wide = static_cast<std::uint64_t>(v);
  // Two's-complement negation in unsigned arithmetic is exact even for INT64_MIN.
  value.significand = value.negative ? std::uint64_t{0} - wide : wide;
  return value;
}

}  // namespace softfloat
