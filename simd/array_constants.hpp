// The constants that drive the one generic vector algorithm of the kernel headers
// simd/quantize_floats-inl.h, quantize_doubles-inl.h and dequantize_round_trip-inl.h.
// They are computed once per call from a runtime Format, Rounding and Overflow, so
// the per-target code has no template parameter per format or mode: every bit
// pattern, shift and threshold it needs is a number in these structs.
#pragma once

#include <cstdint>

#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::simd::detail {

// float -> code. Names follow the derivation in quantize_floats-inl.h: for |x| with float
// exponent field fe and significand sig (implicit bit included), the lane works in
// the binade E = max(fe, exponent_floor) and keeps
//   kept = round(sig >> shift),  shift = min(E - max(fe, 1) + mantissa_shift, 31)
//   code = kept + ((E + code_exponent_offset) << mantissa_bits)
// which is round_to_format()'s "code = (biased exponent - 1) * 2^M + kept".
struct QuantizeConstants {
  std::uint32_t mantissa_shift;        // 23 - M: fp32 mantissa bits dropped in a normal binade
  std::uint32_t mantissa_bits;         // M
  std::uint32_t exponent_floor;        // max(emin + 127, 1): fp32 exponent field of the smallest normal binade
  std::uint32_t code_exponent_offset;  // bias - 128 (modulo 2^32)
  // Rounding: increment = (((mask >> increment_shift) + increment_add) & increment_keep) + (lsb & lsb_keep)
  // with mask = 2^shift - 1 and increment_keep = keep_positive ^ (sign ? keep_flip : 0).
  std::uint32_t increment_shift;  // 1: half - 1 as the base; 0: mask (directed away from zero)
  std::uint32_t increment_add;    // 1 for ties away from zero (half - 1 + 1 = half)
  std::uint32_t increment_keep_positive;
  std::uint32_t increment_keep_flip;  // nonzero for up / down (the sign chooses)
  std::uint32_t lsb_keep;             // all ones for ties to even
  std::uint32_t sticky_to_lsb;        // 1 for round to odd: an inexact result gets its last bit set
  bool nearest_even;                  // the common case gets a shorter loop
  // Nearest-even fast path for a vector whose lanes all lie in the format's normal,
  // non-overflowing range: (t - fast_low) < fast_span (unsigned) with t = bits &
  // fast_abs_mask (all ones for unsigned formats, so that negative lanes fail). There
  // the shift is the same for every lane and the code magnitude is
  // (t + ((t >> mantissa_shift) & fast_lsb_mask) + fast_add) >> mantissa_shift
  // (derivation in quantize_floats-inl.h). fast_lsb_mask is 1 (ties to even) for M >= 1; for
  // M = 0 the kept value is the implicit bit, always odd, so a tie rounds up: the mask
  // is 0 and fast_add holds the extra 1. fast_span = 0 turns the fast path off.
  std::uint32_t fast_low;
  std::uint32_t fast_span;
  std::uint32_t fast_abs_mask;
  std::uint32_t fast_add;
  std::uint32_t fast_lsb_mask;
  // fast_add without the exponent's rebias ((bias - 127) << 23): the rounding increment
  // alone, for round_trip, whose fast path stays in fp32's exponent.
  std::uint32_t fast_half;
  // Nearest-even middle path, for a vector whose lanes are all finite (t < middle_end =
  // 0x7F800000; 0 turns it off): normal lanes as in the fast path; lanes in the
  // format's subnormal range (t < fast_low) by one float addition, bits(|x| +
  // middle_magic) - bits(middle_magic) with middle_magic = 2^(emin - M + 23), whose
  // ulp is the subnormal quantum, so the FPU's round-to-nearest-even does the rounding
  // (the caller pins the rounding mode and clears flush-to-zero / denormals-are-zero);
  // then overflow by min(magnitude, overflow_cap) and the sign.
  std::uint32_t middle_end;
  std::uint32_t middle_magic;    // fp32 bits of 2^(emin - M + 23)
  std::uint32_t overflow_cap;    // overflow magnitude: max_finite (saturating) or max_finite + 1
  std::uint32_t zero_sign_drop;  // 0 where a zero result drops its sign; else 0xFFFFFFFF (never)
  // Sign.
  std::uint32_t sign_shift;      // 31 - (E + M): moves the float's sign to the code's sign bit
  std::uint32_t sign_bit;        // 0 for unsigned formats
  // |x| bits >= rare_at (2^max_exponent) may overflow: the fast path stops below it.
  // Lanes needing the slower fix-up: |x| bits >= 0x7F800000 (inf, NaN),
  // bits > negative_rare_above (negative input to an unsigned format), |x| bits < tiny_below
  // (float subnormals of a format whose smallest binade lies below fp32's normal range).
  std::uint32_t rare_at;
  std::uint32_t negative_rare_above;
  std::uint32_t tiny_below;
  std::uint32_t tiny_one_at;  // in the tiny range, |x| bits >= this give code 1, else code 0
  // The special values below (and zero_sign_drop) are round_to_format()'s codes for a
  // representative input (array_constants.cpp says which), not restated conventions.
  std::uint32_t max_finite;
  std::uint32_t overflow_positive, overflow_negative;  // full codes, sign included
  std::uint32_t infinity_positive, infinity_negative;  // what an infinite input becomes
  std::uint32_t nan_positive, nan_negative;            // NaN input, before payload bits
  std::uint32_t nan_payload_mask;  // payload bits below the quiet bit, IEEE formats (payload = |x| >> shift)
  std::uint32_t negative_code;     // negative nonzero input to an unsigned format (0 for signed formats)
  // Stochastic rounding: 0 off, 1 Rounding::stochastic, 2 Rounding::stochastic_equal.
  // Element i of the call draws keyed_bits({random_k0, random_k1}, counter_base + i)
  // (softfloat/random_bits.hpp); the caller splits calls so that the 64-bit counters
  // of one call share their high 32 bits, which the keys encode.
  std::uint32_t stochastic;
  std::uint32_t random_k0, random_k1;
  std::uint32_t counter_base;
  // Stochastic fast path, for a vector whose lanes are all in the nearest-even fast
  // path's range: code = (t + increment + ((bias - 127) << 23)) >> mantissa_shift with
  // increment = draw >> stochastic_draw_shift (32 - mantissa_shift), draw = ~bits for
  // Rounding::stochastic (then D + increment carries into the kept bits, D the discarded
  // ones, iff bits < D * 2^(32 - shift): round_to_format's rule exactly) and 0 - (bits & 1)
  // for stochastic_equal (every inexact lane rounds up iff its lowest bit is 1); the
  // loop adds the rebias through fast_add (quantize_floats-inl.h).
  // stochastic_fast_span = 0 turns it off.
  std::uint32_t stochastic_fast_span;
  std::uint32_t stochastic_draw_shift;
};

// code -> float bits.
struct DequantizeConstants {
  std::uint32_t magnitude_mask;
  std::uint32_t mantissa_mask;
  std::uint32_t sign_bit;
  std::uint32_t sign_shift;       // 31 - (E + M)
  std::uint32_t mantissa_shift;   // 23 - M
  std::uint32_t exponent_adjust;  // (127 - bias) << 23: normal codes are (magnitude << shift) + this
  std::uint32_t subnormal_below;  // magnitudes below this are subnormal (2^M, or 0 without subnormals)
  // Subnormal codes m * 2^(emin - M): either exact int -> float conversion plus an
  // exponent adjustment (when every subnormal is a normal float) or, when every
  // subnormal is an fp32 subnormal, a plain shift to the fp32 subnormal field.
  std::uint32_t subnormal_by_shift;  // all ones: use the shift
  std::uint32_t subnormal_shift;     // emin - M + 149
  std::uint32_t subnormal_exponent_adjust;  // (emin - M) << 23 (modulo 2^32)
  // The float bits below are round_to_format()'s for the code (array_constants.cpp).
  std::uint32_t zero_magnitude;  // magnitude whose float is zero_bits (0, or none: 0xFFFFFFFF)
  std::uint32_t zero_bits;       // code 0's float: 0 (sign added), or 2^-127 for E8M0's code 0
  std::uint32_t ieee_special_at;  // IEEE: magnitudes >= this are inf / NaN; else 0xFFFFFFFF
  std::uint32_t special_magnitude;       // fn NaN / P3109 infinity magnitude (or 0xFFFFFFFF: none)
  std::uint32_t special_magnitude_bits;  // its float bits without sign
  std::uint32_t special_code;            // fnuz / P3109 NaN code (or 0 with its own float: none)
  std::uint32_t special_code_bits;
  // Fast path, for a vector whose magnitudes all satisfy magnitude - fast_low < fast_span
  // (unsigned): normal codes of finite values that are normal floats too, for which the
  // normal formula alone gives the bits. The range is the scalar fast path's
  // (softfloat/fast_conversion.hpp, fast_float_path); fast_span = 0 turns it off.
  std::uint32_t fast_low;
  std::uint32_t fast_span;
};

// Whether the generic vector algorithm handles the format: at most 32 bits of
// storage, M <= 22, the smallest normal binade at or above fp32's (emin >= -126; the
// one exception is an unsigned format like E8M0 with M = 0 whose smallest binade is
// 2^-127), the largest binade at most 2^127, and a zero or no sign. Other formats are
// converted by a scalar loop over round_to_format() outside the per-target code, and so
// is stochastic rounding into E8M0-like formats (whose fp32-subnormal inputs the vector
// code maps to 0 or 1 by a fixed threshold).
bool quantize_supported(const Format& format, Rounding mode = Rounding::nearest_even);
bool dequantize_supported(const Format& format);

// Whether quantize from double may round each double to odd into a float first and
// then take the float algorithm (quantize_doubles-inl.h, QuantizeDoublesAny): the
// result is the double's own rounding when fp32 has at least two more bits than the format at every
// magnitude of its range, for every deterministic direction; stochastic rounding, which
// reads the discarded bits themselves, keeps the scalar loop.
bool double_input_via_float(const Format& format, Rounding mode);

// `random` matters for the stochastic modes only; its offset's high 32 bits must be
// those of every counter of the call.
QuantizeConstants quantize_constants(const Format& format, Rounding mode, Overflow policy, RandomStream random = {});
DequantizeConstants dequantize_constants(const Format& format);
// The same constants drawing from `random` (the stochastic modes' keys and counter
// base; other modes are returned as they are): for a call's later pieces.
QuantizeConstants at_stream(QuantizeConstants constants, RandomStream random);

}  // namespace softfloat::simd::detail
