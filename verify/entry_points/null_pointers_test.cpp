// Null pointers with n > 0, block sizes of 0 or not dividing the packing, unknown kinds:
// at every array entry point a std::invalid_argument whose message names the function
// (and, for the block size, what it accepts). n = 0 with null pointers is a valid empty call.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "softfloat/matmul.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/mx_matmul.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"
#include "verify/common/expect_invalid.hpp"

namespace softfloat {
namespace {

using verify::expect_invalid;

TEST(NullPointers, ArrayConversions) {
  float values[4] = {};
  std::uint8_t codes[4] = {};
  const float* no_values = nullptr;
  std::uint8_t* no_codes = nullptr;
  expect_invalid([&] { simd::quantize(no_values, 4, codes, E4M3::format); }, "softfloat::simd::quantize: null");
  expect_invalid([&] { simd::quantize(values, 4, no_codes, E4M3::format); }, "softfloat::simd::quantize: null");
  expect_invalid([&] { simd::quantize(static_cast<const double*>(nullptr), 4, codes, E4M3::format); },
                 "softfloat::simd::quantize: null");
  expect_invalid([&] { simd::dequantize(static_cast<const std::uint8_t*>(nullptr), 4, values, E4M3::format); },
                 "softfloat::simd::dequantize: null");
  expect_invalid([&] { simd::dequantize(codes, 4, static_cast<float*>(nullptr), E4M3::format); },
                 "softfloat::simd::dequantize: null");
  expect_invalid([&] { simd::round_trip(no_values, 4, values, E4M3::format); }, "softfloat::simd::round_trip: null");
  expect_invalid([&] { simd::quantize_packed(no_values, 4, codes, 2, E2M1::format); },
                 "softfloat::simd::quantize_packed: null");
  expect_invalid([&] { simd::dequantize_packed(nullptr, 2, 4, values, E2M1::format); },
                 "softfloat::simd::dequantize_packed: null");
  // n = 0: nothing to read or write, so null is fine.
  EXPECT_NO_THROW(simd::quantize(no_values, 0, no_codes, E4M3::format));
  EXPECT_NO_THROW(simd::round_trip(nullptr, 0, nullptr, E4M3::format));
  EXPECT_NO_THROW(simd::quantize_packed(nullptr, 0, nullptr, 0, E2M1::format));
}

TEST(NullPointers, BlockScaling) {
  std::vector<float> values(32);
  std::vector<std::uint8_t> elements(32), scales(2);
  const mx::Element e = mx::Element::fp8_e4m3;
  const auto check_quantize = [&](auto quantize, const char* name) {
    expect_invalid([&] { quantize(nullptr, 32, elements.data(), 32, scales.data(), 1, e, mx::Options{}); }, name);
    expect_invalid([&] { quantize(values.data(), 32, nullptr, 32, scales.data(), 1, e, mx::Options{}); }, name);
    expect_invalid([&] { quantize(values.data(), 32, elements.data(), 32, nullptr, 1, e, mx::Options{}); }, name);
  };
  check_quantize([](auto... arguments) { mx::quantize(arguments...); }, "softfloat::mx::quantize: null");
  check_quantize([](auto... arguments) { mx::scalar_quantize(arguments...); }, "softfloat::mx::scalar_quantize: null");
  expect_invalid([&] { mx::dequantize(nullptr, 32, scales.data(), 1, 32, values.data(), e); },
                 "softfloat::mx::dequantize: null");
  expect_invalid([&] { mx::scalar_dequantize(elements.data(), 32, scales.data(), 1, 32, nullptr, e); },
                 "softfloat::mx::scalar_dequantize: null");
  expect_invalid([&] { mx::round_trip(nullptr, 32, values.data(), e); }, "softfloat::mx::round_trip: null");
  expect_invalid([&] { mx::scalar_round_trip(values.data(), 32, nullptr, e); },
                 "softfloat::mx::scalar_round_trip: null");
  expect_invalid([&] { (void)mx::block_scale(nullptr, 32, e); }, "softfloat::mx::block_scale: null");
  float amax = 0;
  expect_invalid([&] { nvfp4::quantize(nullptr, 16, elements.data(), 8, scales.data(), 1, &amax); },
                 "softfloat::nvfp4::quantize: null");
  expect_invalid([&] { nvfp4::quantize(values.data(), 16, elements.data(), 8, scales.data(), 1, nullptr); },
                 "softfloat::nvfp4::quantize: tensor_amax is a null pointer");
  expect_invalid([&] { nvfp4::scalar_dequantize(elements.data(), 8, nullptr, 1, 1.0f, 16, values.data()); },
                 "softfloat::nvfp4::scalar_dequantize: null");
}

TEST(NullPointers, MatrixMultiply) {
  std::vector<std::uint8_t> a(4), b(4);
  std::vector<float> c(4);
  expect_invalid([&] { matmul<E4M3, E4M3>(nullptr, b.data(), c.data(), 2, 2, 2); }, "softfloat::matmul: A is null");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), nullptr, c.data(), 2, 2, 2); }, "softfloat::matmul: B is null");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), b.data(), nullptr, 2, 2, 2); }, "softfloat::matmul: C is null");
  std::vector<std::uint8_t> elements(32), scales(2);
  const MxOperand operand{elements.data(), 16, scales.data(), 1, mx::Element::fp4_e2m1};
  const MxOperand no_elements{nullptr, 16, scales.data(), 1, mx::Element::fp4_e2m1};
  expect_invalid([&] { mx_matmul(no_elements, operand, c.data(), 1, 1, 32); },
                 "softfloat::mx_matmul: A: the element pointer is null");
  expect_invalid([&] { mx_matmul(operand, operand, nullptr, 1, 1, 32); }, "softfloat::mx_matmul: the pointer to C");
}

// Block sizes: 0 everywhere; for the packed kinds, a size that would split a byte.
TEST(BlockSizes, ZeroOrSplittingAByteIsRefused) {
  std::vector<float> values(64);
  std::vector<std::uint8_t> elements(64), scales(64);
  mx::Options zero;
  zero.block_size = 0;
  expect_invalid([&] { (void)mx::scale_count(64, zero); }, "softfloat::mx::scale_count: block size 0");
  expect_invalid(
      [&] { mx::quantize(values.data(), 64, elements.data(), 64, scales.data(), 64, mx::Element::int8, zero); },
      "softfloat::mx::quantize: block size 0");
  expect_invalid([&] { mx::round_trip(values.data(), 64, values.data(), mx::Element::int8, zero); },
                 "softfloat::mx::round_trip: block size 0");
  for (auto [element, block, multiple] : {std::tuple{mx::Element::fp4_e2m1, 3, "multiple of 2"},
                                         std::tuple{mx::Element::fp6_e2m3, 6, "multiple of 4"},
                                         std::tuple{mx::Element::fp6_e3m2, 2, "multiple of 4"}}) {
    mx::Options options;
    options.block_size = std::size_t(block);
    SCOPED_TRACE(mx::element_name(element));
    expect_invalid([&] { mx::quantize(values.data(), 64, elements.data(), 64, scales.data(), 64, element, options); },
                   "softfloat::mx::quantize: ");
    expect_invalid([&] { mx::quantize(values.data(), 64, elements.data(), 64, scales.data(), 64, element, options); },
                   multiple);
    expect_invalid([&] { mx::dequantize(elements.data(), 64, scales.data(), 64, 64, values.data(), element, options); },
                   "softfloat::mx::dequantize: ");
    expect_invalid([&] { mx::scalar_round_trip(values.data(), 64, values.data(), element, options); }, multiple);
  }
  // Any block size of the 8-bit kinds divides a byte: 3 is valid there and tested
  // against the scalar definition in verify/block_formats.
  mx::Options three;
  three.block_size = 3;
  EXPECT_NO_THROW(mx::round_trip(values.data(), 64, values.data(), mx::Element::fp8_e4m3, three));
}

TEST(ElementKinds, UnknownKindIsRefusedByName) {
  const auto unknown = mx::Element(17);
  expect_invalid([&] { (void)mx::element_bytes(unknown, 4); }, "softfloat::mx::element_bytes: unknown element kind 17");
  expect_invalid([&] { (void)mx::element_name(unknown); }, "softfloat::mx::element_name");
  expect_invalid([&] { (void)mx::parse_element("mxfp5"); }, "softfloat::mx::parse_element");
  float x = 0;
  expect_invalid([&] { mx::round_trip(&x, 1, &x, unknown); }, "softfloat::mx::round_trip: unknown element kind");
  expect_invalid([&] { (void)mx_matmul_path(unknown, mx::Element::int8, 1, 1, 32); }, "softfloat::mx_matmul: A");
}

}  // namespace
}  // namespace softfloat
