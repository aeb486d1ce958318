// Rounding boundaries of every format up to 16 bits, from float and from double
// input: for each pair of adjacent values on the positive axis (zero, the
// subnormals, the subnormal/normal step, every binade up to max, and max against
// the overflow threshold max + half an ulp of max's binade), the representable
// value, the midpoint, and the source values one source-ulp either side of the
// midpoint, all with both signs. Expected codes: verify::reference_round (MPFR).
#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

template <class F>
class RoundingBoundaries : public ::testing::Test {};
TYPED_TEST_SUITE(RoundingBoundaries, NarrowFormats, FormatNames);

// Walks every gap of the format. For these formats every midpoint has at most
// M + 2 <= 12 significant bits and lies between 2^-134 (bf16's smallest subnormal
// 2^-133, halved) and 2^128 - 2^119 (bf16's overflow threshold), so float and
// double both hold all of them; the test checks that premise instead of skipping.
template <class F, class Source>
void check_every_gap() {
  const Format f = F::format;
  MismatchLog log(format_name(f) + " rounding boundaries");
  std::vector<Source> probes;
  long inexact_midpoints = 0;
  for (long position = first_position(f); position < last_position(f); ++position) {
    probes.clear();
    if (!append_boundary_probes(probes, position, f)) ++inexact_midpoints;
    for (Source x : probes) check_both_signs<F>(log, x);
  }
  EXPECT_EQ(inexact_midpoints, 0) << "a midpoint is not a " << (sizeof(Source) == 4 ? "float" : "double");
  EXPECT_TRUE(log.result());
  // Value + midpoint + two neighbours per gap, two signs (zero's gap has no
  // value in a format without zero): catches a loop that silently ran short.
  const long gaps = last_position(f) - first_position(f);
  EXPECT_GE(long(log.checked()), 2 * (4 * gaps - 1));
}

TYPED_TEST(RoundingBoundaries, FloatInput) { check_every_gap<TypeParam, float>(); }
TYPED_TEST(RoundingBoundaries, DoubleInput) { check_every_gap<TypeParam, double>(); }

// The boundaries spelled out for two formats, with the arithmetic in the comment,
// so that a reader sees what the generated cases mean.
TEST(RoundingBoundariesByHand, Fp16AroundOneAndMax) {
  // 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10: ties to even gives 1.0 (0x3C00);
  // one float-ulp above it rounds up to 0x3C01.
  EXPECT_EQ(FP16(1.0f + 0x1p-11f).bits(), 0x3C00);
  EXPECT_EQ(FP16(std::nextafter(1.0f + 0x1p-11f, 2.0f)).bits(), 0x3C01);
  EXPECT_EQ(verify::reference_round(std::nextafter(1.0f + 0x1p-11f, 2.0f), FP16::format), 0x3C01u);
  // max = 65504, its binade's ulp is 32: 65519.99 stays 65504 (0x7BFF), the
  // threshold 65520 ties to the even 65536, which overflows to infinity (0x7C00).
  EXPECT_EQ(FP16(std::nextafter(65520.0, 0.0)).bits(), 0x7BFF);
  EXPECT_EQ(FP16(65520.0).bits(), 0x7C00);
  EXPECT_EQ(verify::reference_round(65520.0, FP16::format), 0x7C00u);
}

TEST(RoundingBoundariesByHand, E4m3OverflowThresholdTiesToMax) {
  // E4M3 max 448 = 1.75 * 2^8 (mantissa 110, even), ulp 32: 464 is a tie between
  // 448 and the would-be 480 (mantissa 111, odd), so it rounds to 448 (0x7E);
  // anything above 464 overflows to NaN (0x7F), as E4M3 has no infinity.
  EXPECT_EQ(E4M3(464.0f).bits(), 0x7E);
  EXPECT_EQ(E4M3(std::nextafter(464.0f, 1000.0f)).bits(), 0x7F);
  EXPECT_EQ(E4M3(-464.0).bits(), 0xFE);
  EXPECT_EQ(verify::reference_round(464.0f, E4M3::format), 0x7Eu);
  EXPECT_EQ(verify::reference_round(std::nextafter(464.0f, 1000.0f), E4M3::format), 0x7Fu);
}

}  // namespace
}  // namespace softfloat::conversion_test
