// The shared-exponent rule of softfloat/mx.hpp worked out from the float bits of a
// block's largest magnitude, for the vectorised path (simd/mx-inl.h runs it once per
// block). The definition, on ExactValue, is softfloat::mx::detail::scale_code in
// simd/mx_scalar.cpp; the tests check that the two agree and compare both with MPFR.
#pragma once

#include <bit>
#include <cstdint>

#include "softfloat/mx.hpp"

namespace softfloat::simd::detail {

// What the rule needs to know of the element kind and the rule itself.
struct MxScaleConstants {
  std::int32_t max_exponent;      // emax_elem: max_elem lies in [2^emax_elem, 2^(emax_elem + 1))
  std::uint32_t max_significand;  // fp32 mantissa field of max_elem (E2M1: 6 = 1.5 * 2^2 -> 0x400000)
  bool round_up;                  // ScaleRule::ceil
  // max_significand under the ceil rule, else 0x7FFFFFFF, which no mantissa field
  // exceeds: the vector form compares with this one constant whatever the rule.
  std::int32_t round_up_above;
};

// The scale of a block: its E8M0 code and the float factor 2^-s that its values are
// multiplied by (unused for a NaN scale, whose elements are all code 0).
struct MxBlockScale {
  std::uint8_t code;
  float factor;
};

inline MxScaleConstants mx_scale_constants(mx::Element element, mx::ScaleRule rule) {
  const Format grid = mx::element_format(element);
  const std::uint64_t max_code = grid.max_finite_magnitude();
  const std::uint32_t mantissa = std::uint32_t(max_code & grid.mantissa_mask()) << (23 - grid.mantissa_bits);
  const bool round_up = rule == mx::ScaleRule::ceil;
  return {mx::element_max_exponent(element), mantissa, round_up,
          round_up ? std::int32_t(mantissa) : std::int32_t{0x7FFFFFFF}};
}

// max_bits: |x| bits of the block's largest magnitude (sign cleared), as produced by an
// integer max over the block: bits >= 0x7F800000 mean a NaN or an infinity.
//   floor: s = lead - emax_elem, lead = floor(log2 max) (fp32 exponent field - 127, or from
//          the highest set bit for an fp32 subnormal);
//   ceil:  s = lead - emax_elem + (significand of max > significand of max_elem): the
//          quotient max / max_elem has the exponent lead - emax_elem and, as both
//          significands lie in [1, 2), a significand in (1/2, 2) that exceeds 1 exactly
//          when max's significand exceeds max_elem's, which is when the ceiling of its
//          log2 moves up by one.
// s is clamped to [-127, 127]; the code is s + 127.
inline MxBlockScale mx_block_scale(std::uint32_t max_bits, const MxScaleConstants& c) {
  if (max_bits >= 0x7F800000u) return {0xFF, 0.0f};
  if (max_bits == 0) return {0x00, 1.0f};  // every value is +-0: s = -127, kept as it is
  std::int32_t lead;
  std::uint32_t significand;  // the 23 bits after the leading one
  const std::uint32_t field = max_bits >> 23;
  if (field != 0) {
    lead = std::int32_t(field) - 127;
    significand = max_bits & 0x7FFFFFu;
  } else {  // fp32 subnormal: max_bits * 2^-149
    const int width = std::bit_width(max_bits);
    lead = width - 1 - 149;
    significand = (max_bits << (24 - width)) & 0x7FFFFFu;
  }
  std::int32_t s = lead - c.max_exponent + (c.round_up && significand > c.max_significand ? 1 : 0);
  s = s < -127 ? -127 : (s > 127 ? 127 : s);
  // 2^-s: a normal float for -s >= -126, else (s = 127) the subnormal 2^-127 = bit 22.
  const std::uint32_t factor_bits = s <= 126 ? std::uint32_t(127 - s) << 23 : 0x00400000u;
  return {std::uint8_t(s + 127), std::bit_cast<float>(factor_bits)};
}

// 2^e as a float for e in [-149, 127] (dequantize: e = s, or s - 6 for MXINT8's implicit 2^-6).
inline float power_of_two(int e) {
  return std::bit_cast<float>(e >= -126 ? std::uint32_t(e + 127) << 23 : std::uint32_t{1} << (e + 149));
}

}  // namespace softfloat::simd::detail
