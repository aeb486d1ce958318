// The one rounding routine. Every conversion, every arithmetic result, the SIMD
// fallbacks and the matmul accumulator round through round_to_format(): it takes an
// exact value (sign, integer significand, exponent, sticky), a Format, a Rounding
// and an Overflow policy, and returns the code. Integer arithmetic only, so the
// result never depends on the FPU's rounding mode or flush-to-zero settings.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "softfloat/exact_value.hpp"
#include "softfloat/format.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat {

namespace detail {

// Where the discarded part of the significand lies relative to half a unit in the
// last kept place.
enum class Remainder : std::uint8_t { exact, below_half, half, above_half };

// Whether to add one unit to the kept (truncated) significand. `fraction` is the
// discarded part left-aligned in 64 bits (fraction / 2^64 of a unit, rounded down);
// `random` supplies the stochastic modes: up iff random < top 32 bits of fraction,
// so the probability is exactly the fraction whenever at most 32 bits are dropped.
constexpr bool round_up(Rounding mode, Remainder rem, bool kept_is_odd, bool negative,
                        std::uint64_t fraction, std::uint32_t random) {
  const bool inexact = rem != Remainder::exact;
  switch (mode) {
    case Rounding::nearest_even:
      return rem == Remainder::above_half || (rem == Remainder::half && kept_is_odd);
    case Rounding::nearest_away: return rem == Remainder::above_half || rem == Remainder::half;
    case Rounding::nearest_zero: return rem == Remainder::above_half;
    case Rounding::toward_zero: return false;
    case Rounding::away_from_zero: return inexact;
    case Rounding::up: return inexact && !negative;
    case Rounding::down: return inexact && negative;
    case Rounding::odd: return inexact && !kept_is_odd;  // sets the last bit: kept is even
    case Rounding::stochastic: return inexact && random < std::uint32_t(fraction >> 32);
    case Rounding::stochastic_equal: return inexact && (random & 1u) != 0;
  }
  return false;
}

// Overflow of a finite value: IEEE 754 sends toward-zero and toward-the-opposite-
// infinity roundings to +-max; so does round-to-odd, which truncates and sets a sticky
// last bit, and above max that is max itself (all ones, or E4M3's 448 whose all-ones
// neighbour is NaN): an inexact finite value never becomes infinity or NaN under odd,
// which keeps "odd at p + 2 bits, then any rounding at p bits" equal to rounding once
// at the top of the range. Otherwise infinity where the format has one, else NaN,
// else max. The saturate policy always gives +-max.
constexpr std::uint64_t overflow_code(const Format& f, bool negative, Rounding mode, Overflow policy) {
  const bool to_max = policy == Overflow::saturate || mode == Rounding::toward_zero || mode == Rounding::odd ||
                      (mode == Rounding::up && negative) || (mode == Rounding::down && !negative);
  if (to_max || (!f.has_infinity() && !f.has_nan())) return f.sign_bits(negative) | f.max_finite_magnitude();
  if (f.has_infinity()) return f.sign_bits(negative) | f.infinity_magnitude();
  return f.nan_code(negative, std::uint64_t{1} << 63);
}

}  // namespace detail

constexpr std::uint64_t round_to_format(const ExactValue& x, const Format& f,
                                        Rounding mode = Rounding::nearest_even,
                                        Overflow policy = Overflow::standard,
                                        std::uint32_t random = 0) {
  using detail::Remainder;
  // An unsigned format has no negative numbers: negative input is NaN (0 without NaN).
  if (x.negative && !f.is_signed && (x.kind == ValueClass::finite || x.kind == ValueClass::infinite))
    return f.has_nan() ? f.nan_code(false) : f.zero_code(false);
  switch (x.kind) {
    case ValueClass::nan: return f.nan_code(x.negative, x.nan_payload);
    case ValueClass::zero: return f.zero_code(x.negative);
    case ValueClass::infinite:
      // Infinity is exact where the format has it; otherwise it overflows.
      if (f.has_infinity() && policy == Overflow::standard) return f.sign_bits(x.negative) | f.infinity_magnitude();
      return detail::overflow_code(f, x.negative, Rounding::nearest_even, policy);
    case ValueClass::finite: break;
  }
  if (x.significand == 0) return f.zero_code(x.negative);  // tolerate an unnormalised zero

  const int m = f.mantissa_bits;
  // Exponent of the leading bit: |x| lies in [2^lead, 2^(lead+1)).
  const std::int64_t lead = std::int64_t(x.exponent) + std::bit_width(x.significand) - 1;
  // Anything at or above 2^(max_exponent + 2) overflows whatever the rounding; this
  // early exit also keeps the code arithmetic below small.
  if (lead > f.max_exponent() + 1) return detail::overflow_code(f, x.negative, mode, policy);

  // The quantum (weight of the last kept bit): M places below the leading bit for
  // normal numbers, fixed at the smallest normal binade's for subnormals.
  const std::int64_t quantum = std::max<std::int64_t>(lead, f.min_normal_exponent()) - m;
  const std::int64_t shift = quantum - x.exponent;  // bits of the significand to drop

  std::uint64_t kept = 0;
  std::uint64_t fraction = 0;  // the dropped bits, left-aligned
  Remainder rem = Remainder::exact;
  if (shift <= 0) {
    kept = x.significand << -shift;  // fits: kept < 2^(M+1) <= 2^53
    rem = x.sticky ? Remainder::below_half : Remainder::exact;
  } else {
    bool lost = false;  // nonzero bits even below the 64-bit fraction
    if (shift < 64) {
      kept = x.significand >> shift;
      fraction = x.significand << (64 - shift);
    } else if (shift < 128) {
      fraction = shift == 64 ? x.significand : x.significand >> (shift - 64);
      lost = shift > 64 && (x.significand << (128 - shift)) != 0;
    } else {
      lost = true;
    }
    const std::uint64_t half = std::uint64_t{1} << 63;
    const bool below = x.sticky || lost;
    if (fraction == 0 && !below) rem = Remainder::exact;
    else if (fraction < half) rem = Remainder::below_half;
    else if (fraction == half && !below) rem = Remainder::half;
    else rem = Remainder::above_half;
  }
  if (mode == Rounding::odd) {
    if (rem != Remainder::exact) kept |= 1;
  } else if (detail::round_up(mode, rem, (kept & 1) != 0, x.negative, fraction, random)) {
    ++kept;
  }

  if (kept == 0 && f.has_zero) return f.zero_code(x.negative);  // rounded to zero
  // Code = (biased exponent of the quantum's binade - 1) * 2^M + kept. For normal
  // results kept carries the implicit bit, so a carry out of the mantissa moves the
  // exponent up by itself; for subnormals the first factor is 0 and code = kept.
  // Unsigned: for binary64 a carry into the infinity binade reaches 2^63. The factor
  // is -1 only in a format without zero, at its lowest binade: a kept value below 2^M
  // lies below the smallest value there, and gives that value.
  const std::int64_t biased_minus_one = quantum + m + f.bias - 1;
  const std::uint64_t unit = std::uint64_t{1} << m;
  const std::uint64_t code = biased_minus_one < 0 ? (kept > unit ? kept - unit : 0)
                                                  : std::uint64_t(biased_minus_one) * unit + kept;
  if (code > f.max_finite_magnitude()) return detail::overflow_code(f, x.negative, mode, policy);
  return f.sign_bits(x.negative) | code;
}

}  // namespace softfloat
