// Codes that do not fit their format. The runtime operations on codes
// (softfloat::runtime::add ... negate) refuse a code with bits above the format's width,
// naming the function; every code that fits is accepted and gives the typed operator's
// result. (The array functions' codes: simd::dequantize reads only the format's bits, as
// from_bits() does, documented in softfloat/simd.hpp; packed and MX element bytes hold
// whole codes by construction; the Python module refuses codes that do not fit, tested
// in python/tests/test_entry_points.py.)
#include <gtest/gtest.h>

#include <cstdint>

#include "softfloat/arithmetic.hpp"
#include "softfloat/named_formats.hpp"
#include "verify/common/expect_invalid.hpp"

namespace softfloat {
namespace {

using verify::expect_invalid;

TEST(RuntimeCodes, CodesAboveTheWidthAreRefused) {
  const Format e2m1 = E2M1::format;
  const std::uint64_t one = 0x2, outside = 0x12;  // 0x12 has bit 4 set: not a 4-bit code
  expect_invalid([&] { (void)runtime::add(outside, one, e2m1); }, "softfloat::runtime::add: code 18 does not fit");
  expect_invalid([&] { (void)runtime::add(one, outside, e2m1); }, "softfloat::runtime::add: ");
  expect_invalid([&] { (void)runtime::subtract(one, outside, e2m1); }, "softfloat::runtime::subtract: ");
  expect_invalid([&] { (void)runtime::multiply(outside, one, e2m1); }, "softfloat::runtime::multiply: ");
  expect_invalid([&] { (void)runtime::divide(one, outside, e2m1); }, "softfloat::runtime::divide: ");
  expect_invalid([&] { (void)runtime::fma(one, one, outside, e2m1); }, "softfloat::runtime::fma: ");
  expect_invalid([&] { (void)runtime::sqrt(outside, e2m1); }, "softfloat::runtime::sqrt: ");
  expect_invalid([&] { (void)runtime::negate(outside, e2m1); }, "softfloat::runtime::negate: ");
  expect_invalid([&] { (void)runtime::add(std::uint64_t{1} << 32, 0, FP32::format); }, "[0, 2^32)");
  expect_invalid([&] { (void)runtime::add(1, 1, Format{0, 3}); }, "softfloat::runtime::add: invalid format");
  // 64-bit formats use every bit of the code.
  EXPECT_NO_THROW((void)runtime::add(~std::uint64_t{0}, 0, Float<11, 52>::format));
}

// Every pair of E2M1 codes (all fit): the runtime operations equal the typed operators,
// whose results verify/arithmetic checks against MPFR.
TEST(RuntimeCodes, EveryCodeThatFitsIsAccepted) {
  for (std::uint64_t a = 0; a < 16; ++a)
    for (std::uint64_t b = 0; b < 16; ++b) {
      const E2M1 x = E2M1::from_bits(std::uint8_t(a)), y = E2M1::from_bits(std::uint8_t(b));
      EXPECT_EQ(runtime::add(a, b, E2M1::format), (x + y).bits());
      EXPECT_EQ(runtime::multiply(a, b, E2M1::format), (x * y).bits());
      EXPECT_EQ(runtime::negate(a, E2M1::format), (-x).bits());
    }
}

}  // namespace
}  // namespace softfloat
