// The runtime description of a floating-point format: field widths, bias and the
// convention for special values. Everything that converts or computes works from a
// Format, so one compiled code path serves formats chosen at run time; the Float
// template is a typed wrapper that carries a constexpr Format.
#pragma once

#include <cstdint>
#include <string_view>

namespace softfloat {

// Where a format keeps its special values. The magnitude of an encoding is its
// bits without the sign bit; "all-ones magnitude" is 0b1111...1.
enum class Specials : std::uint8_t {
  ieee,    // IEEE 754: exponent all ones holds infinity (mantissa 0) and NaNs
  fn,      // OCP "fn": no infinity; only the all-ones magnitude is NaN (E4M3, E8M0)
  finite,  // no infinity and no NaN: every code is a number (OCP MX E2M1, E2M3, E3M2)
  fnuz,    // no infinity, no negative zero; the negative-zero code is the only NaN
  p3109,   // IEEE P3109: infinities at the all-ones magnitude, the only NaN at the
           // negative-zero code, no negative zero
};

// Why a parameter set cannot be a format. Each reason has its own compile-time
// message in Float and its own runtime message from describe().
enum class FormatProblem : std::uint8_t {
  none,
  exponent_bits_out_of_range,   // E must be 1..11
  mantissa_bits_out_of_range,   // M must be 0..52
  too_many_bits,                // sign + E + M must fit 64 bits
  bias_out_of_range,            // |bias| must stay below 2^20
  ieee_needs_mantissa,          // IEEE with M = 0 cannot tell infinity from NaN
  ieee_needs_two_exponent_bits, // IEEE with E = 1 has no normal numbers
  nan_at_negative_zero_needs_sign,  // fnuz / P3109 put NaN where -0 would be
  no_finite_nonzero_value,      // the special values use up every nonzero code
};

constexpr std::string_view describe(FormatProblem problem) {
  switch (problem) {
    case FormatProblem::none: return "valid format";
    case FormatProblem::exponent_bits_out_of_range: return "exponent bits must be between 1 and 11";
    case FormatProblem::mantissa_bits_out_of_range: return "mantissa bits must be between 0 and 52";
    case FormatProblem::too_many_bits: return "sign, exponent and mantissa must fit in 64 bits";
    case FormatProblem::bias_out_of_range: return "the bias must lie strictly between -2^20 and 2^20";
    case FormatProblem::ieee_needs_mantissa:
      return "an IEEE-style format needs at least one mantissa bit to tell infinity from NaN "
             "(use :fn or :finite for M = 0)";
    case FormatProblem::ieee_needs_two_exponent_bits:
      return "an IEEE-style format needs at least two exponent bits: with one, every exponent "
             "code is zero/subnormal or infinity/NaN and no normal number is left";
    case FormatProblem::nan_at_negative_zero_needs_sign:
      return "fnuz and P3109 formats keep NaN at the negative-zero code, so they need a sign bit";
    case FormatProblem::no_finite_nonzero_value:
      return "the special values take every nonzero code: the format has no finite nonzero value";
  }
  return "unknown problem";
}

struct Format {
  int exponent_bits = 8;
  int mantissa_bits = 23;
  int bias = 127;
  Specials specials = Specials::ieee;
  bool is_signed = true;
  // false: exponent field 0 is an ordinary binade, so there is neither zero nor
  // subnormals (the OCP MX scale format E8M0, whose code 0 is 2^-127).
  bool has_zero = true;

  // Two Formats are equal exactly when they describe the same values and codes:
  // every field above is part of the encoding and none is derived from another.
  friend constexpr bool operator==(const Format&, const Format&) = default;

  constexpr int total_bits() const { return int(is_signed) + exponent_bits + mantissa_bits; }
  constexpr std::uint64_t magnitude_mask() const {
    return (std::uint64_t{1} << (exponent_bits + mantissa_bits)) - 1;
  }
  constexpr std::uint64_t mantissa_mask() const { return (std::uint64_t{1} << mantissa_bits) - 1; }
  constexpr std::uint64_t sign_bit() const {
    return is_signed ? std::uint64_t{1} << (exponent_bits + mantissa_bits) : 0;
  }
  constexpr std::uint64_t sign_bits(bool negative) const { return negative ? sign_bit() : 0; }

  constexpr bool has_infinity() const { return specials == Specials::ieee || specials == Specials::p3109; }
  constexpr bool has_nan() const { return specials != Specials::finite; }
  constexpr bool nan_at_negative_zero() const {
    return specials == Specials::fnuz || specials == Specials::p3109;
  }
  constexpr bool has_negative_zero() const { return is_signed && has_zero && !nan_at_negative_zero(); }
  constexpr bool has_subnormals() const { return has_zero && mantissa_bits > 0; }

  // The largest finite magnitude code: the codes above it hold infinity or NaN.
  constexpr std::uint64_t max_finite_magnitude() const {
    switch (specials) {
      case Specials::ieee: return (((std::uint64_t{1} << exponent_bits) - 1) << mantissa_bits) - 1;
      case Specials::fn:
      case Specials::p3109: return magnitude_mask() - 1;
      case Specials::finite:
      case Specials::fnuz: return magnitude_mask();
    }
    return 0;
  }
  constexpr std::uint64_t infinity_magnitude() const {
    return specials == Specials::ieee ? ((std::uint64_t{1} << exponent_bits) - 1) << mantissa_bits
                                      : magnitude_mask();
  }
  // Exponent of the smallest normal binade: field 1 normally, field 0 without zero.
  constexpr int min_normal_exponent() const { return (has_zero ? 1 : 0) - bias; }
  // Exponent of the binade holding max().
  constexpr int max_exponent() const {
    int field = int(max_finite_magnitude() >> mantissa_bits);
    return (field == 0 && has_zero ? 1 : field) - bias;
  }

  // Classification of codes.
  constexpr std::uint64_t magnitude(std::uint64_t code) const { return code & magnitude_mask(); }
  constexpr bool is_negative(std::uint64_t code) const { return (code & sign_bit()) != 0; }
  constexpr bool is_nan(std::uint64_t code) const {
    switch (specials) {
      case Specials::ieee: return magnitude(code) > infinity_magnitude();
      case Specials::fn: return magnitude(code) == magnitude_mask();
      case Specials::finite: return false;
      case Specials::fnuz:
      case Specials::p3109: return code == sign_bit();
    }
    return false;
  }
  constexpr bool is_infinite(std::uint64_t code) const {
    return has_infinity() && magnitude(code) == infinity_magnitude();
  }
  constexpr bool is_zero(std::uint64_t code) const {
    return has_zero && magnitude(code) == 0 && !is_nan(code);
  }

  // The NaN code for a NaN input. Where a format has several NaN codes the result
  // keeps the sign, is quiet and keeps the payload's top bits, as the x86 F16C and
  // SSE conversions do; `payload` is the source mantissa left-aligned in 64 bits.
  // A format without NaN gets +0 (documented in docs/formats.md: there is no code that
  // could carry "not a number", and zero adds no false magnitude to later sums).
  constexpr std::uint64_t nan_code(bool negative, std::uint64_t payload = 0) const {
    switch (specials) {
      case Specials::ieee: {
        std::uint64_t quiet = std::uint64_t{1} << (mantissa_bits - 1);
        return sign_bits(negative) | infinity_magnitude() | quiet | (payload >> (64 - mantissa_bits));
      }
      case Specials::fn: return sign_bits(negative) | magnitude_mask();
      case Specials::finite: return 0;
      case Specials::fnuz:
      case Specials::p3109: return sign_bit();
    }
    return 0;
  }
  // Zero of the given sign; -0 becomes +0 where there is no negative zero. A format
  // without zero answers its smallest value of that sign (E8M0: code 0, 2^-127).
  constexpr std::uint64_t zero_code(bool negative) const {
    return has_negative_zero() || !has_zero ? sign_bits(negative) : 0;
  }

  constexpr FormatProblem problem() const {
    if (exponent_bits < 1 || exponent_bits > 11) return FormatProblem::exponent_bits_out_of_range;
    if (mantissa_bits < 0 || mantissa_bits > 52) return FormatProblem::mantissa_bits_out_of_range;
    if (total_bits() > 64) return FormatProblem::too_many_bits;
    if (bias <= -(1 << 20) || bias >= (1 << 20)) return FormatProblem::bias_out_of_range;
    if (specials == Specials::ieee && mantissa_bits == 0) return FormatProblem::ieee_needs_mantissa;
    if (specials == Specials::ieee && exponent_bits == 1) return FormatProblem::ieee_needs_two_exponent_bits;
    if (nan_at_negative_zero() && !is_signed) return FormatProblem::nan_at_negative_zero_needs_sign;
    if (max_finite_magnitude() < (has_zero ? 1u : 0u)) return FormatProblem::no_finite_nonzero_value;
    return FormatProblem::none;
  }
  constexpr bool valid() const { return problem() == FormatProblem::none; }
};

// IEEE binary32 and binary64: the formats of the arguments the library decodes.
inline constexpr Format binary32_format{8, 23, 127};
inline constexpr Format binary64_format{11, 52, 1023};

}  // namespace softfloat
