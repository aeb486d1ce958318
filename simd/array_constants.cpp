// Derives the constants of the generic vector conversions from a runtime Format (see
// array_constants.hpp for what each one means and the kernel headers simd/*-inl.h for
// the algorithm).
#include "simd/array_constants.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "runtime/remembered.hpp"
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

// The special-value constants are answers of the one rounding routine, not restated
// format conventions: the code round_to_format() gives a representative input, or the
// fp32 bits it gives a code. What each constant asks is noted where it is set.

// The code of the float with bits `a`.
std::uint32_t code_of_float(std::uint32_t a, const Format& f, Rounding mode, Overflow policy) {
  return std::uint32_t(round_to_format(decode(std::bit_cast<float>(a)), f, mode, policy));
}

// The fp32 bits of `code`: what dequantize must give it.
std::uint32_t float_bits_of(std::uint64_t code, const Format& f) {
  return std::uint32_t(round_to_format(decode(code, f), binary32_format));
}

// +-2^(max_exponent + 1), the power of two above the largest binade: exact in every
// rounding, so its code is the overflow code of its sign (for an unsigned format the
// negative one is the code of negative input).
ExactValue past_the_top(const Format& f, bool negative) {
  ExactValue x;
  x.kind = ValueClass::finite;
  x.negative = negative;
  x.significand = 1;
  x.exponent = f.max_exponent() + 1;
  return x;
}

// The largest finite magnitude: what a value past the top saturates to.
std::uint32_t max_finite_of(const Format& f) {
  return std::uint32_t(round_to_format(past_the_top(f, false), f, Rounding::nearest_even, Overflow::saturate));
}

constexpr std::uint32_t fp32_sign = 0x80000000u;
constexpr std::uint32_t fp32_infinity = 0x7F800000u;
constexpr std::uint32_t fp32_quiet_nan = 0x7FC00000u;  // quiet, no payload below the quiet bit
constexpr std::uint32_t fp32_nan_all_payload = 0x7FFFFFFFu;
constexpr std::uint32_t fp32_minus_one = 0xBF800000u;

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

namespace {

// Everything but the random keys (quantize_constants adds them).
QuantizeConstants derive_quantize_constants(const Format& f, Rounding mode, Overflow policy) {
  QuantizeConstants c{};
  const int m = f.mantissa_bits;
  const int emin = f.min_normal_exponent();
  c.mantissa_shift = std::uint32_t(23 - m);
  c.mantissa_bits = std::uint32_t(m);
  c.exponent_floor = std::uint32_t(std::max(emin + 127, 1));
  c.code_exponent_offset = std::uint32_t(f.bias - 128);

  // Rounding increments (derivation in quantize_floats-inl.h): mask = 2^shift - 1, so
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
    case Rounding::stochastic_equal:
      // The increment is replaced by a random decision (quantize_floats-inl.h).
      c.stochastic = mode == Rounding::stochastic ? 1 : 2;
      break;
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
      if (code_of_float(mid, f, mode, policy) != 0) high = mid;
      else low = mid + 1;
    }
    c.tiny_one_at = low;
  }
  c.max_finite = max_finite_of(f);
  // A finite lane whose magnitude rounds past max_finite takes the code the routine
  // gives a value past the top with the lane's sign, in this mode and policy: the
  // overflow code depends on the sign, mode and policy only.
  c.overflow_positive = std::uint32_t(round_to_format(past_the_top(f, false), f, mode, policy));
  c.overflow_negative = std::uint32_t(round_to_format(past_the_top(f, true), f, mode, policy));
  // Fast path (nearest even, every lane normal): H = 2^(shift - 1) - 1 is half a quantum
  // less one, and ((bias - 127) << 23) moves the fp32 exponent field to the code's
  // biased exponent once shifted right (see quantize_floats-inl.h). With M = 0 a tie rounds
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
  c.stochastic_draw_shift = 32 - c.mantissa_shift;
  // Middle path: every overflow must be one clamp of the magnitude, with the sign
  // added after (true of every format's nearest-even overflow code). An unsigned
  // format's negative lanes never take it (their bits fail its range check).
  const std::uint32_t cap = c.overflow_positive;
  const bool overflow_is_clamp = (cap == c.max_finite || cap == c.max_finite + 1) &&
                                 (!f.is_signed || c.overflow_negative == (cap | c.sign_bit));
  c.middle_end = (nearest && f.has_zero && overflow_is_clamp) ? 0x7F800000u : 0;
  c.middle_magic = std::uint32_t(emin - m + 23 + 127) << 23;  // emin - M >= -126 - 22: a normal float
  c.overflow_cap = cap;
  // A magnitude that rounded to zero keeps its sign where the routine's code for -0
  // has one (the routine answers a negative value rounded to zero with the same code):
  // not where there is no -0 (fnuz, P3109, unsigned formats).
  c.zero_sign_drop = (code_of_float(fp32_sign, f, mode, policy) & c.sign_bit) != 0 ? all_ones : 0;
  // Infinite input: the routine's code for +-inf.
  c.infinity_positive = code_of_float(fp32_infinity, f, mode, policy);
  c.infinity_negative = code_of_float(fp32_sign | fp32_infinity, f, mode, policy);
  // NaN input: the routine's code for a quiet NaN of each sign without payload, and the
  // code bits that an all-ones payload changes. The vector code ORs in (|x| >> (23 - M))
  // & nan_payload_mask: the top M bits of the fp32 mantissa, where the routine's
  // payload (decode's left-aligned mantissa, shifted down by 64 - M) keeps them.
  c.nan_positive = code_of_float(fp32_quiet_nan, f, mode, policy);
  c.nan_negative = code_of_float(fp32_sign | fp32_quiet_nan, f, mode, policy);
  c.nan_payload_mask = code_of_float(fp32_nan_all_payload, f, mode, policy) ^ c.nan_positive;
  // Negative nonzero input to an unsigned format: the routine's code for -1, which it
  // gives every negative finite or infinite input there. Signed formats never use it.
  c.negative_code = f.is_signed ? 0 : code_of_float(fp32_minus_one, f, mode, policy);
  return c;
}

DequantizeConstants derive_dequantize_constants(const Format& f) {
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
  // Magnitude 0: the routine's float for code 0 (the sign added after), which the
  // formulas do not give for a format with zero (nor for E8M0's 2^-127, an fp32
  // subnormal). Where they would (a format without zero whose smallest binade is
  // normal in fp32) the select gives the same bits.
  c.zero_magnitude = 0;
  c.zero_bits = float_bits_of(0, f);
  // Every magnitude above the largest finite one (the routine's saturation of a value
  // past the top) is infinity or NaN. One such magnitude (fn's NaN, P3109's infinity):
  // the routine's float for its positive code, the code's sign added after. Several
  // (the IEEE layout, infinity then NaNs carrying a payload): the vector code builds
  // each float from the mantissa as the routine does (NaN quiet, payload kept).
  const std::uint32_t max_finite = max_finite_of(f);
  c.ieee_special_at = all_ones;
  c.special_magnitude = all_ones;
  // No special code: code 0 with its own float, so the select changes nothing (a
  // sentinel code such as all ones would be a real code of a 32-bit format, and the
  // code of any other once its bits above the width are read away).
  c.special_code = 0;
  c.special_code_bits = float_bits_of(0, f);
  if (c.magnitude_mask - max_finite > 1) {
    c.ieee_special_at = max_finite + 1;
  } else if (c.magnitude_mask - max_finite == 1) {
    c.special_magnitude = c.magnitude_mask;
    c.special_magnitude_bits = float_bits_of(c.magnitude_mask, f);
  }
  // The negative-zero code, where decode() reads it as infinity or NaN (fnuz and P3109
  // keep their NaN there): the routine's float for it, sign included.
  const ValueClass at_negative_zero = decode(c.sign_bit, f).kind;
  if (c.sign_bit != 0 && (at_negative_zero == ValueClass::nan || at_negative_zero == ValueClass::infinite)) {
    c.special_code = c.sign_bit;
    c.special_code_bits = float_bits_of(c.sign_bit, f);
  }
  const softfloat::detail::FastFloatPath fast = softfloat::detail::fast_float_path(f);
  c.fast_low = fast.usable ? fast.normal_low : 0;
  c.fast_span = fast.usable ? fast.normal_span : 0;
  return c;
}

// The constants change only with the format, mode and policy, but a public call may
// ask for them once per 2048 values (round_trip of an array in cache goes in such
// pieces through the public quantize and dequantize, shortcuts included), and user code
// calls the public functions row by row on small arrays: there the dozen
// round_to_format() calls that derive them would cost as much as the conversion. So each
// thread keeps the last few sets it derived: four, since a block format's one call
// takes two (NVFP4: E2M1 elements and E4M3 scales, each quantized and dequantized),
// and a cache of one would derive both again on every call. (Internal inner loops hold
// their own set in a PreparedQuantize / PreparedDequantize instead,
// simd/prepared_conversions.hpp.)
constexpr std::size_t kRememberedSets = 4;

struct QuantizeKey {
  Format format;
  Rounding mode = Rounding::nearest_even;
  Overflow policy = Overflow::standard;
  friend bool operator==(const QuantizeKey&, const QuantizeKey&) = default;
};

}  // namespace

QuantizeConstants quantize_constants(const Format& f, Rounding mode, Overflow policy, RandomStream random) {
  thread_local softfloat::detail::Remembered<QuantizeKey, QuantizeConstants, kRememberedSets> remembered;
  const QuantizeConstants& constants =
      remembered.get(QuantizeKey{f, mode, policy}, [&] { return derive_quantize_constants(f, mode, policy); });
  return at_stream(constants, random);
}

DequantizeConstants dequantize_constants(const Format& f) {
  thread_local softfloat::detail::Remembered<Format, DequantizeConstants, kRememberedSets> remembered;
  return remembered.get(f, [&] { return derive_dequantize_constants(f); });
}

}  // namespace softfloat::simd::detail
