// Helpers for the MX block scaling tests: the element kinds' facts restated from the
// OCP MX v1.0 specification (not read from the library), the packed layout read from its
// definition, the expected scale, element and dequantized value computed with MPFR, and
// random blocks whose magnitudes spread over fp32's whole range.
#pragma once

#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/common/packed_bit_stream.hpp"

namespace softfloat::mx_test {

using mx::Element;
using mx::ScaleRule;

// Section 5.3 / table 1 of the specification and microxcaling's formats.py: bits per
// element, emax_elem and the largest element value. The float kinds' codes are those of
// the named formats; MXINT8 is two's complement i / 64.
struct Facts {
  Element element;
  const char* name;
  int bits;
  int emax;
  double max;
  Format format;  // the float kinds' element format (unused for int8)
};
inline const Facts kFacts[] = {
    {Element::fp8_e4m3, "mxfp8_e4m3", 8, 8, 448.0, E4M3::format},      // 1.75 * 2^8
    {Element::fp8_e5m2, "mxfp8_e5m2", 8, 15, 57344.0, E5M2::format},   // 1.75 * 2^15
    {Element::fp6_e3m2, "mxfp6_e3m2", 6, 4, 28.0, E3M2::format},       // 1.75 * 2^4
    {Element::fp6_e2m3, "mxfp6_e2m3", 6, 2, 7.5, E2M3::format},        // 1.875 * 2^2
    {Element::fp4_e2m1, "mxfp4_e2m1", 4, 2, 6.0, E2M1::format},        // 1.5 * 2^2
    {Element::int8, "mxint8", 8, 0, 127.0 / 64.0, Format{}},           // 1.984375 * 2^0
};
inline const Facts& facts_of(Element element) {
  for (const Facts& f : kFacts)
    if (f.element == element) return f;
  throw std::logic_error("unknown element");
}
inline constexpr ScaleRule kScaleRules[] = {ScaleRule::floor, ScaleRule::rceil, ScaleRule::ceil, ScaleRule::even};
inline std::string rule_name(ScaleRule rule) { return std::string(mx::scale_rule_name(rule)); }

// "0x..." for failure messages (gtest's AssertionResult streams each part on its own, so
// a std::hex manipulator would not carry over).
inline std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

inline std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
inline float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// The packed layout of 4- and 6-bit elements, from its definition.
using test_support::pack_codes;
using test_support::packed_code;

// The scale code of a block by MPFR: 0xFF with a NaN or infinity, 0x00 for all zeros,
// else floor: (exponent of max|x|) - emax; rceil: the smallest s with max|x| <= max * 2^s,
// found by exact comparisons; ceil: ceil(log2 max|x|) - emax, one more than floor unless
// max|x| is a power of two; even: one more than floor when max|x| >= (2 - 2^-(M + 1)) *
// 2^lead, where rounding it to M + 1 bits with ties away reaches the next binade;
// clamped to [-127, 127].
inline std::uint8_t expected_scale(const float* block, std::size_t n, const Facts& facts, ScaleRule rule) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(block[i])) return 0xFF;
    largest = std::max(largest, std::fabs(block[i]));
  }
  if (largest == 0.0f) return 0x00;
  verify::Mpfr a(64), limit(64);
  mpfr_set_flt(a.get(), largest, MPFR_RNDN);
  const long lead = long(mpfr_get_exp(a.get())) - 1;  // a = m * 2^exp with m in [1/2, 1)
  long s = lead - facts.emax;
  if (rule == ScaleRule::rceil) {
    s = lead - facts.emax - 2;
    for (;; ++s) {
      mpfr_set_d(limit.get(), facts.max, MPFR_RNDN);  // exact: at most 7 significant bits
      mpfr_mul_2si(limit.get(), limit.get(), s, MPFR_RNDN);
      if (mpfr_cmp(a.get(), limit.get()) <= 0) break;
    }
  } else if (rule == ScaleRule::ceil) {
    mpfr_set_ui_2exp(limit.get(), 1, lead, MPFR_RNDN);  // 2^lead
    if (mpfr_cmp(a.get(), limit.get()) > 0) ++s;
  } else if (rule == ScaleRule::even) {
    const int m = mx::element_format(facts.element).mantissa_bits;
    mpfr_set_ui_2exp(limit.get(), (std::uint64_t{1} << (m + 2)) - 1, lead - (m + 1), MPFR_RNDN);  // exact
    if (mpfr_cmp(a.get(), limit.get()) >= 0) ++s;
  }
  s = std::clamp(s, -127L, 127L);
  return std::uint8_t(s + 127);
}

// The element code of x in a block with scale code `scale` by MPFR: x * 2^-s rounded to
// nearest even on the element's grid and clamped to +-max; MXINT8 rounds x * 2^(6 - s) to
// an integer (ties to even) and clamps it to [-127, 127]. Every element of a NaN-scale
// block is 0.
inline std::uint32_t expected_element(float x, std::uint8_t scale, const Facts& facts) {
  if (scale == 0xFF) return 0;
  const long s = long(scale) - 127;
  verify::Mpfr v(64);
  mpfr_set_flt(v.get(), x, MPFR_RNDN);
  if (facts.element != Element::int8) {
    mpfr_mul_2si(v.get(), v.get(), -s, MPFR_RNDN);  // exact
    return std::uint32_t(verify::reference_round(v.get(), facts.format, Rounding::nearest_even, Overflow::saturate));
  }
  mpfr_mul_2si(v.get(), v.get(), 6 - s, MPFR_RNDN);
  mpfr_rint(v.get(), v.get(), MPFR_RNDN);
  const long k = std::clamp(mpfr_get_si(v.get(), MPFR_RNDN), -127L, 127L);
  return std::uint32_t(std::uint8_t(std::int8_t(k)));
}

// The float bits of element `code` times 2^s by MPFR (the exact product rounded to
// binary32, nearest even); a NaN scale gives 0x7FC00000. For a NaN element only NaN-ness
// and sign are fixed here: the result's bits are NaN with `nan_sign`.
struct ExpectedValue {
  bool nan = false;
  bool nan_negative = false;
  std::uint32_t bits = 0;
};
inline ExpectedValue expected_value(std::uint32_t code, std::uint8_t scale, const Facts& facts) {
  if (scale == 0xFF) return {false, false, 0x7FC00000u};
  const long s = long(scale) - 127;
  verify::Mpfr v(64);
  if (facts.element == Element::int8) {
    mpfr_set_si(v.get(), long(std::int8_t(std::uint8_t(code))), MPFR_RNDN);
    mpfr_mul_2si(v.get(), v.get(), s - 6, MPFR_RNDN);
  } else {
    verify::exact_value_of(v.get(), code, facts.format);
    if (mpfr_nan_p(v.get())) {
      const bool negative = (code >> (facts.format.exponent_bits + facts.format.mantissa_bits)) & 1u;
      return {true, negative, 0};
    }
    mpfr_mul_2si(v.get(), v.get(), s, MPFR_RNDN);
  }
  return {false, false, std::uint32_t(verify::reference_round(v.get(), binary32_format))};
}

inline ::testing::AssertionResult matches(const ExpectedValue& expected, float got) {
  const std::uint32_t u = bits_of(got);
  if (expected.nan) {
    if (std::isnan(got) && (u >> 31) == (expected.nan_negative ? 1u : 0u) && (u & 0x00400000u) != 0)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "expected a quiet NaN of sign " << expected.nan_negative << ", got "
                                         << hex(u);
  }
  if (u == expected.bits) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << hex(expected.bits) << ", got " << hex(u);
}

// Random blocks: each block draws a binade 2^e with e uniform in [min_exponent,
// max_exponent] (fp32 subnormals and the top binade included when the range reaches
// them) and one of several shapes: normal values, values with few significant bits
// (many exact ties after scaling), a single outlier, all zeros with random signs, or
// (with `specials`) a NaN or an infinity among normal values.
inline std::vector<float> random_blocks(std::size_t n, std::size_t block, std::mt19937& rng, int min_exponent,
                                        int max_exponent, bool specials) {
  std::vector<float> values(n);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> exponent(min_exponent, max_exponent);
  std::uniform_int_distribution<int> shape(0, specials ? 9 : 7);
  std::uniform_int_distribution<int> small_integer(-64, 64);
  auto finite_float = [](double v) {
    // ldexp results beyond float's range become its max: the data stays finite.
    const double max = double(std::numeric_limits<float>::max());
    return float(std::clamp(v, -max, max));
  };
  for (std::size_t begin = 0; begin < n; begin += block) {
    const std::size_t end = std::min(n, begin + block);
    const int e = exponent(rng);
    const int kind = shape(rng);
    for (std::size_t i = begin; i < end; ++i) {
      switch (kind) {
        case 0:
        case 1:
        case 2: values[i] = finite_float(std::ldexp(normal(rng), e)); break;
        case 3:
        case 4: values[i] = finite_float(std::ldexp(double(small_integer(rng)) / 8.0, e)); break;
        case 5: values[i] = finite_float(std::ldexp(normal(rng), e - 12)); break;
        case 6: values[i] = (rng() & 1) ? -0.0f : 0.0f; break;
        default: values[i] = finite_float(std::ldexp(normal(rng), e)); break;
      }
    }
    if (kind == 5) values[begin + rng() % (end - begin)] = finite_float(std::ldexp(normal(rng) * 8.0, e));
    if (kind >= 8) {
      const float special[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                               from_bits(0x7F800001u) /* signalling */};
      values[begin + rng() % (end - begin)] = special[rng() % 5];
    }
  }
  return values;
}

}  // namespace softfloat::mx_test
