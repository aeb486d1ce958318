// MX block scaling (softfloat/mx.hpp) on values worked out by hand in the comments: the
// issue's example, both scale rules, the special blocks (zeros, NaN, infinity), scales
// at E8M0's extremes, the packed layout, a last partial block, names and bad arguments.
// Every case runs both the vectorised quantize/dequantize and the scalar definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/block_formats/mx_test_support.hpp"

namespace softfloat {
namespace {

using mx::Element;
using mx::ScaleRule;
using mx_test::bits_of;
using mx_test::from_bits;

struct Quantized {
  std::vector<std::uint8_t> elements;
  std::vector<std::uint8_t> scales;
};

// Quantizes with both implementations, checks that they agree byte for byte, and
// returns the result.
Quantized quantize_both(const std::vector<float>& in, Element element, mx::Options options = {}) {
  Quantized fast{std::vector<std::uint8_t>(mx::element_bytes(element, in.size())),
                 std::vector<std::uint8_t>(mx::scale_count(in.size(), options))};
  Quantized scalar = fast;
  mx::quantize(in.data(), in.size(), fast.elements.data(), fast.elements.size(), fast.scales.data(),
               fast.scales.size(), element, options);
  mx::scalar_quantize(in.data(), in.size(), scalar.elements.data(), scalar.elements.size(), scalar.scales.data(),
                      scalar.scales.size(), element, options);
  EXPECT_EQ(fast.elements, scalar.elements) << "vectorised and scalar elements differ";
  EXPECT_EQ(fast.scales, scalar.scales) << "vectorised and scalar scales differ";
  return fast;
}

// Dequantizes with both implementations; returns the float bits after checking agreement.
std::vector<std::uint32_t> dequantize_both(const Quantized& q, std::size_t n, Element element,
                                           mx::Options options = {}) {
  std::vector<float> fast(n), scalar(n);
  mx::dequantize(q.elements.data(), q.elements.size(), q.scales.data(), q.scales.size(), n, fast.data(), element,
                 options);
  mx::scalar_dequantize(q.elements.data(), q.elements.size(), q.scales.data(), q.scales.size(), n, scalar.data(),
                        element, options);
  std::vector<std::uint32_t> bits(n), scalar_bits(n);
  for (std::size_t i = 0; i < n; ++i) {
    bits[i] = bits_of(fast[i]);
    scalar_bits[i] = bits_of(scalar[i]);
  }
  EXPECT_EQ(bits, scalar_bits) << "vectorised and scalar dequantize differ";
  return bits;
}

std::vector<std::uint32_t> codes_of(const Quantized& q, std::size_t n, Element element) {
  std::vector<std::uint32_t> codes(n);
  for (std::size_t i = 0; i < n; ++i) codes[i] = mx_test::packed_code(q.elements, i, mx::element_bits(element));
  return codes;
}

std::vector<float> padded(std::vector<float> head, std::size_t n) {
  head.resize(n, 0.0f);
  return head;
}

// The issue's example. E2M1 (bias 1): max|x| = 7, floor(log2 7) = 2, emax_elem = 2, so
// s = 0 and the scale code is 0 + 127 = 0x7F. Elements: 1.0 = 0b0'01'0 = 0x2, 2.0 =
// 0b0'10'0 = 0x4, 3.0 = 1.5 * 2 = 0b0'10'1 = 0x5, 7 lies halfway between 6 and 8, rounds
// (to even) to 8, beyond max 6, and clamps to 6 = 0b0'11'1 = 0x7; -0.5 = the subnormal
// 0b1'00'1 = 0x9; zeros 0x0. Packed, element 0 in the low nibble: 0x42 0x75 0x09 0x00...
TEST(MxExample, IssueBlockInE2M1) {
  const std::vector<float> in = padded({1.0f, 2.0f, 3.0f, 7.0f, -0.5f}, 32);
  const Quantized q = quantize_both(in, Element::fp4_e2m1);
  ASSERT_EQ(q.scales.size(), 1u);
  EXPECT_EQ(q.scales[0], 0x7F);
  const std::vector<std::uint32_t> codes = codes_of(q, 32, Element::fp4_e2m1);
  const std::uint32_t head[] = {0x2, 0x4, 0x5, 0x7, 0x9};
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(codes[i], i < 5 ? head[i] : 0u) << "element " << i;
  ASSERT_EQ(q.elements.size(), 16u);
  EXPECT_EQ(q.elements[0], 0x42);
  EXPECT_EQ(q.elements[1], 0x75);
  EXPECT_EQ(q.elements[2], 0x09);
  for (std::size_t b = 3; b < 16; ++b) EXPECT_EQ(q.elements[b], 0x00);
  const std::vector<std::uint32_t> back = dequantize_both(q, 32, Element::fp4_e2m1);
  EXPECT_EQ(back[0], bits_of(1.0f));
  EXPECT_EQ(back[1], bits_of(2.0f));
  EXPECT_EQ(back[2], bits_of(3.0f));
  EXPECT_EQ(back[3], bits_of(6.0f));
  EXPECT_EQ(back[4], bits_of(-0.5f));
  EXPECT_EQ(back[5], bits_of(0.0f));
}

// The same block under the round-up rule: ceil(log2(7 / 6)) = ceil(0.22) = 1, code 0x80.
// x / 2: 0.5 -> 0x1, 1 -> 0x2, 1.5 -> 0x3, 3.5 halfway between 3 (0b0'10'1, odd) and
// 4 (0b0'11'0, even) -> 0x6, -0.25 halfway between 0 and 0.5 -> -0 = 0x8. Back: 1, 2, 3,
// 8, -0: 7 is now 8 (no clamp), and -0.5 is lost instead.
TEST(MxExample, IssueBlockUnderCeilRule) {
  const std::vector<float> in = padded({1.0f, 2.0f, 3.0f, 7.0f, -0.5f}, 32);
  const mx::Options options{32, ScaleRule::rceil};
  const Quantized q = quantize_both(in, Element::fp4_e2m1, options);
  EXPECT_EQ(q.scales[0], 0x80);
  const std::vector<std::uint32_t> codes = codes_of(q, 32, Element::fp4_e2m1);
  EXPECT_EQ(codes[0], 0x1u);
  EXPECT_EQ(codes[1], 0x2u);
  EXPECT_EQ(codes[2], 0x3u);
  EXPECT_EQ(codes[3], 0x6u);
  EXPECT_EQ(codes[4], 0x8u);
  const std::vector<std::uint32_t> back = dequantize_both(q, 32, Element::fp4_e2m1, options);
  EXPECT_EQ(back[3], bits_of(8.0f));
  EXPECT_EQ(back[4], bits_of(-0.0f));
}

// E4M3 (bias 7), block {1000, 1, -0.001}:
//   floor: floor(log2 1000) = 9, s = 9 - 8 = 1 (0x80); 500 > 448 clamps to 0b0'1111'110 =
//          0x7E; 0.5 = 2^-1 = 0b0'0110'000 = 0x30; -0.0005 < 2^-10 (half the smallest
//          subnormal 2^-9) -> -0 = 0x80.
//   ceil:  1000 / 448 = 2.23, ceil(log2) = 2 (0x81); 250 lies above the midpoint 248 of
//          240 and 256 -> 256 = 0b0'1111'000 = 0x78; 0.25 = 0b0'0101'000 = 0x28; -0 = 0x80.
TEST(MxScaleRules, E4M3FloorAndCeil) {
  const std::vector<float> in = {1000.0f, 1.0f, -0.001f};
  const Quantized floor_q = quantize_both(in, Element::fp8_e4m3);
  EXPECT_EQ(floor_q.scales[0], 0x80);
  EXPECT_EQ(floor_q.elements, (std::vector<std::uint8_t>{0x7E, 0x30, 0x80}));
  EXPECT_EQ(dequantize_both(floor_q, 3, Element::fp8_e4m3),
            (std::vector<std::uint32_t>{bits_of(896.0f), bits_of(1.0f), bits_of(-0.0f)}));
  const mx::Options ceil{32, ScaleRule::rceil};
  const Quantized ceil_q = quantize_both(in, Element::fp8_e4m3, ceil);
  EXPECT_EQ(ceil_q.scales[0], 0x81);
  EXPECT_EQ(ceil_q.elements, (std::vector<std::uint8_t>{0x78, 0x28, 0x80}));
  EXPECT_EQ(dequantize_both(ceil_q, 3, Element::fp8_e4m3, ceil),
            (std::vector<std::uint32_t>{bits_of(1024.0f), bits_of(1.0f), bits_of(-0.0f)}));
}

// The rules agree when max|x| has the significand of max_elem or a smaller one, and
// differ by one exactly when it is larger. E2M1 max 6 = 1.5 * 2^2:
//   max 6:          floor 2 - 2 = 0, ceil log2(1) = 0                    -> both 0x7F
//   max next(6):    floor 0, ceil: 6.0000005 / 6 > 1 -> 1                 -> 0x7F, 0x80
//   max 4:          floor 0, ceil log2(2/3) = -0.58 -> 0                  -> both 0x7F
//   max 3.5:        floor 1 - 2 = -1 (0x7E), ceil log2(3.5/6) = -0.78 -> 0 (0x7F)
TEST(MxScaleRules, E2M1Boundaries) {
  struct Case {
    float max;
    std::uint8_t floor_code, ceil_code;
  };
  const Case cases[] = {{6.0f, 0x7F, 0x7F},
                        {std::nextafter(6.0f, 7.0f), 0x7F, 0x80},
                        {4.0f, 0x7F, 0x7F},
                        {3.5f, 0x7E, 0x7F}};
  for (const Case& c : cases) {
    const std::vector<float> in = {c.max, -1.0f};
    EXPECT_EQ(quantize_both(in, Element::fp4_e2m1).scales[0], c.floor_code) << c.max;
    EXPECT_EQ(quantize_both(in, Element::fp4_e2m1, {32, ScaleRule::rceil}).scales[0], c.ceil_code) << c.max;
    EXPECT_EQ(mx::block_scale(in.data(), 2, Element::fp4_e2m1, ScaleRule::floor), c.floor_code);
    EXPECT_EQ(mx::block_scale(in.data(), 2, Element::fp4_e2m1, ScaleRule::rceil), c.ceil_code);
  }
}

// MXINT8: i / 64, two's complement, emax_elem 0, max 127/64 = 1.984375.
//   {1.5, -1, 0.01}: floor(log2 1.5) = 0, s = 0 (0x7F); 96 = 0x60, -64 = 0xC0, 0.64 -> 1.
//   {1.0, 2^-7, 3 * 2^-7, -3 * 2^-7}: s = 0; 0.5 ties to 0, 1.5 ties to 2, -1.5 to -2 = 0xFE.
//   {1.9999}: floor s = 0, 127.99 rounds to 128 and clamps to 127 = 0x7F (never -128);
//             ceil: 1.9999 > 1.984375 so s = 1 (0x80), 63.997 -> 64 = 0x40.
TEST(MxScaleRules, Int8HandWorked) {
  Quantized q = quantize_both({1.5f, -1.0f, 0.01f}, Element::int8);
  EXPECT_EQ(q.scales[0], 0x7F);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x60, 0xC0, 0x01}));
  EXPECT_EQ(dequantize_both(q, 3, Element::int8),
            (std::vector<std::uint32_t>{bits_of(1.5f), bits_of(-1.0f), bits_of(1.0f / 64)}));
  q = quantize_both({1.0f, 0x1p-7f, 0x3p-7f, -0x3p-7f}, Element::int8);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x40, 0x00, 0x02, 0xFE}));
  q = quantize_both({1.9999f, -1.9999f}, Element::int8);
  EXPECT_EQ(q.scales[0], 0x7F);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x7F, 0x81}));
  q = quantize_both({1.9999f}, Element::int8, {32, ScaleRule::rceil});
  EXPECT_EQ(q.scales[0], 0x80);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x40}));
  // -128 (0x80) is never produced but reads as -2: -2 * 2^0.
  const Quantized raw{{0x80, 0x7F}, {0x7F}};
  EXPECT_EQ(dequantize_both(raw, 2, Element::int8),
            (std::vector<std::uint32_t>{bits_of(-2.0f), bits_of(127.0f / 64)}));
}

// An all-zero block: scale 0x00 (2^-127) and zero elements; -0 keeps its sign where the
// element format has one (E2M1 0x8, E4M3 0x80; MXINT8 has only 0).
TEST(MxSpecialBlocks, AllZeroBlock) {
  for (const mx_test::Facts& facts : mx_test::kFacts) {
    SCOPED_TRACE(facts.name);
    const std::vector<float> zeros(32, 0.0f);
    Quantized q = quantize_both(zeros, facts.element);
    EXPECT_EQ(q.scales[0], 0x00);
    for (std::uint8_t byte : q.elements) EXPECT_EQ(byte, 0x00);
    for (std::uint32_t bits : dequantize_both(q, 32, facts.element)) EXPECT_EQ(bits, 0u);
    const std::vector<float> negative_zeros(32, -0.0f);
    q = quantize_both(negative_zeros, facts.element, {32, ScaleRule::rceil});
    EXPECT_EQ(q.scales[0], 0x00);
    const std::uint32_t negative_zero_code =
        facts.element == Element::int8 ? 0u : std::uint32_t(facts.format.sign_bit());
    for (std::uint32_t code : codes_of(q, 32, facts.element)) EXPECT_EQ(code, negative_zero_code);
    const std::uint32_t expected_back = facts.element == Element::int8 ? 0u : 0x80000000u;
    for (std::uint32_t bits : dequantize_both(q, 32, facts.element)) EXPECT_EQ(bits, expected_back);
  }
}

// A NaN or an infinity anywhere in a block: scale 0xFF and every element code 0, as
// microxcaling (its max|x| is NaN or infinite, so the shared exponent is NaN); dequantize
// gives the quiet NaN 0x7FC00000 for the whole block. The neighbouring blocks keep their
// own scales: block 0 {1, NaN, 2} -> NaN, block 1 {-inf, 3} -> NaN, block 2 {0.5, 1}:
// E4M3 floor(log2 1) - 8 = -8, code 0x77, elements 0.5 * 2^8 = 128 = 0b0'1110'000 = 0x70 and
// 256 = 0x78.
TEST(MxSpecialBlocks, NanAndInfinityBlocks) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const mx::Options options{4, ScaleRule::floor};
  const std::vector<float> in = {1.0f, nan, 2.0f, 0.0f, -inf, 3.0f, 0.0f, 0.0f, 0.5f, 1.0f};
  for (const mx_test::Facts& facts : mx_test::kFacts) {
    SCOPED_TRACE(facts.name);
    for (ScaleRule rule : {ScaleRule::floor, ScaleRule::rceil}) {
      const Quantized q = quantize_both(in, facts.element, {4, rule});
      EXPECT_EQ(q.scales[0], 0xFF);
      EXPECT_EQ(q.scales[1], 0xFF);
      EXPECT_NE(q.scales[2], 0xFF);
      const std::vector<std::uint32_t> codes = codes_of(q, in.size(), facts.element);
      for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(codes[i], 0u) << i;
      const std::vector<std::uint32_t> back = dequantize_both(q, in.size(), facts.element, {4, rule});
      for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(back[i], 0x7FC00000u) << i;
      EXPECT_EQ(back[8], bits_of(0.5f));
      EXPECT_EQ(back[9], bits_of(1.0f));
    }
  }
  const Quantized q = quantize_both(in, Element::fp8_e4m3, options);
  EXPECT_EQ(q.scales[2], 0x77);
  EXPECT_EQ(q.elements[8], 0x70);
  EXPECT_EQ(q.elements[9], 0x78);
  // A lone +inf, -inf or signalling NaN makes a NaN block as well.
  for (float special : {inf, -inf, from_bits(0x7F800001u), from_bits(0xFFC00000u)}) {
    const Quantized one = quantize_both({special, 1.0f}, Element::fp8_e5m2);
    EXPECT_EQ(one.scales[0], 0xFF);
    EXPECT_EQ(one.elements, (std::vector<std::uint8_t>{0, 0}));
  }
}

// Element specials on dequantize, E5M2 with scale 2^1 (0x80): infinity 0x7C stays +inf,
// 0xFC -inf; NaN 0x7E (quiet, mantissa 0b10) is the float NaN 0x7FC00000 and 0xFD
// (mantissa 0b01) the quiet NaN with that payload on top, 0xFFE00000; the largest finite
// 0x7B = 57344 times 2 = 114688. E4M3 NaN 0xFF (scale 2^0) is the negative quiet NaN.
TEST(MxSpecialBlocks, ElementSpecialsOnDequantize) {
  const Quantized e5m2{{0x7C, 0xFC, 0x7E, 0xFD, 0x7B}, {0x80}};
  EXPECT_EQ(dequantize_both(e5m2, 5, Element::fp8_e5m2),
            (std::vector<std::uint32_t>{0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFE00000u, bits_of(114688.0f)}));
  const Quantized e4m3{{0xFF, 0x7F}, {0x7F}};
  EXPECT_EQ(dequantize_both(e4m3, 2, Element::fp8_e4m3), (std::vector<std::uint32_t>{0xFFC00000u, 0x7FC00000u}));
}

// Scales at E8M0's ends.
//   Largest float 0x7F7FFFFF = (2 - 2^-23) * 2^127: floor(log2) = 127. E4M3: s = 119 (0xF6),
//   element (2 - 2^-23) * 2^8 > 448 clamps to 0x7E, back 448 * 2^119 = 1.75 * 2^127. MXINT8:
//   s = 127 (0xFE), (2 - 2^-23) * 64 rounds to 128 and clamps to 127, back 127 * 2^121.
//   Under ceil MXINT8 would need s = 128 (max|x| > 127/64 * 2^127): clamped to 127, the
//   element saturates the same way.
//   Tiny: the smallest subnormal 2^-149 gives s = -149 - 8 < -127, clamped to -127 (0x00);
//   2^-149 * 2^127 = 2^-22 is below half of E4M3's smallest subnormal 2^-9: element 0.
//   {2^-127, 2^-130} in E4M3: floor gives -135, clamped to -127: elements 1 = 0x38 and
//   2^-3 = 0x20, which dequantize exactly to the fp32 subnormals 2^-127 = 0x00400000 and
//   2^-130 = 0x00080000.
TEST(MxScaleExtremes, HugeAndTinyBlocks) {
  const float largest = std::numeric_limits<float>::max();
  Quantized q = quantize_both({largest, -1.0f}, Element::fp8_e4m3);
  EXPECT_EQ(q.scales[0], 0xF6);
  EXPECT_EQ(q.elements[0], 0x7E);
  EXPECT_EQ(dequantize_both(q, 2, Element::fp8_e4m3)[0], bits_of(0x1.cp127f));
  for (ScaleRule rule : {ScaleRule::floor, ScaleRule::rceil}) {
    q = quantize_both({largest, -largest}, Element::int8, {32, rule});
    EXPECT_EQ(q.scales[0], 0xFE);
    EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x7F, 0x81}));
    EXPECT_EQ(dequantize_both(q, 2, Element::int8, {32, rule})[0], bits_of(0x1.fcp127f));
  }
  q = quantize_both({0x1p-149f, -0x1p-149f}, Element::fp8_e4m3);
  EXPECT_EQ(q.scales[0], 0x00);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x00, 0x80}));
  q = quantize_both({0x1p-127f, 0x1p-130f}, Element::fp8_e4m3);
  EXPECT_EQ(q.scales[0], 0x00);
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x38, 0x20}));
  EXPECT_EQ(dequantize_both(q, 2, Element::fp8_e4m3), (std::vector<std::uint32_t>{0x00400000u, 0x00080000u}));
}

// Dequantize at the ends of fp32's range, E5M2: 57344 = 1.75 * 2^15 times 2^127 (0xFE)
// overflows to +inf; the smallest subnormal 2^-16 (0x01) times 2^-127 (0x00) is 2^-143 =
// 2^6 * 2^-149, the fp32 subnormal 0x00000040, exactly.
// Under the ceil rule a block whose max is fp32's largest float gets s = ceil(log2((2 -
// 2^-23) * 2^127 / 6)) = 126 in E2M1; the element (2 - 2^-23) * 2 rounds to 4 (0x6),
// and 4 * 2^126 = 2^128 is beyond fp32: the round trip overflows to +inf. (Under floor the
// element clamps to 6 and 6 * 2^125 = 1.5 * 2^127 stays finite.)
TEST(MxScaleExtremes, DequantizeOverflowAndSubnormals) {
  const Quantized q{{0x7B, 0x01, 0x81}, {0xFE}};
  EXPECT_EQ(dequantize_both(q, 1, Element::fp8_e5m2)[0], 0x7F800000u);
  const Quantized tiny{{0x01, 0x81}, {0x00}};
  EXPECT_EQ(dequantize_both(tiny, 2, Element::fp8_e5m2), (std::vector<std::uint32_t>{0x00000040u, 0x80000040u}));
  const float largest = std::numeric_limits<float>::max();
  Quantized ceil_q = quantize_both({largest}, Element::fp4_e2m1, {32, ScaleRule::rceil});
  EXPECT_EQ(ceil_q.scales[0], 126 + 127);
  EXPECT_EQ(ceil_q.elements[0], 0x06);
  EXPECT_EQ(dequantize_both(ceil_q, 1, Element::fp4_e2m1, {32, ScaleRule::rceil})[0], 0x7F800000u);
  Quantized floor_q = quantize_both({largest}, Element::fp4_e2m1);
  EXPECT_EQ(floor_q.scales[0], 125 + 127);
  EXPECT_EQ(floor_q.elements[0], 0x07);
  EXPECT_EQ(dequantize_both(floor_q, 1, Element::fp4_e2m1)[0], bits_of(0x1.8p127f));
}

// Packed layouts. E3M2 (bias 3), blocks of 4: {1, -2, 0.25, 28} has max 28 = 1.75 * 2^4,
// s = 4 - 4 = 0 (0x7F), codes 1 = 0b0'011'00 = 0x0C, -2 = 0b1'100'00 = 0x30, 0.25 =
// 0b0'001'00 = 0x04, 28 = 0b0'111'11 = 0x1F; the stream 0x0C | 0x30 << 6 | 0x04 << 12 |
// 0x1F << 18 = 0x7C4C0C gives the bytes 0x0C 0x4C 0x7C. The next block {2, -4, 0.5, 56} is
// the same times 2: s = 1 (0x80), the same three bytes. E2M1 with 5 values: 0x42 0x75 0x09
// (3 bytes, the high nibble of the last one zero).
TEST(MxLayout, PackedBytes) {
  const std::vector<float> in = {1.0f, -2.0f, 0.25f, 28.0f, 2.0f, -4.0f, 0.5f, 56.0f};
  const Quantized q = quantize_both(in, Element::fp6_e3m2, {4, ScaleRule::floor});
  EXPECT_EQ(q.scales, (std::vector<std::uint8_t>{0x7F, 0x80}));
  EXPECT_EQ(q.elements, (std::vector<std::uint8_t>{0x0C, 0x4C, 0x7C, 0x0C, 0x4C, 0x7C}));
  const std::vector<std::uint32_t> back = dequantize_both(q, in.size(), Element::fp6_e3m2, {4, ScaleRule::floor});
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(back[i], bits_of(in[i])) << i;
  const Quantized e2m1 = quantize_both({1.0f, 2.0f, 3.0f, 7.0f, -0.5f}, Element::fp4_e2m1);
  EXPECT_EQ(e2m1.elements, (std::vector<std::uint8_t>{0x42, 0x75, 0x09}));
  EXPECT_EQ(mx::element_bytes(Element::fp4_e2m1, 5), 3u);
  EXPECT_EQ(mx::element_bytes(Element::fp6_e2m3, 5), 4u);  // 30 bits
  EXPECT_EQ(mx::element_bytes(Element::fp6_e3m2, 8), 6u);
  EXPECT_EQ(mx::element_bytes(Element::fp8_e5m2, 5), 5u);
  EXPECT_EQ(mx::element_bytes(Element::int8, 5), 5u);
}

// Nothing beyond element_bytes(n) and scale_count(n) is written.
TEST(MxLayout, WritesOnlyItsBytes) {
  const std::vector<float> in = {1.0f, 2.0f, 3.0f, 7.0f, -0.5f, 4.0f, 5.0f};
  std::vector<std::uint8_t> elements(4 + 8, 0xA5), scales(2 + 8, 0xA5);
  mx::quantize(in.data(), in.size(), elements.data(), 4, scales.data(), 2, Element::fp4_e2m1, {4, ScaleRule::floor});
  for (std::size_t b = 4; b < elements.size(); ++b) EXPECT_EQ(elements[b], 0xA5);
  for (std::size_t b = 2; b < scales.size(); ++b) EXPECT_EQ(scales[b], 0xA5);
  EXPECT_EQ(elements[3] >> 4, 0);  // the unused high nibble of the last byte
  std::vector<float> out(in.size() + 4, 42.0f);
  mx::dequantize(elements.data(), 4, scales.data(), 2, in.size(), out.data(), Element::fp4_e2m1,
                 {4, ScaleRule::floor});
  for (std::size_t i = in.size(); i < out.size(); ++i) EXPECT_EQ(out[i], 42.0f);
}

// 37 values in blocks of 32: the last block holds 5 values and gets its own scale.
// Block 0: 32 times 1.0 (s = 0 - 8 = -8, 0x77); block 1: {96, 1, 2, 3, 4}, floor(log2 96)
// = 6, s = -2 (0x7D), elements 384 = 1.5 * 2^8 = 0b0'1111'100 = 0x7C, 4 = 0x48, 8 = 0x50,
// 12 = 0x54, 16 = 0x58.
TEST(MxLayout, LastPartialBlock) {
  std::vector<float> in(32, 1.0f);
  for (float v : {96.0f, 1.0f, 2.0f, 3.0f, 4.0f}) in.push_back(v);
  const Quantized q = quantize_both(in, Element::fp8_e4m3);
  EXPECT_EQ(q.scales, (std::vector<std::uint8_t>{0x77, 0x7D}));
  EXPECT_EQ(std::vector<std::uint8_t>(q.elements.begin() + 32, q.elements.end()),
            (std::vector<std::uint8_t>{0x7C, 0x48, 0x50, 0x54, 0x58}));
  const std::vector<std::uint32_t> back = dequantize_both(q, in.size(), Element::fp8_e4m3);
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(back[i], bits_of(in[i])) << i;
  EXPECT_EQ(mx::scale_count(37), 2u);
  EXPECT_EQ(mx::scale_count(64), 2u);
  EXPECT_EQ(mx::scale_count(0), 0u);
}

TEST(MxNames, NamesAndFacts) {
  for (const mx_test::Facts& facts : mx_test::kFacts) {
    EXPECT_EQ(mx::element_name(facts.element), facts.name);
    EXPECT_EQ(mx::parse_element(facts.name), facts.element);
    EXPECT_EQ(mx::element_bits(facts.element), facts.bits);
    EXPECT_EQ(mx::element_max_exponent(facts.element), facts.emax);
  }
  EXPECT_EQ(mx::parse_element("MXFP4_E2M1"), Element::fp4_e2m1);
  EXPECT_THROW(mx::parse_element("mxfp4"), std::invalid_argument);
  EXPECT_THROW(mx::parse_element(""), std::invalid_argument);
}

TEST(MxArguments, BadArgumentsThrow) {
  std::vector<float> in(8, 1.0f), out(8);
  std::vector<std::uint8_t> elements(8), scales(8);
  auto quantize = [&](const float* x, std::size_t n, std::uint8_t* e, std::size_t e_bytes, std::uint8_t* s,
                      std::size_t s_count, Element element, mx::Options options) {
    EXPECT_THROW(mx::quantize(x, n, e, e_bytes, s, s_count, element, options), std::invalid_argument);
    EXPECT_THROW(mx::scalar_quantize(x, n, e, e_bytes, s, s_count, element, options), std::invalid_argument);
  };
  quantize(nullptr, 8, elements.data(), 8, scales.data(), 8, Element::fp8_e4m3, {});
  quantize(in.data(), 8, nullptr, 8, scales.data(), 8, Element::fp8_e4m3, {});
  quantize(in.data(), 8, elements.data(), 8, nullptr, 8, Element::fp8_e4m3, {});
  quantize(in.data(), 8, elements.data(), 7, scales.data(), 8, Element::fp8_e4m3, {});   // 8 bytes needed
  quantize(in.data(), 8, elements.data(), 3, scales.data(), 8, Element::fp4_e2m1, {});   // 4 bytes needed
  quantize(in.data(), 8, elements.data(), 8, scales.data(), 1, Element::fp8_e4m3, {4});  // 2 scales needed
  quantize(in.data(), 8, elements.data(), 8, scales.data(), 8, Element::fp8_e4m3, {0});
  quantize(in.data(), 8, elements.data(), 8, scales.data(), 8, Element::fp4_e2m1, {3});  // not a multiple of 2
  quantize(in.data(), 8, elements.data(), 8, scales.data(), 8, Element::fp6_e3m2, {6});  // not a multiple of 4
  quantize(in.data(), 8, elements.data(), 8, scales.data(), 8, Element(17), {});
  auto dequantize = [&](const std::uint8_t* e, std::size_t e_bytes, const std::uint8_t* s, std::size_t s_count,
                        std::size_t n, float* y, Element element, mx::Options options) {
    EXPECT_THROW(mx::dequantize(e, e_bytes, s, s_count, n, y, element, options), std::invalid_argument);
    EXPECT_THROW(mx::scalar_dequantize(e, e_bytes, s, s_count, n, y, element, options), std::invalid_argument);
  };
  dequantize(nullptr, 8, scales.data(), 8, 8, out.data(), Element::int8, {});
  dequantize(elements.data(), 8, scales.data(), 8, 8, nullptr, Element::int8, {});
  dequantize(elements.data(), 5, scales.data(), 8, 8, out.data(), Element::fp6_e2m3, {});  // 6 bytes needed
  dequantize(elements.data(), 8, scales.data(), 8, 8, out.data(), Element::fp6_e2m3, {2});
  EXPECT_THROW(mx::scale_count(5, {0}), std::invalid_argument);
  // The message names the problem.
  try {
    mx::quantize(in.data(), 8, elements.data(), 8, scales.data(), 8, Element::fp4_e2m1, {3});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 2"), std::string::npos) << e.what();
  }
  // n = 0 with null pointers is fine.
  EXPECT_NO_THROW(mx::quantize(nullptr, 0, nullptr, 0, nullptr, 0, Element::fp8_e4m3));
  EXPECT_NO_THROW(mx::dequantize(nullptr, 0, nullptr, 0, 0, nullptr, Element::fp8_e4m3));
}

// The span forms take their sizes from the spans.
TEST(MxArguments, SpanForms) {
  const std::vector<float> in = padded({1.0f, 2.0f, 3.0f, 7.0f, -0.5f}, 32);
  std::vector<std::uint8_t> elements(16), scales(1);
  mx::quantize(std::span<const float>(in), std::span<std::uint8_t>(elements), std::span<std::uint8_t>(scales),
               Element::fp4_e2m1);
  EXPECT_EQ(scales[0], 0x7F);
  EXPECT_EQ(elements[0], 0x42);
  std::vector<float> out(32);
  mx::dequantize(std::span<const std::uint8_t>(elements), std::span<const std::uint8_t>(scales),
                 std::span<float>(out), Element::fp4_e2m1);
  EXPECT_EQ(out[3], 6.0f);
  std::vector<std::uint8_t> short_elements(15);
  EXPECT_THROW(mx::quantize(std::span<const float>(in), std::span<std::uint8_t>(short_elements),
                            std::span<std::uint8_t>(scales), Element::fp4_e2m1),
               std::invalid_argument);
}

}  // namespace
}  // namespace softfloat
