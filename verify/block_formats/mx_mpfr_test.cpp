// MX block scaling (softfloat/mx.hpp) against MPFR on random blocks whose magnitudes
// spread over fp32's range: every scale (floor: exponent of max|x| minus emax_elem; ceil:
// the smallest s with max|x| <= max_elem * 2^s), every element (x * 2^-s rounded to nearest
// even on the element grid and clamped), every dequantized value (element * 2^s rounded
// to binary32), and the round-trip error bound of each element kind. The expected values
// come from MPFR and the specification's constants in mx_test_support.hpp.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/block_formats/mx_test_support.hpp"

namespace softfloat {
namespace {

using mx::Element;
using mx::ScaleRule;
using mx_test::Facts;

struct Case {
  Facts facts;
  ScaleRule rule;
};
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.facts.name) + "_" + mx_test::rule_name(info.param.rule);
}
std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const Facts& facts : mx_test::kFacts)
    for (ScaleRule rule : mx_test::kScaleRules) cases.push_back({facts, rule});
  return cases;
}

class MxAgainstMpfr : public ::testing::TestWithParam<Case> {};

// Random blocks over fp32's whole range (binades 2^-160 .. 2^127, so blocks of fp32
// subnormals and blocks at the top are included, with NaN and infinity blocks), blocks of
// 32 and a length that leaves a partial last block; the largest of the scales, elements
// and dequantized values are all compared with MPFR.
TEST_P(MxAgainstMpfr, ScalesElementsAndValues) {
  const Facts& facts = GetParam().facts;
  const ScaleRule rule = GetParam().rule;
  std::mt19937 rng(20240901u + unsigned(facts.element) * 7u + unsigned(rule));
  for (std::size_t block : {std::size_t{32}, std::size_t{4}}) {
    const mx::Options options{block, rule};
    const std::size_t n = 32 * 300 + 12;
    const std::vector<float> in = mx_test::random_blocks(n, block, rng, -160, 127, true);
    std::vector<std::uint8_t> elements(mx::element_bytes(facts.element, n)), scales(mx::scale_count(n, options));
    mx::quantize(in.data(), n, elements.data(), elements.size(), scales.data(), scales.size(), facts.element,
                 options);
    std::vector<float> out(n);
    mx::dequantize(elements.data(), elements.size(), scales.data(), scales.size(), n, out.data(), facts.element,
                   options);
    int failures = 0;
    for (std::size_t b = 0; b < scales.size() && failures < 10; ++b) {
      const std::size_t begin = b * block, end = std::min(n, begin + block);
      const std::uint8_t scale = mx_test::expected_scale(in.data() + begin, end - begin, facts, rule);
      if (scales[b] != scale) {
        ADD_FAILURE() << "block " << b << ": scale " << mx_test::hex(scales[b]) << ", MPFR " << mx_test::hex(scale);
        ++failures;
        continue;
      }
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t code = mx_test::packed_code(elements, i, facts.bits);
        const std::uint32_t expected = mx_test::expected_element(in[i], scale, facts);
        if (code != expected) {
          ADD_FAILURE() << "element " << i << " (x = " << in[i] << ", scale " << mx_test::hex(scale)
                        << "): " << mx_test::hex(code) << ", MPFR " << mx_test::hex(expected);
          ++failures;
        }
        const auto value = mx_test::matches(mx_test::expected_value(code, scale, facts), out[i]);
        if (!value) {
          ADD_FAILURE() << "dequantized element " << i << ": " << value.message();
          ++failures;
        }
      }
    }
  }
}

// Every element code under scales at both ends of E8M0 and in between, NaN included:
// element * 2^s rounded once to binary32 (overflow to infinity, results in the fp32
// subnormal range).
TEST_P(MxAgainstMpfr, DequantizeEveryCode) {
  const Facts& facts = GetParam().facts;
  const std::size_t codes = std::size_t{1} << facts.bits;
  const std::uint8_t scale_codes[] = {0x00, 0x01, 0x10, 0x60, 0x7F, 0x80, 0xA0, 0xF0, 0xFD, 0xFE, 0xFF};
  // One block per scale, each holding every code once: block size = number of codes.
  const mx::Options options{codes, GetParam().rule};
  const std::size_t n = codes * std::size(scale_codes);
  std::vector<std::uint32_t> code_list(n);
  for (std::size_t i = 0; i < n; ++i) code_list[i] = std::uint32_t(i % codes);
  const std::vector<std::uint8_t> elements = mx_test::pack_codes(code_list, facts.bits);
  const std::vector<std::uint8_t> scales(std::begin(scale_codes), std::end(scale_codes));
  std::vector<float> out(n);
  mx::dequantize(elements.data(), elements.size(), scales.data(), scales.size(), n, out.data(), facts.element,
                 options);
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_TRUE(mx_test::matches(mx_test::expected_value(code_list[i], scales[i / codes], facts), out[i]))
        << "code " << mx_test::hex(code_list[i]) << " scale " << mx_test::hex(scales[i / codes]);
}

// |x - dequantize(quantize(x))| against the bound of each element kind, with the error
// computed exactly in MPFR. For a value whose scaled magnitude a = |x| * 2^-s lies within
// the element's range the error is at most half an element ulp at that scale:
// 2^(max(floor(log2 a), emin) - M + s - 1) (MXINT8: 2^(s - 7)). Above max_elem (only the
// block max under the floor rule) the element clamps to max_elem and the error is exactly
// (a - max_elem) * 2^s < (2^(emax + 1) - max_elem) * 2^s. Binades 2^-140 .. 2^100 keep the
// dequantized values clear of fp32's limits.
TEST_P(MxAgainstMpfr, RoundTripErrorBound) {
  const Facts& facts = GetParam().facts;
  const ScaleRule rule = GetParam().rule;
  std::mt19937 rng(777u + unsigned(facts.element) * 13u + unsigned(rule));
  const mx::Options options{32, rule};
  const std::size_t n = 32 * 400;
  const std::vector<float> in = mx_test::random_blocks(n, 32, rng, -140, 100, false);
  std::vector<std::uint8_t> elements(mx::element_bytes(facts.element, n)), scales(mx::scale_count(n, options));
  mx::quantize(in, elements, scales, facts.element, options);
  std::vector<float> out(n);
  mx::dequantize(elements, scales, out, facts.element, options);
  // Element grid: the float kinds' M and emin; MXINT8 is a fixed-point grid of step 2^-6.
  const int m = facts.element == Element::int8 ? 0 : facts.format.mantissa_bits;
  const int emin = facts.element == Element::int8 ? -6 : 1 - facts.format.bias;
  verify::Mpfr x(300), y(300), error(300), scaled(300), bound(300), clamp_bound(300), max_elem(300);
  int failures = 0;
  for (std::size_t i = 0; i < n && failures < 10; ++i) {
    const long s = long(scales[i / 32]) - 127;
    mpfr_set_flt(x.get(), in[i], MPFR_RNDN);
    mpfr_set_flt(y.get(), out[i], MPFR_RNDN);
    mpfr_sub(error.get(), x.get(), y.get(), MPFR_RNDN);  // exact at 300 bits
    mpfr_abs(error.get(), error.get(), MPFR_RNDN);
    mpfr_abs(scaled.get(), x.get(), MPFR_RNDN);
    mpfr_mul_2si(scaled.get(), scaled.get(), -s, MPFR_RNDN);  // a = |x| * 2^-s
    mpfr_set_d(max_elem.get(), facts.max, MPFR_RNDN);
    if (mpfr_cmp(scaled.get(), max_elem.get()) > 0) {
      // Clamped: the error is exactly (a - max_elem) * 2^s, below (2^(emax + 1) - max) * 2^s.
      EXPECT_TRUE(rule == ScaleRule::floor || rule == ScaleRule::even)
          << "rceil (amax <= max_elem * 2^s) and ceil (amax <= 2^(emax + s)) never clamp";
      mpfr_sub(bound.get(), scaled.get(), max_elem.get(), MPFR_RNDN);
      mpfr_mul_2si(bound.get(), bound.get(), s, MPFR_RNDN);
      mpfr_set_si_2exp(clamp_bound.get(), 1, facts.emax + 1, MPFR_RNDN);
      mpfr_sub(clamp_bound.get(), clamp_bound.get(), max_elem.get(), MPFR_RNDN);
      mpfr_mul_2si(clamp_bound.get(), clamp_bound.get(), s, MPFR_RNDN);
      const bool ok = mpfr_equal_p(error.get(), bound.get()) && mpfr_cmp(error.get(), clamp_bound.get()) < 0;
      if (!ok) {
        ADD_FAILURE() << "clamped element " << i << " x = " << in[i] << " got " << out[i];
        ++failures;
      }
      continue;
    }
    long binade = emin;
    if (facts.element != Element::int8 && !mpfr_zero_p(scaled.get()))
      binade = std::max<long>(long(mpfr_get_exp(scaled.get())) - 1, emin);
    mpfr_set_si_2exp(bound.get(), 1, binade - m + s - 1, MPFR_RNDN);  // half an ulp at scale 2^s
    if (mpfr_cmp(error.get(), bound.get()) > 0) {
      ADD_FAILURE() << "element " << i << " x = " << in[i] << " got " << out[i] << " scale " << s;
      ++failures;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, MxAgainstMpfr, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace softfloat
