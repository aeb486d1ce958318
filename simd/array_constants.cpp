// Derives the constants of the generic vector conversions from a runtime Format (see
// array_constants.hpp for what each one means and quantize-inl.h for the algorithm).
#include "simd/array_constants.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "softfloat/exact_value.hpp"
#include "softfloat/fast_conversion.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::simd::detail {

namespace {

constexpr std::uint32_t all_ones = 0xFFFFFFFFu;

// E8M0-like: unsigned, no zero, M = 0 and a smallest binade of 2^-127, which lies in
// fp32's subnormal range. Its float subnormal inputs become code 0 or 1 by a threshold.
bool smallest_binade_below_fp32(const Format& f) {
  return !f.has_zero && !f.is_signed && f.mantissa_bits == 0 && f.min_normal_exponent() == -127;
}

bool common_range_checks(const Format& f) {
  return f.valid() && f.total_bits() <= 32 && f.mantissa_bits <= 22 && f.max_exponent() <= 127;
}

// The code of the positive float with bits `a`, by the scalar definition.
std::uint64_t scalar_code(std::uint32_t a, const Format& f, Rounding mode, Overflow policy) {
  return round_to_format(decode(std::bit_cast<float>(a)), f, mode, policy);
}

}  // namespace

bool quantize_supported(const Format& f, Rounding mode) {
  if (!common_range_checks(f)) return false;
  const int emin = f.min_normal_exponent();
  if (f.has_zero) return emin >= -126;
  const bool stochastic = mode == Rounding::stochastic || mode == Rounding::stochastic_equal;
  return !f.is_signed && (emin >= -126 || (smallest_binade_below_fp32(f) && !stochastic));
}

bool dequantize_supported(const Format& f) {
  if (!common_range_checks(f)) return false;
  const int emin = f.min_normal_exponent();
  const int m = f.mantissa_bits;
  if (!f.has_zero) return !f.is_signed ? (emin >= -126 || smallest_binade_below_fp32(f)) : emin >= -126;
  if (emin < -126) return false;
  // Subnormals m * 2^(emin - M): all normal floats, or all fp32 subnormals (emin = -126).
  return !f.has_subnormals() || emin - m >= -126 || emin == -126;
}

bool double_input_via_float(const Format& f, Rounding mode) {
  if (!quantize_supported(f, mode) || mode == Rounding::stochastic || mode == Rounding::stochastic_equal) return false;
  // fp32's ulp at most a quarter of the format's quantum in every binade: M + 2 <= 23
  // bits of precision in the normal range, and the smallest quantum 2^(emin - M) at
  // least 4 * 2^-149 below it. The top of the range needs nothing more: with M <= 21
  // the last rounding boundary, max + ulp / 2, lies below FLT_MAX, and every larger
  // double (rounded to odd: FLT_MAX) is beyond it, as the double itself is.
  return f.mantissa_bits <= 21 && f.min_normal_exponent() - f.mantissa_bits >= -147;
}

QuantizeConstants at_stream(QuantizeConstants c, RandomStream random) {
  if (c.stochastic == 0) return c;
  const softfloat::detail::RandomKeys keys =
      softfloat::detail::random_keys(random.seed, std::uint32_t(random.offset >> 32));
  c.random_k0 = keys.k0;
  c.random_k1 = keys.k1;
  c.counter_base = std::uint32_t(random.offset);
  return c;
}

QuantizeConstants quantize_constants(const Format& f, Rounding mode, Overflow policy, RandomStream random) {
  QuantizeConstants c{};
  const int m = f.mantissa_bits;
  const int emin = f.min_normal_exponent();
  c.mantissa_shift = std::uint32_t(23 - m);
  c.mantissa_bits = std::uint32_t(m);
  c.exponent_floor = std::uint32_t(std::max(emin + 127, 1));
  c.code_exponent_offset = std::uint32_t(f.bias - 128);

  // Rounding increments (derivation in quantize-inl.h): mask = 2^shift - 1, so
  // mask >> 1 = half - 1 and ties-to-even adds the kept value's last bit on top.
  c.increment_shift = 1;
  switch (mode) {
    case Rounding::nearest_even:
      c.increment_keep_positive = all_ones;
      c.lsb_keep = all_ones;
      c.nearest_even = true;
      break;
    case Rounding::nearest_away:
      c.increment_add = 1;
      c.increment_keep_positive = all_ones;
      break;
    case Rounding::nearest_zero: c.increment_keep_positive = all_ones; break;
    case Rounding::toward_zero: break;
    case Rounding::away_from_zero:
      c.increment_shift = 0;
      c.increment_keep_positive = all_ones;
      break;
    case Rounding::up:
      c.increment_shift = 0;
      c.increment_keep_positive = all_ones;
      c.increment_keep_flip = all_ones;
      break;
    case Rounding::down:
      c.increment_shift = 0;
      c.increment_keep_flip = all_ones;
      break;
    case Rounding::odd: c.sticky_to_lsb = 1; break;
    case Rounding::stochastic:
    case Rounding::stochastic_equal: {
      // The increment is replaced by a random decision (quantize-inl.h).
      c.stochastic = mode == Rounding::stochastic ? 1 : 2;
      c = at_stream(c, random);
      break;
    }
  }

  c.sign_bit = std::uint32_t(f.sign_bit());
  c.sign_shift = f.is_signed ? std::uint32_t(31 - (f.exponent_bits + m)) : 0;

  // Below 2^max_exponent no rounding reaches past max(): the code of 2^max_exponent
  // is the max binade's first code. Everything from there up takes the exact check.
  c.rare_at = std::uint32_t(f.max_exponent() + 127) << 23;
  c.negative_rare_above = f.is_signed ? all_ones : 0x80000000u;
  if (smallest_binade_below_fp32(f)) {
    c.tiny_below = 0x00800000u;
    // The smallest positive float subnormal whose code is 1 (round_to_format is
    // monotonic in |x|), found by bisection; 2^23 if none.
    std::uint32_t low = 0, high = 0x00800000u;
    while (low < high) {
      const std::uint32_t mid = low + (high - low) / 2;
      if (scalar_code(mid, f, mode, policy) != 0) high = mid;
      else low = mid + 1;
    }
    c.tiny_one_at = low;
  }
  c.max_finite = std::uint32_t(f.max_finite_magnitude());
  c.overflow_positive = std::uint32_t(softfloat::detail::overflow_code(f, false, mode, policy));
  c.overflow_negative = std::uint32_t(softfloat::detail::overflow_code(f, true, mode, policy));
  // Fast path (nearest even, every lane normal): H = 2^(shift - 1) - 1 is half a quantum
  // less one, and ((bias - 127) << 23) moves the fp32 exponent field to the code's
  // biased exponent once shifted right (see quantize-inl.h). With M = 0 a tie rounds
  // up (round_to_format's kept value is the implicit bit, odd), so H + 1 is added.
  const bool nearest = mode == Rounding::nearest_even;
  c.fast_low = c.exponent_floor << 23;
  c.fast_span = (nearest && c.rare_at > c.fast_low) ? c.rare_at - c.fast_low : 0;
  c.fast_abs_mask = f.is_signed ? 0x7FFFFFFFu : all_ones;
  c.fast_lsb_mask = m > 0 ? 1u : 0u;
  c.fast_half = ((std::uint32_t{1} << (c.mantissa_shift - 1)) - 1) + (m > 0 ? 0u : 1u);
  c.fast_add = c.fast_half + (std::uint32_t(f.bias - 127) << 23);
  // The stochastic fast path takes the same lanes: below 2^max_exponent rounding away
  // from zero reaches at most the max binade's first code, never an overflow.
  c.stochastic_fast_span = (c.stochastic != 0 && c.rare_at > c.fast_low) ? c.rare_at - c.fast_low : 0;
  c.stochastic_add = std::uint32_t(f.bias - 127) << 23;
  c.stochastic_draw_shift = 32 - c.mantissa_shift;
  // Middle path: every overflow must be one clamp of the magnitude, with the sign
  // added after (true of every format's nearest-even overflow code).
  const std::uint32_t cap = c.overflow_positive;
  const bool overflow_is_clamp = (cap == c.max_finite || cap == c.max_finite + 1) &&
                                 c.overflow_negative == (cap | c.sign_bit);
  c.middle_end = (nearest && f.has_zero && overflow_is_clamp) ? 0x7F800000u : 0;
  c.middle_magic = std::uint32_t(emin - m + 23 + 127) << 23;  // emin - M >= -126 - 22: a normal float
  c.overflow_cap = cap;
  c.zero_sign_drop = f.has_negative_zero() ? all_ones : 0;
  // Infinite input, as round_to_format() treats ValueClass::infinite.
  auto infinity_code = [&](bool negative) {
    if (f.has_infinity() && policy == Overflow::standard)
      return std::uint32_t(f.sign_bits(negative) | f.infinity_magnitude());
    return std::uint32_t(softfloat::detail::overflow_code(f, negative, Rounding::nearest_even, policy));
  };
  c.infinity_positive = infinity_code(false);
  c.infinity_negative = infinity_code(true);
  c.nan_positive = std::uint32_t(f.nan_code(false, 0));
  c.nan_negative = std::uint32_t(f.nan_code(true, 0));
  c.nan_payload_mask = f.specials == Specials::ieee ? std::uint32_t(f.mantissa_mask()) : 0;
  c.negative_code = std::uint32_t(f.has_nan() ? f.nan_code(false) : f.zero_code(false));
  return c;
}

DequantizeConstants dequantize_constants(const Format& f) {
  DequantizeConstants c{};
  const int m = f.mantissa_bits;
  const int emin = f.min_normal_exponent();
  c.magnitude_mask = std::uint32_t(f.magnitude_mask());
  c.mantissa_mask = std::uint32_t(f.mantissa_mask());
  c.sign_bit = std::uint32_t(f.sign_bit());
  c.sign_shift = f.is_signed ? std::uint32_t(31 - (f.exponent_bits + m)) : 0;
  c.mantissa_shift = std::uint32_t(23 - m);
  c.exponent_adjust = std::uint32_t(127 - f.bias) << 23;
  c.subnormal_below = f.has_subnormals() ? std::uint32_t(1) << m : 0;
  c.subnormal_by_shift = f.has_subnormals() && emin - m < -126 ? all_ones : 0;
  c.subnormal_shift = c.subnormal_by_shift ? std::uint32_t(emin - m + 149) : 0;
  c.subnormal_exponent_adjust = std::uint32_t(emin - m) << 23;
  if (f.has_zero) {
    c.zero_magnitude = 0;
    c.zero_bits = 0;
  } else if (smallest_binade_below_fp32(f)) {
    c.zero_magnitude = 0;
    c.zero_bits = 0x00400000u;  // 2^-127 as an fp32 subnormal: 2^22 * 2^-149
  } else {
    c.zero_magnitude = all_ones;
  }
  c.ieee_special_at = f.specials == Specials::ieee ? std::uint32_t(f.infinity_magnitude()) : all_ones;
  c.special_magnitude = all_ones;
  c.special_code = all_ones;
  if (f.specials == Specials::fn) {
    c.special_magnitude = c.magnitude_mask;
    c.special_magnitude_bits = 0x7FC00000u;  // quiet NaN, the code's sign added
  } else if (f.specials == Specials::p3109) {
    c.special_magnitude = c.magnitude_mask;
    c.special_magnitude_bits = 0x7F800000u;  // infinity
  }
  if (f.nan_at_negative_zero()) {
    c.special_code = c.sign_bit;
    c.special_code_bits = 0xFFC00000u;  // the NaN code is "negative": -qNaN, as decode() reads it
  }
  const softfloat::detail::FastFloatPath fast = softfloat::detail::fast_float_path(f);
  c.fast_low = fast.usable ? fast.normal_low : 0;
  c.fast_span = fast.usable ? fast.normal_span : 0;
  return c;
}

}  // namespace softfloat::simd::detail
