// Two-level NVFP4 scaling (softfloat/nvfp4.hpp): a hand-worked tensor, the recipe
// recomputed with MPFR (each fp32 step by reference_compute, each E4M3 / E2M1 rounding by
// reference_round) on random tensors with NaN and infinity blocks, zero and extreme
// tensors, the vectorised path against the scalar definition on every Highway target,
// and bad arguments.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <hwy/tests/hwy_gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/block_formats/mx_test_support.hpp"
#include "verify/simd/every_target.hpp"

namespace softfloat {
namespace {

using mx_test::bits_of;
using mx_test::from_bits;

struct Encoded {
  std::vector<std::uint8_t> elements, scales;
  float amax = -1.0f;
};

Encoded encode(const std::vector<float>& in, bool scalar, Rounding rounding = Rounding::nearest_even,
               RandomStream random = {}) {
  Encoded e{std::vector<std::uint8_t>(nvfp4::element_bytes(in.size())),
            std::vector<std::uint8_t>(nvfp4::scale_count(in.size()))};
  auto run = scalar ? nvfp4::scalar_quantize : nvfp4::quantize;
  run(in.data(), in.size(), e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), &e.amax, rounding,
      random);
  return e;
}
std::vector<std::uint32_t> decode_bits(const Encoded& e, std::size_t n, bool scalar) {
  std::vector<float> out(n);
  auto run = scalar ? nvfp4::scalar_dequantize : nvfp4::dequantize;
  run(e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), e.amax, n, out.data());
  std::vector<std::uint32_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = bits_of(out[i]);
  return bits;
}

// ---- The recipe with MPFR: every fp32 operation rounded by MPFR to binary32. ----

float mpfr_f32(int (*operation)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t), float a, float b) {
  verify::Mpfr x(64), y(64);
  mpfr_set_flt(x.get(), a, MPFR_RNDN);
  mpfr_set_flt(y.get(), b, MPFR_RNDN);
  const std::uint64_t code = verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t rnd) { return operation(out, x.get(), y.get(), rnd); }, binary32_format);
  return from_bits(std::uint32_t(code));
}
float times(float a, float b) { return mpfr_f32(mpfr_mul, a, b); }
float over(float a, float b) { return mpfr_f32(mpfr_div, a, b); }
std::uint32_t round_to(float x, const Format& format) {
  verify::Mpfr v(64);
  mpfr_set_flt(v.get(), x, MPFR_RNDN);
  return std::uint32_t(verify::reference_round(v.get(), format, Rounding::nearest_even, Overflow::saturate));
}
float value_of(std::uint32_t code, const Format& format) { return float(verify::reference_value(code, format)); }

Encoded expected_encoding(const std::vector<float>& in) {
  const std::size_t n = in.size();
  Encoded e{std::vector<std::uint8_t>(nvfp4::element_bytes(n), 0), std::vector<std::uint8_t>(nvfp4::scale_count(n))};
  auto block_special = [&](std::size_t b) {
    for (std::size_t i = b * 16; i < std::min(n, b * 16 + 16); ++i)
      if (!std::isfinite(in[i])) return true;
    return false;
  };
  auto block_amax = [&](std::size_t b) {
    float m = 0.0f;
    for (std::size_t i = b * 16; i < std::min(n, b * 16 + 16); ++i) m = std::max(m, std::fabs(in[i]));
    return m;
  };
  float amax = 0.0f;
  for (std::size_t b = 0; b < e.scales.size(); ++b)
    if (!block_special(b)) amax = std::max(amax, block_amax(b));
  e.amax = amax;
  const float largest = std::numeric_limits<float>::max();
  float s_enc = std::min(over(2688.0f, amax), largest);
  if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  const float s_dec = over(1.0f, s_enc);
  const float per_block = times(s_enc, float(1.0 / 6.0));
  for (std::size_t b = 0; b < e.scales.size(); ++b) {
    if (block_special(b)) {
      e.scales[b] = 0x7F;
      continue;
    }
    e.scales[b] = std::uint8_t(round_to(times(block_amax(b), per_block), E4M3::format));
    const float factor = std::min(over(1.0f, times(value_of(e.scales[b], E4M3::format), s_dec)), largest);
    for (std::size_t i = b * 16; i < std::min(n, b * 16 + 16); ++i)
      e.elements[i / 2] |= std::uint8_t(round_to(times(in[i], factor), E2M1::format) << (4 * (i % 2)));
  }
  return e;
}

std::vector<std::uint32_t> expected_decoding(const Encoded& e, std::size_t n) {
  std::vector<std::uint32_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t scale = e.scales[i / 16];
    if ((scale & 0x7F) == 0x7F) {
      bits[i] = 0x7FC00000u;
      continue;
    }
    const float factor = times(times(value_of(scale, E4M3::format), e.amax), float(1.0 / 2688.0));
    const float element = value_of((e.elements[i / 2] >> (4 * (i % 2))) & 0xF, E2M1::format);
    const float value = times(element, factor);
    bits[i] = std::isnan(value) ? 0x7FC00000u : bits_of(value);
  }
  return bits;
}

// amax 7: S_enc = 2688 / 7 = 384, S_dec = fp32(1/384) = 0x1.555556p-9, S_enc * fp32(1/6) =
// 64.0000019 -> 64, block scale 7 * 64 = 448 = E4M3 0x7E. Factor 1 / fp32(448 * S_dec) =
// 1 / 0x1.2aaaacp+0 = 0x1.b6db6cp-1 (0.8571428): x * factor = 0.857, 1.714, 2.571, 5.9999995,
// -0.4286 round in E2M1 to 1 (0x2), 1.5 (0x3, below the midpoint 1.75), 3 (0x5), 6 (0x7),
// -0.5 (0x9); packed 0x32 0x75 0x09. Decoding: (448 * 7) * fp32(1/2688) = 0x1.2aaaacp+0, so
// 1 -> 0x1.2aaaacp+0, 1.5 -> 0x1.c00002p+0, 3 -> 0x1.c00002p+1, 6 -> 0x1.c00002p+2,
// -0.5 -> -0x1.2aaaacp-1 (worked out in fp32 with numpy).
TEST(Nvfp4, HandWorkedTensor) {
  std::vector<float> in = {1.0f, 2.0f, 3.0f, 7.0f, -0.5f};
  in.resize(16, 0.0f);
  for (bool scalar : {false, true}) {
    SCOPED_TRACE(scalar ? "scalar" : "vectorised");
    const Encoded e = encode(in, scalar);
    EXPECT_EQ(e.amax, 7.0f);
    EXPECT_EQ(e.scales, (std::vector<std::uint8_t>{0x7E}));
    EXPECT_EQ(std::vector<std::uint8_t>(e.elements.begin(), e.elements.begin() + 3),
              (std::vector<std::uint8_t>{0x32, 0x75, 0x09}));
    const std::vector<std::uint32_t> back = decode_bits(e, 16, scalar);
    EXPECT_EQ(back[0], bits_of(0x1.2aaaacp+0f));
    EXPECT_EQ(back[1], bits_of(0x1.c00002p+0f));
    EXPECT_EQ(back[2], bits_of(0x1.c00002p+1f));
    EXPECT_EQ(back[3], bits_of(0x1.c00002p+2f));
    EXPECT_EQ(back[4], bits_of(-0x1.2aaaacp-1f));
    EXPECT_EQ(back[5], 0u);
  }
}

// A zero tensor: amax 0, S_enc 1, scales and elements 0, values +0. A block holding a NaN
// or an infinity: scale 0x7F, elements 0, decoded NaN; amax comes from the other blocks.
TEST(Nvfp4, ZeroAndSpecialBlocks) {
  for (bool scalar : {false, true}) {
    const Encoded zeros = encode(std::vector<float>(40, 0.0f), scalar);
    EXPECT_EQ(zeros.amax, 0.0f);
    for (std::uint8_t s : zeros.scales) EXPECT_EQ(s, 0x00);
    for (std::uint8_t byte : zeros.elements) EXPECT_EQ(byte, 0x00);
    for (std::uint32_t bits : decode_bits(zeros, 40, scalar)) EXPECT_EQ(bits, 0u);
    std::vector<float> in(48, 1.0f);
    in[3] = std::numeric_limits<float>::quiet_NaN();
    in[20] = -std::numeric_limits<float>::infinity();
    in[40] = 100.0f;  // amax of the third block, and of the tensor: the specials do not count
    const Encoded e = encode(in, scalar);
    EXPECT_EQ(e.amax, 100.0f);
    EXPECT_EQ(e.scales[0], 0x7F);
    EXPECT_EQ(e.scales[1], 0x7F);
    EXPECT_EQ(e.scales[2], 0x7E);  // 100 * fp32(2688 / 100 * fp32(1/6)) rounds to 448
    for (std::size_t b = 0; b < 16; ++b) EXPECT_EQ(e.elements[b], 0x00);
    const std::vector<std::uint32_t> back = decode_bits(e, 48, scalar);
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(back[i], 0x7FC00000u) << i;
    EXPECT_FALSE(std::isnan(from_bits(back[40])));
  }
}

std::vector<float> random_tensor(std::size_t n, std::mt19937& rng, int min_exponent, int max_exponent, bool specials) {
  return mx_test::random_blocks(n, 16, rng, min_exponent, max_exponent, specials);
}

// Random tensors with blocks of many magnitudes (so that small blocks get small or zero
// E4M3 scales), NaN and infinity blocks, tiny tensors (amax near fp32's subnormals, S_enc
// clamped to FLT_MAX) and huge ones, partial last blocks: amax, scales, elements and
// decoded values equal the MPFR recipe, for both implementations.
TEST(Nvfp4, MatchesMpfrRecipe) {
  std::mt19937 rng(1234);
  const struct {
    int min_exponent, max_exponent;
    std::size_t n;
  } kinds[] = {{-30, 30, 16 * 100 + 7}, {-150, -120, 16 * 50}, {100, 127, 16 * 50 + 1}, {-160, 127, 16 * 120 + 9}};
  for (const auto& kind : kinds) {
    for (bool specials : {false, true}) {
      const std::vector<float> in = random_tensor(kind.n, rng, kind.min_exponent, kind.max_exponent, specials);
      const Encoded expected = expected_encoding(in);
      const std::vector<std::uint32_t> expected_back = expected_decoding(expected, kind.n);
      for (bool scalar : {false, true}) {
        SCOPED_TRACE(std::string(scalar ? "scalar" : "vectorised") + " exponents " +
                     std::to_string(kind.min_exponent) + ".." + std::to_string(kind.max_exponent));
        const Encoded got = encode(in, scalar);
        EXPECT_EQ(bits_of(got.amax), bits_of(expected.amax));
        EXPECT_EQ(got.scales, expected.scales);
        EXPECT_EQ(got.elements, expected.elements);
        EXPECT_EQ(decode_bits(got, kind.n, scalar), expected_back);
      }
    }
  }
}

// The recipe's order of operations matters where a block's scale lands next to an E4M3
// rounding boundary: S_enc * fp32(1/6) and S_enc / 6 differ by an ulp for most amax, and
// so can the scale code. Tensors built from blocks where the two orders give different
// codes (found with MPFR) must follow the recipe's.
TEST(Nvfp4, FollowsTheRecipesOrderOfOperations) {
  int tensors = 0;
  for (float amax : {3.0f, 5.0f, 10.0f, 0.3f, 1000.0f, 123.456f}) {
    const float s_enc = over(2688.0f, amax);
    const float recipe = times(s_enc, float(1.0 / 6.0)), other = over(s_enc, 6.0f);
    if (recipe == other) continue;
    std::vector<float> in(16, 0.0f);
    in[0] = amax;
    // Block maxima next to each E4M3 midpoint (k + 1/2) * 2^(e - 3) divided by the factor.
    for (int e = -6; e <= 8 && in.size() < 16 * 9; ++e) {
      for (int k = 8; k < 16 && in.size() < 16 * 9; ++k) {
        const float midpoint = std::ldexp(float(k) + 0.5f, e - 3);
        float m = over(midpoint, recipe);
        for (int step = 0; step < 3; ++step) m = std::nextafter(m, 0.0f);
        for (int step = 0; step < 7; ++step, m = std::nextafter(m, 2 * m)) {
          if (m > amax || round_to(times(m, recipe), E4M3::format) == round_to(times(m, other), E4M3::format))
            continue;
          std::vector<float> block(16, m * 0.25f);
          block[std::size_t(k)] = -m;
          in.insert(in.end(), block.begin(), block.end());
          break;
        }
      }
    }
    if (in.size() == 16) continue;  // this amax has no sensitive block
    const Encoded expected = expected_encoding(in);
    for (bool scalar : {false, true}) {
      const Encoded got = encode(in, scalar);
      EXPECT_EQ(got.scales, expected.scales) << amax << (scalar ? " scalar" : " vectorised");
      EXPECT_EQ(got.elements, expected.elements) << amax;
    }
    ++tensors;
  }
  EXPECT_GE(tensors, 2);
}

// Decoding arbitrary bytes: every scale code (negative and NaN ones included) with
// random elements and several amax values, an infinite factor among them (448 * FLT_MAX).
TEST(Nvfp4, DecodeEveryScaleCodeMatchesMpfr) {
  std::mt19937 rng(5);
  const std::size_t n = 256 * 16;
  Encoded e{std::vector<std::uint8_t>(n / 2), std::vector<std::uint8_t>(256)};
  for (auto& byte : e.elements) byte = std::uint8_t(rng());
  for (std::size_t b = 0; b < 256; ++b) e.scales[b] = std::uint8_t(b);
  for (float amax : {1.0f, 7.0f, 0x1p-140f, std::numeric_limits<float>::max(), 0.0f}) {
    e.amax = amax;
    const std::vector<std::uint32_t> expected = expected_decoding(e, n);
    EXPECT_EQ(decode_bits(e, n, false), expected) << amax;
    EXPECT_EQ(decode_bits(e, n, true), expected) << amax;
  }
}

// One case per target (Highway's hwy/tests/hwy_gtest.h): Nvfp4EveryTargetGroup/
// Nvfp4EveryTarget.<test>/<target>.
class Nvfp4EveryTarget : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(Nvfp4EveryTarget);

TEST_P(Nvfp4EveryTarget, VectorisedMatchesScalar) {
  std::mt19937 rng(77);
  const std::vector<float> in = random_tensor(16 * 700 + 5, rng, -160, 127, true);
  const Encoded expected = encode(in, true);
  const std::vector<std::uint32_t> expected_back = decode_bits(expected, in.size(), true);
  const Encoded got = encode(in, false);
  EXPECT_EQ(bits_of(got.amax), bits_of(expected.amax));
  EXPECT_EQ(got.scales, expected.scales);
  EXPECT_EQ(got.elements, expected.elements);
  EXPECT_EQ(decode_bits(got, in.size(), false), expected_back);
}

// The elements' rounding: every direction, stochastic from a seed and an offset, gives
// the scalar definition's bits on every target (the scales stay nearest even); a
// stochastic stream continued over two calls is the stream of one.
TEST(Nvfp4, ElementRoundingsMatchScalarOnEveryTarget) {
  std::mt19937 rng(41);
  std::vector<float> in(16 * 300);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float& x : in) x = normal(rng);
  for (Rounding rounding : kAllRoundings) {
    SCOPED_TRACE(std::string(rounding_name(rounding)));
    const RandomStream random{123, 4567};
    const Encoded expected = encode(in, true, rounding, random);
    test_targets::for_each_target([&](const std::string&) {
      const Encoded got = encode(in, false, rounding, random);
      EXPECT_EQ(got.elements, expected.elements);
      EXPECT_EQ(got.scales, expected.scales);
      EXPECT_EQ(bits_of(got.amax), bits_of(expected.amax));
    });
  }
  const Encoded nearest = encode(in, false);
  const Encoded stochastic = encode(in, false, Rounding::stochastic, {9, 0});
  EXPECT_NE(nearest.elements, stochastic.elements) << "stochastic rounding moved no element";
  EXPECT_EQ(nearest.scales, stochastic.scales) << "the scales do not depend on the elements' rounding";
}

TEST(Nvfp4, BadArgumentsThrow) {
  std::vector<float> in(32, 1.0f), out(32);
  std::vector<std::uint8_t> elements(16), scales(2);
  float amax = 0.0f;
  for (auto run : {nvfp4::quantize, nvfp4::scalar_quantize}) {
    EXPECT_THROW(run(in.data(), 32, elements.data(), 15, scales.data(), 2, &amax, Rounding::nearest_even, RandomStream{}), std::invalid_argument);
    EXPECT_THROW(run(in.data(), 32, elements.data(), 16, scales.data(), 1, &amax, Rounding::nearest_even, RandomStream{}), std::invalid_argument);
    EXPECT_THROW(run(nullptr, 32, elements.data(), 16, scales.data(), 2, &amax, Rounding::nearest_even, RandomStream{}), std::invalid_argument);
    EXPECT_THROW(run(in.data(), 32, elements.data(), 16, scales.data(), 2, nullptr, Rounding::nearest_even, RandomStream{}), std::invalid_argument);
  }
  for (auto run : {nvfp4::dequantize, nvfp4::scalar_dequantize}) {
    EXPECT_THROW(run(elements.data(), 15, scales.data(), 2, 1.0f, 32, out.data()), std::invalid_argument);
    EXPECT_THROW(run(elements.data(), 16, scales.data(), 2, 1.0f, 32, nullptr), std::invalid_argument);
  }
  EXPECT_EQ(nvfp4::element_bytes(33), 17u);
  EXPECT_EQ(nvfp4::scale_count(33), 3u);
}

}  // namespace
}  // namespace softfloat
