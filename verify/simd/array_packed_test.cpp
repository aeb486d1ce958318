// Densely packed 4- and 6-bit arrays (softfloat::simd::quantize_packed / dequantize_packed).
// The layout is pinned by hand-worked bytes; other lengths are compared with a bit
// stream written independently, one bit at a time (verify/common/packed_bit_stream.hpp).
// Codes come from round_to_format(), the scalar routine verify/conversion checks
// against MPFR.
#include <gtest/gtest.h>
#include <hwy/tests/hwy_gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/common/expect_invalid.hpp"
#include "verify/common/packed_bit_stream.hpp"
#include "verify/common/format_lists.hpp"

namespace softfloat {
namespace {

using test_support::pack_codes;
using verify::expect_invalid;

std::uint32_t scalar_code(float x, const Format& f) { return std::uint32_t(round_to_format(decode(x), f)); }
std::uint32_t scalar_float_bits(std::uint32_t code, const Format& f) {
  return std::uint32_t(round_to_format(decode(code, f), binary32_format));
}

// The formats of at most 6 bits, which pack densely.
struct Packed {
  std::string name;
  Format format;
};
std::vector<Packed> packed_formats() {
  std::vector<Packed> list;
  for (const Format& f : test_formats::formats_of(test_formats::SmallFormats{})) list.push_back({format_name(f), f});
  return list;
}

// E2M1 (bias 1): 1.0 = 0b0'01'0 = 0x2; -0.5 = the subnormal 1 * 2^(0 - 1), 0b1'00'1 = 0x9.
// Element 0 is the low nibble: 0x9 << 4 | 0x2 = 0x92. With a third value 6.0 = 1.5 * 2^2
// = 0b0'11'1 = 0x7, the second byte is 0x07 (its high nibble unused, zero).
TEST(PackedLayout, E2M1HandWorked) {
  const float in[3] = {1.0f, -0.5f, 6.0f};
  std::uint8_t out[3] = {0xA5, 0xA5, 0xA5};
  simd::quantize_packed<E2M1>(in, 3, out, 2);
  EXPECT_EQ(out[0], 0x92);
  EXPECT_EQ(out[1], 0x07);
  EXPECT_EQ(out[2], 0xA5);  // beyond packed_size(3) = 2
  float back[3];
  simd::dequantize_packed<E2M1>(out, 2, 3, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -0.5f);
  EXPECT_EQ(back[2], 6.0f);
}

// E3M2 (bias 3): 1.0 = 0b0'011'00 = 0x0C; -2.0 = 0b1'100'00 = 0x30; 0.25 = 2^-2 =
// 0b0'001'00 = 0x04; 28 = 1.75 * 2^4 = 0b0'111'11 = 0x1F (the largest value).
// v = 0x0C | 0x30 << 6 | 0x04 << 12 | 0x1F << 18 = 0x0C + 0xC00 + 0x4000 + 0x7C0000 = 0x7C4C0C,
// so the bytes are 0x0C, 0x4C, 0x7C.
TEST(PackedLayout, E3M2HandWorked) {
  const float in[4] = {1.0f, -2.0f, 0.25f, 28.0f};
  std::uint8_t out[4] = {0xA5, 0xA5, 0xA5, 0xA5};
  simd::quantize_packed<E3M2>(in, 4, out, 3);
  EXPECT_EQ(out[0], 0x0C);
  EXPECT_EQ(out[1], 0x4C);
  EXPECT_EQ(out[2], 0x7C);
  EXPECT_EQ(out[3], 0xA5);
  float back[4];
  simd::dequantize_packed<E3M2>(out, 3, 4, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(back[2], 0.25f);
  EXPECT_EQ(back[3], 28.0f);
}

// E2M3 (bias 1): -7.5 = -1.875 * 2^2 = 0b1'11'111 = 0x3F; 0.125 = the subnormal
// 1 * 2^(0 - 3) = 0x01; 1.0 = 0b0'01'000 = 0x08. Three codes take 18 bits, 3 bytes:
// v = 0x3F | 0x01 << 6 | 0x08 << 12 = 0x807F -> 0x7F, 0x80, 0x00 (bits 18..23 unused).
// Two codes take 12 bits, 2 bytes: 0x7F, 0x00.
TEST(PackedLayout, E2M3HandWorked) {
  const float in[3] = {-7.5f, 0.125f, 1.0f};
  std::uint8_t out[4] = {0xA5, 0xA5, 0xA5, 0xA5};
  simd::quantize_packed<E2M3>(in, 3, out, 3);
  EXPECT_EQ(out[0], 0x7F);
  EXPECT_EQ(out[1], 0x80);
  EXPECT_EQ(out[2], 0x00);
  EXPECT_EQ(out[3], 0xA5);
  std::uint8_t two[3] = {0xA5, 0xA5, 0xA5};
  simd::quantize_packed<E2M3>(in, 2, two, 2);
  EXPECT_EQ(two[0], 0x7F);
  EXPECT_EQ(two[1], 0x00);
  EXPECT_EQ(two[2], 0xA5);
}

// ceil(4n / 8) and ceil(6n / 8) bytes.
TEST(PackedLayout, PackedSize) {
  EXPECT_EQ(simd::packed_size<E2M1>(0), 0u);
  EXPECT_EQ(simd::packed_size<E2M1>(1), 1u);
  EXPECT_EQ(simd::packed_size<E2M1>(5), 3u);
  EXPECT_EQ(simd::packed_size<E2M1>(1001), 501u);
  EXPECT_EQ(simd::packed_size<E3M2>(1), 1u);  // 6 bits
  EXPECT_EQ(simd::packed_size<E3M2>(2), 2u);  // 12 bits
  EXPECT_EQ(simd::packed_size<E3M2>(3), 3u);  // 18 bits
  EXPECT_EQ(simd::packed_size<E2M3>(4), 3u);  // 24 bits
  EXPECT_EQ(simd::packed_size<E2M3>(5), 4u);  // 30 bits
  EXPECT_EQ(simd::packed_size<E2M3>(7), 6u);  // 42 bits
  EXPECT_EQ(simd::packed_size(E3M2::format, 1001), 751u);  // 6006 bits = 750.75 bytes
}

// One case per target (Highway's hwy/tests/hwy_gtest.h): PackedEveryTargetGroup/
// PackedEveryTarget.<test>/<target>.
class PackedEveryTarget : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(PackedEveryTarget);

// Every code, packed by pack_codes, unpacks to its scalar value and packs back to
// the same bytes (these formats have no NaN, so every code is its own value's code).

TEST_P(PackedEveryTarget, EveryCodeRoundTrips) {
  for (const Packed& p : packed_formats()) {
    const int width = p.format.total_bits();
    std::vector<std::uint32_t> codes;
    for (std::uint32_t c = 0; c < (1u << width); ++c) codes.push_back(c);
    const std::vector<std::uint8_t> packed = pack_codes(codes, width);
    std::vector<float> values(codes.size());
    simd::dequantize_packed(packed.data(), packed.size(), codes.size(), values.data(), p.format);
    for (std::uint32_t c : codes)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(values[c]), scalar_float_bits(c, p.format)) << p.name << " code " << c;
    std::vector<std::uint8_t> again(packed.size());
    simd::quantize_packed(values.data(), values.size(), again.data(), again.size(), p.format);
    EXPECT_EQ(again, packed) << p.name;
  }
}

// Random floats over each format's range (and beyond it) at many lengths, with guard
// bytes after packed_size(n) that must stay untouched in both directions.
TEST_P(PackedEveryTarget, LengthsMatchReferenceWithGuardBytes) {
  std::mt19937 rng(7);
  for (const Packed& p : packed_formats()) {
    const int width = p.format.total_bits();
    std::uniform_real_distribution<float> spread(-40.0f, 40.0f);
    for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 31u, 32u, 33u, 48u, 64u, 1001u, 4096u + 5u, 3u * 4096u + 2u}) {
      std::vector<float> in(n);
      for (float& x : in) x = spread(rng) / float(1 << (rng() % 6));
      std::vector<std::uint32_t> codes(n);
      for (std::size_t i = 0; i < n; ++i) codes[i] = scalar_code(in[i], p.format);
      const std::vector<std::uint8_t> expected = pack_codes(codes, width);
      const std::size_t bytes = simd::packed_size(p.format, n);
      ASSERT_EQ(bytes, expected.size()) << p.name << " n " << n;
      constexpr std::size_t kGuard = 8;
      std::vector<std::uint8_t> out(bytes + kGuard, 0xA5);
      simd::quantize_packed(in.data(), n, out.data(), bytes, p.format);
      for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(out[i], expected[i]) << p.name << " n " << n << " byte " << i;
      for (std::size_t i = bytes; i < out.size(); ++i) EXPECT_EQ(out[i], 0xA5) << p.name << " n " << n;
      std::vector<float> back(n + kGuard, 1234.5f);
      simd::dequantize_packed(out.data(), bytes, n, back.data(), p.format);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(back[i]), scalar_float_bits(codes[i], p.format)) << p.name << " " << i;
      for (std::size_t i = n; i < back.size(); ++i) EXPECT_EQ(back[i], 1234.5f) << p.name << " n " << n;
    }
  }
}

// The runtime overload's rounding and overflow reach the packing. E2M1: 0.3 lies
// between 0 and 0.5 (codes 0 and 1), 5.5 between 4 = 0b0'11'0 (0x6) and 6 = 0b0'11'1
// (0x7, the largest value). Toward zero: 0 and, saturating, 100 -> 6; up: 0.5 and 6.
TEST(PackedRounding, ModesReachThePacking) {
  const float saturating[2] = {0.3f, 100.0f};
  std::uint8_t out = 0;
  simd::quantize_packed(saturating, 2, &out, 1, E2M1::format, Rounding::toward_zero, Overflow::saturate);
  EXPECT_EQ(out, 0x70);
  const float between[2] = {0.3f, 5.5f};
  simd::quantize_packed(between, 2, &out, 1, E2M1::format, Rounding::up);
  EXPECT_EQ(out, 0x71);
  simd::quantize_packed(between, 2, &out, 1, E2M1::format, Rounding::toward_zero);
  EXPECT_EQ(out, 0x60);
}

TEST(PackedErrors, BadArgumentsThrowWithAMessage) {
  float in[5] = {};
  std::uint8_t out[8] = {};
  expect_invalid([&] { simd::quantize_packed<E2M1>(in, 5, out, 2); }, "need 3 bytes");
  expect_invalid([&] { simd::quantize_packed<E3M2>(in, 5, out, 3); }, "need 4 bytes");
  expect_invalid([&] { simd::dequantize_packed<E2M3>(out, 3, 5, in); }, "need 4 bytes");
  expect_invalid([&] { simd::quantize_packed(in, 5, out, 8, E4M3::format); }, "8 bits");
  expect_invalid([&] { simd::dequantize_packed(out, 8, 5, in, FP16::format); }, "16 bits");
  expect_invalid([&] { (void)simd::packed_size(E5M2::format, 1); }, "4-bit");
  expect_invalid([&] { simd::quantize_packed<E2M1>(nullptr, 5, out, 8); }, "null pointer");
  EXPECT_NO_THROW(simd::quantize_packed<E2M1>(nullptr, 0, nullptr, 0));
}

}  // namespace
}  // namespace softfloat
