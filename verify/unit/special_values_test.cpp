// The conventions where formats leave a choice, pinned code by code: the E8M0 scale
// format, the fnuz and P3109 formats (NaN at 0x80, no negative zero), and the OCP MX
// E2M1 element format (no infinity, no NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/common/format_test_names.hpp"

namespace softfloat {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

template <class T>
T runtime(T value) {
  volatile T copy = value;
  return copy;
}

// E8M0: code c is 2^(c - 127), 0xFF is NaN; no zero, no sign.
TEST(E8M0Convention, Codes) {
  EXPECT_EQ(E8M0(runtime(1.0)).bits(), 0x7Fu);   // 2^0: 0 + 127
  EXPECT_EQ(E8M0(runtime(2.0)).bits(), 0x80u);
  // 3 lies halfway between 2 and 4 (in value, 3 = 1.1b * 2^1 at one bit of precision);
  // ties between powers of two round up, as MPFR at precision 1 does: 4 = 0x81.
  EXPECT_EQ(E8M0(runtime(3.0)).bits(), 0x81u);
  EXPECT_EQ(E8M0(runtime(1.5)).bits(), 0x80u);   // tie between 1 and 2: up to 2
  EXPECT_EQ(E8M0(runtime(2.9999999)).bits(), 0x80u);  // below the tie: 2
  EXPECT_EQ(E8M0(runtime(0.0)).bits(), 0x00u);   // no zero: the smallest value 2^-127
  EXPECT_EQ(E8M0(runtime(-0.0)).bits(), 0x00u);
  EXPECT_EQ(E8M0(runtime(-1.0)).bits(), 0xFFu);  // no sign: negative is NaN
  EXPECT_EQ(E8M0(runtime(0x1p-200)).bits(), 0x00u);  // below 2^-127: 2^-127
  EXPECT_EQ(E8M0(runtime(0x1p-127)).bits(), 0x00u);
  EXPECT_EQ(E8M0(runtime(0x1p127)).bits(), 0xFEu);   // the largest value
  EXPECT_EQ(E8M0(runtime(0x1p128)).bits(), 0xFFu);   // overflow: NaN (no infinity)
  EXPECT_EQ(E8M0(runtime(0x1.8p127)).bits(), 0xFFu);  // tie rounds up to 2^128: overflow
  EXPECT_EQ(E8M0(runtime(inf)).bits(), 0xFFu);
  EXPECT_EQ(E8M0(runtime(nan)).bits(), 0xFFu);
  EXPECT_EQ(E8M0(runtime(3.0f)).bits(), 0x81u);  // the float overload agrees
  EXPECT_EQ(float(E8M0::from_bits(0x00)), 0x1p-127f);
  EXPECT_EQ(double(E8M0::from_bits(0xFE)), 0x1p127);
  EXPECT_TRUE(std::isnan(double(E8M0::from_bits(0xFF))));
  // MPFR at precision 1 agrees on the ties.
  EXPECT_EQ(E8M0(runtime(3.0)).bits(), verify::reference_round(3.0, format_of<E8M0>()));
  EXPECT_EQ(E8M0(runtime(1.5)).bits(), verify::reference_round(1.5, format_of<E8M0>()));
}

// fnuz: one NaN at 0x80 (where -0 would be), no infinity, no negative zero.
TEST(FnuzConvention, E4M3FnuzCodes) {
  EXPECT_EQ(E4M3FNUZ(runtime(-0.0)).bits(), 0x00u);
  EXPECT_EQ(E4M3FNUZ(runtime(-0x1p-30)).bits(), 0x00u);  // negative underflow: +0
  EXPECT_EQ(E4M3FNUZ(runtime(nan)).bits(), 0x80u);
  EXPECT_EQ(E4M3FNUZ(runtime(-nan)).bits(), 0x80u);
  EXPECT_EQ(E4M3FNUZ(runtime(inf)).bits(), 0x80u);   // no infinity: NaN
  EXPECT_EQ(E4M3FNUZ(runtime(-inf)).bits(), 0x80u);
  EXPECT_EQ(double(E4M3FNUZ(runtime(240.0))), 240.0);  // 1.111b * 2^(15 - 8)
  EXPECT_EQ(E4M3FNUZ(runtime(240.0)).bits(), 0x7Fu);
  EXPECT_EQ(E4M3FNUZ(runtime(-240.0)).bits(), 0xFFu);
  // 248 is the midpoint between 240 (odd mantissa 111) and 256 (past max): a tie to the
  // even neighbour 256 overflows; just below it stays 240.
  EXPECT_EQ(E4M3FNUZ(runtime(248.0)).bits(), 0x80u);
  EXPECT_EQ(E4M3FNUZ(runtime(247.0)).bits(), 0x7Fu);
  EXPECT_TRUE(std::isnan(double(E4M3FNUZ::from_bits(0x80))));
}

TEST(FnuzConvention, E5M2FnuzCodes) {
  EXPECT_EQ(E5M2FNUZ(runtime(-0.0)).bits(), 0x00u);
  EXPECT_EQ(E5M2FNUZ(runtime(nan)).bits(), 0x80u);
  EXPECT_EQ(E5M2FNUZ(runtime(inf)).bits(), 0x80u);
  EXPECT_EQ(double(E5M2FNUZ(runtime(57344.0))), 57344.0);  // 1.11b * 2^(31 - 16)
  EXPECT_EQ(E5M2FNUZ(runtime(57344.0)).bits(), 0x7Fu);
  EXPECT_EQ(E5M2FNUZ(runtime(1e6)).bits(), 0x80u);
}

// P3109: NaN 0x80, +-infinity 0x7F / 0xFF, and finite overflow goes to infinity.
template <class F>
class P3109Test : public ::testing::Test {};
TYPED_TEST_SUITE(P3109Test, test_formats::P3109Formats, test_names::FormatNames);

TYPED_TEST(P3109Test, SpecialCodes) {
  using F = TypeParam;
  EXPECT_EQ(F(runtime(-0.0)).bits(), 0x00u);
  EXPECT_EQ(F(runtime(0.0)).bits(), 0x00u);
  EXPECT_EQ(F(runtime(nan)).bits(), 0x80u);
  EXPECT_EQ(F(runtime(-nan)).bits(), 0x80u);
  EXPECT_EQ(F(runtime(std::numeric_limits<float>::quiet_NaN())).bits(), 0x80u);
  EXPECT_EQ(F(runtime(inf)).bits(), 0x7Fu);
  EXPECT_EQ(F(runtime(-inf)).bits(), 0xFFu);
  EXPECT_EQ(F(runtime(0x1p100)).bits(), 0x7Fu);  // every P3109<8,P> max is below 2^63
  EXPECT_EQ(F(runtime(-0x1p100)).bits(), 0xFFu);
  EXPECT_EQ(F(runtime(-0x1p-100)).bits(), 0x00u);  // negative underflow: +0
  EXPECT_EQ(double(F::from_bits(0x7F)), inf);
  EXPECT_EQ(double(F::from_bits(0xFF)), -inf);
  EXPECT_TRUE(std::isnan(double(F::from_bits(0x80))));
  EXPECT_EQ(F::max().bits(), 0x7Eu);
  // max converts to itself; twice max lies beyond max plus half a gap in every P, so
  // it overflows to infinity.
  const double max = double(F::max());
  EXPECT_EQ(F(runtime(max)).bits(), 0x7Eu);
  EXPECT_EQ(F(runtime(max * 2)).bits(), 0x7Fu);
}

// bias 2^(7 - P) and max code 0x7E, derived in limits_test.cpp; here the values.
TEST(P3109Convention, Maxima) {
  EXPECT_EQ(double(P3109<8, 1>::max()), 0x1p62);     // E7M0 bias 64: 2^(126 - 64)
  EXPECT_EQ(double(P3109<8, 2>::max()), 0x1p31);     // E6M1 bias 32: 1.0b * 2^(63 - 32)
  EXPECT_EQ(double(P3109<8, 3>::max()), 49152.0);    // E5M2 bias 16: 1.10b * 2^15
  EXPECT_EQ(double(P3109<8, 4>::max()), 224.0);      // E4M3 bias 8: 1.110b * 2^7
  EXPECT_EQ(double(P3109<8, 5>::max()), 15.0);       // E3M4 bias 4: 1.1110b * 2^3
  EXPECT_EQ(double(P3109<8, 6>::max()), 3.875);      // E2M5 bias 2: 1.11110b * 2^1
  EXPECT_EQ(double(P3109<8, 7>::max()), 1.96875);    // E1M6 bias 1: 1.111110b * 2^0
  EXPECT_EQ((P3109<8, 3>::format.bias), 16);
  EXPECT_EQ((P3109<8, 7>::format.bias), 1);
}

// OCP E4M3 has a NaN per sign and keeps the sign of NaN; infinity overflows to NaN.
TEST(FnConvention, E4M3NaNKeepsSign) {
  EXPECT_EQ(E4M3(runtime(nan)).bits(), 0x7Fu);
  EXPECT_EQ(E4M3(runtime(-nan)).bits(), 0xFFu);
  EXPECT_EQ(E4M3(runtime(inf)).bits(), 0x7Fu);
  EXPECT_EQ(E4M3(runtime(-inf)).bits(), 0xFFu);
  EXPECT_EQ(E4M3(runtime(-0.0)).bits(), 0x80u);  // E4M3 does have -0
}

// IEEE formats with several NaN codes: sign kept, quiet bit set, top payload bits kept
// (what x86 F16C's VCVTPS2PH does): float NaN 0xFFA00000 (negative, signalling, payload
// 0b01 at the top of the mantissa) becomes fp16 0xFE00 | (0b01 << 8) = 0xFF00.
TEST(IeeeConvention, NaNKeepsSignAndTopPayload) {
  const float signalling = std::bit_cast<float>(runtime(std::uint32_t{0xFFA00000}));
  EXPECT_EQ(FP16(signalling).bits(), 0xFF00u);
  EXPECT_EQ(BF16(signalling).bits(), 0xFFE0u);
  EXPECT_EQ(E5M2(signalling).bits(), 0xFFu);  // 0xFC | quiet 0b10 | payload top bit 1
  EXPECT_EQ(FP16(runtime(-nan)).bits(), 0xFE00u);
}

// E2M1: every value, the overflow rule (saturate: no infinity, no NaN) and the NaN
// convention (+0, documented: no code can carry "not a number").
TEST(E2M1Convention, EveryValue) {
  const double values[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  for (unsigned code = 0; code < 8; ++code) {
    EXPECT_EQ(double(E2M1::from_bits(std::uint8_t(code))), values[code]) << code;
    EXPECT_EQ(double(E2M1::from_bits(std::uint8_t(code | 8))), -values[code]) << code;
    EXPECT_EQ(E2M1(runtime(values[code])).bits(), code) << values[code];
    EXPECT_EQ(E2M1(runtime(-values[code])).bits(), code | 8) << values[code];
  }
}

TEST(E2M1Convention, RoundingOverflowAndSpecials) {
  EXPECT_EQ(E2M1(runtime(7.0)).bits(), 0x7u);    // above max 6: saturates
  EXPECT_EQ(E2M1(runtime(100.0)).bits(), 0x7u);
  EXPECT_EQ(E2M1(runtime(-7.0)).bits(), 0xFu);
  EXPECT_EQ(E2M1(runtime(inf)).bits(), 0x7u);    // infinity: 6
  EXPECT_EQ(E2M1(runtime(-inf)).bits(), 0xFu);   // -6
  EXPECT_EQ(E2M1(runtime(nan)).bits(), 0x0u);    // NaN: +0
  EXPECT_EQ(E2M1(runtime(-nan)).bits(), 0x0u);
  EXPECT_EQ(E2M1(runtime(5.0)).bits(), 0x6u);    // tie 4 (mantissa 0) / 6 (1): 4
  EXPECT_EQ(E2M1(runtime(0.25)).bits(), 0x0u);   // tie 0 / 0.5: the even 0
  EXPECT_EQ(E2M1(runtime(0.75)).bits(), 0x2u);   // tie 0.5 (code 1) / 1 (code 2): 1
  EXPECT_EQ(E2M1(runtime(2.5)).bits(), 0x4u);    // tie 2 (code 4) / 3 (code 5): 2
  EXPECT_EQ(E2M1(runtime(-0.0)).bits(), 0x8u);   // E2M1 has -0
  EXPECT_EQ(E2M1(runtime(-0.1)).bits(), 0x8u);
}

// The other finite formats follow the same NaN rule.
TEST(FiniteConvention, NaNIsPositiveZero) {
  EXPECT_EQ(E3M2(runtime(nan)).bits(), 0x00u);
  EXPECT_EQ(E2M3(runtime(-nan)).bits(), 0x00u);
  EXPECT_EQ(E3M2(runtime(inf)).bits(), 0x1Fu);   // 28
  EXPECT_EQ(E2M3(runtime(-inf)).bits(), 0x3Fu);  // -7.5
}

}  // namespace
}  // namespace softfloat
