// The values users check first: 0.1 in every format, values that vanish or survive,
// the OCP FP8 overflow edges, and the double-rounding cases that a conversion through
// float would get wrong. Each expected value is stated exactly (hex float or exact
// decimal) with its derivation, and cross-checked against MPFR.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat {
namespace {

using verify::reference_round;

// Runtime copies, so the conversions below run in the compiled code rather than
// only in the compiler's constant evaluator.
template <class T>
T runtime(T value) {
  volatile T copy = value;
  return copy;
}

// 0.1 = 0x1.999999999999ap-4 (double). Rounded to M + 1 significant bits:
//   fp32 (24 bits): 0x1.99999ap-4 = 0.100000001490116119384765625
//   bf16 (8 bits):  1.1001100|11... rounds up to 1.1001101 = 0x1.9ap-4 = 0.10009765625
//   fp16 (11 bits): 1.1001100110|011... rounds down to 0x1.998p-4 = 0.0999755859375
//   E4M3 (4 bits):  1.100|1100... rounds up to 1.101 = 0x1.ap-4 = 13/128 = 0.1015625
TEST(KnownValues, OneTenthInEachFormat) {
  const double tenth = runtime(0.1);
  EXPECT_EQ(double(FP32(tenth)), 0.100000001490116119384765625);
  EXPECT_EQ(double(FP32(tenth)), 0x1.99999ap-4);
  EXPECT_EQ(FP32(tenth).bits(), 0x3DCCCCCDu);
  EXPECT_EQ(double(BF16(tenth)), 0.10009765625);
  EXPECT_EQ(BF16(tenth).bits(), 0x3DCDu);
  EXPECT_EQ(double(FP16(tenth)), 0.0999755859375);
  EXPECT_EQ(FP16(tenth).bits(), 0x2E66u);
  EXPECT_EQ(double(E4M3(tenth)), 0.1015625);
  EXPECT_EQ(E4M3(tenth).bits(), 0b0'0011'101u);  // 1.101b * 2^(3 - 7)
  // The float 0.1f rounds to the same values (its extra bits do not reach a tie).
  const float tenth_f = runtime(0.1f);
  EXPECT_EQ(BF16(tenth_f).bits(), 0x3DCDu);
  EXPECT_EQ(FP16(tenth_f).bits(), 0x2E66u);
  EXPECT_EQ(E4M3(tenth_f).bits(), 0b0'0011'101u);
  // MPFR agrees.
  EXPECT_EQ(BF16(tenth).bits(), reference_round(0.1, format_of<BF16>()));
  EXPECT_EQ(FP16(tenth).bits(), reference_round(0.1, format_of<FP16>()));
  EXPECT_EQ(E4M3(tenth).bits(), reference_round(0.1, format_of<E4M3>()));
}

// bf16 keeps 8 significant bits: the gap above 1 is 2^-7 = 0.0078125, so 1.001 lies
// within half a gap of 1 and becomes exactly 1.
TEST(KnownValues, SmallIncrementVanishesInBf16) {
  EXPECT_EQ(double(BF16(runtime(1.0 + 0.001))), 1.0);
  EXPECT_EQ(BF16(runtime(1.0 + 0.001)).bits(), 0x3F80u);
}

// fp16's smallest subnormal is 2^-24 ~ 5.96e-8, so 1e-8 (below half of it) is 0.
// bf16 has fp32's exponent range: 1e-8 is normal there, rounded to 8 bits:
// 0x1.58p-27 = 1.00117176771163940429688e-08 (exactly 1.001171767711639404296875e-08,
// the value MPFR gives at precision 8).
TEST(KnownValues, TinyValueIsZeroInFp16ButNotInBf16) {
  const double tiny = runtime(1e-8);
  EXPECT_EQ(FP16(tiny).bits(), 0x0000u);
  EXPECT_EQ(double(BF16(tiny)), 0x1.58p-27);
  EXPECT_EQ(double(BF16(tiny)), 1.001171767711639404296875e-08);
  EXPECT_EQ(BF16(tiny).bits(), reference_round(1e-8, format_of<BF16>()));
}

// OCP FP8 maxima: E4M3 0b0'1111'110 = 1.75 * 2^8 = 448; E5M2 0b0'11110'11 = 1.75 * 2^15.
TEST(KnownValues, Fp8Maxima) {
  EXPECT_EQ(double(E4M3::max()), 448.0);
  EXPECT_EQ(double(E5M2::max()), 57344.0);
  EXPECT_EQ(E4M3(runtime(448.0)).bits(), 0x7Eu);
  EXPECT_EQ(E5M2(runtime(57344.0)).bits(), 0x7Bu);
}

// E4M3 above 256 has a gap of 32: 448 = 1.110b * 2^8 and the next code 1.111b * 2^8
// (= 480) is NaN. 464 is the midpoint: the tie goes to the even mantissa 110, i.e. 448.
// Anything above 464 rounds to 480, which is past max: NaN (E4M3 has no infinity).
TEST(KnownValues, E4M3OverflowEdge) {
  EXPECT_EQ(E4M3(runtime(464.0)).bits(), 0x7Eu);
  EXPECT_EQ(double(E4M3(runtime(464.0))), 448.0);
  const double just_above = runtime(0x1.d000000000001p8);  // next double above 464
  ASSERT_GT(just_above, 464.0);
  EXPECT_EQ(E4M3(just_above).bits(), 0x7Fu);
  EXPECT_EQ(E4M3(-just_above).bits(), 0xFFu);
  EXPECT_EQ(E4M3(just_above).bits(), reference_round(just_above, format_of<E4M3>()));
}

// Double rounding. -431.99999999999994 (= -(432 - 2^-44)) lies just below the E4M3
// midpoint 432 between 416 (1.101b * 2^8) and 448 (1.110b * 2^8), so it becomes -416.
// Through float it would first round to -432 exactly, a tie that goes to the even -448.
TEST(KnownValues, DoubleIsNotRoundedToFloatFirstE4M3) {
  const double x = runtime(-431.99999999999994);
  ASSERT_EQ(x, -(432.0 - 0x1p-44));
  EXPECT_EQ(double(E4M3(x)), -416.0);
  EXPECT_EQ(E4M3(x).bits(), 0b1'1111'101u);
  EXPECT_EQ(E4M3(x).bits(), reference_round(x, format_of<E4M3>()));
  const float through_float = static_cast<float>(x);
  ASSERT_EQ(through_float, -432.0f);
  EXPECT_EQ(double(E4M3(through_float)), -448.0);
}

// 1 + 2^-8 + 2^-40: bf16's gap at 1 is 2^-7, so 2^-8 + 2^-40 is above half a gap and
// the value rounds up to 1 + 2^-7 = 1.0078125. Float keeps 24 bits and drops 2^-40,
// leaving 1 + 2^-8, an exact tie that goes to the even 1.0.
TEST(KnownValues, DoubleIsNotRoundedToFloatFirstBf16) {
  const double x = runtime(1.0 + 0x1p-8 + 0x1p-40);
  EXPECT_EQ(double(BF16(x)), 1.0078125);
  EXPECT_EQ(BF16(x).bits(), 0x3F81u);
  EXPECT_EQ(BF16(x).bits(), reference_round(x, format_of<BF16>()));
  const float through_float = static_cast<float>(x);
  ASSERT_EQ(through_float, 1.0f + 0x1p-8f);
  EXPECT_EQ(double(BF16(through_float)), 1.0);
}

// 16973823 = 2^24 + 196607 = 129.49999237... * 2^17, and bf16's gap in [2^24, 2^25) is
// 2^17, so it rounds down to 129 * 2^17 = 16908288. Through float (gap 2 there) the odd
// integer is a tie that goes to 16973824 = 129.5 * 2^17, a tie again, to the even
// 130 * 2^17 = 17039360.
TEST(KnownValues, IntegerIsNotRoundedToFloatFirst) {
  const std::int64_t n = runtime(std::int64_t{16973823});
  EXPECT_EQ(double(BF16(n)), 16908288.0);
  EXPECT_EQ(double(BF16(static_cast<int>(n))), 16908288.0);
  const float through_float = static_cast<float>(n);
  ASSERT_EQ(through_float, 16973824.0f);
  EXPECT_EQ(double(BF16(through_float)), 17039360.0);
}

}  // namespace
}  // namespace softfloat
