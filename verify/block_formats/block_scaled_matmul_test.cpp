// Matrix multiply with block-scaled weights (softfloat/block_scaled_matmul.hpp) on every
// Highway target this CPU supports, against the definition computed here from its parts:
// the weights' values from mx::scalar_dequantize (the value-by-value MX definition) or,
// for NVFP4, each E2M1 code's value times its E4M3 scale's value from simd::dequantize,
// then the chain s = std::fma(x, w, s) in k order (and s * g for NVFP4). The layout is
// checked against mx::quantize / nvfp4::quantize of W's columns, code for code. Every
// E2M1 code meets every lane position and the extreme scales (2^-127, 2^127, NaN).
#include <gtest/gtest.h>
#include <hwy/tests/hwy_gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_formats/packed_codes.hpp"
#include "block_formats/unscaled_chain.hpp"
#include "softfloat/block_scaled_matmul.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"

namespace softfloat {
namespace {

using block_formats_detail::read_bits;

struct Shape {
  std::size_t m, k, n;
};
// Odd n (a lone low nibble), n past one vector and its tail, k not a multiple of the
// block (a short last block of rows), k past the eight-row passes, n past several four-vector steps with single vectors after them.
const Shape kShapes[] = {{1, 1, 1}, {1, 32, 2}, {2, 77, 67}, {1, 64, 256}, {3, 45, 33}, {1, 300, 130}, {1, 40, 600}};

std::vector<float> normal_weights(std::size_t count, float sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> w(count);
  for (float& v : w) v = normal(rng);
  return w;
}

std::size_t count_bit_differences(const std::vector<float>& got, const std::vector<float>& expected,
                                  const std::string& what) {
  std::size_t differences = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool same = std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(expected[i]) ||
                      (std::isnan(got[i]) && std::isnan(expected[i]));
    if (!same && differences++ < 3)
      ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << ", expected " << expected[i];
  }
  return differences;
}

// The weights' values w[p][j] (k x n) by the definition, before any tensor scale.
std::vector<float> weight_values(const BlockScaledWeights& w) {
  std::vector<float> values(w.k * w.n);
  const int bits = mx::element_bits(w.element);
  const Format element_format = mx::element_format(w.element);
  for (std::size_t p = 0; p < w.k; ++p)
    for (std::size_t j = 0; j < w.n; ++j) {
      const std::uint16_t code = std::uint16_t(read_bits(w.elements.data() + p * w.row_bytes(), j, bits));
      float element;
      simd::dequantize(&code, 1, &element, element_format);
      if (w.scaling == WeightScaling::none) {
        values[p * w.n + j] = element;
      } else if (w.scaling == WeightScaling::mx) {
        // One element with its block's scale through the scalar MX definition.
        std::uint8_t packed[1] = {0};
        block_formats_detail::write_bits(packed, 0, bits, code);
        const std::uint8_t scale = w.scales[p / 32 * w.n + j];
        mx::scalar_dequantize(packed, 1, &scale, 1, 1, &values[p * w.n + j], w.element);
      } else {
        const std::uint8_t scale_code = w.scales[p / 16 * w.n + j];
        float scale;
        simd::dequantize(&scale_code, 1, &scale, E4M3::format);
        values[p * w.n + j] = element * scale;
      }
    }
  return values;
}

std::vector<float> definition(const std::vector<float>& a, const BlockScaledWeights& w, std::size_t m) {
  const std::vector<float> values = weight_values(w);
  const float g = w.tensor_amax * float(1.0 / 2688.0);
  std::vector<float> c(m * w.n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < w.n; ++j) {
      float s = 0.0f;
      for (std::size_t p = 0; p < w.k; ++p) s = std::fma(a[i * w.k + p], values[p * w.n + j], s);
      c[i * w.n + j] = w.scaling == WeightScaling::nvfp4 ? s * g : s;
    }
  return c;
}

std::string describe(const BlockScaledWeights& w, const Shape& s) {
  static const char* const kScaling[] = {"none", "mx", "nvfp4"};
  return std::string(mx::element_name(w.element)) + " " + kScaling[int(w.scaling)] + " " + std::to_string(s.m) +
         "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

// Targets without FMA (matmul.hpp) round each product before the sum: the same bits as
// the fused chain only where every product is exact in fp32.
bool rounds_products_first(std::int64_t target) {
  std::int64_t without_fma = HWY_SCALAR | HWY_EMU128;
#if HWY_ARCH_X86
  without_fma |= HWY_SSSE3 | HWY_SSE4;
#endif
#ifdef HWY_SSE2
  without_fma |= HWY_SSE2;
#endif
  return (target & without_fma) != 0;
}

// Activations N(0, 1): full fp32 ones, or rounded to bf16 (8 significant bits), whose
// products with any element and scale (at most 6 bits) fp32 holds exactly.
std::vector<float> activations(std::size_t count, bool exact_products, std::uint64_t seed) {
  std::vector<float> a = normal_weights(count, 1.0f, seed);
  if (exact_products) simd::round_trip(a.data(), a.size(), a.data(), BF16::format);
  return a;
}

void check_against_definition(mx::Element element, WeightScaling scaling, float sigma, std::uint64_t seed,
                              bool exact_products) {
  for (const Shape& s : kShapes) {
    if (scaling == WeightScaling::nvfp4 && s.k % 16 != 0) continue;  // quantize_weights refuses it (tested below)
    const std::vector<float> w = normal_weights(s.k * s.n, sigma, seed);
    const std::vector<float> a = activations(s.m * s.k, exact_products, seed + 1);
    const BlockScaledMatrix q = quantize_weights(w.data(), s.k, s.n, element, scaling);
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul(a.data(), q.view(), c.data(), s.m);
    EXPECT_EQ(count_bit_differences(c, definition(a, q.view(), s.m), describe(q.view(), s)), 0u);
  }
}

class BlockScaledEveryTarget : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(BlockScaledEveryTarget);

// Weights N(0, 0.05), the spread of an LLM's weights (many elements on the subnormal
// codes), and N(0, 1); fp32 activations on the targets with FMA, bf16-valued ones on all.
TEST_P(BlockScaledEveryTarget, E2m1MatchesTheDefinition) {
  for (bool exact_products : {true, false}) {
    if (!exact_products && rounds_products_first(GetParam())) continue;
    for (WeightScaling scaling : {WeightScaling::none, WeightScaling::mx, WeightScaling::nvfp4})
      for (float sigma : {0.05f, 1.0f})
        check_against_definition(mx::Element::fp4_e2m1, scaling, sigma, 11, exact_products);
  }
}

// A row wider than the kernels' column blocks (4096 bytes, 8192 columns), ending in a
// part of a 128-column chunk of nibble lanes (AVX-512) with a lone low nibble, and k
// not a multiple of MX's 32 rows.
TEST_P(BlockScaledEveryTarget, E2m1RowsWiderThanAColumnBlock) {
  const Shape shape{1, 48, 8192 + 128 + 3};
  const bool exact_products = rounds_products_first(GetParam());
  const std::vector<float> w = normal_weights(shape.k * shape.n, 0.05f, 21);
  const std::vector<float> a = activations(shape.k, exact_products, 22);
  for (WeightScaling scaling : {WeightScaling::none, WeightScaling::mx, WeightScaling::nvfp4}) {
    const BlockScaledMatrix q = quantize_weights(w.data(), shape.k, shape.n, mx::Element::fp4_e2m1, scaling);
    std::vector<float> c(shape.n, -1.0f);
    matmul(a.data(), q.view(), c.data(), 1);
    EXPECT_EQ(count_bit_differences(c, definition(a, q.view(), 1), describe(q.view(), shape)), 0u);
  }
}

TEST_P(BlockScaledEveryTarget, SixAndEightBitElementsMatchTheDefinition) {
  for (bool exact_products : {true, false}) {
    if (!exact_products && rounds_products_first(GetParam())) continue;
    for (mx::Element element : {mx::Element::fp8_e4m3, mx::Element::fp8_e5m2, mx::Element::fp6_e3m2,
                                mx::Element::fp6_e2m3})
      for (WeightScaling scaling : {WeightScaling::none, WeightScaling::mx})
        check_against_definition(element, scaling, 0.05f, 12, exact_products);
  }
}

// Row p of W holds the 16 codes, rotated by p, across 64 columns, so that each code
// meets each lane position; the scale rows cycle through 2^-127 (code 0), 2^127 (0xFE:
// 6 * 2^127 is infinite), 1, NaN (0xFF) and ordinary codes; x holds moderate values.
TEST_P(BlockScaledEveryTarget, EveryCodeAndExtremeScales) {
  const std::size_t k = 160, n = 64;
  std::vector<std::uint8_t> elements(k * n / 2, 0);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) block_formats_detail::write_bits(elements.data() + p * n / 2, j, 4, (j + p) % 16);
  std::vector<float> x(k);
  for (std::size_t p = 0; p < k; ++p) x[p] = 0.25f + float(p % 7) / 8;
  const std::uint8_t mx_codes[] = {0x00, 0xFE, 0x7F, 0xFF, 0x70, 0x85, 0x01, 0x7A};
  const std::uint8_t nvfp4_codes[] = {0x00, 0x01, 0x7E, 0x7F, 0x38, 0x08, 0xFF, 0x41};
  for (WeightScaling scaling : {WeightScaling::mx, WeightScaling::nvfp4}) {
    const std::uint8_t* cycle = scaling == WeightScaling::mx ? mx_codes : nvfp4_codes;
    BlockScaledWeights w{mx::Element::fp4_e2m1, scaling, k, n, elements, {}, 0.0f};
    std::vector<std::uint8_t> scales(w.scale_count());
    for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = cycle[(i / n + i % 5) % 8];
    w.scales = scales;
    w.tensor_amax = scaling == WeightScaling::nvfp4 ? 100.0f : 0.0f;
    std::vector<float> c(n, -1.0f);
    matmul(x.data(), w, c.data(), 1);
    const std::vector<float> expected = definition(x, w, 1);
    EXPECT_EQ(count_bit_differences(c, expected, describe(w, {1, k, n})), 0u);
    std::size_t nans = 0;
    for (float v : expected) nans += std::isnan(v) ? 1 : 0;
    EXPECT_GT(nans, 0u) << "the NaN scales reach some columns";
    EXPECT_LT(nans, n) << "and not all of them";
  }
}

// Every scale code of both kinds, one per column over 256 columns (and past them in a
// tail of 5), each scaling a column of all 16 E2M1 codes: the scales the kernel decodes
// by arithmetic equal simd::dequantize's / the E8M0 definition's, NaN codes included.
TEST_P(BlockScaledEveryTarget, EveryScaleCode) {
  const std::size_t n = 261;
  for (WeightScaling scaling : {WeightScaling::mx, WeightScaling::nvfp4}) {
    const std::size_t k = scaling == WeightScaling::mx ? 32 : 16;
    const std::size_t row_bytes = mx::element_bytes(mx::Element::fp4_e2m1, n);
    std::vector<std::uint8_t> elements(k * row_bytes, 0), scales(2 * n);
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) block_formats_detail::write_bits(elements.data() + p * row_bytes, j, 4, (j + p) % 16);
    for (std::size_t j = 0; j < 2 * n; ++j) scales[j] = std::uint8_t(j % 256);
    std::vector<float> x(k);
    for (std::size_t p = 0; p < k; ++p) x[p] = 0.5f + float(p % 5) / 4;
    BlockScaledWeights w{mx::Element::fp4_e2m1, scaling, k, n, elements, scales, 448.0f * 6.0f};
    std::vector<float> c(n, -1.0f);
    matmul(x.data(), w, c.data(), 1);
    EXPECT_EQ(count_bit_differences(c, definition(x, w, 1), describe(w, {1, k, n})), 0u);
  }
}

// One-byte elements with MX scales: every scale code up to the largest where every
// weight times the scale stays finite (so the in-register kernel runs) and NaN's 0xFF,
// and then the same with 0xFE in one block (some weight times 2^127 is infinite: the
// call takes the decoded path). Every element code appears in every block.
TEST_P(BlockScaledEveryTarget, OneByteElementsWithEveryScaleCode) {
  const std::size_t k = 96, n = 261;
  for (mx::Element element : {mx::Element::fp8_e4m3, mx::Element::fp8_e5m2})
    for (bool overflowing_block : {false, true}) {
      std::vector<std::uint8_t> elements(k * n), scales(3 * n);
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t j = 0; j < n; ++j) elements[p * n + j] = std::uint8_t((j * 7 + p * 3) % 256);
      // The largest code whose scale keeps max |weight| * scale finite: 2^119 (448 =
      // 1.75 * 2^8), 2^112 (57344 = 1.75 * 2^15); one slot past it holds NaN's code.
      const std::size_t top = element == mx::Element::fp8_e4m3 ? 127 + 119 : 127 + 112;
      for (std::size_t i = 0; i < scales.size(); ++i)
        scales[i] = std::uint8_t(i % (top + 2) == top + 1 ? 0xFF : i % (top + 2));
      if (overflowing_block) scales[n + 5] = 0xFE;
      std::vector<float> x(k);
      for (std::size_t p = 0; p < k; ++p) x[p] = 0.5f + float(p % 5) / 4;
      const BlockScaledWeights w{element, WeightScaling::mx, k, n, elements, scales, 0.0f};
      std::vector<float> c(n, -1.0f);
      matmul(x.data(), w, c.data(), 1);
      EXPECT_EQ(count_bit_differences(c, definition(x, w, 1), describe(w, {1, k, n})), 0u);
    }
}

// Six-bit elements (E2M3, E3M2), plain and MX-scaled: every element code in every lane
// position (row p holds the 64 codes rotated by p), every scale code (NaN's and those
// whose products overflow included) once per 256 columns, over widths that end inside a
// vector, a 4-code group and a byte.
TEST_P(BlockScaledEveryTarget, SixBitEveryCodeAndEveryScale) {
  for (mx::Element element : {mx::Element::fp6_e2m3, mx::Element::fp6_e3m2})
    for (WeightScaling scaling : {WeightScaling::none, WeightScaling::mx})
      for (std::size_t n : {std::size_t(261), std::size_t(64), std::size_t(7), std::size_t(1)}) {
        const std::size_t k = 70, row_bytes = mx::element_bytes(element, n);
        std::vector<std::uint8_t> elements(k * row_bytes, 0), scales(3 * n);
        for (std::size_t p = 0; p < k; ++p)
          for (std::size_t j = 0; j < n; ++j)
            block_formats_detail::write_bits(elements.data() + p * row_bytes, j, 6, std::uint8_t((j + 5 * p) % 64));
        // Targets without FMA round each product first: there scales up to 2^100 only, so
        // that every product (x and the elements have few bits) stays exact and finite.
        const std::size_t codes = rounds_products_first(GetParam()) ? 228 : 256;
        for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = std::uint8_t((i * 7 + 3) % codes);
        std::vector<float> x(k);
        for (std::size_t p = 0; p < k; ++p) x[p] = 0.5f + float(p % 5) / 4;
        BlockScaledWeights w{element, scaling, k, n, elements, {}, 0.0f};
        if (scaling == WeightScaling::mx) w.scales = scales;
        std::vector<float> c(n, -1.0f);
        matmul(x.data(), w, c.data(), 1);
        EXPECT_EQ(count_bit_differences(c, definition(x, w, 1), describe(w, {1, k, n})), 0u);
      }
}

// MX blocks whose columns take the unscaled chain (block_formats/unscaled_chain.hpp:
// z = y / s, the block's steps on the bare E2M1 values, y = z * s) beside columns that
// keep the scaled chain, at the edges of its conditions, against the definition's
// scaled chain bit for bit. Activations x = +-(1 + f) 2^(e0 + r), f a random mantissa
// (bf16's 7 bits where products are rounded first), r in [0, spread]; the scale codes
// of each 128-column group are drawn from [first, first + span), so that some groups
// lie wholly inside the window and others straddle its edge; blocks from
// `zero_rows_from` on hold only zero elements, so that the sums carried into them are
// all that is left.
enum class Signs { random, rise_and_fall, rise_then_rise_and_fall };
enum class Elements { any, positive, halves, staircase };
struct UnscaledCase {
  const char* what;
  int e0, spread;                 // x's exponents
  std::uint32_t first[3], span;   // the scale codes of blocks 0, 1, 2
  std::size_t zero_rows_from;     // the block from which the elements are zero (3: none)
  // x's signs: random; + in the first 16 rows of each block and - in the last 16 (with
  // positive elements the sums climb and come back); or + through block 0 first.
  Signs signs;
  // Every code, codes 0 .. 7, +-0.5 only, or a staircase: 21 sixes, one 1.5 and ten
  // zeros in each column of block 0 (the sum 127.5), then sixes.
  Elements elements;
};

TEST_P(BlockScaledEveryTarget, UnscaledChainKeepsTheScaledChainsBits) {
  const UnscaledCase cases[] = {
      // E = -125, the lowest the chain allows: scales from 2^0 take it. With elements
      // +-0.5 and the scales 2^-2 (code 125) below the window, the scaled chain's sums
      // stay in fp32's subnormal range and round there, where the unscaled ones would not.
      {"subnormal sums", -125, 0, {125, 126, 127}, 5, 3, Signs::random, Elements::halves},
      {"subnormal sums, every code", -125, 2, {125, 126, 127}, 5, 3, Signs::random, Elements::any},
      // A nonzero x below 2^-125: no column may take it.
      {"x too small", -126, 2, {125, 126, 127}, 5, 3, Signs::random, Elements::any},
      // Too small for the unscaled form, where the products x * 0.5 round below 2^-126.
      {"x too small, large scales", -126, 0, {128, 128, 128}, 5, 3, Signs::random, Elements::halves},
      // x = +-2^110: the window ends at 2^4 (code 131); with codes 139 and 140 the sums
      // pass 2^128 halfway through a block (the scaled chain's infinity stays) and
      // would come back in the unscaled one.
      {"overflow halfway", 110, 0, {129, 129, 129}, 12, 3, Signs::rise_and_fall, Elements::positive},
      // Block 0 (2^11, outside the window) leaves the sums 127.5 * 2^121 = 2^128 - 2^120;
      // blocks 1 and 2 lie in the window (2^4), but a sum above 2^125 where a pass starts
      // keeps the scaled chain, whose climb of 96 * 2^114 overflows where the unscaled
      // one's would not.
      {"large sums carried", 110, 0, {138, 131, 131}, 1, 3, Signs::rise_then_rise_and_fall, Elements::staircase},
      // Block 0 leaves sums near 2^-125 (scales 2^-105 on x near 2^-20); block 1's scale
      // 2^33 would round z = y / s, which the exactness check refuses, and its zero
      // elements leave those sums as they were.
      {"tiny sums under a large scale", -20, 4, {22, 160, 127}, 1, 1, Signs::random, Elements::any},
      // The same with block 1's scales 2^-40 (z = y * 2^40, exact): the chain runs.
      {"tiny sums under a small scale", -20, 4, {22, 87, 127}, 2, 1, Signs::random, Elements::any},
  };
  const bool bf16_x = rounds_products_first(GetParam());
  const std::size_t k = 96, n = 262, row_bytes = mx::element_bytes(mx::Element::fp4_e2m1, n);
  for (const UnscaledCase& c : cases) {
    std::mt19937_64 rng(17);
    std::vector<float> x(k);
    for (std::size_t p = 0; p < k; ++p) {
      const float f = c.signs == Signs::random ? std::uniform_real_distribution<float>(1.0f, 2.0f)(rng) : 1.0f;
      bool negative = rng() % 2 != 0;
      if (c.signs != Signs::random) negative = p % 32 >= 16 && (c.signs == Signs::rise_and_fall || p >= 32);
      x[p] = std::ldexp(f, c.e0 + int(rng() % std::uint64_t(c.spread + 1))) * (negative ? -1.0f : 1.0f);
    }
    if (bf16_x) simd::round_trip(x.data(), k, x.data(), BF16::format, Rounding::toward_zero);
    std::vector<std::uint8_t> elements(k * row_bytes, 0), scales(3 * n);
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) {
        if (p / 32 >= c.zero_rows_from) continue;
        std::uint8_t code = std::uint8_t(rng() % 16);
        if (c.elements == Elements::positive) code &= 7;
        if (c.elements == Elements::halves) code = (code & 8) | 1;  // +-0.5
        if (c.elements == Elements::staircase) code = p >= 32 || p < 21 ? 7 : p == 21 ? 3 : 0;
        block_formats_detail::write_bits(elements.data() + p * row_bytes, j, 4, code);
      }
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t j = 0; j < n; ++j) {
        // Even groups of 128 columns: one code for the group; odd ones: a code a column.
        const std::uint32_t offset = (j / 128) % 2 == 0 ? std::uint32_t(j / 128) % c.span : std::uint32_t(rng() % c.span);
        scales[b * n + j] = std::uint8_t(c.first[b] + offset);
      }
    const BlockScaledWeights w{mx::Element::fp4_e2m1, WeightScaling::mx, k, n, elements, scales, 0.0f};
    std::vector<float> y(n, -1.0f);
    matmul(x.data(), w, y.data(), 1);
    EXPECT_EQ(count_bit_differences(y, definition(x, w, 1), c.what), 0u) << c.what;
  }
}

// The window of the header's worked value, and the activations that close it.
TEST(UnscaledChainWindow, WorkedValueAndEmptyWindows) {
  const float x[] = {0.75f, 1e-3f, -2.5f};
  const auto window = block_formats_detail::unscaled_chain_window(x, 3);
  EXPECT_EQ(window.code_lo, 12u);
  EXPECT_EQ(window.code_hi, 246u);
  const float tiny[] = {1.0f, 0x1p-126f}, infinite[] = {1.0f, INFINITY}, nan[] = {std::nanf("")};
  const float huge[] = {0x1p123f, 0x1p123f}, zeros[] = {0.0f, -0.0f};
  EXPECT_TRUE(block_formats_detail::unscaled_chain_window(tiny, 2).empty());
  EXPECT_FALSE(block_formats_detail::unscaled_chain_window(tiny, 1).empty());
  EXPECT_TRUE(block_formats_detail::unscaled_chain_window(infinite, 2).empty());
  EXPECT_TRUE(block_formats_detail::unscaled_chain_window(nan, 1).empty());
  EXPECT_TRUE(block_formats_detail::unscaled_chain_window(huge, 2).empty());  // 6 * 2^124 > 2^125
  const auto all_zero = block_formats_detail::unscaled_chain_window(zeros, 2);
  EXPECT_EQ(all_zero.code_lo, 1u);
  EXPECT_EQ(all_zero.code_hi, 253u);
}

// The layout: codes and scales of quantize_weights are those of mx::quantize /
// nvfp4::quantize of W's columns.
TEST(BlockScaledLayout, CodesAreThoseOfTheColumnsQuantized) {
  const std::size_t k = 48, n = 7;
  const std::vector<float> w = normal_weights(k * n, 0.05f, 3);
  std::vector<float> columns(n * k);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) columns[j * k + p] = w[p * n + j];

  const BlockScaledMatrix mxfp6 = quantize_weights(w.data(), k, n, mx::Element::fp6_e2m3, WeightScaling::mx);
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<std::uint8_t> elements(mx::element_bytes(mx::Element::fp6_e2m3, k)), scales(2);
    mx::quantize(columns.data() + j * k, k, elements.data(), elements.size(), scales.data(), 2,
                 mx::Element::fp6_e2m3);
    for (std::size_t p = 0; p < k; ++p)
      ASSERT_EQ(read_bits(mxfp6.elements.data() + p * mxfp6.view().row_bytes(), j, 6), read_bits(elements.data(), p, 6))
          << "column " << j << " row " << p;
    EXPECT_EQ(mxfp6.scales[0 * n + j], scales[0]);
    EXPECT_EQ(mxfp6.scales[1 * n + j], scales[1]);
  }

  const BlockScaledMatrix nv = quantize_weights(w.data(), k, n, mx::Element::fp4_e2m1, WeightScaling::nvfp4);
  std::vector<std::uint8_t> elements(nvfp4::element_bytes(n * k)), scales(nvfp4::scale_count(n * k));
  float amax = -1.0f;
  nvfp4::quantize(columns.data(), n * k, elements.data(), elements.size(), scales.data(), scales.size(), &amax);
  EXPECT_EQ(nv.tensor_amax, amax);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < k; ++p)
      ASSERT_EQ(read_bits(nv.elements.data() + p * nv.view().row_bytes(), j, 4), read_bits(elements.data(), j * k + p, 4));
    for (std::size_t t = 0; t < k / 16; ++t) EXPECT_EQ(nv.scales[t * n + j], scales[j * (k / 16) + t]);
  }
}

// A worked value: W's only column is 32 rows of 1.5 (E2M1 0x3) with the MX scale 2^-1,
// so each weight is 0.75; x = 1, 2, ..., 32 gives 0.75 * 528 = 396 exactly.
TEST(BlockScaledLayout, WorkedValue) {
  std::vector<float> w(32, 0.75f), x(32);
  for (std::size_t p = 0; p < 32; ++p) x[p] = float(p + 1);
  const BlockScaledMatrix q = quantize_weights(w.data(), 32, 1, mx::Element::fp4_e2m1, WeightScaling::mx);
  // floor(log2(0.75)) - emax_elem 2 = -3: elements 0.75 * 8 = 6 (code 0x7), scale code 124.
  EXPECT_EQ(q.scales[0], 124);
  EXPECT_EQ(q.elements[0], 0x7);
  float y = 0.0f;
  matmul(x.data(), q.view(), &y, 1);
  EXPECT_EQ(y, 396.0f);
}

TEST(BlockScaledLayout, BadArgumentsAreRefused) {
  const std::vector<float> w(16 * 4, 1.0f);
  EXPECT_THROW(quantize_weights(w.data(), 8, 8, mx::Element::fp4_e2m1, WeightScaling::nvfp4), std::invalid_argument);
  EXPECT_THROW(quantize_weights(w.data(), 16, 4, mx::Element::fp8_e4m3, WeightScaling::nvfp4), std::invalid_argument);
  EXPECT_THROW(quantize_weights(w.data(), 16, 4, mx::Element::int8, WeightScaling::mx), std::invalid_argument);
  EXPECT_THROW(quantize_weights(nullptr, 16, 4, mx::Element::fp4_e2m1, WeightScaling::mx), std::invalid_argument);
  const BlockScaledMatrix q = quantize_weights(w.data(), 16, 4, mx::Element::fp4_e2m1, WeightScaling::mx);
  std::vector<float> x(16, 1.0f), y(4);
  BlockScaledWeights short_elements = q.view();
  short_elements.elements = short_elements.elements.first(10);
  try {
    matmul(x.data(), short_elements, y.data(), 1);
    ADD_FAILURE() << "a short element span was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("element span holds 10 bytes; k x n needs 32"), std::string::npos) << e.what();
  }
  BlockScaledWeights no_scales = q.view();
  no_scales.scales = {};
  EXPECT_THROW(matmul(x.data(), no_scales, y.data(), 1), std::invalid_argument);
  const BlockScaledMatrix nv = quantize_weights(w.data(), 16, 4, mx::Element::fp4_e2m1, WeightScaling::nvfp4);
  BlockScaledWeights bad_amax = nv.view();
  bad_amax.tensor_amax = std::nanf("");
  EXPECT_THROW(matmul(x.data(), bad_amax, y.data(), 1), std::invalid_argument);
  EXPECT_THROW(matmul(nullptr, q.view(), y.data(), 1), std::invalid_argument);
}

}  // namespace
}  // namespace softfloat
