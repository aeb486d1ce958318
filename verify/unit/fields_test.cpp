// Field access and bit_string(): the sign, exponent and mantissa fields of a code as a
// user reads them, including formats that lack a field (E8M0: no sign, no mantissa).
#include <gtest/gtest.h>

#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

// bf16 -6.5 = -1.101b * 2^2: sign 1, exponent 2 + 127 = 129 = 0b10000001, mantissa
// 0b1010000 (the bits after the point, padded to 7).
TEST(Fields, Bf16) {
  const BF16 x(-6.5);
  EXPECT_EQ(x.bit_string(), "1 10000001 1010000");
  EXPECT_TRUE(x.sign());
  EXPECT_EQ(x.biased_exponent(), 129u);
  EXPECT_EQ(x.mantissa(), 0b1010000u);
  EXPECT_EQ(x.bits(), 0b1'10000001'1010000u);
}

// E4M3: 448 = 1.110b * 2^8 -> 0 1111 110; -0.5 = -1.000b * 2^-1 -> 1 0110 000;
// the smallest subnormal 2^-9 = 0.001b * 2^-6 -> 0 0000 001; NaN 0 1111 111.
TEST(Fields, E4M3) {
  EXPECT_EQ(E4M3(448.0).bit_string(), "0 1111 110");
  EXPECT_EQ(E4M3(-0.5).bit_string(), "1 0110 000");
  EXPECT_EQ(E4M3(0x1p-9).bit_string(), "0 0000 001");
  EXPECT_EQ(E4M3::quiet_NaN().bit_string(), "0 1111 111");
  EXPECT_FALSE(E4M3(448.0).sign());
  EXPECT_EQ(E4M3(448.0).biased_exponent(), 15u);
  EXPECT_EQ(E4M3(448.0).mantissa(), 0b110u);
}

// E8M0 has only its 8 exponent bits: 1 = 2^(127 - 127) -> 01111111; 2^-127 -> 00000000.
TEST(Fields, E8M0HasNoSignAndNoMantissa) {
  EXPECT_EQ(E8M0(1.0).bit_string(), "01111111");
  EXPECT_EQ(E8M0(0x1p-127).bit_string(), "00000000");
  EXPECT_EQ(E8M0(0x1p127).bit_string(), "11111110");
  EXPECT_EQ(E8M0::quiet_NaN().bit_string(), "11111111");
  EXPECT_FALSE(E8M0(1.0).sign());
  EXPECT_EQ(E8M0(4.0).biased_exponent(), 129u);
  EXPECT_EQ(E8M0(4.0).mantissa(), 0u);
}

// E2M1: -3 = -1.1b * 2^1 -> 1 10 1 (exponent 1 + 1); 6 = 1.1b * 2^2 -> 0 11 1;
// 0.5 is the subnormal 0.1b * 2^0 -> 0 00 1.
TEST(Fields, E2M1) {
  EXPECT_EQ(E2M1(-3.0).bit_string(), "1 10 1");
  EXPECT_EQ(E2M1(6.0).bit_string(), "0 11 1");
  EXPECT_EQ(E2M1(0.5).bit_string(), "0 00 1");
  EXPECT_EQ(E2M1(-0.0).bit_string(), "1 00 0");
  EXPECT_TRUE(E2M1(-3.0).sign());
  EXPECT_EQ(E2M1(-3.0).biased_exponent(), 2u);
  EXPECT_EQ(E2M1(-3.0).mantissa(), 1u);
}

// Fields work in constant expressions too.
static_assert(BF16(-6.5).biased_exponent() == 129 && BF16(-6.5).mantissa() == 0b1010000);
static_assert(E8M0(1.0).biased_exponent() == 127 && !E8M0(1.0).sign());

}  // namespace
}  // namespace softfloat
