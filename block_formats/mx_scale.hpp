// The shared-exponent rule of softfloat/mx.hpp worked out from the float bits of a
// block's largest magnitude, for the vectorised path (block_formats/mx-inl.h runs it once per
// block). The definition, on ExactValue, is softfloat::mx::detail::scale_code in
// block_formats/mx_scalar.cpp; the tests check that the two agree and compare both with MPFR.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <iterator>

#include "softfloat/mx.hpp"

namespace softfloat::block_formats_detail {

// What the rule needs to know of the element kind and the rule itself.
struct MxScaleConstants {
  std::int32_t max_exponent;  // emax_elem: max_elem lies in [2^emax_elem, 2^(emax_elem + 1))
  // Every rule is s = floor(log2 max) - emax_elem, plus one when the fp32 mantissa field
  // of max (the 23 bits after its leading one) exceeds this threshold: max_elem's field
  // for rceil, 0 for ceil, the last field that rounds below 2 for even, and 0x7FFFFFFF,
  // which no field exceeds, for floor. Derived from the definition (scale_code), not
  // restated: see mx_scale_constants.
  std::int32_t round_up_above;
};
// The scale of a block: its E8M0 code and the float factor 2^-s that its values are
// multiplied by (unused for a NaN scale, whose elements are all code 0).
struct MxBlockScale {
  std::uint8_t code;
  float factor;
};

// The threshold is found by bisection over the 23-bit fields of the values 1.f (the
// definition's s is monotone in f, and one more than floor's from some f on, or never),
// once per element kind and rule: calls come once per row of a tensor, so the search is
// kept off that path.
inline MxScaleConstants derive_mx_scale_constants(mx::Element element, mx::ScaleRule rule) {
  const std::int32_t emax = mx::element_max_exponent(element);
  auto rounds_up = [&](std::uint32_t field) {
    const float value = std::bit_cast<float>(0x3F800000u | field);  // 1.f, exponent 0
    return mx::detail::scale_code(decode(value), element, rule) != std::uint8_t(127 - emax);
  };
  std::uint32_t low = 0, high = 0x800000u;  // the first field that rounds up, 2^23 if none
  while (low < high) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (rounds_up(mid)) high = mid;
    else low = mid + 1;
  }
  return {emax, low == 0x800000u ? std::int32_t{0x7FFFFFFF} : std::int32_t(low) - 1};
}

inline constexpr std::size_t kMxElementKinds = std::size(mx::kAllElements);
inline constexpr std::size_t kMxScaleRules = std::size_t(mx::ScaleRule::even) + 1;

inline MxScaleConstants mx_scale_constants(mx::Element element, mx::ScaleRule rule) {
  static const auto table = [] {
    std::array<std::array<MxScaleConstants, kMxScaleRules>, kMxElementKinds> constants{};
    for (std::size_t e = 0; e < kMxElementKinds; ++e)
      for (std::size_t r = 0; r < kMxScaleRules; ++r)
        constants[e][r] = derive_mx_scale_constants(mx::kAllElements[e], mx::ScaleRule(r));
    return constants;
  }();
  for (std::size_t e = 0; e < kMxElementKinds; ++e)
    if (mx::kAllElements[e] == element) return table[e][std::size_t(rule)];
  return derive_mx_scale_constants(element, rule);  // not reached: the callers check the kind
}

// max_bits: |x| bits of the block's largest magnitude (sign cleared), as produced by an
// integer max over the block: bits >= 0x7F800000 mean a NaN or an infinity.
//   s = lead - emax_elem + (significand of max > round_up_above), lead = floor(log2 max)
//   (fp32 exponent field - 127, or from the highest set bit for an fp32 subnormal), the
//   significand being the 23 bits after the leading one;
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
  std::int32_t s = lead - c.max_exponent + (std::int32_t(significand) > c.round_up_above ? 1 : 0);
  s = s < -127 ? -127 : (s > 127 ? 127 : s);
  // 2^-s: a normal float for -s >= -126, else (s = 127) the subnormal 2^-127 = bit 22.
  const std::uint32_t factor_bits = s <= 126 ? std::uint32_t(127 - s) << 23 : 0x00400000u;
  return {std::uint8_t(s + 127), std::bit_cast<float>(factor_bits)};
}

// 2^e as a float for e in [-149, 127] (dequantize: e = s, or s - 6 for MXINT8's implicit 2^-6).
inline float power_of_two(int e) {
  return std::bit_cast<float>(e >= -126 ? std::uint32_t(e + 127) << 23 : std::uint32_t{1} << (e + 149));
}

}  // namespace softfloat::block_formats_detail
