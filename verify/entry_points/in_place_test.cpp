// In-place calls (out == in): allowed where input and output elements have one size
// (float <-> uint32_t codes, float -> float) and then bit for bit the out-of-place result
// (itself checked against the scalar definition in verify/simd and verify/block_formats); refused,
// naming the function, wherever the sizes differ or the ranges overlap otherwise.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "softfloat/format_spec.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/mx_matmul.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"
#include "softfloat/threads.hpp"
#include "verify/common/expect_invalid.hpp"
#include "verify/common/rounding_modes.hpp"

namespace softfloat {
namespace {

using verify::expect_invalid;

// Random bit patterns (NaN payloads, subnormals, infinities among them) and the values
// near 1 where rounding decides; 2^18 of them, so that two threads share the call.
std::vector<float> inputs() {
  std::vector<float> x(std::size_t{1} << 18);
  std::mt19937 random(19);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = i % 2 == 0 ? std::bit_cast<float>(std::uint32_t(random())) : 1.0f + float(i % 1000) / 997.0f;
  return x;
}

std::vector<std::uint32_t> bits_of(const std::vector<float>& x) {
  std::vector<std::uint32_t> bits(x.size());
  std::memcpy(bits.data(), x.data(), x.size() * sizeof(float));
  return bits;
}

class InPlace : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(1); }
};

TEST_P(InPlace, FloatToUint32CodesAndBack) {
  const std::vector<float> x = inputs();
  for (const char* spec : {"fp32", "bf16", "tf32", "fp16", "e4m3", "e8m0", "e5m10:fnuz"}) {
    SCOPED_TRACE(spec);
    const Format format = parse_format(spec);
    for (Rounding mode : {Rounding::nearest_even, Rounding::odd, Rounding::stochastic}) {
      const RandomStream random{7, 3};
      std::vector<std::uint32_t> expected(x.size());
      simd::quantize(x.data(), x.size(), expected.data(), format, mode, Overflow::standard, random);
      std::vector<float> buffer = x;
      auto* codes = reinterpret_cast<std::uint32_t*>(buffer.data());  // float and uint32_t share the memory
      simd::quantize(buffer.data(), buffer.size(), codes, format, mode, Overflow::standard, random);
      ASSERT_EQ(std::memcmp(codes, expected.data(), x.size() * 4), 0) << rounding_name(mode);
      std::vector<float> decoded(x.size());
      simd::dequantize(expected.data(), expected.size(), decoded.data(), format);
      simd::dequantize(codes, buffer.size(), buffer.data(), format);
      ASSERT_EQ(bits_of(buffer), bits_of(decoded));
    }
  }
}

TEST_P(InPlace, RoundTrip) {
  const std::vector<float> x = inputs();
  for (const char* spec : {"fp32", "bf16", "fp16", "e4m3", "e5m2", "e2m1", "e3m2:finite", "e8m0", "p3109_8p3"}) {
    SCOPED_TRACE(spec);
    const Format format = parse_format(spec);
    for (Overflow policy : test_support::kOverflowPolicies) {
      std::vector<float> expected(x.size()), buffer = x;
      simd::round_trip(x.data(), x.size(), expected.data(), format, Rounding::nearest_even, policy);
      simd::round_trip(buffer.data(), buffer.size(), buffer.data(), format, Rounding::nearest_even, policy);
      ASSERT_EQ(bits_of(buffer), bits_of(expected));
    }
  }
}

TEST_P(InPlace, BlockScalingRoundTrip) {
  const std::vector<float> x = inputs();
  for (mx::Element element : mx::kAllElements) {
    SCOPED_TRACE(mx::element_name(element));
    std::vector<float> expected(x.size()), buffer = x;
    mx::round_trip(x.data(), x.size(), expected.data(), element);
    mx::round_trip(buffer.data(), buffer.size(), buffer.data(), element);
    ASSERT_EQ(bits_of(buffer), bits_of(expected));
    const std::size_t few = 31 * 32;  // whole blocks: the scalar definition is slow
    std::vector<float> scalar(x.begin(), x.begin() + few);
    mx::scalar_round_trip(scalar.data(), few, scalar.data(), element);
    const std::vector<std::uint32_t> expected_bits = bits_of(expected);
    EXPECT_EQ(bits_of(scalar), std::vector<std::uint32_t>(expected_bits.begin(), expected_bits.begin() + few));
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, InPlace, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "_threads";
                         });

// Outputs of another element size over the input, and shifted ranges: refused.
TEST(InPlaceRefused, ArrayConversions) {
  std::vector<float> x(64, 1.5f);
  auto* bytes = reinterpret_cast<std::uint8_t*>(x.data());
  auto* halves = reinterpret_cast<std::uint16_t*>(x.data());
  expect_invalid([&] { simd::quantize(x.data(), 64, bytes, E4M3::format); },
                 "softfloat::simd::quantize: the output overlaps the input");
  expect_invalid([&] { simd::quantize(x.data(), 64, bytes, E4M3::format); }, "allowed only where the two sizes match");
  expect_invalid([&] { simd::quantize(x.data(), 64, halves + 1, BF16::format); }, "softfloat::simd::quantize: ");
  expect_invalid([&] { simd::dequantize(halves + 32, 32, x.data(), BF16::format); },
                 "softfloat::simd::dequantize: the output overlaps the input");
  expect_invalid([&] { simd::round_trip(x.data(), 32, x.data() + 1, BF16::format); },
                 "softfloat::simd::round_trip: the output overlaps the input without starting at it");
  expect_invalid([&] { simd::round_trip(x.data() + 1, 32, x.data(), BF16::format); }, "without starting at it");
  std::vector<double> wide(8, 1.0);
  expect_invalid([&] { simd::quantize(wide.data(), 8, reinterpret_cast<std::uint32_t*>(wide.data()), FP32::format); },
                 "softfloat::simd::quantize: the output overlaps the input");
  expect_invalid([&] { simd::quantize_packed(x.data(), 64, bytes + 8, 32, E2M1::format); },
                 "softfloat::simd::quantize_packed: the float array and the packed buffer overlap");
  expect_invalid([&] { simd::dequantize_packed(bytes + 100, 32, 50, x.data(), E2M1::format); },
                 "softfloat::simd::dequantize_packed: the float array and the packed buffer overlap");
  // Adjacent but separate: fine.
  std::vector<float> both(128, 0.5f);
  EXPECT_NO_THROW(simd::round_trip(both.data(), 64, both.data() + 64, BF16::format));
  EXPECT_EQ(both[64], 0.5f);
}

TEST(InPlaceRefused, BlockScaling) {
  std::vector<float> x(64, 1.5f);
  std::vector<std::uint8_t> elements(64), scales(4);
  auto* bytes = reinterpret_cast<std::uint8_t*>(x.data());
  const mx::Element e = mx::Element::fp8_e4m3;
  expect_invalid([&] { mx::quantize(x.data(), 64, bytes, 64, scales.data(), 2, e); },
                 "softfloat::mx::quantize: the float array and the elements overlap");
  expect_invalid([&] { mx::scalar_quantize(x.data(), 64, elements.data(), 64, bytes + 255, 2, e); },
                 "softfloat::mx::scalar_quantize: the float array and the scales overlap");
  expect_invalid([&] { mx::quantize(x.data(), 64, elements.data(), 64, elements.data() + 63, 2, e); },
                 "softfloat::mx::quantize: the elements and the scales overlap");
  expect_invalid([&] { mx::dequantize(bytes, 64, scales.data(), 2, 64, x.data(), e); },
                 "softfloat::mx::dequantize: the float array and the elements overlap");
  expect_invalid([&] { mx::round_trip(x.data(), 32, x.data() + 16, e); },
                 "softfloat::mx::round_trip: the output overlaps the input without starting at it");
  float amax = 0;
  expect_invalid([&] { nvfp4::quantize(x.data(), 64, elements.data(), 32, scales.data(), 4, x.data() + 5); },
                 "softfloat::nvfp4::quantize: the tensor_amax and the float array overlap");
  expect_invalid([&] { nvfp4::quantize(x.data(), 64, bytes + 4, 32, scales.data(), 4, &amax); },
                 "softfloat::nvfp4::quantize: the float array and the elements overlap");
  expect_invalid([&] { nvfp4::scalar_dequantize(elements.data(), 32, elements.data() + 31, 4, 1.0f, 64, x.data()); },
                 "softfloat::nvfp4::scalar_dequantize: the elements and the scales overlap");
}

// C is written while A and B are read: no overlap at all, whatever the sizes.
TEST(InPlaceRefused, MatrixMultiply) {
  std::vector<std::uint32_t> a(16, 0x3F800000u), b(16, 0x3F800000u);  // fp32 1.0
  auto* c_over_a = reinterpret_cast<float*>(a.data());
  expect_invalid([&] { matmul(a.data(), FP32::format, b.data(), FP32::format, c_over_a, 4, 4, 4); },
                 "softfloat::matmul: the C and the A overlap");
  expect_invalid([&] { matmul(a.data(), FP32::format, b.data(), FP32::format, reinterpret_cast<float*>(b.data()) + 3,
                              2, 2, 2); },
                 "softfloat::matmul: the C and the B overlap");
  std::vector<float> c(16);
  matmul(a.data(), FP32::format, b.data(), FP32::format, c.data(), 4, 4, 4);
  EXPECT_EQ(c[15], 4.0f);  // four products 1 * 1
  std::vector<std::uint8_t> elements(64), scales(8);
  const MxOperand operand{elements.data(), 32, scales.data(), 2, mx::Element::fp4_e2m1};
  expect_invalid([&] { mx_matmul(operand, operand, reinterpret_cast<float*>(elements.data()), 2, 2, 32); },
                 "softfloat::mx_matmul: the C and the A's elements overlap");
  expect_invalid([&] { mx_matmul(operand, operand, reinterpret_cast<float*>(scales.data()), 1, 1, 32); },
                 "softfloat::mx_matmul: the C and the A's scales overlap");
}

}  // namespace
}  // namespace softfloat
